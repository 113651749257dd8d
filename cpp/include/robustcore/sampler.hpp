// Sampling for every stochastic loop: where the sample indices of a pass come from, and the look-ahead
// prefetch of the rows and per-sample arrays they point to.
//
// Sampler is the one source of random indices: the seeded Rng, or an injected flat int64 sequence
// consumed draw by draw (the oracle tests replay the same draws in NumPy). Every draw kind consumes
// injected values the same way: below(n) one value in [0, n); geometric(m, q) one value in [0, m);
// permutation(n) n values forming a permutation; draws(n, count) count values in [0, n); an SGD epoch
// (PassOrder with an injected sequence) n values in [0, n).
// PassOrder gives the indices of one pass under a Shuffle mode: the loop's own draws (Draw: with
// replacement, a fresh permutation, or a reshuffle of the previous order), in order, or block shuffled
// over SampledRows' one-time copy of the rows in random order.
// Every loop consumes a pass as an index array and prefetches ahead on it (prefetch_ahead /
// prefetch_samples), so another index source -- e.g. FOL's sum tree, whose draws depend on losses
// updated step by step -- plugs in as a source of the next index array (or of a short look-ahead window
// of it) without touching the loop body.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "data.hpp"
#include "rng.hpp"

namespace robustcore {

/// Sample order of each pass. Exact: a fresh uniform permutation every pass (rows are read in random
/// order; on large data each row is a cache miss). Block: the rows are copied once, in a random order,
/// into an owned buffer (one extra copy of X); every pass then visits blocks of about 32 KiB of
/// consecutive rows in a random block order, and the rows of a block in a random order. Not a uniform
/// permutation, but reads memory in contiguous chunks (docs/benchmarks/sgd.md, "SGD fits over sparse data", for what it buys).
enum class Shuffle : int { None = 0, Exact = 1, Block = 2 };

class Sampler {
 public:
  explicit Sampler(uint64_t seed, const int64_t* injected = nullptr, int64_t len = 0)
      : rng_(seed), inj_(injected), len_(len) {}
  bool injected() const { return inj_ != nullptr; }
  Rng& rng() { return rng_; }
  int64_t below(int64_t n) {
    if (!inj_) return static_cast<int64_t>(rng_.below(static_cast<uint64_t>(n)));
    return take(n);
  }
  /// count x below(n) into out.
  void draws(int64_t n, int64_t count, std::vector<int64_t>& out) {
    out.resize(static_cast<size_t>(count));
    for (int64_t t = 0; t < count; ++t) out[static_cast<size_t>(t)] = below(n);
  }
  /// t in [0, m) with P(t) proportional to q^(m-1-t) (S2GD's geometric choice of the inner iterate).
  int64_t geometric(int64_t m, double q) {
    if (inj_) return take(m);
    if (!(q < 1.0) || q <= 0.0) return static_cast<int64_t>(rng_.below(static_cast<uint64_t>(m)));
    // inverse CDF on the reversed index r = m-1-t, P(r) ~ q^r, truncated at m
    const double u = rng_.uniform();
    const double total = -std::expm1(static_cast<double>(m) * std::log(q));  // 1 - q^m
    const double r = std::floor(std::log1p(-u * total) / std::log(q));
    const int64_t ri = std::min<int64_t>(m - 1, std::max<int64_t>(0, static_cast<int64_t>(r)));
    return m - 1 - ri;
  }
  /// A fresh permutation of 0..n-1 (Fisher-Yates on the Rng; with injection the next n values, checked).
  void permutation(int64_t n, std::vector<int64_t>& out) {
    out.resize(static_cast<size_t>(n));
    if (!inj_) {
      for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
      rng_.shuffle(out.data(), n);
      return;
    }
    std::vector<char> seen(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = take(n);
      if (seen[static_cast<size_t>(v)]) throw std::invalid_argument("injected index sequence: a permutation repeats an index");
      seen[static_cast<size_t>(v)] = 1;
      out[static_cast<size_t>(i)] = v;
    }
  }
  int64_t used() const { return pos_; }

 private:
  int64_t take(int64_t n) {
    if (pos_ >= len_)
      throw std::invalid_argument("injected index sequence too short (" + std::to_string(len_) + " values)");
    const int64_t v = inj_[pos_++];
    if (v < 0 || v >= n)
      throw std::invalid_argument("injected index sequence: order index " + std::to_string(v) + " out of range [0, " +
                                  std::to_string(n) + ")");
    return v;
  }
  Rng rng_;
  const int64_t* inj_;
  int64_t len_;
  int64_t pos_ = 0;
};

/// How far ahead (in samples) shuffled passes prefetch rows: prefetch_row(idx[k + kPrefetchAhead]) and
/// prefetch_pointer(idx[k + 2 kPrefetchAhead]) at step k. Hides the memory latency of random row
/// access (measured on a 96 MB CSR matrix: an exact-shuffle SGD epoch costs 1.7-2.2x an in-order one with
/// it, 3.1-3.5x without; docs/benchmarks/sgd.md, "the row prefetch was compiled out, and the fix").
constexpr int64_t kPrefetchAhead = 16;

template <class Data>
inline void prefetch_ahead(const Data& X, const int64_t* idx, int64_t k, int64_t n) {
  if (k + 2 * kPrefetchAhead < n) X.prefetch_pointer(idx[k + 2 * kPrefetchAhead]);
  if (k + kPrefetchAhead < n) X.prefetch_row(idx[k + kPrefetchAhead]);
}

/// Prefetch entry idx[k + kPrefetchAhead] of per-sample arrays (labels, weights, gradient tables; null
/// pointers skipped): in a shuffled pass these are random reads too. `stride` is the number of entries
/// per sample of a table (K for the softmax model's per-sample gradients).
template <class... T>
inline void prefetch_samples(const int64_t* idx, int64_t k, int64_t n, const T*... arrays) {
  if (k + kPrefetchAhead >= n) return;
  const int64_t i = idx[k + kPrefetchAhead];
  ((arrays ? prefetch_hint(arrays + i) : void()), ...);
}
inline void prefetch_table(const int64_t* idx, int64_t k, int64_t n, const double* table, int64_t stride) {
  if (k + kPrefetchAhead < n) prefetch_hint(table + idx[k + kPrefetchAhead] * stride);
}

/// How a loop draws the indices of a pass under Shuffle::Exact (its published sampling).
enum class Draw : int {
  WithReplacement = 0,  ///< count x below(n) (SAG, SAGA, the SVRG family's inner loops, VR-Lite's first pass)
  Permutation = 1,      ///< a fresh uniform permutation of 0..n-1 (Finito, VR-Lite's later passes, plain SGD)
  Reshuffle = 2,        ///< the previous pass's order shuffled in place (sgd.hpp's epochs)
};

/// Shuffle::Block: the rows of X (with their labels and weights) copied once into a random order (the
/// Rng's first draws). The default block holds about 32 KiB of rows.
template <class Data, class Label = double>
struct BlockShuffledRows {
  std::vector<int64_t> perm;  ///< source row of each copied row
  RowCopy<Data> copy;
  Data view;
  std::vector<Label> y;
  std::vector<double> sw;
  int64_t block = 1;

  BlockShuffledRows(const Data& X, const Label* y_src, const double* sw_src, int64_t block_rows, Rng& rng)
      : perm(shuffled_identity(X.rows(), rng)), copy(X, perm.data()), view(copy.view()) {
    const int64_t n = X.rows();
    y.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) y[static_cast<size_t>(k)] = y_src[perm[static_cast<size_t>(k)]];
    if (sw_src) {
      sw.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) sw[static_cast<size_t>(k)] = sw_src[perm[static_cast<size_t>(k)]];
    }
    block = block_rows > 0 ? block_rows : std::max<int64_t>(8, (int64_t{1} << 15) / copy.bytes_per_row());
  }
  static std::vector<int64_t> shuffled_identity(int64_t n, Rng& rng) {
    std::vector<int64_t> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
    rng.shuffle(p.data(), n);
    return p;
  }
};

/// The rows SGD's loop reads (sgd_fit, the one solver that block shuffles): X itself with its labels and
/// weights, or (Shuffle::Block without an injected sequence) a block-shuffled copy of them (RowCopy: a view
/// of stored rows; the fused path, whose rows are computed, refuses Shuffle::Block in fused_sgd_fit). The
/// loop's indices (PassOrder) index these rows.
template <class Data, class Label = double>
class SampledRows {
 public:
  SampledRows(const Data& X, const Label* y, const double* sw, Shuffle mode, int64_t block_rows, Sampler& src)
      : X_(X), y_(y), sw_(sw) {
    if (mode == Shuffle::Block && !src.injected())
      blk_ = std::make_unique<BlockShuffledRows<Data, Label>>(X, y, sw, block_rows, src.rng());
  }
  const Data& rows() const { return blk_ ? blk_->view : X_; }
  const Label* labels() const { return blk_ ? blk_->y.data() : y_; }
  const double* weights() const { return blk_ ? (blk_->sw.empty() ? nullptr : blk_->sw.data()) : sw_; }
  /// rows per block of the block-shuffled pass order (1 when not block shuffled)
  int64_t block() const { return blk_ ? blk_->block : 1; }

 private:
  const Data& X_;
  const Label* y_;
  const double* sw_;
  std::unique_ptr<BlockShuffledRows<Data, Label>> blk_;
};

/// The indices of each pass over n rows, by Shuffle mode: Exact draws as the loop asks (Draw); None
/// visits the rows in order (cyclically); Block visits blocks [b*block, (b+1)*block) of consecutive rows in a
/// random block order, the rows of each block in a random order (over SampledRows' shuffled copy). With an
/// injected sequence (Sampler) every mode takes its indices from it: a Permutation takes n values forming
/// a permutation, the other draws count values in [0, n).
class PassOrder {
 public:
  PassOrder(int64_t n, Shuffle mode, int64_t block, Sampler& src)
      : n_(n), mode_(mode), block_(std::max<int64_t>(1, block)), src_(src), order_(static_cast<size_t>(n)) {
    for (int64_t i = 0; i < n; ++i) order_[static_cast<size_t>(i)] = i;
    if (mode == Shuffle::Block) {
      blocks_.resize(static_cast<size_t>((n + block_ - 1) / block_));
      for (size_t b = 0; b < blocks_.size(); ++b) blocks_[b] = static_cast<int64_t>(b);
    }
  }
  Sampler& sampler() { return src_; }
  /// The next `count` indices (count = n for a Permutation or a Reshuffle).
  const int64_t* next(Draw kind, int64_t count) {
    if (src_.injected() || mode_ == Shuffle::Exact) {
      if (kind == Draw::Permutation) {
        src_.permutation(n_, order_);
      } else if (kind == Draw::Reshuffle && !src_.injected()) {
        src_.rng().shuffle(order_.data(), n_);
      } else {
        src_.draws(n_, count, order_);
      }
      return order_.data();
    }
    out_.resize(static_cast<size_t>(count));
    for (int64_t t = 0; t < count; t += n_) {  // whole passes, the last one cut at count
      const int64_t* pass = order_.data();
      if (mode_ == Shuffle::Block) pass = block_shuffle_order(n_, block_, blocks_, src_.rng(), order_.data());
      std::copy(pass, pass + std::min(n_, count - t), out_.begin() + t);
    }
    return out_.data();
  }
  /// A block-shuffled order of 0..n-1 into out: the blocks in a random order, each block's rows in a
  /// random order.
  static const int64_t* block_shuffle_order(int64_t n, int64_t block, std::vector<int64_t>& blocks, Rng& rng,
                                            int64_t* out) {
    rng.shuffle(blocks.data(), static_cast<int64_t>(blocks.size()));
    int64_t k = 0;
    for (const int64_t bl : blocks) {
      const int64_t lo = bl * block, hi = std::min(n, lo + block);
      for (int64_t i = lo; i < hi; ++i) out[k + i - lo] = i;
      rng.shuffle(out + k, hi - lo);
      k += hi - lo;
    }
    return out;
  }

 private:
  int64_t n_;
  Shuffle mode_;
  int64_t block_;
  Sampler& src_;
  std::vector<int64_t> order_, out_, blocks_;
};

}  // namespace robustcore
