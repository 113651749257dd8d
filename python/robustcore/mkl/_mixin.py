"""What the three MKL classifiers of robustcore.mkl share: the kernel parameters and bank handling
(``_KernelMixin``), the engine solve, intercepts and weights."""

from __future__ import annotations

import math

from numbers import Real
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .. import _core
from .._base import (CLASS_WEIGHT_CONSTRAINT, N_JOBS_CONSTRAINT, STOPPING_CONSTRAINTS,
                     BaseClassifier, EarlyStopping, Progress, accuracy, binary_targets, engine_result, fit_method,
                     fit_weights, map_problems, result_attributes, str_options, validation_split, warn_max_iter)
from .._validation import check_labels
from . import _blocks
from ._banks import (_AT_LEAST_ONE, _DTYPES, _METHODS, _NON_NEGATIVE, _POSITIVE, BankDtype, _check_memory, _DenseBank,
                     _engine_bank, _widths_array, gaussian_bank, gaussian_bank_factored, gaussian_bank_size)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from .._base import MatrixLike


#: the named kernel banks (``kernels=``): the Gaussian bank of X, or the bank given as X
KernelsName = Literal["gaussian_bank", "precomputed"]

_KERNEL_CONSTRAINTS = {
    "alpha": [_POSITIVE],
    "kernels": [str_options(KernelsName), list, tuple],
    "widths": ["array-like", None],
    "max_iter": [_AT_LEAST_ONE],
    "tol": [_NON_NEGATIVE],
    "dtype": [str_options(BankDtype)],
    "low_rank_tol": [_NON_NEGATIVE, None],
    "max_memory_mb": [_POSITIVE],
    "n_jobs": N_JOBS_CONSTRAINT,
    "verbose": ["verbose"],
    "class_weight": CLASS_WEIGHT_CONSTRAINT,
    "random_state": ["random_state"],
    **{name: STOPPING_CONSTRAINTS[name] for name in ("early_stopping", "validation_fraction", "n_iter_no_change")},
}

#: ``noise_level`` of NoisyMKL / MiPMKL: q in [0, 0.5), or "auto" (estimated, see ``_KernelMixin._noise_level``)
_NOISE_LEVEL_CONSTRAINT = [Interval(Real, 0, 0.5, closed="left"), str_options(Literal["auto"])]


class _KernelMixin(BaseClassifier):
    """Shared kernel handling, one-vs-rest over one bank, and prediction through the stored training points.

    Subclasses define ``_fit_binary(K, y, sample_weight, noise_level, stopper, n_threads) -> (fitted attributes,
    EngineResult)``
    for one +-1 problem on the bank K (``noise_level``: the resolved q of the classifiers that have one).
    ``class_weight`` multiplies ``sample_weight``. No probability model: wrap in scikit-learn's
    ``CalibratedClassifierCV(method="sigmoid", ensemble=False)`` for ``predict_proba``."""

    _accept_sparse = False

    def _precomputed(self):
        return isinstance(self.kernels, str) and self.kernels == "precomputed"

    def _approximated(self):
        """Whether the bank is feature-map blocks (NoisyMKL's ``approximation``): the model is then the weights
        of the features, ``coef_`` (D,), and ``feature_map_`` the fitted ``KernelBank``."""
        return getattr(self, "approximation", None) is not None

    def _concurrent(self, n_problems):
        """(threads of one problem's passes, problems solved at once)."""
        if n_problems == 1:
            return effective_n_jobs(self.n_jobs), 1
        return 1, min(n_problems, effective_n_jobs(self.n_jobs))

    def _validate_training(self, X, y, sample_weight):
        """(X, y, sample_weight) validated; X an (m, n, n) bank with kernels="precomputed"."""
        if isinstance(self.kernels, (list, tuple)) and not (len(self.kernels) > 0 and all(map(callable, self.kernels))):
            raise ValueError("kernels must be 'gaussian_bank', 'precomputed' or a non-empty list of callables k(A, B)")
        if self._approximated() and not (isinstance(self.kernels, str) and self.kernels == "gaussian_bank"):
            raise ValueError(f"approximation={self.approximation!r} maps the Gaussian bank into feature blocks; it "
                             f"needs kernels='gaussian_bank', got kernels={self.kernels!r}")
        if not self._precomputed():
            return self._validate_fit_data(X, y, sample_weight)
        X = self._precomputed_bank(X)
        if X.shape[1] != X.shape[2]:
            raise ValueError("the training kernels must be square: X.shape[1] == X.shape[2]")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[1]:
            raise ValueError(f"y must be 1-d of length {X.shape[1]}")
        check_classification_targets(check_labels(y))
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X[0], dtype=np.float64, ensure_non_negative=True)
        return X, y, sample_weight

    @staticmethod
    def _precomputed_bank(X):
        X = np.asarray(X)
        if X.ndim != 3:
            raise ValueError(f"with kernels='precomputed' X must have shape (m, n_samples, n_train), got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("the precomputed kernels contain NaN or infinity")
        return X

    def _validate_predict(self, X):
        if not self._precomputed():
            return self._validate_predict_X(X)
        X = self._precomputed_bank(X)
        if X.shape[0] != self.n_kernels_ or X.shape[2] != self.n_train_:
            raise ValueError(f"X must have shape ({self.n_kernels_}, n_samples, {self.n_train_})")
        return X

    @fit_method
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit on (X, y); more than two classes are handled one-vs-rest over one shared kernel bank (on
        ``n_jobs`` threads). ``sample_weight`` weights each sample's hinge term (see the class).

        With two classes the fitted attributes are as documented; with k > 2 classes, ``coef_`` is
        (k, m, n_train), ``kernel_weights_`` (k, m), ``intercept_`` (k,), and every ``history_`` column
        has one row per class (NaN-padded where a problem stopped earlier)."""
        X, y, sample_weight = self._validate_training(X, y, sample_weight)
        classes = self._classes(y)
        sample_weight = fit_weights(self.class_weight, y, sample_weight, classes)
        self._check_work_memory(X.shape[-1] if self._precomputed() else X.shape[0], sample_weight,
                                X.dtype == np.float32, len(classes) if len(classes) > 2 else 1)  # before any work
        noise = self._noise_level(X, y)
        q = noise.get("noise_level_", getattr(self, "noise_level", None))
        X, y, sample_weight, validation = self._held_out(X, y, sample_weight)
        targets = binary_targets(y, classes)
        K, widths = self._train_bank(X, self._concurrent(len(targets)), validation)
        stoppers = [None] * len(targets)
        if validation is not None:
            X_val, y_val, sw_val = validation
            K_val, y_val, sw_val = self._validation_bank(X, widths, X_val, y_val, sw_val, K=K)
            stoppers = [self._stopper(K_val, yk, sw_val) for yk in binary_targets(y_val, classes)]
        # one problem: its kernel passes on the n_jobs threads; more: one thread each, the problems on n_jobs
        threads = self._concurrent(len(targets))[0]
        fits = map_problems(lambda k: self._fit_binary(K, targets[k], sample_weight, q, stoppers[k], threads),
                            len(targets), self.n_jobs)
        per_problem = [a for a, _ in fits]
        fitted = {key: per_problem[0][key] if len(fits) == 1 else np.stack([np.asarray(a[key]) for a in per_problem])
                  for key in per_problem[0]}
        fitted.update(result_attributes([r for _, r in fits], self))
        self._warn_budget(fitted["status_"])
        if self._precomputed():
            fitted["n_kernels_"] = X.shape[0]
        elif self._approximated():
            fitted["feature_map_"] = K.feature_map
        else:
            fitted["X_fit_"] = X
        if widths is not None:
            fitted["widths_"] = widths
        self._commit(classes_=classes, n_train_=targets.shape[1], **noise, **fitted)
        return self

    def _noise_level(self, X, y):
        """{``noise_level_``, transition_matrix_} for ``noise_level="auto"``, else {}. The transition matrix T
        comes from ``robustcore.noise.estimate_transition`` (out-of-fold logistic regression on the
        features); q is the expected fraction of wrong labels under it, sum_i pi_i (1 - T[i, i]) with pi the
        clean class priors (for two classes ``pi_+`` ``rho_+`` + ``pi_-`` ``rho_-``), capped below 0.5."""
        if getattr(self, "noise_level", None) != "auto":
            return {}
        if self._precomputed():
            raise ValueError("noise_level='auto' estimates the noise from the features; give noise_level with "
                             "kernels='precomputed'")
        from ..noise import estimate_transition, wrong_label_fraction

        T = estimate_transition(X, y, cv=self._cv_splitter(y))
        q = wrong_label_fraction(T, np.unique(y, return_inverse=True)[1])
        return {"noise_level_": float(min(max(q, 0.0), 0.49)), "transition_matrix_": T}
    def _check_work_memory(self, n, sample_weight, float32=False, n_problems=1):
        """MemoryError before any work (the out-of-fold fits of ``noise_level="auto"``
        included) when a dense training bank of n rows (``low_rank_tol=None`` or callables) would pass
        max_memory_mb; subclasses add their solver's own work arrays (SimpleMKL's combined kernel). A factored
        bank is sized by ``gaussian_bank_factored`` itself, feature blocks by ``_blocks.check_blocks_memory``."""
        if self._precomputed():
            return
        if self._approximated():
            self._blocks_budget(n, float32, n_problems)
            return
        m = (gaussian_bank_size(self.n_features_in_, _widths_array(self.widths)) if isinstance(self.kernels, str)
             else len(self.kernels))
        if self.early_stopping:  # the held-out rows' bank against the training rows, float64
            n_val = int(math.ceil(self.validation_fraction * n))
            _check_memory(n_val, n - n_val, m, "float64", self.max_memory_mb)
        if not (isinstance(self.kernels, str) and self.low_rank_tol is not None):
            _check_memory(n, n, m, self.dtype, self.max_memory_mb)

    def _warn_budget(self, status):
        """The ``ConvergenceWarning`` of a fit that ended on its iteration budget before the gap fell below tol."""
        warn_max_iter(self, status, self.tol)

    def _held_out(self, X, y, sample_weight):
        """(X, y, sample_weight) of the training rows and (X rows or precomputed kernel rows against the training
        rows, y, sample_weight) held out by ``early_stopping`` (None without it): ``validation_split``."""
        if not self.early_stopping:
            return X, y, sample_weight, None
        train, val = validation_split(y, self.validation_fraction, self.random_state)
        sw = (None, None) if sample_weight is None else (sample_weight[train], sample_weight[val])
        if self._precomputed():
            return X[:, train][:, :, train], y[train], sw[0], (X[:, val][:, :, train], y[val], sw[1])
        return X[train], y[train], sw[0], (X[val], y[val], sw[1])

    def _blocks_budget(self, n, float32, n_problems, n_val=None):
        """Bytes of each feature-block solve (``_blocks.check_blocks_memory``; MemoryError when nothing fits)."""
        if n_val is None:
            n_val = int(math.ceil(self.validation_fraction * n)) if self.early_stopping else 0
            n -= n_val
        threads, concurrent = self._concurrent(n_problems)
        return _blocks.check_blocks_memory(
            n, self.n_features_in_, _widths_array(self.widths), self.approximation, self.n_components, float32=float32,
            n_threads=threads, concurrent=concurrent, max_memory_mb=self.max_memory_mb, n_val=n_val)

    def _validation_bank(self, X, widths, X_val, y_val, sw_val, K=None):
        """(the held-out rows' kernels against the training rows (m, n_val, n), y_val, sw_val), computed once;
        with feature blocks (K), the held-out rows' features (n_val, D)."""
        if K is not None and self._approximated():
            return _blocks.features(K.feature_map, X_val), y_val, sw_val
        if self._precomputed():
            return np.asarray(X_val, dtype=np.float64), y_val, sw_val
        if widths is not None:
            return gaussian_bank(X_val, X, widths, max_memory_mb=self.max_memory_mb), y_val, sw_val
        _check_memory(X_val.shape[0], X.shape[0], len(self.kernels), "float64", self.max_memory_mb)
        return np.stack([np.asarray(k(X_val, X), dtype=np.float64) for k in self.kernels]), y_val, sw_val

    def _stopper(self, K_val, y_val, sw_val):
        """The ``EarlyStopping`` of one +-1 problem: the weighted accuracy on the held-out rows of the model
        (coef (m, n_train), intercept); further arrays (the solver's dual variables) do not enter."""
        def score(coef, *_, intercept=0.0):
            f = K_val @ coef if K_val.ndim == 2 else np.einsum("jti,ji->t", K_val, coef)  # feature blocks: (n_val, D)
            return accuracy(f + intercept, y_val, sw_val)

        return EarlyStopping(self.tol, self.n_iter_no_change, score)

    def _train_bank(self, X, concurrency=(1, 1), validation=None):
        """(the training bank, the Gaussian widths or None); with ``approximation``, the feature blocks
        (``concurrency``: the threads of a problem and the problems solved at once, which share the budget)."""
        dtype = _DTYPES[self.dtype]
        if self._precomputed():
            return _DenseBank(np.ascontiguousarray(X, dtype=dtype)), None
        n = X.shape[0]
        if self._approximated():
            widths = _widths_array(self.widths)
            n_val = 0 if validation is None else validation[0].shape[0]
            budget = self._blocks_budget(n, X.dtype == np.float32, concurrency[1], n_val=n_val)
            fmap = _blocks.fit_feature_map(X, widths, self.approximation, self.n_components, self.random_state)
            return _blocks.FeatureBlocks(X, fmap, budget), widths
        if self.kernels == "gaussian_bank":
            widths = _widths_array(self.widths)
            if self.low_rank_tol is not None:
                return gaussian_bank_factored(X, widths, tol=self.low_rank_tol, max_memory_mb=self.max_memory_mb,
                                              verbose=self.verbose), widths
            return _DenseBank(gaussian_bank(X, None, widths, dtype=self.dtype, max_memory_mb=self.max_memory_mb)), widths
        m = len(self.kernels)
        _check_memory(n, n, m, self.dtype, self.max_memory_mb)
        K = np.empty((m, n, n), dtype=dtype)
        for j, k in enumerate(self.kernels):
            Kj = np.asarray(k(X, X), dtype=np.float64)
            if Kj.shape != (n, n) or not np.all(np.isfinite(Kj)):
                raise ValueError(f"kernel {j} must return a finite ({n}, {n}) matrix, got shape {Kj.shape}")
            K[j] = Kj
        return _DenseBank(K), None

    def _raw_decision(self, X):
        """sum_j sum_i ``coef_[j, i]`` k_j(x, x_i) for new rows x (one column per class when one-vs-rest)."""
        if self.coef_.ndim == 3:
            return np.stack([self._raw_decision_one(X, c) for c in self.coef_], axis=1)
        return self._raw_decision_one(X, self.coef_)

    def _raw_decision_one(self, X, coef):
        coef = np.ascontiguousarray(coef, dtype=np.float64)
        if self._precomputed():
            return np.einsum("jti,ji->t", np.asarray(X, dtype=np.float64), coef)
        if self._approximated():
            return _blocks.decision(self.feature_map_, X, coef)
        if self.kernels == "gaussian_bank":
            out = np.empty(X.shape[0])
            # the fitted arrays as the engine takes them (a model unpickled on another machine may hold
            # non-native byte order, a user may have made them read-only): converted here, copies only if needed
            _core.gaussian_bank_decision(np.ascontiguousarray(X, dtype=np.float64),
                                         np.ascontiguousarray(self.X_fit_, dtype=np.float64),
                                         np.ascontiguousarray(self.widths_, dtype=np.float64), coef, out)
            return out
        out = np.zeros(X.shape[0])
        for j, k in enumerate(self.kernels):
            out += np.asarray(k(X, self.X_fit_), dtype=np.float64) @ coef[j]
        return out

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """:math:`f(x) = \\sum_j f_j(x)` (+ ``intercept_`` for SimpleMKL); positive means ``classes_[1]``."""
        check_is_fitted(self)
        return self._raw_decision(self._validate_predict(X)) + getattr(self, "intercept_", 0.0)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The predicted classes: the sign (two classes) or the arg-max of ``decision_function``."""
        scores = self.decision_function(X)  # first: NotFittedError before fit
        return self._labels_from_scores(scores)

    @staticmethod
    def _kernel_weights_from_coef(K, coef):
        if isinstance(K, _blocks.FeatureBlocks):
            norms = K.block_norms(coef)
        else:
            G = K.apply_each(np.ascontiguousarray(coef, dtype=np.float64))
            norms = np.sqrt(np.maximum(np.einsum("ji,ji->j", coef, G), 0.0))
        tot = norms.sum()
        return norms / tot if tot > 0 else np.full(len(norms), 1.0 / len(norms)), norms


def _solve(K, y, *, alpha, upper, rho, step_size, gamma0, max_iter, tol, method, verbose=0, sample_weight=None,
           stopper=None, n_threads=1):
    """Run the engine on a bank (_DenseBank or FactoredKernelBank); returns (coef, dual, EngineResult, gap).
    ``stopper``: an ``EarlyStopping`` scoring (coef, dual) after every iteration, in the same run (the engine
    writes its averages into them before each progress call); the engine's gap rule is then off.

    The engine checks every option (ValueError). Feature blocks (``_blocks.FeatureBlocks``) solve in the
    primal: coef is then the weights w (D,)."""
    if isinstance(K, _blocks.FeatureBlocks):
        return K.solve(y, alpha=alpha, upper=upper, rho=rho, step_size=step_size, gamma0=gamma0, max_iter=max_iter,
                       tol=tol, method=method, verbose=verbose, sample_weight=sample_weight, stopper=stopper,
                       n_threads=n_threads)
    m, n = K.m, K.n
    opt = _core.MklOptions()
    opt.alpha, opt.upper, opt.rho, opt.gamma, opt.gamma0 = alpha, upper, rho, step_size, gamma0
    opt.max_iter, opt.tol, opt.method = max_iter, 0.0 if stopper is not None else tol, _METHODS[method]
    opt.n_threads = n_threads
    coef = np.zeros((m, n))
    dual = np.zeros(n)
    with Progress(verbose, max_iter, f"mkl {method}", unit="iter") as bar:
        callback = bar.callback() if stopper is None else stopper.watch((coef, dual), bar.callback())
        res = _core.mkl_solve(_engine_bank(K), np.ascontiguousarray(y, dtype=np.float64), opt, coef, dual,
                              callback, sample_weight)
    result = engine_result(res) if stopper is None else stopper.finish((coef, dual), engine_result(res))
    return coef, dual, result, res.gap


def _intercept(clf):
    """The intercept of a fitted binary SVC in the +-1 convention (``classes_[1]`` == 1 is the positive side)."""
    return float(clf.intercept_[0]) * (1.0 if clf.classes_[1] == 1.0 else -1.0)


def _total_weight(y, sample_weight):
    """n, or the sum of the sample weights (the size of the data a weighted sample stands for)."""
    return float(len(y)) if sample_weight is None else float(sample_weight.sum())
