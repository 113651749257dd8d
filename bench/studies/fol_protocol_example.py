"""Question: Can Focused Online Learning drive a learner written in Python (a NumPy network, a scikit-learn
  partial_fit estimator) through its learner protocol?
Answer: yes: both train through robustcore.fol's protocol with the engine's sum tree sampling
  (docs/user_guide/fol.md)
Date: 2026-11-23
Private imports: none.

FOL with a Python-level w player: a small NumPy two-layer network (and a scikit-learn partial_fit
estimator) trained by Focused Online Learning, the C++ sum tree doing the sampling.

    python bench/studies/fol_protocol_example.py [--epochs 30]

The learner protocol (robustcore.fol): step(X_batch, y_batch), loss(X, y) -> per-example loss in
[0, 1] for the p player, decision_function(X). Data: scikit-learn's two moons (not linearly
separable, realisable by a small network), labels in {-1, +1}.
"""

import argparse

import numpy as np
from sklearn.datasets import make_moons
from sklearn.linear_model import SGDClassifier

import robustcore as rc
from robustcore.fol import PartialFitLearner


class TwoLayerNet:
    """x -> tanh(x W1 + b1) v + c, logistic loss, plain SGD on mini-batches (NumPy only)."""

    def __init__(self, n_features, hidden=32, lr=0.2, seed=0):
        rng = np.random.default_rng(seed)
        self.W1 = rng.normal(scale=1.0 / np.sqrt(n_features), size=(n_features, hidden))
        self.b1 = np.zeros(hidden)
        self.v = rng.normal(scale=1.0 / np.sqrt(hidden), size=hidden)
        self.c = 0.0
        self.lr = lr

    def decision_function(self, X):
        return np.tanh(X @ self.W1 + self.b1) @ self.v + self.c

    def loss(self, X, y):
        # the p player's loss: the 0/1 loss (paper, Corollary 1)
        return (y * self.decision_function(X) <= 0).astype(float)

    def step(self, X, y):
        H = np.tanh(X @ self.W1 + self.b1)
        f = H @ self.v + self.c
        g = -y / (1.0 + np.exp(np.clip(y * f, -50, 50))) / len(y)  # d logistic / d f, averaged
        gH = np.outer(g, self.v) * (1 - H**2)
        self.v -= self.lr * H.T @ g
        self.c -= self.lr * g.sum()
        self.W1 -= self.lr * X.T @ gH
        self.b1 -= self.lr * gH.sum(axis=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=30)
    args = ap.parse_args()
    X, y = make_moons(n_samples=1000, noise=0.08, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    for name, gamma in (("FOL", 0.5), ("uniform sampling (gamma=1)", 1.0)):
        clf = rc.FocusedOnlineClassifier(learner=TwoLayerNet(2), max_iter=args.epochs, batch_size=16, gamma=gamma,
                                         output="last", random_state=0).fit(X, y)
        h = clf.history_
        print(f"two-layer net, {name}: train error per 5 epochs {np.round(h['train_error'][4::5], 4).tolist()}, "
              f"final {h['train_error'][-1]:.3%}")
    sk = rc.FocusedOnlineClassifier(learner=PartialFitLearner(SGDClassifier(loss="hinge", random_state=0)),
                                    max_iter=5, batch_size=32, output="majority", random_state=0).fit(X, y)
    print(f"sklearn SGDClassifier (linear) as the w player, majority of {len(sk.learners_[0])} iterates: "
          f"train error {1 - sk.score(X, y):.3%}")


if __name__ == "__main__":
    main()
