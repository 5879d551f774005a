"""What a new user meets first: the command line, the environment report, the import from the
source folder, help() texts, the package metadata, and stdlib code that builds type(x)(...)."""
import fractions
import importlib.metadata
import json
import pathlib
import statistics
import subprocess
import sys
import warnings

import numpy as np
import pytest

import wsarray as wnp

REPO = pathlib.Path(__file__).resolve().parents[2]


def run(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def test_main_help_lists_the_options_and_runs_nothing():
    proc = run("-P", "-m", "wsarray", "--help")
    assert proc.returncode == 0
    for option in ("--info", "--part", "--loops", "--repeats", "--json", "--quick"):
        assert option in proc.stdout
    assert "ms/iter" not in proc.stdout  # the demo did not run


def test_main_rejects_unknown_options_and_loops():
    assert run("-P", "-m", "wsarray", "--frobnicate").returncode == 2
    proc = run("-P", "-m", "wsarray", "--loops", "nope")
    assert proc.returncode == 2 and "unknown loop" in proc.stderr
    proc = run("-P", "-m", "wsarray", "--part", "loops,nope")
    assert proc.returncode == 2 and "unknown part(s) nope" in proc.stderr


def test_main_info_is_the_environment_report():
    proc = run("-P", "-m", "wsarray", "--info")
    assert proc.returncode == 0
    for text in ("wsarray " + wnp.__wsarray_version__, "numpy " + np.__version__, "compiler",
                 "sanitizers", "thread pool", "extras", "cuda", "GiB available"):
        assert text in proc.stdout, text


def test_main_json_gives_the_demo_figures():
    proc = run("-P", "-m", "wsarray", "--json", "--quick", "--loops", "mlp")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["loops"]
    assert [r["engine"] for r in rows] == ["numpy", "wsarray"]
    assert rows[0]["check"] == rows[1]["check"]
    assert rows[1]["stats"]["cycles"] == 20 and rows[0]["ratio"] == 1.0


def test_main_runs_the_data_pipeline_parts():
    proc = run("-P", "-m", "wsarray", "--json", "--quick", "--part", "modes")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    assert set(figures) == {"modes"}  # only the part asked for ran
    rows = {row["mode"]: row for row in figures["modes"]}
    assert set(rows) == {"none", "single", "separate"}
    assert rows["none"]["capacity_mib"] == 0 and rows["single"]["capacity_mib"] > 0
    assert set(rows["separate"]["workspaces"]) == {"input", "activations", "activation_grad", "working_memory",
                                                   "updater"}


def test_show_config_reports_the_build_and_the_extras():
    report = wnp.show_config(mode="dicts")
    assert report["wsarray"]["version"] == wnp.__wsarray_version__
    assert report["build"]["kernels"] in ("avx2", "baseline")
    assert report["threads"]["pool"] >= 1
    assert set(report["extras"]) >= {"cuda12", "cuda13", "dask", "progress", "plot"}
    assert report["memory"]["available_bytes"] > 0
    with pytest.raises(ValueError, match="show_config"):
        wnp.show_config(mode="json")


def test_importing_the_source_folder_says_how_to_fix_it():
    proc = run("-c", "import wsarray", cwd=REPO)
    assert proc.returncode == 1
    assert "source folder" in proc.stderr and "-P" in proc.stderr and "pip install" in proc.stderr


def test_package_metadata():
    meta = importlib.metadata.metadata("wsarray")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "LICENSE" in meta.get_all("License-File")
    assert meta.get_all("Classifier")
    assert wnp.__wsarray_version__ == meta["Version"]
    assert wnp.__version__ == np.__version__  # drop-in code gates on NumPy's version
    assert (REPO / "LICENSE").read_text().startswith("\n                                 Apache License")


def test_help_teaches_the_config_and_the_statistics():
    doc = wnp.WorkspaceConfig.__doc__
    for field in ("initial_size", "min_size", "max_size", "overallocation_limit", "allocation",
                  "learning", "cycles_before_initialization", "spill", "reset", "location",
                  "temp_file_path", "trim_after_cycles", "'first_loop'", "'reallocate'",
                  "'end_of_buffer'", "'mmap'"):
        assert field in doc, field
    stats_doc = wnp.Workspace.stats.__doc__
    for key in wnp.workspace("HELP").stats():
        assert key in stats_doc, key


def test_stdlib_code_that_builds_type_x_works_on_scalar_results():
    x = wnp.arange(10.0)
    assert statistics.mean([wnp.mean(x), wnp.mean(x)]) == 4.5
    assert isinstance(statistics.mean([wnp.mean(x), wnp.max(x)]), np.float64)
    assert statistics.median([wnp.mean(x), wnp.max(x), wnp.min(x)]) == 4.5
    assert abs(statistics.stdev([wnp.mean(x), wnp.sum(x)]) - np.std([4.5, 45.0], ddof=1)) < 1e-12
    assert fractions.Fraction(wnp.mean(x)) == fractions.Fraction(9, 2)
    assert type(wnp.mean(x))(fractions.Fraction(1, 4)) == 0.25  # NumPy's float64 itself


def test_the_array_constructor_is_ndarrays():
    a = wnp.ndarray((2, 3), dtype=np.int32)
    assert a.shape == (2, 3) and a.dtype == np.int32 and isinstance(a, wnp.ndarray)
    assert type(wnp.Array(4)) is wnp.Array and wnp.Array(4).shape == (4,)
    with wnp.workspace("CTOR"):
        assert wnp.Array((3,)).workspace == "CTOR"
    with pytest.raises(TypeError):
        wnp.Array("x")


def test_astype_function_follows_the_standard_and_the_method_follows_numpy():
    z = wnp.asarray([1 + 2j])
    with pytest.raises(TypeError, match="imaginary"):
        wnp.astype(z, wnp.float64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = z.astype(np.float64)
    assert r.dtype == np.float64 and float(r[0]) == 1.0
    assert any(issubclass(w.category, np.exceptions.ComplexWarning) for w in caught)


def test_the_demo_concludes_from_its_own_measurements():
    from wsarray._demo import loop_takeaways
    def row(loop, engine, ratio, low, high, faults):
        return {"loop": loop, "engine": engine, "ratio": ratio, "ratio_min": low, "ratio_max": high,
                "faults": faults, "check": 1.0}
    rows = [row("heat", "numpy", 1, 1, 1, 998), row("heat", "wsarray", 0.26, 0.24, 0.27, 0),
            row("mlp", "numpy", 1, 1, 1, 10), row("mlp", "wsarray", 5.4, 5.0, 6.0, 12),
            row("tiny", "numpy", 1, 1, 1, 10), row("tiny", "wsarray", 1.02, 0.9, 1.1, 0)]
    idle = loop_takeaways(rows, load=0.5, cores=2)
    assert idle[0].startswith("heat: faster than NumPy in every run (0.26x") and "0 against NumPy's 998" in idle[0]
    assert idle[1].startswith("mlp: SLOWER than NumPy in every run (5.40x") and "unexpected" in idle[1]
    assert "not fewer here" in idle[1] and "within the noise" in idle[2]
    busy = loop_takeaways(rows, load=3.0, cores=2)
    assert "the machine was busy (load average 3.0 on 2 cores)" in busy[1]
    proc = run("-P", "-m", "wsarray", "--quick", "--part", "loops", "--loops", "heat")
    assert proc.returncode == 0, proc.stderr
    assert "What these runs show:" in proc.stdout and "* heat: " in proc.stdout
    assert "NumPy's or better" not in proc.stdout
