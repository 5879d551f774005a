"""Workspaces of shared memory (WorkspaceConfig(location='shared')): every chunk and spill is an
anonymous memfd that another process maps through wsarray._native._shared_segment's (fd, offset,
length) and sees and writes the same bytes; nothing appears in /dev/shm; another user cannot open
it; a forked child's view is private (it never writes into the parent's memory); trimming gives
its pages back; the config refuses what makes no sense for it.
"""
import gc
import mmap
import os
import signal
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import wsarray as wnp
from wsarray._devices import fake

segment = wnp._native._shared_segment
KiB, MiB = 1024, 2**20
NOT_SHARED = "the array's memory is not in a shared workspace"

# Run in another process (numpy only): map the fd, check what the owner wrote, write what it reads.
PEER = textwrap.dedent("""
    import mmap, sys
    import numpy as np
    fd, offset, length, n = map(int, sys.argv[1:])
    mm = mmap.mmap(fd, length)
    view = np.frombuffer(mm, np.float64, n, offset)
    assert (view == np.arange(n)).all(), view[:8]
    view[:] = -view
    del view
    mm.close()
""")


def shared(name, **kw):
    kw.setdefault("learning", "none")
    return wnp.workspace(name, wnp.WorkspaceConfig(location="shared", **kw))


def wsarray_names_in_dev_shm():
    return sorted(n for n in os.listdir("/dev/shm") if "wsarray" in n) if os.path.isdir("/dev/shm") else []


def round_trip_with_another_process(array):
    """A subprocess maps the array's segment, checks it holds arange(n), and negates it."""
    fd, offset, length = segment(array)
    n = array.size
    proc = subprocess.run([sys.executable, "-c", PEER, str(fd), str(offset), str(length), str(n)],
                          pass_fds=(fd,), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (np.asarray(array) == -np.arange(n)).all()  # the other process's writes, seen here


def in_child(body, meanwhile=None):
    """Run `body()` in a forked child (and `meanwhile()` here); the child's exit code (0: body
    returned True)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(30)
            code = 0 if body() else 1
        except BaseException:
            traceback.print_exc()  # pytest shows the child's stderr with the failure
            raise  # (os._exit below ends the child all the same)
        finally:
            os._exit(code)
    if meanwhile:
        meanwhile()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_another_process_sees_and_writes_a_shared_array():
    ws = shared("SHARED", initial_size=1 * MiB)
    with ws:
        a = wnp.arange(1000.0)
        fd, offset, length = segment(a)
        assert fd >= 0 and length == ws.stats()["capacity"] and offset % 64 == 0
        assert os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:wsarray")
        round_trip_with_another_process(a)
        a[:] = np.arange(1000.0)
        round_trip_with_another_process(a)  # and back: the owner's new writes reach it


def test_a_forked_child_shares_the_memory_through_a_dup_of_the_fd():
    # fork() closes the child's copy of the workspace's own fd (its inherited view turns private):
    # a dup made before forking is the child's way in, both ways.
    with shared("DUPFORK", initial_size=1 * MiB):
        a = wnp.arange(1000.0)
        fd, offset, length = segment(a)
        dup = os.dup(fd)

        def child():
            mm = mmap.mmap(dup, length)
            view = np.frombuffer(mm, np.float64, 1000, offset)
            ok = (view == np.arange(1000.0)).all()
            view[:] = -view
            return ok

        try:
            assert in_child(child) == 0
        finally:
            os.close(dup)
        assert (np.asarray(a) == -np.arange(1000.0)).all()


def test_a_view_gives_the_offset_of_its_first_byte():
    with shared("VIEWS", initial_size=1 * MiB):
        a = wnp.arange(100.0)
        fd, offset, length = segment(a)
        assert segment(a[10:]) == (fd, offset + 80, length)
        assert segment(a[::-1]) == (fd, offset + 99 * 8, length)
        assert segment(a.reshape(10, 10)[3]) == (fd, offset + 240, length)


def test_spills_are_shared_memory_too_big_and_small():
    ws = shared("SPILLS", initial_size=64 * KiB, spill="external")
    with ws:
        filler = wnp.ones(7000)  # most of the 64 KiB chunk
        chunk_fd = segment(filler)[0]
        small = wnp.arange(2000.0)  # 16 KB: a ram workspace would take it from the C heap
        big = wnp.arange(100_000.0)  # 800 KB
        assert ws.stats()["spills"] == 2
        for spilled in (small, big):
            fd, offset, length = segment(spilled)
            assert fd != chunk_fd and offset == 0 and length >= spilled.nbytes
            round_trip_with_another_process(spilled)
        del filler, small, big


def test_nothing_appears_in_dev_shm():
    before = wsarray_names_in_dev_shm()
    ws = shared("NOSHM", initial_size=256 * KiB)
    for _ in range(3):
        with ws:
            a = wnp.ones(1000) + 1
            b = wnp.ones(100_000)  # a spill
            assert wsarray_names_in_dev_shm() == before
            del a, b
    wnp.memory.destroy_workspace("NOSHM")
    assert wsarray_names_in_dev_shm() == before


def test_the_segment_is_private_to_its_user():
    with shared("MODE", initial_size=64 * KiB):
        fd = segment(wnp.ones(10))[0]
        assert os.fstat(fd).st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to become another user")
def test_another_user_cannot_open_the_segment():
    owner = os.getpid()
    with shared("OTHERUSER", initial_size=64 * KiB):
        fd = segment(wnp.ones(10))[0]

        def open_as_nobody():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            for mode in ("rb+", "rb"):
                try:
                    open(f"/proc/{owner}/fd/{fd}", mode).close()
                    return False
                except PermissionError:
                    pass
            return True

        assert in_child(open_as_nobody) == 0


def test_a_forked_child_writes_privately_and_never_into_the_parent():
    ws = shared("FORKED", initial_size=1 * MiB)
    with ws:
        a = wnp.arange(1000.0)
        fd, offset, length = segment(a)
        watch = mmap.mmap(fd, length)  # the parent's memory, seen through (a dup of) its fd
        before = bytes(watch)

        def child():
            a[:] = 7.0  # an inherited array: the child's copy
            with pytest.raises(ValueError, match="private copy-on-write view"):
                segment(a)
            with pytest.raises(OSError):
                os.fstat(fd)  # the child closed its copy of the workspace's fd
            return True

        assert in_child(child) == 0
        assert bytes(watch) == before and (np.asarray(a) == np.arange(1000.0)).all()

    def child_cycles():
        for _ in range(3):
            with ws:
                b = wnp.full(100_000, 5.0)  # the inherited chunk's memory, then a spill
                c = wnp.full(50_000, 3.0)
                assert float(b.sum()) == 500_000.0 and float(c.sum()) == 150_000.0
                assert segment(c)[0] >= 0  # a spill of the child's own: shared memory again
                del b, c
        return True

    assert in_child(child_cycles) == 0
    assert bytes(watch) == before
    with ws:  # the parent goes on with its shared memory
        d = wnp.arange(1000.0)
        assert segment(d)[0] == fd
    watch.close()


def test_a_forked_childs_zeros_stay_zeros_while_the_parent_writes():
    # Pages the child has not written show the parent's later writes: none of them is fresh memory
    # that would read as zeros without clearing.
    ws = shared("ZEROFORK", initial_size=1 * MiB)
    go_r, go_w = os.pipe()

    def child():
        os.read(go_r, 1)  # the parent has written its chunk meanwhile
        with ws:
            z = wnp.zeros(100_000)
            return not np.asarray(z).any()

    def parent_writes():
        with ws:
            wnp.full(120_000, 9.0)
        os.write(go_w, b"x")

    try:
        assert in_child(child, parent_writes) == 0
    finally:
        os.close(go_r)
        os.close(go_w)


def test_trimming_gives_shared_pages_back():
    ws = shared("TRIM", initial_size=64 * MiB, trim_after_cycles=4)
    with ws:
        fd = os.dup(segment(wnp.ones(1))[0])
    try:
        for _ in range(3):  # a big phase
            with ws:
                big = wnp.ones(6 * MiB)  # 48 MiB
                del big
        assert os.fstat(fd).st_blocks * 512 >= 40 * MiB
        for _ in range(8):  # a small phase: what it does not touch goes back
            with ws:
                wnp.ones(1000) + 1
        assert os.fstat(fd).st_blocks * 512 < 8 * MiB
        assert ws.stats()["trimmed_bytes"] >= 40 * MiB
        with ws:  # and comes back, as zeros, when needed again
            z = wnp.zeros(6 * MiB)
            assert not np.asarray(z).any()
            del z
    finally:
        os.close(fd)


def test_arrays_not_in_a_shared_workspace_are_refused():
    with pytest.raises(ValueError, match=NOT_SHARED):
        segment(wnp.arange(3.0))
    with pytest.raises(ValueError, match=NOT_SHARED):
        segment(np.arange(3.0))
    with wnp.workspace("RAMWS", wnp.WorkspaceConfig(initial_size=64 * KiB, learning="none")):
        with pytest.raises(ValueError, match=r"\(WorkspaceConfig\(location='shared'\)\)"):
            segment(wnp.arange(3.0))
    with pytest.raises(TypeError, match="expected an array"):
        segment([1.0, 2.0])


def test_a_stale_array_is_refused():
    with shared("STALE", initial_size=64 * KiB):
        a = wnp.arange(3.0)
    with pytest.raises(wnp.WorkspaceError, match="_shared_segment.*cycle has ended"):
        segment(a)


def test_the_config_knows_shared_and_refuses_what_it_cannot_do():
    assert wnp.WorkspaceConfig(location="shared").location == "shared"
    assert "location='shared'" in repr(wnp.WorkspaceConfig(location="shared"))
    with pytest.raises(ValueError, match="'ram', 'mmap', 'shared'"):
        wnp.WorkspaceConfig(location="shm")
    with pytest.raises(ValueError, match="temp_file_path needs location='mmap'"):
        wnp.WorkspaceConfig(location="shared", temp_file_path="/tmp")
    fake.enable(1)
    try:
        with pytest.raises(ValueError, match="location='shared' is host memory.*'fake:0'"):
            wnp.WorkspaceConfig(location="shared", device="fake:0")
    finally:
        fake.disable()
    gc.collect()
