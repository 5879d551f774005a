"""Streaming evaluation against scikit-learn computing the same metrics once on all predictions.

    python -P bench/evaluation.py                      # 10 million samples, 10 classes, batches of 4,096
    python -P bench/evaluation.py --samples 1000000 --repeats 3 --json out.json

The predictions are float32 softmax outputs of a random linear model (realistic: almost every score
distinct), made once and shared by both sides. wsarray: ``Evaluation`` + exact ``ROCMultiClass``
updated batch by batch in a workspace cycle each (``evaluate``), then accuracy, macro precision,
recall and F1, the confusion matrix, and per-class AUC and average precision read out.
scikit-learn: ``confusion_matrix``, ``accuracy_score``, ``precision_recall_fscore_support``
(macro), and per class ``roc_auc_score`` and ``average_precision_score`` on the concatenated arrays
(which must all be in memory). torchmetrics (when installed; it is not part of the [test] extra: run
this from an environment with torch and torchmetrics): MulticlassAccuracy, Precision, Recall,
F1Score (macro), ConfusionMatrix, and exact (thresholds=None) AUROC and AveragePrecision, fed the
same batches as zero-copy tensors. The sides rotate within each repeat; the table gives medians and
the median of the per-repeat ratios. Memory (untimed, separately): the metrics' state bytes after
the stream (exact and binned with 1,024 bins) against the bytes scikit-learn needs at once
(tracemalloc's peak over its calls plus the predictions it must hold), and the minor page faults
per batch in the steady state. The results agree to 1e-12 (checked each repeat).
"""

import argparse
import json
import resource
import statistics
import time
import tracemalloc

import numpy


def make_data(samples, classes, features=32, seed=0):
    rng = numpy.random.default_rng(seed)
    w = rng.standard_normal((features, classes)).astype(numpy.float32)
    y = rng.integers(0, classes, samples)
    p = numpy.empty((samples, classes), dtype=numpy.float32)
    for start in range(0, samples, 1 << 20):
        stop = min(start + (1 << 20), samples)
        x = rng.standard_normal((stop - start, features)).astype(numpy.float32)
        x[numpy.arange(stop - start), y[start:stop] % features] += 1.5  # some signal
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        e = numpy.exp(z)
        p[start:stop] = e / e.sum(axis=1, keepdims=True)
    return y, p


def wsarray_side(y, p, batch, thresholds=0):
    from wsarray.evaluation import Evaluation, ROCMultiClass, evaluate
    k = p.shape[1]
    batches = [(p[i:i + batch], y[i:i + batch]) for i in range(0, len(y), batch)]
    ev, roc = evaluate(lambda scores: scores, batches, Evaluation(k), ROCMultiClass(k, thresholds=thresholds))
    result = {"accuracy": ev.accuracy(), "precision": ev.precision(), "recall": ev.recall(), "f1": ev.f1(),
              "confusion": ev.confusion_matrix(), "auc": [roc.auc(c) for c in range(k)],
              "ap": [roc.auprc(c) for c in range(k)]}
    return result, ev, roc


def sklearn_side(y, p):
    from sklearn import metrics
    k = p.shape[1]
    pred = p.argmax(axis=1)
    labels = list(range(k))
    precision, recall, f1, _ = metrics.precision_recall_fscore_support(y, pred, labels=labels, average="macro",
                                                                       zero_division=0)
    return {"accuracy": metrics.accuracy_score(y, pred), "precision": precision, "recall": recall, "f1": f1,
            "confusion": metrics.confusion_matrix(y, pred, labels=labels),
            "auc": [metrics.roc_auc_score(y == c, p[:, c]) for c in range(k)],
            "ap": [metrics.average_precision_score(y == c, p[:, c]) for c in range(k)]}


def torchmetrics_side(y, p, batch):
    """torchmetrics' streaming equivalents, fed the same batches (zero-copy tensors): exact AUROC
    and average precision (thresholds=None keeps every prediction, as theirs must to be exact)."""
    import torch
    from torchmetrics import classification as tc
    k = p.shape[1]
    metrics = {"accuracy": tc.MulticlassAccuracy(k, average="micro"),
               "precision": tc.MulticlassPrecision(k, average="macro"),
               "recall": tc.MulticlassRecall(k, average="macro"), "f1": tc.MulticlassF1Score(k, average="macro"),
               "confusion": tc.MulticlassConfusionMatrix(k),
               "auc": tc.MulticlassAUROC(k, average=None, thresholds=None),
               "ap": tc.MulticlassAveragePrecision(k, average=None, thresholds=None)}
    for i in range(0, len(y), batch):
        scores, labels = torch.from_numpy(p[i:i + batch]), torch.from_numpy(y[i:i + batch])
        for m in metrics.values():
            m.update(scores, labels)
    out = {name: m.compute() for name, m in metrics.items()}
    return {"accuracy": float(out["accuracy"]), "precision": float(out["precision"]),
            "recall": float(out["recall"]), "f1": float(out["f1"]), "confusion": out["confusion"].numpy(),
            "auc": out["auc"].tolist(), "ap": out["ap"].tolist()}


def agree(a, b):
    assert (a["confusion"] == b["confusion"]).all()
    for key in ("accuracy", "precision", "recall", "f1"):
        assert abs(a[key] - b[key]) <= 1e-12, key
    for key in ("auc", "ap"):
        assert max(abs(u - v) for u, v in zip(a[key], b[key])) <= 1e-12, key


def memory(y, p, batch):
    tracemalloc.start()
    sklearn_side(y, p)
    _, sk_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    _, _, exact = wsarray_side(y, p, batch)
    _, _, binned = wsarray_side(y, p, batch, thresholds=1024)
    # page faults per batch in the steady state: a second pass over the first 200 batches
    from wsarray.evaluation import Evaluation, ROCMultiClass, evaluate
    k = p.shape[1]
    batches = [(p[i:i + batch], y[i:i + batch]) for i in range(0, min(len(y), 200 * batch), batch)]
    metrics = (Evaluation(k), ROCMultiClass(k, thresholds=1024))
    evaluate(lambda s: s, batches[:20], *metrics)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    evaluate(lambda s: s, batches[20:], *metrics)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / max(len(batches) - 20, 1)
    return {"sklearn_peak_bytes": sk_peak + p.nbytes + y.nbytes, "exact_state_bytes": exact.nbytes,
            "binned_state_bytes": binned.nbytes, "binned_page_faults_per_batch": faults}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--no-torchmetrics", action="store_true", help="leave torchmetrics out")
    args = parser.parse_args()
    y, p = make_data(args.samples, args.classes)
    sides = ["wsarray", "sklearn"]
    try:
        if not args.no_torchmetrics:
            import torchmetrics  # noqa: F401 -- installed for the benchmark only
            sides.append("torchmetrics")
    except ImportError:
        print("torchmetrics is not installed: its column is left out (pip install torch torchmetrics)")
    run = {"wsarray": lambda: wsarray_side(y, p, args.batch)[0], "sklearn": lambda: sklearn_side(y, p),
           "torchmetrics": lambda: torchmetrics_side(y, p, args.batch)}
    rows = {side: [] for side in sides}
    rows.update(ratio=[], ratio_torchmetrics=[])
    for r in range(args.repeats):
        order = sides[r % len(sides):] + sides[:r % len(sides)]
        times, results = {}, {}
        for side in order:
            start = time.perf_counter()
            results[side] = run[side]()
            times[side] = time.perf_counter() - start
        agree(results["wsarray"], results["sklearn"])
        for side in sides:
            rows[side].append(times[side])
        rows["ratio"].append(times["wsarray"] / times["sklearn"])
        if "torchmetrics" in sides:
            tm = results["torchmetrics"]
            assert (tm["confusion"] == results["sklearn"]["confusion"]).all()
            assert max(abs(u - v) for u, v in zip(tm["auc"], results["sklearn"]["auc"])) < 1e-3  # float32
            rows["ratio_torchmetrics"].append(times["wsarray"] / times["torchmetrics"])
        print(f"repeat {r + 1}: " + ", ".join(f"{side} {times[side]:.2f} s" for side in sides))
    mem = memory(y, p, args.batch)
    summary = {"samples": args.samples, "classes": args.classes, "batch": args.batch, "repeats": args.repeats,
               "wsarray_s": statistics.median(rows["wsarray"]), "sklearn_s": statistics.median(rows["sklearn"]),
               "ratio": statistics.median(rows["ratio"]), "ratios": rows["ratio"], **mem}
    if "torchmetrics" in sides:
        summary.update(torchmetrics_s=statistics.median(rows["torchmetrics"]),
                       ratio_torchmetrics=statistics.median(rows["ratio_torchmetrics"]))
    print(f"\n{args.samples:,} samples, {args.classes} classes, batches of {args.batch:,}; medians of {args.repeats}")
    print(f"  wsarray streaming (Evaluation + exact ROCMultiClass): {summary['wsarray_s']:.2f} s")
    print(f"  scikit-learn once on all predictions:                 {summary['sklearn_s']:.2f} s")
    if "torchmetrics" in sides:
        print(f"  torchmetrics streaming (same metrics, exact):        {summary['torchmetrics_s']:.2f} s")
    print(f"  ratio wsarray / scikit-learn: {summary['ratio']:.3f} (per repeat: "
          + ", ".join(f"{x:.3f}" for x in rows["ratio"]) + ")")
    if "torchmetrics" in sides:
        print(f"  ratio wsarray / torchmetrics: {summary['ratio_torchmetrics']:.3f} (per repeat: "
              + ", ".join(f"{x:.3f}" for x in rows["ratio_torchmetrics"]) + ")")
    print(f"  memory: scikit-learn needs {mem['sklearn_peak_bytes'] / 2**20:.0f} MiB at once; the exact state "
          f"{mem['exact_state_bytes'] / 2**20:.0f} MiB, binned (1,024 bins) "
          f"{mem['binned_state_bytes'] / 2**10:.0f} KiB; "
          f"page faults per batch (binned, steady state): {mem['binned_page_faults_per_batch']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
