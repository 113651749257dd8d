// Learning-rate schedules for SGD, indexed by the global step t = 1, 2, ...
#pragma once

#include <cmath>
#include <stdexcept>

namespace robustcore {

enum class Schedule : int {
  Constant = 0,    ///< eta = eta0
  Optimal = 1,     ///< eta = eta0 / (1 + lambda eta0 (t - 1))  (Bottou's "optimal" 1/(lambda (t + t0)))
  InvScaling = 2,  ///< eta = eta0 / t^power_t
  Pegasos = 3,     ///< eta = 1 / (lambda t)  (Shalev-Shwartz et al. 2007)
  Asgd = 4,        ///< eta = eta0 / (1 + lambda eta0 t)^(3/4)  (Xu 2011)
};

struct LearningRate {
  Schedule schedule = Schedule::Optimal;
  double lambda = 1e-4;
  double eta0 = 0.01;
  double power_t = 0.5;

  double operator()(double t) const {
    switch (schedule) {
      case Schedule::Constant: return eta0;
      case Schedule::Optimal: return eta0 / (1.0 + lambda * eta0 * (t - 1.0));
      case Schedule::InvScaling: return eta0 / std::pow(t, power_t);
      case Schedule::Pegasos: return 1.0 / (lambda * t);
      case Schedule::Asgd: return eta0 / std::pow(1.0 + lambda * eta0 * t, 0.75);
    }
    return eta0;
  }

  void validate() const {
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
    if (schedule == Schedule::Pegasos && !(lambda > 0.0))
      throw std::invalid_argument("the pegasos schedule needs alpha (lambda) > 0");
    if (schedule != Schedule::Pegasos && !(eta0 > 0.0 && std::isfinite(eta0)))
      throw std::invalid_argument("eta0 must be > 0 and finite");
    if (!std::isfinite(power_t)) throw std::invalid_argument("power_t must be finite");
  }
};

}  // namespace robustcore
