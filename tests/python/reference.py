"""Plain-NumPy reference implementations the engine is checked against (oracle tests).

Each one is written for clarity, not speed: dense vectors, no scale trick, no lazy updates.
"""

import numpy as np


# ----------------------------------------------------------------------------- losses r(z), r'(z)
def loss_value_deriv(name, z, s=-1.0, alpha=2.65, beta=0.0, c=2.0):
    z = np.asarray(z, dtype=np.float64)
    if name == "hinge":
        return np.maximum(0, 1 - z), np.where(z < 1, -1.0, 0.0)
    if name == "squared_hinge":
        m = np.maximum(0, 1 - z)
        return m**2, -2 * m
    if name in ("log", "log_loss"):
        return np.logaddexp(0, -z), -np.exp(-np.logaddexp(0, z))
    if name == "modified_huber":
        v = np.where(z >= 1, 0.0, np.where(z >= -1, (1 - z) ** 2, -4 * z))
        d = np.where(z >= 1, 0.0, np.where(z >= -1, -2 * (1 - z), -4.0))
        return v, d
    if name == "ramp":
        return np.minimum(1 - s, np.maximum(0, 1 - z)), np.where((z < 1) & (z > s), -1.0, 0.0)
    if name == "sramp":
        u = alpha * (z + beta)
        p = np.exp(-np.logaddexp(0, u))  # 1 / (1 + e^u)
        q = np.exp(-np.logaddexp(0, -u))  # 1 - p without cancellation
        return (1 - s) * p, -(1 - s) * alpha * p * q
    if name == "rgomp":
        e = np.exp(np.minimum(c * z, 700))
        return np.exp(-e), -c * e * np.exp(-e)
    raise ValueError(name)


# ----------------------------------------------------------------------------- SGD (SRamp Alg. 1)
def _sgd_pass(X, y, sw, deriv, lam, eta, rows, st, fit_intercept, average, average_start, project_ball):
    """One epoch of SGD steps over ``rows`` (in that order) from the state ``st`` (w, b, t, wbar, bbar,
    count), updated in place."""
    if average == "epoch":
        st["count"] = 0
    for i in rows:
        st["t"] += 1
        step = eta(st["t"])
        g = deriv(y[i] * (X[i] @ st["w"] + st["b"])) * sw[i]
        st["w"] = max(1 - step * lam, 0.0) * st["w"] - step * g * y[i] * X[i]
        if fit_intercept:
            st["b"] -= step * g * y[i]
        if project_ball:
            r, nrm = 1 / np.sqrt(lam), np.linalg.norm(st["w"])
            if nrm > r:
                st["w"] = st["w"] * (r / nrm)
        if average == "epoch" or (average == "running" and st["t"] > average_start):
            mu = 1.0 / (st["count"] + 1)
            st["wbar"] = st["wbar"] + mu * (st["w"] - st["wbar"])
            st["bbar"] = st["bbar"] + mu * (st["b"] - st["bbar"])
            st["count"] += 1
    if average == "epoch":
        st["w"], st["b"] = st["wbar"].copy(), st["bbar"]


def _sgd_output(st, average):
    if average == "running" and st["count"] > 0:
        return st["wbar"], st["bbar"]
    return st["w"], st["b"]


def sgd_reference(X, y, deriv, lam, eta, order, epochs, fit_intercept=True, average=None, average_start=0,
                  project_ball=False, sample_weight=None):
    """SGD on (1/n) sum r(y (w.x + b)) + lam/2 ||w||^2 with the sample sequence `order`.

    eta(t) gives the step at global step t = 1, 2, ...; average is None, "running" or "epoch".
    Returns the output (w, b): the running average for "running", else the last iterate.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else sample_weight
    st = dict(w=np.zeros(d), b=0.0, t=0, wbar=np.zeros(d), bbar=0.0, count=0)
    for e in range(epochs):
        _sgd_pass(X, y, sw, deriv, lam, eta, order[e * n:(e + 1) * n], st, fit_intercept, average, average_start,
                  project_ball)
    return _sgd_output(st, average)


def sgd_mixing_reference(X, y, deriv, lam, eta, order, epochs, n_threads, fit_intercept=True, average=None,
                         average_start=0, project_ball=False):
    """sgd_reference with n_threads shards per epoch (iterative parameter mixing): epoch e's order cut into
    n_threads contiguous shards, each shard's steps from the epoch's start state, then the row-weighted
    average of the shards' states (w, b, the clock t rounded; the running averages of the shards that
    have one, their count rounded)."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    sw = np.ones(n)
    st = dict(w=np.zeros(d), b=0.0, t=0, wbar=np.zeros(d), bbar=0.0, count=0)
    bounds = [n * p // n_threads for p in range(n_threads + 1)]
    share = np.diff(bounds) / n
    for e in range(epochs):
        rows = order[e * n:(e + 1) * n]
        shards = []
        for p in range(n_threads):
            sh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in st.items()}
            _sgd_pass(X, y, sw, deriv, lam, eta, rows[bounds[p]:bounds[p + 1]], sh, fit_intercept, average,
                      average_start, project_ball)
            shards.append(sh)
        st["w"] = sum(a * sh["w"] for a, sh in zip(share, shards))
        st["b"] = sum(a * sh["b"] for a, sh in zip(share, shards))
        st["t"] = int(np.rint(sum(a * sh["t"] for a, sh in zip(share, shards))))
        started = [(a, sh) for a, sh in zip(share, shards) if average == "running" and sh["count"] > 0]
        if started:
            total = sum(a for a, _ in started)
            st["wbar"] = sum(a / total * sh["wbar"] for a, sh in started)
            st["bbar"] = sum(a / total * sh["bbar"] for a, sh in started)
            st["count"] = max(1, int(np.rint(sum(a / total * sh["count"] for a, sh in started))))
    return _sgd_output(st, average)


# ----------------------------------------------------------------------------- projections
def project_capped_simplex_reference(v, upper, budget, iters=200):
    """argmin ||x - v|| s.t. 0 <= x <= upper, sum x <= budget, by bisection on the multiplier."""
    v = np.asarray(v, dtype=np.float64)
    x = np.clip(v, 0, upper)
    if x.sum() <= budget:
        return x
    lo, hi = 0.0, max(float(v.max()), 0.0)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if np.clip(v - mid, 0, upper).sum() > budget:
            lo = mid
        else:
            hi = mid
    return np.clip(v - 0.5 * (lo + hi), 0, upper)


# ----------------------------------------------------------------------------- FOL (sum tree, FOL loop)
def sum_tree_probs_reference(weights, gamma):
    """p_i = gamma / m + (1 - gamma) q_i with q = weights / sum(weights) (FOL paper, section 2.3)."""
    w = np.asarray(weights, dtype=np.float64)
    return gamma / w.size + (1.0 - gamma) * w / w.sum()


def fol_reference(X, y, order, *, learner="perceptron", loss=None, lam=0.0, eta0=0.1, batch_size=1, eta=None,
                  gamma=0.5, focus="zero_one", fit_intercept=True, slack_budget=None, slack_lr=0.1,
                  project=None):
    """Plain-NumPy FOL with injected sample indices (order: n_steps * batch_size). loss: (value, deriv)
    functions of z for learner="sgd" (constant step eta0, L2 lam). Returns (w, b, weights, xi)."""
    X = np.asarray(X, dtype=np.float64)
    m, d = X.shape
    eta = 1.0 / (2 * m) if eta is None else eta
    w, b = np.zeros(d), 0.0
    weights = np.ones(m)
    xi = np.zeros(m)
    order = np.asarray(order).reshape(-1, batch_size)
    for t, idx in enumerate(order, start=1):
        p = gamma / m + (1 - gamma) * weights[idx] / weights.sum()
        s = X[idx] @ w + b
        ys = y[idx]
        if learner == "perceptron":
            for j in range(batch_size):
                if ys[j] * s[j] <= 0:
                    w = w + ys[j] * X[idx[j]]
                    if fit_intercept:
                        b += ys[j]
            sur = np.maximum(0.0, -ys * s)
        else:
            value, deriv = loss
            w = w * (1 - eta0 * lam)
            g = np.array([deriv(ys[j] * s[j]) * ys[j] for j in range(batch_size)])
            w = w - eta0 / batch_size * (g[:, None] * X[idx]).sum(axis=0)
            if fit_intercept:
                b -= eta0 / batch_size * g.sum()
            sur = np.array([value(ys[j] * s[j]) for j in range(batch_size)])
        l = ((s > 0) != (ys > 0)).astype(float) if focus == "zero_one" else np.minimum(1.0, sur)  # 0 predicts -1
        if slack_budget is not None:
            l = np.maximum(0.0, l - xi[idx])
        for j in range(batch_size):
            if l[j] > 0:
                weights[idx[j]] *= np.exp(eta * l[j] / (batch_size * p[j]))
        if slack_budget is not None:
            for j in range(batch_size):
                if l[j] > 0:  # the slack grows only while the loss exceeds it
                    xi[idx[j]] += slack_lr / batch_size
            if xi.sum() > slack_budget or xi.max() > 1:
                xi = project(xi, 1.0, slack_budget)
    return w, b, weights, xi
# ----------------------------------------------------------------------------- MKL (StPMKL, issue 5)
def group_lasso_squared_prox_reference(a, c, iters=200):
    """Scale factors of argmin 1/2 sum (t_j - a_j)^2 + c/2 (sum t_j)^2, t >= 0: bisection on S = sum t."""
    a = np.asarray(a, dtype=np.float64)
    lo, hi = 0.0, float(a.sum())
    for _ in range(iters):
        S = 0.5 * (lo + hi)
        if np.maximum(a - c * S, 0).sum() > S:
            lo = S
        else:
            hi = S
    t = np.maximum(a - c * 0.5 * (lo + hi), 0)
    return np.where(a > 0, t / np.where(a > 0, a, 1), 0.0)


def mkl_amp_reference(K, y, lam, upper, rho, gamma, T):
    """Algorithm 1 on problem (11) in coefficient form, plain NumPy; returns averaged (coef, alpha, gaps)."""
    m, n = K.shape[0], K.shape[1]
    C = np.zeros((m, n)); beta = np.zeros(n); Cs = np.zeros((m, n)); As = np.zeros(n); gaps = []
    f = lambda C: np.einsum("jil,jl->i", K, C)
    s = gamma / n
    for t in range(1, T + 1):
        alpha = project_capped_simplex_reference(beta + s * (1 - y * f(C)), upper, rho)
        Ch = C + s * (alpha * y)[None, :]
        norms = np.sqrt(np.maximum(np.einsum("ji,jil,jl->j", Ch, K, Ch), 0))
        C = group_lasso_squared_prox_reference(norms, gamma * lam)[:, None] * Ch
        beta = project_capped_simplex_reference(beta + s * (1 - y * f(C)), upper, rho)
        Cs += C; As += alpha
        Cb, ab = Cs / t, As / t
        nb = np.sqrt(np.maximum(np.einsum("ji,jil,jl->j", Cb, K, Cb), 0)).sum()
        w = np.sort((1 - y * f(Cb)) / n)[::-1]
        caps = np.clip(rho - upper * np.arange(n), 0, upper)  # greedy fill of the largest positive w
        P = 0.5 * lam * nb**2 + np.sum(caps * np.maximum(w, 0))
        v = ab * y
        D = ab.sum() / n - np.einsum("i,jil,l->j", v, K, v).max() / (2 * lam * n * n)
        gaps.append(P - D)
    return Cs / T, As / T, np.array(gaps)
def mkl_blocks_amp_reference(Z, slices, y, lam, upper, rho, gamma, T):
    """Algorithm 1 on problem (11) in the primal over feature blocks (f_j = w_j . z_j), plain NumPy; returns
    averaged (w, alpha, gaps)."""
    n, D = Z.shape
    w = np.zeros(D); beta = np.zeros(n); ws = np.zeros(D); As = np.zeros(n); gs = np.zeros(D); gaps = []
    s = gamma / n
    for t in range(1, T + 1):
        alpha = project_capped_simplex_reference(beta + s * (1 - y * (Z @ w)), upper, rho)
        g = Z.T @ (alpha * y)
        wh = w + s * g
        norms = np.array([np.linalg.norm(wh[sl]) for sl in slices])
        scale = group_lasso_squared_prox_reference(norms, gamma * lam)
        w = np.concatenate([scale[j] * wh[sl] for j, sl in enumerate(slices)])
        beta = project_capped_simplex_reference(beta + s * (1 - y * (Z @ w)), upper, rho)
        ws += w; As += alpha; gs += g
        wb, ab = ws / t, As / t
        nb = sum(np.linalg.norm(wb[sl]) for sl in slices)
        c = np.sort((1 - y * (Z @ wb)) / n)[::-1]
        caps = np.clip(rho - upper * np.arange(n), 0, upper)
        P = 0.5 * lam * nb**2 + np.sum(caps * np.maximum(c, 0))
        Dv = ab.sum() / n - max(np.sum((gs[sl] / t) ** 2) for sl in slices) / (2 * lam * n * n)
        gaps.append(P - Dv)
    return ws / T, As / T, np.array(gaps)


# ============================================================================= variance-reduced solvers
# Plain dense NumPy versions of the variants paper's Algorithms 4.2-4.9 (robustcore.variance_reduced),
# consuming the injected draws `seq` in the engine's order. f_i(w) = r(y_i (w.x_i + b)); the L2 term
# lam/2 ||w||^2 is applied exactly in every step. deriv(z) is r'(z).
def _vr_g(deriv, X, y, i, w, b):
    return deriv(y[i] * (X[i] @ w + b)) * y[i]


def saga_reference(X, y, deriv, lam, eta, seq, passes, sag=False, fit_intercept=True):
    """SAGA / SAG from an empty table: every pass draws n rows; until every row has been drawn the table's
    mean is its sum over the rows seen (the current one included), as scikit-learn's sag (saga.hpp)."""
    n, d = X.shape
    w, b = np.zeros(d), 0.0
    u = np.zeros(n)
    seen = set()
    seq = iter(seq)
    for _ in range(passes):
        for _ in range(n):
            i = next(seq)
            seen.add(i)
            m = len(seen)
            g = _vr_g(deriv, X, y, i, w, b)
            if sag:
                u[i] = g
                w = w - eta * (lam * w + X.T @ u / m)
                b = b - eta * u.sum() / m if fit_intercept else b
            else:
                w = w - eta * (lam * w + (g - u[i]) * X[i] + X.T @ u / m)
                b = b - eta * (g - u[i] + u.sum() / m) if fit_intercept else b
                u[i] = g
    return w, b


def _sgd_first_pass(X, y, deriv, lam, eta, seq, w, b, fit_intercept=True):
    """The SVRG family's first pass: plain SGD over n draws (svrg.hpp)."""
    for _ in range(X.shape[0]):
        i = next(seq)
        g = _vr_g(deriv, X, y, i, w, b)
        w = w - eta * (lam * w + g * X[i])
        b = b - eta * g if fit_intercept else b
    return w, b


def svrg_reference(X, y, deriv, lam, eta, seq, passes, method="svrg", option="last", batch=None, growth=2.0,
                   fit_intercept=True, max_iter=None):
    """SVRG (a/b/c), S2GD, Batching and Mixed SVRG with m = n inner steps, after one SGD pass. ``passes``:
    the monitor's passes (the SGD pass, then outer iterations); ``max_iter``: the budget of n gradient
    evaluations each (an inner loop stops before a step that would exceed it). For S2GD the injected value
    is the chosen inner step directly."""
    n, d = X.shape
    w, b = np.zeros(d), 0.0
    seq = iter(seq)
    budget = np.inf if max_iter is None else max_iter * n
    w, b = _sgd_first_pass(X, y, deriv, lam, eta, seq, w, b, fit_intercept)
    evals = n
    batching = method in ("batching_svrg", "mixed_svrg")
    for _ in range(passes - 1):
        wk, bk = w.copy(), b
        if batching:
            perm = [next(seq) for _ in range(n)]
            B = set(perm[:batch])
            batch = min(n, int(np.ceil(growth * batch)))
        else:
            B = set(range(n))
        gk = np.array([_vr_g(deriv, X, y, i, wk, bk) for i in range(n)])
        evals += len(B)
        Bl = sorted(B)
        mu = X[Bl].T @ gk[Bl] / len(Bl)
        mub = gk[Bl].mean()
        pick = method != "svrg" or option == "random"
        chosen = next(seq) if pick else -1
        iterates = []
        draws = [next(seq) for _ in range(n)]
        for i in draws:
            cost = 2 if (i not in B and method != "mixed_svrg") else 1
            if evals + cost > budget:
                break
            evals += cost
            g = _vr_g(deriv, X, y, i, w, b)
            if method == "mixed_svrg" and i not in B:
                w = w - eta * (lam * w + g * X[i])
                b = b - eta * g if fit_intercept else b
            else:
                c = g - gk[i]
                w = w - eta * (lam * w + c * X[i] + mu)
                b = b - eta * (c + mub) if fit_intercept else b
            iterates.append((w.copy(), b))
        if method == "svrg" and option == "average":
            w = np.mean([it[0] for it in iterates], axis=0)
            b = np.mean([it[1] for it in iterates])
        elif pick and chosen < len(iterates):
            w, b = iterates[chosen]
    return w, b


def vrlite_reference(X, y, deriv, lam, eta, seq, passes, fit_intercept=True):
    n, d = X.shape
    w, b = np.zeros(d), 0.0
    seq = iter(seq)
    ws, bs, gbar, gbar_b = [], [], np.zeros(d), 0.0
    for _ in range(n):
        i = next(seq)
        g = _vr_g(deriv, X, y, i, w, b)
        w = w - eta * (lam * w + g * X[i])
        b = b - eta * g if fit_intercept else b
        gbar += g * X[i] / n
        gbar_b += g / n
        ws.append(w.copy())
        bs.append(b)
    wbar, bbar = np.mean(ws, axis=0), np.mean(bs)
    done = 1
    while done < passes:
        perm = [next(seq) for _ in range(n)]
        ws, bs, gn, gn_b = [], [], np.zeros(d), 0.0
        for i in perm:
            g = _vr_g(deriv, X, y, i, w, b)
            c = g - _vr_g(deriv, X, y, i, wbar, bbar)
            w = w - eta * (lam * w + c * X[i] + gbar)
            b = b - eta * (c + gbar_b) if fit_intercept else b
            gn += g * X[i] / n
            gn_b += g / n
            ws.append(w.copy())
            bs.append(b)
        wbar, bbar, gbar, gbar_b = np.mean(ws, axis=0), np.mean(bs), gn, gn_b
        done += 2
    return w, b


def finito_reference(X, y, deriv, lam, eta, seq, passes, fit_intercept=True):
    """Finito; its first pass (a permutation) is plain SGD with the step eta / n, each row's table entry
    the iterate its gradient is taken at; the first pass returns the SGD iterate (finito.hpp)."""
    n, d = X.shape
    phi, phib, u = np.zeros((n, d)), np.zeros(n), np.zeros(n)
    seq = iter(seq)
    h = eta / n
    w, b = np.zeros(d), 0.0
    for _ in range(n):
        i = next(seq)
        phi[i], phib[i] = w, b
        u[i] = _vr_g(deriv, X, y, i, w, b)
        w = w - h * (lam * w + u[i] * X[i])
        b = b - h * u[i] if fit_intercept else b
    for _ in range(passes - 1):
        for _ in range(n):
            i = next(seq)
            pbar = phi.mean(axis=0)
            w = pbar - eta * (X.T @ u / n + lam * pbar)
            b = phib.mean() - eta * u.mean() if fit_intercept else 0.0
            phi[i], phib[i] = w, b
            u[i] = _vr_g(deriv, X, y, i, w, b)
        pbar = phi.mean(axis=0)
        w = pbar - eta * (X.T @ u / n + lam * pbar)
        b = phib.mean() - eta * u.mean() if fit_intercept else 0.0
    return w, b


def softmax_saga_reference(X, y, K, lam, eta, seq, passes, sag=False):
    """SAGA / SAG on the softmax model (model.hpp's SoftmaxModel) with the injected draws; returns W (K, d), b."""
    n, d = X.shape
    W, b = np.zeros((K, d)), np.zeros(K)
    E = np.eye(K)[y]

    def grad(i):
        s = W @ X[i] + b
        p = np.exp(s - s.max())
        return p / p.sum() - E[i]

    U = np.zeros((n, K))  # the table starts empty: means over the rows seen (saga_reference)
    seen = set()
    seq = iter(seq)
    for _ in range(passes):
        for _ in range(n):
            i = next(seq)
            seen.add(i)
            m = len(seen)
            g = grad(i)
            if sag:
                U[i] = g
                W = W - eta * (lam * W + U.T @ X / m)
                b = b - eta * U.sum(axis=0) / m
            else:
                W = W - eta * (lam * W + np.outer(g - U[i], X[i]) + U.T @ X / m)
                b = b - eta * (g - U[i] + U.sum(axis=0) / m)
                U[i] = g
    return W, b


def _softmax_g(X, y, K, i, W, b):
    """p_i - e_{y_i} at (W (K, d), b): the softmax gradient factor of sample i."""
    s = W @ X[i] + b
    p = np.exp(s - s.max())
    return p / p.sum() - np.eye(K)[y[i]]


def softmax_svrg_reference(X, y, K, lam, eta, seq, passes, method="svrg", option="last", batch=None, growth=2.0,
                           max_iter=None):
    """svrg_reference on the softmax model: one SGD pass, then SVRG (a/b/c), S2GD, Batching and Mixed SVRG,
    m = n; ``passes`` and ``max_iter`` as there."""
    n, d = X.shape
    W, b = np.zeros((K, d)), np.zeros(K)
    seq = iter(seq)
    for _ in range(n):
        i = next(seq)
        g = _softmax_g(X, y, K, i, W, b)
        W, b = W - eta * (lam * W + np.outer(g, X[i])), b - eta * g
    budget = np.inf if max_iter is None else max_iter * n
    evals = n
    batching = method in ("batching_svrg", "mixed_svrg")
    for _ in range(passes - 1):
        Wk, bk = W.copy(), b.copy()
        if batching:
            perm = [next(seq) for _ in range(n)]
            B = set(perm[:batch])
            batch = min(n, int(np.ceil(growth * batch)))
        else:
            B = set(range(n))
        Gk = np.array([_softmax_g(X, y, K, i, Wk, bk) for i in range(n)])  # (n, K)
        evals += len(B)
        Bl = sorted(B)
        mu, mub = Gk[Bl].T @ X[Bl] / len(Bl), Gk[Bl].mean(axis=0)
        pick = method != "svrg" or option == "random"
        chosen = next(seq) if pick else -1
        iterates = []
        draws = [next(seq) for _ in range(n)]
        for i in draws:
            cost = 2 if (i not in B and method != "mixed_svrg") else 1
            if evals + cost > budget:
                break
            evals += cost
            g = _softmax_g(X, y, K, i, W, b)
            if method == "mixed_svrg" and i not in B:
                W, b = W - eta * (lam * W + np.outer(g, X[i])), b - eta * g
            else:
                c = g - Gk[i]
                W, b = W - eta * (lam * W + np.outer(c, X[i]) + mu), b - eta * (c + mub)
            iterates.append((W.copy(), b.copy()))
        if method == "svrg" and option == "average":
            W, b = np.mean([it[0] for it in iterates], axis=0), np.mean([it[1] for it in iterates], axis=0)
        elif pick and chosen < len(iterates):
            W, b = iterates[chosen]
    return W, b


def softmax_vrlite_reference(X, y, K, lam, eta, seq, passes):
    """vrlite_reference on the softmax model."""
    n, d = X.shape
    W, b = np.zeros((K, d)), np.zeros(K)
    seq = iter(seq)
    Ws, bs, G, Gb = [], [], np.zeros((K, d)), np.zeros(K)
    for _ in range(n):
        i = next(seq)
        g = _softmax_g(X, y, K, i, W, b)
        W, b = W - eta * (lam * W + np.outer(g, X[i])), b - eta * g
        G, Gb = G + np.outer(g, X[i]) / n, Gb + g / n
        Ws.append(W.copy())
        bs.append(b.copy())
    Wbar, bbar = np.mean(Ws, axis=0), np.mean(bs, axis=0)
    done = 1
    while done < passes:
        perm = [next(seq) for _ in range(n)]
        Ws, bs, Gn, Gnb = [], [], np.zeros((K, d)), np.zeros(K)
        for i in perm:
            g = _softmax_g(X, y, K, i, W, b)
            c = g - _softmax_g(X, y, K, i, Wbar, bbar)
            W, b = W - eta * (lam * W + np.outer(c, X[i]) + G), b - eta * (c + Gb)
            Gn, Gnb = Gn + np.outer(g, X[i]) / n, Gnb + g / n
            Ws.append(W.copy())
            bs.append(b.copy())
        Wbar, bbar, G, Gb = np.mean(Ws, axis=0), np.mean(bs, axis=0), Gn, Gnb
        done += 2
    return W, b


def softmax_finito_reference(X, y, K, lam, eta, seq, passes):
    """finito_reference on the softmax model: one (W, b) per sample; the first pass plain SGD with the step
    eta / n."""
    n, d = X.shape
    phi, phib = np.zeros((n, K, d)), np.zeros((n, K))
    U = np.zeros((n, K))
    seq = iter(seq)
    h = eta / n
    W, b = np.zeros((K, d)), np.zeros(K)
    for _ in range(n):
        i = next(seq)
        phi[i], phib[i] = W, b
        U[i] = _softmax_g(X, y, K, i, W, b)
        W, b = W - h * (lam * W + np.outer(U[i], X[i])), b - h * U[i]

    def current():
        pbar = phi.mean(axis=0)
        return pbar - eta * (U.T @ X / n + lam * pbar), phib.mean(axis=0) - eta * U.mean(axis=0)

    for p in range(passes - 1):
        for _ in range(n):
            i = next(seq)
            W, b = current()
            phi[i], phib[i] = W, b
            U[i] = _softmax_g(X, y, K, i, W, b)
        W, b = current()
    return W, b


def softmax_sgd_reference(X, y, K, lam, eta, seq, passes):
    """Plain constant-step SGD on the softmax model over the injected permutations."""
    n, d = X.shape
    W, b = np.zeros((K, d)), np.zeros(K)
    for i in seq[:passes * n]:
        g = _softmax_g(X, y, K, i, W, b)
        W, b = (1 - eta * lam) * W - eta * np.outer(g, X[i]), b - eta * g
    return W, b


def svrg_draws(n, outer, method, option, rng):
    """The engine's draws per outer iteration of the SVRG family: the batch permutation (Batching/Mixed),
    the chosen inner iterate (option (c), S2GD, Batching/Mixed), then n inner indices; all after the
    first (SGD) pass's n indices."""
    seq = list(rng.integers(0, n, size=n))
    for _ in range(outer):
        if method in ("batching_svrg", "mixed_svrg"):
            seq += list(rng.permutation(n))
        if method != "svrg" or option == "random":
            seq.append(int(rng.integers(0, n)))
        seq += list(rng.integers(0, n, size=n))
    return np.array(seq, dtype=np.int64)


# ----------------------------------------------------------------------------- the rate fit's sums
def bounded_sigmoid_sums(score, n_pos, n_neg, th):  # noqa: D401 - the oracle of _core.bounded_sigmoid_sums
    """(sums of -log P(label | s) (m,), their gradients (m, 4) and Hessians (m, 4, 4)) of the bounded sigmoid at
    m parameter points th (m, 4), each theta = (a, c, u, v), over scores ``score`` (standardised) carrying
    ``n_pos`` positive and ``n_neg`` negative labels each (rows: 1 and 0; score bins: their counts): the data part
    of ``_bounded_sigmoid_objective``, which sums over any rows (a partition's, on its worker). With
    p = lo + (1 - lo) e sigmoid(a s + c), lo = sigmoid(u), e = sigmoid(v): the Hessian is
    sum_i w_i J_i J_i^T + r_i d^2 p_i / d theta^2, J_i = d p_i / d theta, r_i = d f / d p_i, w_i = d^2 f / d p_i^2."""
    th = np.asarray(th, dtype=np.float64)
    _sigmoid = lambda z: 0.5 + 0.5 * np.tanh(0.5 * z)  # noqa: E731
    a, c, u, v = (th[:, j, None] for j in range(4))  # (m, 1) each: the points down, the scores across
    lo, e = _sigmoid(u), _sigmoid(v)
    dlo, de, k = lo * (1.0 - lo), e * (1.0 - e), (1.0 - lo) * e
    sig = _sigmoid(a * score + c)
    s1 = sig * (1.0 - sig)  # sigmoid' and sigmoid'' at a s + c
    s2 = s1 * (1.0 - 2.0 * sig)
    p = np.clip(lo + k * sig, 1e-12, 1.0 - 1e-12)
    f = -(np.log(p) @ n_pos + np.log1p(-p) @ n_neg)
    r = n_neg / (1.0 - p) - n_pos / p  # d f / d p at each score
    w = n_neg / (1.0 - p) ** 2 + n_pos / (p * p)  # d^2 f / d p^2
    J = np.stack([k * s1 * score, k * s1, dlo * (1.0 - e * sig), (1.0 - lo) * de * sig], axis=2)  # d p / d theta
    g = np.matmul(r[:, None, :], J)[:, 0]
    # sum_i r_i d^2 p_i / d theta^2 from seven sums of r against the score's powers and sigmoid's derivatives
    rs2, rs1 = r * s2, r * s1
    rs2_0, rs2_1, rs2_2 = rs2.sum(axis=1), rs2 @ score, rs2 @ (score * score)
    rs1_0, rs1_1, rsig, rsum = rs1.sum(axis=1), rs1 @ score, (r * sig).sum(axis=1), r.sum(axis=1)
    k, dlo, de, lo, e = k[:, 0], dlo[:, 0], de[:, 0], lo[:, 0], e[:, 0]
    D = np.empty((th.shape[0], 4, 4))
    D[:, 0, 0], D[:, 0, 1], D[:, 1, 1] = k * rs2_2, k * rs2_1, k * rs2_0
    D[:, 0, 2], D[:, 1, 2] = -dlo * e * rs1_1, -dlo * e * rs1_0
    D[:, 0, 3], D[:, 1, 3] = (1.0 - lo) * de * rs1_1, (1.0 - lo) * de * rs1_0
    D[:, 2, 2] = dlo * (1.0 - 2.0 * lo) * (rsum - e * rsig)
    D[:, 2, 3] = -dlo * de * rsig
    D[:, 3, 3] = (1.0 - lo) * de * (1.0 - 2.0 * e) * rsig
    for i, j in ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)):
        D[:, i, j] = D[:, j, i]
    return f, g, np.matmul(J.transpose(0, 2, 1), J * w[:, :, None]) + D


def rate_newton(objective, th, max_iter=100, gtol=1e-8, ftol=1e-12, patience=5, behind=1e-3, grow=3.0):
    """The oracle of _core.rate_newton (NumPy's eigh; the engine's loop until 0.7.7): Newton's method with a
    backtracking (Armijo) line search from each row of th, the starts evaluated together by ``objective(thetas)
    -> (f, g, H)`` but each stepping, backtracking and stopping on its own; (thetas, values)."""
    th = np.array(th, dtype=np.float64)
    f, g, H = objective(th)
    running = np.ones(len(th), dtype=bool)
    last = np.ones(len(th))
    for it in range(max_iter):
        running &= np.all(np.isfinite(g), axis=1) & (np.max(np.abs(g), axis=1) > gtol)
        if patience is not None and it >= patience and not running.all():
            done = float(np.min(f[~running]))
            running &= ~(f > done + behind * max(1.0, abs(done)))
        if not running.any():
            break
        idx = np.flatnonzero(running)
        lam, V = np.linalg.eigh(H[idx])
        lam = np.abs(lam)
        lam = np.maximum(lam, 1e-8 * np.maximum(1e-12, lam.max(axis=1, keepdims=True)))
        d = -np.einsum("mij,mj->mi", V, np.einsum("mji,mj->mi", V, g[idx]) / lam)
        slope = np.einsum("ij,ij->i", g[idx], d)
        step = np.minimum(1.0, grow * last[idx])
        searching = np.ones(idx.size, dtype=bool)
        while searching.any():
            k = np.flatnonzero(searching)
            f_k, g_k, H_k = objective(th[idx[k]] + step[k, None] * d[k])
            for t, (j, i) in enumerate(zip(k, idx[k])):
                if np.isfinite(f_k[t]) and f_k[t] <= f[i] + 1e-4 * step[j] * slope[j]:
                    searching[j] = False
                    running[i] = f[i] - f_k[t] > ftol * max(1.0, abs(f[i]))
                    th[i] += step[j] * d[j]
                    f[i], g[i], H[i] = f_k[t], g_k[t], H_k[t]
                    last[i] = step[j]
                    continue
                excess = f_k[t] - f[i] - step[j] * slope[j]
                shrink = -slope[j] * step[j] / (2.0 * excess) if np.isfinite(excess) and excess > 0.0 else 0.1
                step[j] *= min(0.5, max(0.1, shrink))
                if step[j] <= 1e-10:
                    searching[j] = running[i] = False
    return th, f
