"""Reproduce the SGD-variants part of the sgd-variants-multilabel paper (Sections 4.3-4.5, Figs. 4.1-4.11).

``python -m robustcore variants [--dataset emotions] [--max-iter 50] [--alpha 1e-2] [--out DIR]`` (the defaults)

Two setups on a Mulan multi-label dataset (standard train/test split, features min-max scaled):

* Hamming loss: binary relevance, one L2-regularised logistic model per label;
* subset 0/1 loss: label powerset, one softmax model over the label combinations seen in training.

Every method runs with the same constant step size (as in the paper): eta = step / L (--step, default 1,
SAG's default), L the largest per-sample smoothness constant: 1/4 (max ||x||^2 + 1) + alpha for the
logistic loss, 1/2 (max ||x||^2 + 1) + alpha for softmax.
SGD is plain constant-step SGD with the same eta: robustcore's binary sgd solver (learning_rate="constant")
for the Hamming setup, the softmax model's sgd (model.hpp's SoftmaxModel) for the subset setup. Both setups run
all ten variants plus SGD.

Suboptimality: objective minus the optimum of scikit-learn's LogisticRegression (lbfgs, tol 1e-12,
C = 1/(n alpha), the same objective), summed over labels for the Hamming setup; plotted on a log
scale against effective passes (gradient evaluations / n). Writes curves.json, results.csv, table.md
and the PNG figures to --out.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ..plotting import pyplot

COMMAND = "variants"
HELP = "reproduce the SGD-variants paper: suboptimality vs effective passes, Hamming / subset 0/1 losses"
RUNTIME = ("with the defaults (emotions, 50 passes), about 35 s on 2 cores; "
           "quick version: --max-iter 10.")

#: name -> (solver, svrg_option)
VARIANTS = {
    "SVRG (a)": ("svrg", "last"),
    "SVRG (b)": ("svrg", "average"),
    "SVRG (c)": ("svrg", "random"),
    "SAGA": ("saga", "last"),
    "SAG": ("sag", "last"),
    "S2GD": ("s2gd", "last"),
    "Finito": ("finito", "last"),
    "VR-Lite": ("vrlite", "last"),
    "Batching SVRG": ("batching_svrg", "last"),
    "Mixed SVRG": ("mixed_svrg", "last"),
}
#: the pairwise figures of the paper (Figs. 4.1-4.11)
PAIRS = [
    ("fig4_1_svrg_sgd", ["SVRG (a)", "SVRG (b)", "SVRG (c)", "SGD"]),
    ("fig4_2_saga_sgd", ["SAGA", "SGD"]),
    ("fig4_3_saga_svrg", ["SAGA", "SVRG (a)", "SVRG (b)", "SVRG (c)"]),
    ("fig4_4_sag_sgd", ["SAG", "SGD"]),
    ("fig4_5_sag_saga", ["SAG", "SAGA"]),
    ("fig4_6_s2gd_sgd", ["S2GD", "SGD"]),
    ("fig4_7_s2gd_svrg", ["S2GD", "SVRG (a)", "SVRG (b)", "SVRG (c)"]),
    ("fig4_8_finito_sgd", ["Finito", "SGD"]),
    ("fig4_9_vrlite_sgd", ["VR-Lite", "SGD"]),
    ("fig4_10_batching_sgd", ["Batching SVRG", "SGD"]),
    ("fig4_11_mixed_sgd", ["Mixed SVRG", "SGD"]),
]


def add_arguments(p):
    p.add_argument("--dataset", default="emotions", choices=["emotions", "yeast", "scene"],
                   help="the multi-label data set (Mulan ARFF in the data folder)")
    p.add_argument("--max-iter", "--passes", dest="max_iter", type=int, default=50,
                   help="budget in effective passes (--passes: old name)")
    p.add_argument("--alpha", type=float, default=1e-2, help="L2 regularisation strength (lambda in the paper)")
    p.add_argument("--step", type=float, default=1.0, help="the common step size, in units of 1/L")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-home", default=None)
    p.add_argument("--out", default="results/variants")
    p.add_argument("--verbose", type=int, default=1)


def _logistic_optimum(X, y, alpha):
    from sklearn.linear_model import LogisticRegression

    n = X.shape[0]
    ref = LogisticRegression(C=1.0 / (n * alpha), tol=1e-12, max_iter=100000).fit(X, y)
    return ref


def _binary_objective(X, y, w, b, alpha):
    return float(np.mean(np.logaddexp(0, -y * (X @ w + b))) + 0.5 * alpha * w @ w)


def _softmax_objective(X, y, W, b, alpha):
    S = X @ W.T + b
    return float(np.mean(np.logaddexp.reduce(S, axis=1) - S[np.arange(len(y)), y]) + 0.5 * alpha * np.sum(W * W))


def _common_step(X, alpha, softmax, scale):
    L = (0.5 if softmax else 0.25) * (np.max(np.sum(X * X, axis=1)) + 1.0) + alpha
    return scale / L


def run_hamming(Xtr, Ytr, Xte, Yte, args, eta, bar=None):
    from sklearn.metrics import hamming_loss

    from .. import LinearClassifier
    from ..linear_model import SGD
    from .. import variance_reduced as vr

    L = Ytr.shape[1]
    fopt = []
    for k in range(L):
        yk = np.where(Ytr[:, k] == 1, 1.0, -1.0)
        ref = _logistic_optimum(Xtr, yk, args.alpha)
        fopt.append(_binary_objective(Xtr, yk, ref.coef_.ravel(), ref.intercept_[0], args.alpha))
    fopt = np.array(fopt)
    grid = np.arange(args.max_iter + 1, dtype=float)
    curves, final = {}, {}
    for name, (solver, option) in list(VARIANTS.items()) + [("SGD", ("sgd", None))]:
        sub = np.zeros_like(grid)
        pred = np.zeros_like(Yte)
        for k in range(L):
            yk = np.where(Ytr[:, k] == 1, 1.0, -1.0)
            if solver == "sgd":
                clf = LinearClassifier(loss="log_loss", solver=SGD(learning_rate="constant", eta0=eta, history=True),
                                       alpha=args.alpha, max_iter=args.max_iter, random_state=args.seed).fit(Xtr, yk)
                obj = np.concatenate([[_binary_objective(Xtr, yk, np.zeros(Xtr.shape[1]), 0.0, args.alpha)],
                                      clf.history_["objective"]])
                passes = np.arange(len(obj), dtype=float)
                w, b = clf.coef_.ravel(), clf.intercept_[0]
            else:
                w, b, info = vr.solve(Xtr, yk, loss="log_loss", solver=solver, alpha=args.alpha, max_iter=args.max_iter,
                                      eta0=eta, svrg_option=option, seed=args.seed + k)
                obj, passes = info.history["objective"], info.history["passes"]
            sub += np.interp(grid, passes, obj - fopt[k], right=obj[-1] - fopt[k])
            pred[:, k] = (Xte @ w + b > 0).astype(int)
        curves[name] = sub.tolist()
        final[name] = hamming_loss(Yte, pred)
        if bar is not None:
            bar.update(1)
    return grid, curves, final, float(fopt.sum())


def run_subset(Xtr, Ytr, Xte, Yte, args, eta, bar=None):
    from sklearn.metrics import accuracy_score

    from .. import variance_reduced as vr

    combos, yi = np.unique(Ytr, axis=0, return_inverse=True)
    yi = yi.ravel()
    K = len(combos)
    ref = _logistic_optimum(Xtr, yi, args.alpha)
    fopt = _softmax_objective(Xtr, yi, ref.coef_, ref.intercept_, args.alpha)
    grid = np.arange(args.max_iter + 1, dtype=float)
    curves, final = {}, {}
    M = vr.as_matrix(Xtr)
    for name, (solver, option) in list(VARIANTS.items()) + [("SGD", ("sgd", "last"))]:
        p = vr.make_params(solver, alpha=args.alpha, max_iter=args.max_iter, eta0=eta, svrg_option=option, seed=args.seed,
                           softmax=True)
        W, b, info = vr.fit_softmax(M, yi, K, p)
        obj, passes = info.history["objective"], info.history["passes"]
        curves[name] = np.interp(grid, passes, obj - fopt, right=obj[-1] - fopt).tolist()
        pred = combos[np.argmax(Xte @ W.T + b, axis=1)]
        final[name] = 1.0 - accuracy_score(Yte, pred)
        if bar is not None:
            bar.update(1)
    return grid, curves, final, fopt


def _plot(path, grid, curves, names, title):
    plt = pyplot(headless=True)

    fig, ax = plt.subplots(figsize=(6, 4))
    for name in names:
        if name in curves:
            ax.semilogy(grid, np.maximum(np.asarray(curves[name]), 1e-16), label=name)
    ax.set_xlabel("effective passes")
    ax.set_ylabel("objective - optimum")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(args):
    from .. import datasets

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    Xtr, Ytr, Xte, Yte = datasets.load_multilabel(args.dataset, data_home=args.data_home)
    bar = None
    if args.verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=2 * (len(VARIANTS) + 1), desc="variants")
    eta_h = _common_step(Xtr, args.alpha, False, args.step)
    eta_s = _common_step(Xtr, args.alpha, True, args.step)
    grid, ch, fh, opt_h = run_hamming(Xtr, Ytr, Xte, Yte, args, eta_h, bar)
    _, cs, fs, opt_s = run_subset(Xtr, Ytr, Xte, Yte, args, eta_s, bar)
    if bar is not None:
        bar.close()
    figs = []
    _plot(out / "hamming_all.png", grid, ch, list(ch), f"{args.dataset}: binary relevance (logistic), eta={eta_h:.3g}")
    _plot(out / "subset_all.png", grid, cs, list(cs), f"{args.dataset}: label powerset (softmax), eta={eta_s:.3g}")
    figs += ["hamming_all.png", "subset_all.png"]
    for fname, names in PAIRS:
        _plot(out / f"{fname}.png", grid, ch, names, f"{args.dataset} (Hamming setup): " + " vs ".join(names))
        _plot(out / f"subset_{fname}.png", grid, cs, names, f"{args.dataset} (subset setup): " + " vs ".join(names))
        figs += [f"{fname}.png", f"subset_{fname}.png"]
    rows = []
    for name in list(VARIANTS) + ["SGD"]:
        rows.append(dict(method=name, hamming_loss=fh.get(name), subset_01_loss=fs.get(name),
                         hamming_subopt_final=ch[name][-1] if name in ch else None,
                         subset_subopt_final=cs[name][-1] if name in cs else None))
    with open(out / "results.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    with open(out / "curves.json", "w") as f:
        json.dump(dict(dataset=args.dataset, alpha=args.alpha, max_iter=args.max_iter, eta_hamming=eta_h,
                       eta_subset=eta_s, optimum_hamming=opt_h, optimum_subset=opt_s, grid=grid.tolist(),
                       hamming=ch, subset=cs), f)

    def fmt(v, spec):
        return "n/a" if v is None else format(v, spec)

    lines = [f"dataset {args.dataset}, alpha {args.alpha}, {args.max_iter} effective passes, "
             f"common step eta = {eta_h:.4g} (Hamming) / {eta_s:.4g} (subset)", "",
             "| method | test Hamming loss (BR) | test subset 0/1 loss (LP) | final subopt. (BR, sum over labels) | final subopt. (LP) |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['method']} | {fmt(r['hamming_loss'], '.4f')} | {fmt(r['subset_01_loss'], '.4f')} | "
                     f"{fmt(r['hamming_subopt_final'], '.2e')} | {fmt(r['subset_subopt_final'], '.2e')} |")
    lines += ["", "figures: " + ", ".join(figs)]
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
