"""Focused Online Learning (FOL): minimise the maximal loss over the training set.

FOL (Shalev-Shwartz & Wexler, "Minimizing the Maximal Loss: How and Why", section 2.3) plays a
zero-sum game: an online learner (the w player) against an EXP3-style sampler (the p player) that
keeps one weight per training example in a sum tree (O(log m) sample and update, C++). Examples the
current model gets wrong are sampled more and more often, so the learner focuses on the hard ones.

* :class:`FocusedOnlineClassifier` — scikit-learn estimator. ``learner="perceptron"`` (the paper's
  Example 1) or ``"sgd"`` (one SGD step on any loss of :mod:`robustcore.losses` per FOL step), or any
  object following the Python learner protocol below. Output: majority vote or average of ``k``
  iterates taken at times drawn uniformly from [T] before the run, or the last iterate.
* Python learner protocol — any object with
      ``step(X_batch, y_batch)``       one online update (labels in {-1, +1})
      ``loss(X, y) -> ndarray``        per-example loss in [0, 1] of the current model (the p player's)
      ``decision_function(X)``         real scores; > 0 predicts +1, 0 or below -1
  can be the w player; the C++ tree samples and updates (:func:`focused_online_learning`).
  :class:`PartialFitLearner` adapts any scikit-learn ``partial_fit`` classifier.
* Robust variants (section 4): sub-sampling with repetitions (:func:`subsample_with_repetitions`,
  sized by :func:`theorem3_sample_size` / :func:`theorem3_failure_bound`), and slack variables
  (``slack_budget=K``: additive slack xi in [0, 1]^m with sum xi <= K, projected exactly by
  ``_core.project_capped_simplex``).
* :class:`AdaBoostOnlineClassifier` — the AdaBoost baseline of the paper's experiment 2 (each round one
  epoch of SGD/Perceptron sampling from p, weighted-majority output).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core
from ._validation import check_choice, check_eval_set, check_positive, seed_from_random_state, to_matrix
from .losses import loss_spec

# option strings -> engine enums, from the engine's own names
_LEARNERS = dict(_core.LearnerKind.__members__)
_SCHEDULES = dict(_core.Schedule.__members__)
_FOCUS = dict(_core.Focus.__members__)
_OUTPUTS = ("majority", "average", "last")


def _misclassified(y, s):
    """True where the score s misclassifies y in {-1, +1}. The tie rule (scikit-learn's, the engine's):
    s > 0 predicts +1, a zero score -1."""
    return (np.asarray(s) > 0) != (np.asarray(y) > 0)


def _assign(obj, **values):
    """Set engine parameter fields named like the estimator's parameters; a value of the wrong type is
    a TypeError naming the parameter (the engine checks the values themselves)."""
    for name, value in values.items():
        try:
            setattr(obj, name, value)
        except TypeError:
            raise TypeError(f"{name} must be a {type(getattr(obj, name)).__name__}, got {value!r}") from None
    return obj


def default_k(m):
    """Default number of kept iterates: 2 ceil(log m) + 1 (odd, so a majority vote has no ties;
    Theorem 1 asks for k = Omega(log(m / delta) / eps))."""
    return 2 * int(math.ceil(math.log(max(m, 2)))) + 1


# ----------------------------------------------------------------------------- robust variants
def theorem3_failure_bound(m, n_outliers, n_rare, n):
    """Theorem 3: P[the sub-sample contains an outlier or fewer than n_rare/2 rare examples]
    <= 0.01 + 0.99 k n / m + exp(-0.1 n m_2 / m)  (valid for m >= 10 k)."""
    if m < 10 * n_outliers:
        raise ValueError(f"Theorem 3 needs m >= 10 k (m={m}, k={n_outliers})")
    return 0.01 + 0.99 * n_outliers * n / m + math.exp(-0.1 * n * n_rare / m)


def theorem3_sample_size(m, n_outliers, n_rare=None):
    """Sub-sample size n for sub-sampling with repetitions (section 4.1).

    Returns ``(n, bound)``: the n in [1, m] minimising Theorem 3's failure bound when ``n_rare`` is
    given, else the paper's rule n = m / (100 k) (bound 0.03 when m_2 >= 1000 log(100) k)."""
    check_positive("m", m, integer=True)
    check_positive("n_outliers", n_outliers, integer=True)
    if n_rare is None:
        n = max(1, m // (100 * n_outliers))
        return n, None
    check_positive("n_rare", n_rare, integer=True)
    # The bound is convex in n: a*n + exp(-b n); minimiser n* = log(b / a) / b, clipped to [1, m].
    a = 0.99 * n_outliers / m
    b = 0.1 * n_rare / m
    n_star = math.log(b / a) / b if b > a else 1.0
    best = min((max(1, min(m, int(c))) for c in (math.floor(n_star), math.ceil(n_star), 1)),
               key=lambda n: theorem3_failure_bound(m, n_outliers, n_rare, n))
    return best, theorem3_failure_bound(m, n_outliers, n_rare, best)


def subsample_with_repetitions(X, y, n, random_state=None):
    """n examples drawn independently and uniformly (with repetitions) from (X, y): section 4.1."""
    check_positive("n", n, integer=True)
    rs = check_random_state(random_state)
    idx = rs.randint(0, X.shape[0], size=n)
    return X[idx], np.asarray(y)[idx], idx


# ----------------------------------------------------------------------------- Python protocol
class PartialFitLearner:
    """Adapts a scikit-learn classifier with ``partial_fit`` to the FOL learner protocol.

    ``step`` calls ``partial_fit(X, y, classes=[-1, 1])``; ``loss`` is the 0/1 loss of its predictions
    (1 for every positive example before the first step, when every score is 0)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self._fitted = False

    def step(self, X, y):
        self.estimator.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
        self._fitted = True

    def decision_function(self, X):
        if not self._fitted:
            return np.zeros(X.shape[0])
        return np.asarray(self.estimator.decision_function(X), dtype=float)

    def loss(self, X, y):
        return _misclassified(y, self.decision_function(X)).astype(float)


class NumpyPerceptron:
    """The Perceptron in plain NumPy, following the protocol (used to check the protocol against the
    C++ learner: same seed, same iterates)."""

    def __init__(self, n_features, fit_intercept=True):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.fit_intercept = fit_intercept

    def decision_function(self, X):
        return np.asarray(X @ self.w).ravel() + self.b

    def loss(self, X, y):
        return _misclassified(y, self.decision_function(X)).astype(float)

    def step(self, X, y):
        s = self.decision_function(X)
        for j in range(X.shape[0]):
            if y[j] * s[j] <= 0:  # the Perceptron's update rule (a zero margin updates too)
                row = X[j]
                if sp.issparse(row):
                    self.w[row.indices] += y[j] * row.data
                else:
                    self.w += y[j] * row
                if self.fit_intercept:
                    self.b += y[j]


def focused_online_learning(learner, X, y, *, n_steps, batch_size=1, eta=None, gamma=0.5, k=None,
                            seed=0, steps_per_epoch=None, eval_set=None, callback=None):
    """FOL with a Python learner (protocol in the module docstring) as the w player.

    The C++ sum tree samples and updates; the k snapshot times and the sample sequence are the ones
    ``_core.fol_fit`` uses for the same seed, so a NumPy Perceptron here and the C++ Perceptron give
    the same iterates. Returns a dict: ``snapshots`` (deep copies of the learner at the snapshot
    times), ``snapshot_times``, ``tree`` (the final sampler) and ``history`` (per epoch: max_loss =
    max_i learner.loss, train_error of the current learner, test_error with eval_set).
    """
    y = np.asarray(y, dtype=float)
    m = X.shape[0]
    if m < 1:
        raise ValueError("need at least one training example")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("labels must be -1 or +1")
    check_positive("n_steps", n_steps, integer=True)
    check_positive("batch_size", batch_size, integer=True)
    eta = 0.0 if eta is None else check_positive("eta", eta)
    k = default_k(m) if k is None else check_positive("k", k, integer=True, allow_zero=True)
    spe = steps_per_epoch or -(-m // batch_size)
    return _python_fol(learner, X, y, int(n_steps), int(spe), int(batch_size), float(eta), float(gamma), int(k),
                       int(seed), eval_set, callback)


def _python_fol(learner, X, y, n_steps, spe, batch_size, eta, gamma, k, seed, eval_set, callback):
    """The loop of :func:`focused_online_learning`, arguments already checked; eta = 0 is 1/(2m)."""
    m = X.shape[0]
    eta = eta if eta > 0 else 1.0 / (2.0 * m)
    tree = _core.SumTree(m, seed=seed)
    times = _core.fol_snapshot_times(n_steps, k, seed)
    snaps, nxt = [], 0
    idx = np.empty(batch_size, dtype=np.int64)
    p = np.empty(batch_size)
    hist = {"max_loss": [], "train_error": [], "test_error": []}
    for t in range(1, n_steps + 1):
        tree.sample_batch(gamma, idx, p)
        Xb, yb = X[idx], y[idx]
        losses = np.asarray(learner.loss(Xb, yb), dtype=float)
        if losses.shape != (batch_size,) or not np.all(np.isfinite(losses)) or losses.min() < 0 or losses.max() > 1:
            raise ValueError("learner.loss must return one finite value in [0, 1] per example")
        learner.step(Xb, yb)
        pos = losses > 0
        if pos.any():
            tree.update_batch_log(np.ascontiguousarray(idx[pos]), eta * losses[pos] / (batch_size * p[pos]))
        while nxt < len(times) and times[nxt] == t:
            snaps.append(copy.deepcopy(learner))
            nxt += 1
        if t % spe == 0 or t == n_steps:
            hist["max_loss"].append(float(np.max(learner.loss(X, y))))
            hist["train_error"].append(float(np.mean(_misclassified(y, learner.decision_function(X)))))
            if eval_set is not None:
                Xt, yt = eval_set
                hist["test_error"].append(float(np.mean(_misclassified(yt, learner.decision_function(Xt)))))
            if callback is not None and callback(t) is False:
                break
    return {"snapshots": snaps, "snapshot_times": times, "tree": tree,
            "history": {key: np.asarray(v) for key, v in hist.items()}}


# ----------------------------------------------------------------------------- estimators
class _OnlineLearnerParams:
    """The w player's parameters shared by FOL and AdaBoost: one ``_core.LearnerSpec`` from them."""

    def _learner_spec(self):
        spec = _core.LearnerSpec()
        spec.kind = _LEARNERS[check_choice("learner", self.learner, _LEARNERS)]
        spec.loss = loss_spec(self.loss, s=self.s, c=self.c, sramp_params=self.sramp_params)
        spec.schedule = _SCHEDULES[check_choice("learning_rate", self.learning_rate, _SCHEDULES)]
        return _assign(spec, alpha=self.alpha, eta0=self.eta0, power_t=self.power_t, fit_intercept=self.fit_intercept)


class FocusedOnlineClassifier(_OnlineLearnerParams, ClassifierMixin, BaseEstimator):
    """Focused Online Learning classifier (minimises the maximal loss over the training set).

    Parameters
    ----------
    learner : "perceptron", "sgd" or a protocol object
        The w player. "sgd" takes one SGD step of ``loss`` (L2 penalty ``alpha``, step
        ``learning_rate``/``eta0``/``power_t``) per FOL step. An object with ``step``, ``loss`` and
        ``decision_function`` is deep-copied for each binary problem and driven from Python.
    loss : str
        Loss of the "sgd" learner (any of :data:`robustcore.losses.LOSSES`).
    s, c, sramp_params : parameters of the Ramp / Smooth Ramp (s < 1; sramp_params None, "paper" or
        (alpha, beta)) and Reversed Gompertz (c > 0) losses, as in ``LinearClassifier``.
    alpha : float
        L2 penalty of the "sgd" learner (>= 0).
    learning_rate, eta0, power_t : schedule of the "sgd" learner (see ``LinearClassifier``).
    eta : float or None
        Step of the p player; None is 1/(2m) (Theorem 1).
    gamma : float
        Uniform exploration of the sampler (1/2 in the paper).
    focus : "zero_one" or "clipped"
        Loss the p player sees: the 0/1 loss (a zero score predicts the negative class) or min(1, loss)
        of the learner.
    max_iter : int
        Number of epochs of ceil(m / batch_size) FOL steps each: T = max_iter ceil(m / batch_size).
    batch_size : int
        Examples per step, all sampled from p_t.
    k : int or None
        Number of iterates kept at times drawn uniformly from [T] (>= 1); None is 2 ceil(log m) + 1.
    output : "majority", "average" or "last"
        Prediction: majority vote of the k iterates (Corollary 1), their average (Corollary 2), or the
        last iterate.
    slack_budget : float or None
        K of section 4.2 (additive slack variables xi in [0, 1]^m, sum xi <= K); None turns it off.
    slack_lr : float or None
        Step of the slack player: each time example i is sampled, xi_i grows by slack_lr / batch_size
        before the projection. None is 0.1 (an example keeps being sampled only while the model gets it
        wrong, so ~10 visits mark it as an outlier).
    subsample : int, "theorem3" or None
        Sub-sampling with repetitions (section 4.1): fit on that many examples drawn uniformly with
        repetition ("theorem3": n = m / (100 n_outliers) with ``n_outliers``).
    n_outliers : int
        Assumed number of outliers for ``subsample="theorem3"``.
    fit_intercept : bool
    history : bool
        Record ``history_`` (max loss, train error, test error with ``eval_set``, max q, seconds) per epoch.
    random_state : None, int or RandomState
    verbose : int

    Attributes
    ----------
    coef_, intercept_ : average of the kept iterates ("majority"/"average") or the last iterate ("last")
    snapshots_ : (n_problems, k, n_features + 1) the kept iterates (linear learners)
    last_ : (n_problems, n_features + 1) the last iterate
    history_ : dict of per-epoch arrays (one row per binary problem for one-vs-rest)
    q_ : (n_problems, m) final sampler distribution q
    xi_ : (n_problems, m) final slack variables (with ``slack_budget``)
    n_iter_ : epochs run; n_steps_ : T
    learners_, last_learners_ : the kept / last learner objects (Python protocol learners)

    Parameters are checked by the engine when ``fit`` runs (ValueError, or TypeError for a wrong type).
    Ctrl-C during ``fit`` raises KeyboardInterrupt and leaves the estimator as it was before the call.
    """

    def __init__(self, learner="perceptron", loss="hinge", s=-1.0, c=2.0, sramp_params=None, alpha=1e-4,
                 learning_rate="constant", eta0=0.1, power_t=0.5, eta=None, gamma=0.5, focus="zero_one", max_iter=10,
                 batch_size=1, k=None, output="majority", slack_budget=None, slack_lr=None, subsample=None,
                 n_outliers=1, fit_intercept=True, history=True, random_state=None, verbose=0):
        self.learner = learner
        self.loss = loss
        self.s = s
        self.c = c
        self.sramp_params = sramp_params
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.eta = eta
        self.gamma = gamma
        self.focus = focus
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.k = k
        self.output = output
        self.slack_budget = slack_budget
        self.slack_lr = slack_lr
        self.subsample = subsample
        self.n_outliers = n_outliers
        self.fit_intercept = fit_intercept
        self.history = history
        self.random_state = random_state
        self.verbose = verbose

    def _python_learner(self):
        return not isinstance(self.learner, str)

    def _fol_params(self, m, seed):
        """The estimator's own parameters checked, the engine's converted into a ``_core.FolParams``."""
        p = _core.FolParams()
        if self._python_learner():
            for attr in ("step", "loss", "decision_function"):
                if not callable(getattr(self.learner, attr, None)):
                    raise TypeError(f"learner object must have a callable {attr}() (FOL learner protocol)")
            if self.slack_budget is not None:
                raise ValueError("slack_budget is supported for the built-in learners only")
        else:
            p.learner = self._learner_spec()
        p.focus = _FOCUS[check_choice("focus", self.focus, _FOCUS)]
        check_choice("output", self.output, _OUTPUTS)
        # None means "the default" here; the engine's own sentinels (0 = 1/(2m), -1 = off) stay inside
        if self.k is not None:
            check_positive("k", self.k, integer=True)
        if self.slack_budget is not None:
            check_positive("slack_budget", self.slack_budget, allow_zero=True)
            _assign(p, slack_budget=self.slack_budget, slack_lr=0.1 if self.slack_lr is None else self.slack_lr)
        _assign(p, max_iter=self.max_iter, batch_size=self.batch_size, gamma=self.gamma,
                k=default_k(m) if self.k is None else self.k, record_history=self.history, seed=seed)
        if self.eta is not None:
            _assign(p, eta=self.eta)
            if self.eta == 0:  # 0 is the engine's "1/(2m)"; a given step must be > 0
                raise ValueError("eta must be > 0 (None: 1/(2m))")
        return p

    def _subsample(self, X, y, seed):
        if self.subsample is None:
            return X, y
        check_positive("n_outliers", self.n_outliers, integer=True)
        if self.subsample == "theorem3":
            n = theorem3_sample_size(X.shape[0], self.n_outliers)[0]
        else:
            n = check_positive("subsample", self.subsample, integer=True)
        X, y, _ = subsample_with_repetitions(X, y, n, random_state=seed % (2**32))
        if len(np.unique(y)) < 2:
            raise ValueError("the sub-sample contains one class only; use a larger subsample")
        return X, y

    def fit(self, X, y, eval_set=None):
        """Fit on (X, y); ``eval_set=(X_test, y_test)`` adds the per-epoch test error to ``history_``."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})")
        seed = seed_from_random_state(self.random_state)
        X, y = self._subsample(X, y, seed)
        params = self._fol_params(X.shape[0], seed)
        Xt = yt = None
        if eval_set is not None:
            Xt, yt = check_eval_set(self, eval_set, sp.issparse(X))
        problems = [classes[1]] if len(classes) == 2 else list(classes)
        fit_one = self._fit_python if self._python_learner() else self._fit_core
        results = []
        for j, pos in enumerate(problems):
            yy = np.where(y == pos, 1.0, -1.0)
            yyt = None if yt is None else np.where(yt == pos, 1.0, -1.0)
            params.seed = (seed + 104729 * j) % (2**63)
            results.append(fit_one(X, yy, Xt, yyt, params))
        # Attributes are set only once every problem finished: Ctrl-C (KeyboardInterrupt, checked once
        # per epoch by the engine) leaves the estimator as it was before fit.
        self.classes_ = classes
        self.n_steps_ = params.n_steps(X.shape[0])
        self.n_iter_ = max(r["n_iter"] for r in results)
        self._set_output(results, X.shape[1])
        return self

    def _fit_core(self, X, y, Xt, yt, params):
        m, d = X.shape
        coef = np.zeros(d + 1)
        weights = np.ones(m)
        snaps = np.zeros((params.k, d + 1))
        xi = np.zeros(m) if self.slack_budget is not None else None
        bar = cb = None
        if self.verbose:
            from tqdm.auto import tqdm

            bar = tqdm(total=params.max_iter, desc="FOL", unit="epoch")
            spe = params.epoch_steps(m)

            def cb(done):
                bar.update(done // spe - bar.n)

        try:
            res = _core.fol_fit(to_matrix(X), y, params, coef, weights, snaps, xi, None,
                                None if Xt is None else to_matrix(Xt),
                                None if yt is None else np.ascontiguousarray(yt, dtype=np.float64), cb)
        finally:
            if bar is not None:
                bar.close()
        if res.status == "diverged":
            raise ValueError(f"{type(self).__name__} diverged (non-finite weights); use a smaller eta0 or larger alpha")
        return {"snapshots": snaps, "last": coef, "history": res.history, "q": weights / weights.sum(),
                "xi": xi, "times": res.snapshot_times, "n_iter": int(res.n_iter)}

    def _fit_python(self, X, y, Xt, yt, params):
        m = X.shape[0]
        params.validate(m)  # the engine's checks, for the loop run here in Python
        learner = copy.deepcopy(self.learner)
        r = _python_fol(learner, X, y, params.n_steps(m), params.epoch_steps(m), params.batch_size, params.eta,
                        params.gamma, params.k, params.seed, None if Xt is None else (Xt, yt), None)
        q = np.empty(m)
        r["tree"].leaves(q)
        return {"learners": r["snapshots"], "last_learner": learner, "history": r["history"],
                "q": q / q.sum(), "times": r["snapshot_times"], "n_iter": params.max_iter}

    def _set_output(self, results, d):
        self.snapshot_times_ = np.vstack([r["times"] for r in results])
        self.q_ = np.vstack([r["q"] for r in results])
        hist = {}
        for key in results[0]["history"]:
            rows = [np.asarray(r["history"][key]) for r in results]
            if rows[0].size == 0:
                continue
            hist[key] = rows[0] if len(rows) == 1 else np.vstack(rows)
        self.history_ = hist
        if self._python_learner():
            self.learners_ = [r["learners"] for r in results]
            self.last_learners_ = [r["last_learner"] for r in results]
            return
        self.snapshots_ = np.stack([r["snapshots"] for r in results])
        self.last_ = np.vstack([r["last"] for r in results])
        if results[0]["xi"] is not None:
            self.xi_ = np.vstack([r["xi"] for r in results])
        if self.output == "last" or self.snapshots_.shape[1] == 0:
            full = self.last_
        else:
            full = self.snapshots_.mean(axis=1)
        self.coef_ = full[:, :d].copy()
        self.intercept_ = full[:, d].copy()

    def _scores(self, X):
        """(n_problems, n) scores of the configured output."""
        if self._python_learner():
            out = []
            for snaps, last in zip(self.learners_, self.last_learners_):
                if self.output == "last" or not snaps:
                    out.append(np.asarray(last.decision_function(X), dtype=float))
                    continue
                S = np.stack([np.asarray(l.decision_function(X), dtype=float) for l in snaps])
                out.append(np.where(S > 0, 1.0, -1.0).mean(axis=0) if self.output == "majority" else S.mean(axis=0))
            return np.vstack(out)
        if self.output == "majority" and self.snapshots_.shape[1] > 0:
            W = self.snapshots_  # (P, k, d+1)
            out = []
            for p in range(W.shape[0]):
                S = np.asarray(X @ W[p, :, :-1].T) + W[p, :, -1]  # (n, k)
                out.append(np.where(S > 0, 1.0, -1.0).mean(axis=1))
            return np.vstack(out)
        return (np.asarray(X @ self.coef_.T) + self.intercept_).T

    def decision_function(self, X):
        """Scores: the vote margin in [-1, 1] for "majority" (fraction of +1 votes minus -1 votes),
        the linear score for "average" and "last". A score > 0 predicts classes_[1]."""
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        s = self._scores(X)
        return s[0] if s.shape[0] == 1 else s.T

    def predict(self, X):
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(int)]
        return self.classes_[np.argmax(s, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class AdaBoostOnlineClassifier(_OnlineLearnerParams, ClassifierMixin, BaseEstimator):
    """AdaBoost over an online weak learner, the baseline of the FOL paper's experiment 2.

    p starts uniform; each round runs one epoch (m samples, in batches) of the learner sampling
    examples from p, eps_t is the p-weighted 0/1 error, alpha_t = 0.5 log(1/eps_t - 1),
    p_i <- p_i exp(-alpha_t y_i h_t(x_i)); the output is sign(sum_t alpha_t h_t(x)) (a zero vote predicts
    classes_[0]). Each round costs two passes over the data (one epoch of training, one of evaluation).
    At most ``max_iter`` rounds; stops early when a round's hypothesis is consistent (eps_t = 0) or has no
    edge (eps_t >= 1/2). Binary labels only. ``warm_start`` starts each round's epoch from the previous
    round's weights. The learner's parameters (``loss``, ``s``, ``c``, ``sramp_params``, ``alpha``,
    ``learning_rate``, ``eta0``, ``power_t``, ``fit_intercept``) are those of ``FocusedOnlineClassifier``.
    """

    def __init__(self, learner="sgd", loss="log", s=-1.0, c=2.0, sramp_params=None, alpha=1e-4,
                 learning_rate="constant", eta0=0.1, power_t=0.5, max_iter=10, batch_size=1, warm_start=True,
                 fit_intercept=True, random_state=None):
        self.learner = learner
        self.loss = loss
        self.s = s
        self.c = c
        self.sramp_params = sramp_params
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.warm_start = warm_start
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, y, eval_set=None):
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) != 2:
            raise ValueError(f"{type(self).__name__} is binary; got {len(classes)} classes")
        p = _assign(_core.AdaBoostParams(), max_iter=self.max_iter, batch_size=self.batch_size,
                    warm_start=self.warm_start, seed=seed_from_random_state(self.random_state))
        p.learner = self._learner_spec()
        Mt, yt = None, None
        if eval_set is not None:
            Xt, yt_raw = check_eval_set(self, eval_set, sp.issparse(X))
            Mt = to_matrix(Xt)
            yt = np.where(np.asarray(yt_raw) == classes[1], 1.0, -1.0)
        hyps = np.zeros((max(p.max_iter, 0), X.shape[1] + 1))  # a bad max_iter is the engine's to report
        res = _core.adaboost_fit(to_matrix(X), np.where(y == classes[1], 1.0, -1.0), p, hyps, Mt, yt)
        r = int(res.n_iter)
        self.classes_ = classes
        self.n_iter_ = r
        self.hypotheses_ = hyps[:r]
        self.alphas_ = res.alpha_t
        self.history_ = {"train_error": np.zeros(0), **res.history, "weighted_error": res.weighted_error,
                         "epochs": 2.0 * np.arange(1, r + 1)}
        return self

    def decision_function(self, X):
        check_is_fitted(self, "hypotheses_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        H = np.asarray(X @ self.hypotheses_[:, :-1].T) + self.hypotheses_[:, -1]
        return np.where(H > 0, 1.0, -1.0) @ self.alphas_

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
