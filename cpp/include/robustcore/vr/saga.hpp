// SAGA (paper Algorithm 4.3; Defazio, Bach, Lacoste-Julien 2014) and, with `sag = true`, SAG
// (Algorithm 4.4; Le Roux, Schmidt, Bach 2012) for binary linear models (see lazy.hpp):
//   SAGA: w <- w - eta (lambda w + (r'_j(w) - u_j) y_j x_j + (1/n) sum_i u_i y_i x_i),  u_j <- r'_j(w)
//   SAG:  u_j <- r'_j(w) first, then  w <- w - eta (lambda w + (1/n) sum_i u_i y_i x_i)
// The table is one scalar per sample (u_i y_i); the L2 term is exact, not stored. The table starts
// at the gradients in w_1 (lines 2-4 of both algorithms), which costs the first effective pass.
// Draws: one idx.below(n) per step.
#pragma once

#include "lazy.hpp"

namespace robustcore {
namespace vr {

template <class Loss, class Data>
VrResult saga_fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double eta, double* w,
                  double& b, IndexStream& idx, ProgressFn progress, bool sag, EvalSet<Data> eval = {}) {
  const int64_t n = X.rows(), d = X.cols();
  const double inv_n = 1.0 / static_cast<double>(n);
  VrResult res;
  res.eta = eta;
  PassMonitor<Loss, Data> mon(X, y, loss, p, res, std::move(progress), eval);
  mon.end_pass(w, b, 0.0, 0);
  mon.restart_clock();
  LazyWeights W(d, eta, p.lambda, false);
  W.set(w);
  std::vector<double> u(static_cast<size_t>(n));
  double mb = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const auto r = X.row(i);
    u[static_cast<size_t>(i)] = loss.deriv(y[i] * (dot(r, w) + b)) * y[i] * sw(p, i);
    W.axpy_m(u[static_cast<size_t>(i)] * inv_n, r);
    mb += u[static_cast<size_t>(i)] * inv_n;
  }
  int64_t count = 1;
  if (!mon.end_pass(w, b, 1.0, count)) return res;
  std::vector<int64_t> draws(static_cast<size_t>(n));
  while (count < p.passes) {
    // draw the pass's indices first (same order of draws) so rows can be prefetched ahead
    for (int64_t k = 0; k < n; ++k) draws[static_cast<size_t>(k)] = idx.below(n);
    for (int64_t k = 0; k < n; ++k) {
      prefetch_ahead(X, draws.data(), k, n);
      prefetch_samples(draws.data(), k, n, y, u.data(), p.sample_weight);
      const int64_t i = draws[static_cast<size_t>(k)];
      const auto r = X.row(i);
      const double gi = loss.deriv(y[i] * (W.catch_up_dot(r) + b)) * y[i] * sw(p, i);
      const double delta = gi - u[static_cast<size_t>(i)];
      u[static_cast<size_t>(i)] = gi;
      if (sag) {
        W.axpy_m_advance(delta * inv_n, r);
        mb += delta * inv_n;
        if (p.fit_intercept) b -= eta * mb;
      } else {
        W.advance();
        // this step's dense term uses the table mean before the update
        for_each_nz(r, [&](int64_t j, double x) {
          W.catch_up(j);
          W.add(j, -eta * delta * x);
          W.m(j) += delta * inv_n * x;
        });
        if (p.fit_intercept) b -= eta * (delta + mb);
        mb += delta * inv_n;
      }
    }
    ++count;
    W.materialize(w);
    if (!mon.end_pass(w, b, static_cast<double>(count), count)) return res;
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
