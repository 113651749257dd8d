// A margin loss chosen at run time: one value type holding every loss of losses.hpp behind a switch on
// LossKind, so a solver instantiated with AnyLoss serves every loss with one compiled loop (the
// alternative to visit_loss's one instantiation per loss). The switch is on a loop-invariant value: the
// branch predictor learns it on the first step, and the losses' own code is inlined into each case.
// AnySmoothLoss is the same over the smooth losses only (what the variance-reduced solvers accept):
// constructing it from a non-smooth LossSpec throws, exactly as visit_smooth_loss does.
#pragma once

#include <stdexcept>

#include "losses.hpp"

namespace robustcore {

namespace detail {
/// f(loss) for the loss `kind` names, built from the stored parameters (no validation: done once at
/// construction).
template <class F>
inline decltype(auto) with_loss(LossKind kind, const SmoothRamp& sramp, const ReversedGompertz& rgomp, const Ramp& ramp,
                                F&& f) {
  switch (kind) {
    case LossKind::Hinge: return f(Hinge{});
    case LossKind::SquaredHinge: return f(SquaredHinge{});
    case LossKind::Log: return f(Logistic{});
    case LossKind::ModifiedHuber: return f(ModifiedHuber{});
    case LossKind::Ramp: return f(ramp);
    case LossKind::SmoothRamp: return f(sramp);
    case LossKind::ReversedGompertz: return f(rgomp);
  }
  return f(Logistic{});
}
}  // namespace detail

template <bool SmoothOnly>
struct AnyLossT {
  static constexpr bool smooth = SmoothOnly;  // the VR solvers' static check; non-smooth kinds refused below
  LossKind kind = LossKind::Log;
  Ramp ramp{-1.0};
  SmoothRamp sramp{-1.0, 2.65, 0.0};
  ReversedGompertz rgomp{2.0};

  explicit AnyLossT(const LossSpec& l) : kind(l.kind) {
    if constexpr (SmoothOnly) visit_smooth_loss(l, [](const auto&) { return 0; });  // refuses hinge and ramp
    if (kind == LossKind::Ramp) ramp = Ramp{l.s};
    if (kind == LossKind::SmoothRamp) sramp = SmoothRamp{l.s, l.alpha, l.beta};
    if (kind == LossKind::ReversedGompertz) rgomp = ReversedGompertz{l.c};
  }
  double value(double z) const {
    return detail::with_loss(kind, sramp, rgomp, ramp, [z](const auto& f) { return f.value(z); });
  }
  double deriv(double z) const {
    return detail::with_loss(kind, sramp, rgomp, ramp, [z](const auto& f) { return f.deriv(z); });
  }
  void value_deriv(double z, double& v, double& d) const {
    detail::with_loss(kind, sramp, rgomp, ramp, [&](const auto& f) {
      f.value_deriv(z, v, d);
      return 0;
    });
  }
  double smoothness() const {
    return detail::with_loss(kind, sramp, rgomp, ramp, [](const auto& f) { return f.smoothness(); });
  }
};

using AnyLoss = AnyLossT<false>;
using AnySmoothLoss = AnyLossT<true>;

}  // namespace robustcore
