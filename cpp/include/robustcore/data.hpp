// Non-owning views over the training data: CSR (sparse) and row-major dense.
//
// Every solver is templated on a view type `Data` that provides
//   int64_t rows() const, cols() const;
//   Row row(int64_t i) const;             // cheap value type
// and the free functions below work on both row types:
//   dot(row, w)            sum_j x_j w_j
//   axpy(a, row, w)        w += a * x
//   sqnorm(row)            ||x||^2
//   for_each_nz(row, f)    f(j, x_j) over the stored entries (all columns for dense rows)
// and prefetch_pointer(i) / prefetch_row(i) hints for passes in shuffled order (sampler.hpp's
// prefetch_ahead)
// so one algorithm serves dense and sparse data with no virtual calls. Views and rows are templated on
// the stored values' scalar T (double or float): the free functions read a value as double and the
// weights are always double, so float32 data trains without a float64 copy (the bindings instantiate
// float views for the SGD family only).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <algorithm>
#include <string>
#include <vector>

#include "huge_pages.hpp"
#include "portability.hpp"

namespace robustcore {

/// A prefetch hint the optimiser keeps. GCC treats __builtin_prefetch as free of side effects, so its
/// IPA pure-const analysis finds a function that only prefetches "pure" (with -ffinite-loops, the C++
/// default from -O2) and deletes every call to it: the row prefetches of the shuffled passes vanished
/// from the -O3 kernels. The compiler barrier (an empty volatile asm) is a side effect the analysis
/// respects. Both are in portability.hpp (with their MSVC forms).
inline void prefetch_hint(const void* p) {
  prefetch_read(p);
  compiler_barrier();
}

template <class T>
struct BasicSparseRow {
  const T* val;
  const int32_t* idx;
  int64_t nnz;
};
using SparseRow = BasicSparseRow<double>;

template <class T>
struct BasicDenseRow {
  const T* val;
  int64_t n;
};
using DenseRow = BasicDenseRow<double>;

template <class T>
inline double dot(const BasicSparseRow<T>& r, const double* w) {
  double s = 0.0;
  for (int64_t k = 0; k < r.nnz; ++k) s += static_cast<double>(r.val[k]) * w[r.idx[k]];
  return s;
}
template <class T>
inline double dot(const BasicDenseRow<T>& r, const double* w) {
  double s = 0.0;
  for (int64_t k = 0; k < r.n; ++k) s += static_cast<double>(r.val[k]) * w[k];
  return s;
}
template <class T>
inline void axpy(double a, const BasicSparseRow<T>& r, double* w) {
  for (int64_t k = 0; k < r.nnz; ++k) w[r.idx[k]] += a * static_cast<double>(r.val[k]);
}
template <class T>
inline void axpy(double a, const BasicDenseRow<T>& r, double* w) {
  for (int64_t k = 0; k < r.n; ++k) w[k] += a * static_cast<double>(r.val[k]);
}
template <class T>
inline double sqnorm(const BasicSparseRow<T>& r) {
  double s = 0.0;
  for (int64_t k = 0; k < r.nnz; ++k) s += static_cast<double>(r.val[k]) * static_cast<double>(r.val[k]);
  return s;
}
template <class T>
inline double sqnorm(const BasicDenseRow<T>& r) {
  double s = 0.0;
  for (int64_t k = 0; k < r.n; ++k) s += static_cast<double>(r.val[k]) * static_cast<double>(r.val[k]);
  return s;
}
template <class T, class F>
inline void for_each_nz(const BasicSparseRow<T>& r, F&& f) {
  for (int64_t k = 0; k < r.nnz; ++k) f(static_cast<int64_t>(r.idx[k]), static_cast<double>(r.val[k]));
}
template <class T, class F>
inline void for_each_nz(const BasicDenseRow<T>& r, F&& f) {
  for (int64_t k = 0; k < r.n; ++k) f(k, static_cast<double>(r.val[k]));
}
template <class T>
inline int64_t row_nnz(const BasicSparseRow<T>& r) { return r.nnz; }
template <class T>
inline int64_t row_nnz(const BasicDenseRow<T>& r) { return r.n; }

/// The one structural check of a CSR matrix (n_rows x n_cols), O(n_rows + nnz), before anything reads
/// it through its row pointers: indptr has n_rows + 1 entries, indptr[0] == 0, indptr is non-decreasing,
/// indptr[n_rows] == len(data) == len(indices), and every column index is in [0, n_cols). Throws
/// std::invalid_argument naming the first broken condition (and where). CsrView::validate calls it; the
/// Python layer calls it on scipy's arrays (int32 or int64) before scipy itself reads them
/// (_validation.check_csr_structure). A CSC matrix is the CSR matrix of its transpose.
template <class IP, class Idx>
void validate_csr_structure(const IP* indptr, int64_t indptr_len, const Idx* indices, int64_t indices_len,
                            int64_t data_len, int64_t n_rows, int64_t n_cols) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("corrupt CSR matrix: " + m); };
  if (n_rows < 0 || n_cols < 0) fail("negative shape");
  if (indptr_len != n_rows + 1)
    fail("indptr has " + std::to_string(indptr_len) + " entries for " + std::to_string(n_rows) +
         " rows (needs n_rows + 1)");
  if (static_cast<int64_t>(indptr[0]) != 0) fail("indptr[0] is " + std::to_string(indptr[0]) + ", not 0");
  for (int64_t i = 0; i < n_rows; ++i)
    if (indptr[i + 1] < indptr[i])
      fail("indptr is not non-decreasing (indptr[" + std::to_string(i + 1) + "] = " + std::to_string(indptr[i + 1]) +
           " < indptr[" + std::to_string(i) + "] = " + std::to_string(indptr[i]) + ")");
  const int64_t nnz = static_cast<int64_t>(indptr[n_rows]);
  if (nnz != data_len || nnz != indices_len)
    fail("indptr[-1] = " + std::to_string(nnz) + " but data has " + std::to_string(data_len) + " and indices " +
         std::to_string(indices_len) + " entries");
  // one branch-free pass (vectorised), the position of a bad index looked up only on failure
  bool bad = false;
  for (int64_t k = 0; k < nnz; ++k) bad |= static_cast<int64_t>(indices[k]) < 0 || static_cast<int64_t>(indices[k]) >= n_cols;
  if (bad)
    for (int64_t k = 0; k < nnz; ++k)
      if (static_cast<int64_t>(indices[k]) < 0 || static_cast<int64_t>(indices[k]) >= n_cols)
        fail("column indices out of range [0, " + std::to_string(n_cols) + "): " + std::to_string(indices[k]) +
             " at entry " + std::to_string(k));
}

/// CSR matrix view (values of type T, int32 column indices, int32 or int64 row pointers).
/// validate() checks what the kernels rely on: shapes, monotone indptr, indices in [0, cols),
/// finite values. Column indices need not be sorted within a row (no kernel relies on order).
template <class IndPtr, class T = double>
struct CsrView {
  using Scalar = T;
  using Row = BasicSparseRow<T>;
  static constexpr bool is_sparse = true;
  const T* data = nullptr;
  const int32_t* indices = nullptr;
  const IndPtr* indptr = nullptr;
  int64_t n_rows = 0;
  int64_t n_cols = 0;

  int64_t rows() const { return n_rows; }
  int64_t cols() const { return n_cols; }
  int64_t nnz() const { return n_rows ? static_cast<int64_t>(indptr[n_rows] - indptr[0]) : 0; }
  Row row(int64_t i) const {
    const int64_t a = static_cast<int64_t>(indptr[i]), b = static_cast<int64_t>(indptr[i + 1]);
    return Row{data + a, indices + a, b - a};
  }
  /// Software prefetch for shuffled passes, in two stages: the row pointer of a row needed in 2k
  /// steps, then the values and indices of a row needed in k steps (its pointer is cached by then).
  void prefetch_pointer(int64_t i) const { prefetch_hint(indptr + i); }
  void prefetch_row(int64_t i) const {
    const int64_t a = static_cast<int64_t>(indptr[i]), b = static_cast<int64_t>(indptr[i + 1]);
    if (b <= a) return;
    // every cache line the row touches: striding from data + a would miss the last line of a row
    // that does not start on a line boundary
    prefetch_lines(data + a, data + b);
    prefetch_lines(indices + a, indices + b);
  }
  static void prefetch_lines(const void* lo, const void* hi) {
    const uintptr_t end = reinterpret_cast<uintptr_t>(hi);
    for (uintptr_t q = reinterpret_cast<uintptr_t>(lo) & ~uintptr_t{63}; q < end; q += 64)
      prefetch_hint(reinterpret_cast<const void*>(q));
  }
  /// Throws std::invalid_argument naming the first broken precondition: the structure
  /// (validate_csr_structure), then finite values.
  void validate(int64_t data_len, int64_t indices_len) const {
    if (n_rows < 0 || n_cols < 0) throw std::invalid_argument("CSR matrix: negative shape");
    validate_csr_structure(indptr, n_rows + 1, indices, indices_len, data_len, n_rows, n_cols);
    for (int64_t k = 0; k < data_len; ++k)
      if (!std::isfinite(data[k])) throw std::invalid_argument("CSR matrix: values contain NaN or infinity");
  }
};

/// Row-major dense matrix view (values of type T).
template <class T>
struct BasicDenseView {
  using Scalar = T;
  using Row = BasicDenseRow<T>;
  static constexpr bool is_sparse = false;
  const T* data = nullptr;
  int64_t n_rows = 0;
  int64_t n_cols = 0;

  int64_t rows() const { return n_rows; }
  int64_t cols() const { return n_cols; }
  int64_t nnz() const { return n_rows * n_cols; }
  Row row(int64_t i) const { return Row{data + i * n_cols, n_cols}; }
  void prefetch_pointer(int64_t) const {}
  /// The first cache lines of a row; the hardware prefetcher follows the rest.
  void prefetch_row(int64_t i) const {
    const T* r = data + i * n_cols;
    for (int64_t p = 0; p < n_cols && p < 64; p += 8) prefetch_hint(r + p);
  }
  void validate() const {
    if (n_rows < 0 || n_cols < 0) throw std::invalid_argument("dense matrix: negative shape");
    const int64_t n = n_rows * n_cols;
    for (int64_t k = 0; k < n; ++k)
      if (!std::isfinite(data[k])) throw std::invalid_argument("dense matrix: values contain NaN or infinity");
  }
};
using DenseView = BasicDenseView<double>;

/// An owning copy of a view's rows, reordered: row k of view() is row order[k] of the source. Block
/// shuffling (sampler.hpp) copies the data once into a random order so that every later pass reads
/// contiguous blocks of rows.
template <class View>
struct RowCopy;

template <class IP, class T>
struct RowCopy<CsrView<IP, T>> {
  HugeVector<T> data;
  HugeVector<int32_t> indices;
  std::vector<IP> indptr;
  int64_t n_cols = 0;
  RowCopy(const CsrView<IP, T>& X, const int64_t* order) : indptr(static_cast<size_t>(X.rows()) + 1), n_cols(X.cols()) {
    data.reserve(static_cast<size_t>(X.nnz()));
    indices.reserve(static_cast<size_t>(X.nnz()));
    indptr[0] = 0;
    for (int64_t k = 0; k < X.rows(); ++k) {
      const BasicSparseRow<T> r = X.row(order[k]);
      data.insert(data.end(), r.val, r.val + r.nnz);
      indices.insert(indices.end(), r.idx, r.idx + r.nnz);
      indptr[static_cast<size_t>(k) + 1] = static_cast<IP>(data.size());
    }
  }
  CsrView<IP, T> view() const {
    return CsrView<IP, T>{data.data(), indices.data(), indptr.data(), static_cast<int64_t>(indptr.size()) - 1, n_cols};
  }
  int64_t bytes_per_row() const {
    const int64_t n = static_cast<int64_t>(indptr.size()) - 1;
    return n ? static_cast<int64_t>(data.size() * (sizeof(T) + sizeof(int32_t))) / n + 1 : 1;
  }
};

template <class T>
struct RowCopy<BasicDenseView<T>> {
  HugeVector<T> data;
  int64_t n_rows = 0, n_cols = 0;
  RowCopy(const BasicDenseView<T>& X, const int64_t* order)
      : data(static_cast<size_t>(X.rows() * X.cols())), n_rows(X.rows()), n_cols(X.cols()) {
    for (int64_t k = 0; k < n_rows; ++k) {
      const BasicDenseRow<T> r = X.row(order[k]);
      std::copy(r.val, r.val + r.n, data.begin() + k * n_cols);
    }
  }
  BasicDenseView<T> view() const { return BasicDenseView<T>{data.data(), n_rows, n_cols}; }
  int64_t bytes_per_row() const { return static_cast<int64_t>(sizeof(T)) * n_cols + 1; }
};

/// Rows order[0..m) of any view copied as float64 CSR, their columns renumbered to 0..u-1 in increasing
/// order (u: the distinct columns they store; a dense row stores every column): vectors over the
/// sample's columns cost O(u), not O(d). Each row keeps its entries in their order (zeros of a dense
/// row included), so sums over a row's entries give the bits they give over the source row, and
/// weights that start at 0 stay 0 outside the sample's columns. One CSR type for every source view.
struct CompactSample {
  std::vector<double> data;
  std::vector<int32_t> indices;
  std::vector<int64_t> indptr{0};
  int64_t n_cols = 0;

  template <class View>
  CompactSample(const View& X, const int64_t* order, int64_t m) {
    for (int64_t k = 0; k < m; ++k) {
      for_each_nz(X.row(order[k]), [&](int64_t j, double v) {
        data.push_back(v);
        indices.push_back(static_cast<int32_t>(j));
      });
      indptr.push_back(static_cast<int64_t>(data.size()));
    }
    std::vector<int32_t> cols(indices);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (auto& j : indices) j = static_cast<int32_t>(std::lower_bound(cols.begin(), cols.end(), j) - cols.begin());
    n_cols = static_cast<int64_t>(cols.size());
  }
  CsrView<int64_t> view() const {
    return CsrView<int64_t>{data.data(), indices.data(), indptr.data(), static_cast<int64_t>(indptr.size()) - 1, n_cols};
  }
};

/// Sample weights must be finite and >= 0 (nullptr: all ones). Returns their sum (n without weights).
/// The one check of sample weights: every solver that takes them calls it at its entry point.
inline double validate_sample_weight(const double* sw, int64_t n) {
  if (!sw) return static_cast<double>(n);
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (!(sw[i] >= 0.0) || !std::isfinite(sw[i])) throw std::invalid_argument("sample weights must be finite and >= 0");
    total += sw[i];
  }
  return total;
}

/// Labels must be exactly -1 or +1 for the binary solvers.
inline void validate_binary_labels(const double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (y[i] != 1.0 && y[i] != -1.0)
      throw std::invalid_argument("binary labels must be -1 or +1 (y must be in {-1, +1}, got " + std::to_string(y[i]) +
                                  ")");
}

}  // namespace robustcore
