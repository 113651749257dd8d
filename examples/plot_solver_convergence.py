"""
Solver convergence curves
=========================

The same L2-regularised logistic problem solved by plain SGD, averaged SGD and three variance-reduced
solvers; ``history=True`` records the objective after every pass and
:func:`robustcore.plotting.plot_history` draws it. The variance-reduced solvers keep decreasing towards the
optimum; the SGD family stalls at the noise level of its steps.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification

import robustcore as rc
from robustcore import plotting

X, y = make_classification(n_samples=3000, n_features=30, random_state=0)
solvers = ["sgd", "asgd", "sag", "saga", "svrg"]
fits = [rc.LinearClassifier(loss="log_loss", solver=s, alpha=1e-3, max_iter=15, history=True,
                            random_state=0).fit(X, y) for s in solvers]
for s, clf in zip(solvers, fits):
    print(f"{s:5s} final objective {clf.history_['objective'][-1]:.4f}")

fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
plotting.plot_history(fits, "objective", labels=solvers, ax=ax)
ax.set_yscale("log")
ax.set_title("objective per pass, logistic loss, alpha = 1e-3")
plt.show()
