// Euclidean projections shared by the solvers.
//
// project_capped_simplex: the box-capped l1 ball
//     P(v) = argmin_x ||x - v||^2  s.t.  0 <= x_i <= upper,  sum_i x_i <= budget
// (MKL paper Lemma 2 with upper = 1 + tau, budget = rho; FOL paper section 4, slack variables with
// upper = 1, budget = K). KKT: x_i = clip(v_i - theta, 0, upper) with theta >= 0, and theta > 0 only
// when the budget is active (sum x = budget). g(theta) = sum_i clip(v_i - theta, 0, upper) is
// continuous, piecewise linear and non-increasing with breakpoints v_i - upper and v_i; we sort the
// positive breakpoints and sweep them once, so the projection is exact and O(m log m).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace robustcore {

namespace detail {
/// project_capped_simplex with the bound of coordinate i given by bound(i) >= 0 (a coordinate of bound 0
/// stays 0); arguments already checked.
template <class Bound>
double project_capped_simplex(const double* v, int64_t m, Bound bound, double budget, double* out) {
  double g0 = 0.0;
  int64_t free0 = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (!std::isfinite(v[i])) throw std::invalid_argument("project_capped_simplex: v contains NaN or infinity");
    const double u = bound(i);
    g0 += std::min(std::max(v[i], 0.0), u);
    if (v[i] > 0.0 && v[i] <= u && u > 0.0) ++free0;
  }
  double theta = 0.0;
  if (g0 > budget) {
    // Events at positive breakpoints: a capped coordinate becomes free (+1) at v_i - upper_i, a free
    // one reaches 0 (-1) at v_i. Between events g falls with slope -free.
    std::vector<std::pair<double, int>> ev;
    ev.reserve(static_cast<size_t>(2 * m));
    for (int64_t i = 0; i < m; ++i) {
      const double u = bound(i);
      if (!(u > 0.0)) continue;
      if (v[i] > 0.0) ev.emplace_back(v[i], -1);
      if (v[i] - u > 0.0) ev.emplace_back(v[i] - u, +1);
    }
    std::sort(ev.begin(), ev.end());
    double t = 0.0, g = g0;
    int64_t free = free0;
    theta = -1.0;
    for (const auto& e : ev) {
      const double g_next = g - static_cast<double>(free) * (e.first - t);
      if (free > 0 && g_next <= budget) {
        theta = t + (g - budget) / static_cast<double>(free);
        break;
      }
      g = g_next;
      t = e.first;
      free += e.second;
    }
    if (theta < 0.0) theta = t;  // budget == 0 (or rounding at the last breakpoint): all zero
  }
  for (int64_t i = 0; i < m; ++i) out[i] = std::min(std::max(v[i] - theta, 0.0), bound(i));
  return theta;
}

inline void check_capped_simplex(double upper, double budget) {
  if (!(upper > 0.0) || !std::isfinite(upper))
    throw std::invalid_argument("project_capped_simplex: the upper bound must be > 0 and finite");
  if (!(budget >= 0.0) || !std::isfinite(budget))
    throw std::invalid_argument("project_capped_simplex: the budget must be >= 0 and finite");
}
}  // namespace detail

/// Writes P(v) into out (out may alias v) and returns theta, the multiplier of the budget
/// constraint (0 when it is inactive). Throws std::invalid_argument unless upper > 0, budget >= 0,
/// both finite, and v finite.
inline double project_capped_simplex(const double* v, int64_t m, double upper, double budget, double* out) {
  if (m < 0) throw std::invalid_argument("project_capped_simplex: negative length");
  detail::check_capped_simplex(upper, budget);
  return detail::project_capped_simplex(v, m, [upper](int64_t) { return upper; }, budget, out);
}

/// The same with one bound per coordinate, upper * scale[i] (scale: m finite values >= 0, checked by the
/// caller; a null scale is all ones): the box of a weighted problem.
inline double project_capped_simplex(const double* v, int64_t m, double upper, const double* scale, double budget,
                                     double* out) {
  if (!scale) return project_capped_simplex(v, m, upper, budget, out);
  if (m < 0) throw std::invalid_argument("project_capped_simplex: negative length");
  detail::check_capped_simplex(upper, budget);
  return detail::project_capped_simplex(v, m, [upper, scale](int64_t i) { return upper * scale[i]; }, budget, out);
}

// ---------------------------------------------------------------------------------------------------
// group_lasso_squared_prox: the composite gradient mapping of the MKL paper, problem (13) / Lemma 3:
//     min_{f_1..f_m}  1/2 sum_j ||f_j - fhat_j||^2 + (c/2) (sum_j ||f_j||)^2,     c = gamma * lambda.
// The minimiser keeps each direction: f_j* = s_j fhat_j with s_j = [1 - c S / a_j]_+, a_j = ||fhat_j||,
// and S = sum_j ||f_j*|| the unique root of S = sum_j [a_j - c S]_+ (stationarity of the squared sum:
// the derivative of (c/2) S^2 is c S). Note: the paper prints the factor as gamma lambda mu / (2 a_j);
// with mu = S that is the minimiser of (13) with lambda/2 in place of lambda, so we use the exact KKT
// form, which the tests check against a direct numerical minimisation of (13).
// Solved exactly (no bisection): with a sorted descending and k groups active, S = A_k / (1 + c k)
// where A_k is the sum of the k largest a; the first k with a_(k+1) <= c S_k is the answer. O(m log m).
/// Writes the scale factors s_j in [0, 1] into scale and returns S = sum_j ||f_j*||. Throws
/// std::invalid_argument unless c >= 0 and every a_j is finite and >= 0.
inline double group_lasso_squared_prox(const double* a, int64_t m, double c, double* scale) {
  if (m < 0) throw std::invalid_argument("group_lasso_squared_prox: negative length");
  if (!(c >= 0.0) || !std::isfinite(c))
    throw std::invalid_argument("group_lasso_squared_prox: gamma * lambda must be >= 0 and finite");
  for (int64_t j = 0; j < m; ++j)
    if (!(a[j] >= 0.0) || !std::isfinite(a[j]))
      throw std::invalid_argument("group_lasso_squared_prox: the norms must be finite and >= 0");
  std::vector<double> s(a, a + m);
  std::sort(s.begin(), s.end(), [](double x, double y) { return x > y; });
  double S = 0.0, A = 0.0;
  for (int64_t k = 1; k <= m; ++k) {
    A += s[static_cast<size_t>(k - 1)];
    S = A / (1.0 + c * static_cast<double>(k));
    if (k == m || s[static_cast<size_t>(k)] <= c * S) break;
  }
  for (int64_t j = 0; j < m; ++j) scale[j] = a[j] > 0.0 ? std::max(0.0, 1.0 - c * S / a[j]) : 0.0;
  return S;
}

}  // namespace robustcore
