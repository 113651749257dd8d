"""What a user writes against robustcore's public API, under the types a user would write: checked by
``mypy --strict`` in test_typing.py (never run). Each function returns a public call's result under its declared
type, so a public name whose result is ``Any`` fails the check ("Returning Any from function declared to return
..."), and a misspelt string option is a type error: each ``# type: ignore[...]`` below is needed, and
``--strict``'s ``--warn-unused-ignores`` fails the check when a ``Literal`` stops refusing it."""

from __future__ import annotations

from typing import Any, Callable

import dask.array as da
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import NDArray

import robustcore as rc
from robustcore import datasets, losses, mkl, noise, plotting, tabular, variance_reduced
from robustcore._core import (FactoredKernelBank, FusedMatrix, KernelBankMap, Matrix, NystroemMap, RandomFourierMap,
                              VrParams)
from robustcore.dask import DaskNoisyLabelClassifierCV, ParameterMixingClassifier
from robustcore.fol import (AdaBoostOnlineClassifier, FocusedOnlineClassifier, NumpyPerceptron, OnlineSGD,
                            PartialFitLearner, focused_online_learning, theorem3_sample_size)
from robustcore.kernel_approximation import KernelBank, MappedFeatures, Nystroem, RandomFourierFeatures
from robustcore.kernel_model import KernelClassifier
from robustcore.linear_model import LBFGS, SAGA, SGD, SVRG, LinearClassifier
from robustcore.multilabel import BinaryRelevanceClassifier, LabelPowersetClassifier
from robustcore.noise import NoiseCorrectedClassifier, NoisyLabelClassifierCV, PrunedClassifier

X = np.zeros((4, 2))
y = np.array([0, 1, 0, 1])
Floats = NDArray[np.float64]


# ----------------------------------------------------------------------------- estimators: fit returns the estimator
def linear(X: Floats, y: NDArray[Any]) -> LinearClassifier:
    return LinearClassifier(loss="sramp", solver=SAGA(), alpha=1e-3, class_weight="balanced").fit(X, y)


def linear_by_name() -> LinearClassifier:
    return LinearClassifier(solver="lbfgs", sramp_params="paper", alpha="auto")


def linear_partial(clf: LinearClassifier, X: Floats, y: NDArray[Any]) -> LinearClassifier:
    return clf.partial_fit(X, y, classes=[0, 1])


def kernel(X: Floats, y: NDArray[Any]) -> KernelClassifier:
    return KernelClassifier(kernel="laplacian", approximation="rff", landmarks="kmeans++", fused="auto").fit(X, y)


def noisy_cv(X: Floats, y: NDArray[Any]) -> NoisyLabelClassifierCV:
    return NoisyLabelClassifierCV(remedies=("plain", "pruned", "sramp"), detector="kernel").fit(X, y)


def corrected(X: Floats, y: NDArray[Any]) -> NoiseCorrectedClassifier:
    return NoiseCorrectedClassifier(noise_rates="auto").fit(X, y)


def pruned(X: Floats, y: NDArray[Any]) -> PrunedClassifier:
    return PrunedClassifier(method="confident_joint").fit(X, y)


def fol(X: Floats, y: NDArray[Any]) -> FocusedOnlineClassifier:
    return FocusedOnlineClassifier(learner="sgd", focus="clipped", output="average", subsample="theorem3").fit(X, y)


def adaboost(X: Floats, y: NDArray[Any]) -> AdaBoostOnlineClassifier:
    return AdaBoostOnlineClassifier(learner=OnlineSGD(loss="log_loss", learning_rate="invscaling")).fit(X, y)


def noisy_mkl(X: Floats, y: NDArray[Any]) -> mkl.NoisyMKLClassifier:
    return mkl.NoisyMKLClassifier(noise_level="auto", method="vi", dtype="float32", approximation="nystroem").fit(X, y)


def mip_mkl(X: Floats, y: NDArray[Any]) -> mkl.MiPMKLClassifier:
    return mkl.MiPMKLClassifier(kernels="precomputed").fit(X, y)


def simple_mkl(X: Floats, y: NDArray[Any]) -> mkl.SimpleMKLClassifier:
    return mkl.SimpleMKLClassifier().fit(X, y)


def binary_relevance(X: Floats, Y: NDArray[Any]) -> BinaryRelevanceClassifier:
    return BinaryRelevanceClassifier(class_weight="balanced").fit(X, Y)


def label_powerset(X: Floats, Y: NDArray[Any]) -> LabelPowersetClassifier:
    return LabelPowersetClassifier().fit(X, Y)


def mixing(X: da.Array, y: da.Array) -> ParameterMixingClassifier:
    return ParameterMixingClassifier(noise_rates="auto").fit(X, y)


def dask_cv(X: da.Array, y: da.Array) -> DaskNoisyLabelClassifierCV:
    return DaskNoisyLabelClassifierCV(posterior="mixing").fit(X, y)


def set_params(clf: LinearClassifier) -> LinearClassifier:
    return clf.set_params(alpha=1e-2)


# ----------------------------------------------------------------------------- predictions
def scores(clf: LinearClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def probabilities(clf: LinearClassifier, X: Floats) -> Floats:
    return clf.predict_proba(X)


def log_probabilities(clf: LinearClassifier, X: Floats) -> Floats:
    return clf.predict_log_proba(X)


def labels(clf: LinearClassifier, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def accuracy(clf: LinearClassifier, X: Floats, y: NDArray[Any]) -> float:
    return clf.score(X, y)


def kernel_labels(clf: KernelClassifier, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def kernel_proba(clf: KernelClassifier, X: Floats) -> Floats:
    return clf.predict_proba(X)


def kernel_scores(clf: KernelClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def kernel_accuracy(clf: KernelClassifier, X: Floats) -> float:
    return clf.score(X, y)


def kernel_features(clf: KernelClassifier, X: Floats) -> NDArray[np.floating[Any]]:
    return clf.features(X)


def wrapper_labels(clf: NoisyLabelClassifierCV, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def wrapper_proba(clf: NoiseCorrectedClassifier, X: Floats) -> Floats:
    return clf.predict_proba(X)


def wrapper_scores(clf: PrunedClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def wrapper_accuracy(clf: NoisyLabelClassifierCV, X: Floats) -> float:
    return clf.score(X, y)


def report(clf: NoisyLabelClassifierCV) -> str:
    return clf.report()


def plot(clf: NoisyLabelClassifierCV) -> Axes:
    return clf.plot()


def fol_labels(clf: FocusedOnlineClassifier, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def fol_scores(clf: FocusedOnlineClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def adaboost_scores(clf: AdaBoostOnlineClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def fol_accuracy(clf: AdaBoostOnlineClassifier, X: Floats) -> float:
    return clf.score(X, y)


def mkl_labels(clf: mkl.NoisyMKLClassifier, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def mkl_scores(clf: mkl.SimpleMKLClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def multilabel_indicators(clf: BinaryRelevanceClassifier, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


def multilabel_marginals(clf: LabelPowersetClassifier, X: Floats) -> Floats:
    return clf.predict_proba(X)


def multilabel_scores(clf: BinaryRelevanceClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def multilabel_combinations(clf: LabelPowersetClassifier, X: Floats) -> Floats:
    return clf.predict_combination_proba(X)


def mixing_lazy(clf: ParameterMixingClassifier, X: da.Array) -> da.Array:
    return clf.predict_proba(X)


def mixing_in_memory(clf: ParameterMixingClassifier, X: Floats) -> Floats:
    return clf.decision_function(X)


def mixing_accuracy(clf: ParameterMixingClassifier, X: Floats) -> float:
    return clf.score(X, y)


def dask_cv_lazy(clf: DaskNoisyLabelClassifierCV, X: da.Array) -> da.Array:
    return clf.predict(X)


def dask_cv_in_memory(clf: DaskNoisyLabelClassifierCV, X: Floats) -> NDArray[Any]:
    return clf.predict(X)


# ----------------------------------------------------------------------------- transformers
def rff_fit(X: Floats) -> RandomFourierFeatures:
    return RandomFourierFeatures(kernel="laplacian", gamma="scale").fit(X)


def rff_features(rff: RandomFourierFeatures, X: Floats) -> NDArray[np.floating[Any]]:
    return rff.transform(X)


def nystroem_features(X: Floats) -> NDArray[np.floating[Any]]:
    return Nystroem(kernel="polynomial", landmarks="uniform").fit_transform(X)


def bank_fit(X: Floats) -> KernelBank:
    return KernelBank(method="nystroem", groups="each").fit(X)


def rff_map(rff: RandomFourierFeatures) -> RandomFourierMap:
    return rff.engine_map()


def nystroem_map(nys: Nystroem) -> NystroemMap:
    return nys.engine_map()


def bank_map(bank: KernelBank) -> KernelBankMap:
    return bank.engine_map()


def feature_names(rff: RandomFourierFeatures) -> NDArray[np.object_]:
    return rff.get_feature_names_out()


# ----------------------------------------------------------------------------- noise functions
def flips(y: NDArray[Any]) -> NDArray[Any]:
    return noise.flip_labels(y, 0.2, mode="bernoulli")


def flips_with_mask(y: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    return noise.flip_labels(y, {0: 0.1}, return_mask=True)


def oof(X: Floats, y: NDArray[Any]) -> tuple[Floats, NDArray[Any]]:
    return noise.out_of_fold_proba(X, y)


def transition(X: Floats, y: NDArray[Any]) -> Floats:
    return noise.estimate_transition(X, y, method="anchor")


def given_transition(y: NDArray[Any]) -> Floats:
    return noise.transition_matrix({0: 0.1}, [0, 1])


def weights(X: Floats, y: NDArray[Any]) -> Floats:
    return noise.importance_weights(X, y, noise_rates=(0.1, 0.2))


def issues(X: Floats, y: NDArray[Any]) -> NDArray[Any]:
    return noise.find_label_issues(X, y, rank_by="self_confidence", filter_by="prune_by_class")


def issues_and_scores(P: Floats, y: NDArray[Any]) -> tuple[NDArray[Any], Floats]:
    return noise.find_label_issues(labels=y, pred_probs=P, return_scores=True)


def correction(P: Floats, labels: NDArray[np.intp]) -> tuple[Floats, Floats]:
    return noise.noise_correction(P, labels)


def corrected_weights(P: Floats, labels: NDArray[np.intp], T: Floats) -> Floats:
    return noise.corrected_weights(P, labels, T)


def wrong_fraction(T: Floats, labels: NDArray[np.intp]) -> float:
    return noise.wrong_label_fraction(T, labels)


def priors(T: Floats, labels: NDArray[np.intp]) -> Floats:
    return noise.clean_prior(T, labels)


def joint(P: Floats, labels: NDArray[np.intp]) -> tuple[NDArray[Any], NDArray[Any]]:
    return noise.confident_joint(labels, P)


def corrected_accuracy(T: Floats, y: NDArray[Any]) -> float:
    return noise.corrected_accuracy(y, y, T)


def scorer(T: Floats) -> Callable[..., float]:
    return noise.corrected_scorer(T)


def detector(clf: LinearClassifier) -> LinearClassifier:
    return noise.linear_detector(clf)


def distributed_issues(y: da.Array, P: da.Array) -> tuple[da.Array, da.Array]:
    from robustcore.noise import distributed

    return distributed.find_label_issues(labels=y, pred_probs=P, return_scores=True)


def distributed_oof(X: da.Array, y: da.Array) -> da.Array:
    from robustcore.noise import distributed

    return distributed.out_of_fold_proba(X, y)


# ----------------------------------------------------------------------------- the rest of the library
def loss_value(z: Floats) -> Floats:
    return losses.value("rgomp", z)


def loss_deriv(z: Floats) -> Floats:
    return losses.deriv("sramp", z, s=-0.7)


def engine_matrix(X: Floats) -> Matrix | FusedMatrix:
    return variance_reduced.as_matrix(X)


def vr_params() -> VrParams:
    return variance_reduced.make_params("svrg", alpha=1e-3, max_iter=5, svrg_option="random")


def vr_solve(X: Floats, y: Floats) -> tuple[Floats, float, Any]:
    return variance_reduced.solve(X, y, loss="log_loss", solver="finito")


def bank(X: Floats) -> NDArray[np.floating[Any]]:
    return mkl.gaussian_bank(X, dtype="float32")


def factored_bank(X: Floats) -> FactoredKernelBank:
    return mkl.gaussian_bank_factored(X)


def fol_run(X: Floats, y: Floats) -> dict[str, Any]:
    return focused_online_learning("perceptron", X, y, n_steps=5)


def sample_size() -> tuple[int, float | None]:
    return theorem3_sample_size(1000, 2)


def protocol_loss(X: Floats, y: Floats) -> Floats:
    return PartialFitLearner(None).loss(X, y)


def numpy_perceptron(X: Floats) -> Floats:
    return NumpyPerceptron(2).decision_function(X)


def loss_plot() -> Axes:
    return plotting.plot_losses(("hinge", "ramp"))


def history_plot(clf: LinearClassifier) -> Axes:
    return plotting.plot_history([clf])


def data() -> tuple[Any, NDArray[Any], Any, NDArray[Any]]:
    return datasets.load("digits38")


def multilabel_data() -> tuple[Floats, NDArray[np.int64], Floats, NDArray[np.int64]]:
    return datasets.load_multilabel("emotions")


def multilabel_data_and_names() -> list[str]:
    return datasets.load_multilabel("scene", return_names=True)[5]


def libsvm_table(path: str) -> tuple[Any, Floats]:
    return tabular.read_table(path, format="libsvm")


def mapped_rows(rff: RandomFourierFeatures, X: Floats) -> FusedMatrix:
    return MappedFeatures(rff, X).matrix(float32=False)


def top_level() -> type[rc.LinearClassifier]:
    return rc.LinearClassifier


# ----------------------------------------------------------------------------- misspelt options: type errors
def refused() -> None:
    LinearClassifier(loss="logistic")  # type: ignore[arg-type]
    LinearClassifier(solver="adam")  # type: ignore[arg-type]
    SGD(learning_rate="optimall")  # type: ignore[arg-type]
    SGD(shuffle="blocks")  # type: ignore[arg-type]
    SVRG(option="first")  # type: ignore[arg-type]
    LBFGS(warm_start_loss="log")  # type: ignore[arg-type]
    LinearClassifier(class_weight="balance")  # type: ignore[arg-type]
    KernelClassifier(kernel="gaussian")  # type: ignore[arg-type]
    KernelClassifier(fused="yes")  # type: ignore[arg-type]
    Nystroem(landmarks="kmeans")  # type: ignore[arg-type]
    RandomFourierFeatures(gamma="auto")  # type: ignore[arg-type]
    NoisyLabelClassifierCV(detector="boosting")  # type: ignore[arg-type]
    NoisyLabelClassifierCV(remedies=("plain", "weighted"))  # type: ignore[arg-type]
    PrunedClassifier(method="joint")  # type: ignore[arg-type]
    FocusedOnlineClassifier(output="vote")  # type: ignore[arg-type]
    OnlineSGD(loss="softmax")  # type: ignore[arg-type]
    mkl.NoisyMKLClassifier(method="mirror")  # type: ignore[arg-type]
    noise.flip_labels(y, 0.1, mode="uniform")  # type: ignore[call-overload]
    noise.find_label_issues(X, y, rank_by="entropy")  # type: ignore[call-overload]
    variance_reduced.make_params("adam", alpha=1.0, max_iter=1)  # type: ignore[arg-type]
    DaskNoisyLabelClassifierCV(posterior="workers")  # type: ignore[arg-type]
    datasets.load("digits")  # type: ignore[arg-type]
    tabular.read_table("t.csv", format="xlsx")  # type: ignore[call-overload]
    tabular.find_table_issues(X, y=y, estimator="boosted")  # type: ignore[arg-type]
