"""The evaluation guide's example (docs/pages/evaluation.md) runs as written and shows what it says (its
code block, executed in a temporary folder)."""
import os
import re

import pytest

README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "pages",
                      "evaluation.md")


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib", reason="the example writes the HTML report ([plot] extra)")
    with open(README) as f:
        text = f.read()
    section = text
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md (evaluation)", "exec"), {})
    out = capsys.readouterr().out
    assert "Evaluation Metrics" in out and "Confusion Matrix" in out
    assert (tmp_path / "evaluation.html").read_text().count("data:image/png") == 3
