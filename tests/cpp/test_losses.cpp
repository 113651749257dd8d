// Losses: finite limits far from 0, derivative against central differences, value_deriv == value/deriv.
#include <robustcore/any_loss.hpp>
#include <robustcore/losses.hpp>

#include <cmath>
#include <string>

#include "check.hpp"

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
