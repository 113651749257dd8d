// Sum tree: the p-player's sampler of Focused Online Learning (FOL paper, section 2.3, "Tree").
//
// Holds m non-negative leaf weights v_1..v_m and q_i = v_i / sum_j v_j. Operations:
//   sample(gamma, rng) -> (i, p_i)  with probability gamma draw i uniformly from [m], otherwise descend
//                                   the tree choosing children in proportion to their sums; returns
//                                   p_i = gamma/m + (1 - gamma) q_i exactly as the paper defines it
//                                   (the probability of i under the mixture, whichever branch was taken)
//   update(i, f)                    v_i <- f v_i (multiplicative, f > 0 finite)
//   update_log(i, log_f)            the same with f = exp(log_f), safe for any finite log_f
//   total(), leaf(i), q(i), rebuild()
// Sample and update are O(log_B m). The loops (fol.hpp, adaboost.hpp) check their gamma and indices once up front;
// SeededSumTree wraps a tree with its own generator and checks every argument, for callers that drive
// the sampler step by step (the Python learner protocol of robustcore.fol).
//
// Layout: a B-ary tree (B = 8 by default: the children of a node are one 64-byte cache line) stored
// level by level in one flat array, leaves first, every level padded with zeros to a multiple of B.
// Any m >= 1 works (no power-of-two padding of the leaf count).
//
// Numerical robustness over billions of multiplicative updates:
//   * No drift. update() does not add a delta along the path; it recomputes each ancestor as the sum of
//     its B children (one cache line). Every internal node therefore always equals exactly what
//     rebuild() would compute from the current leaves, bit for bit, however many updates happened.
//   * No overflow/underflow. q is invariant to a common scale, so when the total would leave
//     [2^-kRescaleExp, 2^kRescaleExp] every leaf is multiplied by the same power of two (exact in binary
//     floating point), positive leaves below 2^-800 * total are raised to that floor (so a leaf can always come
//     back: a leaf that underflowed to zero could never grow again under multiplicative updates;
//     leaves set to exactly 0 by the caller stay 0), and the tree is rebuilt.
//     The floor bounds q_i from below by about 2^-800, far below anything a sampler can observe.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "huge_pages.hpp"
#include "rng.hpp"

// The per-node loops run over a compile-time B: unrolled fully, so the children stay in registers.
#if defined(__clang__)
#define RC_SUM_TREE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define RC_SUM_TREE_UNROLL _Pragma("GCC unroll 64")
#else
#define RC_SUM_TREE_UNROLL
#endif

namespace robustcore {

template <int B = 8>
class BasicSumTree {
  static_assert(B >= 2 && B <= 64, "fan-out must be in [2, 64]");

 public:
  static constexpr int kFanout = B;
  /// Rescale when the total leaves [2^-kRescaleExp, 2^kRescaleExp].
  static constexpr int kRescaleExp = 512;
  /// Relative floor for leaves, applied at each rescale: v_i >= 2^-800 * total.
  static constexpr double kFloorRel = 0x1.0p-800;

  BasicSumTree() = default;
  /// m leaves, all equal to 1 (the paper's initialize(m)).
  explicit BasicSumTree(int64_t m) { initialize(m); }
  /// Leaves set to the given non-negative finite weights (at least one positive).
  BasicSumTree(const double* weights, int64_t m) { assign(weights, m); }

  void initialize(int64_t m) {
    layout(m);
    std::fill(a_.begin(), a_.begin() + m_, 1.0);
    rebuild();
  }

  void assign(const double* weights, int64_t m) {
    layout(m);
    for (int64_t i = 0; i < m; ++i) {
      const double w = weights[i];
      if (!(w >= 0.0) || !std::isfinite(w))
        throw std::invalid_argument("sum tree: weights must be finite and >= 0 (weight " + std::to_string(i) +
                                    " is " + std::to_string(w) + ")");
      a_[i] = w;
    }
    // weights whose sum overflows (e.g. two of 1e308): one power-of-two scale first (q is scale-free)
    const double wmax = *std::max_element(a_.begin(), a_.begin() + m_);
    if (wmax > 0.0 && std::ilogb(wmax) > kRescaleExp)
      for (int64_t i = 0; i < m_; ++i) a_[i] = std::ldexp(a_[i], -std::ilogb(wmax));
    rebuild();
    if (!(total() > 0.0)) throw std::invalid_argument("sum tree: at least one weight must be positive");
    if (!std::isfinite(total()) || std::ilogb(total()) > kRescaleExp || std::ilogb(total()) < -kRescaleExp)
      renormalise();
  }

  int64_t size() const { return m_; }
  double total() const { return a_[root_]; }
  double leaf(int64_t i) const { return a_[i]; }
  double q(int64_t i) const { return a_[i] / a_[root_]; }
  /// p_i = gamma/m + (1 - gamma) q_i.
  double prob(int64_t i, double gamma) const { return gamma / static_cast<double>(m_) + (1.0 - gamma) * q(i); }
  /// Number of rescales done so far (for tests and diagnostics).
  int64_t rescales() const { return rescales_; }

  /// Recomputes every internal node from the leaves, O(m).
  void rebuild() {
    for (size_t l = 1; l < off_.size(); ++l) {
      const int64_t nodes = len_[l];
      const double* c = a_.data() + off_[l - 1];
      double* p = a_.data() + off_[l];
      for (int64_t j = 0; j < nodes; ++j) p[j] = block_sum(c + j * B);
    }
  }

  /// The paper's sample(gamma). Draws one uniform for the branch and one for the index.
  std::pair<int64_t, double> sample(double gamma, Rng& rng) const {
    int64_t i;
    if (rng.uniform() < gamma) {
      i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(m_)));
    } else {
      i = descend(rng.uniform());
    }
    return {i, prob(i, gamma)};
  }

  /// Index drawn from q (gamma = 0) given a uniform u in [0, 1): the leaf i with
  /// sum_{j<i} v_j <= u * total < sum_{j<=i} v_j (up to rounding), a zero leaf never.
  int64_t descend(double u) const {
    double target = u * a_[root_];
    int64_t node = 0;  // index within the current level
    for (int l = static_cast<int>(off_.size()) - 2; l >= 0; --l) {
      const double* c = a_.data() + off_[l] + node * B;
      // Branch-free choice among the B children (a data-dependent early exit mispredicted once per
      // level): k = #{j < B - 1 : p_j <= target} over the inclusive prefix sums p_j, so a zero child
      // (p_j = p_{j-1}) is never chosen except as the last one, which only rounding reaches (target at
      // or past the children's sum): then the last positive child is taken.
      double p[B];
      prefix_sums(c, p);
      int k = 0;
      RC_SUM_TREE_UNROLL
      for (int j = 0; j < B - 1; ++j) k += p[j] <= target;
      if (k > 0) target -= p[k - 1];
      if (c[k] == 0.0) {
        k = B - 1;
        while (k > 0 && !(c[k] > 0.0)) --k;
      }
      node = node * B + k;
    }
    return node;
  }

  /// v_i <- f v_i for a finite f > 0; O(log_B m).
  void update(int64_t i, double f) {
    if (!(f > 0.0) || !std::isfinite(f))
      throw std::invalid_argument("sum tree: update factor must be finite and > 0");
    double v = a_[i] * f;
    if (!(v <= kHigh) || (v < kLow && v < a_[i])) {
      // Out of the safe range: apply the factor through the log domain with a rescale.
      update_log(i, std::log(f));
      return;
    }
    set_leaf(i, v);
  }

  /// v_i <- exp(log_f) v_i for any finite log_f (huge factors included).
  void update_log(int64_t i, double log_f) {
    if (!std::isfinite(log_f)) throw std::invalid_argument("sum tree: log factor must be finite");
    if (log_f > -300.0 && log_f < 300.0) {
      const double v = a_[i] * std::exp(log_f);
      if (v <= kHigh && v >= kLow) return set_leaf(i, v);
    } else if (a_[i] > 0.0) {  // a huge factor on a leaf that stays in range: O(log m), no rebuild
      const double li = std::log(a_[i]) + log_f;
      if (li <= kLogHigh && li >= -kLogHigh) return set_leaf(i, std::exp(li));
    }
    // General case: log-domain rescale. Scale every leaf so that the new total is ~1: the new leaf i is
    // exp(log v_i + log_f - log S'), the others v_j / S', where S' = sum_{j != i} v_j + v_i exp(log_f)
    // computed in the log domain.
    const double li = std::log(a_[i]) + log_f;
    const double rest = a_[root_] - a_[i];
    const double lrest = rest > 0.0 ? std::log(rest) : -INFINITY;
    const double mx = std::max(li, lrest);
    const double ls = mx + std::log(std::exp(li - mx) + (rest > 0.0 ? std::exp(lrest - mx) : 0.0));
    const double scale_rest = std::exp(-ls);  // may underflow to 0; the floor below handles it
    const double fl = kFloorRel;
    for (int64_t j = 0; j < m_; ++j)
      if (a_[j] > 0.0) a_[j] = std::max(a_[j] * scale_rest, fl);
    a_[i] = std::max(std::exp(li - ls), a_[i] > 0.0 ? fl : 0.0);
    rebuild();
    ++rescales_;
    since_rescale_ = 0;
  }

  /// Multiplies all leaves by a power of two so the total is in [1, 2), applies the floor, rebuilds.
  void renormalise() {
    const double t = a_[root_];
    const int e = std::ilogb(t);
    const double fl = kFloorRel * std::ldexp(t, -e);
    for (int64_t j = 0; j < m_; ++j)
      if (a_[j] > 0.0) a_[j] = std::max(std::ldexp(a_[j], -e), fl);
    rebuild();
    ++rescales_;
    since_rescale_ = 0;
  }

 private:
  static constexpr double kHigh = 0x1.0p+900;
  static constexpr double kLow = 0x1.0p-900;
  static constexpr double kLogHigh = 900 * 0.6931471805599453;  // log(kHigh)
  static constexpr double kTotalHigh = 0x1.0p+513;  // = 2^(kRescaleExp + 1)
  static constexpr double kTotalLow = 0x1.0p-512;   // = 2^-kRescaleExp
  static_assert(kRescaleExp == 512, "kTotalHigh / kTotalLow follow kRescaleExp");
  static constexpr double kWideHigh = 0x1.0p+1000;  // set_leaf's hysteresis range
  static constexpr double kWideLow = 0x1.0p-1000;

  /// The sum of B children, pairwise ((c0 + c1) + (c2 + c3)) + ...: an update's walk up the tree is a
  /// chain of these, and the pairwise order makes each link log2(B) additions deep instead of B - 1.
  /// rebuild() uses the same order, so every node is always exactly what a rebuild computes.
  static double block_sum(const double* c) {
    double t[B];
    RC_SUM_TREE_UNROLL
    for (int k = 0; k < B; ++k) t[k] = c[k];
    RC_SUM_TREE_UNROLL
    for (int w = B; w > 1; w = (w + 1) / 2) {
      // no pragma here: the bound is constant only once the outer loop is unrolled (an unoptimised
      // build would warn that it ignores it); the optimiser then peels these few iterations itself
      for (int k = 0; k < w / 2; ++k) t[k] = t[2 * k] + t[2 * k + 1];
      if (w % 2) t[w / 2] = t[w - 1];
    }
    return t[0];
  }
  /// Inclusive prefix sums p_j = c_0 + ... + c_j for the descent's comparisons, log-depth
  /// (Kogge-Stone: strides 1, 2, 4, ...), so each level of the descent waits log2(B) additions, not B - 1.
  static void prefix_sums(const double* c, double* p) {
    double q[B];
    RC_SUM_TREE_UNROLL
    for (int k = 0; k < B; ++k) p[k] = c[k];
    RC_SUM_TREE_UNROLL
    for (int stride = 1; stride < B; stride *= 2) {
      RC_SUM_TREE_UNROLL
      for (int k = 0; k < B; ++k) q[k] = k >= stride ? p[k] + p[k - stride] : p[k];
      RC_SUM_TREE_UNROLL
      for (int k = 0; k < B; ++k) p[k] = q[k];
    }
  }

  /// v_i <- v (in the safe range), O(log m); rescales when the total leaves its range.
  void set_leaf(int64_t i, double v) {
    a_[i] = v;
    propagate(i);
    // the total outside [2^-kRescaleExp, 2^(kRescaleExp + 1)): ilogb(total) outside +-kRescaleExp.
    // Hysteresis: an O(m) renormalise follows at least m updates after the previous rescale, unless the
    // total leaves the wide range [2^-1000, 2^1000) (a leaf stays within [2^-900, 2^900], so the total
    // of m < 2^100 leaves cannot pass 2^1000 in one update from [1, 2)): factors that alternate across
    // the threshold cost O(log m) amortised, not a rebuild each.
    ++since_rescale_;
    const double t = a_[root_];
    if (!(t < kTotalHigh && t >= kTotalLow) && (since_rescale_ >= m_ || !(t < kWideHigh && t >= kWideLow)))
      renormalise();
  }
  void propagate(int64_t i) {
    int64_t node = i;
    for (size_t l = 1; l < off_.size(); ++l) {
      node /= B;
      a_[off_[l] + node] = block_sum(a_.data() + off_[l - 1] + node * B);
    }
  }

  void layout(int64_t m) {
    if (m < 1) throw std::invalid_argument("sum tree: need at least one leaf (m >= 1)");
    m_ = m;
    off_.clear();
    len_.clear();
    int64_t n = m, total = 0;
    // Level l holds len_[l] nodes padded to a multiple of B (except the root level).
    while (true) {
      const int64_t padded = n == 1 ? 1 : (n + B - 1) / B * B;
      off_.push_back(total);
      len_.push_back(n);
      total += padded;
      if (n == 1) break;
      n = (n + B - 1) / B;
    }
    a_.assign(static_cast<size_t>(total), 0.0);
    root_ = off_.back();
    rescales_ = 0;
    since_rescale_ = 0;
  }

  HugeVector<double> a_;  // on 2 MiB pages from 4 MiB (m >= ~450k): a descent then misses no TLB
  std::vector<int64_t> off_, len_;
  int64_t m_ = 0, root_ = 0, rescales_ = 0, since_rescale_ = 0;
};

using SumTree = BasicSumTree<8>;

/// A SumTree with its own seeded generator, every index and gamma checked (std::invalid_argument).
class SeededSumTree {
 public:
  SeededSumTree(int64_t m, uint64_t seed) : tree_(m), rng_(seed) {}
  SeededSumTree(const double* weights, int64_t m, uint64_t seed) : tree_(weights, m), rng_(seed) {}

  const SumTree& tree() const { return tree_; }
  int64_t size() const { return tree_.size(); }
  double leaf(int64_t i) const { return tree_.leaf(index(i)); }
  double q(int64_t i) const { return tree_.q(index(i)); }
  double prob(int64_t i, double gamma) const { return tree_.prob(index(i), check_gamma(gamma)); }
  /// The m leaf weights into out.
  void leaves(double* out) const {
    for (int64_t i = 0; i < tree_.size(); ++i) out[i] = tree_.leaf(i);
  }
  std::pair<int64_t, double> sample(double gamma) { return tree_.sample(check_gamma(gamma), rng_); }
  /// n draws of sample(gamma) into idx and p.
  void sample_batch(double gamma, int64_t* idx, double* p, int64_t n) {
    check_gamma(gamma);
    for (int64_t j = 0; j < n; ++j) {
      const auto r = tree_.sample(gamma, rng_);
      idx[j] = r.first;
      p[j] = r.second;
    }
  }
  int64_t descend(double u) const {
    if (!(u >= 0.0 && u < 1.0)) throw std::invalid_argument("u must be in [0, 1)");
    return tree_.descend(u);
  }
  void update(int64_t i, double f) { tree_.update(index(i), f); }
  void update_log(int64_t i, double log_f) { tree_.update_log(index(i), log_f); }
  /// v_i <- v_i exp(log_f) for each pair, in order; every index and factor is checked before any update.
  void update_batch_log(const int64_t* idx, const double* log_f, int64_t n) {
    for (int64_t j = 0; j < n; ++j) {
      index(idx[j]);
      if (!std::isfinite(log_f[j])) throw std::invalid_argument("sum tree: log factor must be finite");
    }
    for (int64_t j = 0; j < n; ++j) tree_.update_log(idx[j], log_f[j]);
  }
  void rebuild() { tree_.rebuild(); }

  static double check_gamma(double gamma) {
    if (!(gamma >= 0.0 && gamma <= 1.0)) throw std::invalid_argument("gamma must be in [0, 1]");
    return gamma;
  }

 private:
  int64_t index(int64_t i) const {
    if (i < 0 || i >= tree_.size())
      throw std::invalid_argument("index " + std::to_string(i) + " out of range [0, " + std::to_string(tree_.size()) +
                                  ")");
    return i;
  }

  SumTree tree_;
  Rng rng_;
};

}  // namespace robustcore
