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

#include "simd.hpp"

namespace robustcore {

namespace detail {

/// The rows' terms of bounded_sigmoid_sums for one point, over a block: sig_i = sigmoid(a s_i + c), p_i clipped to
/// [1e-12, 1 - 1e-12], ll_i = n_pos log p + n_neg log(1 - p), r_i = d f / d p_i, w_i = d^2 f / d p_i^2.
/// Branch-free (simd.hpp: no libm call) and the arrays restrict-qualified (eight of them: more pairs than GCC checks
/// for overlap at run time), so it vectorises; a count of 0 multiplies a finite term (p is clipped),
/// which adds a zero: the sums of the branchy form.
ROBUSTCORE_SIMD_INLINE void bounded_sigmoid_terms(const double* __restrict score, const double* __restrict n_pos,
                                                  const double* __restrict n_neg, int64_t n, double a, double c,
                                                  double lo, double k, double* __restrict sig, double* __restrict ll,
                                                  double* __restrict r, double* __restrict w) {
  for (int64_t i = 0; i < n; ++i) {
    const double sg = simd::sigmoid(a * score[i] + c);
    const double raw = lo + k * sg;
    const double p = raw < 1e-12 ? 1e-12 : (raw > 1.0 - 1e-12 ? 1.0 - 1e-12 : raw);
    const double q = 1.0 - p, inv_p = 1.0 / p, inv_q = 1.0 / q;
    sig[i] = sg;
    ll[i] = n_pos[i] * simd::log_positive(p) + n_neg[i] * simd::log_positive(q);
    r[i] = -n_pos[i] * inv_p + n_neg[i] * inv_q;
    w[i] = n_pos[i] * inv_p * inv_p + n_neg[i] * inv_q * inv_q;
  }
}
#ifdef ROBUSTCORE_SIMD_DISPATCH
ROBUSTCORE_SIMD_V3 inline void bounded_sigmoid_terms_v3(const double* s, const double* np, const double* nn, int64_t n,
                                                        double a, double c, double lo, double k, double* sig,
                                                        double* ll, double* r, double* w) {
  bounded_sigmoid_terms(s, np, nn, n, a, c, lo, k, sig, ll, r, w);
}
ROBUSTCORE_SIMD_V4 inline void bounded_sigmoid_terms_v4(const double* s, const double* np, const double* nn, int64_t n,
                                                        double a, double c, double lo, double k, double* sig,
                                                        double* ll, double* r, double* w) {
  bounded_sigmoid_terms(s, np, nn, n, a, c, lo, k, sig, ll, r, w);
}
#endif
inline void bounded_sigmoid_terms_dispatch(const double* s, const double* np, const double* nn, int64_t n, double a,
                                           double c, double lo, double k, double* sig, double* ll, double* r,
                                           double* w) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  switch (simd_level()) {
    case SimdLevel::Avx512: return bounded_sigmoid_terms_v4(s, np, nn, n, a, c, lo, k, sig, ll, r, w);
    case SimdLevel::Avx2: return bounded_sigmoid_terms_v3(s, np, nn, n, a, c, lo, k, sig, ll, r, w);
    case SimdLevel::Baseline: break;
  }
#endif
  bounded_sigmoid_terms(s, np, nn, n, a, c, lo, k, sig, ll, r, w);
}

}  // namespace detail

/// For each of the m points theta_j = th[4 j .. 4 j + 3]: f[j] = -sum_i n_pos[i] log p_i + n_neg[i] log(1 - p_i),
/// g[4 j + k] = d f / d theta_k, H[16 j + 4 k + l] = d^2 f / d theta_k d theta_l (p clipped to [1e-12, 1 - 1e-12]
/// as a value, not in the derivatives). The Hessian is sum_i w_i J_i J_i^T + r_i d^2 p_i / d theta^2, with
/// J_i = d p_i / d theta, r_i = d f / d p_i, w_i = d^2 f / d p_i^2. Blocks of rows: their terms at the vector
/// width (detail::bounded_sigmoid_terms), then the sums in row order.
inline void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                                 const double* th, int64_t m, double* f, double* g, double* H) {
  constexpr int64_t B = 256;
  double SIG[B], LL[B], R[B], W[B];
  for (int64_t j = 0; j < m; ++j) {
    const double a = th[4 * j], c = th[4 * j + 1], lo = simd::sigmoid(th[4 * j + 2]), e = simd::sigmoid(th[4 * j + 3]);
    const double dlo = lo * (1.0 - lo), de = e * (1.0 - e), k = (1.0 - lo) * e;
    double value = 0.0, grad[4] = {0.0, 0.0, 0.0, 0.0}, outer[4][4] = {};
    double rs2 = 0.0, rs2s = 0.0, rs2ss = 0.0, rs1 = 0.0, rs1s = 0.0, rsig = 0.0, rsum = 0.0;
    for (int64_t i0 = 0; i0 < n; i0 += B) {
      const int64_t len = std::min(B, n - i0);
      detail::bounded_sigmoid_terms_dispatch(score + i0, n_pos + i0, n_neg + i0, len, a, c, lo, k, SIG, LL, R, W);
      for (int64_t t = 0; t < len; ++t) {
        const double s = score[i0 + t], sig = SIG[t], r = R[t], w = W[t];
        const double s1 = sig * (1.0 - sig), s2 = s1 * (1.0 - 2.0 * sig);  // sigmoid' and sigmoid''
        value -= LL[t];
        const double J[4] = {k * s1 * s, k * s1, dlo * (1.0 - e * sig), (1.0 - lo) * de * sig};
        for (int q = 0; q < 4; ++q) {
          grad[q] += r * J[q];
          for (int u = q; u < 4; ++u) outer[q][u] += w * J[q] * J[u];
        }
        rs2 += r * s2;
        rs2s += r * s2 * s;
        rs2ss += r * s2 * s * s;
        rs1 += r * s1;
        rs1s += r * s1 * s;
        rsig += r * sig;
        rsum += r;
      }
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
      for (int u = 0; u < 4; ++u) H[16 * j + 4 * q + u] = (q <= u ? outer[q][u] : outer[u][q]) + D[q][u];
    }
  }
}

}  // namespace robustcore
