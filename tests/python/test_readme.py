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


@pytest.fixture(scope="module")
def quick_start():
    """The README's quick start run once: (its namespace, what it printed)."""
    import contextlib
    import io

    import robustcore  # noqa: F401  (imported first: an editable install's rebuild message is not the output)

    code = re.search(r"## Quick start[^\n]*\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    ns, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (quick start)", "exec"), ns)
    return ns, out.getvalue()


def test_readme_quick_start_runs(quick_start):
    """The quick start's model is accurate on clean test labels and its flagged rows are mostly truly wrong."""
    ns, printed = quick_start
    assert 0.8 < ns["clf"].score(ns["Xt"], ns["yt"]) <= 1.0
    assert ns["really_wrong"] > 0.5
    assert "winner" in printed


_NUMBER = re.compile(r"-?\d+\.\d+|-?\d+")


def _same_line(printed, shown):
    """The same words and punctuation, integers equal, and decimals with as many digits and within one unit
    of the README's last digit (the last printed digit of a float may round differently on another CPU's BLAS /
    libm)."""
    if _NUMBER.sub("#", printed) != _NUMBER.sub("#", shown):
        return False
    for got, want in zip(_NUMBER.findall(printed), _NUMBER.findall(shown)):
        if "." not in want:
            if got != want:
                return False
        else:
            decimals = len(want.split(".")[1])
            if "." not in got or len(got.split(".")[1]) != decimals or \
                    abs(float(got) - float(want)) > 1.01 * 10.0 ** -decimals:
                return False
    return True


def test_readme_quick_start_prints_what_the_readme_shows(quick_start):
    """The README's "One run printed" block is the quick start's output (its first lines; the report follows):
    when the code's output changes -- another remedy or alpha wins, another T, accuracy or flagged count --
    this fails, and the README block is what to update (from this test's message)."""
    _, printed = quick_start
    shown = re.search(r"One run printed[^\n]*\n\n```\n(.*?)```", README.read_text(), re.S).group(1).splitlines()
    got = printed.splitlines()[:len(shown)]
    assert len(got) == len(shown) and all(_same_line(g, s) for g, s in zip(got, shown)), (
        "the README's quick-start output is out of date; the code now prints:\n" + "\n".join(got))


def test_output_comparison_catches_a_change():
    """The comparison above fails on another remedy, alpha, count or a decimal off by more than its last digit."""
    assert _same_line("corrected {'alpha': 0.01}", "corrected {'alpha': 0.01}")
    assert _same_line("clean test accuracy 0.957", "clean test accuracy 0.956")  # the last digit's rounding
    assert not _same_line("pruned {'alpha': 0.01}", "corrected {'alpha': 0.01}")
    assert not _same_line("corrected {'alpha': 0.001}", "corrected {'alpha': 0.01}")
    assert not _same_line("clean test accuracy 0.950", "clean test accuracy 0.956")
    assert not _same_line("556 rows flagged, 94% of them", "555 rows flagged, 94% of them")
    assert not _same_line(" [0.4  0.61]]", " [0.4  0.6 ]]")


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
