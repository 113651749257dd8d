// Sampling for every stochastic loop: where the sample indices of a pass come from, and the look-ahead
// prefetch of the rows and per-sample arrays they point to.
//
// Sampler is the one source of random indices: the seeded Rng, or an injected flat int64 sequence
// consumed draw by draw (the oracle tests replay the same draws in NumPy). Every draw kind consumes
// injected values the same way: below(n) one value in [0, n); geometric(m, q) one value in [0, m);
// permutation(n) n values forming a permutation; draws(n, count) count values in [0, n); an SGD epoch
// (PassOrder with an injected sequence) n values in [0, n).
// PassOrder gives the order of one pass over n rows under a Shuffle mode: in order, a uniform
// permutation, or block shuffled (BlockShuffledRows: a one-time copy of the rows in random order, then
// random blocks of consecutive copied rows).
// A sum-tree (or any other) index source plugs into the loops the same way: a source with
// `int64_t below(int64_t n)`-style draws filling an index array for the pass, after which the loop
// prefetches through prefetch_ahead / prefetch_samples on that array.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data.hpp"
#include "rng.hpp"

namespace robustcore {

/// Sample order of each pass. Exact: a fresh uniform permutation every pass (rows are read in random
/// order; on large data each row is a cache miss). Block: the rows are copied once, in a random order,
/// into an owned buffer (one extra copy of X); every pass then visits blocks of about 32 KiB of
/// consecutive rows in a random block order, and the rows of a block in a random order. Not a uniform
/// permutation, but reads memory in contiguous chunks (see bench/README.md for what it buys).
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
      throw std::invalid_argument("injected order index " + std::to_string(v) + " out of range [0, " + std::to_string(n) + ")");
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
/// it, 3.1-3.5x without; bench/README.md).
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

/// Shuffle::Block: the rows of X (with their labels and weights) copied once into a random order, and
/// each pass's order over the copy: blocks [b*block, (b+1)*block) of consecutive rows in a random
/// order, the rows of each block in a random order. The default block holds about 32 KiB of rows.
template <class Data, class Label = double>
struct BlockShuffledRows {
  std::vector<int64_t> perm;  ///< source row of each copied row (then reused for the pass orders)
  RowCopy<Data> copy;
  Data view;
  std::vector<Label> y;
  std::vector<double> sw;
  int64_t block = 1;
  std::vector<int64_t> blocks;

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
    blocks.resize(static_cast<size_t>((n + block - 1) / block));
    for (size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int64_t>(b);
  }
  const double* weights() const { return sw.empty() ? nullptr : sw.data(); }

  /// Writes this pass's order (a permutation of the copied rows) into perm and returns it.
  const int64_t* pass_order(Rng& rng) { return block_shuffle_order(view.rows(), block, blocks, rng, perm.data()); }

  static std::vector<int64_t> shuffled_identity(int64_t n, Rng& rng) {
    std::vector<int64_t> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
    rng.shuffle(p.data(), n);
    return p;
  }
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
};

/// The rows a loop reads and the order of each pass over them: X itself in order, in a uniform
/// permutation (shuffled in place from the previous pass's order), or (Shuffle::Block) a copy of X in a
/// random row order visited in random blocks; with an injected sequence each pass takes the next n
/// values of it. rows(), labels() and weights() are what the steps index with the returned order.
template <class Data, class Label = double>
class PassOrder {
 public:
  PassOrder(const Data& X, const Label* y, const double* sw, Shuffle mode, int64_t block_rows, Sampler& src)
      : X_(X), y_(y), sw_(sw), mode_(mode), src_(src), perm_(static_cast<size_t>(X.rows())) {
    for (int64_t i = 0; i < X.rows(); ++i) perm_[static_cast<size_t>(i)] = i;
    if (mode == Shuffle::Block && !src.injected())
      blk_ = std::make_unique<BlockShuffledRows<Data, Label>>(X, y, sw, block_rows, src.rng());
  }
  const Data& rows() const { return blk_ ? blk_->view : X_; }
  const Label* labels() const { return blk_ ? blk_->y.data() : y_; }
  const double* weights() const { return blk_ ? blk_->weights() : sw_; }
  /// The order of the next pass (n indices into rows()).
  const int64_t* next() {
    const int64_t n = X_.rows();
    if (src_.injected()) {
      for (int64_t k = 0; k < n; ++k) perm_[static_cast<size_t>(k)] = src_.below(n);
    } else if (blk_) {
      return blk_->pass_order(src_.rng());
    } else if (mode_ == Shuffle::Exact) {
      src_.rng().shuffle(perm_.data(), n);
    }
    return perm_.data();
  }

 private:
  const Data& X_;
  const Label* y_;
  const double* sw_;
  Shuffle mode_;
  Sampler& src_;
  std::vector<int64_t> perm_;
  std::unique_ptr<BlockShuffledRows<Data, Label>> blk_;
};

}  // namespace robustcore
