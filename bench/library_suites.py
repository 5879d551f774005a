"""Libraries built on NumPy, their test suites run with ``import numpy`` swapped for wsarray.

    python -P bench/library_suites.py                      # every library below, installing them
    python -P bench/library_suites.py --libraries pint,autograd --json out.json
    python -P bench/library_suites.py --no-install         # the libraries' requirements are present

For each library (pinned below) the source distribution is downloaded from PyPI (cached in
``--cache``), unpacked twice, and in one copy every import of NumPy, in the library and in its
tests, becomes the same import of wsarray (``swap_imports``: what a user does when swapping
``import numpy as np`` for ``import wsarray as np``, private paths included). Both copies' suites
run with pytest under the library's own configuration (its ``addopts`` left out: coverage and
xdist plug-ins are not the point), each test recorded by bench/numpy_suite_plugin.py; a test
that crashes the interpreter or hangs is recorded as such and the suite runs on without it
(bench/numpy_suite_run.py). Only what passes unswapped counts: the table gives, per library,
the tests NumPy passes, how many of them pass on wsarray, the crashes and hangs, and the
failures grouped by cause. ``--install`` (the default) first installs each library from PyPI so
that its requirements are present (NumPy, SciPy and pandas held at the installed versions); the unpacked
copy shadows the installed one on PYTHONPATH.
"""

import argparse
import ast
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # `python -P` leaves bench/ off sys.path

from numpy_suite_run import run_file  # noqa: E402


@dataclass(frozen=True)
class Library:
    name: str  # on PyPI
    version: str
    kind: str
    tests: tuple  # test paths inside the unpacked source
    source: str = "."  # the folder that holds the importable package (src layouts: "src")
    extra: tuple = field(default=())  # requirements of the test suite beyond the library's own
    pytest_args: tuple = field(default=())
    env: tuple = field(default=())  # (name, value) pairs the suite needs
    packages: tuple = field(default=())  # test folders the sdist ships without their __init__.py


LIBRARIES = [
    Library("autograd", "1.9.1", "automatic differentiation", ("tests",)),
    Library("pint", "0.25.3", "physical units", ("pint/testsuite",),
            pytest_args=("--ignore=pint/testsuite/benchmarks",)),
    Library("numdifftools", "0.11.2", "numerical differentiation", ("src/numdifftools/tests",), source="src"),
    Library("unyt", "3.2.0", "physical units (an ndarray subclass)", ("unyt/tests",)),
    Library("quantities", "0.16.4", "physical units (an ndarray subclass)", ("quantities/tests",)),
    Library("uncertainties", "3.2.3", "statistics: error propagation", ("tests",)),
    Library("properscoring", "0.1", "statistics: scoring rules", ("properscoring/tests",)),
    Library("emcee", "3.1.6", "statistics: MCMC sampling", ("src/emcee/tests",), source="src"),
    Library("patsy", "1.0.3", "statistics: design matrices", ("patsy",)),
    Library("scikit-dsp-comm", "2.1.2", "signal processing", ("tests",), source="src", packages=("tests",)),
    Library("EMD-signal", "1.10.0", "signal processing: mode decomposition", ("PyEMD/tests",)),
    Library("numpy-financial", "1.0.0", "finance", ("numpy_financial/tests",)),
    Library("einops", "0.8.2", "einsum/tensor notation", ("einops/tests",), env=(("EINOPS_TEST_BACKENDS", "numpy"),)),
    Library("opt_einsum", "3.4.0", "einsum contraction paths", ("opt_einsum/tests",),
            pytest_args=("-p", "no:benchmark")),  # its tests name a parameter `benchmark`
    Library("numpy_groupies", "0.16.0", "grouping/aggregation", ("numpy_groupies/tests",)),
    Library("filterpy", "2.0.0", "Kalman filters", ("filterpy",)),
    Library("transforms3d", "0.4.2", "3-D rotations and affines", ("transforms3d",)),
    Library("scikit-fuzzy", "0.5.0", "fuzzy logic", ("skfuzzy",)),
    Library("lmfit", "1.3.4", "curve fitting", ("tests",)),
    Library("tensorly", "0.10.0", "tensor decompositions", ("tensorly",)),
    Library("networkx", "3.6.1", "graphs (its whole suite)", ("networkx",)),
    Library("array-api-compat", "1.16.0", "array API standard wrappers", ("tests",), source="src"),
    Library("colour-science", "0.4.7", "colour science", ("colour",),
            pytest_args=("--ignore=colour/plotting", "--ignore=colour/examples", "--ignore=colour/htmlcov")),
    # xarray's filterwarnings make every warning from xarray.* an error, the unregistered `asyncio`
    # mark (no pytest-asyncio) included.
    Library("xarray", "2026.9.0", "labelled arrays (17 of its test files)",
            tuple(f"xarray/tests/test_{name}.py" for name in (
                "variable", "dataarray", "dataset", "computation", "duck_array_ops", "groupby", "indexing",
                "missing", "rolling", "weighted", "nputils", "namedarray", "formatting", "interp", "array_api",
                "concat", "merge")),
            extra=("pytz",), pytest_args=("-W", "ignore::pytest.PytestUnknownMarkWarning")),
    Library("control", "0.10.2", "control systems", ("control/tests",)),
    Library("nibabel", "5.4.2", "neuroimaging file formats", ("nibabel",), extra=("pydicom",)),
    Library("pvlib", "0.16.1", "solar energy modelling", ("tests",),
            extra=("pytest-mock", "requests-mock", "pytest-remotedata")),
    Library("scikit-rf", "2.2.0", "RF/microwave networks", ("skrf",), extra=("matplotlib", "openpyxl", "networkx")),
    Library("tifffile", "2026.3.3", "TIFF image files", ("tests",),
            env=(("SKIP_LARGE", "1"),)),  # its large tests write files of several GB
    Library("meshio", "5.3.5", "mesh file formats", ("tests",), source="src"),
    Library("skyfield", "1.55", "astronomy: positions and ephemerides", ("skyfield/tests",)),
    Library("ase", "3.29.0", "atomistic simulation (16 of its test folders)",
            tuple(f"ase/test/{name}" for name in (
                "atoms", "cell", "geometry", "neighbor", "constraints", "build_", "spacegroup", "md", "optimize",
                "fio", "neb", "filter", "bravais", "emt", "precon", "standardization"))),
    # 13 of its test files: the rest take ~25 min a variant on two cores.
    Library("dynesty", "3.1.0", "statistics: nested sampling (13 of its test files)",
            tuple(f"tests/test_{name}.py" for name in (
                "ellipsoid", "misc", "bound_interface", "plateau", "sampler_interface", "periodic", "ncdim",
                "reflect", "blob", "proposal_stats", "saver", "printing", "insertion_indices")),
            source="py", pytest_args=("-m", "not slow")),
    Library("scikit-spatial", "10.0.0", "3-D geometry (Point/Vector: ndarray subclasses)", ("tests/unit",),
            source="src"),
    Library("findiff", "0.16.0", "finite differences", ("tests",)),
    Library("ahrs", "0.4.0", "attitude estimation (Quaternion/DCM: ndarray subclasses)", ("tests",)),
    Library("pingouin", "0.7.0", "statistics on pandas DataFrames", ("tests",), source="src", extra=("mpmath",)),
    # lifelines 0.30.3 (survival analysis) was measured once by hand with pandas 2.3.3, which it
    # requires (pandas < 3): installing it here would take pandas 3 away from the others (held below).
    Library("spatialmath-python", "1.1.18", "3-D poses and rotations (SE3/SO3)", ("tests",),
            env=(("MPLBACKEND", "Agg"),)),
    Library("imageio", "2.38.1", "image file I/O (its offline tests)", ("tests",),
            pytest_args=("-m", "not needs_internet", "--ignore=tests/test_ffmpeg.py",
                         "--ignore=tests/test_ffmpeg_info.py", "--ignore=tests/test_pyav.py",
                         "--ignore=tests/test_freeimage.py")),
    Library("pydicom", "3.0.2", "DICOM medical images", ("tests",), source="src"),
    # Its sdist ships tests/ without tests/generic.py and models/: the 11 test files that run.
    Library("trimesh", "5.2.0", "3-D meshes (11 of its test files)",
            tuple(f"tests/test_{n}.py" for n in ("entity", "except", "exchange", "import", "intersect", "iteration",
                                                 "minimal", "path_sample", "pbr", "sweep", "xyz_colors")),
            extra=("shapely", "mapbox_earcut", "rtree", "pyinstrument")),
    Library("colorspacious", "1.1.2", "colour spaces (tests inline in its modules)", ("colorspacious",),
            extra=("nose",), pytest_args=("-o", "python_files=*.py")),
    Library("pymap3d", "3.2.0", "geodesy coordinate conversions", ("src/pymap3d/tests",), source="src",
            extra=("astropy", "pyproj")),
    Library("formulaic", "1.2.2", "statistics: formulas to design matrices", ("tests",), extra=("pyarrow", "polars")),
    Library("deap", "1.4.4", "evolutionary optimisation", ("tests",)),
    # Its optimizer-library test file alone takes about 20 minutes a variant.
    Library("nevergrad", "1.0.12", "black-box optimisation (its core suite)",
            ("nevergrad/parametrization", "nevergrad/common", "nevergrad/ops", "nevergrad/optimization",
             "nevergrad/functions/test_corefuncs.py", "nevergrad/functions/test_functionlib.py",
             "nevergrad/functions/test_base.py", "nevergrad/functions/test_utils.py"),
            pytest_args=("--ignore=nevergrad/optimization/test_optimizerlib.py",)),
    Library("seaborn", "0.13.2", "statistical plotting", ("tests",), env=(("MPLBACKEND", "Agg"),)),
    Library("optuna", "5.0.0", "hyper-parameter search (its sampler, pruner, importance, terminator tests)",
            ("tests/samplers_tests", "tests/pruners_tests", "tests/hypervolume_tests", "tests/importance_tests",
             "tests/search_space_tests", "tests/terminator_tests", "tests/test_distributions.py",
             "tests/test_transform.py", "tests/test_multi_objective.py"),
            extra=("cmaes",)),
    Library("arviz", "0.23.4", "statistics: Bayesian diagnostics (its base tests but plots)",
            tuple(f"arviz/tests/base_tests/test_{name}.py" for name in (
                "data", "diagnostics", "stats", "stats_utils", "stats_ecdf_utils", "utils", "helpers", "labels",
                "rcparams", "plot_utils")),
            env=(("MPLBACKEND", "Agg"),)),
    Library("pyswarms", "1.3.0", "particle swarm optimisation", ("tests",), env=(("MPLBACKEND", "Agg"),)),
    Library("corner", "2.3.0", "plots of MCMC samples (image comparisons)", ("tests",), source="src",
            extra=("scipy",), env=(("MPLBACKEND", "Agg"),)),
    # Its main test file, test_mapclassify.py, downloads a libpysal data set as it is collected: offline
    # it fails to collect in both variants, and the other five files are what runs.
    Library("mapclassify", "2.10.0", "choropleth map classification", ("mapclassify/tests",),
            extra=("geopandas", "libpysal", "matplotlib", "shapely"), env=(("MPLBACKEND", "Agg"),)),
    Library("zarr", "2.18.7", "chunked array storage", ("zarr/tests",)),
    Library("pyrr", "0.10.3", "3-D maths: vectors, matrices, quaternions", ("tests",)),
    Library("vector", "1.9.0", "physics vectors (structured-dtype ndarray subclasses)", ("tests",), source="src",
            pytest_args=("--ignore=tests/cuda", "--ignore=tests/test_notebooks.py")),
    Library("stonesoup", "1.9.1", "target tracking (StateVector: ndarray subclass; 18 of its folders)",
            tuple(f"stonesoup/{name}" for name in (
                "types", "models", "updater", "predictor", "functions", "hypothesiser", "dataassociator",
                "initiator", "deleter", "gater", "measures", "smoother", "tracker", "resampler", "regulariser",
                "proposal", "mixturereducer", "tests")),
            env=(("MPLBACKEND", "Agg"),)),
    Library("gstools", "1.7.0", "geostatistics: random fields, variograms, kriging", ("tests",), source="src"),
    # lambdify's generated code imports NumPy by name (a string that is not an import): its calls
    # run on NumPy with the tests' wsarray arrays as arguments.
    Library("sympy", "1.14.0", "symbolic maths: its NumPy interop (3 of its test files)",
            ("sympy/utilities/tests/test_lambdify.py", "sympy/printing/tests/test_numpy.py",
             "sympy/external/tests/test_numpy.py")),
]
VARIANTS = ("numpy", "wsarray")


def swap_imports(source):
    """``source`` with every import of NumPy made an import of wsarray at the same path; line
    numbers kept. ``import numpy.linalg`` (which binds ``numpy``) binds ``numpy`` to wsarray; the
    module named by a string literal in ``pytest.importorskip``/``importlib.import_module`` too, and
    the target of ``mock.patch("numpy....")``."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []  # (line, start col, end col, text), all on one line
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(_is_numpy(a.name) for a in node.names):
            parts = []
            for alias in node.names:
                if not _is_numpy(alias.name):
                    parts.append(alias.name + (f" as {alias.asname}" if alias.asname else ""))
                elif alias.asname:
                    parts.append(f"wsarray{alias.name[5:]} as {alias.asname}")
                elif alias.name == "numpy":
                    parts.append("wsarray as numpy")
                else:
                    parts += [f"wsarray{alias.name[5:]}", "wsarray as numpy"]
            if node.lineno != node.end_lineno:  # `import numpy, \` continued: rare, left as it is
                continue
            edits.append((node.lineno, node.col_offset, node.end_col_offset, "import " + ", ".join(parts)))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _is_numpy(node.module):
            line = lines[node.lineno - 1].encode()
            start = line.index(b"numpy", node.col_offset)
            edits.append((node.lineno, start, start + len("numpy"), "wsarray"))
        elif (isinstance(node, ast.Call) and _called_name(node.func) in _IMPORTING_CALLS and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and _is_numpy(node.args[0].value) and node.args[0].lineno == node.args[0].end_lineno):
            # pytest.importorskip("numpy"), importlib.import_module("numpy.linalg"): imports too.
            arg = node.args[0]
            line = lines[arg.lineno - 1].encode()
            start = line.index(b"numpy", arg.col_offset)
            edits.append((arg.lineno, start, start + len("numpy"), "wsarray"))
    for lineno, start, end, text in sorted(edits, reverse=True):
        line = lines[lineno - 1].encode()
        lines[lineno - 1] = (line[:start] + text.encode() + line[end:]).decode()
    return "".join(lines)


# mock.patch("numpy.memmap", ...) names a NumPy attribute by its import path, as these name modules.
_IMPORTING_CALLS = ("importorskip", "import_module", "__import__", "patch")


def _called_name(func):
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _is_numpy(module):
    return module == "numpy" or module.startswith("numpy.")


def download(library, cache):
    """The library's source distribution, downloaded once into ``cache``."""
    folder = os.path.join(cache, "sdist")
    wanted = _normalized(f"{library.name}-{library.version}.tar.gz")
    for attempt in range(2):
        found = [os.path.join(folder, f) for f in (os.listdir(folder) if os.path.isdir(folder) else [])
                 if _normalized(f) == wanted]
        if found or attempt:
            break
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                        "-d", folder, f"{library.name}=={library.version}"], check=True)
    if not found:
        raise RuntimeError(f"no source distribution of {library.name} {library.version} in {folder}")
    return found[0]


def _normalized(filename):
    return filename.lower().replace("_", "-")


def unpack(archive, destination):
    with tarfile.open(archive) as tar:
        tar.extractall(destination, filter="data")
    (top,) = os.listdir(destination)
    return os.path.join(destination, top)


def pytest_config(root):
    """The library's own pytest configuration file, or a new empty one."""
    for name, marker in (("pytest.ini", ""), ("pyproject.toml", "[tool.pytest.ini_options]"),
                         ("tox.ini", "[pytest]"), ("setup.cfg", "[tool:pytest]")):
        path = os.path.join(root, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                if marker in f.read():
                    return path
    path = os.path.join(root, "pytest.ini")
    with open(path, "w", encoding="utf-8") as f:
        f.write("[pytest]\n")
    return path


def prepare(library, variant, cache, work):
    """An unpacked copy of the library for ``variant``: its root and the folder to import from."""
    destination = os.path.join(work, library.name, variant)
    shutil.rmtree(destination, ignore_errors=True)
    root = unpack(download(library, cache), destination)
    for folder in library.packages:
        open(os.path.join(root, folder, "__init__.py"), "a").close()
    if variant == "wsarray":
        for path in glob.glob(os.path.join(root, "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8") as f:
                source = f.read()
            try:
                swapped = swap_imports(source)
            except SyntaxError:  # a file Python cannot parse (a template, Python 2): as shipped
                continue
            if swapped != source:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(swapped)
    return root


def run_library(library, options):
    results = {}
    for variant in VARIANTS:
        root = prepare(library, variant, options.cache, options.work)
        config = pytest_config(root)
        # Options go in with the paths: the library's addopts left out, its own arguments added.
        arguments = ["-o", "addopts=", "-o", "required_plugins=", "--continue-on-collection-errors",
                     *library.pytest_args, *library.tests]
        saved = {name: os.environ.get(name) for name, _ in library.env}
        os.environ.update(dict(library.env))
        try:
            results[variant] = run_file(root, arguments, options, config=config,
                                        path=[os.path.join(root, library.source)])
            # Test ids parametrized with a path inside the copy (a data file) name the same test.
            results[variant]["tests"] = {n.replace(root, "<root>"): t for n, t in results[variant]["tests"].items()}
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return results


def summarize(library, results):
    reference = {n: t for n, t in results["numpy"]["tests"].items() if t["outcome"] in ("passed", "xpassed")}
    mine = results["wsarray"]["tests"]
    passed = [n for n in reference if mine.get(n, {}).get("outcome") in ("passed", "xpassed")]
    broken = {n: mine.get(n, {"outcome": "missing", "cause": "not run", "where": ""})
              for n in reference if n not in passed}
    crashes = sum(1 for t in mine.values() if t["outcome"] in ("crash", "hang"))
    causes = Counter(f"{t['outcome']}: {t['cause']}" + (f" ({t['where']})" if t.get("where") else "")
                     for t in broken.values())
    return {"library": library.name, "version": library.version, "kind": library.kind,
            "numpy_passed": len(reference), "wsarray_passed": len(passed),
            "percent": round(100 * len(passed) / len(reference), 2) if reference else None,
            "crashes": crashes, "file_errors": {v: results[v]["file_errors"] for v in VARIANTS},
            "seconds": {v: results[v]["seconds"] for v in VARIANTS},
            "failures": sorted(broken), "causes": causes.most_common()}


def install(libraries, cache):
    """The libraries and their test requirements, with NumPy, SciPy and pandas held at the versions
    installed (a library's requirements must not change the NumPy that wsarray was built against, nor
    the pandas the other libraries were measured with)."""
    requirements = [f"{lib.name}=={lib.version}" for lib in libraries] + [r for lib in libraries for r in lib.extra]
    from importlib.metadata import PackageNotFoundError, version

    pins = []
    for name in ("numpy", "scipy", "pandas"):
        try:
            pins.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            pass
    os.makedirs(cache, exist_ok=True)
    constraints = os.path.join(cache, "constraints.txt")
    with open(constraints, "w") as f:
        f.write("\n".join(pins) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-c", constraints, *requirements], check=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", help="comma-separated names (default: all)")
    parser.add_argument("--cache", default=os.path.join(HERE, "results", "library_suites"))
    parser.add_argument("--json", help="write every result here")
    parser.add_argument("--no-install", dest="install", action="store_false")
    parser.add_argument("--test-timeout", type=float, default=300)
    parser.add_argument("--file-timeout", type=float, default=1800)
    parser.add_argument("--max-restarts", type=int, default=20)
    options = parser.parse_args(argv)
    options.available_memory, options.label = "4GB", "full"
    options.work = os.path.join(options.cache, "work")
    os.environ["PYTHONHASHSEED"] = "0"  # test ids built from sets are the same in both runs
    chosen = LIBRARIES
    if options.libraries:
        names = {n.strip().lower() for n in options.libraries.split(",")}
        chosen = [lib for lib in LIBRARIES if lib.name.lower() in names]
        unknown = names - {lib.name.lower() for lib in chosen}
        if unknown:
            parser.error(f"unknown libraries: {', '.join(sorted(unknown))}")
    if options.install:
        install(chosen, options.cache)
    rows = []
    for library in chosen:
        row = summarize(library, run_library(library, options))
        rows.append(row)
        print(f"{row['library']} {row['version']}: {row['wsarray_passed']}/{row['numpy_passed']} "
              f"({row['percent']}%), crashes {row['crashes']}", flush=True)
        for cause, count in row["causes"][:8]:
            print(f"    {count:5d}  {cause[:150]}")
    print("\n| library | kind | NumPy passes | wsarray passes | % | crashes |\n|---|---|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['library']} {row['version']} | {row['kind']} | {row['numpy_passed']} | "
              f"{row['wsarray_passed']} | {row['percent']} | {row['crashes']} |")
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
