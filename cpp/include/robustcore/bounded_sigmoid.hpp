// The bounded sigmoid's likelihood, the asymptote estimate of two classes' flip rates (robustcore.noise): the
// noisy label's probability p(s) = lo + (1 - lo) e sigmoid(a s + c), lo = sigmoid(u), e = sigmoid(v), at a
// standardised score s; its negative log-likelihood over scores carrying positive and negative label counts, with
// the gradient and the Hessian in theta = (a, c, u, v), at several parameter points in one pass over the scores
// (the Newton starts of the rate fit step side by side); and the fit itself, rate_newton: Newton's method from
// those starts, each stepping, backtracking and stopping on its own, the objective being those sums (the engine's
// over rows or bins, or a caller's: robustcore.noise.distributed's reduction over a dask collection) / n plus the
// anchor penalty. noise/_transition.py chooses the starts, the constants and the result.
#pragma once

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

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

/// The rate fit's constants (noise/_transition.py's kNewton*: what they mean and how they were chosen).
struct RateNewtonParams {
  int64_t max_iter = 100;   ///< Newton steps per start
  double gtol = 1e-8;       ///< a start stops once its gradient's largest entry is at most this
  double ftol = 1e-12;      ///< ... or a step lowers its objective by at most this times max(1, |f|)
  int64_t patience = 5;     ///< after this many steps (< 0: never) a start above a stopped one's value by more
  double behind = 1e-3;     ///< than this times max(1, |that value|) stops
  double grow = 3.0;        ///< a line search begins at this times the start's last accepted step, at most 1
};

/// The anchor penalty of the rate fit: mu (top^2 + bottom^2) with top = max(0, reach - (a s_hi + c)) and bottom =
/// max(0, (a s_lo + c) + reach), the logit shortfalls of the clean posterior at the score quantiles s_hi and s_lo;
/// and n, the rows the sums run over (the objective is their mean).
struct AnchorPenalty {
  double n = 1.0, s_lo = 0.0, s_hi = 0.0, reach = 0.0, mu = 0.0;
};

namespace detail {

/// The objective at the m points th (m x 4): sums(th, m, f, g, H) / n plus the anchor penalty.
template <class Sums>
void rate_objective(Sums& sums, const AnchorPenalty& pen, const double* th, int64_t m, double* f, double* g,
                    double* H) {
  sums(th, m, f, g, H);
  const double mu2 = 2.0 * pen.mu;
  for (int64_t j = 0; j < m; ++j) {
    f[j] /= pen.n;
    for (int q = 0; q < 4; ++q) g[4 * j + q] /= pen.n;
    for (int q = 0; q < 16; ++q) H[16 * j + q] /= pen.n;
    const double a = th[4 * j], c = th[4 * j + 1];
    const double top = std::max(0.0, pen.reach - (a * pen.s_hi + c));
    const double bottom = std::max(0.0, (a * pen.s_lo + c) + pen.reach);
    f[j] += pen.mu * (top * top + bottom * bottom);
    g[4 * j] += mu2 * (bottom * pen.s_lo - top * pen.s_hi);
    g[4 * j + 1] += mu2 * (bottom - top);
    double* Hj = H + 16 * j;
    for (const auto& [shortfall, s] : {std::pair<double, double>{top, pen.s_hi}, {bottom, pen.s_lo}}) {
      if (!(shortfall > 0.0)) continue;
      Hj[0] += mu2 * (s * s);
      Hj[1] += mu2 * s;
      Hj[4] += mu2 * s;
      Hj[5] += mu2;
    }
  }
}

/// -H^-1 g for one start: H's eigenvalues replaced by their absolute values, floored at 1e-8 of the largest (a
/// descent direction at saddles and on the flat ridge; Newton's direction where H is positive definite).
inline void rate_direction(const double* g, const double* H, double* d) {
  const Eigen::Matrix4d Hm = Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(H);
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d> es(Hm, Eigen::ComputeEigenvectors);  // (its lower triangle)
  Eigen::Vector4d lam = es.eigenvalues().cwiseAbs();
  const double floor = 1e-8 * std::max(1e-12, lam.maxCoeff());
  lam = lam.cwiseMax(floor);
  const Eigen::Map<const Eigen::Vector4d> gv(g);
  const Eigen::Vector4d out = -(es.eigenvectors() * ((es.eigenvectors().transpose() * gv).cwiseQuotient(lam)));
  for (int q = 0; q < 4; ++q) d[q] = out[q];
}

}  // namespace detail

/// Newton's method with a backtracking (Armijo) line search from each of the m starts th (m x 4, in/out: each
/// start's last point), the running starts evaluated together (one sums call per round) but each stepping,
/// backtracking and stopping on its own; f (m) receives each start's objective. A start's line search begins at
/// p.grow times its last accepted step (at most the full step): along the flat ridge the full Newton step
/// overshoots by orders of magnitude. A trial that does not satisfy Armijo's condition backtracks to the minimum of
/// the quadratic through f, the slope and the trial, within [0.1, 0.5] of the step; below a step of 1e-10 the start
/// is at its optimum within rounding. sums(th, m, f, g, H): the sums of the negative log-likelihood over the rows
/// (bounded_sigmoid_sums, or a caller's reduction); may throw (an interrupt, a failed reduction).
template <class Sums>
void rate_newton(Sums&& sums, const AnchorPenalty& pen, const RateNewtonParams& p, double* th, int64_t m, double* f) {
  if (m < 1) return;
  std::vector<double> g(static_cast<size_t>(4 * m)), H(static_cast<size_t>(16 * m)), last(static_cast<size_t>(m), 1.0);
  std::vector<char> running(static_cast<size_t>(m), 1);
  detail::rate_objective(sums, pen, th, m, f, g.data(), H.data());
  std::vector<int64_t> idx;
  std::vector<double> d, slope, step, trial, ft, gt, Ht;
  std::vector<char> searching;
  std::vector<int64_t> k;
  for (int64_t it = 0; it < p.max_iter; ++it) {
    for (int64_t i = 0; i < m; ++i) {
      double gmax = 0.0;
      bool finite = true;
      for (int q = 0; q < 4; ++q) {
        finite = finite && std::isfinite(g[static_cast<size_t>(4 * i + q)]);
        gmax = std::max(gmax, std::fabs(g[static_cast<size_t>(4 * i + q)]));
      }
      running[static_cast<size_t>(i)] = running[static_cast<size_t>(i)] && finite && gmax > p.gtol;
    }
    const bool all_running = std::all_of(running.begin(), running.end(), [](char r) { return r != 0; });
    if (p.patience >= 0 && it >= p.patience && !all_running) {  // a start well above a stopped one's value stops
      double done = std::numeric_limits<double>::infinity();
      bool nan = false;
      for (int64_t i = 0; i < m; ++i)
        if (!running[static_cast<size_t>(i)]) {
          nan = nan || std::isnan(f[i]);
          done = std::min(done, f[i]);
        }
      if (!nan)
        for (int64_t i = 0; i < m; ++i)
          if (f[i] > done + p.behind * std::max(1.0, std::fabs(done))) running[static_cast<size_t>(i)] = 0;
    }
    idx.clear();
    for (int64_t i = 0; i < m; ++i)
      if (running[static_cast<size_t>(i)]) idx.push_back(i);
    if (idx.empty()) break;
    const int64_t r = static_cast<int64_t>(idx.size());
    d.assign(static_cast<size_t>(4 * r), 0.0);
    slope.assign(static_cast<size_t>(r), 0.0);
    step.assign(static_cast<size_t>(r), 0.0);
    for (int64_t j = 0; j < r; ++j) {
      const int64_t i = idx[static_cast<size_t>(j)];
      detail::rate_direction(g.data() + 4 * i, H.data() + 16 * i, d.data() + 4 * j);
      double sl = 0.0;
      for (int q = 0; q < 4; ++q) sl += g[static_cast<size_t>(4 * i + q)] * d[static_cast<size_t>(4 * j + q)];
      slope[static_cast<size_t>(j)] = sl;
      step[static_cast<size_t>(j)] = std::min(1.0, p.grow * last[static_cast<size_t>(i)]);
    }
    searching.assign(static_cast<size_t>(r), 1);
    while (true) {
      k.clear();
      for (int64_t j = 0; j < r; ++j)
        if (searching[static_cast<size_t>(j)]) k.push_back(j);
      if (k.empty()) break;
      const int64_t nk = static_cast<int64_t>(k.size());
      trial.resize(static_cast<size_t>(4 * nk));
      ft.resize(static_cast<size_t>(nk));
      gt.resize(static_cast<size_t>(4 * nk));
      Ht.resize(static_cast<size_t>(16 * nk));
      for (int64_t t = 0; t < nk; ++t) {
        const int64_t j = k[static_cast<size_t>(t)], i = idx[static_cast<size_t>(j)];
        for (int q = 0; q < 4; ++q)
          trial[static_cast<size_t>(4 * t + q)] = th[4 * i + q] + step[static_cast<size_t>(j)] * d[static_cast<size_t>(4 * j + q)];
      }
      detail::rate_objective(sums, pen, trial.data(), nk, ft.data(), gt.data(), Ht.data());
      for (int64_t t = 0; t < nk; ++t) {
        const size_t j = static_cast<size_t>(k[static_cast<size_t>(t)]);
        const int64_t i = idx[j];
        const double fk = ft[static_cast<size_t>(t)];
        if (std::isfinite(fk) && fk <= f[i] + 1e-4 * step[j] * slope[j]) {  // Armijo's condition
          searching[j] = 0;
          running[static_cast<size_t>(i)] = f[i] - fk > p.ftol * std::max(1.0, std::fabs(f[i]));
          for (int q = 0; q < 4; ++q) th[4 * i + q] += step[j] * d[4 * j + q];
          f[i] = fk;
          std::copy(gt.begin() + 4 * t, gt.begin() + 4 * (t + 1), g.begin() + 4 * i);
          std::copy(Ht.begin() + 16 * t, Ht.begin() + 16 * (t + 1), H.begin() + 16 * i);
          last[static_cast<size_t>(i)] = step[j];
          continue;
        }
        const double excess = fk - f[i] - step[j] * slope[j];
        const double shrink = std::isfinite(excess) && excess > 0.0 ? -slope[j] * step[j] / (2.0 * excess) : 0.1;
        step[j] *= std::min(0.5, std::max(0.1, shrink));
        if (step[j] <= 1e-10) searching[j] = running[static_cast<size_t>(i)] = 0;  // at the optimum within rounding
      }
    }
  }
}

}  // namespace robustcore
