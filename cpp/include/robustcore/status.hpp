// Numerical outcomes of a solve. Broken preconditions are exceptions (std::invalid_argument);
// what happened during a well-posed solve is a Status in the result.
#pragma once

#include <cstdint>
#include <functional>

namespace robustcore {

enum class Status : int {
  Converged = 0,    ///< stopping rule met (tolerance / duality gap)
  MaxIter = 1,      ///< ran the requested epochs/iterations
  Diverged = 2,     ///< non-finite weights or objective; the run stopped at that epoch
  Interrupted = 3,  ///< the progress callback asked to stop (e.g. Ctrl-C)
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
/// Bindings wrap a Python callable here (re-taking the GIL at most once per epoch).
using ProgressFn = std::function<bool(int64_t done)>;

}  // namespace robustcore
