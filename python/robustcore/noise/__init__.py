"""Label noise: the label-flip protocols of the papers robustcore reproduces (``flip_labels``), and
noise-rate estimation and label-issue detection (``estimate_transition``, ``find_label_issues``,
``out_of_fold_proba``, ``confident_joint``, ``linear_detector``), noise correction (``importance_weights``,
``corrected_weights``, ``transition_matrix``, ``clean_prior``, ``wrong_label_fraction``) and model
selection on noisy labels (``corrected_accuracy``, ``corrected_scorer``); the remedies as wrappers around
any classifier: ``NoiseCorrectedClassifier`` (importance-weighted training) and ``PrunedClassifier`` (the
flagged rows left out), and ``NoisyLabelClassifierCV``, which estimates the noise once and chooses and tunes
the remedy by noise-corrected cross-validation (the practitioner's default).

The subpackage holds one concept, learning from noisy labels; its private modules: ``_flip`` (flipping),
``_transition`` (estimators of T), ``_options`` (the names of the functions' string options), ``_label_noise`` (out-of-fold probabilities, detection, the correction's
rule), ``_scoring`` (the corrected accuracy), ``_meta`` (what the wrappers share: their default estimator, a
``LinearClassifier``'s detector), ``_corrected`` and
``_pruned`` (the two wrappers and the pruning rule), ``_cv`` (``NoisyLabelClassifierCV`` and its shared
out-of-fold pass).

``flip_labels`` has two protocols:

* ``mode="exact"`` (SRamp paper, ``robust-losses-sgd-sramp``): exactly :math:`\\lfloor r n + 1/2 \\rfloor` of the
  :math:`n` labels (rate :math:`r`; halves round up), chosen uniformly without replacement, are flipped, so
  ``rate=0.5, n=5`` flips 3 labels.
* ``mode="bernoulli"`` (MKL paper, ``mkl-noisy-labels-mirror-prox``): every label is flipped
  independently with probability ``rate``; the number flipped is :math:`\\mathrm{Binomial}(n, r)`.

``rate`` may also be a dict ``{class_value: rate}`` for class-conditional noise: the labels of each
class are flipped at that class's own rate (with the same ``mode`` applied within each class; classes
absent from the dict get rate 0).

Labels may be any values (``-1/+1``, ``0/1``, ``2/4``, ``"a"/"b"``...); the result keeps the dtype and
the value set of ``y``. For binary ``y`` a flip replaces a label by the other class. Multi-class ``y``
(more than two classes) is supported too: a flipped label is replaced by one of the *other* classes
chosen uniformly at random (symmetric noise), so ``rate`` is still the fraction of wrong labels.
"""

from ._corrected import NoiseCorrectedClassifier
from ._cv import NoisyLabelClassifierCV, RemedyName  # noqa: F401 (RemedyName: the remedies' names, for annotations)
from ._flip import flip_labels
from ._label_noise import (NoiseEstimateWarning, clean_prior, corrected_weights, estimate_transition, find_label_issues,
                           importance_weights, noise_correction, out_of_fold_proba, wrong_label_fraction)
from ._label_noise import kIllConditionedT as ILL_CONDITIONED_T
from ._meta import linear_detector
from ._pruned import PrunedClassifier
from ._scoring import corrected_accuracy, corrected_scorer
from ._transition import confident_joint, transition_matrix

__all__ = ["ILL_CONDITIONED_T", "NoiseCorrectedClassifier", "NoiseEstimateWarning", "NoisyLabelClassifierCV",
           "PrunedClassifier", "clean_prior", "confident_joint", "corrected_accuracy", "corrected_scorer",
           "corrected_weights", "estimate_transition", "find_label_issues", "flip_labels", "importance_weights",
           "linear_detector", "noise_correction", "out_of_fold_proba", "transition_matrix", "wrong_label_fraction"]
