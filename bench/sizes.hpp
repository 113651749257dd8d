// The benchmark binaries' problem sizes and their smoke size. The cases whose size sets their run time register
// their row count (or largest size) through bench::rows, and a sweep of sizes through bench::sweep. With the
// environment variable ROBUSTCORE_BENCH_SMOKE set (CI's smoke run, which checks that each case runs, not how fast),
// rows gives a hundredth of the size, at least `floor`, and sweep its first size alone: the same cases and code
// paths, in a few seconds for all the binaries instead of a minute. Read once, at registration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace bench {

inline bool smoke_run() {
  static const bool smoke = std::getenv("ROBUSTCORE_BENCH_SMOKE") != nullptr;
  return smoke;
}

inline int64_t rows(int64_t n, int64_t floor = 256) { return smoke_run() ? std::max(floor, n / 100) : n; }

inline std::vector<int64_t> sweep(std::vector<int64_t> sizes) {
  if (smoke_run()) sizes.resize(1);
  return sizes;
}

}  // namespace bench
