// A margin loss chosen at run time: one value type holding every loss of losses.hpp's registry behind a
// dispatch on LossKind, so a solver instantiated with AnyLoss serves every loss with one compiled loop (the
// alternative to visit_loss's one instantiation per loss). The dispatch is on a loop-invariant value: the
// branch predictor learns it on the first step, and the losses' own code is inlined into each case.
// AnySmoothLoss is the same over the smooth losses only (what the variance-reduced solvers accept):
// constructing it from a non-smooth LossSpec throws, exactly as visit_smooth_loss does.
// Built from the registry `Losses`: a new loss needs nothing here.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "losses.hpp"

namespace robustcore {

namespace detail {
template <class... L>
std::tuple<L...> default_losses(LossList<L...>) {
  return std::tuple<L...>{make_loss<L>(LossSpec(L::kind))...};
}
}  // namespace detail

template <bool SmoothOnly>
struct AnyLossT {
  static constexpr bool smooth = SmoothOnly;  // the VR solvers' static check; non-smooth kinds refused below
  LossKind kind = LossKind::Log;
  decltype(detail::default_losses(Losses{})) losses = detail::default_losses(Losses{});

  explicit AnyLossT(const LossSpec& l) : kind(l.kind) {
    if constexpr (SmoothOnly) visit_smooth_loss(l, [](const auto&) { return 0; });  // refuses hinge and ramp
    detail::with_kind(kind, [&](auto tag) {
      using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
      std::get<L>(losses) = detail::make_loss<L>(l);  // validates the parameters
      return 0;
    });
  }
  template <class F>
  decltype(auto) with_loss(F&& f) const {
    return detail::with_kind<false>(kind, [&](auto tag) -> decltype(auto) {
      using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
      return f(std::get<L>(losses));
    });
  }
  double value(double z) const {
    return with_loss([z](const auto& f) { return f.value(z); });
  }
  double deriv(double z) const {
    return with_loss([z](const auto& f) { return f.deriv(z); });
  }
  void value_deriv(double z, double& v, double& d) const {
    with_loss([&](const auto& f) {
      f.value_deriv(z, v, d);
      return 0;
    });
  }
  double smoothness() const {
    return with_loss([](const auto& f) { return f.smoothness(); });
  }
};

using AnyLoss = AnyLossT<false>;
using AnySmoothLoss = AnyLossT<true>;

template <class Loss>
inline constexpr bool is_any_loss = false;
template <bool SmoothOnly>
inline constexpr bool is_any_loss<AnyLossT<SmoothOnly>> = true;

/// f(the concrete loss): for AnyLoss / AnySmoothLoss one dispatch, for a loss value type f(loss). A loop
/// over many samples written inside f is compiled per concrete loss, with the dispatch hoisted out of it
/// (model.hpp's value_grad_rows: one dispatch per block of rows instead of one per row).
template <class Loss, class F>
decltype(auto) with_concrete_loss(const Loss& loss, F&& f) {
  if constexpr (is_any_loss<Loss>) return loss.with_loss(std::forward<F>(f));
  else return f(loss);
}

}  // namespace robustcore
