"""The README's code runs as written (so the front page cannot drift from the code)."""

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_tour_runs():
    text = README.read_text()
    code = re.search(r"## A tour of the API\n\n```python\n(.*?)```", text, re.S).group(1)
    ns = {}
    exec(compile(code, "README.md (tour)", "exec"), ns)
    assert 0.8 < ns["clf"].score(ns["Xt"], ns["yt"]) <= 1.0


@pytest.mark.parametrize("k", range(len(_python_blocks())))
def test_readme_python_block_runs(k, data_dir, monkeypatch):
    """Every ```python block of the README runs without error (several load the benchmark data folder)."""
    block = _python_blocks()[k]
    if "robustcore.dask" in block:
        pytest.importorskip("distributed", reason="the block needs the optional extra robustcore[dask]")
    monkeypatch.setenv("ROBUSTCORE_DATA", str(data_dir))
    exec(compile(block, f"README.md python block {k}", "exec"), {})
