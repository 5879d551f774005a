"""Chunks from a device source written in Python (what the CUDA layer's source is): the core calls
its alloc/free with the core's mutex down, so callbacks that take the GIL (and let other threads
run meanwhile) cannot deadlock against threads that hold the GIL and wait for the mutex. The
threaded test runs in a subprocess: a deadlock there would freeze the interpreter (every thread
stuck on the GIL), which only a process timeout can report.
"""
import subprocess
import sys
import textwrap

import pytest

import wsarray as wnp

core = wnp._native

SOURCE = textwrap.dedent(
    """
    import threading, time
    import numpy
    import wsarray as wnp
    core = wnp._native

    class HostBackedSource:
        '''Device memory stand-in: NumPy buffers, 256-byte aligned; sleeps inside each call so
        that the interpreter switches threads while a callback runs.'''
        def __init__(self):
            self.buffers, self.lock = {}, threading.Lock()
            self.allocs = self.frees = 0
        def alloc(self, size):
            time.sleep(0.0005)
            buf = numpy.empty(size + 256, numpy.uint8)
            addr = buf.ctypes.data
            addr += -addr % 256
            with self.lock:
                self.buffers[addr] = buf
                self.allocs += 1
            return addr
        def free(self, addr, size):
            time.sleep(0.0005)
            with self.lock:
                del self.buffers[addr]
                self.frees += 1
    """
)


def make_source_and_config(ns, **kw):
    src = ns["HostBackedSource"]()
    cfg = core._config_with_device_source(
        wnp.WorkspaceConfig(**kw), "fake:0", src.alloc, src.free
    )
    return src, cfg


def test_threads_allocate_from_a_python_device_source_without_deadlock():
    script = SOURCE + textwrap.dedent(
        """
        src = HostBackedSource()
        errors = []
        def worker(k):
            try:
                cfg = core._config_with_device_source(
                    wnp.WorkspaceConfig(spill="external"), "fake:0", src.alloc, src.free)
                ws = wnp.workspace(f"DEV{k}", cfg)
                for i in range(30):
                    with ws:
                        blocks = [core._workspace_allocate(ws, 5000 + 256 * j) for j in range(4)]
                        assert all(p % 256 == 0 for p in blocks)
                        for p in blocks:
                            assert core._workspace_free(p)
                ws.destroy()
            except BaseException as e:
                errors.append(e)
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
        for t in threads: t.start()
        for t in threads: t.join(60)
        assert not any(t.is_alive() for t in threads)
        assert not errors, errors
        assert src.allocs > 6 and src.allocs == src.frees, (src.allocs, src.frees)
        assert not src.buffers
        print("OK", src.allocs)
        """
    )
    r = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OK")


def test_a_python_device_source_serves_aligned_blocks_and_gets_every_chunk_back():
    ns = {}
    exec(SOURCE, ns)
    src, cfg = make_source_and_config(ns, initial_size=64 * 1024)
    assert cfg.device == "fake:0"
    ws = wnp.workspace("DEVSRC", cfg)
    try:
        with ws:
            p = core._workspace_allocate(ws, 100)
            assert p % 256 == 0 and p in range(min(src.buffers), min(src.buffers) + 64 * 1024)
            with pytest.raises(wnp.WorkspaceError, match="device fake:0"):
                core._workspace_allocate(ws, 8, True)  # the core cannot clear device memory
            assert core._workspace_free(p)
        assert src.allocs == 1
    finally:
        ws.destroy()
    assert src.frees == src.allocs and not src.buffers


def test_a_refusing_device_source_names_the_device_and_its_reason():
    def alloc(size):
        raise MemoryError(f"no room for {size} bytes")

    cfg = core._config_with_device_source(wnp.WorkspaceConfig(), "fake:0", alloc, lambda a, s: None)
    ws = wnp.workspace("DEVREFUSE", cfg)
    try:
        with ws:
            with pytest.raises(MemoryError, match=r"device fake:0 refused .*no room for"):
                core._workspace_allocate(ws, 1000)
    finally:
        ws.destroy()


def test_a_device_source_checks_its_alignment():
    with pytest.raises(ValueError, match="alignment must be a power of two"):
        core._config_with_device_source(wnp.WorkspaceConfig(), "fake:0", id, id, 100)
