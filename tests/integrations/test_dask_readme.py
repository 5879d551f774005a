"""The Dask guide's example (docs/pages/dask.md) runs as written as a script (threaded, then a
LocalCluster) and prints what the page says."""
import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pages" / "dask.md"


def test_readme_dask_example_runs(tmp_path):
    section = PAGE.read_text()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, "-P", str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:3] == ["True", "True True", "[1, 1]"], done.stdout
