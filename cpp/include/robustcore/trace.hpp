// Per-epoch (per effective pass) history for the convergence curves the papers draw.
#pragma once

#include <cmath>
#include <vector>

namespace robustcore {

struct Trace {
  std::vector<double> objective;    ///< regularised training objective
  std::vector<double> train_error;  ///< 0/1 error on the training labels given
  std::vector<double> test_error;   ///< 0/1 error on the test set (empty when none given)
  std::vector<double> grad_norm;    ///< full-gradient norm (variance-reduced solvers)
  std::vector<double> seconds;      ///< cumulative solver seconds (history evaluation excluded)
  void clear() {
    objective.clear(); train_error.clear(); test_error.clear(); grad_norm.clear(); seconds.clear();
  }
};

}  // namespace robustcore
