// The engine's dense matrix products: one function, `blas::gemm`, which calls a BLAS handed to the engine
// at run time, or the engine's own product when none was.
//
// Which BLAS. The engine links none: a caller registers the addresses of a Fortran-ABI dgemm / sgemm
// (LP64: 32-bit int dimensions) once, with `set_gemm`. The Python package registers those of the installed
// SciPy (`scipy.linalg.cython_blas`'s capsules: the OpenBLAS SciPy's wheels ship, or whatever BLAS a
// distribution's SciPy was built against), at import of robustcore.kernel_approximation, so the wheel has no
// link-time BLAS dependency and installs wherever SciPy does (docs/benchmarks/kernel_approximation.md, issue 42).
// C++ users (the tests, the google-benchmark binaries) may register any BLAS with that ABI, or none.
//
// The baseline (`baseline_gemm`, no BLAS registered, or a product too large for 32-bit dimensions): every
// output summed over its row's terms in a fixed order, register-blocked. Correct everywhere; about 7 GFLOP/s
// on one core of the AVX-512 machine where OpenBLAS does 48 (float64).
//
// Reproducibility: same BLAS, same machine, same call -> same bits. A BLAS may sum an entry's terms in an
// order that depends on the shape of the call (its micro-kernel edges, its blocking of k), so a row's
// output may differ in its last bits between a block of rows and another block holding the same row (the
// fused path's batches against transform()'s blocks), and between the BLAS and the baseline: tests state
// their tolerance.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace robustcore::blas {

/// Fortran BLAS ?gemm, column-major: C = alpha op(A) op(B) + beta C (scipy.linalg.cython_blas's signatures).
template <class T>
using GemmFn = void(const char* transa, const char* transb, const int* m, const int* n, const int* k, const T* alpha,
                    const T* a, const int* lda, const T* b, const int* ldb, const T* beta, T* c, const int* ldc);

namespace detail {
template <class T>
inline std::atomic<GemmFn<T>*> registered{nullptr};
}  // namespace detail

/// Registers the BLAS the engine's products call (either may be null: that scalar's products use the
/// baseline). Called once, before the engine runs (the Python package does it at import); a call while a
/// product runs is safe (each product reads the pointer once) but mixes the two in one result.
inline void set_gemm(GemmFn<double>* dgemm, GemmFn<float>* sgemm) {
  detail::registered<double>.store(dgemm, std::memory_order_release);
  detail::registered<float>.store(sgemm, std::memory_order_release);
}

/// The registered ?gemm for T, or null.
template <class T>
GemmFn<T>* registered_gemm() {
  return detail::registered<T>.load(std::memory_order_acquire);
}

/// C (n x N, row-major, leading dimension ldc) = A (n x k, lda) B (k x N, ldb), both row-major: every
/// entry summed over j = 0, 1, ..., k-1 in that order, one product and one sum per term (compiled for the
/// baseline x86-64, which has no FMA), in the accumulator type Acc. An entry's bits depend only on its row of A
/// and on B.
/// Register-blocked (4 rows x 8 columns) over packed panels of B (kc x 8, zero-padded), k in chunks of kc
/// continued from the partial sums in C (still the same order of terms).
template <class Acc, class TA, class TB, class TC>
void baseline_gemm(const TA* A, int64_t lda, const TB* B, int64_t ldb, TC* C, int64_t ldc, int64_t n, int64_t k,
                   int64_t N) {
  constexpr int64_t R = 4, W = 8, KC = 256;
  if (k == 0) {
    for (int64_t i = 0; i < n; ++i) std::fill(C + i * ldc, C + i * ldc + N, TC(0));
    return;
  }
  Acc panel[KC * W];
  for (int64_t j0 = 0; j0 < k; j0 += KC) {
    const int64_t kc = std::min(KC, k - j0);
    for (int64_t c0 = 0; c0 < N; c0 += W) {
      const int64_t w = std::min(W, N - c0);
      for (int64_t j = 0; j < kc; ++j)
        for (int64_t c = 0; c < W; ++c)
          panel[j * W + c] = c < w ? static_cast<Acc>(B[(j0 + j) * ldb + c0 + c]) : Acc(0);
      for (int64_t i0 = 0; i0 < n; i0 += R) {
        const int64_t r_n = std::min(R, n - i0);
        Acc acc[R][W];
        for (int64_t r = 0; r < R; ++r)
          for (int64_t c = 0; c < W; ++c)
            acc[r][c] = (j0 > 0 && r < r_n && c < w) ? static_cast<Acc>(C[(i0 + r) * ldc + c0 + c]) : Acc(0);
        if (r_n == R) {
          const TA* a0 = A + i0 * lda + j0;
          for (int64_t j = 0; j < kc; ++j) {
            const Acc* p = panel + j * W;
            const Acc x0 = static_cast<Acc>(a0[j]), x1 = static_cast<Acc>(a0[lda + j]),
                      x2 = static_cast<Acc>(a0[2 * lda + j]), x3 = static_cast<Acc>(a0[3 * lda + j]);
            for (int64_t c = 0; c < W; ++c) {
              acc[0][c] += x0 * p[c];
              acc[1][c] += x1 * p[c];
              acc[2][c] += x2 * p[c];
              acc[3][c] += x3 * p[c];
            }
          }
        } else {
          for (int64_t r = 0; r < r_n; ++r) {
            const TA* a = A + (i0 + r) * lda + j0;
            for (int64_t j = 0; j < kc; ++j) {
              const Acc* p = panel + j * W;
              const Acc x = static_cast<Acc>(a[j]);
              for (int64_t c = 0; c < W; ++c) acc[r][c] += x * p[c];
            }
          }
        }
        for (int64_t r = 0; r < r_n; ++r)
          for (int64_t c = 0; c < w; ++c) C[(i0 + r) * ldc + c0 + c] = static_cast<TC>(acc[r][c]);
      }
    }
  }
}

/// C (n x N, row-major, ldc) = A (n x k, row-major, lda) B (k x N, row-major, ldb), T double or float: the
/// registered BLAS (row-major C = A B is column-major C^T = B^T A^T: one gemm call, no transposition), the
/// baseline when none is registered or a dimension does not fit a 32-bit int.
template <class T>
void gemm(const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc, int64_t n, int64_t k, int64_t N) {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "blas::gemm: double or float");
  if (n <= 0 || N <= 0) return;
  GemmFn<T>* f = registered_gemm<T>();
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (f == nullptr || k <= 0 || k > kMax || N > kMax || lda > kMax || ldb > kMax || ldc > kMax)
    return baseline_gemm<T>(A, lda, B, ldb, C, ldc, n, k, N);
  const T one(1), zero(0);
  const int ik = static_cast<int>(k), iN = static_cast<int>(N), ilda = static_cast<int>(std::max<int64_t>(lda, 1)),
            ildb = static_cast<int>(std::max<int64_t>(ldb, 1)), ildc = static_cast<int>(std::max<int64_t>(ldc, 1));
  for (int64_t i0 = 0; i0 < n; i0 += kMax) {  // rows in chunks a 32-bit int counts
    const int in = static_cast<int>(std::min(kMax, n - i0));
    f("N", "N", &iN, &in, &ik, &one, B, &ildb, A + i0 * lda, &ilda, &zero, C + i0 * ldc, &ildc);
  }
}

}  // namespace robustcore::blas
