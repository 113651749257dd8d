"""The gallery type-checks under ``mypy --strict`` (issue 43): what a user writes against robustcore's public
API -- estimators, noise functions, the datasets and plotting helpers -- gets real types, not errors.
Third-party packages without type information (scikit-learn, dask) are read as Any."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_gallery_passes_mypy_strict(mypy_strict):
    pytest.importorskip("mypy", reason="needs mypy (the [test] extra)")
    run = subprocess.run([*mypy_strict, str(ROOT / "examples")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success" in run.stdout
