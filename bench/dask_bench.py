"""dask+NumPy vs dask+wsarray (every task in its thread's workspace) on Dask's threaded scheduler
(2 threads) and on a distributed LocalCluster (2 worker processes, 1 thread each, loopback).

    python -P bench/dask_bench.py             # 7 runs per case
    python -P bench/dask_bench.py --runs 3    # quicker

Input: a (16384, 512) float64 array in 4 chunks of 16 MiB, drawn by ``da.random.default_rng(0)``
with the matching array backend and persisted before timing (on the cluster the chunks are made
on the workers). Workloads: ``chain`` (an elementwise chain and a column reduction), ``gram``
(``x.T @ x``), ``rechunk`` (to column chunks by tasks, then a column std), ``kept`` (``x * 2 + 1``
persisted: one op whose 64 MiB output is kept, so each wsarray task pays its detach copy). NumPy
runs use a plain ThreadPool / a cluster without the plugin; wsarray runs ``WorkspacePool`` /
``WorkspacePlugin``. Runs are interleaved (run 1 of every case, then run 2, ...) and reported as
medians. Peak RSS: the high-water mark of the benchmark process (threaded) or the largest worker
(cluster), reset before each case (/proc/self/clear_refs). Spills: workspace spills during the
measured runs (wsarray) and chunks distributed put on disk.
"""
import argparse
import json
import statistics
import time
from multiprocessing.pool import ThreadPool

import dask
import dask.array as da
import distributed

import wsarray.dask as wsdask

SHAPE, CHUNKS = (16384, 512), (4096, 512)


def reset_peak_rss():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def disk_spills(dask_worker):
    return len(dask_worker.data.slow) if hasattr(dask_worker.data, "slow") else 0


WORKLOADS = {
    "chain": lambda x: ((da.sin(x) * 2 + x ** 2) / (1 + abs(x))).sum(axis=0),
    "gram": lambda x: x.T @ x,
    "rechunk": lambda x: x.rechunk((16384, 64), method="tasks").std(axis=0),
    "kept": lambda x: x * 2 + 1,
}


def make_input(backend):
    with dask.config.set({"array.backend": backend}):
        return da.random.default_rng(0).random(SHAPE, chunks=CHUNKS)


class Threaded:
    def __init__(self, engine):
        self.engine = engine
        self.pool = wsdask.WorkspacePool(2) if engine == "wsarray" else ThreadPool(2)
        with dask.config.set(pool=self.pool, scheduler="threads"):
            self.x = make_input("wsarray" if engine == "wsarray" else "numpy").persist()

    def run(self, name):
        with dask.config.set(pool=self.pool, scheduler="threads"):
            y = WORKLOADS[name](self.x)
            reset_peak_rss()
            spills = self.spills()
            start = time.perf_counter()
            if name == "kept":
                y = y.persist()
            else:
                y.compute()
            wall = time.perf_counter() - start
            del y
        return wall, peak_rss_mb(), self.spills() - spills, 0

    def spills(self):
        if self.engine != "wsarray":
            return 0
        return sum(r["stats"]["spills"] for r in self.pool.stats())

    def close(self):
        if self.engine == "wsarray":
            self.pool.shutdown()
        else:
            self.pool.close()
            self.pool.join()


class Cluster:
    def __init__(self, engine):
        self.engine = engine
        self.cluster = distributed.LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
            dashboard_address=None, memory_limit="4GB", silence_logs=40)
        self.client = distributed.Client(self.cluster, set_as_default=False)
        if engine == "wsarray":
            self.client.register_plugin(wsdask.WorkspacePlugin())
        self.x = self.client.persist(make_input("wsarray" if engine == "wsarray" else "numpy"))
        self.wait(self.x)

    def run(self, name):
        y = WORKLOADS[name](self.x)
        self.client.run(reset_peak_rss)
        spills = self.spills()
        disk = sum(self.client.run(disk_spills).values())
        start = time.perf_counter()
        if name == "kept":
            y = self.client.persist(y)
            self.wait(y)
        else:
            self.client.compute(y).result()
        wall = time.perf_counter() - start
        rss = max(self.client.run(peak_rss_mb).values())
        del y
        return wall, rss, self.spills() - spills, sum(self.client.run(disk_spills).values()) - disk

    def wait(self, collection):  # on the workers: nothing comes back to this process
        with self.client.as_current():
            distributed.wait(distributed.futures_of(collection))

    def spills(self):
        if self.engine != "wsarray":
            return 0
        stats = wsdask.worker_stats(self.client)
        return sum(r["stats"]["spills"] for reports in stats.values() for r in reports)

    def close(self):
        self.client.close()
        self.cluster.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", help="write the medians to this file")
    args = parser.parse_args()
    results = {}
    for scheduler, kind in (("threaded", Threaded), ("cluster", Cluster)):
        engines = {engine: kind(engine) for engine in ("numpy", "wsarray")}
        try:
            for engine in engines.values():  # warm-up: workspaces learn, BLAS starts
                for name in WORKLOADS:
                    engine.run(name)
            samples = {}
            for _ in range(args.runs):
                for name in WORKLOADS:
                    for label, engine in engines.items():
                        samples.setdefault((name, label), []).append(engine.run(name))
        finally:
            for engine in engines.values():
                engine.close()
        for (name, label), runs in samples.items():
            results[f"{scheduler}/{name}/{label}"] = {
                "wall_s": statistics.median(r[0] for r in runs),
                "peak_rss_mb": statistics.median(r[1] for r in runs),
                "workspace_spills": sum(r[2] for r in runs),
                "disk_spills": sum(r[3] for r in runs)}
    print(f"{'case':<28}{'numpy s':>9}{'wsarray s':>11}{'ratio':>7}{'RSS np MB':>11}"
          f"{'RSS ws MB':>11}{'ws spills':>10}")
    for scheduler in ("threaded", "cluster"):
        for name in WORKLOADS:
            n, w = results[f"{scheduler}/{name}/numpy"], results[f"{scheduler}/{name}/wsarray"]
            print(f"{scheduler + '/' + name:<28}{n['wall_s']:>9.3f}{w['wall_s']:>11.3f}"
                  f"{n['wall_s'] / w['wall_s']:>7.2f}{n['peak_rss_mb']:>11.0f}"
                  f"{w['peak_rss_mb']:>11.0f}{w['workspace_spills']:>10}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
