"""Kernel-approximation transforms: robustcore's maps against scikit-learn's on the same data, one process.

    python bench/bench_feature_maps.py [--rows 100000] [--repeats 5] [--components 500 2000]

Data: ijcnn1 (train + test, the first --rows rows, 22 features, dense) from the data folder, else
generated Gaussian data of the same shape. Each case fits both transformers with the same random_state
(the same frequencies / landmarks: robustcore draws scikit-learn's), checks that the outputs agree, then
times ``transform`` alone, the two libraries interleaved round by round; prints the median seconds and
scikit-learn / robustcore. scikit-learn's RBFSampler is a BLAS product (OpenBLAS, all cores) plus three
NumPy passes (offset, cos, scale); its Nystroem a pairwise kernel plus a product. robustcore runs its
fused block loop on n_jobs threads.

    python bench/bench_feature_maps.py --ceiling [--landmarks 1000] [--repeats 5]

The judged line of issue 42: the Nystroem map of ijcnn1's 49,990 training rows (dense, float64 and float32)
against the same whitening product (n x m by m x m) in NumPy's OpenBLAS, both on one thread
(threadpoolctl), interleaved round by round in this process; prints the median seconds, the product's
GFLOP/s (2 n m^2 / seconds: for the map, its whole time -- kernel block, exponentials and product -- counted
against the product's flops) and map / OpenBLAS GFLOP/s. Also RFF's product (n x 22 by 22 x D) and the RFF
map, float64 and float32.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgd import median_times  # noqa: E402


def load(rows, generated=False):
    """(X dense float64, its name); ``generated``: ijcnn1's shape, generated."""
    try:
        if generated:
            raise LookupError("--smoke")
        from robustcore import datasets

        X, _, Xt, _ = datasets.load("ijcnn1")
        X = sp.vstack([sp.csr_matrix(X), sp.csr_matrix(Xt)]).toarray()[:rows]
        return np.ascontiguousarray(X, dtype=np.float64), f"ijcnn1 {X.shape[0]} x {X.shape[1]}"
    except Exception as e:  # no data folder: the same shape, generated
        print(f"(ijcnn1 not loaded: {e}; generated data instead)", file=sys.stderr)
        X = np.random.default_rng(0).normal(size=(rows, 22))
        return X, f"generated {rows} x 22"


def ceiling(args):
    """The maps against NumPy's single-thread BLAS on the same product (module docstring, --ceiling)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures

    if args.smoke:
        X, name = load(2000, generated=True)
    else:
        try:
            from robustcore import datasets

            X = np.ascontiguousarray(datasets.load("ijcnn1")[0].toarray())
            name = f"ijcnn1 training rows {X.shape[0]} x {X.shape[1]}"
        except Exception as e:  # no data folder: the same shape, generated
            print(f"(ijcnn1 not loaded: {e}; generated data instead)", file=sys.stderr)
            X, name = load(49_990, generated=True)
    n, d = X.shape
    blas = sorted({f"{i['internal_api']} {i.get('version')} {i.get('architecture')}" for i in threadpool_info()
                   if i["user_api"] == "blas"})
    print(f"{name}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}; BLAS: {'; '.join(blas)}; "
          f"one thread each; median of {args.repeats}")
    print(f"{'case':<36}{'OpenBLAS s':>11}{'GFLOP/s':>9}{'map s':>9}{'GFLOP/s':>9}{'map/BLAS':>10}")
    with threadpool_limits(1):
        for m in args.landmarks:
            ny = Nystroem(gamma=1.0, n_components=min(m, n), random_state=0, n_jobs=1).fit(X)
            m = ny.normalization_.shape[0]
            for dt in (np.float64, np.float32):
                Xc = X.astype(dt)
                K = np.random.default_rng(0).random((n, m)).astype(dt)  # kernel values' range; BLAS time is data-blind
                Nt = np.ascontiguousarray(ny.normalization_.T, dtype=dt)
                out = np.empty((n, m), dtype=dt)
                ts = median_times([lambda: np.matmul(K, Nt, out=out), lambda: ny.transform(Xc)], args.repeats)
                flops = 2.0 * n * m * m
                print(f"{'Nystroem m=' + str(m) + ' ' + np.dtype(dt).name:<36}{ts[0]:>11.3f}{flops / ts[0] / 1e9:>9.1f}"
                      f"{ts[1]:>9.3f}{flops / ts[1] / 1e9:>9.1f}{ts[0] / ts[1]:>10.2f}", flush=True)
        for D in args.components:
            rff = RandomFourierFeatures(gamma=1.0, n_components=D, random_state=0, n_jobs=1).fit(X)
            for dt in (np.float64, np.float32):
                Xc = X.astype(dt)
                W = rff.random_weights_.astype(dt)
                out = np.empty((n, D), dtype=dt)
                ts = median_times([lambda: np.matmul(Xc, W, out=out), lambda: rff.transform(Xc)], args.repeats)
                flops = 2.0 * n * d * D
                print(f"{'RFF D=' + str(D) + ' ' + np.dtype(dt).name + ' (map: + cos)':<36}{ts[0]:>11.3f}"
                      f"{flops / ts[0] / 1e9:>9.1f}{ts[1]:>9.3f}{flops / ts[1] / 1e9:>9.1f}{ts[0] / ts[1]:>10.2f}",
                      flush=True)


def main(argv=None):
    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.kernel_approximation import RBFSampler

    from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--components", type=int, nargs="+", default=None, help="RFF's D (default 500 2000; --ceiling: 1000)")
    p.add_argument("--landmarks", type=int, nargs="+", default=None, help="Nystroem's m (default 100 500; --ceiling: 1000)")
    p.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    p.add_argument("--ceiling", action="store_true",
                   help="the maps against NumPy's single-thread BLAS on the same products (issue 42's line)")
    args = p.parse_args(argv)
    if args.smoke:
        args.rows, args.repeats, args.components, args.landmarks = 2000, 1, [50], [20]
    if args.ceiling:
        args.landmarks = args.landmarks or ([20] if args.smoke else [1000])
        args.components = args.components or ([50] if args.smoke else [1000])
        return ceiling(args)
    args.components = args.components or [500, 2000]
    args.landmarks = args.landmarks or [100, 500]

    X, name = load(args.rows, generated=args.smoke)
    gamma = 1.0 / X.shape[1]
    print(f"{name}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}; "
          f"median of {args.repeats}; transform only")
    print(f"{'case':<34}{'sklearn s':>11}" + "".join(f"{'rc n_jobs=' + str(j) + ' s':>15}{'ratio':>8}"
                                                  for j in args.n_jobs))
    cases = []
    for D in args.components:
        for dtype, Xc in (("f64", X), ("f32", X.astype(np.float32)), ("f64 csr", sp.csr_matrix(X))):
            cases.append((f"RFF rbf D={D} {dtype}", Xc, RBFSampler(gamma=gamma, n_components=D, random_state=0),
                          RandomFourierFeatures(gamma=gamma, n_components=D, random_state=0)))
    for m in args.landmarks:
        for dtype, Xc in (("f64", X), ("f64 csr", sp.csr_matrix(X))):
            cases.append((f"Nystroem rbf m={m} {dtype}", Xc, SkNystroem(gamma=gamma, n_components=m, random_state=0),
                          Nystroem(gamma=gamma, n_components=m, random_state=0)))
    for label, Xc, sk, rc in cases:
        sk.fit(Xc)
        rc.fit(Xc)
        a, b = sk.transform(Xc[:2000]), rc.transform(Xc[:2000])
        tol = 1e-3 if b.dtype == np.float32 else 1e-8
        assert np.abs(a - b).max() < tol, (label, np.abs(a - b).max())
        fns = [lambda: sk.transform(Xc)]
        for j in args.n_jobs:
            fns.append(lambda j=j: rc.set_params(n_jobs=j).transform(Xc))
        ts = median_times(fns, args.repeats)
        print(f"{label:<34}{ts[0]:>11.3f}" + "".join(f"{t:>15.3f}{ts[0] / t:>8.2f}" for t in ts[1:]), flush=True)


if __name__ == "__main__":
    main()
