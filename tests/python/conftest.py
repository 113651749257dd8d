import os
from pathlib import Path

import numpy as np
import pytest


def data_home():
    """The benchmark data folder (ROBUSTCORE_DATA, else ../shared/data beside the checkout), or None."""
    env = os.environ.get("ROBUSTCORE_DATA")
    if env:
        return Path(env) if Path(env).is_dir() else None
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "shared" / "data"
        if cand.is_dir():
            return cand
    return None


#: how to get the benchmark data, in every skip reason of a test that needs it (the data is not in the repository)
DATA_HELP = ("the benchmark data folder is not in this repository: it holds public LIBSVM, UCI, Mulan and MNIST files "
             "(about 19 MB; docs/user_guide/data.md lists the sets and the folder's own README.md each file's source "
             "and sha256). Put it at shared/data beside the checkout (../shared/data for a clone in /work/main) or set "
             "ROBUSTCORE_DATA=/path/to/data")


@pytest.fixture(scope="session")
def data_dir():
    d = data_home()
    if d is None:
        pytest.skip(f"benchmark data folder not found; {DATA_HELP}")
    return d


@pytest.fixture(scope="session")
def mypy_strict(tmp_path_factory):
    """``mypy --strict`` with the gallery's flags as a command: the runs of one session share a fresh cache
    (numpy's, scikit-learn's and robustcore's annotations analysed once, not once per test)."""
    import sys

    cache = tmp_path_factory.mktemp("mypy_cache")
    return [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", f"--cache-dir={cache}",
            "--untyped-calls-exclude=dask", "--untyped-calls-exclude=distributed"]


@pytest.fixture
def binary_problem():
    """A small dense binary problem with a planted linear model and a few flipped labels."""
    rng = np.random.default_rng(0)
    n, d = 300, 12
    X = rng.random((n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w - np.median(X @ w) > 0, 1.0, -1.0)
    y[rng.choice(n, 15, replace=False)] *= -1
    return X, y


def pytest_addoption(parser):
    parser.addoption("--fuzz", action="store", type=int, nargs="?", const=500, default=None,
                     help="hypothesis examples per fuzz test (test_faults.py; default run: 12; --fuzz alone: 500)")


@pytest.fixture
def fuzz_settings(request):
    """hypothesis settings of the property-based tests: 12 fixed (derandomized) examples by default, so the
    default suite is reproducible; --fuzz [N]: N random examples each."""
    from hypothesis import HealthCheck, settings

    n = request.config.getoption("--fuzz")
    return settings(max_examples=12 if n is None else n, derandomize=n is None, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
