"""NumPy's own test suite against wsarray: how much of what NumPy passes wsarray passes too.

    python -P bench/numpy_suite.py                          # _core lib linalg fft random polynomial ma
    python -P bench/numpy_suite.py --packages linalg,fft -j2
    python -P bench/numpy_suite.py --files test_numeric.py,lib/tests/test_io.py --json out.json

Each of NumPy's installed test files is copied into a temporary folder three times and run with
pytest, one subprocess per file and variant: as shipped (the reference: NumPy itself), and with
its imports rewritten to wsarray (``bench/numpy_suite_rewrite.py``) in two forms, keeping
``numpy.testing``'s assertions (form ``numpy``, what a user's test suite imports) or taking
``wsarray.testing``'s (form ``wsarray``). NumPy's conftest.py comes along (fixtures, hypothesis
profile: derandomized, as ``numpy.test()``). Only the tests NumPy passes count: NumPy's skips,
xfails and failures leave the denominator. A test that crashes the interpreter or runs longer
than ``--test-timeout`` seconds is recorded as a crash or a hang, and the file is run on without it
(bench/numpy_suite_run.py runs one file; bench/numpy_suite_plugin.py records the outcomes).
Failures matching ``tests/dropin/numpy_suite_deviations.txt`` (NumPy internals, documented
deviations) are reported apart from the rest. Prints per file the reference passes, wsarray's
passes among them in both forms and the failures grouped by cause (exception type and the first
line of its message, numbers normalised), then totals per package and overall; ``--json`` writes
everything, per test included.
"""

import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # `python -P` leaves bench/ off sys.path

import numpy_suite_rewrite as rewriting  # noqa: E402
from numpy_suite_run import numpy_dir, prepare, run_file, stop  # noqa: E402

PACKAGES = ("_core", "lib", "linalg", "fft", "random", "polynomial", "ma")
VARIANTS = ("reference",) + rewriting.FORMS  # reference: the file as shipped, run with NumPy
DEVIATIONS = os.path.join(os.path.dirname(HERE), "tests", "dropin", "numpy_suite_deviations.txt")
_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(\.\d+)?(e[-+]?\d+)?")


def discover(packages, only=()):
    """Test files (``pkg/tests/test_x.py``) of the given packages; ``only``: names or paths to keep."""
    found = []
    for package in packages:
        folder = os.path.join(numpy_dir(), package, "tests")
        if not os.path.isdir(folder):
            raise SystemExit(f"numpy_suite: NumPy has no tests folder {folder}")
        for name in sorted(os.listdir(folder)):
            if name.startswith("test_") and name.endswith(".py"):
                rel = f"{package}/tests/{name}"
                if not only or any(rel == o or rel.endswith("/" + o) or name == o for o in only):
                    found.append(rel)
    missing = [o for o in only if not any(r == o or r.endswith("/" + o) or r.endswith(o) for r in found)]
    if missing:
        raise SystemExit(f"numpy_suite: no such test file in {', '.join(packages)}: {', '.join(missing)}")
    return found


# ---- comparing -------------------------------------------------------------------------------

def load_deviations(path):
    """[(pattern, reason)] from the deviations file: ``PATTERN | REASON`` a line, # comments."""
    entries = []
    if not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, sep, reason = line.partition(" | ")
            if not sep or not reason.strip():
                raise SystemExit(f"numpy_suite: {path}:{number}: expected 'PATTERN | REASON', got {line!r}")
            entries.append((pattern.strip(), reason.strip()))
    return entries


def deviation_for(nodeid, deviations):
    for pattern, reason in deviations:
        if fnmatch.fnmatchcase(nodeid, pattern):
            return pattern, reason
    return None


def normalise(cause):
    return _NUMBER.sub("N", cause)[:160]


def compare(rel, runs, deviations):
    """One file's figures from its three runs (``runs[variant]`` as run_file returns it)."""
    reference = runs["reference"]["tests"]
    passed = sorted(n for n, t in reference.items() if t["outcome"] == "passed")
    result = {"file": rel, "numpy_passed": len(passed),
              "numpy_other": dict(Counter(t["outcome"] for t in reference.values() if t["outcome"] != "passed")),
              "reference_file_errors": runs["reference"]["file_errors"],
              "seconds": {v: runs[v]["seconds"] for v in runs}, "forms": {}}
    for form in rewriting.FORMS:
        run = runs[form]
        # A parameter that is a module shows in the node id: [numpy.random] became [wsarray.random].
        renamed = {n.replace("wsarray", "numpy"): t for n, t in run["tests"].items() if "wsarray" in n}
        file_cause = ("file: " + run["file_errors"][0]) if run["file_errors"] else "missing: not run"
        failures, deviated = [], []
        for nodeid in passed:
            test = run["tests"].get(nodeid) or renamed.get(nodeid)
            if test is not None and test["outcome"] == "passed":
                continue
            if test is None:
                test = {"outcome": "missing", "cause": file_cause, "where": ""}
            entry = {"nodeid": nodeid, **test}
            if test["outcome"] in ("skipped", "xfailed") and not test["cause"]:
                entry["cause"] = f"{test['outcome']} (NumPy passes it)"
            # A deviation covers a test that ran and failed, not one its file never ran.
            match = deviation_for(nodeid, deviations) if test["outcome"] != "missing" else None
            if match:
                entry["deviation"] = match[0]
                deviated.append(entry)
            else:
                failures.append(entry)
        # Crashes and hangs anywhere in the file (NumPy's skips included), unless documented.
        broken = {kind: sorted(n for n, t in run["tests"].items()
                               if t["outcome"] == kind and not deviation_for(n, deviations))
                  + [f"{rel} ({e})" for e in run["file_errors"] if e.startswith(kind)]
                  for kind in ("crash", "hang")}
        result["forms"][form] = {
            "passed": len(passed) - len(failures) - len(deviated),
            "failures": failures, "deviations": deviated,
            "crashes": len(broken["crash"]), "hangs": len(broken["hang"]),
            "crashed": broken["crash"], "hung": broken["hang"],
            "file_errors": run["file_errors"],
        }
    return result


def totals(results, key=lambda r: "all"):
    """{group: {numpy_passed, forms: {form: {passed, failures, deviations, crashes, hangs}}}}."""
    out = defaultdict(lambda: {"numpy_passed": 0, "files": 0,
                               "forms": {f: Counter() for f in rewriting.FORMS}})
    for r in results:
        group = out[key(r)]
        group["numpy_passed"] += r["numpy_passed"]
        group["files"] += 1
        for form, figures in r["forms"].items():
            c = group["forms"][form]
            c["passed"] += figures["passed"]
            c["failures"] += len(figures["failures"])
            c["deviations"] += len(figures["deviations"])
            c["crashes"] += figures["crashes"]
            c["hangs"] += figures["hangs"]
    return {k: {**v, "forms": {f: dict(c) for f, c in v["forms"].items()}} for k, v in out.items()}


def percent(part, whole):
    return f"{100.0 * part / whole:.2f}%" if whole else "-"


def cause_groups(failures):
    groups = defaultdict(list)
    for f in failures:
        groups[normalise(f["cause"]) or f["outcome"]].append(f["nodeid"])
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


# ---- reporting -------------------------------------------------------------------------------

def _figures_line(label, numpy_passed, forms):
    parts = [f"{label:<50} numpy {numpy_passed:>6}"]
    for form in rewriting.FORMS:
        c = forms[form]
        ok, dev = c.get("passed", 0), c.get("deviations", 0)
        parts.append(f"| {form}.testing {ok:>6} {percent(ok, numpy_passed):>8}"
                     f" (+dev {percent(ok + dev, numpy_passed):>8})")
        if c.get("crashes") or c.get("hangs"):
            parts.append(f"crashes {c.get('crashes', 0)} hangs {c.get('hangs', 0)}")
    return " ".join(parts)


def print_file(r, causes_shown, out=sys.stdout):
    forms = {f: {"passed": v["passed"], "deviations": len(v["deviations"]), "crashes": v["crashes"],
                 "hangs": v["hangs"]} for f, v in r["forms"].items()}
    print(_figures_line(r["file"], r["numpy_passed"], forms), file=out)
    for form, figures in r["forms"].items():
        groups = cause_groups(figures["failures"])
        for cause, nodeids in groups[:causes_shown]:
            print(f"    [{form}] {len(nodeids):>5}  {cause}", file=out)
        if len(groups) > causes_shown:
            rest = sum(len(n) for _, n in groups[causes_shown:])
            print(f"    [{form}] {rest:>5}  ... {len(groups) - causes_shown} more causes", file=out)
        if figures["deviations"]:
            print(f"    [{form}] {len(figures['deviations']):>5}  documented deviations", file=out)


def print_summary(results, deviations, causes_shown, out=sys.stdout):
    print("\n== totals (numpy: tests NumPy passes; form: wsarray's passes among them; "
          "+dev: counting documented deviations as expected)", file=out)
    by_package = totals(results, key=lambda r: r["file"].split("/")[0])
    for package in sorted(by_package):
        t = by_package[package]
        print(_figures_line(f"{package} ({t['files']} files)", t["numpy_passed"], t["forms"]), file=out)
    overall = totals(results)["all"] if results else None
    if overall:
        print(_figures_line(f"TOTAL ({overall['files']} files)", overall["numpy_passed"], overall["forms"]),
              file=out)
    for form in rewriting.FORMS:
        failures = [f for r in results for f in r["forms"][form]["failures"]]
        print(f"\n== top failure causes, {form}.testing form ({len(failures)} failures)", file=out)
        for cause, nodeids in cause_groups(failures)[:causes_shown]:
            print(f"{len(nodeids):>6}  {cause}\n        e.g. {nodeids[0]}", file=out)
    for form in rewriting.FORMS:
        for kind in ("crashed", "hung"):
            nodes = [n for r in results for n in r["forms"][form][kind]]
            if nodes:
                print(f"\n== {kind}, {form}.testing form ({len(nodes)})", file=out)
                for n in nodes:
                    print(f"    {n}", file=out)
    used = {d["deviation"] for r in results for f in r["forms"].values() for d in f["deviations"]}
    ran = [r["file"] for r in results]
    unused = [p for p, _ in deviations
              if p not in used and any(fnmatch.fnmatchcase(f, p.split("::")[0]) for f in ran)]
    if unused and results:
        print(f"\n== deviation entries of these files matching no failure ({len(unused)}): stale?", file=out)
        for p in unused:
            print(f"    {p}", file=out)


# ---- main ------------------------------------------------------------------------------------

def _reference_key(rel, options):
    import numpy

    with open(os.path.join(numpy_dir(), rel), "rb") as f:
        digest = hashlib.sha1(f.read()).hexdigest()[:16]
    return f"{numpy.__version__}:{options.label}:{rel}:{digest}"


def run(files, options, deviations, progress=None):
    """Run every file in every variant (``options.jobs`` at a time); returns the results per file."""
    cache = {}
    if options.reference_cache and os.path.exists(options.reference_cache):
        with open(options.reference_cache, encoding="utf-8") as f:
            cache = json.load(f)
    tmp = tempfile.mkdtemp(prefix="numpy_suite_")
    try:
        roots = {v: os.path.join(tmp, v) for v in VARIANTS}
        for variant, root in roots.items():
            prepare(root, variant, files)
        runs = defaultdict(dict)
        tasks = []
        for rel in sorted(files, key=lambda r: -os.path.getsize(os.path.join(numpy_dir(), r))):
            for variant in VARIANTS:
                cached = cache.get(_reference_key(rel, options)) if variant == "reference" else None
                if cached is not None:
                    runs[rel][variant] = cached
                else:
                    tasks.append((rel, variant))
        results = []
        stop.clear()
        with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
            futures = {pool.submit(run_file, roots[v], rel, options): (rel, v) for rel, v in tasks}
            try:
                for future in concurrent.futures.as_completed(futures):
                    rel, variant = futures[future]
                    runs[rel][variant] = future.result()
                    if variant == "reference":
                        cache[_reference_key(rel, options)] = runs[rel][variant]
                    if len(runs[rel]) == len(VARIANTS):
                        results.append(compare(rel, runs[rel], deviations))
                        if progress:
                            progress(results[-1])
            except BaseException:
                # An error or Ctrl-C: the running files kill their pytest and give up, the
                # queued ones never start; the pool's exit then waits only for that.
                stop.set()
                for future in futures:
                    future.cancel()
                raise
    finally:
        if options.keep:
            print(f"numpy_suite: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        if options.reference_cache:
            with open(options.reference_cache, "w", encoding="utf-8") as f:
                json.dump(cache, f)
    return sorted(results, key=lambda r: r["file"])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--packages", default=",".join(PACKAGES),
                   help=f"comma-separated NumPy packages (default: {','.join(PACKAGES)})")
    p.add_argument("--files", default="", help="comma-separated test files (test_x.py or pkg/tests/test_x.py)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="files run at once (at most 2)")
    p.add_argument("--label", choices=("fast", "full"), default="fast",
                   help="fast: without tests marked slow, as numpy.test() (default); full: all")
    p.add_argument("--json", help="write every figure and failure to this file")
    p.add_argument("--deviations", default=DEVIATIONS, help="deviations file (default: %(default)s)")
    p.add_argument("--test-timeout", type=float, default=300.0,
                   help="seconds one test may run before it counts as a hang (default 300)")
    p.add_argument("--file-timeout", type=float, default=3600.0, help="seconds per file and variant")
    p.add_argument("--max-restarts", type=int, default=20, help="runs of a file after crashes/hangs")
    p.add_argument("--available-memory", default="4GB",
                   help="NPY_AVAILABLE_MEM for NumPy's memory-hungry tests (default 4GB)")
    p.add_argument("--causes", type=int, default=6, help="causes shown per file (default 6)")
    p.add_argument("--reference-cache", help="JSON file caching NumPy's own outcomes between runs")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (rewritten files, logs)")
    options = p.parse_args(argv)
    if not 1 <= options.jobs <= 2:
        p.error("-j must be 1 or 2 (the machine has 2 cores)")
    return options


def _terminate(signum, frame):
    """SIGTERM ends the run as Ctrl-C does: the running pytest processes are killed first."""
    raise SystemExit(128 + signum)


def main(argv=None):
    options = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    packages = [p for p in options.packages.split(",") if p]
    unknown = [p for p in packages if p not in PACKAGES]
    if unknown:
        raise SystemExit(f"numpy_suite: unknown package(s) {', '.join(unknown)}; choose from {', '.join(PACKAGES)}")
    files = discover(packages, [f for f in options.files.split(",") if f])
    deviations = load_deviations(options.deviations)
    print(f"numpy_suite: {len(files)} files, 3 runs each, -j{options.jobs}", file=sys.stderr)
    results = run(files, options, deviations,
                  progress=lambda r: (print_file(r, options.causes), sys.stdout.flush()))
    print_summary(results, deviations, max(options.causes, 15))
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump({"results": results, "totals_by_package": totals(results, lambda r: r["file"].split("/")[0]),
                       "totals": totals(results).get("all"), "label": options.label}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
