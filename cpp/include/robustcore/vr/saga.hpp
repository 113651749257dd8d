// SAGA (paper Algorithm 4.3; Defazio, Bach, Lacoste-Julien 2014) and, with `sag = true`, SAG
// (Algorithm 4.4; Le Roux, Schmidt, Bach 2012), for any model (see problem.hpp):
//   SAGA: W <- W - eta (lambda W + x_j (g_j(W) - u_j)^T + (1/n) sum_i x_i u_i^T),  u_j <- g_j(W)
//   SAG:  u_j <- g_j(W) first, then  W <- W - eta (lambda W + (1/n) sum_i x_i u_i^T)
// (SAG's step is (1/n) times the new table sum, a biased estimate.) The table holds the K gradient
// factors of each sample (one scalar for the binary model); the L2 term is exact, not stored. The table
// starts empty (zero) and fills as rows are drawn, the mean over the rows seen so far standing for (1/n) sum
// (as scikit-learn's sag / saga: the table sum divided by the number of distinct rows drawn, that row
// included): the first pass takes steps (a one-pass fit learns), instead of the papers' lines 2-4 (the
// table at W_1, a pass without a step). Once every row has been drawn the steps are the papers'. From a
// given initial point (not all zeros: a warm start, already a model) the first pass fills the table at it
// (lines 2-4), so a fit from a converged model stays there.
// Draws: a pass's n indices with replacement (PassOrder, Draw::WithReplacement: n x below(n) under
// Shuffle::Exact), taken before the pass so rows can be prefetched ahead.
#pragma once

#include <vector>

#include "../monitor.hpp"
#include "problem.hpp"

namespace robustcore {
namespace vr {

template <class Model, class Data>
void saga_fit(const Problem<Model, Data>& P, double* w, double* b, PassOrder& order, Monitor<Model, Data>& mon, bool sag) {
  constexpr int KC = Model::KC;
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K();
  const double inv_n = 1.0 / static_cast<double>(n), eta = P.eta;
  if (!mon.start(w, b)) return;
  WeightStore<Data, KC> W(d, K, eta, p.lambda, false);
  W.set(w);
  KVec<KC> mb = make_kvec<KC>(K), s = make_kvec<KC>(K), g = make_kvec<KC>(K), a = make_kvec<KC>(K),
           c = make_kvec<KC>(K);
  std::fill(mb.begin(), mb.end(), 0.0);
  std::vector<char> seen(static_cast<size_t>(n), 0);
  int64_t n_seen = 0;
  double f = 1.0;  // n / n_seen: M and mb hold the table sum / n
  InterruptCheck stop;
  std::vector<double> u = zeros<double>(static_cast<size_t>(n * K), stop);
  int64_t count = 0;
  if (!is_zero_start(w, b, d * K, K) && p.max_iter >= 1) {  // a given model: the table at it (lines 2-4)
    for (int64_t i = 0; i < n; ++i) {
      stop.tick();
      const auto r = P.X.row(i);
      double* ui = u.data() + i * K;
      P.grad_at(i, r, w, b, s.data(), ui);
      for (int64_t k = 0; k < K; ++k) {
        a[k] = ui[k] * inv_n;
        mb[k] += a[k];
      }
      W.axpy_m(r, a.data());
    }
    std::fill(seen.begin(), seen.end(), 1);
    n_seen = n;
    count = 1;
    if (!mon.end_pass(w, b, 1.0, count)) return;
  }
  while (count < p.max_iter) {
    const int64_t* draws = order.next(Draw::WithReplacement, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(draws, t, n, u.data());
      const int64_t i = draws[t];
      if (n_seen < n && !seen[static_cast<size_t>(i)]) {
        seen[static_cast<size_t>(i)] = 1;
        ++n_seen;
        f = n_seen == n ? 1.0 : static_cast<double>(n) / static_cast<double>(n_seen);
      }
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      double* ui = u.data() + i * K;
      for (int64_t k = 0; k < K; ++k) {
        c[k] = g[k] - ui[k];
        ui[k] = g[k];
        a[k] = c[k] * inv_n;
      }
      if (sag) {
        W.axpy_m_advance(r, a.data(), f);
        for (int64_t k = 0; k < K; ++k) {
          mb[k] += a[k];
          if (p.fit_intercept) b[k] -= eta * (f * mb[k]);
        }
      } else {
        W.advance(true, f);
        // this step's dense term uses the table mean before the update
        for (int64_t k = 0; k < K; ++k) g[k] = -eta * c[k];
        const detail::KArg<KC> step(g.data(), K), inc(a.data(), K);
        for_each_nz(r, [&](int64_t j, double x) {
          W.catch_up(j);
          W.add(j, x, step);
          double* mj = W.m(j);
          for (int64_t k = 0; k < K; ++k) mj[k] += x * inc[k];
        });
        for (int64_t k = 0; k < K; ++k) {
          if (p.fit_intercept) b[k] -= eta * (c[k] + f * mb[k]);
          mb[k] += a[k];
        }
      }
    }
    ++count;
    W.materialize(w);
    if (!mon.end_pass(w, b, static_cast<double>(count), count)) return;
  }
}

}  // namespace vr
}  // namespace robustcore
