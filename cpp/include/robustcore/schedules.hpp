// Learning-rate schedules for SGD, indexed by the global step t = 1, 2, ...
#pragma once

#include <cmath>
#include <stdexcept>

namespace robustcore {

enum class Schedule : int {
  Constant = 0,    ///< eta = eta0
  Optimal = 1,     ///< eta = 1 / (lambda (t0 + t - 1)), t0 from Bottou's heuristic (as scikit-learn)
  InvScaling = 2,  ///< eta = eta0 / t^power_t
  Pegasos = 3,     ///< eta = 1 / (lambda t)  (Shalev-Shwartz et al. 2007)
  Asgd = 4,        ///< eta = eta0 / (1 + lambda eta0 t)^(3/4)  (Xu 2011)
};

struct LearningRate {
  Schedule schedule = Schedule::Optimal;
  double lambda = 1e-4;
  double eta0 = 0.01;
  double power_t = 0.5;
  double optimal_t0 = 1.0;  ///< set by init_optimal()

  /// Bottou's heuristic: typical weight 1/sqrt(sqrt(lambda)), eta0 = typw / max(1, |r'(-typw)|).
  template <class Loss>
  void init_optimal(const Loss& loss) {
    const double typw = std::sqrt(1.0 / std::sqrt(lambda));
    const double e0 = typw / std::fmax(1.0, std::fabs(loss.deriv(-typw)));
    optimal_t0 = 1.0 / (e0 * lambda);
  }

  double operator()(double t) const {
    switch (schedule) {
      case Schedule::Constant: return eta0;
      case Schedule::Optimal: return 1.0 / (lambda * (optimal_t0 + t - 1.0));
      case Schedule::InvScaling: return eta0 / std::pow(t, power_t);
      case Schedule::Pegasos: return 1.0 / (lambda * t);
      case Schedule::Asgd: return eta0 / std::pow(1.0 + lambda * eta0 * t, 0.75);
    }
    return eta0;
  }

  void validate() const {
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
    if ((schedule == Schedule::Optimal || schedule == Schedule::Pegasos) && !(lambda > 0.0))
      throw std::invalid_argument("the optimal and pegasos schedules need alpha (lambda) > 0");
    if ((schedule == Schedule::Constant || schedule == Schedule::InvScaling || schedule == Schedule::Asgd) &&
        !(eta0 > 0.0 && std::isfinite(eta0)))
      throw std::invalid_argument("eta0 must be > 0 for the constant, invscaling and asgd schedules");
    if (!std::isfinite(power_t)) throw std::invalid_argument("power_t must be finite");
  }
};

}  // namespace robustcore
