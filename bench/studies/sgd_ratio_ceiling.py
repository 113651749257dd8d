"""Question: How far can the 'SGD and ASGD at least 3x scikit-learn' target (issue 15) be reached on this
  machine?
Answer: on ijcnn1 it is reached (3.3-5.0x); on a7a the fixed cost of a fit (5-6 ms) leaves 0.4-0.9 ms per
  exact-shuffle epoch where 0.6-0.9 ms are needed, so 2.1-3.2x (docs/benchmarks/speed_targets.md, 'SGD and
  ASGD 3x scikit-learn')
Date: 2026-11-26
Private imports: none.

How far the "SGD and ASGD at least 3x scikit-learn" target (issue 15) can be reached on this machine.

bench_sgd.py times whole fits. This script splits robustcore's fit into the part that does not depend
on the epoch count and the epochs themselves, and compares both with the 3x budget (scikit-learn's fit
time / 3):

  - fixed:      fit(max_iter=1) minus one epoch: validation, conversions, eta0 calibration, results
  - shuf/ep:    one epoch with the default exact shuffle, ((fit(15) - fit(1)) / 14)
  - inord/ep:   one epoch with shuffle=False, the same way: the same steps with no random row access,
                so each step costs only its own dependency chain (dot product, loss derivative, axpy)
  - epochs@3x:  the most one exact-shuffle epoch may take for the whole fit to be 3x scikit-learn's,
                (budget - fixed) / 15
  - best:       scikit-learn's time over 15 in-order epochs alone, the ratio a fit would reach with no
                fixed cost and no memory latency at all (an upper bound for any exact-shuffle fit)

Same CSR arrays for both libraries, lambda = alpha = 1e-4, 15 epochs, history=False, scikit-learn with
tol=None; medians of --repeats alternating rounds.

    python bench/studies/sgd_ratio_ceiling.py [--datasets ijcnn1 a7a synthetic] [--repeats 7]
"""

import argparse
import os
import platform
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/
from bench_sgd import load, median_times  # noqa: E402
from robustcore.linear_model import make_solver

EPOCHS = 15


def main(argv=None):
    import robustcore as rc
    from sklearn.linear_model import SGDClassifier

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", nargs="+", default=["ijcnn1", "a7a", "synthetic"])
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args(argv)

    print(f"machine: {platform.machine()}, python {platform.python_version()}, robustcore {rc.__version__}; "
          f"epochs={EPOCHS}, history=False, medians of {args.repeats} alternating rounds; "
          f"load {os.getloadavg()[0]:.1f}\n")
    print(f"{'dataset':10s} {'method':12s} {'sklearn':>8s} {'rc':>8s} {'rc/skl':>6s} {'fixed':>7s} "
          f"{'shuf/ep':>8s} {'inord/ep':>8s} {'epochs@3x':>9s} {'best':>6s}   (ms; ratios)")
    for name in args.datasets:
        X, y = load(name)
        for loss, avg in (("hinge", False), ("log", False), ("hinge", True), ("log", True)):
            def est(max_iter, shuffle):
                return rc.LinearClassifier(loss=loss, solver=make_solver("asgd" if avg else "sgd", shuffle=shuffle, history=False), alpha=1e-4,
                                           max_iter=max_iter, random_state=0)

            fits = [est(EPOCHS, True), est(1, True), est(EPOCHS, False), est(1, False),
                    SGDClassifier(loss="log_loss" if loss == "log" else "hinge", alpha=1e-4, average=avg,
                                  max_iter=EPOCHS, tol=None, random_state=0)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning at tol=None
                t15, t1, o15, o1, t_sk = median_times([lambda f=f: f.fit(X, y) for f in fits], args.repeats)
            shuf_ep = (t15 - t1) / (EPOCHS - 1)
            inord_ep = (o15 - o1) / (EPOCHS - 1)
            fixed = t1 - shuf_ep
            budget_ep = (t_sk / 3 - fixed) / EPOCHS
            label = f"{'ASGD' if avg else 'SGD'}({loss})"
            print(f"{name:10s} {label:12s} {t_sk * 1e3:8.1f} {t15 * 1e3:8.1f} {t_sk / t15:6.2f} {fixed * 1e3:7.1f} "
                  f"{shuf_ep * 1e3:8.2f} {inord_ep * 1e3:8.2f} {budget_ep * 1e3:9.2f} "
                  f"{t_sk / (EPOCHS * inord_ep):6.2f}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
