"""The demo behind ``python -m wsarray``: realistic loops, plain NumPy beside wsarray workspaces.

Each (loop, engine) pair runs in a fresh child process so that peak RSS and page faults belong to
that loop alone. The same function body runs with ``xp = numpy`` and with ``xp = wsarray``; the
wsarray run wraps each iteration in ``with xp.workspace("LOOP"):``.
"""

import contextlib
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy


def heat_setup(xp, n=1024):
    u = xp.zeros((n, n))
    u[n // 4: n // 2, n // 4: n // 2] = 100.0
    return {"u": u, "nxt": xp.zeros((n, n))}


def heat_step(xp, s):
    """One explicit step of the 2-D heat equation; the result goes into a buffer kept outside."""
    u = s["u"]
    c = u[1:-1, 1:-1]
    s["nxt"][1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * c)
    s["u"], s["nxt"] = s["nxt"], s["u"]


def heat_check(s):
    return float(s["u"].sum())


def mlp_setup(xp, batch=512, d_in=256, d_hidden=256, d_out=10):
    rng = numpy.random.default_rng(0)
    return {
        "x": xp.asarray(rng.standard_normal((batch, d_in))),
        "y": xp.asarray(numpy.eye(d_out)[rng.integers(0, d_out, batch)]),
        "w1": xp.asarray(rng.standard_normal((d_in, d_hidden)) * 0.05),
        "w2": xp.asarray(rng.standard_normal((d_hidden, d_out)) * 0.05),
    }


def mlp_step(xp, s):
    """Forward and backward pass of a 2-layer MLP, SGD update written in place."""
    x, y, w1, w2 = s["x"], s["y"], s["w1"], s["w2"]
    h = xp.maximum(x @ w1, 0.0)
    logits = h @ w2
    p = xp.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    g_logits = (p - y) / x.shape[0]
    g_w2 = h.T @ g_logits
    g_h = (g_logits @ w2.T) * (h > 0)
    g_w1 = x.T @ g_h
    w1 -= 0.1 * g_w1
    w2 -= 0.1 * g_w2


def mlp_check(s):
    return float(abs(s["w1"]).sum() + abs(s["w2"]).sum())


LOOPS = {
    "heat 1024x1024": (heat_setup, heat_step, heat_check, 150),
    "MLP 512x256": (mlp_setup, mlp_step, mlp_check, 150),
}


def run_child(loop, engine):
    """Run one loop in this process; print a JSON line of measurements."""
    setup, step, check, iters = LOOPS[loop]
    if engine == "wsarray":
        import wsarray as xp

        ws = xp.workspace("LOOP")

        def scope():
            return ws
    else:
        xp = numpy

        def scope():
            return contextlib.nullcontext()

    state = setup(xp)
    times, faults = [], []
    for _ in range(iters):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        with scope():
            step(xp, state)
        times.append(time.perf_counter() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    warm = iters // 3  # learning and first-touch happen in the first iterations
    out = {
        "loop": loop,
        "engine": engine,
        "ms": statistics.median(times[warm:]) * 1e3,
        "faults_first": faults[0],
        "faults": statistics.mean(faults[warm:]),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "check": check(state),
    }
    if engine == "wsarray":
        out["stats"] = ws.stats()
    print(json.dumps(out))


def main():
    print("wsarray demo: the same loop body with plain NumPy and inside a wsarray workspace")
    print("(each row runs in a fresh process; times are medians after warm-up)\n")
    header = f"{'loop':<16}{'engine':<9}{'ms/iter':>9}{'vs numpy':>10}{'peak RSS MB':>13}" \
             f"{'faults/iter':>13}{'faults 1st iter':>17}"
    print(header)
    print("-" * len(header))
    for loop in LOOPS:
        rows = []
        for engine in ("numpy", "wsarray"):
            proc = subprocess.run([sys.executable, "-P", "-m", "wsarray._demo", loop, engine],
                                  capture_output=True, text=True, check=True)
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        base = rows[0]["ms"]
        for r in rows:
            print(f"{r['loop']:<16}{r['engine']:<9}{r['ms']:>9.2f}{r['ms'] / base:>9.2f}x"
                  f"{r['rss_mb']:>13.1f}{r['faults']:>13.1f}{r['faults_first']:>17}")
        if rows[0]["check"] != rows[1]["check"]:
            raise SystemExit(f"results differ for {loop}: {rows[0]['check']} vs {rows[1]['check']}")
        s = rows[1]["stats"]
        print(f"{'':<16}workspace: capacity {s['capacity'] / 2**20:.1f} MiB, peak/cycle "
              f"{s['peak_cycle_bytes'] / 2**20:.1f} MiB, {s['cycles']} cycles, {s['allocations']} "
              f"allocations, {s['reused_bytes'] / max(s['allocated_bytes'], 1):.0%} of bytes reused, "
              f"spilled {s['spilled_bytes'] / 2**20:.1f} MiB (learning)")
        print(f"{'':<16}results identical to NumPy: {rows[0]['check']!r}\n")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        run_child(sys.argv[1], sys.argv[2])
    else:
        main()
