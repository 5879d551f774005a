"""The documentation: the site builds with warnings as errors, and every ```python block of README.md
and of each page of docs/pages runs, the blocks of one page in order in one namespace, as a reader
following the page would (each page in a child process, in a temporary folder: the examples write
files and start threads and a Dask cluster). A block that cannot run here (the GPU one) is fenced as
```text. The README stays a front page."""
import glob
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "pages", "*.md")))

RUNNER = """
import re, sys
text = open(sys.argv[1]).read()
blocks = [(m.start(), m.group(1)) for m in re.finditer(r"```python\\n(.*?)```", text, re.S)]
namespace = {"__name__": "page"}
for start, code in blocks:
    line = text[:start].count("\\n") + 1
    exec(compile(code, f"{sys.argv[1]}:{line}", "exec"), namespace)
    print(f"ran {line}", flush=True)
"""


@pytest.mark.parametrize("page", [p for p in PAGES if "```python\n" in open(p).read()],
                         ids=lambda p: os.path.relpath(p, REPO))
def test_every_python_example_runs(page, tmp_path):
    with open(page) as f:
        blocks = len(re.findall(r"```python\n", f.read()))
    # -c: the child's __main__ has no file, so the Dask example's worker processes do not re-run it
    proc = subprocess.run([sys.executable, "-P", "-c", RUNNER, page], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    ran = proc.stdout.count("ran ")
    assert proc.returncode == 0 and ran == blocks, (ran, blocks, proc.stdout[-2000:], proc.stderr[-4000:])


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs and mkdocs-material (the [test] extra) build the site")
    pytest.importorskip("material", reason="mkdocs-material (the [test] extra) is the site's theme")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    # -P and another folder: the API page's hook imports the installed wsarray, not the source folder
    proc = subprocess.run([sys.executable, "-P", "-m", "mkdocs", "build", "--strict", "-q", "-f",
                           os.path.join(REPO, "docs", "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "wsarray.transient_workspace" in api and "wsarray.evaluation.ROC" in api
    for page in PAGES[1:]:
        name = os.path.splitext(os.path.basename(page))[0]
        assert (tmp_path / "site" / ("" if name == "index" else name) / "index.html").exists(), name


def test_the_readme_is_a_front_page_that_links_every_page():
    with open(PAGES[0]) as f:
        readme = f.read()
    assert readme.count("\n") <= 250
    for page in PAGES[1:]:
        name = os.path.basename(page)
        if name not in ("index.md", "layout.md"):  # the README holds the layout itself
            assert f"docs/pages/{name}" in readme, name
    with open(os.path.join(REPO, ".ci", "run")) as f:
        ci = f.read()
    test_command = re.search(r"```sh\n(python3 \.ci/make_venv\.py && .*?\"\.\[test\]\".*?)\n```", readme).group(1)
    assert test_command in ci
