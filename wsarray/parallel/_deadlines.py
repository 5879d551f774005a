"""The deadline reaper of a worker pool: one daemon thread that fails requests whose deadline passed.

Workers skip expired requests while they form a batch, but while every worker is busy nobody forms
one: this thread sleeps until the soonest deadline of the queue (at most ``POLL_S``, so that it
sees a closed queue), takes out and fails what expired (``TimeoutError``, through the queue's
``on_dropped``), and sleeps again; a put with a sooner deadline wakes it. It stops once the queue
is closed and empty. It has the attributes ``join_workers`` waits on (``thread``, ``stopped``).
"""

import threading

from .._interrupts import GateEvent, shielded


class DeadlineReaper:
    def __init__(self, queue, thread_name):
        self.queue = queue
        self.thread_name = thread_name
        self.thread = None
        self.stopped = GateEvent()  # set as the thread's last step (see _workers.Worker)

    def start(self):
        """Start the thread, on the interrupt shield (a Ctrl-C cannot leave it half started)."""
        shielded(self._start)

    def _start(self):
        thread = threading.Thread(target=self._main, name=self.thread_name, daemon=True)
        try:
            thread.start()
        except BaseException:
            self.stopped.set()
            raise
        self.thread = thread

    def _main(self):
        try:
            while True:
                wait = self.queue.expire_due()
                if wait is None:
                    return
                self.queue.timer.wait(wait)
        finally:
            self.stopped.set()

    def mark_stopped_in_forked_child(self):
        self.stopped = GateEvent()
        self.stopped.set()
