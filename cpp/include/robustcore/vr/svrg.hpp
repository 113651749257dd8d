// The SVRG family, for any model (see problem.hpp):
//   SVRG (Algorithm 4.2; Johnson & Zhang 2013), S2GD (4.5; Konecny & Richtarik), Batching SVRG (4.8)
//   and Mixed SVRG (4.9; Harikandeh et al. 2015).
// Outer iteration k: snapshot W_k; mu = (1/|B|) sum_{i in B} x_i g_i(W_k)^T over the batch B (all
// samples for SVRG/S2GD). Inner steps j = 1..m, i uniform in {1..n}:
//   W <- W - eta (lambda W + x_i (g_i(W) - g_i(W_k))^T + mu)
// Mixed SVRG takes a plain SGD step W <- W - eta (lambda W + x_i g_i(W)^T) when i is not in B (no
// correction; the lazy catch-up skips the dense term on those steps through LazyWeights::advance(false)).
// (The paper's Alg. 4.9 prints line 9 again as line 12, which would undo the branch; we follow
// Harikandeh et al.) The L2 term is exact, so lambda W_k cancels and is never stored.
// Batching SVRG: the snapshot gradient is the mean over a batch of B samples drawn without replacement
// (VrParams::batch, default n/8); gradients at the snapshot outside the batch are computed on the fly.
// Batching/Mixed SVRG grow the batch geometrically, B_{k+1} = min(n, ceil(batch_growth B_k)) (Harikandeh
// et al.: a fixed batch leaves an error floor of the order of the batch gradient's error), so they
// become SVRG once B = n; batch_growth = 1 keeps the batch fixed as printed in Alg. 4.8/4.9.
// The next outer iterate: SVRG option (a) last, (b) average of the m inner iterates, (c) a uniformly
// chosen inner iterate; S2GD picks inner iterate t with probability ~ (1 - nu eta)^(m - t) (nu =
// VrParams::s2gd_nu, default lambda); Batching and Mixed SVRG pick uniformly (line 10 / 14).
// Memory: the snapshot gradient factors of the batch (K per sample) and the snapshot W_k (d x K, held
// in w[] during the inner loop).
// The first pass is one plain SGD pass from the initial point (W <- W - eta (lambda W + x_i g_i(W)^T), n
// draws with replacement; Johnson & Zhang initialise SVRG with SGD): a one-pass fit learns, and the first
// snapshot is taken at a useful point instead of at W_0. From a given (non-zero) initial point, a warm
// start, the first outer iteration starts at once, as in the papers.
// Effective passes: SVRG/S2GD (n + m)/n per outer iteration; Batching/Mixed count |B| + one gradient
// per inner step, plus one more for each SVRG step on a sample outside B. The budget is max_iter passes
// (max_iter n gradient evaluations), never exceeded: an outer iteration starts only when its snapshot
// and one inner step fit, and its inner loop stops before a step that would not fit (then the last
// iterate, or the mean / the chosen one of the steps taken, ends it).
// Draws: the first pass's n indices; then per outer iteration, in order: the batch (first B entries of Sampler::permutation(n); Batching
// and Mixed only), the chosen inner iterate (option (c), S2GD, Batching, Mixed), then the m inner indices
// (PassOrder, Draw::WithReplacement: m x below(n) under Shuffle::Exact).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "../monitor.hpp"
#include "problem.hpp"

namespace robustcore {
namespace vr {

template <class Model, class Data>
void svrg_family_fit(const Problem<Model, Data>& P, double* w, double* b, PassOrder& order, Monitor<Model, Data>& mon) {
  constexpr int KC = Model::KC;
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K();
  const double eta = P.eta;
  const Method meth = p.method;
  const bool batching = meth == Method::BatchingSvrg || meth == Method::MixedSvrg;
  const bool mixed = meth == Method::MixedSvrg;
  const bool average = meth == Method::Svrg && p.option == SvrgOption::Average;
  const bool pick = meth != Method::Svrg || p.option == SvrgOption::Random;
  const int64_t m_inner = p.inner > 0 ? p.inner : n;
  int64_t B = batching ? std::min(n, p.batch > 0 ? p.batch : std::max<int64_t>(1, n / 8)) : n;
  const double nu = p.s2gd_nu >= 0.0 ? p.s2gd_nu : p.lambda;
  if (!mon.start(w, b)) return;
  WeightStore<Data, KC> W(d, K, eta, p.lambda, average);
  W.set(w);
  std::vector<double> wpick(static_cast<size_t>(pick ? d * K : 0));
  KVec<KC> mub = make_kvec<KC>(K), s = make_kvec<KC>(K), g = make_kvec<KC>(K), gsn = make_kvec<KC>(K),
           c = make_kvec<KC>(K), bk = make_kvec<KC>(K), bsum = make_kvec<KC>(K), bpick = make_kvec<KC>(K);
  std::vector<char> in_batch(static_cast<size_t>(n), batching ? 0 : 1);
  std::vector<int64_t> perm;
  double evals = 0.0;  // gradient evaluations
  const double budget = static_cast<double>(p.max_iter) * static_cast<double>(n);
  int64_t count = 0;
  InterruptCheck stop;
  std::vector<double> u = zeros<double>(static_cast<size_t>(n * K), stop);
  if (p.max_iter >= 1 && is_zero_start(w, b, d * K, K)) {  // the first pass: plain SGD (from zero only)
    const int64_t* draws = order.next(Draw::WithReplacement, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(draws, t, n, u.data());
      const int64_t i = draws[t];
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      for (int64_t k = 0; k < K; ++k) c[k] = -eta * g[k];
      W.advance(false);
      W.catch_up_add(r, c.data());
      if (p.fit_intercept)
        for (int64_t k = 0; k < K; ++k) b[k] -= eta * g[k];
    }
    evals = static_cast<double>(n);
    W.materialize(w);
    W.set(w);
    ++count;
    if (!mon.end_pass(w, b, 1.0, count)) return;
  }
  while (evals + static_cast<double>(B) + 1.0 <= budget) {
    // snapshot (W is caught up and w[] holds it here)
    std::copy(b, b + K, bk.begin());
    if (batching) {
      order.sampler().permutation(n, perm);
      std::fill(in_batch.begin(), in_batch.end(), 0);
      for (int64_t k = 0; k < B; ++k) in_batch[static_cast<size_t>(perm[static_cast<size_t>(k)])] = 1;
    }
    W.zero_m();
    std::fill(mub.begin(), mub.end(), 0.0);
    const double inv_b = 1.0 / static_cast<double>(B);
    for (int64_t i = 0; i < n; ++i) {
      if (!in_batch[static_cast<size_t>(i)]) continue;
      stop.tick();
      const auto r = P.X.row(i);
      double* ui = u.data() + i * K;
      P.grad_at(i, r, w, bk.data(), s.data(), ui);
      for (int64_t k = 0; k < K; ++k) {
        c[k] = ui[k] * inv_b;
        mub[k] += c[k];
      }
      W.axpy_m(r, c.data());
    }
    evals += static_cast<double>(B);
    const int64_t B_next = std::min<int64_t>(n, static_cast<int64_t>(std::ceil(p.batch_growth * static_cast<double>(B))));
    int64_t chosen = -1;
    if (pick) chosen = meth == Method::S2gd ? order.sampler().geometric(m_inner, 1.0 - nu * eta)
                                         : order.sampler().below(m_inner);
    if (average) W.clear_sums();
    std::fill(bsum.begin(), bsum.end(), 0.0);
    std::copy(b, b + K, bpick.begin());
    const int64_t* draws = order.next(Draw::WithReplacement, m_inner);
    int64_t steps = 0;  // inner steps taken (m_inner unless the budget ends the loop)
    for (int64_t t = 0; t < m_inner; ++t) {
      stop.tick();
      P.prefetch(draws, t, m_inner, u.data());
      const int64_t i = draws[t];
      const bool two = !in_batch[static_cast<size_t>(i)] && !mixed;  // the snapshot gradient on the fly
      if (evals + (two ? 2.0 : 1.0) > budget) break;
      ++steps;
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, W, b, s.data(), g.data());
      evals += 1.0;
      if (mixed && !in_batch[static_cast<size_t>(i)]) {  // plain SGD step: no correction, no dense term
        for (int64_t k = 0; k < K; ++k) c[k] = -eta * g[k];
        W.advance(false);
        W.catch_up_add(r, c.data());
        if (p.fit_intercept)
          for (int64_t k = 0; k < K; ++k) b[k] -= eta * g[k];
      } else {
        const double* gs = u.data() + i * K;
        if (!in_batch[static_cast<size_t>(i)]) {
          P.grad_at(i, r, w, bk.data(), s.data(), gsn.data());
          gs = gsn.data();
          evals += 1.0;
        }
        for (int64_t k = 0; k < K; ++k) {
          c[k] = g[k] - gs[k];
          g[k] = -eta * c[k];
        }
        W.advance(true);
        W.catch_up_add(r, g.data());
        if (p.fit_intercept)
          for (int64_t k = 0; k < K; ++k) b[k] -= eta * (c[k] + mub[k]);
      }
      for (int64_t k = 0; k < K; ++k) bsum[k] += b[k];
      if (t == chosen) {
        W.materialize(wpick.data());
        std::copy(b, b + K, bpick.begin());
      }
    }
    if (average) {
      W.catch_up_all();
      const double* sums = W.sums();
      for (int64_t q = 0; q < d * K; ++q) w[q] = sums[q] / static_cast<double>(steps);
      W.set(w);
      for (int64_t k = 0; k < K; ++k) b[k] = bsum[k] / static_cast<double>(steps);
    } else if (pick && chosen < steps) {
      W.set(wpick.data());
      std::copy(wpick.begin(), wpick.end(), w);
      std::copy(bpick.begin(), bpick.end(), b);
    } else {
      W.materialize(w);
    }
    ++count;
    B = B_next;
    if (!mon.end_pass(w, b, evals / static_cast<double>(n), count)) return;
  }
}

}  // namespace vr
}  // namespace robustcore
