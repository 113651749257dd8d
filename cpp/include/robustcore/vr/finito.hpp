// Finito (paper Algorithm 4.6; Defazio, Caetano, Domke 2014), for any model (see problem.hpp).
// Keeps one iterate phi_i = (W_i, b_i) per sample (an n x (d+1) x K table: O(n d K) memory by nature;
// vr::fit checks the size against VrParams::max_dense_bytes before allocating, finito_check_size) and
// the K gradient factors u_i of each sample:
//   W = mean_i phi_i - eta (mean_i x_i u_i^T + lambda mean_i phi_i);  phi_j <- W;  refresh u_j
// j runs through a fresh permutation each pass (sampling without replacement; PassOrder,
// Draw::Permutation). Each step costs O(K d) (the mean of the phi_i changes densely), so Finito is not
// lazy.
// The first pass (from the zero model) is one plain SGD pass over the pass's permutation,
//   phi_j <- W;  u_j <- g_j(W);  W <- (1 - h lambda) W - h x_j u_j^T,  b <- b - h u_j
// with h = eta / n: Finito's step moves the table mean by eta / n times the mean gradient each step, so
// h is its own step per sample (the default eta = min(1/(2 lambda), n/(2L)) gives h = min(1/(2 lambda n),
// 1/(2L)), inside SGD's stable range; h depends on eta alone, so a given eta fixes every step). Each
// sample's table entry is the iterate its gradient was taken at, so the table is full and consistent
// after one pass with n gradients, and the pass's output is the SGD iterate (a one-pass fit learns as
// one SGD epoch; the SVRG family starts the same way, svrg.hpp). The Finito steps start with the second
// pass. (The former first pass, steps from the means over the rows seen so far, took the step eta, about
// n/2 SGD steps, from the mean of a few rows: the first iterates overshoot and stay in the table mean; it
// reached 0.92 training accuracy after one pass where one SGD epoch reaches 0.985 on
// make_classification(2000, 20).) From a given (non-zero) initial point, a warm start, the first pass
// fills the table at it (the paper's start).
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
  std::vector<double> phibar(w, w + D), gbar(D, 0.0), wk(D);
  KVec<KC> phibar_b = make_kvec<KC>(K), gbar_b = make_kvec<KC>(K), bk = make_kvec<KC>(K), s = make_kvec<KC>(K),
           g = make_kvec<KC>(K);
  std::copy(b, b + K, phibar_b.begin());
  std::fill(gbar_b.begin(), gbar_b.end(), 0.0);
  InterruptCheck stop;
  if (p.max_iter < 1) return;
  std::vector<double> phi = zeros<double>(static_cast<size_t>(n) * D, stop);
  std::vector<double> phib = zeros<double>(static_cast<size_t>(n * K), stop);
  std::vector<double> u = zeros<double>(static_cast<size_t>(n * K), stop);
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
  } else {  // the first pass: plain SGD, each row's table entry at the iterate its gradient is taken at
    const double h = eta * inv_n;  // Finito's step on the table mean per sample
    const double shrink = 1.0 - h * p.lambda;
    const int64_t* perm = order.next(Draw::Permutation, n);
    std::fill(phibar.begin(), phibar.end(), 0.0);  // phibar, gbar hold sums in this pass
    std::fill(phibar_b.begin(), phibar_b.end(), 0.0);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(perm, t, n, u.data());
      const int64_t i = perm[t];
      double* ph = phi.data() + static_cast<size_t>(i) * D;
      double* phb = phib.data() + i * K;
      std::copy(w, w + D, ph);
      std::copy(b, b + K, phb);
      for (size_t q = 0; q < D; ++q) phibar[q] += ph[q];
      for (int64_t k = 0; k < K; ++k) phibar_b[k] += phb[k];
      const auto r = P.X.row(i);
      double* ui = u.data() + i * K;
      P.grad_at(i, r, ph, phb, s.data(), ui);
      add_gradient(r, ui, 1.0, K, gbar.data(), gbar_b);
      for (int64_t k = 0; k < K; ++k) g[k] = -h * ui[k];
      for (size_t q = 0; q < D; ++q) w[q] *= shrink;
      for_each_nz(r, [&](int64_t j, double x) {
        double* wj = w + j * K;
        for (int64_t k = 0; k < K; ++k) wj[k] += x * g[k];
      });
      if (p.fit_intercept)
        for (int64_t k = 0; k < K; ++k) b[k] += g[k];
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
  if (!mon.end_pass(w, b, 1.0, count)) return;  // w, b: the SGD iterate (zero start) or the given model
  while (count < p.max_iter) {
    const int64_t* perm = order.next(Draw::Permutation, n);
    for (int64_t t = 0; t < n; ++t) {
      stop.tick();
      P.prefetch(perm, t, n, u.data());
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
