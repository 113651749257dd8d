// SAGA (paper Algorithm 4.3; Defazio, Bach, Lacoste-Julien 2014) and, with `sag = true`, SAG
// (Algorithm 4.4; Le Roux, Schmidt, Bach 2012), for any model (see problem.hpp):
//   SAGA: W <- W - eta (lambda W + x_j (g_j(W) - u_j)^T + (1/n) sum_i x_i u_i^T),  u_j <- g_j(W)
//   SAG:  u_j <- g_j(W) first, then  W <- W - eta (lambda W + (1/n) sum_i x_i u_i^T)
// (SAG's step is (1/n) times the new table sum, a biased estimate.) The table holds the K gradient
// factors of each sample (one scalar for the binary model); the L2 term is exact, not stored. The table
// starts at the gradients in W_1 (lines 2-4 of both algorithms), which costs the first effective pass.
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
  LazyWeights<KC> W(d, K, eta, p.lambda, false);
  W.set(w);
  std::vector<double> u(static_cast<size_t>(n * K));
  KVec<KC> mb = make_kvec<KC>(K), s = make_kvec<KC>(K), g = make_kvec<KC>(K), a = make_kvec<KC>(K),
           c = make_kvec<KC>(K);
  std::fill(mb.begin(), mb.end(), 0.0);
  InterruptCheck stop;
  for (int64_t i = 0; i < n; ++i) {  // the table at the initial point (lines 2-4)
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
  int64_t count = 1;
  if (!mon.end_pass(w, b, 1.0, count)) return;
  while (count < p.max_iter) {
    const int64_t* draws = order.next(Draw::WithReplacement, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(draws, t, n, u.data());
      const int64_t i = draws[t];
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      double* ui = u.data() + i * K;
      for (int64_t k = 0; k < K; ++k) {
        c[k] = g[k] - ui[k];
        ui[k] = g[k];
        a[k] = c[k] * inv_n;
      }
      if (sag) {
        W.axpy_m_advance(r, a.data());
        for (int64_t k = 0; k < K; ++k) {
          mb[k] += a[k];
          if (p.fit_intercept) b[k] -= eta * mb[k];
        }
      } else {
        W.advance();
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
          if (p.fit_intercept) b[k] -= eta * (c[k] + mb[k]);
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
