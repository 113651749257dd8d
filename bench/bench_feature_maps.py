"""Kernel-approximation transforms: robustcore's maps against scikit-learn's on the same data, one process.

    python bench/bench_feature_maps.py [--rows 100000] [--repeats 5] [--components 500 2000]

Data: ijcnn1 (train + test, the first --rows rows, 22 features, dense) from the data folder, else
generated Gaussian data of the same shape. Each case fits both transformers with the same random_state
(the same frequencies / landmarks: robustcore draws scikit-learn's), checks that the outputs agree, then
times ``transform`` alone, the two libraries interleaved round by round; prints the median seconds and
scikit-learn / robustcore. scikit-learn's RBFSampler is a BLAS product (OpenBLAS, all cores) plus three
NumPy passes (offset, cos, scale); its Nystroem a pairwise kernel plus a product. robustcore runs its
fused block loop on n_jobs threads.
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


def main(argv=None):
    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.kernel_approximation import RBFSampler

    from robustcore.kernel_approximation import Nystroem, RandomFourierFeatures

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--components", type=int, nargs="+", default=[500, 2000])
    p.add_argument("--landmarks", type=int, nargs="+", default=[100, 500])
    p.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    p.add_argument("--smoke", action="store_true", help="tiny generated data, one round: checks that the script runs (tests/python/test_bench_smoke.py)")
    args = p.parse_args(argv)
    if args.smoke:
        args.rows, args.repeats, args.components, args.landmarks = 2000, 1, [50], [20]

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
