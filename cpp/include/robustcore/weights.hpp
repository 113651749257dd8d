// Weight vectors for sparse SGD: w = scale * v, so the L2 step w <- (1 - eta lambda) w costs O(1)
// and a sample step costs O(nnz of the row). The scale is folded into v before it underflows.
//
// AveragedScaledVector adds the running average wbar_t = (1 - mu_t) wbar_{t-1} + mu_t w_t in
// O(nnz) per step (Xu 2011, "Towards optimal one pass large scale learning with averaged SGD"),
// represented as wbar = (u + A v) / B:
//   after v <- v + delta (sparse) with w_t = s_t v_t:
//     B_t = B_{t-1} / (1 - mu_t),  u_t = u_{t-1} - A_{t-1} delta,  A_t = A_{t-1} + mu_t s_t B_t.
// Folding the scale or normalising B materialises u (O(d), rare).
//
// Centering adds implicit feature centring: the model scores w.(x - mu) + b_c with w = s v + a mu, so a
// step w <- w - eta g y (x - mu) is v += c x (sparse) and a += eta g y (one scalar), and
// w.(x - mu) = s v.x + a x.mu - (s v.mu + a mu.mu) with v.mu kept up to date: O(nnz) per step.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "data.hpp"
#include "huge_pages.hpp"

namespace robustcore {

/// The scale below which a scaled weight vector (w = s v: ScaledVector here, LazyWeights in
/// lazy_weights.hpp) multiplies s into v: 1e-9 keeps the O(d) folds rare, and s v far from underflow.
inline constexpr double kFoldBelow = 1e-9;
/// The higher threshold of a ScaledVector paired with a RunningAverage: between folds the average's u and
/// A v cancel to ~eps / scale relative error.
inline constexpr double kAverageFoldBelow = 1e-5;

class ScaledVector {
 public:
  /// fold_below: the scale at which v is multiplied out (kFoldBelow; kAverageFoldBelow under a
  /// RunningAverage).
  explicit ScaledVector(int64_t d = 0, double fold_below = kFoldBelow)
      : v_(static_cast<size_t>(d), 0.0), fold_below_(fold_below) {}

  int64_t size() const { return static_cast<int64_t>(v_.size()); }
  double scale() const { return scale_; }
  const double* raw() const { return v_.data(); }

  /// Set w from a dense array (length size()).
  void assign(const double* w) {
    for (size_t j = 0; j < v_.size(); ++j) v_[j] = w[j];
    scale_ = 1.0;
  }
  /// Write w = scale * v into out.
  void materialize(double* out) const {
    for (size_t j = 0; j < v_.size(); ++j) out[j] = scale_ * v_[j];
  }
  double operator[](int64_t j) const { return scale_ * v_[static_cast<size_t>(j)]; }

  template <class Row>
  double dot(const Row& r) const { return scale_ * robustcore::dot(r, v_.data()); }

  /// w <- factor * w, O(1). factor must be > 0; a factor <= 0 sets w to zero (O(d)).
  /// Does not fold: callers check needs_fold() and fold (after RunningAverage::before_fold).
  void scale_by(double factor) {
    if (factor > 0.0) {
      scale_ *= factor;
    } else {
      for (auto& x : v_) x = 0.0;
      scale_ = 1.0;
    }
  }
  bool needs_fold() const { return scale_ < fold_below_; }
  double fold_below() const { return fold_below_; }
  /// w <- w + a * x. Returns the change applied to v (a / scale), for averaging bookkeeping.
  template <class Row>
  double add(double a, const Row& r) {
    const double c = a / scale_;
    robustcore::axpy(c, r, v_.data());
    return c;
  }
  /// Multiply v by scale and reset scale to 1 (O(d)).
  void fold() {
    for (auto& x : v_) x *= scale_;
    scale_ = 1.0;
  }
  /// ||w||^2 in O(d) (Pegasos keeps a running norm instead, see sgd.hpp).
  double sqnorm() const {
    double s = 0.0;
    for (double x : v_) s += x * x;
    return s * scale_ * scale_;
  }

 private:
  HugeVector<double> v_;
  double scale_ = 1.0;
  double fold_below_ = kFoldBelow;
};

/// Running average of a ScaledVector's iterates in O(nnz) per step. Pair it with a ScaledVector whose
/// fold_below is kAverageFoldBelow.
class RunningAverage {
 public:
  explicit RunningAverage(int64_t d = 0) : u_(static_cast<size_t>(d), 0.0) {}

  bool empty() const { return count_ == 0; }
  int64_t count() const { return count_; }

  /// Start from an existing average wbar (length d) that summarises `count` iterates.
  void assign(const double* wbar, int64_t count) {
    for (size_t j = 0; j < u_.size(); ++j) u_[j] = wbar[j];
    A_ = 0.0;
    B_ = 1.0;
    count_ = count;
  }
  void reset() {
    for (auto& x : u_) x = 0.0;
    A_ = 0.0;
    B_ = 1.0;
    count_ = 0;
  }

  /// Record the iterate w_t after the sparse change v <- v + c * x (c from ScaledVector::add;
  /// pass c = 0 when only the scale changed), with mu_t = weight of the new iterate.
  template <class Row>
  void update(const ScaledVector& w, double c, const Row& r, double mu) {
    ++count_;
    if (count_ == 1 || mu >= 1.0) {  // wbar = w: u = 0, A = s, B = 1
      for (auto& x : u_) x = 0.0;
      A_ = w.scale();
      B_ = 1.0;
      return;
    }
    if (c != 0.0) robustcore::axpy(-A_ * c, r, u_.data());
    B_ /= (1.0 - mu);
    A_ += mu * w.scale() * B_;
    if (B_ > 1e150 || std::fabs(A_) > 1e150) normalize(w);
  }
  /// Call *before* w.fold() changes v: keeps wbar unchanged across the fold (O(d)).
  void before_fold(const ScaledVector& w) { normalize(w); }

  /// wbar_j
  void materialize(const ScaledVector& w, double* out) const {
    const double* v = w.raw();
    for (size_t j = 0; j < u_.size(); ++j) out[j] = (u_[j] + A_ * v[j]) / B_;
  }
  template <class Row>
  double dot(const ScaledVector& w, const Row& r) const {
    return (robustcore::dot(r, u_.data()) + A_ * robustcore::dot(r, w.raw())) / B_;
  }

 private:
  /// u <- (u + A v) / B, A <- 0, B <- 1.
  void normalize(const ScaledVector& w) {
    const double* v = w.raw();
    for (size_t j = 0; j < u_.size(); ++j) u_[j] = (u_[j] + A_ * v[j]) / B_;
    A_ = 0.0;
    B_ = 1.0;
  }
  HugeVector<double> u_;
  double A_ = 0.0, B_ = 1.0;
  int64_t count_ = 0;
};

/// The centring part of w = s v + a mu (see the top of this file) for a ScaledVector holding s v. Inactive
/// (every method a no-op, every term 0) when mu is null. vmu = v.mu is refreshed in O(d) on assign and
/// after folds, so its incremental updates never drift for long.
class Centering {
 public:
  Centering(const double* mu, int64_t d) : mu_(mu), d_(d) {
    if (!mu_) return;
    for (int64_t j = 0; j < d_; ++j) mumu_ += mu_[j] * mu_[j];
  }
  bool on() const { return mu_ != nullptr; }
  double a() const { return a_; }
  /// The centred score w.(x - mu) of an active centring, with x.mu into xmu: one pass over the row reads
  /// v and mu together.
  template <class Row>
  double score(const ScaledVector& w, const Row& r, double& xmu) const {
    const double* v = w.raw();
    double vx = 0.0, xm = 0.0;
    for_each_nz(r, [&](int64_t j, double x) {
      vx += x * v[j];
      xm += x * mu_[j];
    });
    xmu = xm;
    return w.scale() * vx + score_shift(w, xm);
  }
  /// w.mu for the current w = s v + a mu.
  double w_dot_mu(const ScaledVector& w) const { return w.scale() * vmu_ + a_ * mumu_; }
  /// w.(x - mu) - s v.x: what centring adds to the ScaledVector's score, given xmu = x.mu.
  double score_shift(const ScaledVector& w, double xmu) const { return a_ * xmu - w_dot_mu(w); }
  /// w <- factor w (with ScaledVector::scale_by; factor <= 0 zeroes w).
  void scale_by(double factor) {
    if (!mu_) return;
    a_ = factor > 0.0 ? a_ * factor : 0.0;
    if (!(factor > 0.0)) vmu_ = 0.0;
  }
  /// Record w <- w + A (x - mu), whose sparse part v += c x (c from ScaledVector::add) was applied.
  void add(double A, double c, double xmu) {
    if (!mu_) return;
    vmu_ += c * xmu;
    a_ -= A;
  }
  /// Recompute v.mu (O(d)): after w.fold() or w.assign().
  void refresh(const ScaledVector& w) {
    if (!mu_) return;
    vmu_ = 0.0;
    for (int64_t j = 0; j < d_; ++j) vmu_ += w.raw()[j] * mu_[j];
  }
  /// Start from w (dense, length d, already assigned to the ScaledVector): a = 0.
  void assign(const ScaledVector& w) {
    a_ = 0.0;
    refresh(w);
  }
  /// out += coef * mu.
  void add_mu(double coef, double* out) const {
    if (!mu_ || coef == 0.0) return;
    for (int64_t j = 0; j < d_; ++j) out[j] += coef * mu_[j];
  }
  /// w.mu for a dense w (0 when inactive): the intercept shift between the centred and plain models.
  double dot_mu(const double* w) const {
    double s = 0.0;
    if (mu_)
      for (int64_t j = 0; j < d_; ++j) s += w[j] * mu_[j];
    return s;
  }

 private:
  const double* mu_;
  int64_t d_;
  double mumu_ = 0.0, vmu_ = 0.0, a_ = 0.0;
};

}  // namespace robustcore
