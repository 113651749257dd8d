"""The README's API tour runs as written (so the front page cannot drift from the code)."""

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")


def test_readme_tour_runs():
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    code = re.search(r"## A tour of the API\n\n```python\n(.*?)```", text, re.S).group(1)
    ns = {}
    exec(compile(code, "README.md (tour)", "exec"), ns)
    assert 0.8 < ns["clf"].score(ns["Xt"], ns["yt"]) <= 1.0
