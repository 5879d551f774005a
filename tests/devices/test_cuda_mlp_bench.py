"""bench/cuda_mlp.py runs its code path on the fake device (tiny sizes) and skips cleanly without a GPU."""
import json
import pathlib
import subprocess
import sys

import wsarray.cuda as wcuda

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "cuda_mlp.py"


def run(*args):
    return subprocess.run([sys.executable, "-P", str(BENCH), *args], capture_output=True, text=True, timeout=120)


def test_the_mlp_benchmark_runs_on_the_fake_device():
    out = run("--device", "fake:0", "--batch", "16", "--features", "8", "--hidden", "32", "--classes", "2",
              "--steps", "4", "--warmup", "2", "--rounds", "2", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    pool, ws = summary["pool"], summary["workspace"]
    assert summary["device"] == "fake:0"
    assert pool["final_loss"] == ws["final_loss"]  # the same training, allocated differently
    assert pool["allocator_calls_per_iter"] > 0 and ws["allocator_calls_per_iter"] == 0  # learned chunk: none
    assert ws["foreign_stream_spills"] == 0 and ws["workspace_capacity"] > 0


def test_without_a_gpu_it_says_why_and_exits_0():
    out = run("--steps", "1")
    assert out.returncode == 0, out.stderr
    if not wcuda.status()["usable"]:
        assert out.stdout.startswith("skipped: no GPU (") and wcuda.status()["reason"] in out.stdout
