"""Wall time to duality gap 1e-2: StPMKL by AMP vs VI vs SimpleMKL, on australian and ionosphere.

``python bench/bench_mkl.py [--datasets australian ionosphere] [--max-iter 1000] [--repeats 3]``

Same protocol as the experiment: features in [0, 1], Gaussian bank (m = 10 (d + 1)), 80% of the rows
(seeded split), q = 0, lambda = 0.01, rho = n (alpha in [0, 1]); all three stop at gap < 1e-2 (in
objective (1) units for SimpleMKL) or their iteration cap. The kernel bank is built once per dataset and
passed precomputed, so the times are solver times. Also times 1000 AMP iterations (tol = 0) on
australian in float64 and float32. Medians over --repeats; the machine is shared (2 cores).
"""

import argparse
import time

import numpy as np

import robustcore as rc
from robustcore.mkl import NoisyMKLClassifier, SimpleMKLClassifier, gaussian_bank


def timed(make, K, y, repeats):
    ts, clf = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        clf = make().fit(K, y)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), clf


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="+", default=["australian", "ionosphere"])
    p.add_argument("--max-iter", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    print("| dataset | n | m | method | seconds (median) | iterations | final gap |")
    print("|---|---|---|---|---|---|---|")
    for name in a.datasets:
        X, y = rc.datasets.load_full(name)
        idx = np.random.default_rng(0).permutation(len(y))[: int(round(0.8 * len(y)))]
        X, y = X[idx], y[idx]
        for dtype in ("float64", "float32"):
            K = gaussian_bank(X, dtype=dtype)
            n, m = len(y), K.shape[0]
            runs = {
                f"AMP ({dtype})": lambda: NoisyMKLClassifier(noise_level=0.0, lam=0.01, kernels="precomputed",
                                                             max_iter=a.max_iter, dtype=dtype),
                f"VI gamma0=100 ({dtype})": lambda: NoisyMKLClassifier(noise_level=0.0, lam=0.01, method="vi",
                                                                       gamma0=100.0, kernels="precomputed",
                                                                       max_iter=a.max_iter, dtype=dtype),
            }
            if dtype == "float64":
                runs["SimpleMKL (SVC inner)"] = lambda: SimpleMKLClassifier(lam=0.01, kernels="precomputed",
                                                                           max_iter=100)
            if name == "australian":
                runs[f"AMP 1000 it, tol=0 ({dtype})"] = lambda: NoisyMKLClassifier(
                    noise_level=0.0, lam=0.01, kernels="precomputed", max_iter=1000, tol=0.0, dtype=dtype)
            for label, make in runs.items():
                sec, clf = timed(make, K, y, a.repeats)
                print(f"| {name} | {n} | {m} | {label} | {sec:.2f} | {clf.n_iter_} | {clf.duality_gap_:.4g} |",
                      flush=True)


if __name__ == "__main__":
    main()
