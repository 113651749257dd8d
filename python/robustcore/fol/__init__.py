"""Focused Online Learning (FOL): minimise the maximal loss over the training set.

FOL (Shalev-Shwartz & Wexler, "Minimizing the Maximal Loss: How and Why", section 2.3) plays a
zero-sum game: an online learner (the w player) against an EXP3-style sampler (the p player) that
keeps one weight per training example in a sum tree (:math:`O(\\log m)` sample and update, C++). Examples the
current model gets wrong are sampled more and more often, so the learner focuses on the hard ones.

* :class:`FocusedOnlineClassifier` — scikit-learn estimator of the game (``_estimator.py``). Its w player is a
  learner object (``_learners.py``): :class:`Perceptron` (the paper's Example 1) or :class:`OnlineSGD` (one SGD
  step on any loss of :mod:`robustcore.losses` per FOL step), each with its own parameters, run by the engine
  ("perceptron" / "sgd" name them with their defaults); or any object following the Python learner protocol
  below. Output: majority vote or average of ``k`` iterates taken at times drawn uniformly from :math:`\\{1, \\ldots, T\\}` before
  the run, or the last iterate.
* Python learner protocol — any object with ::

      step(X_batch, y_batch)       one online update (labels in {-1, +1})
      loss(X, y) -> ndarray        per-example loss in [0, 1] of the current model (the p player's)
      decision_function(X)         real scores; > 0 predicts +1, 0 or below -1

  can be the w player; the C++ tree samples and updates (:func:`focused_online_learning`).
  :class:`PartialFitLearner` adapts any scikit-learn ``partial_fit`` classifier.
* Robust variants (section 4, ``_robust.py``): sub-sampling with repetitions (:func:`subsample_with_repetitions`,
  sized by :func:`theorem3_sample_size` / :func:`theorem3_failure_bound`), and slack variables
  (``slack_budget=K``: additive slack :math:`\\xi \\in [0, 1]^m` with :math:`\\sum_i \\xi_i \\le K`, projected exactly by
  ``_core.project_capped_simplex``).
* :class:`AdaBoostOnlineClassifier` — the AdaBoost baseline of the paper's experiment 2 (``_adaboost.py``: each
  round one epoch of an engine learner sampling from p, weighted-majority output).

Probabilities: wrap an estimator in ``sklearn.calibration.CalibratedClassifierCV(method="sigmoid",
ensemble=False)`` (Platt's sigmoid on out-of-fold scores).
"""

from ._adaboost import AdaBoostOnlineClassifier
from ._estimator import FocusedOnlineClassifier
from ._learners import NumpyPerceptron, OnlineSGD, PartialFitLearner, Perceptron, default_k, focused_online_learning
from ._robust import subsample_with_repetitions, theorem3_failure_bound, theorem3_sample_size

__all__ = ["AdaBoostOnlineClassifier", "FocusedOnlineClassifier", "NumpyPerceptron", "OnlineSGD", "PartialFitLearner",
           "Perceptron", "default_k", "focused_online_learning", "subsample_with_repetitions", "theorem3_failure_bound",
           "theorem3_sample_size"]
