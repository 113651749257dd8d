// FOL's output: which iterates of the T steps are kept. The game (fol.hpp) stores only the k iterates at
// times drawn uniformly from [T] before the run (never all T), plus the last one; the Python layer combines
// them by majority or average (the FOL paper's output rule).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rng.hpp"

namespace robustcore {

/// The k snapshot times, drawn uniformly with replacement from [1, T] and sorted. Uses its own
/// generator (seed mixed with a constant) so the sampling sequence does not depend on k.
inline std::vector<int64_t> fol_snapshot_times(int64_t T, int64_t k, uint64_t seed) {
  if (T < 1) throw std::invalid_argument("FOL: the number of steps T must be >= 1");
  if (k < 0) throw std::invalid_argument("FOL: k must be >= 0");
  Rng rng(seed ^ 0x5eed5eed5eed5eedULL);
  std::vector<int64_t> t(static_cast<size_t>(k));
  for (auto& x : t) x = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(T)));
  std::sort(t.begin(), t.end());
  return t;
}

}  // namespace robustcore
