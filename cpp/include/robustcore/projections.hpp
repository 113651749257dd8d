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

/// Writes P(v) into out (out may alias v) and returns theta, the multiplier of the budget
/// constraint (0 when it is inactive). Throws std::invalid_argument unless upper > 0, budget >= 0,
/// both finite, and v finite.
inline double project_capped_simplex(const double* v, int64_t m, double upper, double budget, double* out) {
  if (m < 0) throw std::invalid_argument("project_capped_simplex: negative length");
  if (!(upper > 0.0) || !std::isfinite(upper))
    throw std::invalid_argument("project_capped_simplex: the upper bound must be > 0 and finite");
  if (!(budget >= 0.0) || !std::isfinite(budget))
    throw std::invalid_argument("project_capped_simplex: the budget must be >= 0 and finite");
  double g0 = 0.0;
  int64_t free0 = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (!std::isfinite(v[i])) throw std::invalid_argument("project_capped_simplex: v contains NaN or infinity");
    g0 += std::min(std::max(v[i], 0.0), upper);
    if (v[i] > 0.0 && v[i] <= upper) ++free0;
  }
  double theta = 0.0;
  if (g0 > budget) {
    // Events at positive breakpoints: a capped coordinate becomes free (+1) at v_i - upper, a free
    // one reaches 0 (-1) at v_i. Between events g falls with slope -free.
    std::vector<std::pair<double, int>> ev;
    ev.reserve(static_cast<size_t>(2 * m));
    for (int64_t i = 0; i < m; ++i) {
      if (v[i] > 0.0) ev.emplace_back(v[i], -1);
      if (v[i] - upper > 0.0) ev.emplace_back(v[i] - upper, +1);
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
  for (int64_t i = 0; i < m; ++i) out[i] = std::min(std::max(v[i] - theta, 0.0), upper);
  return theta;
}

}  // namespace robustcore
