// The SVRG family for binary linear models (see lazy.hpp):
//   SVRG (Algorithm 4.2; Johnson & Zhang 2013), S2GD (4.5; Konecny & Richtarik), Batching SVRG (4.8)
//   and Mixed SVRG (4.9; Harikandeh et al. 2015).
// Outer iteration k: snapshot w_k; mu = (1/|B|) sum_{i in B} r'_i(w_k) y_i x_i over the batch B (all
// samples for SVRG/S2GD). Inner steps j = 1..m, i uniform in {1..n}:
//   w <- w - eta (lambda w + (r'_i(w) - r'_i(w_k)) y_i x_i + mu)
// Mixed SVRG takes a plain SGD step w <- w - eta (lambda w + r'_i(w) y_i x_i) when i is not in B.
// (The paper's Alg. 4.9 prints line 9 again as line 12, which would undo the branch; we follow
// Harikandeh et al.) The L2 term is exact, so lambda w_k cancels and is never stored.
// Batching/Mixed SVRG grow the batch geometrically, B_{k+1} = min(n, ceil(batch_growth B_k)) (Harikandeh
// et al.: a fixed batch leaves an error floor of the order of the batch gradient's error), so they
// become SVRG once B = n; batch_growth = 1 keeps the batch fixed as printed in Alg. 4.8/4.9.
// The next outer iterate: SVRG option (a) last, (b) average of the m inner iterates, (c) a uniformly
// chosen inner iterate; S2GD picks inner iterate t with probability ~ (1 - nu eta)^(m - t); Batching
// and Mixed SVRG pick uniformly (line 10 / 14).
// Memory: SVRG/S2GD keep r'_i(w_k) y_i (one scalar per sample); Batching/Mixed keep the snapshot w_k
// (d values) and the batch scalars, and compute r'_i(w_k) for i outside B on the fly.
// Effective passes: SVRG/S2GD (n + m)/n per outer iteration; Batching/Mixed count |B| + one gradient
// per inner step, plus one more for each SVRG step on a sample outside B.
// Draws per outer iteration, in order: the batch (first B entries of idx.permutation(n); Batching and
// Mixed only), the chosen inner iterate (option (c), S2GD, Batching, Mixed), then m x idx.below(n).
#pragma once

#include "lazy.hpp"

namespace robustcore {
namespace vr {

template <class Loss, class Data>
VrResult svrg_family_fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double eta,
                         double* w, double& b, IndexStream& idx, ProgressFn progress, EvalSet<Data> eval = {}) {
  const int64_t n = X.rows(), d = X.cols();
  const Method meth = p.method;
  const bool batching = meth == Method::BatchingSvrg || meth == Method::MixedSvrg;
  const bool mixed = meth == Method::MixedSvrg;
  const bool average = meth == Method::Svrg && p.option == SvrgOption::Average;
  const bool pick = meth != Method::Svrg || p.option == SvrgOption::Random;
  const int64_t m_inner = p.inner > 0 ? p.inner : n;
  int64_t B = batching ? std::min(n, p.batch > 0 ? p.batch : std::max<int64_t>(1, n / 8)) : n;
  const double nu = p.s2gd_nu >= 0.0 ? p.s2gd_nu : p.lambda;
  VrResult res;
  res.eta = eta;
  PassMonitor<Loss, Data> mon(X, y, loss, p, res, std::move(progress), eval);
  mon.end_pass(w, b, 0.0, 0);
  mon.restart_clock();
  LazyWeights W(d, eta, p.lambda, average);
  W.set(w);
  std::vector<double> gs(static_cast<size_t>(n), 0.0), wk(static_cast<size_t>(batching ? d : 0)),
      wpick(static_cast<size_t>(pick ? d : 0));
  std::vector<char> in_batch(static_cast<size_t>(n), batching ? 0 : 1);
  std::vector<int64_t> perm, draws;
  double evals = 0.0;  // gradient evaluations
  int64_t count = 0;
  while (evals < static_cast<double>(p.passes) * static_cast<double>(n)) {
    // snapshot (w is caught up and stored in w[] here)
    const double bk = b;
    if (batching) {
      idx.permutation(n, perm);
      std::fill(in_batch.begin(), in_batch.end(), 0);
      for (int64_t k = 0; k < B; ++k) in_batch[static_cast<size_t>(perm[static_cast<size_t>(k)])] = 1;
      std::copy(w, w + d, wk.begin());
    }
    W.zero_m();  // w is caught up here
    double mub = 0.0;
    const double inv_b = 1.0 / static_cast<double>(B);
    for (int64_t i = 0; i < n; ++i) {
      if (!in_batch[static_cast<size_t>(i)]) continue;
      const auto r = X.row(i);
      const double g = loss.deriv(y[i] * (dot(r, w) + bk)) * y[i] * sw(p, i);
      gs[static_cast<size_t>(i)] = g;
      W.axpy_m(g * inv_b, r);
      mub += g * inv_b;
    }
    evals += static_cast<double>(B);
    const int64_t B_next = std::min<int64_t>(n, static_cast<int64_t>(std::ceil(p.batch_growth * static_cast<double>(B))));
    int64_t chosen = -1;
    if (pick) chosen = meth == Method::S2gd ? idx.geometric(m_inner, 1.0 - nu * eta) : idx.below(m_inner);
    if (average) W.clear_sums();
    double bsum = 0.0, bpick = b;
    draws.resize(static_cast<size_t>(m_inner));
    for (int64_t t = 0; t < m_inner; ++t) draws[static_cast<size_t>(t)] = idx.below(n);
    for (int64_t t = 0; t < m_inner; ++t) {
      prefetch_ahead(X, draws.data(), t, m_inner);
      prefetch_samples(draws.data(), t, m_inner, y, p.sample_weight, gs.data(), in_batch.data());
      const int64_t i = draws[static_cast<size_t>(t)];
      const auto r = X.row(i);
      const double gi = loss.deriv(y[i] * (W.catch_up_dot(r) + b)) * y[i] * sw(p, i);
      evals += 1.0;
      if (mixed && !in_batch[static_cast<size_t>(i)]) {
        W.advance(false);
        W.catch_up_add(r, -eta * gi);
        if (p.fit_intercept) b -= eta * gi;
      } else {
        double gsi;
        if (in_batch[static_cast<size_t>(i)]) {
          gsi = gs[static_cast<size_t>(i)];
        } else {
          gsi = loss.deriv(y[i] * (dot(r, wk.data()) + bk)) * y[i] * sw(p, i);
          evals += 1.0;
        }
        const double c = gi - gsi;
        W.advance(true);
        W.catch_up_add(r, -eta * c);
        if (p.fit_intercept) b -= eta * (c + mub);
      }
      bsum += b;
      if (t == chosen) {
        W.materialize(wpick.data());
        bpick = b;
      }
    }
    if (average) {
      W.catch_up_all();
      const double* s = W.sums();
      for (int64_t j = 0; j < d; ++j) w[j] = s[j] / static_cast<double>(m_inner);
      W.set(w);
      b = bsum / static_cast<double>(m_inner);
    } else if (pick) {
      W.set(wpick.data());
      std::copy(wpick.begin(), wpick.end(), w);
      b = bpick;
    } else {
      W.materialize(w);
    }
    ++count;
    B = B_next;
    if (!mon.end_pass(w, b, evals / static_cast<double>(n), count)) return res;
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
