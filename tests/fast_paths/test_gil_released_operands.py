"""Operands of the lean paths that run without the GIL (large float64 kernels, NumPy's ufunc and
matmul loops, fused kernels, sums) stay alive while they run, whatever another thread does: here
the thread whose workspace holds them exits meanwhile, which destroys that workspace and makes its
Arrays let go of their memory. Before, the loop read freed memory: the matmul, ufunc and kernel
cases crashed the build before this test. Each case runs in a child process, so a crash fails
only its own case."""

import subprocess
import sys

import pytest

SCRIPT = """
import sys, threading, queue, time, wsarray as wa
handoff, started = queue.Queue(), threading.Event()

def owner():
    ws = wa.workspace("GIL_RELEASED_OWNER")
    ws.__enter__()  # left open: the thread's exit ends the cycle and destroys the workspace
    handoff.put((wa.ones((1200, 1200)), wa.ones((1200, 1200)) * 0.5, wa.ones(8_000_000)))
    started.wait(10)
    time.sleep(0.005)  # exits while the main thread's loop runs

t = threading.Thread(target=owner)
t.start()
x, y, v = handoff.get(timeout=10)
op = {"matmul": lambda: x @ y, "ufunc": lambda: wa.exp(v), "kernel": lambda: v * 2.0 + 1.0,
      "fuse": lambda: wa.fuse(lambda a: a * 2.0 + 1.0)(v), "sum": lambda: v.sum()}[sys.argv[1]]
started.set()
try:
    print("ok", float(op().sum()))
except wa.WorkspaceError:  # the owner was quicker: the operand was stale before the loop began
    print("stale")
t.join(10)
"""

EXPECTED = {"matmul": 1200 * 0.5 * 1200 * 1200, "ufunc": 8_000_000 * 2.718281828459045,
            "kernel": 3.0 * 8_000_000, "fuse": 3.0 * 8_000_000, "sum": 8_000_000.0}


@pytest.mark.parametrize("op", sorted(EXPECTED))
def test_operands_outlive_their_workspace_while_a_loop_runs(op):
    done = subprocess.run([sys.executable, "-P", "-c", SCRIPT, op], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    words = done.stdout.split()
    assert words[0] in ("ok", "stale"), done.stdout
    if words[0] == "ok":
        assert float(words[1]) == pytest.approx(EXPECTED[op], rel=1e-9)
