// A bank of m positive semi-definite n x n kernel matrices, each stored either as its dense rows or as a
// pivoted-Cholesky factor L_j (n x r_j) with |K_j - L_j L_j^T| <= tol entrywise.
//
// Why: the MKL solvers (mkl.hpp) read the whole bank once per iteration, n^2 m values for a dense bank.
// Gaussian kernels on a single feature have a fast-decaying spectrum (and rank <= the number of distinct
// values of the feature), so most of the paper's bank has r_j << n: on australian (n = 552, m = 150)
// the factored bank holds about 8% of the dense bank's values and a kernel pass costs that much less.
//
// Pivoted Cholesky (greedy on the largest residual diagonal) needs only the diagonal and the pivot
// columns of K_j; it stops when the largest residual diagonal is <= tol. The residual E = K - L L^T is
// PSD, so |E_il| <= sqrt(E_ii E_ll) <= tol for every entry. A kernel whose rank would exceed
// max_rank (n / 2 by default: past it a factor costs as much as the dense rows) is stored dense.
#pragma once

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "interrupt.hpp"

namespace robustcore {

/// Thrown when a kernel bank would need more memory than the caller allowed.
struct BankTooLarge : std::length_error {
  using std::length_error::length_error;
};

/// Pivoted Cholesky of the PSD n x n matrix with diagonal `diag`, columns given by col(p, out).
/// Writes the factor column-major into L (n x r) and returns r, or -1 if r would exceed max_rank.
/// Pivots are the first index of the largest residual diagonal (deterministic).
template <class ColFn>
int64_t pivoted_cholesky(int64_t n, const double* diag, ColFn&& col, double tol, int64_t max_rank,
                         std::vector<double>& L) {
  if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("pivoted_cholesky: tol must be >= 0 and finite");
  std::vector<double> resid(diag, diag + n), c(static_cast<size_t>(n));
  L.clear();  // n x max_rank reserved once, pages touched one column at a time: no reallocation peak
  if (max_rank > 0 && static_cast<int64_t>(L.capacity()) < n * std::min(max_rank, n))
    L.reserve(static_cast<size_t>(n * std::min(max_rank, n)));
  for (int64_t k = 0;; ++k) {
    int64_t p = 0;
    for (int64_t i = 1; i < n; ++i)
      if (resid[static_cast<size_t>(i)] > resid[static_cast<size_t>(p)]) p = i;
    if (n == 0 || resid[static_cast<size_t>(p)] <= tol) {
      L.resize(static_cast<size_t>(n * k));
      return k;
    }
    if (k >= max_rank) return -1;
    col(p, c.data());
    L.resize(static_cast<size_t>(n * (k + 1)));
    for (int64_t q = 0; q < k; ++q) {
      const double* Lq = L.data() + q * n;
      const double f = Lq[p];
      if (f != 0.0)
        for (int64_t i = 0; i < n; ++i) c[static_cast<size_t>(i)] -= f * Lq[i];
    }
    const double piv = std::sqrt(resid[static_cast<size_t>(p)]);
    double* Lk = L.data() + k * n;
    for (int64_t i = 0; i < n; ++i) {
      Lk[i] = c[static_cast<size_t>(i)] / piv;
      resid[static_cast<size_t>(i)] = std::max(0.0, resid[static_cast<size_t>(i)] - Lk[i] * Lk[i]);
    }
    Lk[p] = piv;
    resid[static_cast<size_t>(p)] = 0.0;
  }
}

/// out = M v (out not aliasing v) for a symmetric n x n row-major M, reading its upper triangle once. Four rows per sweep:
/// each entry M(i, l), l > i, feeds the dot product of row i and the update of out[l], so the half
/// matrix streams through once with v and out in L1 (about 1.6x Eigen's selfadjointView product here).
inline void symv_upper(const double* M, int64_t n, const double* v, double* out) {
  std::fill(out, out + n, 0.0);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double* r0 = M + i * n;
    const double* r1 = r0 + n;
    const double* r2 = r1 + n;
    const double* r3 = r2 + n;
    // the 4 x 4 diagonal block from its upper half
    double d0 = r0[i] * v[i] + r0[i + 1] * v[i + 1] + r0[i + 2] * v[i + 2] + r0[i + 3] * v[i + 3];
    double d1 = r0[i + 1] * v[i] + r1[i + 1] * v[i + 1] + r1[i + 2] * v[i + 2] + r1[i + 3] * v[i + 3];
    double d2 = r0[i + 2] * v[i] + r1[i + 2] * v[i + 1] + r2[i + 2] * v[i + 2] + r2[i + 3] * v[i + 3];
    double d3 = r0[i + 3] * v[i] + r1[i + 3] * v[i + 1] + r2[i + 3] * v[i + 2] + r3[i + 3] * v[i + 3];
    const double v0 = v[i], v1 = v[i + 1], v2 = v[i + 2], v3 = v[i + 3];
    for (int64_t l = i + 4; l < n; ++l) {
      const double vl = v[l];
      d0 += r0[l] * vl;
      d1 += r1[l] * vl;
      d2 += r2[l] * vl;
      d3 += r3[l] * vl;
      out[l] += r0[l] * v0 + r1[l] * v1 + r2[l] * v2 + r3[l] * v3;
    }
    out[i] += d0;
    out[i + 1] += d1;
    out[i + 2] += d2;
    out[i + 3] += d3;
  }
  for (; i < n; ++i) {
    const double* r = M + i * n;
    double d = r[i] * v[i];
    for (int64_t l = i + 1; l < n; ++l) {
      d += r[l] * v[l];
      out[l] += r[l] * v[i];
    }
    out[i] += d;
  }
}

/// m kernels over the same n points, each dense (n x n rows, symmetric: products read the upper half)
/// or factored (L_j, n x r_j row-major).
/// Every kernel is assumed to have non-negative entries (true of the Gaussian bank), which
/// coupling_norm_bound uses to get the Gershgorin row sums from the factor in O(n r).
class FactoredBank {
 public:
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using CMap = Eigen::Map<const RowMat>;

  int64_t m = 0;
  int64_t n = 0;

  FactoredBank() = default;
  FactoredBank(int64_t n_points, int64_t max_bytes) : n(n_points), max_bytes_(max_bytes) {}

  /// Values that can still be stored within max_bytes (-1: no limit).
  int64_t room() const { return max_bytes_ > 0 ? max_bytes_ / static_cast<int64_t>(sizeof(double)) - stored_ : -1; }
  /// Throws BankTooLarge unless `count` more values fit within max_bytes.
  void check_room(int64_t count) const {
    if (max_bytes_ > 0 && count > room())
      throw BankTooLarge("the kernel bank and its work space need more than " +
                         std::to_string(static_cast<double>(max_bytes_) / (1 << 20)) + " MiB after " + std::to_string(m) + " kernels of " + std::to_string(n) +
                         " points; raise max_memory_mb, loosen low_rank_tol, or use fewer kernels or samples");
  }
  /// Appends a kernel: dense rows (rank < 0; `values` holds n*n) or a factor (n x rank, row-major).
  void push(const double* values, int64_t rank) {
    double* out = append(rank);
    std::copy(values, values + (rank < 0 ? n * n : n * rank), out);
  }
  /// Appends a kernel of `rank` (< 0: dense) and returns its block to fill (n*n or n x rank values). Each
  /// kernel has its own allocation, so the bank never holds a reallocation's two copies.
  double* append(int64_t rank) {
    const int64_t count = rank < 0 ? n * n : n * rank;
    check_room(count);
    blocks_.emplace_back(static_cast<size_t>(count));
    rank_.push_back(rank);
    stored_ += count;
    ++m;
    return blocks_.back().data();
  }

  int64_t rank(int64_t j) const { return rank_[static_cast<size_t>(j)]; }
  const double* block(int64_t j) const { return blocks_[static_cast<size_t>(j)].data(); }
  int64_t bytes() const { return stored_ * static_cast<int64_t>(sizeof(double)); }
  /// Number of stored values divided by n^2 m (the dense bank's).
  double fill() const { return m > 0 && n > 0 ? static_cast<double>(stored_) / (static_cast<double>(n) * n * m) : 0.0; }

  /// out (n) = K_j v (v of length n).
  void apply(int64_t j, const double* v, double* out, Eigen::VectorXd& work) const {
    Eigen::Map<const Eigen::VectorXd> vv(v, n);
    Eigen::Map<Eigen::VectorXd> o(out, n);
    const int64_t r = rank(j);
    if (r < 0) {
      symv_upper(block(j), n, v, out);  // symmetric: read half
    } else if (r == 0) {
      o.setZero();
    } else {
      const CMap Lj(block(j), n, r);
      work.resize(r);
      work.noalias() = Lj.transpose() * vv;
      o.noalias() = Lj * work;
    }
  }
  /// Rows j0..j1-1 of H (m x n row-major) = [K_j u]_j.
  void apply_all(const double* u, double* H, int64_t j0, int64_t j1) const {
    Eigen::VectorXd work;
    InterruptCheck stop;
    for (int64_t j = j0; j < j1; ++j) {
      stop.tick();
      apply(j, u, H + j * n, work);
    }
  }
  /// Multiply-adds of a product with kernel j: two per value of a dense kernel's upper half (symv_upper),
  /// two per factor value (L^T v, then L w). The time of a threaded pass's groups follows it (measured).
  double cost(int64_t j) const { return rank(j) < 0 ? static_cast<double>(n) * n : 2.0 * n * rank(j) + 1.0; }
  /// G (m x n row-major) = [K_j c_j]_j for C (m x n row-major).
  void apply_each(const double* C, double* G) const {
    Eigen::VectorXd work;
    InterruptCheck stop;
    for (int64_t j = 0; j < m; ++j) {
      stop.tick();
      apply(j, C + j * n, G + j * n, work);
    }
  }
  /// q_j = v^T K_j v.
  void quad(const double* v, double* q) const {
    Eigen::Map<const Eigen::VectorXd> vv(v, n);
    Eigen::VectorXd h(n);
    for (int64_t j = 0; j < m; ++j) {
      const int64_t r = rank(j);
      if (r < 0) {
        symv_upper(block(j), n, v, h.data());
        q[j] = vv.dot(h);
      } else {
        q[j] = r == 0 ? 0.0 : (CMap(block(j), n, r).transpose() * vv).squaredNorm();
      }
    }
  }
  /// out (n x n row-major) = sum_j w_j K_j.
  void combine(const double* w, double* out) const {
    Eigen::Map<RowMat> O(out, n, n);
    O.setZero();
    for (int64_t j = 0; j < m; ++j) {
      if (w[j] == 0.0) continue;
      const int64_t r = rank(j);
      if (r < 0) {
        O += w[j] * CMap(block(j), n, n);
      } else if (r > 0) {
        const CMap Lj(block(j), n, r);
        O.noalias() += w[j] * (Lj * Lj.transpose());
      }
    }
  }
  /// Dense (m x n x n) copy.
  void to_dense(double* out) const {
    for (int64_t j = 0; j < m; ++j) {
      Eigen::Map<RowMat> O(out + j * n * n, n, n);
      const int64_t r = rank(j);
      if (r < 0) {
        O = CMap(block(j), n, n);
      } else if (r == 0) {
        O.setZero();
      } else {
        const CMap Lj(block(j), n, r);
        O.noalias() = Lj * Lj.transpose();
      }
    }
  }
  /// The bank restricted to the points idx (rows of the factors; rows and columns of dense blocks).
  FactoredBank subset(const int64_t* idx, int64_t k) const {
    for (int64_t a = 0; a < k; ++a)
      if (idx[a] < 0 || idx[a] >= n) throw std::invalid_argument("subset: index out of range");
    FactoredBank out(k, 0);
    std::vector<double> buf;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t r = rank(j);
      const double* B = block(j);
      if (r < 0) {
        buf.resize(static_cast<size_t>(k * k));
        for (int64_t a = 0; a < k; ++a)
          for (int64_t b = 0; b < k; ++b) buf[static_cast<size_t>(a * k + b)] = B[idx[a] * n + idx[b]];
      } else {
        buf.resize(static_cast<size_t>(k * r));
        for (int64_t a = 0; a < k; ++a) std::copy(B + idx[a] * r, B + (idx[a] + 1) * r, buf.data() + a * r);
      }
      out.push(buf.data(), r);
    }
    return out;
  }

 private:
  std::vector<std::vector<double>> blocks_;
  std::vector<int64_t> rank_;
  int64_t stored_ = 0;  ///< values in all blocks
  int64_t max_bytes_ = 0;
};

/// Kernel pass of the MKL solvers (mkl.hpp) over kernels j0..j1-1: rows j of H (m x n row-major) = K_j u;
/// and the work of kernel j, by which the solvers split the pass over threads.
inline void kernel_pass(const FactoredBank& K, const double* u, double* H, int64_t j0, int64_t j1) {
  K.apply_all(u, H, j0, j1);
}
inline double kernel_cost(const FactoredBank& K, int64_t j) { return K.cost(j); }

/// Gershgorin bound of the MKL coupling norm (see mkl.hpp): sqrt(sum_j max_i sum_l |K_j(i,l)|) / n. The
/// entries are non-negative, so the row sums are K_j 1, taken from the factor in O(n r_j).
inline double coupling_norm_bound(const FactoredBank& K) {
  if (K.n == 0) return 0.0;
  const std::vector<double> ones(static_cast<size_t>(K.n), 1.0);
  std::vector<double> h(static_cast<size_t>(K.n));
  Eigen::VectorXd work;
  double tot = 0.0;
  for (int64_t j = 0; j < K.m; ++j) {
    if (K.rank(j) < 0) {
      double best = 0.0;
      for (int64_t i = 0; i < K.n; ++i) {
        const double* r = K.block(j) + i * K.n;
        double s = 0.0;
        for (int64_t l = 0; l < K.n; ++l) s += std::abs(r[l]);
        best = std::max(best, s);
      }
      tot += best;
    } else {
      K.apply(j, ones.data(), h.data(), work);
      tot += std::max(0.0, *std::max_element(h.begin(), h.end()));
    }
  }
  return std::sqrt(tot) / static_cast<double>(K.n);
}

}  // namespace robustcore
