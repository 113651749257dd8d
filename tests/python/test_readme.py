"""The README's and the documentation pages' code runs as written (so the front page and the user guide
cannot drift from the code). The gallery runs in the docs build (.ci/docs), the docstrings' examples as
doctests there."""

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README] + sorted((ROOT / "docs").rglob("*.md"))


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


BLOCKS = [(p, k) for p in PAGES if "_build" not in p.parts for k in range(len(_python_blocks(p)))]


def test_readme_quick_start_runs(capsys):
    """The quick start's model is accurate on clean test labels and its flagged rows are mostly truly wrong."""
    code = re.search(r"## Quick start[^\n]*\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    ns = {}
    exec(compile(code, "README.md (quick start)", "exec"), ns)
    assert 0.8 < ns["clf"].score(ns["Xt"], ns["yt"]) <= 1.0
    assert ns["really_wrong"] > 0.5
    assert "winner" in capsys.readouterr().out


def test_readme_is_short():
    assert len(README.read_text().splitlines()) <= 200


#: the data sets that are not built in: a block naming one needs the benchmark data folder
DATA_SETS = ("ijcnn1", "a7a", "mnist38", "emotions", "yeast", "scene", "heart", "ionosphere", "sonar", "australian",
             "breast-cancer")


@pytest.mark.parametrize("page,k", BLOCKS, ids=[f"{p.relative_to(ROOT)}:{k}" for p, k in BLOCKS])
def test_python_block_runs(page, k, request, monkeypatch, tmp_path):
    """Every ```python block of the README and the docs pages runs without error (those naming a data set
    that is not built in need the benchmark data folder, and skip without it saying how to get it), in a
    temporary folder (a block may write files, as the own-data page's issues.csv)."""
    block = _python_blocks(page)[k]
    monkeypatch.chdir(tmp_path)
    if "robustcore.dask" in block:
        pytest.importorskip("distributed", reason="the block needs the optional extra robustcore[dask]")
    if any(f'"{name}"' in block for name in DATA_SETS):
        monkeypatch.setenv("ROBUSTCORE_DATA", str(request.getfixturevalue("data_dir")))
    exec(compile(block, f"{page.relative_to(ROOT)} python block {k}", "exec"), {})
