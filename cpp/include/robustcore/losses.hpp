// Margin losses r(z) with z = y * f(x), y in {-1, +1}.
//
// Each loss is a small value type, passed to solvers as a template parameter (no virtual calls):
//   double value(double z) const;          r(z)
//   double deriv(double z) const;          r'(z)
//   void value_deriv(double z, double& v, double& d) const;   both, sharing one exp
//   double smoothness() const;             L = sup |r''(z)| (infinity when r is not smooth)
//   static constexpr bool smooth;          whether r' is Lipschitz (needed by the VR solvers)
// Every loss returns the limit, never NaN, for |z| as large as a double can be.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace robustcore {

namespace detail {
/// p = 1 / (1 + exp(u)) and its complement q = 1 - p, both to full relative precision.
inline void sigmoid_pair(double u, double& p, double& q) {
  if (u > 0) {
    const double e = std::exp(-u);
    p = e / (1.0 + e);
    q = 1.0 / (1.0 + e);
  } else {
    const double e = std::exp(u);
    p = 1.0 / (1.0 + e);
    q = e / (1.0 + e);
  }
}
/// 1 / (1 + exp(u)) without overflow.
inline double inv_one_plus_exp(double u) {
  if (u > 0) {
    const double e = std::exp(-u);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(u));
}
}  // namespace detail

struct Hinge {
  static constexpr bool smooth = false;
  double value(double z) const { return z < 1.0 ? 1.0 - z : 0.0; }
  double deriv(double z) const { return z < 1.0 ? -1.0 : 0.0; }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double smoothness() const { return std::numeric_limits<double>::infinity(); }
};

struct SquaredHinge {
  static constexpr bool smooth = true;
  double value(double z) const { return z < 1.0 ? (1.0 - z) * (1.0 - z) : 0.0; }
  double deriv(double z) const { return z < 1.0 ? -2.0 * (1.0 - z) : 0.0; }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double smoothness() const { return 2.0; }
};

/// log(1 + exp(-z))
struct Logistic {
  static constexpr bool smooth = true;
  double value(double z) const {
    return z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
  }
  double deriv(double z) const { return -detail::inv_one_plus_exp(z); }
  void value_deriv(double z, double& v, double& d) const {
    if (z > 0) {
      const double e = std::exp(-z);
      v = std::log1p(e);
      d = -e / (1.0 + e);
    } else {
      const double e = std::exp(z);
      v = -z + std::log1p(e);
      d = -1.0 / (1.0 + e);
    }
  }
  double smoothness() const { return 0.25; }
};

/// Zhang (2004): 0 for z >= 1, (1-z)^2 for -1 <= z < 1, -4z below.
struct ModifiedHuber {
  static constexpr bool smooth = true;
  double value(double z) const { return z >= 1.0 ? 0.0 : (z >= -1.0 ? (1.0 - z) * (1.0 - z) : -4.0 * z); }
  double deriv(double z) const { return z >= 1.0 ? 0.0 : (z >= -1.0 ? -2.0 * (1.0 - z) : -4.0); }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double smoothness() const { return 2.0; }
};

/// Ramp loss R_s(z) = H_1(z) - H_s(z) = min(1 - s, max(0, 1 - z)), s < 1 (Collobert et al. 2006).
struct Ramp {
  static constexpr bool smooth = false;
  double s = -1.0;
  explicit Ramp(double s_ = -1.0) : s(s_) {
    if (!(s < 1.0)) throw std::invalid_argument("ramp loss needs s < 1");
  }
  double value(double z) const { return z >= 1.0 ? 0.0 : (z <= s ? 1.0 - s : 1.0 - z); }
  double deriv(double z) const { return (z < 1.0 && z > s) ? -1.0 : 0.0; }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double smoothness() const { return std::numeric_limits<double>::infinity(); }
};

/// Smooth Ramp, SRamp paper eq. (4): r(z) = (1 - s) / (1 + exp(alpha (z + beta))).
struct SmoothRamp {
  static constexpr bool smooth = true;
  double s = -1.0, alpha = 2.65, beta = 0.0;
  SmoothRamp(double s_, double alpha_, double beta_) : s(s_), alpha(alpha_), beta(beta_) {
    if (!(s < 1.0)) throw std::invalid_argument("smooth ramp loss needs s < 1");
    if (!(alpha > 0.0) || !std::isfinite(alpha)) throw std::invalid_argument("smooth ramp loss needs alpha > 0");
    if (!std::isfinite(beta)) throw std::invalid_argument("smooth ramp loss needs a finite beta");
  }
  double value(double z) const { return (1.0 - s) * detail::inv_one_plus_exp(alpha * (z + beta)); }
  double deriv(double z) const {
    double p, q;
    detail::sigmoid_pair(alpha * (z + beta), p, q);
    return -(1.0 - s) * alpha * p * q;
  }
  void value_deriv(double z, double& v, double& d) const {
    double p, q;
    detail::sigmoid_pair(alpha * (z + beta), p, q);
    v = (1.0 - s) * p;
    d = -(1.0 - s) * alpha * p * q;
  }
  /// sup |r''| = (1 - s) alpha^2 / (6 sqrt 3)
  double smoothness() const { return (1.0 - s) * alpha * alpha / (6.0 * std::sqrt(3.0)); }
};

/// Reversed Gompertz, SRamp paper eq. (5): r(z) = exp(-exp(c z)), c > 0.
struct ReversedGompertz {
  static constexpr bool smooth = true;
  double c = 2.0;
  explicit ReversedGompertz(double c_ = 2.0) : c(c_) {
    if (!(c > 0.0) || !std::isfinite(c)) throw std::invalid_argument("reversed Gompertz loss needs c > 0");
  }
  double value(double z) const { return std::exp(-std::exp(std::fmin(c * z, 700.0))); }
  double deriv(double z) const {
    const double cz = std::fmin(c * z, 700.0);
    return -c * std::exp(cz - std::exp(cz));
  }
  void value_deriv(double z, double& v, double& d) const {
    const double cz = std::fmin(c * z, 700.0);
    const double e = std::exp(cz);
    v = std::exp(-e);
    d = -c * e * v;
  }
  /// sup |r''| = c^2 max_u u |u - 1| e^{-u}, attained at u = (3 + sqrt 5) / 2.
  double smoothness() const {
    const double u = 0.5 * (3.0 + std::sqrt(5.0));
    return c * c * u * (u - 1.0) * std::exp(-u);
  }
};

/// The losses by name at run time: a LossSpec names one loss and its parameters; visit_loss turns it
/// into the loss value type (validating the parameters through the loss's constructor) and calls f
/// with it, so a solver templated on the loss is instantiated once per loss kind. This is the one
/// registry of losses; the bindings and the Python layer map their names onto LossKind.
enum class LossKind : int {
  Hinge = 0, SquaredHinge = 1, Log = 2, ModifiedHuber = 3, Ramp = 4, SmoothRamp = 5, ReversedGompertz = 6,
};

struct LossSpec {
  LossKind kind = LossKind::Hinge;
  double s = -1.0, alpha = 2.65, beta = 0.0, c = 2.0;
};

template <class F>
decltype(auto) visit_loss(const LossSpec& l, F&& f) {
  switch (l.kind) {
    case LossKind::Hinge: return f(Hinge{});
    case LossKind::SquaredHinge: return f(SquaredHinge{});
    case LossKind::Log: return f(Logistic{});
    case LossKind::ModifiedHuber: return f(ModifiedHuber{});
    case LossKind::Ramp: return f(Ramp{l.s});
    case LossKind::SmoothRamp: return f(SmoothRamp{l.s, l.alpha, l.beta});
    case LossKind::ReversedGompertz: return f(ReversedGompertz{l.c});
  }
  throw std::invalid_argument("unknown loss kind");
}

/// visit_loss for the smooth losses only (a Lipschitz derivative: what the variance-reduced solvers
/// need); the others are refused here, once, with the list of losses that are accepted.
template <class F>
decltype(auto) visit_smooth_loss(const LossSpec& l, F&& f) {
  switch (l.kind) {
    case LossKind::SquaredHinge: return f(SquaredHinge{});
    case LossKind::Log: return f(Logistic{});
    case LossKind::ModifiedHuber: return f(ModifiedHuber{});
    case LossKind::SmoothRamp: return f(SmoothRamp{l.s, l.alpha, l.beta});
    case LossKind::ReversedGompertz: return f(ReversedGompertz{l.c});
    default: break;
  }
  throw std::invalid_argument("this solver needs a smooth loss (log, squared_hinge, modified_huber, sramp, rgomp)");
}

}  // namespace robustcore
