// Explicit feature maps that approximate a kernel: random Fourier features (Gaussian and Laplacian
// kernels), Nystroem (a kernel against landmarks, whitened), and a bank of either, one block per base
// kernel (multiple kernel learning's Gaussian bank: all features and each feature, several widths).
//
// A map is a small class holding its fitted parameters (the random draws, the landmarks and their
// normalisation are made by the caller, e.g. Python with a seeded generator). Every map has one block
// method, the unit a solver can fuse into its batches without materialising the n x D matrix:
//
//   template <class View>
//   void map_rows(const View& X, int64_t lo, int64_t hi, typename View::Scalar* out, int64_t ld) const;
//
// which writes z(x_i) for the rows i in [lo, hi) of a data view (data.hpp: dense or CSR, float64 or
// float32) into row i - lo of a caller-provided row-major buffer with leading dimension ld >= D
// (out[(i - lo) * ld + c], c < D). float32 data gives float32 features. transform(map, X, out, n_threads)
// maps every row on threads (parallel.hpp's run_tasks), in blocks of rows small enough that a block's
// output stays in cache between its product and its cosine / exponential, and polls for interrupts
// (interrupt.hpp) after every block.
#pragma once

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "blas.hpp"
#include "data.hpp"
#include "interrupt.hpp"
#include "parallel.hpp"
#include "simd.hpp"

namespace robustcore::feature_maps {

namespace detail {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstRowMap = Eigen::Map<const RowMat<T>>;
template <class T>
using StridedRowMap = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;

inline void check_finite(const double* v, int64_t n, const char* what) {
  for (int64_t k = 0; k < n; ++k)
    if (!std::isfinite(v[k])) throw std::invalid_argument(std::string(what) + " contain NaN or infinity");
}

/// Above this |t| the branch-free cosine's reduction loses bits: such blocks use std::cos.
inline constexpr double kFastCosLimit = 1e5;


/// x[k] = scale * cos(x[k] + b[k]) for k < n, in place, computed in float64 for both scalars.
/// Branch-free and vectorisable (no libm call per value): t = q pi + r with q = round(t / pi),
/// r in [-pi/2, pi/2] by a three-part Cody-Waite reduction, cos t = (-1)^q cos r with cos r from its
/// Taylor series to r^20 (truncation < 3e-17). Within a few ulp of std::cos for |t| <= kFastCosLimit;
/// a row with a larger |t| (or a NaN) is computed by std::cos instead.
template <class T>
ROBUSTCORE_SIMD_INLINE void scaled_cos_loop(T* x, const T* b, int64_t n, double scale) {
  int64_t big = 0;  // an integer count: a vectorisable reduction (a max of doubles is not, without -ffast-math)
  for (int64_t k = 0; k < n; ++k) big += !(std::fabs(static_cast<double>(x[k]) + static_cast<double>(b[k])) <= kFastCosLimit);
  if (big) {
    for (int64_t k = 0; k < n; ++k)
      x[k] = static_cast<T>(scale * std::cos(static_cast<double>(x[k]) + static_cast<double>(b[k])));
    return;
  }
  // pi = P1 + P2 + P3, P1 and P2 with 33 significant bits (q P1, q P2 exact for |q| < 2^20): fdlibm's
  // pio2_1, pio2_2, pio2_3, doubled
  constexpr double P1 = 3.14159265346825122833e+00, P2 = 1.21542010130079319532e-10,
                   P3 = 4.04453249742233291160e-21;
  constexpr double inv_pi = 0.31830988618379067154, magic = 6755399441055744.0;  // 1.5 * 2^52
  for (int64_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(x[k]) + static_cast<double>(b[k]);
    const double q = (t * inv_pi + magic) - magic;  // round(t / pi), as a double
    const double r = ((t - q * P1) - q * P2) - q * P3;
    const double h = q * 0.5;
    const double odd = std::fabs(h - ((h + magic) - magic));  // 0 for even q, 0.5 for odd
    const double r2 = r * r;
    double c = 1.0 / 2432902008176640000.0;           // 1/20!
    c = c * r2 - 1.0 / 6402373705728000.0;            // 1/18!
    c = c * r2 + 1.0 / 20922789888000.0;              // 1/16!
    c = c * r2 - 1.0 / 87178291200.0;                 // 1/14!
    c = c * r2 + 1.0 / 479001600.0;                   // 1/12!
    c = c * r2 - 1.0 / 3628800.0;                     // 1/10!
    c = c * r2 + 1.0 / 40320.0;                       // 1/8!
    c = c * r2 - 1.0 / 720.0;                         // 1/6!
    c = c * r2 + 1.0 / 24.0;                          // 1/4!
    c = c * r2 - 0.5;                                 // 1/2!
    c = c * r2 + 1.0;
    x[k] = static_cast<T>((scale - 4.0 * scale * odd) * c);
  }
}

/// out[k] = exp(-scale * x[k]) for k < n (scale > 0, x[k] >= 0: the kernels' distances), computed in float64 and
/// rounded once to T (float32 output: the value of the float64 exponential cast to float32, in the same pass);
/// out may be x (in place, T = double). Branch-free and vectorisable: simd.hpp's exp_nonpositive (within 2 ulp
/// of std::exp; subnormal below 2^-1022, and 0 from -746 on).
template <class T>
ROBUSTCORE_SIMD_INLINE void neg_exp_loop(const double* x, T* out, int64_t n, double scale) {
  for (int64_t k = 0; k < n; ++k) out[k] = static_cast<T>(simd::exp_nonpositive(-scale * x[k]));
}
ROBUSTCORE_SIMD_INLINE void neg_exp_loop(double* x, int64_t n, double scale) { neg_exp_loop<double>(x, x, n, scale); }

// The loops above are also compiled for x86-64-v3 (AVX2) and x86-64-v4 (AVX-512), the level chosen once per
// process (simd.hpp: simd_level, capped by ROBUSTCORE_SIMD; AVX2 and AVX-512 contract into FMA: within a few
// ulps of the baseline).
#ifdef ROBUSTCORE_SIMD_DISPATCH
ROBUSTCORE_SIMD_V3 inline void scaled_cos_v3(double* x, const double* b, int64_t n, double s) { scaled_cos_loop(x, b, n, s); }
ROBUSTCORE_SIMD_V3 inline void scaled_cos_v3(float* x, const float* b, int64_t n, double s) { scaled_cos_loop(x, b, n, s); }
ROBUSTCORE_SIMD_V4 inline void scaled_cos_v4(double* x, const double* b, int64_t n, double s) { scaled_cos_loop(x, b, n, s); }
ROBUSTCORE_SIMD_V4 inline void scaled_cos_v4(float* x, const float* b, int64_t n, double s) { scaled_cos_loop(x, b, n, s); }
ROBUSTCORE_SIMD_V3 inline void neg_exp_v3(double* x, int64_t n, double s) { neg_exp_loop(x, n, s); }
ROBUSTCORE_SIMD_V4 inline void neg_exp_v4(double* x, int64_t n, double s) { neg_exp_loop(x, n, s); }
ROBUSTCORE_SIMD_V3 inline void neg_exp_v3(const double* x, float* out, int64_t n, double s) { neg_exp_loop(x, out, n, s); }
ROBUSTCORE_SIMD_V4 inline void neg_exp_v4(const double* x, float* out, int64_t n, double s) { neg_exp_loop(x, out, n, s); }
#endif

template <class T>
inline void scaled_cos(T* x, const T* b, int64_t n, double scale) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  switch (simd_level()) {
    case SimdLevel::Avx512: return scaled_cos_v4(x, b, n, scale);
    case SimdLevel::Avx2: return scaled_cos_v3(x, b, n, scale);
    case SimdLevel::Baseline: break;
  }
#endif
  scaled_cos_loop(x, b, n, scale);
}

inline void neg_exp(double* x, int64_t n, double scale) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  switch (simd_level()) {
    case SimdLevel::Avx512: return neg_exp_v4(x, n, scale);
    case SimdLevel::Avx2: return neg_exp_v3(x, n, scale);
    case SimdLevel::Baseline: break;
  }
#endif
  neg_exp_loop(x, n, scale);
}
/// out[k] = exp(-scale * x[k]) rounded to float32 (the float32 Nystroem kernel block, written by the exponential).
inline void neg_exp(const double* x, float* out, int64_t n, double scale) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
  switch (simd_level()) {
    case SimdLevel::Avx512: return neg_exp_v4(x, out, n, scale);
    case SimdLevel::Avx2: return neg_exp_v3(x, out, n, scale);
    case SimdLevel::Baseline: break;
  }
#endif
  neg_exp_loop(x, out, n, scale);
}

/// Rows [lo, hi) of a view, converted to a dense row-major double block (the Nystroem kernels work in
/// float64 whatever the data's scalar).
template <class View>
RowMat<double> dense_block(const View& X, int64_t lo, int64_t hi) {
  RowMat<double> B = RowMat<double>::Zero(hi - lo, X.cols());
  for (int64_t i = lo; i < hi; ++i) for_each_nz(X.row(i), [&](int64_t j, double v) { B(i - lo, j) += v; });
  return B;
}

inline void check_rows(int64_t X_cols, int64_t d, int64_t X_rows, int64_t lo, int64_t hi, int64_t ld, int64_t D,
                       const char* name) {
  if (X_cols != d)
    throw std::invalid_argument(std::string(name) + ": X has " + std::to_string(X_cols) + " features, the map " +
                                std::to_string(d));
  if (lo < 0 || hi < lo || hi > X_rows) throw std::invalid_argument(std::string(name) + ": bad row range");
  if (ld < D) throw std::invalid_argument(std::string(name) + ": the output's leading dimension is below D");
}

}  // namespace detail

/// Random Fourier features z(x) = scale * cos(W x + b) (Rahimi and Recht): W's rows (frequencies) drawn
/// from the kernel's spectral density (Gaussian kernel exp(-gamma ||x - y||^2): N(0, 2 gamma) per entry;
/// Laplacian exp(-gamma ||x - y||_1): Cauchy(0, gamma)), b uniform on [0, 2 pi), scale sqrt(2 / D).
class RandomFourierMap {
 public:
  static constexpr const char* name = "RandomFourierMap";  ///< the bindings' class name
  RandomFourierMap() = default;
  /// W: n_features x n_components, row-major (W transposed: scikit-learn's random_weights_ layout);
  /// b: n_components offsets. Throws std::invalid_argument on empty shapes or non-finite values.
  RandomFourierMap(const double* W, const double* b, int64_t n_features, int64_t n_components, double scale)
      : d_(n_features), D_(n_components), scale_(scale) {
    if (d_ < 1 || D_ < 1) throw std::invalid_argument("RandomFourierMap: n_features and n_components must be >= 1");
    if (!std::isfinite(scale)) throw std::invalid_argument("RandomFourierMap: scale must be finite");
    detail::check_finite(W, d_ * D_, "RandomFourierMap: the frequencies");
    detail::check_finite(b, D_, "RandomFourierMap: the offsets");
    wt_.assign(W, W + d_ * D_);
    b_.assign(b, b + D_);
    wt32_.assign(wt_.begin(), wt_.end());
    b32_.assign(b_.begin(), b_.end());
  }
  int64_t n_features() const { return d_; }
  int64_t n_components() const { return D_; }
  double scale() const { return scale_; }

  /// z(x_i) for i in [lo, hi) into out[(i - lo) * ld + c], c < n_components (see the file comment).
  /// Dense rows: one product of the block with W (Eigen), then the cosine in place while the block is
  /// in cache; CSR rows: W's rows of the stored columns summed, then the cosine.
  template <class View>
  void map_rows(const View& X, int64_t lo, int64_t hi, typename View::Scalar* out, int64_t ld) const {
    using T = typename View::Scalar;
    detail::check_rows(X.cols(), d_, X.rows(), lo, hi, ld, D_, "RandomFourierMap");
    const T* wt = params<T>(wt_, wt32_);
    const T* b = params<T>(b_, b32_);
    const int64_t m = hi - lo;
    if (m == 0) return;
    if constexpr (!View::is_sparse) {
      blas::gemm<T>(X.data + lo * d_, d_, wt, D_, out, ld, m, d_, D_);
    } else {
      for (int64_t i = lo; i < hi; ++i) {
        T* o = out + (i - lo) * ld;
        std::fill(o, o + D_, T(0));
        const auto r = X.row(i);
        for (int64_t k = 0; k < r.nnz; ++k) {
          const T v = r.val[k];
          const T* w = wt + static_cast<int64_t>(r.idx[k]) * D_;
          for (int64_t c = 0; c < D_; ++c) o[c] += v * w[c];
        }
      }
    }
    for (int64_t i = 0; i < m; ++i) detail::scaled_cos(out + i * ld, b, D_, scale_);
  }

 private:
  template <class T>
  static const T* params(const std::vector<double>& f64, const std::vector<float>& f32) {
    if constexpr (std::is_same_v<T, float>) return f32.data();
    else return f64.data();
  }
  int64_t d_ = 0, D_ = 0;
  double scale_ = 1.0;
  std::vector<double> wt_, b_;   // d x D row-major, D
  std::vector<float> wt32_, b32_;  // the same, for float32 data
};

/// Kernels between rows and landmarks (Nystroem): exp(-gamma ||x - l||^2), exp(-gamma ||x - l||_1),
/// (gamma <x, l> + coef0)^degree (degree 1, gamma 1, coef0 0: the linear kernel).
enum class KernelKind { Rbf, Laplacian, Polynomial };

/// Nystroem features z(x) = N k(x, L): k(x, L) the kernel between x and the m landmarks L, N the
/// D x m normalisation (scikit-learn's normalization_: K_LL^{-1/2} with tiny eigenvalues clipped).
/// The kernel is computed in float64 for every data scalar.
class NystroemMap {
 public:
  static constexpr const char* name = "NystroemMap";
  NystroemMap() = default;
  /// landmarks: m x d row-major; normalization: D x m row-major.
  NystroemMap(KernelKind kind, double gamma, double coef0, double degree, const double* landmarks, int64_t m,
              int64_t d, const double* normalization, int64_t n_components)
      : kind_(kind), gamma_(gamma), coef0_(coef0), degree_(degree), m_(m), d_(d), D_(n_components) {
    if (m_ < 1 || d_ < 1 || D_ < 1) throw std::invalid_argument("NystroemMap: sizes must be >= 1");
    if (!std::isfinite(gamma) || !std::isfinite(coef0) || !std::isfinite(degree))
      throw std::invalid_argument("NystroemMap: kernel parameters must be finite");
    if (kind != KernelKind::Polynomial && !(gamma > 0)) throw std::invalid_argument("NystroemMap: gamma must be > 0");
    detail::check_finite(landmarks, m_ * d_, "NystroemMap: the landmarks");
    detail::check_finite(normalization, D_ * m_, "NystroemMap: the normalization");
    L_ = detail::ConstRowMap<double>(landmarks, m_, d_);
    Lt_ = L_.transpose();
    Nt_ = detail::ConstRowMap<double>(normalization, D_, m_).transpose();
    Nt32_ = Nt_.cast<float>();
    lsq_ = L_.rowwise().squaredNorm();
    labs_ = L_.cwiseAbs().rowwise().sum();
  }
  int64_t n_features() const { return d_; }
  int64_t n_components() const { return D_; }
  int64_t n_landmarks() const { return m_; }

  /// k(x_i, l_j) for i in [lo, hi), j < m, into K ((hi - lo) x m, row-major), computed in float64 and rounded
  /// once to T (float32 for float32 data). Rows go kernel_block_rows() at a time, so the block's float64
  /// distances stay in the L2 cache between their product and their exponential (the map's block of 1,024 rows
  /// at m = 1,000 is 8 MB of them: four passes through memory, which cost the float32 map more than its
  /// exponentials; docs/benchmarks/kernel_approximation.md, issue 42).
  template <class View, class T>
  void kernel_rows(const View& X, int64_t lo, int64_t hi, T* K) const {
    detail::check_rows(X.cols(), d_, X.rows(), lo, hi, m_, m_, "NystroemMap");
    const int64_t R = kernel_block_rows();
    std::vector<double> scratch(std::is_same_v<T, double> ? 0 : static_cast<size_t>(std::min(R, hi - lo) * m_));
    for (int64_t a = lo; a < hi; a += R) {
      const int64_t b = std::min(hi, a + R);
      T* out = K + (a - lo) * m_;
      if constexpr (std::is_same_v<T, double>) {
        distances(X, a, b, out);
        finish(out, out, (b - a) * m_);
      } else {
        distances(X, a, b, scratch.data());
        finish(scratch.data(), out, (b - a) * m_);
      }
    }
  }
  /// Rows of kernel_rows' float64 sub-blocks: about 256 KiB of distances, at least 1.
  int64_t kernel_block_rows() const { return std::max<int64_t>(1, (int64_t{1} << 15) / m_); }

  /// z(x_i) for i in [lo, hi) into out (see the file comment): the kernel block, then one product with N^T.
  /// float32 data: the kernel block rounded to float32 by its exponential, the product in float32 (scikit-learn's
  /// precision).
  template <class View>
  void map_rows(const View& X, int64_t lo, int64_t hi, typename View::Scalar* out, int64_t ld) const {
    using T = typename View::Scalar;
    detail::check_rows(X.cols(), d_, X.rows(), lo, hi, ld, D_, "NystroemMap");
    const int64_t n = hi - lo;
    if (n == 0) return;
    detail::RowMat<T> K(n, m_);
    kernel_rows(X, lo, hi, K.data());
    if constexpr (std::is_same_v<T, double>) blas::gemm<double>(K.data(), m_, Nt_.data(), D_, out, ld, n, m_, D_);
    else blas::gemm<float>(K.data(), m_, Nt32_.data(), D_, out, ld, n, m_, D_);
  }

 private:
  /// Rows [lo, hi) against the landmarks into K ((hi - lo) x m, float64): squared distances (rbf), L1 distances
  /// (laplacian) or inner products (polynomial), what finish() turns into the kernel.
  template <class View>
  void distances(const View& X, int64_t lo, int64_t hi, double* K) const {
    const int64_t n = hi - lo;
    if (n == 0) return;
    Eigen::Map<detail::RowMat<double>> Km(K, n, m_);
    if constexpr (!View::is_sparse) {
      const detail::RowMat<double> B = detail::dense_block(X, lo, hi);
      if (kind_ == KernelKind::Laplacian) {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < m_; ++j) {
            double s = 0.0;
            for (int64_t q = 0; q < d_; ++q) s += std::fabs(L_(j, q) - B(i, q));
            Km(i, j) = s;
          }
      } else {
        blas::gemm<double>(B.data(), d_, Lt_.data(), m_, K, m_, n, d_, m_);
        if (kind_ == KernelKind::Rbf) {
          for (int64_t i = 0; i < n; ++i) {
            double bsq = 0.0;
            for (int64_t q = 0; q < d_; ++q) bsq += B(i, q) * B(i, q);
            for (int64_t j = 0; j < m_; ++j) Km(i, j) = std::max(bsq + lsq_(j) - 2.0 * Km(i, j), 0.0);
          }
        }
      }
    } else {
      for (int64_t i = lo; i < hi; ++i) {
        double* k = K + (i - lo) * m_;
        const auto r = X.row(i);
        double xsq = 0.0;
        if (kind_ == KernelKind::Laplacian) {
          // ||x - l||_1 = ||l||_1 + sum over x's stored columns of (|x_j - l_j| - |l_j|)
          std::copy(labs_.data(), labs_.data() + m_, k);
          for (int64_t q = 0; q < r.nnz; ++q) {
            const double v = static_cast<double>(r.val[q]);
            const double* lt = Lt_.data() + static_cast<int64_t>(r.idx[q]) * m_;
            for (int64_t j = 0; j < m_; ++j) k[j] += std::fabs(v - lt[j]) - std::fabs(lt[j]);
          }
          for (int64_t j = 0; j < m_; ++j) k[j] = std::max(k[j], 0.0);
          continue;
        }
        std::fill(k, k + m_, 0.0);
        for (int64_t q = 0; q < r.nnz; ++q) {
          const double v = static_cast<double>(r.val[q]);
          xsq += v * v;
          const double* lt = Lt_.data() + static_cast<int64_t>(r.idx[q]) * m_;
          for (int64_t j = 0; j < m_; ++j) k[j] += v * lt[j];
        }
        if (kind_ == KernelKind::Rbf)
          for (int64_t j = 0; j < m_; ++j) k[j] = std::max(xsq + lsq_(j) - 2.0 * k[j], 0.0);
      }
    }
  }
  /// out[k] = the kernel from finish's input D[k] (distances(): rbf and laplacian exp(-gamma D), polynomial
  /// (gamma D + coef0)^degree), for k < n, rounded to T; out may be D (T = double).
  template <class T>
  void finish(const double* D, T* out, int64_t n) const {
    if (kind_ != KernelKind::Polynomial) {
      if constexpr (std::is_same_v<T, double>) {
        if (out == D) return detail::neg_exp(out, n, gamma_);
        std::copy(D, D + n, out);
        return detail::neg_exp(out, n, gamma_);
      } else {
        detail::neg_exp(D, out, n, gamma_);
      }
    } else {
      for (int64_t k = 0; k < n; ++k)
        out[k] = static_cast<T>(degree_ == 1.0 ? gamma_ * D[k] + coef0_ : std::pow(gamma_ * D[k] + coef0_, degree_));
    }
  }

  KernelKind kind_ = KernelKind::Rbf;
  double gamma_ = 1.0, coef0_ = 0.0, degree_ = 1.0;
  int64_t m_ = 0, d_ = 0, D_ = 0;
  detail::RowMat<double> L_, Lt_, Nt_;  // m x d, d x m, m x D
  detail::RowMat<float> Nt32_;          // Nt_ for float32 data
  Eigen::VectorXd lsq_, labs_;          // ||l_j||^2, ||l_j||_1
};

/// The registry of feature maps: type lists (as losses.hpp's `Losses`) from which everything that holds or
/// dispatches over a map is built -- the variants of a bank block and of the fused view (`Any`), the
/// reference the bindings pass to the compiled transform (`Ref`), the bindings' classes and overloads
/// (for_each_map), and the compiled instances (transform_any / map_rows_any, one per data view).
template <class... M>
struct MapList {
  static constexpr std::size_t size = sizeof...(M);
  using Any = std::variant<M...>;         ///< one of the maps, held by value
  using Ref = std::variant<const M*...>;  ///< one of the maps, by reference (never null)
  template <class X>
  using Append = MapList<M..., X>;
};

/// The maps of one kernel: what a bank block and the fused view hold. A new map is added here.
using KernelMaps = MapList<RandomFourierMap, NystroemMap>;

namespace detail {
template <class F, class... M>
void for_each_map(F& f, const MapList<M...>*) {
  (f(static_cast<const M*>(nullptr)), ...);
}
}  // namespace detail

/// f(a null `const M*`) for every map M of the list, in order.
template <class List, class F>
void for_each_map(F&& f) {
  detail::for_each_map(f, static_cast<const List*>(nullptr));
}

/// A bank of maps, one block of output columns per base kernel, each block a map over all features
/// (feature -1) or over one feature (its map has n_features 1). Blocks are laid out in the order they
/// were added, contiguously: block j's columns are [offset(j), offset(j) + its n_components).
class KernelBankMap {
 public:
  static constexpr const char* name = "KernelBankMap";
  using AnyMap = KernelMaps::Any;

  KernelBankMap() = default;
  explicit KernelBankMap(int64_t n_features) : d_(n_features) {
    if (d_ < 1) throw std::invalid_argument("KernelBankMap: n_features must be >= 1");
  }
  /// Appends a block: feature -1 (map over all n_features) or a feature index (map over 1 feature).
  void add(int64_t feature, AnyMap map) {
    const int64_t md = std::visit([](const auto& mp) { return mp.n_features(); }, map);
    if (feature < -1 || feature >= d_) throw std::invalid_argument("KernelBankMap: feature out of range");
    if (md != (feature < 0 ? d_ : 1))
      throw std::invalid_argument("KernelBankMap: a block over all features needs a map over n_features, a "
                                  "block over one feature a map over 1");
    offsets_.push_back(D_);
    D_ += std::visit([](const auto& mp) { return mp.n_components(); }, map);
    features_.push_back(feature);
    if (feature >= 0) any_single_ = true;
    maps_.push_back(std::move(map));
  }
  int64_t n_features() const { return d_; }
  int64_t n_components() const { return D_; }
  int64_t n_blocks() const { return static_cast<int64_t>(maps_.size()); }
  int64_t offset(int64_t j) const { return offsets_[static_cast<size_t>(j)]; }
  int64_t feature(int64_t j) const { return features_[static_cast<size_t>(j)]; }
  const AnyMap& block(int64_t j) const { return maps_[static_cast<size_t>(j)]; }

  /// Every block's features of rows [lo, hi) into their columns of out (see the file comment).
  template <class View>
  void map_rows(const View& X, int64_t lo, int64_t hi, typename View::Scalar* out, int64_t ld) const {
    using T = typename View::Scalar;
    detail::check_rows(X.cols(), d_, X.rows(), lo, hi, ld, D_, "KernelBankMap");
    if (maps_.empty()) throw std::invalid_argument("KernelBankMap: no blocks");
    const int64_t n = hi - lo;
    if (n == 0) return;
    std::vector<T> cols;  // the block's rows transposed (d x n): column j contiguous, a 1-feature view
    if (any_single_) {
      cols.assign(static_cast<size_t>(d_ * n), T(0));
      for (int64_t i = lo; i < hi; ++i)
        for_each_nz(X.row(i), [&](int64_t j, double v) { cols[static_cast<size_t>(j * n + (i - lo))] += static_cast<T>(v); });
    }
    for (size_t b = 0; b < maps_.size(); ++b) {
      T* o = out + offsets_[b];
      std::visit(
          [&](const auto& mp) {
            if (features_[b] < 0) {
              mp.map_rows(X, lo, hi, o, ld);
            } else {
              const BasicDenseView<T> col{cols.data() + features_[b] * n, n, 1};
              mp.map_rows(col, 0, n, o, ld);
            }
          },
          maps_[b]);
    }
  }

 private:
  int64_t d_ = 0, D_ = 0;
  bool any_single_ = false;
  std::vector<AnyMap> maps_;
  std::vector<int64_t> offsets_, features_;
};

/// Every map the engine compiles and binds: the kernel maps and the bank of them.
using FeatureMaps = KernelMaps::Append<KernelBankMap>;
/// Any map of FeatureMaps by reference: what the bindings hand to transform_any / map_rows_any.
using MapRef = FeatureMaps::Ref;

/// Rows per block of transform(): about 1 MiB of output (a block's product and its cosine share the L2
/// cache; fewer rows repack W more often: float32 at D = 2000 took 0.27 s at 16 rows, 0.16-0.19 s at
/// 128-512), between 32 and 1024 rows.
inline int64_t default_block_rows(int64_t n_components, int64_t scalar_bytes) {
  const int64_t r = (int64_t{1} << 20) / std::max<int64_t>(1, n_components * scalar_bytes);
  return std::clamp<int64_t>(r, 32, 1024);
}

/// Rows per block of transform(): sixteen times default_block_rows (about 16 MiB of output), at most 4096. The
/// BLAS packs the map's matrix (W, or Nystroem's m x D normalisation: 4 MB in float32 at m = D = 1000) once per
/// call, a cost per block whatever its rows: at 1,024 rows the float32 Nystroem map of ijcnn1 ran at 0.73 of one
/// whole sgemm's speed, at 4,096 rows 0.82, same process (issue 42, docs/benchmarks/kernel_approximation.md).
inline int64_t transform_block_rows(int64_t n_components, int64_t scalar_bytes) {
  return std::min<int64_t>(16 * default_block_rows(n_components, scalar_bytes), 4096);
}

/// out (X.rows() x map.n_components(), row-major) = the map of every row of X, on n_threads threads
/// (contiguous row ranges of about equal stored values; the caller's thread runs the first), in blocks
/// of block_rows (0: transform_block_rows, fewer rows when each thread would get fewer than 8 blocks), polling
/// for interrupts after each block.
template <class Map, class View>
void transform(const Map& map, const View& X, typename View::Scalar* out, int n_threads = 1, int64_t block_rows = 0) {
  using T = typename View::Scalar;
  if (X.cols() != map.n_features())
    throw std::invalid_argument("transform: X has " + std::to_string(X.cols()) + " features, the map " +
                                std::to_string(map.n_features()));
  if (n_threads < 1) throw std::invalid_argument("transform: n_threads must be >= 1");
  const int64_t n = X.rows(), D = map.n_components();
  if (n == 0) return;
  if (block_rows <= 0) {
    block_rows = transform_block_rows(D, static_cast<int64_t>(sizeof(T)));
    // several threads: at least 8 blocks each, so that the contiguous groups stay of about equal cost
    if (n_threads > 1) block_rows = std::min(block_rows, std::max<int64_t>(32, (n + 8 * n_threads - 1) / (8 * n_threads)));
  }
  const int64_t n_blocks = (n + block_rows - 1) / block_rows;
  const int P = static_cast<int>(std::min<int64_t>(n_threads, n_blocks));
  // contiguous groups of blocks, of about equal cost (stored values + the per-row output work)
  const std::vector<int64_t> cuts = balanced_cuts(n_blocks, P, [&](int64_t b) {
    const int64_t lo = b * block_rows, hi = std::min(n, lo + block_rows);
    double c = static_cast<double>((hi - lo) * D);
    if constexpr (View::is_sparse) c += static_cast<double>(X.indptr[hi] - X.indptr[lo]) * D;
    else c += static_cast<double>((hi - lo) * X.cols()) * D;
    return c;
  });
  run_tasks(P, [&](int p) {
    InterruptCheck check;
    for (int64_t b = cuts[static_cast<size_t>(p)]; b < cuts[static_cast<size_t>(p) + 1]; ++b) {
      const int64_t lo = b * block_rows, hi = std::min(n, lo + block_rows);
      map.map_rows(X, lo, hi, out + lo * D, D);
      check.tick((hi - lo) * D);
    }
  });
}

/// map_rows of the map `map` refers to: one compiled instance per data view serves every map of
/// FeatureMaps (the dispatch is once per call, outside the loops).
template <class View>
void map_rows_any(const MapRef& map, const View& X, int64_t lo, int64_t hi, typename View::Scalar* out, int64_t ld) {
  std::visit([&](const auto* m) { m->map_rows(X, lo, hi, out, ld); }, map);
}

/// transform of the map `map` refers to (see map_rows_any).
template <class View>
void transform_any(const MapRef& map, const View& X, typename View::Scalar* out, int n_threads = 1,
                   int64_t block_rows = 0) {
  std::visit([&](const auto* m) { transform(*m, X, out, n_threads, block_rows); }, map);
}

}  // namespace robustcore::feature_maps
