"""The README's "Scaling out with Dask" example runs as written (threaded, then a LocalCluster)."""
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_dask_example_runs(tmp_path):
    text = README.read_text()
    section = text[text.index("## Scaling out with Dask"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, "-P", str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:3] == ["True", "Array True", "[1, 1]"], done.stdout
