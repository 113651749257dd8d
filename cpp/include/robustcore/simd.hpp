// The instruction-set level of the engine's vectorised loops, and the branch-free elementary functions they
// inline (no libm call per value, so a loop over them vectorises).
//
// The build targets baseline x86-64 (SSE2: two doubles per instruction). On x86-64 with GCC or Clang a loop
// that matters is also compiled for x86-64-v3 (AVX2: four) and x86-64-v4 (AVX-512: eight) by wrapping it in a
// function marked ROBUSTCORE_SIMD_V3 / ROBUSTCORE_SIMD_V4 (when ROBUSTCORE_SIMD_DISPATCH is defined), the level
// chosen once at run time, the way NumPy does it: the highest the CPU has, capped by the environment variable
// ROBUSTCORE_SIMD ("baseline", "avx2", "avx512"; anything else, or unset: no cap). x86-64-v3 and v4 have FMA,
// and the compiler contracts a product and a sum into one there: those levels round differently from the
// baseline (a few ulps; the tests state the tolerance), and a process gives the same bits at its level. Users:
// the feature maps' cosine and exponential (feature_maps.hpp), the log loss's value, derivative and second
// derivative over blocks of rows (losses.hpp's value_deriv_n / second_n), the rate fit's per-row terms
// (bounded_sigmoid.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__GNUC__)
#define ROBUSTCORE_SIMD_INLINE __attribute__((always_inline)) inline
#else
#define ROBUSTCORE_SIMD_INLINE inline
#endif

namespace robustcore {

enum class SimdLevel { Baseline = 0, Avx2 = 1, Avx512 = 2 };

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX2__) && !defined(ROBUSTCORE_NO_DISPATCH)
#define ROBUSTCORE_SIMD_DISPATCH 1
#define ROBUSTCORE_SIMD_V3 __attribute__((target("avx2,fma,bmi,bmi2,lzcnt,movbe,popcnt")))
#define ROBUSTCORE_SIMD_V4 \
  __attribute__((target("avx2,fma,bmi,bmi2,lzcnt,movbe,popcnt,avx512f,avx512dq,avx512vl,avx512bw,avx512cd")))
#endif

/// The level the dispatched loops run at (see above), decided once per process.
inline SimdLevel simd_level() {
  static const SimdLevel level = [] {
    SimdLevel cpu = SimdLevel::Baseline;
#ifdef ROBUSTCORE_SIMD_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
      cpu = SimdLevel::Avx2;
    if (cpu == SimdLevel::Avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd"))
      cpu = SimdLevel::Avx512;
#endif
    const char* cap = std::getenv("ROBUSTCORE_SIMD");
    SimdLevel most = SimdLevel::Avx512;
    if (cap != nullptr) {
      const std::string c(cap);
      if (c == "baseline") most = SimdLevel::Baseline;
      else if (c == "avx2") most = SimdLevel::Avx2;
    }
    return std::min(cpu, most);
  }();
  return level;
}

/// The level's name: "baseline", "avx2" or "avx512".
inline const char* simd_level_name(SimdLevel l) {
  return l == SimdLevel::Avx512 ? "avx512" : l == SimdLevel::Avx2 ? "avx2" : "baseline";
}

namespace simd {

/// e^t for t <= 0 (t > 0 is not this function's), branch-free: t clamped to [-746, 0] (a NaN stays NaN; from
/// -746 on the result is 0), t = q ln2 + r with q = round(t / ln2), |r| <= ln2 / 2 by a two-part Cody-Waite
/// reduction (fdlibm's ln2 split), e^r from its Taylor series to r^13 (truncation < 5e-18), times 2^(q + 60)
/// built from q's bits and 2^-60 (so that results below 2^-1022 are subnormal, not wrong). Within 2 ulp of
/// std::exp.
ROBUSTCORE_SIMD_INLINE double exp_nonpositive(double t) {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double inv_ln2 = 1.44269504088896338700e+00, magic = 6755399441055744.0;  // 1.5 * 2^52
  constexpr double two_m60 = 8.6736173798840354721e-19;                               // 2^-60
  t = t < -746.0 ? -746.0 : t;                                    // (false for a NaN: it stays)
  const double qm = t * inv_ln2 + magic;                          // round(t / ln2) + magic, as a double
  const double q = qm - magic;
  const double r = (t - q * ln2_hi) - q * ln2_lo;
  double p = 1.0 / 6227020800.0;                                  // 1/13!
  p = p * r + 1.0 / 479001600.0;                                  // 1/12!
  p = p * r + 1.0 / 39916800.0;                                   // 1/11!
  p = p * r + 1.0 / 3628800.0;                                    // 1/10!
  p = p * r + 1.0 / 362880.0;                                     // 1/9!
  p = p * r + 1.0 / 40320.0;                                      // 1/8!
  p = p * r + 1.0 / 5040.0;                                       // 1/7!
  p = p * r + 1.0 / 720.0;                                        // 1/6!
  p = p * r + 1.0 / 120.0;                                        // 1/5!
  p = p * r + 1.0 / 24.0;                                         // 1/4!
  p = p * r + 1.0 / 6.0;                                          // 1/3!
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^(q + 60): qm's low bits hold q + 2^51 + 2^52 (two's complement in the mantissa); q + 60 + 1023 >= 1 for
  // q >= -1076, so (bits(qm) + 60 + 1023) << 52 is the exponent field of 2^(q + 60) (the high bits shift out)
  uint64_t bits;
  std::memcpy(&bits, &qm, sizeof bits);
  bits = (bits + uint64_t{1083}) << 52;
  double two_q;
  std::memcpy(&two_q, &bits, sizeof two_q);
  return (p * two_q) * two_m60;
}

namespace detail {
/// k ln2 + log(1 + f) for |f / (2 + f)| <= 0.1716 (f in [sqrt(1/2) - 1, sqrt 2 - 1]): log(1 + f) = 2 atanh(s) =
/// f - (f^2/2 - s (f^2/2 + R(s^2))), s = f / (2 + f), R fdlibm's minimax polynomial of log's (error < 2^-58.45),
/// k ln2 added in two parts: within 1 ulp.
ROBUSTCORE_SIMD_INLINE double log1p_reduced(double f, double k) {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01, Lg3 = 2.857142874366239149e-01,
                   Lg4 = 2.222219843214978396e-01, Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                   Lg7 = 1.479819860511658591e-01;
  const double s = f / (2.0 + f);
  const double z = s * s, w = z * z;
  const double R = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7))) + w * (Lg2 + w * (Lg4 + w * Lg6));
  const double hfsq = 0.5 * f * f;
  return k * ln2_hi - ((hfsq - (s * (hfsq + R) + k * ln2_lo)) - f);
}
}  // namespace detail

/// log(1 + e) for e in [0, 1], branch-free, within 1 ulp of std::log1p: f = e (k = 0) or, when 1 + e > sqrt 2,
/// f = (e - 1) / 2 (k = 1: log(1 + e) = ln2 + log(1 + f)), then log1p_reduced. f is exact or nearly (no 1 + e is
/// rounded), so small e keeps its relative precision.
ROBUSTCORE_SIMD_INLINE double log1p_unit(double e) {
  const bool high = e > 0.41421356237309503;  // 1 + e > sqrt 2
  const double half = (e - 1.0) * 0.5;
  const double f = high ? half : e;
  return detail::log1p_reduced(f, high ? 1.0 : 0.0);
}

/// log(x) for a normal positive x (x >= 2^-1022, finite; not checked), branch-free, within 1 ulp of std::log:
/// x = 2^k m with m in [sqrt(1/2), sqrt 2) from x's bits (k as a double through 2^52's mantissa, no integer
/// conversion), f = m - 1 exact, then log1p_reduced.
ROBUSTCORE_SIMD_INLINE double log_positive(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  uint64_t mbits = (bits & uint64_t{0x000FFFFFFFFFFFFF}) | uint64_t{0x3FF0000000000000};  // m in [1, 2)
  uint64_t ebits = (bits >> 52) | uint64_t{0x4330000000000000};                          // 2^52 + biased exponent
  double m, e52;
  std::memcpy(&m, &mbits, sizeof m);
  std::memcpy(&e52, &ebits, sizeof e52);
  const double k = e52 - 4503599627371519.0;  // 2^52 + 1023: the unbiased exponent, exactly
  const bool high = m > 1.4142135623730951;   // m > sqrt 2: halve it (so m - 1 >= sqrt(1/2) - 1)
  const double mh = m * 0.5, k1 = k + 1.0;
  return detail::log1p_reduced((high ? mh : m) - 1.0, high ? k1 : k);
}

/// 1 / (1 + exp(-z)), branch-free: exp(-|z|) and the side of z chosen after (no overflow; exactly 0 or 1 only
/// past |z| ~ 745 and where the sum rounds to 1).
ROBUSTCORE_SIMD_INLINE double sigmoid(double z) {
  const double e = exp_nonpositive(-(z < 0.0 ? -z : z));
  const double inv = 1.0 / (1.0 + e), low = e * inv;
  return z >= 0.0 ? inv : low;
}

}  // namespace simd
}  // namespace robustcore
