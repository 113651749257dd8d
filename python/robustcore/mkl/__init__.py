"""Multiple kernel learning from noisy labels (Yang et al., ICML 2012) and its baselines.

* :class:`NoisyMKLClassifier` -- StPMKL: problem (11), the worst case over the label-correctness
  probabilities p, solved by the accelerated mirror prox method (Algorithm 1, ``method="amp"``) or the
  variational-inequality baseline (gradient descent-ascent with step :math:`\\gamma_0 / \\sqrt{T}`, ``method="vi"``).
* :class:`MiPMKLClassifier` -- the best case over p (robust hinge loss of section 3.2's remark),
  solved by alternating between p and an MKL problem on the examples p keeps.
* :class:`SimpleMKLClassifier` -- SimpleMKL (Rakotomamonjy et al. 2008): reduced gradient on the kernel
  weights over the simplex, scikit-learn's ``SVC(kernel="precomputed")`` as inner solver.

Kernels: ``"gaussian_bank"`` (widths :math:`2^{-3}, \\ldots, 2^6` on all features and on each single feature,
:math:`m = 10 (d + 1)`, as in the paper's experiments), a list of callables ``k(A, B) -> (len(A), len(B))``,
or ``"precomputed"`` (then X is an (m, n_samples, n_train) array of kernel values).
By default the Gaussian bank is stored factored (``low_rank_tol=1e-10``: each kernel as a pivoted-Cholesky
factor exact to 1e-10 per entry, or dense when its rank passes n/2), which on the paper's datasets holds
under a tenth of the :math:`n^2 m` values and makes an iteration that much cheaper. A dense bank
(``low_rank_tol=None``, precomputed kernels, callables) holds :math:`n^2 m` values; its size is checked against
``max_memory_mb`` before anything is computed, and ``dtype="float32"`` halves it (the solver then multiplies
in float32 and accumulates the rest in float64). Predictions go through the stored training points
(``X_fit_``).

``NoisyMKLClassifier(approximation="rff" | "nystroem")`` is MKL past :math:`n^2`: each Gaussian kernel of the bank as a
block of explicit features, problem (11) solved in the primal over the blocks' weights (:math:`O(n D)` per pass, no
:math:`n \\times n` values; ``robustcore.mkl._blocks``, ``mkl_blocks.hpp``).

Interrupting a fit with Ctrl-C raises ``KeyboardInterrupt`` and leaves the estimator unfitted.
"""

from ._banks import (DEFAULT_WIDTHS, default_rho, factored_bank_lower_bound, gaussian_bank, gaussian_bank_factored,
                     gaussian_bank_size, group_lasso_squared_prox, kernel_bank_bytes, mkl_objective)
from ._estimators import MiPMKLClassifier, NoisyMKLClassifier, SimpleMKLClassifier

__all__ = [
    "DEFAULT_WIDTHS",
    "NoisyMKLClassifier",
    "MiPMKLClassifier",
    "SimpleMKLClassifier",
    "gaussian_bank",
    "gaussian_bank_factored",
    "gaussian_bank_size",
    "factored_bank_lower_bound",
    "kernel_bank_bytes",
    "group_lasso_squared_prox",
    "mkl_objective",
    "default_rho",
]
