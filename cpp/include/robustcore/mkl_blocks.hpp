// StPMKL (problem (11) of Yang et al., ICML 2012; mkl.hpp) in the primal over explicit feature maps, one
// block of features per base kernel (feature_maps.hpp's KernelBankMap): multiple kernel learning past n^2.
//
// With k_j(x, x') ~ phi_j(x).phi_j(x') (block j of D_j random Fourier or Nystroem features), every f_j in
// the span of the data is f_j(x) = w_j.phi_j(x) with ||f_j||_{H_j} = ||w_j||, and problem (11) reads
//     min_w max_{alpha in Q}  (lambda/2) (sum_j ||w_j||)^2 + (1/n) sum_i alpha_i (1 - y_i sum_j w_j.phi_j(x_i)),
// Q = {alpha in [0, upper]^n, sum alpha <= rho}. (sum_j ||w_j||)^2 = min_{d in simplex} sum_j ||w_j||^2 / d_j,
// attained at d_j = ||w_j|| / sum_k ||w_k||: the same group penalty as the kernel weights d of problem (1),
// so the kernel weights are read off the blocks' norms exactly as the dual solver reads them off ||f_j||.
// The solver is mkl.hpp's Algorithm 1 (or the VI baseline) step for step, with the coefficient form
// replaced by the weights: the gradient step on f_j adds (gamma/n) Phi_j^T (alpha o y) to w_j, Lemma 3's
// prox scales each block, and f(X) = Phi w. An iteration makes two passes over the rows (Phi^T u, then
// Phi w: the projection onto Q between them is global), O(n D) time, and the solver keeps O(n + D)
// values beyond the data: the dual iterates, scores and their sums (n each), w, its sum and the sum of the
// gradients (D each; the duality gap's dual side is max_j ||Phi_j^T (alphabar o y)||^2, linear in the sum).
//
// Rows are taken in fixed chunks; a chunk's features come from a cache (the first chunks, mapped once, as
// many as fit in the memory budget left after the solver's own arrays) or are mapped again into a
// per-thread buffer in every pass. A row's features do not depend on the chunk it is mapped in, the
// chunks and the reduction groups of Phi^T u depend on n only, so the result bits are the same for any
// memory budget and any number of threads.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data.hpp"
#include "feature_maps.hpp"
#include "huge_pages.hpp"
#include "interrupt.hpp"
#include "mkl.hpp"
#include "parallel.hpp"
#include "projections.hpp"
#include "result.hpp"

namespace robustcore {
namespace mkl {

/// Memory of solve_blocks beyond the data and the map: its own arrays (`fixed_bytes`, always allocated) and
/// the rows whose features it keeps (`cached_rows` of n, whole chunks, within max_bytes).
struct BlockPlan {
  int64_t chunk_rows = 0;   ///< rows mapped together
  int64_t n_groups = 0;     ///< contiguous chunk groups of the Phi^T u reduction (a partial sum each)
  int64_t fixed_bytes = 0;  ///< the solver's arrays: O(n + n_groups D + threads chunk D)
  int64_t cached_rows = 0;  ///< rows [0, cached_rows) mapped once and kept
  int64_t cache_bytes = 0;  ///< cached_rows D scalars
};

/// The plan for n rows of D features of `scalar_bytes` each on n_threads threads within max_bytes (<= 0: no
/// limit, every row cached). Throws std::length_error (MemoryError in Python) when the fixed arrays alone
/// pass max_bytes. chunk_rows <= 0: feature_maps::default_block_rows(D).
inline BlockPlan plan_blocks(int64_t n, int64_t D, int64_t scalar_bytes, int64_t n_threads, int64_t max_bytes,
                             int64_t chunk_rows = 0) {
  if (n < 1 || D < 1 || n_threads < 1 || (scalar_bytes != 4 && scalar_bytes != 8))
    throw std::invalid_argument("plan_blocks: bad sizes");
  BlockPlan p;
  p.chunk_rows = chunk_rows > 0 ? chunk_rows : feature_maps::default_block_rows(D, scalar_bytes);
  const int64_t n_chunks = (n + p.chunk_rows - 1) / p.chunk_rows;
  p.n_groups = std::min<int64_t>(n_chunks, 64);
  const int64_t threads = std::min(n_threads, p.n_groups);
  // n-vectors: fX, fsum, alpha, beta, asum, the ascent's work vector, the gap's coefficients, its sort
  // indices, the projection's breakpoints (2n); D-vectors: w, wsum, gsum, g, the block norms; partials
  p.fixed_bytes = 8 * (10 * n + (5 + p.n_groups) * D) + threads * p.chunk_rows * D * scalar_bytes;
  if (max_bytes > 0 && p.fixed_bytes > max_bytes)
    throw std::length_error("the feature-block MKL solver needs " + std::to_string(p.fixed_bytes) +
                            " bytes for its own arrays (" + std::to_string(n) + " rows, " + std::to_string(D) +
                            " features), above the memory budget of " + std::to_string(max_bytes) + " bytes");
  const int64_t row_bytes = D * scalar_bytes;
  int64_t rows = max_bytes > 0 ? (max_bytes - p.fixed_bytes) / row_bytes : n;
  if (rows < n) rows = rows / p.chunk_rows * p.chunk_rows;  // whole chunks
  p.cached_rows = std::clamp<int64_t>(rows, 0, n);
  p.cache_bytes = p.cached_rows * row_bytes;
  return p;
}

namespace detail {

/// The rows of a bank's features, chunk by chunk: cached (the first cached_rows) or mapped into a thread's
/// buffer. for_each(fn) runs fn(group, lo, hi, rows) over every chunk [lo, hi) (rows: (hi - lo) x D,
/// row-major) with the groups split over the threads, each group's chunks in order.
template <class Map, class View>
class BlockRows {
 public:
  using T = typename View::Scalar;
  BlockRows(const Map& map, const View& X, const BlockPlan& plan, int n_threads)
      : map_(map), X_(X), plan_(plan), n_(X.rows()), D_(map.n_components()) {
    n_chunks_ = (n_ + plan.chunk_rows - 1) / plan.chunk_rows;
    P_ = static_cast<int>(std::min<int64_t>(n_threads, plan.n_groups));
    for (int64_t g = 0; g <= plan.n_groups; ++g) group_cuts_.push_back(g * n_chunks_ / plan.n_groups);
    // uninitialised: its pages are first touched by the fill pass, chunk by chunk between two interrupt ticks
    // (zeroing gigabytes here took seconds without a poll: Ctrl-C waited for it)
    const auto cached = static_cast<size_t>(plan.cached_rows * D_);
    if (cached) cache_ = std::unique_ptr<T[], CacheFree>(HugePageAllocator<T>().allocate(cached), CacheFree{cached});
    buffers_.resize(static_cast<size_t>(P_));
    for (auto& b : buffers_) b.resize(static_cast<size_t>(plan.chunk_rows * D_));
  }
  int64_t n_groups() const { return plan_.n_groups; }

  /// fill: map the cached chunks into the cache (the first pass).
  template <class F>
  void for_each(F&& fn, bool fill = false) {
    auto task = [&](int p) {
      InterruptCheck check;
      const int64_t g0 = plan_.n_groups * p / P_, g1 = plan_.n_groups * (p + 1) / P_;
      T* buf = buffers_[static_cast<size_t>(p)].data();
      for (int64_t g = g0; g < g1; ++g)
        for (int64_t c = group_cuts_[static_cast<size_t>(g)]; c < group_cuts_[static_cast<size_t>(g) + 1]; ++c) {
          const int64_t lo = c * plan_.chunk_rows, hi = std::min(n_, lo + plan_.chunk_rows);
          const T* rows;
          if (hi <= plan_.cached_rows) {
            T* dst = cache_.get() + lo * D_;
            if (fill) map_.map_rows(X_, lo, hi, dst, D_);
            rows = dst;
          } else {
            map_.map_rows(X_, lo, hi, buf, D_);
            rows = buf;
          }
          fn(g, lo, hi, rows);
          check.tick((hi - lo) * D_);
        }
    };
    if (P_ == 1) task(0);
    else run_tasks(P_, task);
  }

 private:
  const Map& map_;
  const View& X_;
  BlockPlan plan_;
  int64_t n_, D_, n_chunks_ = 0;
  int P_ = 1;
  std::vector<int64_t> group_cuts_;
  struct CacheFree {
    size_t n;
    void operator()(T* p) const { HugePageAllocator<T>().deallocate(p, n); }
  };
  std::unique_ptr<T[], CacheFree> cache_{nullptr, CacheFree{0}};  ///< written by the fill pass before any read
  std::vector<std::vector<T>> buffers_;
};

}  // namespace detail

/// Solves problem (11) over the feature blocks of `map` (any map with n_components(), n_blocks(),
/// offset(j): feature_maps::KernelBankMap) on the rows of X, by Algorithm 1 (AMP) or the VI baseline,
/// exactly as mkl::solve does on a kernel bank (see mkl.hpp and this file's comment). Writes the averaged
/// weights wbar (D; fbar(x) = phi(x).wbar) into w and the averaged dual variables into dual (n), at the end
/// and before each progress call. Step size gamma <= 0: AMP 1 / (sqrt(2) L) with the Frobenius bound
/// L = sqrt(sum_i ||phi(x_i)||^2) / n (for unit-diagonal kernels sqrt(m n) / n, Algorithm 1's
/// sqrt(n / (2m))), VI gamma0 / sqrt(T). max_bytes bounds the solver's memory beyond the data and the
/// map (plan_blocks: std::length_error before anything is allocated when its own arrays do not fit;
/// rows are cached while they fit). Every precondition is checked here (std::invalid_argument).
template <class Map, class View>
MklResult solve_blocks(const Map& map, const View& X, const double* y, const Options& opt, int64_t max_bytes,
                       double* w_out, double* dual, const ProgressFn& progress = {},
                       const double* sample_weight = nullptr, int64_t chunk_rows = 0) {
  using T = typename View::Scalar;
  const int64_t n = X.rows(), D = map.n_components(), m = map.n_blocks();
  if (n < 1 || m < 1 || D < 1) throw std::invalid_argument("mkl::solve_blocks: need at least one sample and one block");
  if (X.cols() != map.n_features())
    throw std::invalid_argument("mkl::solve_blocks: X has " + std::to_string(X.cols()) + " features, the map " +
                                std::to_string(map.n_features()));
  opt.validate();
  validate_binary_labels(y, n);
  const double n_eff = validate_sample_weight(sample_weight, n);
  if (sample_weight && !(n_eff > 0.0)) throw std::invalid_argument("mkl::solve_blocks: the sample weights sum to 0");
  const BlockPlan plan = plan_blocks(n, D, static_cast<int64_t>(sizeof(T)), opt.n_threads, max_bytes, chunk_rows);

  detail::BlockRows<Map, View> rows(map, X, plan, static_cast<int>(opt.n_threads));
  const int64_t G = rows.n_groups();
  std::vector<double> partial(static_cast<size_t>(G * D)), sq(static_cast<size_t>(G), 0.0);
  std::vector<double> w(static_cast<size_t>(D), 0.0), wsum(w), gsum(w), g(w), norms(static_cast<size_t>(m)),
      scale(static_cast<size_t>(m));
  std::vector<double> fX(static_cast<size_t>(n), 0.0), fsum(fX), alpha(fX), beta(fX), asum(fX), tmp(fX), coefs(fX);
  std::vector<int64_t> idx;
  auto block = [&](int64_t j) { return std::pair<int64_t, int64_t>{map.offset(j), j + 1 < m ? map.offset(j + 1) : D}; };

  // pass 0: map (and cache) every row once, sum ||phi(x_i)||^2 per group for the step's bound
  rows.for_each([&](int64_t grp, int64_t lo, int64_t hi, const T* r) {
    double s = 0.0;
    for (int64_t k = 0; k < (hi - lo) * D; ++k) s += static_cast<double>(r[k]) * static_cast<double>(r[k]);
    sq[static_cast<size_t>(grp)] += s;
  }, true);
  MklResult res;
  const double gamma = detail::step_size(
      opt, [&] {
        double fro = 0.0;
        for (double v : sq) fro += v;
        return std::sqrt(fro) / n_eff;
      },
      "mkl::solve_blocks: every feature is zero");
  res.step = gamma;
  const double s = gamma / n_eff;
  const double c_prox = gamma * opt.alpha;

  // g = Phi^T (v o y): per group partial sums, added in group order
  auto gradient = [&](const std::vector<double>& v) {
    std::fill(partial.begin(), partial.end(), 0.0);
    rows.for_each([&](int64_t grp, int64_t lo, int64_t hi, const T* r) {
      double* acc = partial.data() + grp * D;
      for (int64_t i = lo; i < hi; ++i) {
        const double u = v[static_cast<size_t>(i)] * y[i];
        if (u == 0.0) continue;
        const T* ri = r + (i - lo) * D;
        for (int64_t k = 0; k < D; ++k) acc[k] += u * static_cast<double>(ri[k]);
      }
    });
    std::fill(g.begin(), g.end(), 0.0);
    for (int64_t grp = 0; grp < G; ++grp) {
      const double* acc = partial.data() + grp * D;
      for (int64_t k = 0; k < D; ++k) g[static_cast<size_t>(k)] += acc[k];
    }
  };
  // fX = Phi w
  auto scores = [&]() {
    rows.for_each([&](int64_t, int64_t lo, int64_t hi, const T* r) {
      for (int64_t i = lo; i < hi; ++i) {
        const T* ri = r + (i - lo) * D;
        double acc = 0.0;
        for (int64_t k = 0; k < D; ++k) acc += static_cast<double>(ri[k]) * w[static_cast<size_t>(k)];
        fX[static_cast<size_t>(i)] = acc;
      }
    });
  };
  auto ascent = [&](const std::vector<double>& from, std::vector<double>& to) {
    for (int64_t i = 0; i < n; ++i) tmp[static_cast<size_t>(i)] = from[static_cast<size_t>(i)] + s * (1.0 - y[i] * fX[static_cast<size_t>(i)]);
    project_capped_simplex(tmp.data(), n, opt.upper, sample_weight, opt.rho, to.data());
  };
  // Lemma 3 on what = w + s g, block by block; then wsum += w
  auto composite = [&]() {
    for (int64_t j = 0; j < m; ++j) {
      const auto [a, b] = block(j);
      double q = 0.0;
      for (int64_t k = a; k < b; ++k) {
        const double v = w[static_cast<size_t>(k)] + s * g[static_cast<size_t>(k)];
        w[static_cast<size_t>(k)] = v;
        q += v * v;
      }
      norms[static_cast<size_t>(j)] = std::sqrt(q);
    }
    group_lasso_squared_prox(norms.data(), m, c_prox, scale.data());
    for (int64_t j = 0; j < m; ++j) {
      const auto [a, b] = block(j);
      for (int64_t k = a; k < b; ++k) {
        w[static_cast<size_t>(k)] *= scale[static_cast<size_t>(j)];
        wsum[static_cast<size_t>(k)] += w[static_cast<size_t>(k)];
      }
    }
  };
  auto averages = [&](double inv_t) {
    for (int64_t k = 0; k < D; ++k) w_out[k] = wsum[static_cast<size_t>(k)] * inv_t;
    for (int64_t i = 0; i < n; ++i) dual[i] = asum[static_cast<size_t>(i)] * inv_t;
  };

  const auto t0 = std::chrono::steady_clock::now();
  detail::run_iterations(
      opt, progress, res,
      [&](int64_t t, double inv_t) {
        detail::saddle_step(
            opt.method, alpha, beta, ascent,
            [&](const std::vector<double>& v) {
              gradient(v);
              for (int64_t i = 0; i < n; ++i) asum[static_cast<size_t>(i)] += v[static_cast<size_t>(i)];
            },
            [&] {
              composite();
              scores();
            });
        for (int64_t k = 0; k < D; ++k) gsum[static_cast<size_t>(k)] += g[static_cast<size_t>(k)];
        for (int64_t i = 0; i < n; ++i) fsum[static_cast<size_t>(i)] += fX[static_cast<size_t>(i)];
        // duality gap at the averages (mkl.hpp): P(wbar) = R(wbar) + max_Q (1/n) sum alpha_i (1 - y_i fbar_i),
        // D(alphabar) = (1/n) sum alphabar - max_j ||Phi_j^T (alphabar o y)||^2 / (2 lambda n^2)
        double normsum = 0.0, qmax = 0.0;
        for (int64_t j = 0; j < m; ++j) {
          const auto [a, b] = block(j);
          double qw = 0.0, qg = 0.0;
          for (int64_t k = a; k < b; ++k) {
            qw += wsum[static_cast<size_t>(k)] * wsum[static_cast<size_t>(k)];
            qg += gsum[static_cast<size_t>(k)] * gsum[static_cast<size_t>(k)];
          }
          normsum += std::sqrt(qw) * inv_t;
          qmax = std::max(qmax, qg * inv_t * inv_t);
        }
        double atot = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          coefs[static_cast<size_t>(i)] = (1.0 - y[i] * fsum[static_cast<size_t>(i)] * inv_t) / n_eff;
          atot += asum[static_cast<size_t>(i)];
        }
        return detail::record_gap(res, opt, t, normsum, qmax, atot, inv_t, coefs, sample_weight, n_eff, idx,
                                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      },
      averages);
  averages(1.0 / std::max(res.n_iter, 1.0));
  return res;
}

}  // namespace mkl
}  // namespace robustcore
