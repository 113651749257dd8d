// Finito (paper Algorithm 4.6; Defazio, Caetano, Domke 2014) for binary linear models.
// Keeps one iterate phi_i per sample (an n x d table: O(n d) memory by nature; the size is checked
// against VrParams::max_dense_bytes before allocating) and one loss-derivative scalar per sample:
//   w = mean_i phi_i - eta (mean_i r'_i(phi_i) y_i x_i + lambda mean_i phi_i);  phi_j <- w;  refresh r'_j
// j runs through a fresh permutation each pass (sampling without replacement). Each step costs O(d)
// (the mean of the phi_i changes densely), so Finito is not lazy. The first pass (the table at w_1)
// counts as one effective pass.
#pragma once

#include "lazy.hpp"

namespace robustcore {
namespace vr {

/// Throws std::invalid_argument naming the size when Finito's n x (d+1) table (n x (d+1) x K for the
/// softmax model with K classes) would exceed max_bytes.
inline void finito_check_size(int64_t n, int64_t d, int64_t max_bytes, int64_t K = 1) {
  const double bytes = 8.0 * static_cast<double>(n) * static_cast<double>(d + 1) * static_cast<double>(K);
  if (bytes > static_cast<double>(max_bytes))
    throw std::invalid_argument("finito stores one weight vector per sample: " + std::to_string(n) + " x " +
                                std::to_string(d + 1) + (K > 1 ? " x " + std::to_string(K) : std::string()) +
                                " doubles = " + std::to_string(bytes / 1e9) +
                                " GB, above the limit of " + std::to_string(static_cast<double>(max_bytes) / 1e9) +
                                " GB (raise max_dense_bytes, or use saga/svrg whose memory is O(n + d))");
}

template <class Loss, class Data>
VrResult finito_fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double eta, double* w,
                    double& b, IndexStream& idx, ProgressFn progress, EvalSet<Data> eval = {}) {
  const int64_t n = X.rows(), d = X.cols();
  finito_check_size(n, d, p.max_dense_bytes);
  const double inv_n = 1.0 / static_cast<double>(n);
  const size_t D = static_cast<size_t>(d);
  VrResult res;
  res.eta = eta;
  PassMonitor<Loss, Data> mon(X, y, loss, p, res, std::move(progress), eval);
  mon.end_pass(w, b, 0.0, 0);
  mon.restart_clock();
  std::vector<double> phi(static_cast<size_t>(n) * D), phib(static_cast<size_t>(n), b), u(static_cast<size_t>(n));
  std::vector<double> phibar(w, w + d), gbar(D, 0.0);
  double phibar_b = b, gbar_b = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    std::copy(w, w + d, phi.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * D));
    const auto r = X.row(i);
    u[static_cast<size_t>(i)] = loss.deriv(y[i] * (dot(r, w) + b)) * y[i] * sw(p, i);
    axpy(u[static_cast<size_t>(i)] * inv_n, r, gbar.data());
    gbar_b += u[static_cast<size_t>(i)] * inv_n;
  }
  int64_t count = 1;
  if (!mon.end_pass(w, b, 1.0, count)) return res;
  std::vector<int64_t> perm;
  std::vector<double> wk(D);
  while (count < p.passes) {
    idx.permutation(n, perm);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = perm[static_cast<size_t>(k)];
      double* ph = phi.data() + static_cast<size_t>(i) * D;
      for (size_t j = 0; j < D; ++j) wk[j] = phibar[j] - eta * (gbar[j] + p.lambda * phibar[j]);
      const double bk = p.fit_intercept ? phibar_b - eta * gbar_b : b;
      for (size_t j = 0; j < D; ++j) {
        phibar[j] += (wk[j] - ph[j]) * inv_n;
        ph[j] = wk[j];
      }
      phibar_b += (bk - phib[static_cast<size_t>(i)]) * inv_n;
      phib[static_cast<size_t>(i)] = bk;
      const auto r = X.row(i);
      const double g = loss.deriv(y[i] * (dot(r, wk.data()) + bk)) * y[i] * sw(p, i);
      const double delta = g - u[static_cast<size_t>(i)];
      u[static_cast<size_t>(i)] = g;
      axpy(delta * inv_n, r, gbar.data());
      gbar_b += delta * inv_n;
    }
    ++count;
    for (size_t j = 0; j < D; ++j) w[j] = phibar[j] - eta * (gbar[j] + p.lambda * phibar[j]);
    if (p.fit_intercept) b = phibar_b - eta * gbar_b;
    if (!mon.end_pass(w, b, static_cast<double>(count), count)) return res;
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
