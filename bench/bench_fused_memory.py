"""Peak RSS and time of one fused SGD epoch against computing the features alone (issue 31):
    python bench/bench_fused_memory.py N D {features,fused}   (one mode per process: ru_maxrss is per process)"""
import sys, time, resource, numpy as np
import robustcore as rc
from robustcore.kernel_approximation import RandomFourierFeatures
n, D, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0); X = rng.standard_normal((n, 22)); y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
m = RandomFourierFeatures(gamma=0.1, n_components=D, random_state=0).fit(X)
t = time.perf_counter()
if mode == "features":  # the floor: every row's features, in 64 MiB chunks (not kept)
    step = 65536 * 1024 // (8 * D) * 8
    for i in range(0, n, step): m.transform(X[i:i + step])
else:
    est = rc.LinearClassifier(solver="sgd", loss="hinge", max_iter=1, eta0=0.01, learning_rate="constant", random_state=0)
    rc.KernelClassifier(approximation="rff", gamma=0.1, n_components=D, estimator=est, fused=True, random_state=0).fit(X, y)
s = time.perf_counter() - t
print(f"n={n} D={D} {mode}: {s:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MiB (data {X.nbytes/2**20:.0f} MiB, after data {base/1024:.0f} MiB)", flush=True)
