"""
Solver convergence curves
=========================

The same L2-regularised logistic problem solved by plain SGD, averaged SGD and three variance-reduced
solvers (SAG, SAGA, SVRG); ``history=True`` records the objective after every pass. The left panel draws it
with :func:`robustcore.plotting.plot_history`; the right panel its distance to the best value any solver
reached, on a log scale: the variance-reduced solvers converge linearly towards the optimum, while SGD
stalls at the noise level of its steps and averaged SGD approaches slowly.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification

import robustcore as rc
from robustcore import plotting
from robustcore.linear_model import make_solver

X, y = make_classification(n_samples=3000, n_features=30, random_state=0)
solvers = ["sgd", "asgd", "sag", "saga", "svrg"]
fits = [rc.LinearClassifier(loss="log_loss", solver=make_solver(s, history=True), alpha=1e-3, max_iter=20, random_state=0).fit(X, y) for s in solvers]
objectives = [np.asarray(clf.history_["objective"], dtype=float).ravel() for clf in fits]
best = min(o.min() for o in objectives)
for s, o in zip(solvers, objectives):
    print(f"{s:5s} final objective {o[-1]:.5f}, above the best by {o[-1] - best:.1e}")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
plotting.plot_history(fits, "objective", labels=solvers, ax=ax0)
ax0.set_title("objective per pass")
for s, o in zip(solvers, objectives):
    ax1.semilogy(np.arange(1, o.size + 1), np.maximum(o - best, 1e-12), marker=".", label=s)
ax1.set_xlabel("epoch / effective pass")
ax1.set_ylabel("objective - best reached")
ax1.set_title("distance to the optimum")
ax1.legend()
plt.show()
