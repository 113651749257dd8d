// VR-Lite (paper Algorithm 4.7; De, Yin, Goldstein 2015), for any model (see problem.hpp).
// Pass 1: SGD with replacement, W <- W - eta (lambda W + x_i g_i(W)^T), recording the mean iterate
// Wbar and the mean loss gradient Gbar = (1/n) sum x_i g_i(W)^T seen during the pass.
// Later passes (a permutation each):
//   W <- W - eta (lambda W + x_i (g_i(W) - g_i(Wbar))^T + Gbar)
// accumulating the next Wbar (mean iterate) and Gbar (mean of x_i g_i(W)^T); the L2 term is exact.
// Memory: Wbar and Gbar (2 d K), no per-sample table. Each later pass costs 2 effective passes and runs
// only when it fits in max_iter.
// Draws (PassOrder): pass 1 with replacement (n x below(n) under Shuffle::Exact); each later pass a
// permutation.
#pragma once

#include <algorithm>
#include <vector>

#include "../monitor.hpp"
#include "problem.hpp"

namespace robustcore {
namespace vr {

template <class Model, class Data>
void vrlite_fit(const Problem<Model, Data>& P, double* w, double* b, PassOrder& order, Monitor<Model, Data>& mon) {
  constexpr int KC = Model::KC;
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K();
  const size_t dK = static_cast<size_t>(d * K);
  const double inv_n = 1.0 / static_cast<double>(n), eta = P.eta;
  if (!mon.start(w, b)) return;
  if (p.max_iter < 1) return;
  WeightStore<Data, KC> W(d, K, eta, p.lambda, true);
  W.set(w);
  std::vector<double> wbar(dK), gbar(dK, 0.0), gnext(dK, 0.0);
  KVec<KC> gbar_b = make_kvec<KC>(K), gnext_b = make_kvec<KC>(K), bsum = make_kvec<KC>(K), bbar = make_kvec<KC>(K),
           s = make_kvec<KC>(K), g = make_kvec<KC>(K), gs = make_kvec<KC>(K), c = make_kvec<KC>(K);
  std::fill(gbar_b.begin(), gbar_b.end(), 0.0);
  std::fill(gnext_b.begin(), gnext_b.end(), 0.0);
  std::fill(bsum.begin(), bsum.end(), 0.0);
  // the pass's mean iterate from the running sums
  auto means = [&]() {
    W.catch_up_all();
    const double* sums = W.sums();
    for (size_t q = 0; q < dK; ++q) wbar[q] = sums[q] * inv_n;
    for (int64_t k = 0; k < K; ++k) bbar[k] = bsum[k] * inv_n;
  };
  const int64_t* idx = order.next(Draw::WithReplacement, n);
  InterruptCheck stop;
  for (int64_t t = 0; t < n; ++t) {
    stop.tick();
    P.prefetch(idx, t, n);
    const int64_t i = idx[t];
    const auto r = P.X.row(i);
    P.grad_lazy(i, r, W, b, s.data(), g.data());
    for (int64_t k = 0; k < K; ++k) c[k] = -eta * g[k];
    W.advance();
    W.catch_up_add(r, c.data());
    add_gradient(r, g.data(), inv_n, K, gbar.data(), gbar_b);
    for (int64_t k = 0; k < K; ++k) {
      if (p.fit_intercept) b[k] -= eta * g[k];
      bsum[k] += b[k];
    }
  }
  means();
  double evals = static_cast<double>(n);
  int64_t count = 1;
  W.materialize(w);
  if (!mon.end_pass(w, b, 1.0, count)) return;
  // a later pass costs 2 effective passes: it runs only when both fit in max_iter (n_iter <= max_iter)
  while (evals + 2.0 * static_cast<double>(n) <= static_cast<double>(p.max_iter) * static_cast<double>(n)) {
    W.set_m(gbar.data());
    W.clear_sums();
    std::fill(gnext.begin(), gnext.end(), 0.0);
    std::fill(gnext_b.begin(), gnext_b.end(), 0.0);
    std::fill(bsum.begin(), bsum.end(), 0.0);
    idx = order.next(Draw::Permutation, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(idx, t, n);
      const int64_t i = idx[t];
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      P.grad_at(i, r, wbar.data(), bbar.data(), s.data(), gs.data());
      for (int64_t k = 0; k < K; ++k) c[k] = g[k] - gs[k];
      for (int64_t k = 0; k < K; ++k) gs[k] = -eta * c[k];
      W.advance();
      W.catch_up_add(r, gs.data());
      add_gradient(r, g.data(), inv_n, K, gnext.data(), gnext_b);
      for (int64_t k = 0; k < K; ++k) {
        if (p.fit_intercept) b[k] -= eta * (c[k] + gbar_b[k]);
        bsum[k] += b[k];
      }
    }
    means();
    gbar.swap(gnext);
    std::swap(gbar_b, gnext_b);
    evals += 2.0 * static_cast<double>(n);
    ++count;
    W.materialize(w);
    // evals / n, not evals * inv_n: a correctly rounded quotient of whole numbers never passes max_iter
    // (861 * (1.0 / 123) is 7.000000000000001, which the estimators round up to 8 passes)
    if (!mon.end_pass(w, b, evals / static_cast<double>(n), count)) return;
  }
}

}  // namespace vr
}  // namespace robustcore
