"""Peak RSS and time of one fused epoch against computing the features alone (issue 31):
    python bench/bench_fused_memory.py N D MODE   (one mode per process: ru_maxrss is per process)
    python bench/bench_fused_memory.py --smoke    (2000 rows, D = 64, fused: checks that the script runs)
MODE: features (the floor: every row's features, in 64 MiB chunks, not kept), fused (= fused-sgd: one SGD
epoch of KernelClassifier(fused=True)), fused-saga / fused-sag (one effective pass of the variance-reduced
solver, fused; the step given, so no extra pass for the smoothness constant), materialised-saga (the same
pass on KernelClassifier(fused=False): the n x D matrix)."""
import sys, time, resource, numpy as np
import robustcore as rc
from robustcore.kernel_approximation import RandomFourierFeatures
from robustcore.linear_model import SGD, make_solver
n, D, mode = (2000, 64, "fused") if sys.argv[1:] == ["--smoke"] else (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
rng = np.random.default_rng(0); X = rng.standard_normal((n, 22)); y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
m = RandomFourierFeatures(gamma=0.1, n_components=D, random_state=0).fit(X)
t = time.perf_counter(); c = time.process_time()
if mode == "features":  # the floor: every row's features, in 64 MiB chunks (not kept)
    step = 65536 * 1024 // (8 * D) * 8
    for i in range(0, n, step): m.transform(X[i:i + step])
else:
    solver = "sgd" if mode == "fused" else mode.split("-")[1]
    if solver == "sgd":
        est = rc.LinearClassifier(solver=SGD(eta0=0.01, learning_rate="constant"), loss="hinge", max_iter=1, random_state=0)
    else:
        est = rc.LinearClassifier(solver=make_solver(solver, eta0=0.05), loss="squared_hinge", alpha=1e-6, max_iter=1, random_state=0)
    rc.KernelClassifier(approximation="rff", gamma=0.1, n_components=D, estimator=est,
                        fused=not mode.startswith("materialised"), random_state=0).fit(X, y)
s = time.perf_counter() - t; c = time.process_time() - c
print(f"n={n} D={D} {mode}: {s:.2f} s ({c:.2f} CPU s), peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MiB "
      f"(data {X.nbytes/2**20:.0f} MiB, after data {base/1024:.0f} MiB)", flush=True)
