// The outcome of a solve, one type for every solver: a Status, how far it got, the step it chose, and a
// History of named per-pass columns. Broken preconditions are exceptions (std::invalid_argument); what
// happened during a well-posed solve is the Status.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "interrupt.hpp"

namespace robustcore {

enum class Status : int {
  Converged = 0,    ///< stopping rule met (tolerance / duality gap)
  MaxIter = 1,      ///< ran the requested epochs/passes/iterations
  Diverged = 2,     ///< non-finite weights or objective; the run stopped there
  Interrupted = 3,  ///< the progress callback asked to stop (an installed poll throws Interrupted instead)
};

inline const char* status_name(Status s) {
  switch (s) {
    case Status::Converged: return "converged";
    case Status::MaxIter: return "max_iter";
    case Status::Diverged: return "diverged";
    case Status::Interrupted: return "interrupted";
  }
  return "unknown";
}

/// Called once per epoch/pass with the number finished so far; return false to stop the solve.
/// Bindings wrap a Python callable here (re-taking the GIL at most once per call).
/// Contract (the per-pass stop test, e.g. early stopping on a validation score, is built on it): when the
/// callback runs, the caller's output arrays hold the current model -- the variance-reduced solvers' W and
/// b (vr::fit, both models), SGD's SgdState (sgd_fit writes it back after every epoch), FOL's coef (the
/// current iterate), AdaBoost's hyps and alphas rows so far, the MKL solver's averaged coef and dual -- so
/// the callback can score it without stopping or restarting the solve.
using ProgressFn = std::function<bool(int64_t done)>;

/// Per-pass history: named columns of equal purpose across solvers ("objective", "train_error",
/// "test_error", "grad_norm", "passes", "seconds", "max_loss", "gap", ...), in the order first pushed.
/// A handful of columns, appended once per pass: a linear search by name costs nothing.
class History {
 public:
  struct Column {
    std::string name;
    std::vector<double> values;
  };
  /// The column `name`, created empty on first use.
  std::vector<double>& operator[](const std::string& name) {
    for (auto& c : cols_)
      if (c.name == name) return c.values;
    cols_.push_back(Column{name, {}});
    return cols_.back().values;
  }
  /// The column `name`, or nullptr when it was never created.
  const std::vector<double>* find(const std::string& name) const {
    for (const auto& c : cols_)
      if (c.name == name) return &c.values;
    return nullptr;
  }
  void push(const std::string& name, double v) { (*this)[name].push_back(v); }
  const std::vector<Column>& columns() const { return cols_; }
  void clear() { cols_.clear(); }

 private:
  std::vector<Column> cols_;
};

/// What every solver returns. Solvers with more to report derive from it (FolResult, AdaBoostResult).
struct Result {
  Status status = Status::MaxIter;
  double n_iter = 0.0;  ///< epochs / effective passes / iterations / steps done (the unit of the solver's budget)
  double step = 0.0;    ///< the step size the solver used when it chose one itself (0 otherwise)
  History history;
};

}  // namespace robustcore
