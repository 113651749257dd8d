// Margin losses r(z) with z = y * f(x), y in {-1, +1}.
//
// Each loss is a small value type, passed to solvers as a template parameter (no virtual calls):
//   double value(double z) const;          r(z)
//   double deriv(double z) const;          r'(z)
//   void value_deriv(double z, double& v, double& d) const;   both, sharing one exp
//   double smoothness() const;             L = sup |r''(z)| (infinity when r is not smooth)
//   double second(double z) const;         r''(z), the smooth convex losses only (newton.hpp's Hessian; at the
//                                          kinks of squared hinge and modified Huber the right-hand value, the
//                                          generalised Hessian LIBLINEAR's Newton uses)
//   static constexpr bool smooth;          whether r' is Lipschitz (needed by the VR solvers)
//   static constexpr bool convex, bounded, bounded_derivative;   the other traits a solver may require
//                                          (declared, never probed: pegasos needs convex and a bounded r')
//   static constexpr LossKind kind; static constexpr const char* name;
//   static constexpr std::array<LossParameter, N> parameters;   its parameters' names and defaults, in the
//                                          order its constructor takes them (validated there)
// Every loss returns the limit, never NaN, for |z| as large as a double can be.
// Over blocks of values (a model's pass over rows): value_deriv_n and second_n (below), a loop of the above,
// vectorised for the log loss.
//
// The registry is the type list `Losses` at the end: visit_loss, visit_smooth_loss, AnyLoss (any_loss.hpp),
// the bindings' enum and LossSpec, and the Python layer's loss names and parameters are all built from it,
// so a new loss -- with parameters or without -- is a value type here, its LossKind and its place in the
// list.
#pragma once

#include <array>
#include <cstdint>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <limits>
#include <stdexcept>
#include <utility>

#include "simd.hpp"

namespace robustcore {

/// The losses by name at run time (the values index the list `Losses` below).
enum class LossKind : int {
  Hinge = 0, SquaredHinge = 1, Log = 2, ModifiedHuber = 3, Ramp = 4, SmoothRamp = 5, ReversedGompertz = 6,
};

/// A loss's parameter: its name (the estimators' parameter of the same name sets it) and default.
struct LossParameter {
  const char* name;
  double default_value;
};

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
  static constexpr bool convex = true;
  static constexpr bool bounded = false;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::Hinge;
  static constexpr const char* name = "hinge";
  static constexpr std::array<LossParameter, 0> parameters{};
  double value(double z) const { return z < 1.0 ? 1.0 - z : 0.0; }
  double deriv(double z) const { return z < 1.0 ? -1.0 : 0.0; }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double smoothness() const { return std::numeric_limits<double>::infinity(); }
};

struct SquaredHinge {
  static constexpr bool smooth = true;
  static constexpr bool convex = true;
  static constexpr bool bounded = false;
  static constexpr bool bounded_derivative = false;
  static constexpr LossKind kind = LossKind::SquaredHinge;
  static constexpr const char* name = "squared_hinge";
  static constexpr std::array<LossParameter, 0> parameters{};
  double value(double z) const { return z < 1.0 ? (1.0 - z) * (1.0 - z) : 0.0; }
  double deriv(double z) const { return z < 1.0 ? -2.0 * (1.0 - z) : 0.0; }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double second(double z) const { return z < 1.0 ? 2.0 : 0.0; }
  double smoothness() const { return 2.0; }
};

/// log(1 + exp(-z))
struct Logistic {
  static constexpr bool smooth = true;
  static constexpr bool convex = true;
  static constexpr bool bounded = false;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::Log;
  static constexpr const char* name = "log";
  static constexpr std::array<LossParameter, 0> parameters{};
  // branch-free (simd.hpp's exp and log1p, no libm call), so that a loop over rows vectorises (value_deriv_n):
  // with e = exp(-|z|), r = log1p(e) + max(-z, 0), r' = -(z > 0 ? e : 1) / (1 + e), r'' = e / (1 + e)^2
  ROBUSTCORE_SIMD_INLINE double value(double z) const {
    const double e = simd::exp_nonpositive(-std::fabs(z));
    return simd::log1p_unit(e) + (z > 0 ? 0.0 : -z);
  }
  ROBUSTCORE_SIMD_INLINE double deriv(double z) const {
    const double e = simd::exp_nonpositive(-std::fabs(z));
    return -(z > 0 ? e : 1.0) / (1.0 + e);
  }
  ROBUSTCORE_SIMD_INLINE void value_deriv(double z, double& v, double& d) const {
    const double e = simd::exp_nonpositive(-std::fabs(z));
    v = simd::log1p_unit(e) + (z > 0 ? 0.0 : -z);
    d = -(z > 0 ? e : 1.0) / (1.0 + e);
  }
  /// sigma(z) sigma(-z), from exp(-|z|) (no overflow; 0 only past |z| ~ 745)
  ROBUSTCORE_SIMD_INLINE double second(double z) const {
    const double e = simd::exp_nonpositive(-std::fabs(z));
    return e / ((1.0 + e) * (1.0 + e));
  }
  double smoothness() const { return 0.25; }
};

/// Zhang (2004): 0 for z >= 1, (1-z)^2 for -1 <= z < 1, -4z below.
struct ModifiedHuber {
  static constexpr bool smooth = true;
  static constexpr bool convex = true;
  static constexpr bool bounded = false;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::ModifiedHuber;
  static constexpr const char* name = "modified_huber";
  static constexpr std::array<LossParameter, 0> parameters{};
  double value(double z) const { return z >= 1.0 ? 0.0 : (z >= -1.0 ? (1.0 - z) * (1.0 - z) : -4.0 * z); }
  double deriv(double z) const { return z >= 1.0 ? 0.0 : (z >= -1.0 ? -2.0 * (1.0 - z) : -4.0); }
  void value_deriv(double z, double& v, double& d) const { v = value(z); d = deriv(z); }
  double second(double z) const { return z >= 1.0 || z < -1.0 ? 0.0 : 2.0; }
  double smoothness() const { return 2.0; }
};

/// Ramp loss R_s(z) = H_1(z) - H_s(z) = min(1 - s, max(0, 1 - z)), s < 1 (Collobert et al. 2006).
struct Ramp {
  static constexpr bool smooth = false;
  static constexpr bool convex = false;
  static constexpr bool bounded = true;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::Ramp;
  static constexpr const char* name = "ramp";
  static constexpr std::array<LossParameter, 1> parameters{{{"s", -1.0}}};
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
  static constexpr bool convex = false;
  static constexpr bool bounded = true;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::SmoothRamp;
  static constexpr const char* name = "sramp";
  static constexpr std::array<LossParameter, 3> parameters{{{"s", -1.0}, {"alpha", 2.65}, {"beta", 0.0}}};
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
  static constexpr bool convex = false;
  static constexpr bool bounded = true;
  static constexpr bool bounded_derivative = true;
  static constexpr LossKind kind = LossKind::ReversedGompertz;
  static constexpr const char* name = "rgomp";
  static constexpr std::array<LossParameter, 1> parameters{{{"c", 2.0}}};
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

/// Over a block of values: v[k], d[k] = r(z[k]), r'(z[k]) (value_deriv_n), h[k] = r''(z[k]) (second_n; h may be
/// z), k < n -- what the models' passes over rows call, once per block of rows. A loop of the loss's own
/// functions; the log loss's (branch-free, no libm call) vectorises, and runs at the CPU's level (simd.hpp)
/// for blocks of kLossSimdMin values or more (AVX2 and AVX-512 with FMA: within a few ulps of the baseline).
template <class Loss>
inline void value_deriv_n(const Loss& f, const double* z, double* v, double* d, int64_t n) {
  for (int64_t k = 0; k < n; ++k) f.value_deriv(z[k], v[k], d[k]);
}
template <class Loss>
inline void second_n(const Loss& f, const double* z, double* h, int64_t n) {
  for (int64_t k = 0; k < n; ++k) h[k] = f.second(z[k]);
}

inline constexpr int64_t kLossSimdMin = 8;

namespace detail {
ROBUSTCORE_SIMD_INLINE void logistic_value_deriv_loop(const double* z, double* v, double* d, int64_t n) {
  const Logistic f;
  for (int64_t k = 0; k < n; ++k) f.value_deriv(z[k], v[k], d[k]);
}
ROBUSTCORE_SIMD_INLINE void logistic_second_loop(const double* z, double* h, int64_t n) {
  const Logistic f;
  for (int64_t k = 0; k < n; ++k) h[k] = f.second(z[k]);
}
#ifdef ROBUSTCORE_SIMD_DISPATCH
ROBUSTCORE_SIMD_V3 inline void logistic_value_deriv_v3(const double* z, double* v, double* d, int64_t n) {
  logistic_value_deriv_loop(z, v, d, n);
}
ROBUSTCORE_SIMD_V4 inline void logistic_value_deriv_v4(const double* z, double* v, double* d, int64_t n) {
  logistic_value_deriv_loop(z, v, d, n);
}
ROBUSTCORE_SIMD_V3 inline void logistic_second_v3(const double* z, double* h, int64_t n) { logistic_second_loop(z, h, n); }
ROBUSTCORE_SIMD_V4 inline void logistic_second_v4(const double* z, double* h, int64_t n) { logistic_second_loop(z, h, n); }
#endif
}  // namespace detail

inline void value_deriv_n(const Logistic&, const double* z, double* v, double* d, int64_t n) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  if (n >= kLossSimdMin) switch (simd_level()) {
      case SimdLevel::Avx512: return detail::logistic_value_deriv_v4(z, v, d, n);
      case SimdLevel::Avx2: return detail::logistic_value_deriv_v3(z, v, d, n);
      case SimdLevel::Baseline: break;
    }
#endif
  detail::logistic_value_deriv_loop(z, v, d, n);
}
inline void second_n(const Logistic&, const double* z, double* h, int64_t n) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  if (n >= kLossSimdMin) switch (simd_level()) {
      case SimdLevel::Avx512: return detail::logistic_second_v4(z, h, n);
      case SimdLevel::Avx2: return detail::logistic_second_v3(z, h, n);
      case SimdLevel::Baseline: break;
    }
#endif
  detail::logistic_second_loop(z, h, n);
}

/// The registry: every loss, in LossKind order (checked below).
template <class... L>
struct LossList {
  static constexpr std::size_t size = sizeof...(L);
};
using Losses = LossList<Hinge, SquaredHinge, Logistic, ModifiedHuber, Ramp, SmoothRamp, ReversedGompertz>;

namespace detail {
template <std::size_t I, class List>
struct loss_at;
template <std::size_t I, class H, class... T>
struct loss_at<I, LossList<H, T...>> : loss_at<I - 1, LossList<T...>> {};
template <class H, class... T>
struct loss_at<0, LossList<H, T...>> {
  using type = H;
};
template <std::size_t I>
using loss_at_t = typename loss_at<I, Losses>::type;

template <std::size_t... I>
constexpr bool kinds_in_order(std::index_sequence<I...>) {
  return ((static_cast<std::size_t>(loss_at_t<I>::kind) == I) && ...);
}
static_assert(kinds_in_order(std::make_index_sequence<Losses::size>{}), "Losses must list the losses in LossKind order");

template <std::size_t... I>
constexpr std::size_t max_parameters(std::index_sequence<I...>) {
  std::size_t m = 0;
  ((m = loss_at_t<I>::parameters.size() > m ? loss_at_t<I>::parameters.size() : m), ...);
  return m;
}
}  // namespace detail

/// Room for the parameters of the loss that has the most.
inline constexpr std::size_t kMaxLossParameters = detail::max_parameters(std::make_index_sequence<Losses::size>{});

/// A loss named at run time with its parameters' values, in the order of the loss's `parameters`
/// (defaults where not given). Validated when turned into the loss (visit_loss).
struct LossSpec {
  LossKind kind = LossKind::Hinge;
  std::array<double, kMaxLossParameters> values{};

  LossSpec() : LossSpec(LossKind::Hinge) {}
  explicit LossSpec(LossKind k);
  /// The first values.size() parameters in order, the rest at their defaults.
  LossSpec(LossKind k, std::initializer_list<double> given) : LossSpec(k) {
    if (given.size() > parameter_count()) throw std::invalid_argument("too many loss parameters");
    std::size_t i = 0;
    for (double v : given) values[i++] = v;
  }
  std::size_t parameter_count() const;
  const char* parameter_name(std::size_t i) const;
  /// Set a parameter by name; unknown names are refused with the loss's own parameter names.
  void set(const std::string& parameter, double value);
};

namespace detail {
/// f(type tag of the loss `kind` names: a null `const L*`), one if per loss (the compiler makes a jump
/// table of them). Checked: an unknown kind throws; unchecked (a kind validated before): the last loss.
template <bool Checked = true, std::size_t I = 0, class F>
decltype(auto) with_kind(LossKind kind, F&& f) {
  using L = loss_at_t<I>;
  if constexpr (I + 1 == Losses::size) {
    if (Checked && kind != L::kind) throw std::invalid_argument("unknown loss kind");
    return f(static_cast<const L*>(nullptr));
  } else {
    if (kind == L::kind) return f(static_cast<const L*>(nullptr));
    return with_kind<Checked, I + 1>(kind, std::forward<F>(f));
  }
}

template <class L, std::size_t... I>
L make_loss(const double* v, std::index_sequence<I...>) {
  return L(v[I]...);
}

/// The loss value type L from a spec's values (its constructor validates them).
template <class L>
L make_loss(const LossSpec& l) {
  return make_loss<L>(l.values.data(), std::make_index_sequence<L::parameters.size()>{});
}

template <class F, std::size_t... I>
void for_each_loss(F& f, std::index_sequence<I...>) {
  (f(static_cast<const loss_at_t<I>*>(nullptr)), ...);
}

template <std::size_t... I>
std::string smooth_loss_names(std::index_sequence<I...>) {
  std::string out;
  ((out += loss_at_t<I>::smooth ? (out.empty() ? "" : ", ") + std::string(loss_at_t<I>::name) : std::string()), ...);
  return out;
}
/// "squared_hinge, log, ..." of the smooth losses, for the error of the solvers that need one.
inline std::string smooth_loss_names() { return smooth_loss_names(std::make_index_sequence<Losses::size>{}); }
}  // namespace detail

/// f(a null `const L*`) for every loss L of the registry, in LossKind order.
template <class F>
void for_each_loss(F&& f) {
  detail::for_each_loss(f, std::make_index_sequence<Losses::size>{});
}

inline LossSpec::LossSpec(LossKind k) : kind(k) {
  detail::with_kind(k, [this](auto tag) {
    using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    for (std::size_t i = 0; i < L::parameters.size(); ++i) values[i] = L::parameters[i].default_value;
    return 0;
  });
}

inline std::size_t LossSpec::parameter_count() const {
  return detail::with_kind(kind, [](auto tag) {
    return std::remove_pointer_t<decltype(tag)>::parameters.size();
  });
}

inline const char* LossSpec::parameter_name(std::size_t i) const {
  return detail::with_kind(kind, [i](auto tag) { return std::remove_pointer_t<decltype(tag)>::parameters.at(i).name; });
}

inline void LossSpec::set(const std::string& parameter, double value) {
  const std::size_t n = parameter_count();
  std::string known;
  for (std::size_t i = 0; i < n; ++i) {
    if (parameter == parameter_name(i)) {
      values[i] = value;
      return;
    }
    known += (known.empty() ? "" : ", ") + std::string(parameter_name(i));
  }
  const char* loss = detail::with_kind(kind, [](auto tag) { return std::remove_pointer_t<decltype(tag)>::name; });
  throw std::invalid_argument("the " + std::string(loss) + " loss has no parameter '" + parameter + "' (" +
                              (known.empty() ? "it has none" : "its parameters: " + known) + ")");
}

/// f(the loss value type l names, built from l's values): a solver templated on the loss is instantiated
/// once per loss kind.
template <class F>
decltype(auto) visit_loss(const LossSpec& l, F&& f) {
  return detail::with_kind(l.kind, [&](auto tag) -> decltype(auto) {
    using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    return f(detail::make_loss<L>(l));
  });
}

/// visit_loss for the smooth losses only (a Lipschitz derivative: what the variance-reduced solvers
/// need); the others are refused here, once, with the list of losses that are accepted.
template <class F>
decltype(auto) visit_smooth_loss(const LossSpec& l, F&& f) {
  using R = decltype(f(std::declval<const Logistic&>()));
  return detail::with_kind(l.kind, [&](auto tag) -> R {
    using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    if constexpr (L::smooth) {
      return f(detail::make_loss<L>(l));
    } else {
      throw std::invalid_argument("this solver needs a smooth loss (" + detail::smooth_loss_names() + ")");
    }
  });
}

}  // namespace robustcore
