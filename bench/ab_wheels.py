"""A/B of two robustcore builds on the Python call paths a build change can touch (the pybind11 glue, the
data views' checks, the kernel banks) and on the engine loops of every solver family (long sparse rows,
dense rows, averaging, the variance-reduced solvers, the softmax model, FOL, AdaBoost, mirror prox): each
build installed into its own directory, timed in alternating subprocesses, best of 5 calls per round,
medians over rounds. Without --quick it needs the data folder (a7a, ijcnn1, australian); about 3 minutes
a round.

    pip install --no-deps --target /tmp/site_old old.whl
    pip install --no-deps --target /tmp/site_new new.whl
    ROBUSTCORE_DATA=../shared/data python bench/ab_wheels.py /tmp/site_old /tmp/site_new --rounds 3 [--quick]
"""
import argparse
import json
import statistics
import subprocess
import sys

CASES = r'''
import sys, time, json
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]  # bypass an editable install
sys.path.insert(0, sys.argv[1])
quick = sys.argv[2] == "1"
import numpy as np, scipy.sparse as sp
import robustcore
from robustcore import datasets, _core
assert robustcore.__file__.startswith(sys.argv[1]), robustcore.__file__
rng = np.random.default_rng(0)
out = {}

def t(name, f, reps=5):
    times = []
    for _ in range(reps):
        s = time.perf_counter(); f(); times.append(time.perf_counter() - s)
    out[name] = min(times)

D = rng.random((20000, 1000))
t("Matrix.dense 20M values", lambda: _core.Matrix.dense(D))
data, indices = rng.random(8_000_000), rng.integers(0, 50000, 8_000_000).astype(np.int32)
indptr = np.arange(0, 8_000_001, 40, dtype=np.int64)
t("Matrix.csr 8M nonzeros", lambda: _core.Matrix.csr(data, indices, indptr, 50000))
spec, z = _core.LossSpec(_core.LossKind.sramp), rng.standard_normal(1_000_000)
t("LossSpec.value_deriv 1M", lambda: spec.value_deriv(z))
if not quick:
    from robustcore.fol import FocusedOnlineClassifier
    from robustcore.linear_model import LinearClassifier
    from robustcore.mkl import NoisyMKLClassifier
    Xa, ya = datasets.load("a7a", as_sparse=True)[:2]
    Xs, ys = datasets.load("australian")[:2]
    t("SGD hinge fit a7a", lambda: LinearClassifier(loss="hinge").fit(Xa, ya))
    t("SAGA log fit a7a", lambda: LinearClassifier(loss="log_loss", solver="saga", max_iter=10).fit(Xa, ya))
    t("FOL fit a7a", lambda: FocusedOnlineClassifier(max_iter=2).fit(Xa, ya))
    m = NoisyMKLClassifier(max_iter=200)
    t("NoisyMKL fit australian", lambda: m.fit(Xs, ys), reps=3)
    t("NoisyMKL decision australian", lambda: m.decision_function(Xs), reps=3)
    # The engine's loops themselves (what a kernels_*.cpp compile flag changes): long sparse rows, dense rows,
    # averaging, the variance-reduced family, the softmax model, AdaBoost's sum tree.
    Xg = sp.random(50_000, 20_000, density=40 / 20_000, format="csr", random_state=0)
    yg = np.where(Xg @ rng.standard_normal(20_000) > 0, 1, -1)
    Xd, yd = rng.standard_normal((20_000, 100)), rng.integers(0, 2, 20_000)
    Xi, yi = datasets.load("ijcnn1", as_sparse=True)[:2]
    t("SGD hinge fit generated", lambda: LinearClassifier(loss="hinge", history=False).fit(Xg, yg), reps=3)
    t("ASGD log fit ijcnn1", lambda: LinearClassifier(loss="log_loss", average=1, history=False).fit(Xi, yi))
    t("SGD sramp fit dense", lambda: LinearClassifier(loss="sramp", history=False).fit(Xd, yd))
    t("SVRG log fit a7a", lambda: LinearClassifier(loss="log_loss", solver="svrg", max_iter=10).fit(Xa, ya))
    t("SAG sqhinge fit ijcnn1", lambda: LinearClassifier(loss="squared_hinge", solver="sag", max_iter=10).fit(Xi, yi))
    t("SAGA softmax fit generated", lambda: LinearClassifier(loss="softmax", solver="saga", max_iter=5)
      .fit(Xg, np.digitize(Xg @ rng.standard_normal(20_000), [-0.5, 0.5])), reps=3)
    from robustcore.fol import AdaBoostOnlineClassifier
    t("AdaBoost fit a7a", lambda: AdaBoostOnlineClassifier(max_iter=2).fit(Xa, ya))
print(json.dumps(out))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="only the data-view and loss cases (no data folder)")
    args = ap.parse_args()
    runs = {"old": [], "new": []}
    for _ in range(args.rounds):
        for label in runs:
            site = getattr(args, label)
            proc = subprocess.run([sys.executable, "-c", CASES, site, "1" if args.quick else "0"],
                                  capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"{label} ({site}) failed:\n{proc.stderr[-3000:]}")
            runs[label].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    for case in runs["old"][0]:
        a = statistics.median(r[case] for r in runs["old"])
        b = statistics.median(r[case] for r in runs["new"])
        print(f"{case:30s} old {a * 1e3:9.2f} ms   new {b * 1e3:9.2f} ms   new/old {b / a:5.2f}")


if __name__ == "__main__":
    main()
