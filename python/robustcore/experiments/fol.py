"""Reproduce the FOL paper (focused-online-learning-max-loss): section 3.1 and the experiments.

``python -m robustcore fol [--out DIR] [--parts gap realisable adaboost rare] [--full]``

1. ``gap`` — section 3.1's distribution (z1 = (a, 1), z2 = (a, -2a), rare fraction eps, label y uniform,
   x = y z): iterations until the error on D is below eps (i.e. both z1 and z2 classified correctly)
   for online SGD with the hinge loss (one fresh example from D per step, step 1, no intercept) and for
   FOL with the Perceptron on a training sample of m = ceil(5 / eps) examples (at least one rare), over
   a grid of a and eps; medians over seeds; log-log plot with fitted slopes. Lemma 2: SGD needs
   Omega(1/(a eps)); Lemma 3: FOL needs O~(1/eps + 1/a).
2. ``realisable`` — the paper's construction on real data: fit a linear model on ijcnn1 (or mnist38),
   keep the training and test examples it classifies correctly (a realisable task), then train FOL
   (one SGD step on the log loss per FOL step) and plain SGD (the same learner with uniform sampling:
   FOL with gamma = 1 never focuses) and report train/test error per epoch (Fig. 2) and epochs to zero
   training error. The Perceptron w player is reported too.
3. ``adaboost`` — FOL vs AdaBoost over the same SGD learner (one epoch per round = 2 epochs), training
   error against epochs (Fig. 3).
4. ``rare`` — typical vs rare (section 3.2): MNIST digits, positives = digit 3 plus a small rare
   sub-population of digit 5 (1% of the positives), negatives = digit 8, made realisable like part 2
   (train and test rows a first linear model gets right); error on the rare test sub-population
   (test 5s) and on the typical part for FOL vs SGD.

Departures: the paper's experiments use a LeNet CNN on a private face-detection set; here the w player
is linear and the data are ijcnn1 / MNIST (the paper's data are not public). Section 3.1 runs on the
exact distribution, as in the lemmas.
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path

import numpy as np

from ..plotting import pyplot

COMMAND = "fol"
HELP = "reproduce the FOL paper: section 3.1 gap, realisable real data (Fig. 2), FOL vs AdaBoost (Fig. 3), typical vs rare"
RUNTIME = "with the defaults about 40 s on 2 cores (the real-data parts need the data folder); --full takes several minutes"


def add_arguments(p):
    p.add_argument("--out", default="results/fol")
    p.add_argument("--parts", nargs="+", default=["gap", "realisable", "adaboost", "rare"],
                   choices=["gap", "realisable", "adaboost", "rare"],
                   help="section 3.1 gap study, realisable real data (Fig. 2), FOL vs AdaBoost (Fig. 3), typical vs rare")
    p.add_argument("--dataset", default="ijcnn1", choices=["ijcnn1", "mnist38"],
                   help="the real data set of the realisable / AdaBoost / rare parts")
    p.add_argument("--epochs", type=int, default=None, help="epochs for the real-data parts (default 60, --full 200)")
    p.add_argument("--seeds", type=int, default=None, help="seeds for the gap study (default 10, --full 30)")
    p.add_argument("--full", action="store_true", help="larger grid, more seeds and epochs")
    p.add_argument("--data-home", default=None)
    p.add_argument("--verbose", type=int, default=1)


# ----------------------------------------------------------------------------- 1. section 3.1
def _sgd_iterations(a, eps, seed, cap):
    """Online hinge-loss SGD on D (step 1, w0 = 0): first t with w.z1 > 0 and w.z2 > 0 (error < eps)."""
    rng = np.random.default_rng(seed)
    w1 = w2 = 0.0
    chunk = 4096
    t = 0
    while t < cap:
        rare = rng.random(chunk) < eps
        for r in rare:
            t += 1
            z1, z2 = (a, -2 * a) if r else (a, 1.0)
            if w1 * z1 + w2 * z2 < 1.0:  # y x = z, hinge subgradient step w += y x
                w1 += z1
                w2 += z2
            if w1 * a + w2 > 0 and w1 * a - 2 * a * w2 > 0:
                return t
            if t >= cap:
                break
    return cap


def _fol_iterations(a, eps, seed, cap):
    """FOL + Perceptron on m = ceil(5/eps) examples from D (at least one rare): first step whose iterate
    classifies the training set, hence z1 and z2, correctly (error on D below eps). The run is
    deterministic in the seed, so it is repeated with doubling T until that step is inside it."""
    from robustcore.fol import focused_online_learning

    rng = np.random.default_rng(seed)
    m = max(50, int(math.ceil(5.0 / eps)))
    rare = rng.random(m) < eps
    if not rare.any():
        rare[rng.integers(m)] = True
    y = rng.choice([-1.0, 1.0], size=m)
    Z = np.where(rare[:, None], [a, -2 * a], [a, 1.0])
    X = np.ascontiguousarray(y[:, None] * Z)
    T = 1024
    while True:  # the engine's Perceptron, gamma = 1/2, eta = 1/(2m), 0/1 focus; history after every step
        T = min(T, cap)
        res = focused_online_learning("perceptron", X, y, n_steps=T, steps_per_epoch=1, k=0, seed=int(seed),
                                      fit_intercept=False)
        hit = np.flatnonzero(res["history"]["train_error"] == 0.0)
        if hit.size:
            return int(hit[0]) + 1
        if T >= cap:
            return cap
        T *= 4


def run_gap(args, out, log):
    full = args.full
    a_grid = [0.2, 0.1, 0.05, 0.025, 0.0125] + ([0.00625] if full else [])
    e_grid = [0.1, 0.05, 0.02, 0.01, 0.005] + ([0.0025] if full else [])
    seeds = args.seeds or (30 if full else 10)
    rows = []
    t0 = time.time()
    for a in a_grid:
        for eps in e_grid:
            cap_sgd = int(200 / (a * eps))
            cap_fol = int(200 * (1 / eps + 1 / a) * 20)
            sgd = [_sgd_iterations(a, eps, s, cap_sgd) for s in range(seeds)]
            fol = [_fol_iterations(a, eps, s, cap_fol) for s in range(seeds)]
            rows.append({"a": a, "eps": eps, "sgd_iters": float(np.median(sgd)), "fol_iters": float(np.median(fol)),
                         "sgd_capped": int(sum(v >= cap_sgd for v in sgd)), "fol_capped": int(sum(v >= cap_fol for v in fol))})
            log(f"gap a={a:g} eps={eps:g}: SGD {rows[-1]['sgd_iters']:.0f}  FOL {rows[-1]['fol_iters']:.0f}")
    inv_ae = np.array([1 / (r["a"] * r["eps"]) for r in rows])
    inv_sum = np.array([1 / r["eps"] + 1 / r["a"] for r in rows])
    sgd = np.array([r["sgd_iters"] for r in rows])
    fol = np.array([r["fol_iters"] for r in rows])
    fits = {
        "sgd_vs_1/(a eps)": float(np.polyfit(np.log(inv_ae), np.log(sgd), 1)[0]),
        "fol_vs_1/(a eps)": float(np.polyfit(np.log(inv_ae), np.log(fol), 1)[0]),
        "fol_vs_1/eps+1/a": float(np.polyfit(np.log(inv_sum), np.log(fol), 1)[0]),
        "sgd_vs_1/eps+1/a": float(np.polyfit(np.log(inv_sum), np.log(sgd), 1)[0]),
    }
    _write_csv(out / "gap.csv", rows)
    md = ["| a | eps | SGD (hinge) iterations | FOL (Perceptron) iterations | 1/(a eps) | 1/eps + 1/a |",
          "|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['a']:g} | {r['eps']:g} | {r['sgd_iters']:.0f} | {r['fol_iters']:.0f} | "
                  f"{1 / (r['a'] * r['eps']):.0f} | {1 / r['eps'] + 1 / r['a']:.0f} |")
    md.append("")
    md.append("Fitted log-log slopes: " + ", ".join(f"{k} = {v:.2f}" for k, v in fits.items()))
    md.append(f"(medians over {seeds} seeds; {time.time() - t0:.0f} s)")
    (out / "gap.md").write_text("\n".join(md) + "\n")
    plt = pyplot(headless=True)

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].loglog(inv_ae, sgd, "o", label=f"SGD hinge (slope {fits['sgd_vs_1/(a eps)']:.2f})")
    ax[0].loglog(inv_ae, fol, "s", label=f"FOL Perceptron (slope {fits['fol_vs_1/(a eps)']:.2f})")
    ax[0].set_xlabel("1 / (a eps)")
    ax[0].set_ylabel("iterations until error < eps")
    ax[0].legend()
    ax[1].loglog(inv_sum, fol, "s", color="C1", label=f"FOL (slope {fits['fol_vs_1/eps+1/a']:.2f})")
    ax[1].set_xlabel("1/eps + 1/a")
    ax[1].legend()
    fig.suptitle("Section 3.1: SGD ~ 1/(a eps), FOL ~ 1/eps + 1/a")
    fig.tight_layout()
    fig.savefig(out / "gap.png", dpi=120)
    plt.close(fig)
    return {"rows": rows, "slopes": fits}


# ----------------------------------------------------------------------------- 2-3. real data
def _realisable(name, data_home):
    import robustcore as rc

    X, y, Xt, yt = rc.datasets.load(name, data_home=data_home)
    base = rc.LinearClassifier(loss="hinge", alpha=1e-6, max_iter=15, random_state=0).fit(X, y)
    keep = base.predict(X) == y
    keep_t = base.predict(Xt) == yt
    return X[keep], y[keep], Xt[keep_t], yt[keep_t], float(keep.mean()), float(keep_t.mean())


def _epochs_to_zero(err):
    z = np.flatnonzero(np.asarray(err) == 0.0)
    return int(z[0]) + 1 if z.size else None


def run_realisable(args, out, log, with_adaboost):
    import robustcore as rc

    epochs = args.epochs or (200 if args.full else 60)
    X, y, Xt, yt, frac, frac_t = _realisable(args.dataset, args.data_home)
    log(f"{args.dataset}: realisable subset keeps {frac:.1%} of train, {frac_t:.1%} of test ({X.shape[0]} rows)")
    common = dict(learner=rc.fol.OnlineSGD(loss="log", alpha=0.0, learning_rate="constant", eta0=0.5), max_iter=epochs,
                  batch_size=1, output="last", random_state=0)
    runs = {
        "FOL (SGD log)": rc.FocusedOnlineClassifier(**common),
        "SGD (log, uniform)": rc.FocusedOnlineClassifier(gamma=1.0, **common),
        "FOL (Perceptron)": rc.FocusedOnlineClassifier(learner="perceptron", max_iter=epochs, output="last", random_state=0),
        "Perceptron (uniform)": rc.FocusedOnlineClassifier(learner="perceptron", gamma=1.0, max_iter=epochs, output="last",
                                                           random_state=0),
    }
    res = {}
    for name, est in runs.items():
        t0 = time.time()
        est.fit(X, y, eval_set=(Xt, yt))
        h = est.history_
        res[name] = {"train_error": h["train_error"].tolist(), "test_error": h["test_error"].tolist(),
                     "epochs_to_zero_train": _epochs_to_zero(h["train_error"]), "seconds": time.time() - t0}
        log(f"{name}: final train {h['train_error'][-1]:.4%} test {h['test_error'][-1]:.4%}, "
            f"zero train error at epoch {res[name]['epochs_to_zero_train']}")
    md = [f"Realisable {args.dataset} ({X.shape[0]} train / {Xt.shape[0]} test rows, {epochs} epochs)", "",
          "| method | final train error | min train error | final test error | epochs to zero train error |",
          "|---|---|---|---|---|"]
    for name, r in res.items():
        md.append(f"| {name} | {r['train_error'][-1]:.4%} | {min(r['train_error']):.4%} | {r['test_error'][-1]:.4%} | "
                  f"{r['epochs_to_zero_train'] or 'not reached'} |")
    report = {"realisable": res}
    plt = pyplot(headless=True)

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for name, r in res.items():
        ep = np.arange(1, len(r["train_error"]) + 1)
        ax[0].semilogy(ep, np.maximum(r["train_error"], 1e-6), label=name)
        ax[1].semilogy(ep, np.maximum(r["test_error"], 1e-6), label=name)
    ax[0].set_title("train error (floor 1e-6 = zero)")
    ax[1].set_title("test error")
    for a_ in ax:
        a_.set_xlabel("epoch")
        a_.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "realisable.png", dpi=120)
    plt.close(fig)

    if with_adaboost:
        rounds = max(1, epochs // 2)
        ada = rc.AdaBoostOnlineClassifier(learner=rc.fol.OnlineSGD(loss="log", alpha=0.0, eta0=0.5), max_iter=rounds,
                                          random_state=0).fit(X, y, eval_set=(Xt, yt))
        fol = res["FOL (SGD log)"]
        # FOL majority of the kept iterates, for the same epochs
        fol_maj = rc.FocusedOnlineClassifier(**{**common, "output": "majority"}).fit(X, y)
        ah = ada.history_
        md += ["", f"FOL vs AdaBoost (each AdaBoost round = 1 training epoch + 1 evaluation pass = 2 epochs; "
               f"{len(ada.alphas_)} rounds run)", "",
               "| epochs | AdaBoost train error | FOL (last iterate) train error |", "|---|---|---|"]
        for r_, e in enumerate(ah["epochs"]):
            e = int(e)
            fe = fol["train_error"][e - 1] if e - 1 < len(fol["train_error"]) else float("nan")
            md.append(f"| {e} | {ah['train_error'][r_]:.4%} | {fe:.4%} |")
        md.append("")
        md.append(f"FOL majority vote of {fol_maj.snapshots_.shape[1]} kept iterates after {epochs} epochs: train error "
                  f"{1 - fol_maj.score(X, y):.4%}; AdaBoost final test error "
                  f"{ah['test_error'][-1] if 'test_error' in ah else float('nan'):.4%}")
        report["adaboost"] = {"epochs": ah["epochs"].tolist(), "train_error": ah["train_error"].tolist(),
                              "fol_majority_train_error": 1 - fol_maj.score(X, y)}
        fig, ax = plt.subplots(figsize=(5, 4))
        ax.semilogy(ah["epochs"], np.maximum(ah["train_error"], 1e-6), "o-", label="AdaBoost (SGD log)")
        ep = np.arange(1, len(fol["train_error"]) + 1)
        ax.semilogy(ep, np.maximum(fol["train_error"], 1e-6), label="FOL (SGD log, last iterate)")
        ax.set_xlabel("epochs")
        ax.set_ylabel("train error (floor 1e-6 = zero)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "adaboost.png", dpi=120)
        plt.close(fig)
    (out / "realisable.md").write_text("\n".join(md) + "\n")
    return report


# ----------------------------------------------------------------------------- 4. typical vs rare
def run_rare(args, out, log):
    import scipy.sparse as sp

    import robustcore as rc
    from robustcore.datasets import load_mnist

    epochs = args.epochs or (200 if args.full else 60)
    Xtr, ltr, Xte, lte = load_mnist(args.data_home)
    rng = np.random.default_rng(0)

    def build(X, lab, rare_frac, subsample_rare):
        typ = np.flatnonzero(lab == 3)
        neg = np.flatnonzero(lab == 8)
        rare = np.flatnonzero(lab == 5)
        if subsample_rare:
            rare = rng.choice(rare, max(1, int(rare_frac * typ.size)), replace=False)
        idx = np.concatenate([typ, rare, neg])
        y = np.where(lab[idx] == 8, -1.0, 1.0)
        part = np.concatenate([np.zeros(typ.size), np.ones(rare.size), np.zeros(neg.size)]).astype(bool)
        return sp.csr_matrix(X[idx].astype(np.float64) / 255.0), y, part

    X, y, part = build(Xtr, ltr, 0.01, True)
    Xt, yt, part_t = build(Xte, lte, 0.0, False)
    # Realisable, as section 3.2 assumes: keep what a first linear model (fit on train) gets right.
    base = rc.LinearClassifier(loss="hinge", alpha=1e-6, max_iter=15, random_state=0).fit(X, y)
    keep, keep_t = base.predict(X) == y, base.predict(Xt) == yt
    X, y, part = X[keep], y[keep], part[keep]
    Xt, yt, part_t = Xt[keep_t], yt[keep_t], part_t[keep_t]
    log(f"rare: {int(part.sum())} rare training 5s among {X.shape[0]} rows; {int(part_t.sum())} rare test 5s")
    common = dict(learner=rc.fol.OnlineSGD(loss="log", alpha=0.0, eta0=0.5), max_iter=epochs, output="last",
                  random_state=0)
    rows = []
    for name, est in {"FOL (SGD log)": rc.FocusedOnlineClassifier(**common),
                      "SGD (log, uniform)": rc.FocusedOnlineClassifier(gamma=1.0, **common),
                      "FOL (Perceptron)": rc.FocusedOnlineClassifier(learner="perceptron", max_iter=epochs, output="last",
                                                                     random_state=0),
                      "Perceptron (uniform)": rc.FocusedOnlineClassifier(learner="perceptron", gamma=1.0, max_iter=epochs,
                                                                         output="last", random_state=0)}.items():
        est.fit(X, y)
        pr_tr = est.predict(X)
        pr = est.predict(Xt)
        rows.append({"method": name, "train_error_rare": float(np.mean(pr_tr[part] != y[part])),
                     "train_error": float(np.mean(pr_tr != y)),
                     "test_error_rare": float(np.mean(pr[part_t] != yt[part_t])),
                     "test_error_typical": float(np.mean(pr[~part_t] != yt[~part_t]))})
        log(f"rare {name}: rare test error {rows[-1]['test_error_rare']:.2%}, typical {rows[-1]['test_error_typical']:.2%}")
    _write_csv(out / "rare.csv", rows)
    md = [f"Typical vs rare (MNIST: +1 = digit 3 plus {int(part.sum())} rare 5s, -1 = digit 8, kept where a first "
          f"linear model is right: {X.shape[0]} train / {Xt.shape[0]} test rows, {int(part_t.sum())} rare test 5s; "
          f"{epochs} epochs)", "",
          "| method | train error | train error on rare 5s | test error, rare (all test 5s) | test error, typical (3 vs 8) |",
          "|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['method']} | {r['train_error']:.3%} | {r['train_error_rare']:.2%} | {r['test_error_rare']:.2%} | "
                  f"{r['test_error_typical']:.2%} |")
    (out / "rare.md").write_text("\n".join(md) + "\n")
    return rows


# ----------------------------------------------------------------------------- main
def _write_csv(path, rows):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def log(msg):
        if args.verbose:
            print(msg, flush=True)

    report = {}
    if "gap" in args.parts:
        report["gap"] = run_gap(args, out, log)
    if "realisable" in args.parts or "adaboost" in args.parts:
        report.update(run_realisable(args, out, log, "adaboost" in args.parts))
    if "rare" in args.parts:
        report["rare"] = run_rare(args, out, log)
    (out / "fol.json").write_text(json.dumps(report, indent=1, default=float))
    for name in ("gap.md", "realisable.md", "rare.md"):
        if (out / name).exists():
            print((out / name).read_text())
    return 0
