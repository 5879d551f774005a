"""The shared segments a worker process has mapped (wsarray.data's workers, wsarray.parallel's
replicas): file descriptors arrive over the socket the worker inherited (SCM_RIGHTS), each with
its key and length, sent by the owner just before the first message that needs it. At most
``limit`` stay mapped, least recently used first out; the owner mirrors the same rule, so it
knows when to send a descriptor again (wsarray/data/_processes.py, ``WorkerPool.send``).
"""

import collections
import mmap
import os
import pickle
import socket


class Segments:
    def __init__(self, fdsock, limit):
        self.fdsock, self.limit = fdsock, limit
        self.maps = collections.OrderedDict()  # key -> mmap, least recently used first

    def get(self, key, length):
        """The mapping of segment ``key`` (receiving its descriptor if it is not mapped yet)."""
        segment = self.maps.get(key)
        while segment is None:
            data, fds, _, _ = socket.recv_fds(self.fdsock, 64, 1)
            if not fds:
                raise RuntimeError("the owner closed the segment channel")
            got = pickle.loads(data)
            try:
                self.maps[got[0]] = mmap.mmap(fds[0], got[1])
            finally:
                os.close(fds[0])
            while len(self.maps) > self.limit:
                self._unmap(next(iter(self.maps)))
            segment = self.maps.get(key)
        self.maps.move_to_end(key)
        return segment

    def forget(self, keys):
        for key in keys:
            self._unmap(key)

    def _unmap(self, key):
        segment = self.maps.pop(key, None)
        if segment is not None:
            try:
                segment.close()
            except BufferError:  # an array still refers to it: it goes when that does
                pass
