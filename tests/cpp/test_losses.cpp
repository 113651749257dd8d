// Losses: finite limits far from 0, derivative against central differences, value_deriv == value/deriv; simd.hpp's
// exp and log1p against libm's, and the log loss over blocks (value_deriv_n, second_n) at every level the CPU has
// against the scalar functions: bit for bit at the baseline (the same operations), within a few ulps at AVX2 and
// AVX-512 (FMA contracts some of them).
#include <robustcore/any_loss.hpp>
#include <robustcore/losses.hpp>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include <cstdio>
#include <algorithm>

using namespace robustcore;

template <class Loss>
void check_loss(const Loss& l, bool smooth) {
  for (double z : {-1e308, -1e6, -50.0, 1e6, 1e308}) {
    double v, d;
    l.value_deriv(z, v, d);
    CHECK(!std::isnan(v) && !std::isnan(d));  // the limit: finite, or +-inf for the unbounded losses
    if (std::fabs(z) <= 1e6) CHECK(std::isfinite(v) && std::isfinite(d));
    CHECK(v == l.value(z) && d == l.deriv(z));
  }
  for (double z = -4.0; z <= 4.0; z += 0.37) {
    double v, d;
    l.value_deriv(z, v, d);
    CHECK_CLOSE(v, l.value(z), 1e-14);
    CHECK_CLOSE(d, l.deriv(z), 1e-14);
    if (smooth || std::fabs(z - 1.0) > 1e-3) {
      const double h = 1e-6;
      CHECK_CLOSE(l.deriv(z), (l.value(z + h) - l.value(z - h)) / (2 * h), 1e-5);
    }
  }
}

// |a - b| in units of b's last place (subnormal b: of the smallest subnormal)
double ulps(double a, double b) {
  if (a == b) return 0.0;
  const double unit = std::fabs(b) >= DBL_MIN ? std::ldexp(1.0, std::ilogb(b) - 52) : std::ldexp(1.0, -1074);
  return std::fabs(a - b) / unit;
}

void check_elementary_functions() {
  double worst = 0.0;
  for (double t = -760.0; t <= 0.0; t += 0.0137) worst = std::max(worst, ulps(simd::exp_nonpositive(t), std::exp(t)));
  for (double t : {-1e-300, -1e-17, -0.3465, -0.3466, -708.39, -745.13, -746.0, -1e308})
    worst = std::max(worst, ulps(simd::exp_nonpositive(t), std::exp(t)));
  CHECK(worst <= 2.0);
  CHECK(simd::exp_nonpositive(-0.0) == 1.0 && simd::exp_nonpositive(-800.0) == 0.0);
  CHECK(std::isnan(simd::exp_nonpositive(std::nan(""))));
  worst = 0.0;
  for (double e = 0.0; e <= 1.0; e += 1.0 / 4099) worst = std::max(worst, ulps(simd::log1p_unit(e), std::log1p(e)));
  for (double e : {1e-310, 1e-300, 1e-20, 1e-9, 0.41421356237309503, 0.414213562373095, 0.4142135623730951, 1.0})
    worst = std::max(worst, ulps(simd::log1p_unit(e), std::log1p(e)));
  CHECK(worst <= 1.0);
  CHECK(simd::log1p_unit(0.0) == 0.0 && std::isnan(simd::log1p_unit(std::nan(""))));
  worst = 0.0;
  for (double x = 1e-3; x <= 40.0; x *= 1.0009) worst = std::max(worst, ulps(simd::log_positive(x), std::log(x)));
  for (double x : {DBL_MIN, 1e-300, 1e-12, 0.5, 0.7071067811865475, 0.7071067811865476, 1.0, 1.0000000000000002,
                   1.4142135623730951, 1.4142135623730954, 2.0, 1e300, DBL_MAX})
    worst = std::max(worst, ulps(simd::log_positive(x), std::log(x)));
  CHECK(worst <= 1.0);
  CHECK(simd::log_positive(1.0) == 0.0);
  worst = 0.0;
  for (double z = -40.0; z <= 40.0; z += 0.0173) worst = std::max(worst, ulps(simd::sigmoid(z), 1.0 / (1.0 + std::exp(-z))));
  CHECK(worst <= 4.0);
  CHECK(simd::sigmoid(800.0) == 1.0 && simd::sigmoid(-800.0) == 0.0 && simd::sigmoid(0.0) == 0.5);
}

// value_deriv_n / second_n of the log loss (the level this process runs at, and each vector level the CPU has)
// against the scalar value_deriv / second (compiled for the baseline), on blocks of every length around the vector
// widths: the same bits at the baseline, within kFmaUlps where FMA rounds a product and a sum once
constexpr double kFmaUlps = 4.0;

void check_logistic_blocks() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-60.0, 60.0);
  std::vector<double> z(1000);
  for (double& x : z) x = u(rng);
  const double extremes[] = {0.0, -0.0, 1e-300, -1e-300, 744.0, -744.0, 800.0, -800.0, 1e308, -1e308};
  for (size_t k = 0; k < 10; ++k) z[k * 97] = extremes[k];
  const Logistic f;
  std::vector<double> v(z.size()), d(z.size()), h(z.size());
  auto same = [&](const std::string& what) {
    const double tol = what == "baseline" ? 0.0 : kFmaUlps;
    double worst = 0.0;
    for (size_t k = 0; k < z.size(); ++k) {
      double vk, dk;
      f.value_deriv(z[k], vk, dk);
      worst = std::max({worst, ulps(v[k], vk), ulps(d[k], dk), ulps(h[k], f.second(z[k]))});
    }
    if (!(worst <= tol))
      std::fprintf(stderr, "the log loss over blocks (%s) is %g ulps from the scalar functions\n", what.c_str(), worst);
    CHECK(worst <= tol);
  };
  for (int64_t len : {1, 3, 7, 8, 9, 64, 1000}) {
    for (size_t k = 0; k < z.size(); k += static_cast<size_t>(len)) {
      const int64_t m = std::min<int64_t>(len, static_cast<int64_t>(z.size() - k));
      value_deriv_n(f, z.data() + k, v.data() + k, d.data() + k, m);
      second_n(f, z.data() + k, h.data() + k, m);
    }
    same(simd_level_name(simd_level()));
  }
#ifdef ROBUSTCORE_SIMD_DISPATCH
  const int64_t n = static_cast<int64_t>(z.size());
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2")) {
    detail::logistic_value_deriv_v3(z.data(), v.data(), d.data(), n);
    detail::logistic_second_v3(z.data(), h.data(), n);
    same("avx2");
  }
  if (simd_level() == SimdLevel::Avx512) {
    detail::logistic_value_deriv_v4(z.data(), v.data(), d.data(), n);
    detail::logistic_second_v4(z.data(), h.data(), n);
    same("avx512");
  }
#endif
}

int main() {
  check_loss(Hinge{}, false);
  check_loss(SquaredHinge{}, true);
  check_loss(Logistic{}, true);
  check_loss(ModifiedHuber{}, true);
  check_loss(SmoothRamp{-1.0, 2.65, 0.0}, true);
  check_loss(SmoothRamp{-2.0, 1.77, 0.5}, true);
  check_loss(ReversedGompertz{2.0}, true);
  // bounded losses: limits at the plateaus
  CHECK_CLOSE(SmoothRamp(-1.0, 2.65, 0.0).value(-1e9), 2.0, 1e-15);
  CHECK(SmoothRamp(-1.0, 2.65, 0.0).value(1e9) == 0.0);
  CHECK_CLOSE(ReversedGompertz(2.0).value(-1e9), 1.0, 1e-15);
  CHECK(Ramp(-1.0).value(-5.0) == 2.0 && Ramp(-1.0).value(0.0) == 1.0);
  CHECK_CLOSE(Logistic{}.value(-800.0), 800.0, 1e-15);
  check_elementary_functions();
  check_logistic_blocks();
  // broken preconditions throw
  CHECK_THROWS(Ramp(1.0), std::invalid_argument);
  CHECK_THROWS(SmoothRamp(-1.0, 0.0, 0.0), std::invalid_argument);
  CHECK_THROWS(ReversedGompertz(-1.0), std::invalid_argument);
  // the registry: a LossSpec holds its loss's parameters by name, defaults where not set
  LossSpec sr(LossKind::SmoothRamp);
  CHECK(sr.parameter_count() == 3 && std::string(sr.parameter_name(2)) == "beta");
  CHECK(sr.values[0] == -1.0 && sr.values[1] == 2.65 && sr.values[2] == 0.0);
  sr.set("s", -2.0);
  sr.set("alpha", 1.77);
  sr.set("beta", 0.5);
  CHECK(visit_loss(sr, [](const auto& f) { return f.value(0.3); }) == SmoothRamp(-2.0, 1.77, 0.5).value(0.3));
  CHECK(AnyLoss(sr).value(0.3) == SmoothRamp(-2.0, 1.77, 0.5).value(0.3));
  CHECK_THROWS(sr.set("c", 1.0), std::invalid_argument);
  CHECK_THROWS(LossSpec(LossKind::Hinge).set("s", 0.0), std::invalid_argument);
  CHECK_THROWS(visit_loss(LossSpec(LossKind::Ramp, {1.5}), [](const auto&) { return 0; }), std::invalid_argument);
  CHECK_THROWS(AnySmoothLoss(LossSpec(LossKind::Hinge)), std::invalid_argument);
  CHECK(AnySmoothLoss(LossSpec(LossKind::ReversedGompertz, {3.0})).smoothness() == ReversedGompertz(3.0).smoothness());
  return check::report();
}
