// Minimal checking for the C++ tests (no test framework dependency): CHECK and CHECK_CLOSE record a
// failure with file and line; main() returns check::report().
#pragma once

#include <cmath>
#include <cstdio>

namespace check {
inline int& failures() {
  static int n = 0;
  return n;
}
inline int report() {
  if (failures()) std::fprintf(stderr, "%d check(s) failed\n", failures());
  else std::printf("all checks passed\n");
  return failures() ? 1 : 0;
}
}  // namespace check

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++check::failures();                                                      \
    }                                                                           \
  } while (0)

#define CHECK_CLOSE(a, b, tol)                                                                       \
  do {                                                                                               \
    const double _a = (a), _b = (b);                                                                 \
    if (!(std::fabs(_a - _b) <= (tol) * (1.0 + std::fabs(_b)))) {                                    \
      std::fprintf(stderr, "%s:%d: CHECK_CLOSE failed: %s = %.17g vs %s = %.17g\n", __FILE__, __LINE__, #a, _a, \
                   #b, _b);                                                                          \
      ++check::failures();                                                                           \
    }                                                                                                \
  } while (0)

#define CHECK_THROWS(expr, Exc)            \
  do {                                     \
    bool _thrown = false;                  \
    try {                                  \
      (void)(expr);                        \
    } catch (const Exc&) {                 \
      _thrown = true;                      \
    }                                      \
    if (!_thrown) {                        \
      std::fprintf(stderr, "%s:%d: expected %s from %s\n", __FILE__, __LINE__, #Exc, #expr); \
      ++check::failures();                 \
    }                                      \
  } while (0)
