"""The names of the noise functions' string options, as ``Literal`` types for static checkers and, through
``typing.get_args``, the runtime checks' lists (``find_label_issues`` in memory and on dask collections,
``estimate_transition``, ``PrunedClassifier``)."""

from typing import Literal

#: the estimators of the transition matrix (``method=``): the names ``_transition`` implements (a test holds them
#: equal to its ``_METHODS``)
TransitionMethod = Literal["auto", "asymptotes", "confident_joint", "anchor"]
#: ``find_label_issues``' label-quality scores (``rank_by``)
RankBy = Literal["margin", "normalized_margin", "self_confidence", "confidence_weighted_entropy"]
#: the cleanlab rules ``find_label_issues`` has (``filter_by``)
FilterBy = Literal["prune_by_noise_rate", "prune_by_class", "both", "predicted_neq_given", "low_normalized_margin",
                   "low_self_confidence"]
