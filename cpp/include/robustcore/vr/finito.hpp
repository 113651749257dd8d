// Finito (paper Algorithm 4.6; Defazio, Caetano, Domke 2014), for any model (see problem.hpp).
// Keeps one iterate phi_i = (W_i, b_i) per sample (an n x (d+1) x K table: O(n d K) memory by nature;
// vr::fit checks the size against VrParams::max_dense_bytes before allocating, finito_check_size) and
// the K gradient factors u_i of each sample:
//   W = mean_i phi_i - eta (mean_i x_i u_i^T + lambda mean_i phi_i);  phi_j <- W;  refresh u_j
// j runs through a fresh permutation each pass (sampling without replacement; PassOrder,
// Draw::Permutation). Each step costs O(K d)
// (the mean of the phi_i changes densely), so Finito is not lazy. The first pass takes steps too (as in
// Defazio et al.'s first pass): row j, the (t+1)-th of the pass's permutation, gets
//   W = mean_S phi_i - eta (mean_S x_i u_i^T + lambda mean_S phi_i)   over the t rows S seen before it
// (W the initial point for the first row), so a one-pass fit learns; the table is full after it. From a
// given (non-zero) initial point, a warm start, the first pass fills the table at it (the paper's start).
#pragma once

#include <algorithm>
#include <vector>

#include "../monitor.hpp"
#include "problem.hpp"

namespace robustcore {
namespace vr {

template <class Model, class Data>
void finito_fit(const Problem<Model, Data>& P, double* w, double* b, PassOrder& order, Monitor<Model, Data>& mon) {
  constexpr int KC = Model::KC;
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K();
  const size_t D = static_cast<size_t>(d * K);
  const double inv_n = 1.0 / static_cast<double>(n), eta = P.eta;
  if (!mon.start(w, b)) return;
  std::vector<double> phi(static_cast<size_t>(n) * D), phib(static_cast<size_t>(n * K)), u(static_cast<size_t>(n * K));
  std::vector<double> phibar(w, w + D), gbar(D, 0.0), wk(D);
  KVec<KC> phibar_b = make_kvec<KC>(K), gbar_b = make_kvec<KC>(K), bk = make_kvec<KC>(K), s = make_kvec<KC>(K),
           g = make_kvec<KC>(K);
  std::copy(b, b + K, phibar_b.begin());
  std::fill(gbar_b.begin(), gbar_b.end(), 0.0);
  InterruptCheck stop;
  if (p.max_iter < 1) return;
  const bool warm = !is_zero_start(w, b, static_cast<int64_t>(D), K);
  if (warm) {  // a given model (a warm start): the table at it, as in the paper
    for (int64_t i = 0; i < n; ++i) {
      stop.tick();
      std::copy(w, w + D, phi.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * D));
      std::copy(b, b + K, phib.begin() + i * K);
      const auto r = P.X.row(i);
      double* ui = u.data() + i * K;
      P.grad_at(i, r, w, b, s.data(), ui);
      add_gradient(r, ui, inv_n, K, gbar.data(), gbar_b);
    }
  } else {  // the first pass: steps from the means over the rows seen so far (phibar, gbar hold sums here)
    const int64_t* perm = order.next(Draw::Permutation, n);
    std::fill(phibar.begin(), phibar.end(), 0.0);
    std::fill(phibar_b.begin(), phibar_b.end(), 0.0);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      const int64_t i = perm[t];
      double* ph = phi.data() + static_cast<size_t>(i) * D;
      double* phb = phib.data() + i * K;
      if (t == 0) {
        std::copy(w, w + D, ph);
        std::copy(b, b + K, phb);
      } else {
        const double inv_t = 1.0 / static_cast<double>(t);
        for (size_t q = 0; q < D; ++q) ph[q] = inv_t * phibar[q] - eta * inv_t * (gbar[q] + p.lambda * phibar[q]);
        for (int64_t k = 0; k < K; ++k) phb[k] = p.fit_intercept ? inv_t * phibar_b[k] - eta * inv_t * gbar_b[k] : b[k];
      }
      for (size_t q = 0; q < D; ++q) phibar[q] += ph[q];
      for (int64_t k = 0; k < K; ++k) phibar_b[k] += phb[k];
      const auto r = P.X.row(i);
      double* ui = u.data() + i * K;
      P.grad_at(i, r, ph, phb, s.data(), ui);
      add_gradient(r, ui, 1.0, K, gbar.data(), gbar_b);
    }
    for (size_t q = 0; q < D; ++q) phibar[q] *= inv_n, gbar[q] *= inv_n;
    for (int64_t k = 0; k < K; ++k) phibar_b[k] *= inv_n, gbar_b[k] *= inv_n;
  }
  int64_t count = 1;
  auto output = [&]() {
    for (size_t q = 0; q < D; ++q) w[q] = phibar[q] - eta * (gbar[q] + p.lambda * phibar[q]);
    if (p.fit_intercept)
      for (int64_t k = 0; k < K; ++k) b[k] = phibar_b[k] - eta * gbar_b[k];
  };
  if (!warm) output();
  if (!mon.end_pass(w, b, 1.0, count)) return;
  while (count < p.max_iter) {
    const int64_t* perm = order.next(Draw::Permutation, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      const int64_t i = perm[t];
      double* ph = phi.data() + static_cast<size_t>(i) * D;
      double* phb = phib.data() + i * K;
      for (size_t q = 0; q < D; ++q) {
        wk[q] = phibar[q] - eta * (gbar[q] + p.lambda * phibar[q]);
        phibar[q] += (wk[q] - ph[q]) * inv_n;
        ph[q] = wk[q];
      }
      for (int64_t k = 0; k < K; ++k) {
        bk[k] = p.fit_intercept ? phibar_b[k] - eta * gbar_b[k] : b[k];
        phibar_b[k] += (bk[k] - phb[k]) * inv_n;
        phb[k] = bk[k];
      }
      const auto r = P.X.row(i);
      P.grad_at(i, r, wk.data(), bk.data(), s.data(), g.data());
      double* ui = u.data() + i * K;
      for (int64_t k = 0; k < K; ++k) {
        const double delta = g[k] - ui[k];
        ui[k] = g[k];
        g[k] = delta;
      }
      add_gradient(r, g.data(), inv_n, K, gbar.data(), gbar_b);
    }
    ++count;
    output();
    if (!mon.end_pass(w, b, static_cast<double>(count), count)) return;
  }
}

}  // namespace vr
}  // namespace robustcore
