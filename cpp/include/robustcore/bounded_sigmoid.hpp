// The bounded sigmoid's likelihood, the asymptote estimate of two classes' flip rates (robustcore.noise): the
// noisy label's probability p(s) = lo + (1 - lo) e sigmoid(a s + c), lo = sigmoid(u), e = sigmoid(v), at a
// standardised score s; its negative log-likelihood over scores carrying positive and negative label counts, with
// the gradient and the Hessian in theta = (a, c, u, v), at several parameter points in one pass over the scores
// (the Newton starts of the rate fit step side by side). Per-row work, so it lives here; the fit itself (a few
// dozen 4 x 4 Newton steps) is NumPy's (noise/_transition.py).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace robustcore {

/// For each of the m points theta_j = th[4 j .. 4 j + 3]: f[j] = -sum_i n_pos[i] log p_i + n_neg[i] log(1 - p_i),
/// g[4 j + k] = d f / d theta_k, H[16 j + 4 k + l] = d^2 f / d theta_k d theta_l (p clipped to [1e-12, 1 - 1e-12]
/// as a value, not in the derivatives). The Hessian is sum_i w_i J_i J_i^T + r_i d^2 p_i / d theta^2, with
/// J_i = d p_i / d theta, r_i = d f / d p_i, w_i = d^2 f / d p_i^2.
inline void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                                 const double* th, int64_t m, double* f, double* g, double* H) {
  const auto sigmoid = [](double z) { return 1.0 / (1.0 + std::exp(-z)); };  // exp(-z) = inf: 0, no NaN
  for (int64_t j = 0; j < m; ++j) {
    const double a = th[4 * j], c = th[4 * j + 1], lo = sigmoid(th[4 * j + 2]), e = sigmoid(th[4 * j + 3]);
    const double dlo = lo * (1.0 - lo), de = e * (1.0 - e), k = (1.0 - lo) * e;
    double value = 0.0, grad[4] = {0.0, 0.0, 0.0, 0.0}, outer[4][4] = {};
    double rs2 = 0.0, rs2s = 0.0, rs2ss = 0.0, rs1 = 0.0, rs1s = 0.0, rsig = 0.0, rsum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double s = score[i], sig = sigmoid(a * s + c);
      const double s1 = sig * (1.0 - sig), s2 = s1 * (1.0 - 2.0 * sig);  // sigmoid' and sigmoid''
      const double p = std::clamp(lo + k * sig, 1e-12, 1.0 - 1e-12);
      // a row carries one label (a zero count): its other term is skipped, not multiplied by zero -- one log and
      // one division fewer, the same sums (p is clipped, so every skipped term is a finite 0)
      double r = 0.0, w = 0.0, ll = 0.0;
      if (n_pos[i] != 0.0) {
        const double inv_p = 1.0 / p;
        ll = n_pos[i] * std::log(p);
        r = -n_pos[i] * inv_p;
        w = n_pos[i] * inv_p * inv_p;
      }
      if (n_neg[i] != 0.0) {
        const double inv_q = 1.0 / (1.0 - p);
        ll += n_neg[i] * std::log(1.0 - p);
        r += n_neg[i] * inv_q;
        w += n_neg[i] * inv_q * inv_q;
      }
      value -= ll;
      const double J[4] = {k * s1 * s, k * s1, dlo * (1.0 - e * sig), (1.0 - lo) * de * sig};
      for (int q = 0; q < 4; ++q) {
        grad[q] += r * J[q];
        for (int t = q; t < 4; ++t) outer[q][t] += w * J[q] * J[t];
      }
      rs2 += r * s2;
      rs2s += r * s2 * s;
      rs2ss += r * s2 * s * s;
      rs1 += r * s1;
      rs1s += r * s1 * s;
      rsig += r * sig;
      rsum += r;
    }
    // sum_i r_i d^2 p_i / d theta^2 from the seven sums
    const double D[4][4] = {
        {k * rs2ss, k * rs2s, -dlo * e * rs1s, (1.0 - lo) * de * rs1s},
        {k * rs2s, k * rs2, -dlo * e * rs1, (1.0 - lo) * de * rs1},
        {-dlo * e * rs1s, -dlo * e * rs1, dlo * (1.0 - 2.0 * lo) * (rsum - e * rsig), -dlo * de * rsig},
        {(1.0 - lo) * de * rs1s, (1.0 - lo) * de * rs1, -dlo * de * rsig, (1.0 - lo) * de * (1.0 - 2.0 * e) * rsig},
    };
    f[j] = value;
    for (int q = 0; q < 4; ++q) {
      g[4 * j + q] = grad[q];
      for (int t = 0; t < 4; ++t) H[16 * j + 4 * q + t] = (q <= t ? outer[q][t] : outer[t][q]) + D[q][t];
    }
  }
}

}  // namespace robustcore
