"""The three MKL classifiers of :mod:`robustcore.mkl` (the subpackage's docstring describes them)."""

from __future__ import annotations

import math
import time

from numbers import Real
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

import numpy as np
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from .._base import Balanced, EngineResult, str_options, warn_max_iter
from ..kernel_approximation import Approximation
from ._banks import _AT_LEAST_ONE, _METHODS, _NON_NEGATIVE, _POSITIVE, BankDtype, MklMethodName, default_rho
from ._mixin import (_KERNEL_CONSTRAINTS, _NOISE_LEVEL_CONSTRAINT, KernelsName, _intercept, _KernelMixin, _solve,
                     _total_weight)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._base import RandomStateLike





class NoisyMKLClassifier(_KernelMixin):
    """StPMKL: multiple kernel learning from noisy labels (problem (11), Algorithm 1).

    .. math::

        \\min_f \\max_{a \\in Q} \\frac{\\alpha}{2} \\Big(\\sum_j \\|f_j\\|\\Big)^2
        + \\frac{1}{n} \\sum_i a_i (1 - y_i f(x_i)),
        \\qquad Q = \\Big\\{a \\in [0, 1 + \\tau]^n : \\sum_i a_i \\le \\rho\\Big\\}

    (the paper's :math:`\\lambda` is ``alpha`` here, its dual variables :math:`\\alpha` are ``dual_coef_``).

    Parameters
    ----------
    noise_level : float in [0, 0.5), q, or "auto". Used for :math:`\\rho` when ``rho`` is None. "auto": the
        expected fraction of wrong labels under the transition matrix :math:`T` estimated from the features
        (``robustcore.noise.estimate_transition``, out-of-fold logistic regression, 5 folds):
        :math:`q = \\sum_i \\pi_i (1 - T_{ii})` with :math:`\\pi` the clean class priors, for two classes
        :math:`\\pi_+ \\rho_+ + \\pi_- \\rho_-` (the budget :math:`\\rho = (1 - q) n` then leaves room for as many
        wrong labels as expected); capped at 0.49.
        Fitted ``noise_level_`` and ``transition_matrix_``.
    alpha : float > 0, the regulariser (:math:`\\lambda` in the paper).
    rho : float > 0 or None. None: :math:`\\rho = (1 - q + \\tau + \\tau / \\sqrt{n}) n` (section 3.3). A number is
        used as given (the paper's Fig. 1 right uses :math:`\\rho = 100`).
    tau : float >= 0 or None. The box is :math:`[0, 1 + \\tau]`. Default 0: the paper's experiments absorb
        :math:`1 + \\tau` into :math:`\\lambda` and :math:`\\rho` (alpha in [0, 1], :math:`\\rho = (1 - q) n`). None:
        :math:`\\tau = \\sqrt{\\ln(1/\\epsilon) / 2}` (Proposition 1).
    epsilon : float in (0, 1), used when tau is None.
    kernels : "gaussian_bank", "precomputed" or a list of callables k(A, B).
    widths : Gaussian widths of the bank (default :math:`2^{-3}, \\ldots, 2^6`).
    max_iter, tol : stop at :math:`T` = ``max_iter`` or when the duality gap < tol (a ``ConvergenceWarning`` when
        max_iter came first; tol=0 never stops early and never warns).
    method : "amp" (Algorithm 1) or "vi" (gradient descent-ascent, step :math:`\\gamma_0 / \\sqrt{T}`).
    step_size : None (AMP: :math:`1 / (\\sqrt{2} L) = \\sqrt{n / (2m)}` for :math:`m` Gaussian kernels; VI:
        :math:`\\gamma_0 / \\sqrt{T}`) or a positive number.
    gamma0 : VI's step constant.
    dtype : storage of a dense bank, "float64" or "float32" (precomputed, callables, or
        ``low_rank_tol=None``).
    low_rank_tol : float >= 0 or None. With the Gaussian bank, store every kernel as a pivoted-Cholesky
        factor whose product is within low_rank_tol of each exact kernel entry (kernels of rank > n/2 stay
        dense; see :func:`gaussian_bank_factored`). None: the exact dense bank of :math:`n^2 m` values.
    max_memory_mb : refuse to build a kernel bank larger than this.
    n_jobs : threads (joblib's meaning: None is 1, -1 all cores): with two classes, each iteration's pass
        over the kernel bank is split over them (the same result bits for any n_jobs); with more, the
        one-vs-rest problems run on them.
    verbose : > 0 shows a progress bar over the solver's iterations.
    class_weight : None, "balanced" or dict {class: weight}; multiplies ``sample_weight`` (scikit-learn's
        semantics).
    approximation : None (the exact bank, :math:`n^2` values per kernel or its factors), "rff" or "nystroem": MKL
        past :math:`n^2`. Each Gaussian kernel of the bank becomes a block of ``n_components`` random Fourier features
        (or Nystroem features on landmarks shared by the blocks; ``robustcore.kernel_approximation.KernelBank``,
        drawn with ``random_state``), and problem (11) is solved in the primal over the blocks' weights
        :math:`w_j` (:math:`f_j = w_j \\cdot \\phi_j`, :math:`\\|f_j\\| = \\|w_j\\|`;
        :math:`(\\sum_j \\|w_j\\|)^2 = \\min_{d \\in \\Delta} \\sum_j \\|w_j\\|^2 / d_j` over the simplex, so
        ``kernel_weights_`` :math:`= \\|w_j\\| / \\sum_k \\|w_k\\|` as with the exact bank) by the same Algorithm 1 /
        VI iterations: two passes over the rows per iteration, :math:`O(n D)` time, :math:`O(n + D)` memory beyond
        the data (:math:`D` = ``n_components`` :math:`\\times m`). Rows are mapped once and kept while they fit in
        ``max_memory_mb`` (after the solver's own arrays; MemoryError before anything is built when those do not fit), the rest mapped
        again in every pass (in chunks), so any n fits. X may be CSR and float32 (float32 features).
        ``dtype`` and ``low_rank_tol`` do not apply. Fitted ``coef_`` is then w (D,) (with k > 2 classes
        (k, D)), ``feature_map_`` the fitted ``KernelBank`` (``block_slices_``: block j's columns), and
        there is no ``X_fit_``.
    n_components : features per block with ``approximation`` (Nystroem: landmarks, capped at n_samples).
    early_stopping, validation_fraction, n_iter_no_change, random_state : scikit-learn's SGDClassifier rule:
        hold out a stratified ``validation_fraction`` of the rows (seeded by ``random_state``; with
        kernels="precomputed" the rows and columns of the bank), score the averaged model on them after every
        iteration in the same run, stop when the accuracy has not improved by ``tol`` for
        ``n_iter_no_change`` iterations (the gap rule is then off) and keep the best iteration's model.
        MiPMKL applies it to alternations, SimpleMKL to outer iterations.

    ``sample_weight`` in ``fit`` weights each sample's hinge term as in problem (11) on the data with
    sample :math:`i` repeated :math:`w_i` times: sample :math:`i`'s dual variable lives in
    :math:`[0, (1 + \\tau) w_i]` (the repeated samples' dual variables add up), :math:`1/n` becomes
    :math:`1/\\sum_i w_i`, and the default :math:`\\rho` uses :math:`\\sum_i w_i` for :math:`n`. A sample
    of weight 0 has no dual variable left (its coefficients are 0).

    Attributes
    ----------
    coef_ : (m, n_train) averaged coefficients, :math:`f_j = \\sum_i c_{ji} k_j(x_i, \\cdot)` for :math:`c` = ``coef_``.
    dual_coef_ : (n_train,) averaged dual variables (the paper's :math:`\\alpha`).
    kernel_weights_ : (m,) :math:`\\|f_j\\| / \\sum_k \\|f_k\\|` (the optimal simplex weights :math:`u` of problem (1)).
    history_ : dict of arrays per iteration: "gap", "primal", "dual", "seconds".
    ``n_iter_``, ``status_``, ``rho_``, ``upper_``, ``step_size_``, ``duality_gap_``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(120, 3))
    >>> y = np.where(X[:, 0] > 0.5, 1, -1)
    >>> y_noisy = noise.flip_labels(y, 0.1, random_state=0)
    >>> from robustcore.mkl import NoisyMKLClassifier
    >>> clf = NoisyMKLClassifier(widths=(0.3, 1.0), noise_level=0.1, max_iter=200).fit(X, y_noisy)
    >>> clf.kernel_weights_.shape, bool(clf.score(X, y) > 0.9)
    ((8,), True)
    """

    def __init__(self, noise_level: float | Literal["auto"] = 0.2, alpha: float = 0.01, rho: float | None = None,
                 tau: float | None = 0.0, epsilon: float = 0.1,
                 kernels: KernelsName | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-2,
                 method: MklMethodName = "amp", step_size: float | None = None, gamma0: float = 1.0,
                 dtype: BankDtype = "float64", low_rank_tol: float | None = 1e-10, max_memory_mb: float = 2048.0,
                 n_jobs: int | None = None, verbose: int = 0, class_weight: dict[Any, float] | Balanced | None = None,
                 early_stopping: bool = False, validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 random_state: RandomStateLike = None, approximation: Approximation | None = None,
                 n_components: int = 50) -> None:
        self.approximation = approximation
        self.n_components = n_components
        self.class_weight = class_weight
        self.noise_level = noise_level
        self.alpha = alpha
        self.rho = rho
        self.tau = tau
        self.epsilon = epsilon
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.method = method
        self.step_size = step_size
        self.gamma0 = gamma0
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "noise_level": _NOISE_LEVEL_CONSTRAINT,
        "rho": [_POSITIVE, None],
        "tau": [_NON_NEGATIVE, None],
        "epsilon": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions(set(_METHODS))],
        "step_size": [_POSITIVE, None],
        "gamma0": [_POSITIVE],
        "approximation": [str_options(Approximation), None],
        "n_components": [_AT_LEAST_ONE],
    }

    # feature blocks take CSR and float32 X (the engine maps either); the exact banks dense float64
    @property
    def _accept_sparse(self):
        return "csr" if self.approximation is not None else False

    @property
    def _fit_dtypes(self):
        return (np.float64, np.float32) if self.approximation is not None else (np.float64,)

    def _fit_binary(self, K, ypm, sample_weight, noise_level, stopper=None, n_threads=1):
        # tau None: Proposition 1's sqrt(ln(1/epsilon) / 2)
        tau = math.sqrt(0.5 * math.log(1.0 / self.epsilon)) if self.tau is None else float(self.tau)
        upper = 1.0 + tau
        rho = float(self.rho) if self.rho is not None else default_rho(_total_weight(ypm, sample_weight),
                                                                         float(noise_level), tau)
        coef, dual, res, gap = _solve(
            K, ypm, alpha=self.alpha, upper=upper, rho=rho,
            step_size=0.0 if self.step_size is None else self.step_size, gamma0=self.gamma0,
            max_iter=self.max_iter, tol=self.tol, method=self.method, verbose=self.verbose,
            sample_weight=sample_weight, stopper=stopper, n_threads=n_threads)  # step_size 0: the engine chooses
        w, norms = self._kernel_weights_from_coef(K, coef)
        return ({"coef_": coef, "dual_coef_": dual, "step_size_": res.step, "duality_gap_": gap,
                 "kernel_weights_": w, "kernel_norms_": norms, "upper_": upper, "rho_": rho}, res)


class MiPMKLClassifier(_KernelMixin):
    """MiPMKL: the best case over p (robust hinge loss, section 3.2's remark and section 4).

    .. math::

        \\min_f \\min_{p \\in Q} \\frac{\\alpha}{2} \\Big(\\sum_j \\|f_j\\|\\Big)^2
        + \\frac{1}{n} \\sum_i (p_i \\ell_i + 1 - p_i),
        \\qquad Q = \\Big\\{p \\in [0, 1]^n : \\sum_i p_i \\le (1 - q) n + \\tau \\sqrt{n}\\Big\\}

    :math:`\\ell_i` the hinge loss. Solved by alternating:
    given :math:`f`, :math:`p` is the indicator of the (at most budget) examples with the smallest losses among
    those with :math:`\\ell_i < 1` (a linear minimisation over :math:`Q`); given p, the MKL problem on the kept
    examples is solved by the accelerated mirror prox engine (box [0, 1], no budget, alpha rescaled so the 1/n weighting holds).
    Stops when p repeats or after ``n_alternations``. Non-convex: a local solution from p = 1.
    ``sample_weight``: sample :math:`i` counts :math:`w_i` times (in the budget, the mean and each MKL problem's
    box, as in ``NoisyMKLClassifier``). Parameters as in ``NoisyMKLClassifier`` (``n_jobs``, ``verbose``, ``class_weight``
    too; ``noise_level="auto"`` likewise sets the budget from the estimated noise).

    Parameters
    ----------
    noise_level : float or "auto", default=0.2
        :math:`q`, the assumed fraction of wrong labels ("auto": estimated).
    alpha : float, default=0.01
        The regularisation (the paper's :math:`\\lambda`).
    tau : float or None, default=0.0
        Slack of the budget.
    n_alternations : int, default=10
        At most this many alternations between p and f.
    kernels, widths, max_iter, tol, and the rest
        As in :class:`NoisyMKLClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(120, 3))
    >>> y = np.where(X[:, 0] > 0.5, 1, -1)
    >>> y_noisy = noise.flip_labels(y, 0.1, random_state=0)
    >>> from robustcore.mkl import MiPMKLClassifier
    >>> clf = MiPMKLClassifier(widths=(0.3, 1.0), noise_level=0.1, max_iter=200).fit(X, y_noisy)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(self, noise_level: float | Literal["auto"] = 0.2, alpha: float = 0.01, tau: float | None = 0.0,
                 kernels: KernelsName | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-2, n_alternations: int = 10,
                 dtype: BankDtype = "float64", low_rank_tol: float | None = 1e-10, max_memory_mb: float = 2048.0,
                 n_jobs: int | None = None, verbose: int = 0, class_weight: dict[Any, float] | Balanced | None = None,
                 early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 random_state: RandomStateLike = None) -> None:
        self.class_weight = class_weight
        self.noise_level = noise_level
        self.alpha = alpha
        self.tau = tau
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.n_alternations = n_alternations
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "noise_level": _NOISE_LEVEL_CONSTRAINT,
        "tau": [_NON_NEGATIVE],
        "n_alternations": [_AT_LEAST_ONE],
    }

    def _warn_budget(self, status):
        """The ``ConvergenceWarning`` of a fit whose alternations ended before p repeated (or, with early_stopping,
        before the rule stopped them)."""
        warn_max_iter(self, status, self.tol, budget="n_alternations",
                      goal="the rule" if self.early_stopping else "a repeated kept set p")

    def _fit_binary(self, K, ypm, sample_weight, noise_level, stopper=None, n_threads=1):
        n = ypm.shape[0]
        w = np.ones(n) if sample_weight is None else sample_weight
        total = _total_weight(ypm, sample_weight)
        budget = math.floor((1.0 - noise_level) * total + self.tau * math.sqrt(total))
        keep = np.ones(n, dtype=bool)
        coef = np.zeros((K.m, n))
        hist = {"objective": [], "n_kept": [], "seconds": []}
        t0 = time.perf_counter()
        seen = set()
        status = "max_iter"
        for _ in range(self.n_alternations):
            idx = np.flatnonzero(keep)
            Ks = K.subset(idx)
            kept_weight = float(w[idx].sum())
            c_s, _, _, _ = _solve(Ks, ypm[idx], alpha=self.alpha * total / kept_weight, upper=1.0, rho=kept_weight,
                                 step_size=0.0, gamma0=1.0, max_iter=self.max_iter, tol=self.tol, method="amp",
                                 verbose=self.verbose, sample_weight=None if sample_weight is None else w[idx],
                                 n_threads=n_threads)
            coef = np.zeros((K.m, n))
            coef[:, idx] = c_s
            f = K.apply_each(coef).sum(axis=0)
            loss = np.maximum(0.0, 1.0 - ypm * f)
            order = np.argsort(loss, kind="stable")
            cand = order[loss[order] < 1.0]
            new_keep = np.zeros(n, dtype=bool)
            new_keep[cand[np.cumsum(w[cand]) <= budget]] = True  # the smallest losses, up to the budget
            G = Ks.apply_each(np.ascontiguousarray(c_s))
            norms = np.sqrt(np.maximum(np.einsum("ji,ji->j", c_s, G), 0.0))
            p = new_keep.astype(float)
            hist["objective"].append(0.5 * self.alpha * norms.sum() ** 2 + np.dot(w, p * loss + 1.0 - p) / total)
            hist["n_kept"].append(int(idx.size))
            hist["seconds"].append(time.perf_counter() - t0)
            key = new_keep.tobytes()
            # an empty kept set, or one of weight 0 (only zero-weight rows), leaves no MKL problem to solve
            if not w[new_keep].sum() > 0 or key in seen or np.array_equal(new_keep, keep):
                status = "converged"
                break
            if stopper is not None and stopper.update(stopper.score(coef), lambda: (coef, keep)):
                status = "converged"
                break
            seen.add(key)
            keep = new_keep
        if stopper is not None and stopper.best_model is not None:
            coef, keep = stopper.best_model
        kw, norms = self._kernel_weights_from_coef(K, coef)
        return ({"coef_": coef, "p_": keep.astype(float), "kernel_weights_": kw, "kernel_norms_": norms},
                EngineResult(status, float(len(hist["objective"])), 0.0, hist))


class SimpleMKLClassifier(_KernelMixin):
    """SimpleMKL (Rakotomamonjy et al., JMLR 2008) for the plain MKL objective (1)/(2).

    Outer loop (their Algorithm 1): reduced gradient on the kernel weights :math:`d` in the simplex (gradient
    :math:`\\partial J / \\partial d_j = -\\frac{1}{2} (\\alpha \\circ y)^\\top K_j (\\alpha \\circ y)`), descent
    direction as in the paper's eq. (12); follow it to the boundary where a weight reaches 0, updating the direction there, while :math:`J(d)` decreases, then a
    golden-section line search (``line_search_steps`` rounds of two SVM solves) over the last segment.
    Stops when no step decreases J to the inner solver's accuracy. Inner solver: scikit-learn's
    ``SVC(kernel="precomputed")`` with :math:`C = 1 / (\\alpha n)` on :math:`K(d) = \\sum_j d_j K_j` (with an
    intercept, as SimpleMKL).
    Stops when the MKL duality gap, in the units of objective (1) (alpha times the SVM gap), is below
    ``tol`` or after ``max_iter`` outer iterations. ``history_``: "gap", "objective", "seconds".
    ``sample_weight`` scales each sample's SVM box (scikit-learn's SVC ``sample_weight``: :math:`C w_i`), with
    :math:`C = 1 / (\\alpha \\sum_i w_i)`. ``class_weight`` as in ``NoisyMKLClassifier``; ``n_jobs`` runs
    the one-vs-rest problems on threads (one problem's SVM steps use one thread).

    Parameters
    ----------
    alpha : float, default=0.01
        The regularisation (:math:`C = 1 / (n \\alpha)` of the inner SVM).
    kernels, widths : as in :class:`NoisyMKLClassifier`
    max_iter : int, default=100
        Reduced-gradient iterations.
    tol : float, default=1e-2
        Duality-gap tolerance.
    svm_tol : float, default=1e-3
        The inner SVC's tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from robustcore import noise
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(120, 3))
    >>> y = np.where(X[:, 0] > 0.5, 1, -1)
    >>> y_noisy = noise.flip_labels(y, 0.1, random_state=0)
    >>> from robustcore.mkl import SimpleMKLClassifier
    >>> clf = SimpleMKLClassifier(widths=(0.3, 1.0), max_iter=20).fit(X, y_noisy)
    >>> bool(clf.score(X, y) > 0.9), round(float(clf.kernel_weights_.sum()), 6)
    (True, 1.0)
    """

    def __init__(self, alpha: float = 0.01,
                 kernels: KernelsName | Sequence[Callable[[np.ndarray, np.ndarray], ArrayLike]] = "gaussian_bank",
                 widths: ArrayLike | None = None, max_iter: int = 100, tol: float = 1e-2, svm_tol: float = 1e-3,
                 line_search_steps: int = 6, dtype: BankDtype = "float64", low_rank_tol: float | None = 1e-10,
                 max_memory_mb: float = 2048.0, n_jobs: int | None = None, verbose: int = 0,
                 class_weight: dict[Any, float] | Balanced | None = None, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 random_state: RandomStateLike = None) -> None:
        self.class_weight = class_weight
        self.alpha = alpha
        self.kernels = kernels
        self.widths = widths
        self.max_iter = max_iter
        self.tol = tol
        self.svm_tol = svm_tol
        self.line_search_steps = line_search_steps
        self.dtype = dtype
        self.low_rank_tol = low_rank_tol
        self.max_memory_mb = max_memory_mb
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state

    _parameter_constraints = {
        **_KERNEL_CONSTRAINTS,
        "svm_tol": [_POSITIVE],
        "line_search_steps": [_AT_LEAST_ONE],
    }

    def _check_work_memory(self, n, sample_weight, float32=False, n_problems=1):
        """Each SVM solve builds the combined kernel K(d) = sum_j d_j K_j as a dense (n, n) float64 array (and,
        when some rows weigh 0, its (k, k) copy on the k weighted rows), alongside the bank: refused with
        MemoryError before anything is built when that passes ``max_memory_mb``."""
        super()._check_work_memory(n, sample_weight, float32, n_problems)
        k = n if sample_weight is None else int(np.count_nonzero(sample_weight > 0))
        need = 8 * (n * n + (k * k if k < n else 0))
        if need > self.max_memory_mb * 2**20:
            raise MemoryError(f"SimpleMKLClassifier's combined kernel needs {need / 2**20:.1f} MiB (a dense {n} x {n} "
                              f"float64 matrix per SVM solve), above max_memory_mb={self.max_memory_mb}; raise "
                              f"max_memory_mb or use fewer samples (NoisyMKLClassifier works on the factored bank)")

    def _fit_binary(self, K, ypm, sample_weight, noise_level=None, stopper=None, n_threads=1):
        n = ypm.shape[0]
        m = K.m
        C = 1.0 / (self.alpha * _total_weight(ypm, sample_weight))
        # the SVM sees the rows of positive weight only (scikit-learn's SVC numbers support_ among those)
        rows = np.arange(n) if sample_weight is None else np.flatnonzero(sample_weight > 0)
        sw = None if sample_weight is None else sample_weight[rows]

        def svm(d):
            Kd = K.combine(np.ascontiguousarray(d, dtype=np.float64))
            if rows.size < n:
                Kd = Kd[np.ix_(rows, rows)]
            clf = SVC(kernel="precomputed", C=C, tol=self.svm_tol).fit(Kd, ypm[rows], sample_weight=sw)
            ay = np.zeros(n)
            ay[rows[clf.support_]] = clf.dual_coef_[0] * (1.0 if clf.classes_[1] == 1.0 else -1.0)
            s = K.quad(ay)
            J = np.abs(ay).sum() - 0.5 * d @ s  # SVM dual value at the solution
            return J, s, ay, clf

        def direction(d, s):
            # reduced gradient (paper's eq. 12) with mu = argmax d; weights at 0 with a positive reduced
            # gradient stay at 0
            grad = -0.5 * s
            mu = int(np.argmax(d))
            D = -(grad - grad[mu])
            D[(d <= 0) & (grad - grad[mu] > 0)] = 0.0
            D[mu] = 0.0
            D[mu] = -D.sum()
            return D, mu

        def descending(D, scale):
            # the weights D moves towards 0 (entries at round-off level of the direction's scale count as 0)
            return np.flatnonzero(D < -1e-12 * scale)

        def along(d, D, step):
            d_new = np.maximum(d + step * D, 0.0)
            return d_new / d_new.sum()

        d = np.full(m, 1.0 / m)
        J, s, ay, clf = svm(d)
        hist = {"gap": [], "objective": [], "seconds": []}
        t0 = time.perf_counter()
        golden = (math.sqrt(5.0) - 1.0) / 2.0
        status = "max_iter"
        for _ in range(self.max_iter):
            gap = self.alpha * 0.5 * (s.max() - d @ s)
            hist["gap"].append(gap)
            hist["objective"].append(self.alpha * J)
            hist["seconds"].append(time.perf_counter() - t0)
            if stopper is None and gap < self.tol:
                status = "converged"
                break
            if stopper is not None and stopper.update(stopper.score(d[:, None] * ay[None, :], intercept=_intercept(clf)),
                                                      lambda: (d, s, ay, clf)):
                status = "converged"
                break
            D, mu = direction(d, s)
            scale = float(np.abs(D).max())
            if descending(D, scale).size == 0:
                break
            # Algorithm 1 of Rakotomamonjy et al.: follow D to the boundary (a weight reaches 0), update D
            # there, and repeat while the objective keeps decreasing ...
            moved = False
            while True:
                neg = descending(D, scale)
                if neg.size == 0:
                    break
                nu = neg[np.argmin(-d[neg] / D[neg])]
                step_max = -d[nu] / D[nu]
                d_b = along(d, D, step_max)
                d_b[nu] = 0.0
                d_b /= d_b.sum()
                J_b, s_b, ay_b, clf_b = svm(d_b)
                if not J_b < J:
                    break
                d, J, s, ay, clf, moved = d_b, J_b, s_b, ay_b, clf_b, True
                if nu == mu:  # the reference weight itself left the support: start again from a new direction
                    D = np.zeros(m)
                    break
                # d_nu is now 0 and stays there; mu absorbs its share so that D still sums to 0 (the
                # pseudo-code of the paper prints D_mu - D_nu here; their MATLAB code adds, as we do)
                D = D.copy()
                D[mu] += D[nu]
                D[nu] = 0.0
            # ... then a golden-section line search for the step in [0, step_max] along the last D.
            neg = descending(D, scale)
            if neg.size:
                step_max = float(np.min(-d[neg] / D[neg]))
                lo, hi = 0.0, step_max
                best = (J, d, s, ay, clf)
                for _ls in range(self.line_search_steps):
                    a_, b_ = hi - golden * (hi - lo), lo + golden * (hi - lo)
                    Ja, *ra = svm(along(d, D, a_))
                    Jb, *rb = svm(along(d, D, b_))
                    for Jx, rx, x in ((Ja, ra, a_), (Jb, rb, b_)):
                        if Jx < best[0]:
                            best = (Jx, along(d, D, x), *rx)
                    if Ja < Jb:
                        hi = b_
                    else:
                        lo = a_
                if best[0] < J:
                    J, d, s, ay, clf = best
                    moved = True
            if not moved:  # no decrease to the SVM solver's accuracy
                break
        if stopper is not None and stopper.best_model is not None:
            d, s, ay, clf = stopper.best_model
        d[d < 1e-12 * d.max()] = 0.0
        d = d / d.sum()
        return ({"kernel_weights_": d, "coef_": d[:, None] * ay[None, :], "intercept_": _intercept(clf),
                 "duality_gap_": float(hist["gap"][-1]) if hist["gap"] else float("nan")},
                EngineResult(status, float(len(hist["gap"])), 0.0, hist))
