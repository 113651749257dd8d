"""Data-parallel training on a ``dask.distributed`` cluster: ``ParameterMixingClassifier``.

Iterative parameter mixing (McDonald, Hall and Mann 2010; Zinkevich, Weimer, Smola and Li 2010): the training data
stay in the workers' memory, one shard per partition (block of rows) of the dask collection. Every round sends the
current model to the shards; each shard runs the engine's solver (``robustcore.LinearClassifier``'s, any loss and
solver object) for ``local_max_iter`` epochs on its rows, starting from that model; the driver averages the shards'
models weighted by their rows, and starts the next round from the average. Only weight vectors travel.

A shard's task is a pure function of (its rows, the model, a seed drawn from ``random_state``, the round and the
partition index): the fit is reproducible given ``random_state`` and the partitioning (not the number of workers),
and a task dask re-runs after losing a worker computes the same model.

Kernel models: ``ParameterMixingClassifier(estimator=robustcore.KernelClassifier(...))`` fits the kernel's feature
map once, on the driver, on a seeded sample of rows drawn from every partition, and sends it to the shards with the
model; each shard trains the KernelClassifier's linear estimator on its rows' features, mapped inside the engine
batch by batch (``robustcore.kernel_approximation.MappedFeatures``: no partition's n x D matrix), and the driver
mixes the linear models by the same rule. The fitted model is a ``KernelClassifier`` (``to_local()``).

Noisy labels: ``estimate_transition``, ``find_label_issues`` (also from your own ``pred_probs`` as a dask array) and
``out_of_fold_proba`` (per partition) compute the transition matrix and the label issues from per-partition sums,
counts and order statistics (``robustcore.noise.distributed``; ``robustcore.noise``'s functions given a dask
collection run them).

The driver lives with the linear models it trains (``linear_model/_mixing.py``, the worker side
``linear_model/_shards.py``). Needs the optional dependencies: ``pip install "robustcore[dask]"``.
"""

from .linear_model._mixing import MAP_SAMPLE_ROWS, ParameterMixingClassifier
from .noise.distributed import NoiseOnPartitions, estimate_transition, find_label_issues, out_of_fold_proba

__all__ = ["ParameterMixingClassifier", "estimate_transition", "find_label_issues", "out_of_fold_proba"]
