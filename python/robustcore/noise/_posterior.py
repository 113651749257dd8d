"""The shared out-of-fold pass of ``NoisyLabelClassifierCV`` and what is read from it (issue 32): the posterior
model (a log-loss ``LinearClassifier`` alpha path chosen by out-of-fold likelihood, a boosted or kernel
posterior kept where its likelihood is higher), T / the importance weights / the label issues from its
probabilities once (``noise_from_posterior``), and the candidates' per-fold flags and weights by approximate
leave-one-out of its fold models (``honest_folds``, ``loo_proba``)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ._base import map_problems
from ._label_noise import _asymptote_weighting, corrected_weights, kIllConditionedT, label_issues_from_proba
from ._transition import _transition_from_joint, confident_joint

#: the posterior's regularisation path (alpha of a log-loss LinearClassifier); the default grid's alphas are
#: among them, so the plain remedy's candidates are this pass's fits
POSTERIOR_ALPHAS = (1e-4, 1e-3, 1e-2)
#: the "auto" posterior also tries gradient boosting from this many rows, with at most kBoostedMaxFeatures
#: features (docs/user_guide/noisy_labels.md, "The posterior model matters": at <= 4000 rows the boosted posterior never had the higher
#: likelihood on noise-bench's sets, on ijcnn1's 50 000 it did; in between unmeasured, and a boosted probe on
#: a7a's 16 100 rows doubled the fit for nothing)
kBoostedMinRows, kBoostedMaxFeatures = 20_000, 200
#: ``detector="kernel"``: the kernel posterior's Nystroem landmarks and its log-loss alpha (``kernel_posterior``)
kKernelComponents, kKernelAlpha = 500, 1e-4
#: the candidates' flags and weights per fold from leave-one-out probabilities (``loo_proba``) up to this many
#: features: a (d + 1) x (d + 1) Hessian and ~4 n d^2 flops per fold, against the fits' ~n d each: +70% of the
#: whole fit at mnist38's 784 dense-ish features (docs/benchmarks/noise.md), about twice that at 1000
kLooMaxFeatures = 1000
#: sparse X at least this dense is densified by blocks for the leave-one-out products: a sparse X^T X costs
#: ~density^2 of the dense product's operations at ~40x the time per operation on this machine, so BLAS wins
#: from ~0.15 (mnist38, 19% dense: 5 folds 1.6 -> 1.1 s; a7a, 11%: 44 ms sparse, 65 ms dense)
kLooDenseFrom = 0.15


def _rows(X, idx):
    return X[idx]


def _log_likelihood(P, labels, sample_weight):
    """Mean (weighted) log-likelihood of the labels under the rows of P."""
    p = np.clip(P[np.arange(labels.size), labels], 1e-15, 1.0)
    return float(np.average(np.log(p), weights=sample_weight))


def posterior_estimator(base, seed):
    """The linear posterior model of the shared pass: for a robustcore LinearClassifier its clone on the
    logistic loss (``noise_detector``: no noise correction, Platt scaling, class weights or history), so
    the plain remedy's fits on the same folds are this pass's own; otherwise a seeded log-loss SAGA
    LinearClassifier. Its ``alpha`` is then set along ``POSTERIOR_ALPHAS``, never the user's."""
    from .linear_model import LinearClassifier
    from .linear_model._solver import noise_detector

    if isinstance(base, LinearClassifier):
        return noise_detector(base)
    return LinearClassifier(loss="log_loss", solver="saga", random_state=seed)


def _linear_path(X, y, sw, tr, va, model, alphas):
    """(validation-fold probabilities, predictions, the fitted model) of ``model`` at every alpha of the path."""
    out = []
    for alpha in alphas:
        fitted = clone(model).set_params(alpha=alpha).fit(_rows(X, tr), y[tr],
                                                         sample_weight=None if sw is None else sw[tr])
        Xva = _rows(X, va)
        out.append((fitted.predict_proba(Xva), fitted.predict(Xva), fitted))
    return out


def loo_proba(model, X, labels, sw):
    """Approximate leave-one-out probabilities of a fitted log-loss ``LinearClassifier`` on its own training
    rows (X, class indices ``labels``, sample weights sw): each row's probabilities as if the model had been
    fitted without that row. Binary: one logistic problem; more classes: its one-vs-rest problems, each left
    out on its own, the sigmoids normalised as ``predict_proba`` does. None when it does not apply (another
    loss, e.g. softmax; more than ``kLooMaxFeatures`` features; a Hessian that is not positive definite)."""
    from scipy.special import expit

    from .losses import canonical_loss

    if canonical_loss(model.get_params()["loss"]) != "log_loss" or X.shape[1] > kLooMaxFeatures:
        return None
    c = np.full(X.shape[0], 1.0 / X.shape[0]) if sw is None else sw / sw.sum()
    W, B = np.atleast_2d(model.coef_), np.ravel(model.intercept_)
    targets = [labels] if W.shape[0] == 1 else [(labels == k).astype(np.float64) for k in range(W.shape[0])]
    z = [_loo_logit(X, w, b, t, c, model.alpha) for w, b, t in zip(W, B, targets)]
    if any(zk is None for zk in z):
        return None
    if len(z) == 1:
        p1 = expit(z[0])
        return np.column_stack([1.0 - p1, p1])
    P = expit(np.column_stack(z))
    return P / np.maximum(P.sum(axis=1, keepdims=True), 1e-300)


def _loo_logit(X, w, b, t, c, alpha):
    """Leave-one-out logits of one logistic problem (targets t in {0, 1}, row weights c summing to 1) fitted
    at (w, b): one Newton step from the optimum per row, Sherman-Morrison on the Hessian H of
    ``sum_i c_i log(1 + exp(-y_i (w.x_i + b))) + (alpha/2) ||w||^2``; H and the leverages [x_i, 1] H^-1 [x_i, 1]
    by blocks of rows (BLAS on dense blocks; sparse products below ``kLooDenseFrom`` density). None when H is
    not positive definite."""
    from scipy.special import expit

    n, d = X.shape
    z = np.asarray(X @ w).ravel() + b
    p = expit(z)
    cs = c * p * (1.0 - p)
    sparse = sp.issparse(X) and X.nnz < kLooDenseFrom * n * d
    block = max(256, 4_000_000 // max(d, 1))

    def blocks():
        for i0 in range(0, n, block):
            Xb = X[i0:i0 + block]
            yield i0, (Xb if sparse or not sp.issparse(Xb) else Xb.toarray())

    H = np.zeros((d + 1, d + 1))
    for i0, Xb in blocks():
        cb = cs[i0:i0 + block]
        H[:d, :d] += (Xb.T @ Xb.multiply(cb[:, None]).tocsr()).toarray() if sparse else Xb.T @ (Xb * cb[:, None])
        H[:d, d] += np.asarray(Xb.T @ cb).ravel()
    H[d, :d] = H[:d, d]
    H[d, d] = cs.sum()
    H[np.arange(d), np.arange(d)] += alpha
    try:
        np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return None
    Hinv = np.linalg.inv(H)
    A, a, a0 = Hinv[:d, :d], Hinv[:d, d], Hinv[d, d]
    q = np.empty(n)
    for i0, Xb in blocks():
        XA = np.asarray(Xb @ A)
        quad = np.asarray(Xb.multiply(XA).sum(axis=1)).ravel() if sparse else np.einsum("ij,ij->i", XA, Xb)
        q[i0:i0 + block] = quad + 2.0 * np.asarray(Xb @ a).ravel() + a0
    return z + c * (p - t) * q / np.maximum(1.0 - cs * q, 1e-12)


def kernel_posterior(X, seed):
    """The kernel posterior of ``detector="kernel"``: ``KernelClassifier`` with ``kKernelComponents`` Nystroem
    landmarks of an rbf kernel of scikit-learn's "scale" width, gamma = 1 / (n_features * X.var()), and a
    log-loss SAGA ``LinearClassifier`` at alpha ``kKernelAlpha`` on the features."""
    from .kernel_model import KernelClassifier
    from .linear_model import LinearClassifier

    var = float(X.multiply(X).mean() - X.mean() ** 2) if sp.issparse(X) else float(np.var(X))
    return KernelClassifier(gamma=1.0 / (X.shape[1] * var) if var > 0 else 1.0, n_components=kKernelComponents,
                            random_state=seed, estimator=LinearClassifier(loss="log_loss", solver="saga",
                                                                          alpha=kKernelAlpha, random_state=seed))


def _nonlinear(kind, X, y, sw, tr, va, seed):
    """Validation-fold probabilities of the non-linear posterior ``kind`` ("boosted" or "kernel") fitted on tr."""
    w = None if sw is None else sw[tr]
    if kind == "kernel":
        return kernel_posterior(X, seed).fit(_rows(X, tr), y[tr], sample_weight=w).predict_proba(_rows(X, va))
    from sklearn.ensemble import HistGradientBoostingClassifier

    Xd = X.toarray() if sp.issparse(X) else X
    model = HistGradientBoostingClassifier(max_iter=50, early_stopping=False, random_state=seed)
    return model.fit(Xd[tr], y[tr], sample_weight=w).predict_proba(Xd[va])


def _nonlinear_name(kind, X, seed):
    if kind == "boosted":
        return "HistGradientBoostingClassifier(max_iter=50)"
    k = kernel_posterior(X, seed)
    return (f"KernelClassifier(nystroem {k.n_components}, gamma={k.gamma:.3g}, log_loss, "
            f"alpha={k.estimator.alpha:g})")


def shared_posterior(X, y, labels, sw, folds, detector, model, seed, n_jobs):
    """The shared out-of-fold pass: (P, description, {alpha: out-of-fold predictions} of the linear path, the
    fold models of P when it is the linear posterior's, else None). ``detector`` "auto" / "linear" / "boosted"
    or a classifier with predict_proba (its clones fitted out of fold, no choice made); ``model`` the linear
    posterior (``posterior_estimator``)."""
    n, K = labels.size, int(labels.max()) + 1
    if not isinstance(detector, str):
        P = np.zeros((n, K))

        def one(f):
            tr, va = folds[f]
            return clone(detector).fit(_rows(X, tr), y[tr]).predict_proba(_rows(X, va))

        for (_, va), Pf in zip(folds, map_problems(one, len(folds), n_jobs)):
            P[va] = _check_fold(Pf, va, K)
        return P, {"model": type(detector).__name__, "log_likelihood": _log_likelihood(P, labels, sw)}, {}, None
    desc: dict = {}
    predictions: dict = {}
    lin_fold0 = fold_models = None
    if detector in ("auto", "linear", "kernel"):
        paths = map_problems(lambda f: _linear_path(X, y, sw, *folds[f], model, POSTERIOR_ALPHAS), len(folds), n_jobs)
        Ps = np.zeros((len(POSTERIOR_ALPHAS), n, K))
        preds = [np.empty(n, dtype=y.dtype) for _ in POSTERIOR_ALPHAS]
        for (_, va), path in zip(folds, paths):
            for j, (Pf, pred, _) in enumerate(path):
                Ps[j][va] = _check_fold(Pf, va, K)
                preds[j][va] = pred
        ll = [_log_likelihood(Pj, labels, sw) for Pj in Ps]
        best = int(np.argmax(ll))
        P = Ps[best]
        fold_models = [path[best][2] for path in paths]
        predictions = dict(zip(POSTERIOR_ALPHAS, preds))
        va0 = folds[0][1]
        lin_fold0 = _log_likelihood(P[va0], labels[va0], None if sw is None else sw[va0])
        desc = {"model": f"{type(model).__name__}(loss={model.get_params()['loss']!r})", "alpha": POSTERIOR_ALPHAS[best],
                "log_likelihood": ll[best], "path": dict(zip(POSTERIOR_ALPHAS, ll))}
    kind = detector if detector in ("boosted", "kernel") else (
        "boosted" if detector == "auto" and n >= kBoostedMinRows and X.shape[1] <= kBoostedMaxFeatures else None)
    if detector == "auto" and kind is None:
        desc["boosted"] = f"not tried (fewer than {kBoostedMinRows} rows or more than {kBoostedMaxFeatures} features)"
    if kind is not None:
        # one fold first: the other folds only when it beats the linear posterior there ("boosted": no linear)
        tr0, va0 = folds[0]
        Pb = np.zeros((n, K))
        Pb[va0] = _check_fold(_nonlinear(kind, X, y, sw, tr0, va0, seed), va0, K)
        llb0 = _log_likelihood(Pb[va0], labels[va0], None if sw is None else sw[va0])
        if lin_fold0 is not None and llb0 <= lin_fold0:
            desc[kind] = f"fold 0 log-likelihood {llb0:.4f} against the linear {lin_fold0:.4f}: not kept"
        else:
            rest = map_problems(lambda f: _nonlinear(kind, X, y, sw, *folds[f + 1], seed), len(folds) - 1, n_jobs)
            for (_, va), Pf in zip(folds[1:], rest):
                Pb[va] = _check_fold(Pf, va, K)
            llb = _log_likelihood(Pb, labels, sw)
            if lin_fold0 is None or llb > desc["log_likelihood"]:
                desc = {"model": _nonlinear_name(kind, X, seed), "log_likelihood": llb,
                        "linear": {k: v for k, v in desc.items() if k != "model"} or None}
                P, fold_models = Pb, None
            else:
                desc[kind] = f"out-of-fold log-likelihood {llb:.4f}, lower: not kept"
    return P, desc, predictions, fold_models


def _check_fold(Pf, va, K):
    Pf = np.asarray(Pf, dtype=np.float64)
    if Pf.shape != (va.size, K) or not np.all(np.isfinite(Pf)):
        raise ValueError("the out-of-fold probabilities are not finite, or a training fold missed a class")
    return Pf


def noise_from_posterior(P, labels):
    """(T, importance weights, flagged rows most suspicious first, every row's margin, weigh) from the shared
    P: T and the weights by one estimate (``_label_noise.noise_correction``'s estimators, without its warning),
    the label issues counted with that T; weigh(P', labels') the weights of other rows' posteriors by the
    same estimate (the per-fold candidates')."""
    if P.shape[1] == 2:
        T, weigh = _asymptote_weighting(P, labels)
    else:
        T = _transition_from_joint(confident_joint(labels, P)[0])
        # an ill-conditioned T is not applied (and may be singular): no weights to compute
        weigh = ((lambda Q, lab: np.ones(lab.size)) if np.linalg.cond(T) > kIllConditionedT else
                 (lambda Q, lab: corrected_weights(Q, lab, T)))
    flagged, scores, _ = label_issues_from_proba(P, labels, transition_matrix=T)
    return T, weigh(P, labels), flagged, scores, weigh


def flag_mask(flagged, n):
    """The boolean mask over n rows of the flagged row indices."""
    is_flagged = np.zeros(n, dtype=bool)
    is_flagged[flagged] = True
    return is_flagged


def _flags(P, labels, T):
    """(is_flagged, margin scores) of the rows of P: the label issues counted with T."""
    flagged, scores, _ = label_issues_from_proba(P, labels, transition_matrix=T)
    return flag_mask(flagged, labels.size), scores


def honest_folds(X, labels, sw, folds, fold_models, T, weigh):
    """Per fold, (is_flagged, scores, weights) of its training rows (arrays over all rows; the training rows
    filled) from the fold model's leave-one-out probabilities (``loo_proba``): the flags and weights of a
    candidate's training rows then come from models that never saw its validation fold's labels (nor the row's
    own). None when they do not apply (not the linear posterior, ``loo_proba`` declines, or a fold's weights
    are all zero): the shared pass's flags and weights serve every fold."""
    if fold_models is None:
        return None
    out = []
    for (tr, _), m in zip(folds, fold_models):
        Pf = loo_proba(m, _rows(X, tr), labels[tr], None if sw is None else sw[tr])
        if Pf is None:
            return None
        is_flagged, scores, weights = np.zeros(labels.size, bool), np.zeros(labels.size), np.ones(labels.size)
        is_flagged[tr], scores[tr] = _flags(Pf, labels[tr], T)
        weights[tr] = weigh(Pf, labels[tr])
        if not np.any(weights[tr] * (1.0 if sw is None else sw[tr]) > 0):  # nothing left to fit: the shared ones
            return None
        out.append((is_flagged, scores, weights))
    return out
