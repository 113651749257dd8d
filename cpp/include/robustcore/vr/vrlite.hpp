// VR-Lite (paper Algorithm 4.7; De, Yin, Goldstein 2015) for binary linear models (see lazy.hpp).
// Pass 1: SGD with replacement, w <- w - eta (lambda w + r'_i(w) y_i x_i), recording the mean iterate
// wbar and the mean loss gradient gbar = (1/n) sum r'_i(w) y_i x_i seen during the pass.
// Later passes (a permutation each, idx.permutation(n)):
//   w <- w - eta (lambda w + (r'_i(w) - r'_i(wbar)) y_i x_i + gbar)
// accumulating the next wbar (mean iterate) and gbar (mean of r'_i(w) y_i x_i); the L2 term is exact.
// Memory: wbar and gbar (2d), no per-sample table. Each later pass costs 2 effective passes.
#pragma once

#include "lazy.hpp"

namespace robustcore {
namespace vr {

template <class Loss, class Data>
VrResult vrlite_fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double eta, double* w,
                    double& b, IndexStream& idx, ProgressFn progress, EvalSet<Data> eval = {}) {
  const int64_t n = X.rows(), d = X.cols();
  const double inv_n = 1.0 / static_cast<double>(n);
  VrResult res;
  res.eta = eta;
  PassMonitor<Loss, Data> mon(X, y, loss, p, res, std::move(progress), eval);
  mon.end_pass(w, b, 0.0, 0);
  mon.restart_clock();
  if (p.passes < 1) return res;
  LazyWeights W(d, eta, p.lambda, true);
  W.set(w);
  std::vector<double> wbar(static_cast<size_t>(d)), gbar(static_cast<size_t>(d), 0.0), gnext(static_cast<size_t>(d), 0.0);
  std::vector<int64_t> perm;
  double gbar_b = 0.0, bsum = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = idx.below(n);
    const auto r = X.row(i);
    const double gi = loss.deriv(y[i] * (W.catch_up_dot(r) + b)) * y[i] * sw(p, i);
    W.advance();
    W.catch_up_add(r, -eta * gi);
    axpy(gi * inv_n, r, gbar.data());
    gbar_b += gi * inv_n;
    if (p.fit_intercept) b -= eta * gi;
    bsum += b;
  }
  W.catch_up_all();
  for (int64_t j = 0; j < d; ++j) wbar[static_cast<size_t>(j)] = W.sums()[j] * inv_n;
  double bbar = bsum * inv_n;
  double evals = static_cast<double>(n);
  int64_t count = 1;
  W.materialize(w);
  if (!mon.end_pass(w, b, 1.0, count)) return res;
  while (evals < static_cast<double>(p.passes) * static_cast<double>(n)) {
    W.set_m(gbar.data());
    W.clear_sums();
    std::fill(gnext.begin(), gnext.end(), 0.0);
    double gnext_b = 0.0;
    bsum = 0.0;
    idx.permutation(n, perm);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = perm[static_cast<size_t>(k)];
      const auto r = X.row(i);
      const double gi = loss.deriv(y[i] * (W.catch_up_dot(r) + b)) * y[i] * sw(p, i);
      const double gs = loss.deriv(y[i] * (dot(r, wbar.data()) + bbar)) * y[i] * sw(p, i);
      const double c = gi - gs;
      W.advance();
      W.catch_up_add(r, -eta * c);
      axpy(gi * inv_n, r, gnext.data());
      gnext_b += gi * inv_n;
      if (p.fit_intercept) b -= eta * (c + gbar_b);
      bsum += b;
    }
    W.catch_up_all();
    for (int64_t j = 0; j < d; ++j) wbar[static_cast<size_t>(j)] = W.sums()[j] * inv_n;
    bbar = bsum * inv_n;
    gbar.swap(gnext);
    gbar_b = gnext_b;
    evals += 2.0 * static_cast<double>(n);
    ++count;
    W.materialize(w);
    if (!mon.end_pass(w, b, evals * inv_n, count)) return res;
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
