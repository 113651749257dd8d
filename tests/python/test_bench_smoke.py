"""The maintained Python benchmarks of bench/ run: each with ``--smoke`` (tiny generated data, one round), as
``.ci/run`` smoke-runs the C++ benchmark binaries (in this process: about 25 s for the twelve on 2 cores). Timings are not checked (speed is measured in bench/, never
in the tests); a script that no longer runs against the package fails here. The studies of bench/studies/
answered a question once and are not run."""

from __future__ import annotations

import importlib.util
import runpy
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

#: every maintained Python benchmark with what its smoke run must print; the tool for two builds is not run
SMOKE = {
    "bench_sgd.py": "synthetic",
    "bench_parallel.py": "synthetic",
    "bench_vw.py": "",  # prints that vowpalwabbit is missing when it is
    "bench_vr.py": "| synthetic |",
    "bench_lbfgs.py": "solver newton\n| problem",
    "bench_mkl.py": "| australian |",
    "bench_mkl_blocks.py": "generated blocks",
    "bench_dask.py": "dask 2 workers",
    "bench_dask_out_of_core.py": "workers: 0 killed",
    "bench_feature_maps.py": "RFF rbf D=50",
    "bench_kernel.py": "KernelClassifier",
    "bench_fused_memory.py": "fused",
    "noise_diagnostics.py": "| generated",
    "noise_cv.py": "| generated 1:1 |",
}
NOT_RUN = {"ab_wheels.py": "an A/B of two installed builds (bench/README.md)"}
NEEDS = {"bench_dask.py": ("dask", "distributed"), "bench_dask_out_of_core.py": ("dask", "distributed")}


def test_every_maintained_benchmark_is_smoke_run():
    scripts = {p.name for p in BENCH.glob("*.py")}
    assert scripts == set(SMOKE) | set(NOT_RUN), sorted(scripts ^ (set(SMOKE) | set(NOT_RUN)))
    assert not list(BENCH.glob("studies/bench_*.py"))  # the studies hold no maintained benchmark


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_smoke(script, capfd, monkeypatch):
    """The script run as ``python bench/<script> --smoke`` would run it, in this process (no interpreter and
    no import of robustcore to pay per script)."""
    for module in NEEDS.get(script, ()):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    monkeypatch.setattr(sys, "argv", [str(BENCH / script), "--smoke"])
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.chdir(BENCH)
    t = time.perf_counter()
    try:
        runpy.run_path(str(BENCH / script), run_name="__main__")
    except SystemExit as e:
        assert e.code in (None, 0), e.code
    seconds = time.perf_counter() - t
    out = capfd.readouterr().out
    assert SMOKE[script] in out, out[-3000:]
    with capfd.disabled():
        print(f" {script}: {seconds:.1f} s", end="")
