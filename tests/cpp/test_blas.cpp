// C++ checks for blas.hpp: the baseline product against a direct triple loop (ragged shapes, leading
// dimensions above the width, k past one panel), the dispatch to a registered Fortran-ABI ?gemm (a
// column-major reference written here stands in for a BLAS: the row-major call must reach it with the right
// arguments and give the direct loop's values), the fallback when none is registered, and that a registered
// BLAS reaches the feature maps' products.
#include <robustcore/blas.hpp>
#include <robustcore/feature_maps.hpp>
#include <robustcore/rng.hpp>

#include <cmath>
#include <vector>

#include "check.hpp"

using namespace robustcore;

namespace {

int calls = 0;

/// Column-major reference ?gemm for transa = transb = 'N' (all the engine asks for).
template <class T>
void ref_gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const T* alpha, const T* a,
              const int* lda, const T* b, const int* ldb, const T* beta, T* c, const int* ldc) {
  ++calls;
  CHECK(*ta == 'N' && *tb == 'N');
  for (int j = 0; j < *n; ++j)
    for (int i = 0; i < *m; ++i) {
      double s = 0.0;
      for (int p = 0; p < *k; ++p) s += double(a[i + p * *lda]) * double(b[p + j * *ldb]);
      c[i + j * *ldc] = static_cast<T>(*alpha * s + (*beta == T(0) ? 0.0 : double(*beta) * c[i + j * *ldc]));
    }
}

/// max |C - A B| over the n x N block of C (row-major, ldc), A (n x k, lda), B (k x N, ldb).
template <class T>
double max_error(const std::vector<T>& A, int64_t lda, const std::vector<T>& B, int64_t ldb, const std::vector<T>& C,
                 int64_t ldc, int64_t n, int64_t k, int64_t N) {
  double worst = 0.0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < N; ++c) {
      double s = 0.0;
      for (int64_t j = 0; j < k; ++j) s += double(A[i * lda + j]) * double(B[j * ldb + c]);
      worst = std::max(worst, std::fabs(double(C[i * ldc + c]) - s));
    }
  return worst;
}

template <class T>
void check_shapes(Rng& rng, bool registered, double tol) {
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {4, 8, 8}, {13, 300, 17}, {37, 22, 1000 / 7}, {9, 513, 9}};
  for (const auto& s : shapes) {
    const int64_t n = s[0], k = s[1], N = s[2], lda = k + 3, ldb = N + 1, ldc = N + 5;
    std::vector<T> A(n * lda), B(k * ldb), C(n * ldc, T(-7));
    for (auto& v : A) v = static_cast<T>(2.0 * rng.uniform() - 1.0);
    for (auto& v : B) v = static_cast<T>(2.0 * rng.uniform() - 1.0);
    const int before = calls;
    blas::gemm<T>(A.data(), lda, B.data(), ldb, C.data(), ldc, n, k, N);
    CHECK((calls > before) == registered);
    CHECK(max_error(A, lda, B, ldb, C, ldc, n, k, N) < tol * static_cast<double>(k));
    for (int64_t i = 0; i < n; ++i)  // the columns past N are not written
      for (int64_t c = N; c < ldc; ++c) CHECK(C[i * ldc + c] == T(-7));
  }
}

}  // namespace

int main() {
  Rng rng(3);
  // the baseline: nothing registered
  blas::set_gemm(nullptr, nullptr);
  CHECK(blas::registered_gemm<double>() == nullptr && blas::registered_gemm<float>() == nullptr);
  check_shapes<double>(rng, false, 1e-15);
  check_shapes<float>(rng, false, 1e-6);
  // a registered BLAS (the reference above): every product goes through it, with the row-major arguments
  blas::set_gemm(&ref_gemm<double>, &ref_gemm<float>);
  check_shapes<double>(rng, true, 1e-15);
  check_shapes<float>(rng, true, 1e-6);
  // one scalar registered, the other on the baseline
  blas::set_gemm(&ref_gemm<double>, nullptr);
  check_shapes<double>(rng, true, 1e-15);
  check_shapes<float>(rng, false, 1e-6);

  // the maps' products reach the registered BLAS, and give the baseline's features within rounding
  {
    const int64_t n = 50, d = 6, m = 20;
    std::vector<double> X(n * d), L(m * d), N(m * m, 0.0);
    for (auto& v : X) v = rng.uniform();
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t q = 0; q < d; ++q) L[j * d + q] = X[j * d + q];
      for (int64_t c = 0; c < m; ++c) N[j * m + c] = 0.1 * (2.0 * rng.uniform() - 1.0);
    }
    const feature_maps::NystroemMap ny(feature_maps::KernelKind::Rbf, 0.5, 0.0, 1.0, L.data(), m, d, N.data(), m);
    std::vector<double> W(d * m), b(m);
    for (auto& v : W) v = rng.uniform() - 0.5;
    for (auto& v : b) v = 6.0 * rng.uniform();
    const feature_maps::RandomFourierMap rff(W.data(), b.data(), d, m, 0.3);
    const DenseView view{X.data(), n, d};
    std::vector<double> base(n * m), fast(n * m);
    for (int which = 0; which < 2; ++which) {
      blas::set_gemm(nullptr, nullptr);
      which ? feature_maps::transform(rff, view, base.data()) : feature_maps::transform(ny, view, base.data());
      blas::set_gemm(&ref_gemm<double>, &ref_gemm<float>);
      const int before = calls;
      which ? feature_maps::transform(rff, view, fast.data()) : feature_maps::transform(ny, view, fast.data());
      CHECK(calls > before);
      for (int64_t k = 0; k < n * m; ++k) CHECK_CLOSE(fast[k], base[k], 1e-13);
    }
    blas::set_gemm(nullptr, nullptr);
  }
  return check::report();
}
