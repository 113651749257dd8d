// Plain SGD with a constant step, for any model (see problem.hpp): the softmax model's baseline in the
// label-powerset experiments (binary SGD with schedules and averaging is sgd.hpp). Each pass visits a
// fresh permutation (PassOrder, Draw::Permutation) and takes
//   W <- (1 - eta lambda) W - eta x_i g_i(W)^T,   b <- b - eta g_i(W)
// with the L2 shrinkage in the scale of the lazy store (no dense term, so nothing is ever pending):
// O(K nnz) per step.
#pragma once

#include <vector>

#include "../monitor.hpp"
#include "problem.hpp"

namespace robustcore {
namespace vr {

template <class Model, class Data>
void plain_sgd_fit(const Problem<Model, Data>& P, double* w, double* b, PassOrder& order, Monitor<Model, Data>& mon) {
  constexpr int KC = Model::KC;
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K();
  const double eta = P.eta;
  if (!mon.start(w, b)) return;
  WeightStore<Data, KC> W(d, K, eta, p.lambda, false);
  W.set(w);
  KVec<KC> s = make_kvec<KC>(K), g = make_kvec<KC>(K);
  int64_t count = 0;
  InterruptCheck stop;
  while (count < p.max_iter) {
    const int64_t* perm = order.next(Draw::Permutation, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(perm, t, n);
      const int64_t i = perm[t];
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      for (int64_t k = 0; k < K; ++k) g[k] *= -eta;
      W.advance(false);
      W.catch_up_add(r, g.data());
      if (p.fit_intercept)
        for (int64_t k = 0; k < K; ++k) b[k] += g[k];
    }
    ++count;
    W.materialize(w);
    if (!mon.end_pass(w, b, static_cast<double>(count), count)) return;
  }
}

}  // namespace vr
}  // namespace robustcore
