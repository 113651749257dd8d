"""MKL past n^2: StPMKL over feature-map blocks (``NoisyMKLClassifier(approximation="rff")``) on ijcnn1's full
training set and on generated data of 500,000 rows, beside the exact dual solver where it fits.

``python bench/bench_mkl_blocks.py [--parts ijcnn1 subsample generated curve] [--ijcnn1-iters 250]
[--n-components 10] [--alpha 1e-4] [--gen-rows 500000] [--gen-iters 100] [--curve-iters 2048]
[--max-memory-mb 1024] [--data DIR]``

Every fit runs in a child process (this script with ``--child``), which reports its wall time, CPU seconds
(``resource.getrusage``, children excluded) and peak RSS (``ru_maxrss``: the data, the map, the cached
features and the solver's arrays; the Python interpreter and its imports are about 150 MiB of it). The
paper's bank: Gaussian kernels of widths 2^-3 ... 2^6 on all features and on each feature (m = 10 (d + 1)),
each as ``--n-components`` random Fourier features; float32 data (float32 features); q = 0 (clean labels),
rho = n, tol = 0 (a fixed number of iterations).

* ijcnn1: 49,990 rows, 22 features (m = 230); test error on ijcnn1.t (91,701 rows). The exact dual solver's
  bank does not fit: its size is printed (``gaussian_bank_factored``'s lower bound refuses at once).
* subsample: the exact dual solver (factored bank) and the blocks on the same random 2,000 rows, same
  iterations, side by side (test error on ijcnn1.t, fit seconds).
* generated: ``--gen-rows`` rows of 8 uniform features, y = sign(sin(6 x0) + 2 (x1 - 0.5)^2 - x2 + 0.3 +
  N(0, 0.1)), m = 90; test error on 20,000 more rows.
* curve: the engine on ijcnn1 (the same map and problem as the fit), test error after 1, 2, 4, ... iterations
  up to ``--curve-iters``: how far the iterations are from the target.
* reference: a uniform-weight model on the same features (robustcore's ``LinearClassifier(hinge)``, SAGA):
  what the bank's features support when the kernel weights are not learned.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()


def load_ijcnn1(data):
    from sklearn.datasets import load_svmlight_file

    Xtr, ytr = load_svmlight_file(str(Path(data) / "ijcnn1" / "ijcnn1.bz2"), n_features=22)
    Xte, yte = load_svmlight_file(str(Path(data) / "ijcnn1" / "ijcnn1.t.bz2"), n_features=22)
    return Xtr.toarray().astype(np.float32), ytr, Xte.toarray().astype(np.float32), yte


def generated(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 8), dtype=np.float32)
    f = np.sin(6 * X[:, 0]) + 2 * (X[:, 1] - 0.5) ** 2 - X[:, 2] + 0.3 + 0.1 * rng.normal(size=n)
    return X, np.where(f > 0, 1.0, -1.0)


def child(cfg):
    """One fit; prints a JSON line of its measurements."""
    from robustcore.mkl import NoisyMKLClassifier

    if cfg["data"] == "ijcnn1":
        X, y, Xte, yte = load_ijcnn1(cfg["dir"])
    else:
        X, y = generated(cfg["rows"], 0)
        Xte, yte = generated(cfg.get("test_rows", 20000), 1)
    if cfg.get("subsample"):
        idx = np.random.default_rng(0).permutation(len(y))[: cfg["subsample"]]
        X, y = X[idx], y[idx]
    kw = dict(noise_level=0.0, alpha=cfg["alpha"], max_iter=cfg["iters"], tol=0.0, random_state=0,
              max_memory_mb=cfg["mb"])
    if cfg["solver"] == "blocks":
        kw.update(approximation="rff", n_components=cfg["nc"])
    else:
        X, Xte = X.astype(np.float64), Xte.astype(np.float64)
    c0, t0 = time.process_time(), time.perf_counter()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = NoisyMKLClassifier(**kw).fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    err = float(np.mean(est.predict(Xte) != yte))
    top = np.sort(est.kernel_weights_)[::-1][:3]
    print(json.dumps(dict(wall=wall, cpu=cpu, rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          err=err, gap=float(est.duality_gap_), n=len(y), top_weights=[round(float(v), 3) for v in top],
                          majority=float(max(np.mean(yte == 1), np.mean(yte != 1))))))


def run_child(cfg):
    if cfg.get("in_process"):  # --smoke: no interpreter to start (the peak RSS is then this process's)
        import contextlib
        import io

        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                child(cfg)
        except Exception as e:  # noqa: BLE001 - reported as the subprocess's last stderr line would be
            return {"error": f"{type(e).__name__}: {e}"}
        return json.loads([ln for ln in buf.getvalue().splitlines() if ln.startswith("{")][-1])
    out = subprocess.run([sys.executable, str(HERE), "--child", json.dumps(cfg)], capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(lines[-1])


FAILED = []  # the runs that ended in an error (a refusal by the memory check is a result, except in --smoke)


def show(name, r):
    if "error" in r:
        print(f"{name:44s} {r['error']}")
        FAILED.append(name)
        return
    print(f"{name:44s} n={r['n']:>7d}  fit {r['wall']:7.1f} s  cpu {r['cpu']:7.1f} s  peak RSS {r['rss_mib']:7.0f} MiB  "
          f"test error {100 * r['err']:5.2f}% (majority {100 * (1 - r['majority']):.2f}%)  gap {r['gap']:.3g}  "
          f"top weights {r['top_weights']}", flush=True)


def curve(args):
    """Test error of the engine's averaged iterate after 1, 2, 4, ... iterations on ijcnn1 (one run)."""
    from robustcore import _core
    from robustcore.mkl import _blocks as _mkl_blocks
    from robustcore.mkl import DEFAULT_WIDTHS
    from robustcore._validation import to_matrix

    X, y, Xte, yte = load_ijcnn1(args.data)
    fmap = _mkl_blocks.fit_feature_map(X, np.array(DEFAULT_WIDTHS), "rff", args.n_components, 0)
    opt = _core.MklOptions()
    opt.alpha, opt.upper, opt.rho, opt.max_iter, opt.tol = args.alpha, 1.0, float(len(y)), args.curve_iters, 0.0
    w, dual = np.zeros(fmap.engine_map().n_components), np.zeros(len(y))
    t0 = time.perf_counter()

    def report(t):
        if t and (t & (t - 1) == 0 or t == args.curve_iters):
            err = np.mean(np.where(_mkl_blocks.decision(fmap, Xte, w) > 0, 1, -1) != yte)
            print(f"  iteration {t:6d}  {time.perf_counter() - t0:7.1f} s  test error {100 * err:5.2f}%", flush=True)
        return True

    res = _core.mkl_blocks_solve(fmap.engine_map(), to_matrix(X, float32=True), np.ascontiguousarray(y), opt,
                                 int(args.max_memory_mb * 2**20), w, dual, report)
    print(f"  gap {res.gap:.4g} (primal {res.primal:.4g}), step {res.step:.4g}")
    # the uniform-weight reference on the same features
    import robustcore as rc

    Z, Zte = fmap.transform(X), fmap.transform(Xte)
    t = time.perf_counter()
    lin = rc.LinearClassifier(loss="hinge", alpha=1e-6, max_iter=30, random_state=0).fit(Z, y)
    print(f"  reference: LinearClassifier(hinge, alpha=1e-6) on the same {Z.shape[1]} features (uniform kernel "
          f"weights): test error {100 * np.mean(lin.predict(Zte) != yte):.2f}%, fit {time.perf_counter() - t:.1f} s")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--child")
    p.add_argument("--parts", nargs="+", default=["ijcnn1", "subsample", "generated"])
    p.add_argument("--ijcnn1-iters", type=int, default=250)
    p.add_argument("--n-components", type=int, default=10)
    p.add_argument("--alpha", type=float, default=1e-4)
    p.add_argument("--gen-rows", type=int, default=500_000)
    p.add_argument("--gen-iters", type=int, default=100)
    p.add_argument("--curve-iters", type=int, default=2048)
    p.add_argument("--max-memory-mb", type=float, default=1024)
    p.add_argument("--data", default=os.environ.get("ROBUSTCORE_DATA", str(HERE.parents[2] / "shared" / "data")))
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args()
    if args.smoke:
        args.parts, args.gen_rows, args.gen_iters = ["generated"], 400, 3
    if args.child:
        return child(json.loads(args.child))
    print(f"loaded machine: {os.getloadavg()[0]:.1f} load average on {os.cpu_count()} cores")
    base = dict(dir=args.data, alpha=args.alpha, nc=args.n_components, mb=args.max_memory_mb,
                **({"test_rows": 200, "in_process": True} if args.smoke else {}))
    if "ijcnn1" in args.parts:
        show(f"ijcnn1 blocks rff {args.n_components}/kernel, {args.ijcnn1_iters} it",
             run_child(dict(base, data="ijcnn1", solver="blocks", iters=args.ijcnn1_iters)))
        show("ijcnn1 exact dual (factored bank)", run_child(dict(base, data="ijcnn1", solver="exact", iters=1,
                                                                   mb=2048)))
    if "subsample" in args.parts:
        for solver in ("exact", "blocks"):
            show(f"ijcnn1 2,000-row subsample, {solver}, 300 it",
                 run_child(dict(base, data="ijcnn1", solver=solver, iters=300, subsample=2000, mb=2048)))
    if "generated" in args.parts:
        show(f"generated blocks rff {args.n_components}/kernel, {args.gen_iters} it",
             run_child(dict(base, data="generated", rows=args.gen_rows, solver="blocks", iters=args.gen_iters)))
        show("generated exact dual (factored bank)",
             run_child(dict(base, data="generated", rows=args.gen_rows, solver="exact", iters=1, mb=2048)))
    if "curve" in args.parts:
        print(f"ijcnn1 curve (engine, rff {args.n_components}/kernel, alpha {args.alpha}):")
        curve(args)
    if args.smoke and FAILED:
        sys.exit(f"--smoke: these runs failed: {FAILED}")


if __name__ == "__main__":
    main()
