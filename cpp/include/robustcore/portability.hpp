#pragma once
// The engine's only compiler-specific statements: a prefetch hint the optimiser keeps, and a compiler
// barrier. GCC and Clang use their builtins; MSVC its intrinsics; anything else gets no-ops (correct, only
// slower). The other GNU attributes in the engine (interrupt.hpp, feature_maps.hpp) are already guarded by
// `#if defined(__GNUC__)` with a portable fallback. Only the GCC build on Linux x86_64 is built and tested.

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>
#endif
#endif

namespace robustcore {

/// A compiler barrier: no code is moved across it and it counts as a side effect (emits no instruction).
inline void compiler_barrier() {
#if defined(__GNUC__) || defined(__clang__)
  __asm__ __volatile__("");
#elif defined(_MSC_VER)
  _ReadWriteBarrier();
#endif
}

/// A read prefetch of the cache line at p into every cache level (prefetcht0 on x86).
inline void prefetch_read(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
#else
  (void)p;
#endif
}

}  // namespace robustcore
