// The weight stores of the variance-reduced solvers, one interface, two stores chosen once per fit from the
// data's type (WeightStore<Data, KC>, the one place that decides): LazyWeights for sparse rows, DenseWeights
// for dense rows (every feature is touched every step, so there is nothing to catch up).
//
// LazyWeights: W (d x K, feature-major) = s * V with lazily
// applied dense steps. Every method takes steps of the form
//   W <- W - eta (lambda W + x_i c_i^T + M),    b <- b - eta (c_i + m_b)
// where c_i is a per-sample K-vector (a difference of loss gradients in the scores) and M is a dense
// "correction" (d x K) that is constant between the moments where it changes on a row's features only
// (SAG/SAGA table means) or at snapshot boundaries (SVRG family). LazyWeights applies such steps in
// O(K nnz of the row):
//   * W = s * V: the L2 shrinkage (1 - eta lambda) is a multiplication of the scale s;
//   * the dense term -eta M is recorded in one cumulative sum C_t = sum_{tau <= t} eta / s_tau (only over
//     steps that apply M); feature j, last brought up to date when the sum was C_j, catches up with
//     V_j -= M_j (C - C_j) just before it is read or before M_j changes ("just-in-time" catch-up);
//   * running sums of the iterates (SVRG option (b), VR-Lite) use two more cumulative sums,
//     P_t = sum s_tau and Q_t = sum s_tau C_tau:  sum_tau W_j(tau) = V_j dP - M_j (dQ - C_j dP);
//   * when s < 1e-9 every feature is caught up (O(K d)) and s is folded into V.
// Layout: the per-feature state a step touches (V_j[K], M_j[K] and the clock C_j) is interleaved in one
// record of whole 32-byte lines, so a catch-up of a random feature costs one cache line for K = 1 (32 bytes:
// v, m, C, padding) instead of three (on the generated 200,000 x 50,000 problem three separate d-arrays
// did not fit in L2; docs/benchmarks/variance_reduced.md, "What made the sparse SAG/SAGA step faster"). KC = K at compile time (1 for the binary model), 0 = at run time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "data.hpp"
#include "weights.hpp"

namespace robustcore {

namespace detail {
/// A K-vector argument of the row loops: with K known at compile time a local copy (the loop then keeps
/// it in registers instead of reloading it after every store into the weights), else the pointer.
template <int KC>
struct KArg {
  double v[KC];
  KArg(const double* p, int64_t) {
    for (int k = 0; k < KC; ++k) v[k] = p[k];
  }
  double operator[](int64_t k) const { return v[k]; }
};
template <>
struct KArg<0> {
  const double* p;
  KArg(const double* q, int64_t) : p(q) {}
  double operator[](int64_t k) const { return p[k]; }
};
/// K running sums: local (registers) with K known at compile time, else the output itself.
template <int KC>
struct KAcc {
  double v[KC] = {};
  KAcc(double*, int64_t) {}
  double& operator[](int64_t k) { return v[k]; }
  void store(double* out, double f) const {
    for (int k = 0; k < KC; ++k) out[k] = v[k] * f;
  }
};
template <>
struct KAcc<0> {
  double* out;
  int64_t K;
  KAcc(double* o, int64_t k) : out(o), K(k) { std::fill(out, out + K, 0.0); }
  double& operator[](int64_t k) { return out[k]; }
  void store(double*, double f) const {
    for (int64_t k = 0; k < K; ++k) out[k] *= f;
  }
};
}  // namespace detail

/// Precondition: eta * lambda < 1 (checked once, by vr::fit).
template <int KC>
class LazyWeights {
 public:
  LazyWeights(int64_t d, int64_t K, double eta, double lambda, bool track_sum)
      : d_(d), K_(KC > 0 ? KC : K), stride_(lines(K_) * 4), rec_(static_cast<size_t>(d * lines(K_))),
        lastP_(track_sum ? d : 0, 0.0), lastQ_(track_sum ? d : 0, 0.0), sum_(track_sum ? d * K_ : 0, 0.0),
        eta_(eta), a_(1.0 - eta * lambda), track_(track_sum) {}
  int64_t size() const { return d_; }
  int64_t K() const { return KC > 0 ? KC : K_; }
  double scale() const { return s_; }
  /// M_j (K values) of the dense term: change it only on a caught-up feature, or after catch_up_all.
  double* m(int64_t j) { return v(j) + K(); }
  /// M <- 0 / M <- src (d x K; all features caught up first).
  void zero_m() {
    catch_up_all();
    for (int64_t j = 0; j < d_; ++j) std::fill(m(j), m(j) + K(), 0.0);
  }
  void set_m(const double* src) {
    catch_up_all();
    for (int64_t j = 0; j < d_; ++j) std::copy(src + j * K(), src + (j + 1) * K(), m(j));
  }
  /// M += x a^T (a: K values; the row's features caught up, or all of them).
  template <class Row>
  void axpy_m(const Row& r, const double* a_in) {
    const int64_t K = this->K();
    const detail::KArg<KC> a(a_in, K);
    for_each_nz(r, [&](int64_t j, double x) {
      double* mj = m(j);
      for (int64_t k = 0; k < K; ++k) mj[k] += x * a[k];
    });
  }
  /// Running sums of the iterates since the last clear_sums (d x K), valid after catch_up_all.
  const double* sums() const { return sum_.data(); }

  /// Bring feature j up to date (apply the pending dense steps).
  inline void catch_up(int64_t j) {
    const int64_t K = this->K();
    double* vj = v(j);
    double* mj = vj + K;
    double& lastC = vj[2 * K];
    const double dC = C_ - lastC;
    if (track_) {
      const double dP = P_ - lastP_[static_cast<size_t>(j)], dQ = Q_ - lastQ_[static_cast<size_t>(j)];
      double* sj = sum_.data() + j * K;
      for (int64_t k = 0; k < K; ++k) sj[k] += vj[k] * dP - mj[k] * (dQ - lastC * dP);
      lastP_[static_cast<size_t>(j)] = P_;
      lastQ_[static_cast<size_t>(j)] = Q_;
    }
    for (int64_t k = 0; k < K; ++k) vj[k] -= mj[k] * dC;
    lastC = C_;
  }
  template <class Row>
  void catch_up_row(const Row& r) {
    for_each_nz(r, [&](int64_t j, double) { catch_up(j); });
  }
  void catch_up_all() {
    for (int64_t j = 0; j < d_; ++j) catch_up(j);
  }
  /// Catch up the row's features and write s[k] = <W_k, x> (one traversal of the row).
  template <class Row>
  void catch_up_scores(const Row& r, double* s) {
    const int64_t K = this->K();
    detail::KAcc<KC> acc(s, K);
    for_each_nz(r, [&](int64_t j, double x) {
      catch_up(j);
      const double* vj = v(j);
      for (int64_t k = 0; k < K; ++k) acc[k] += x * vj[k];
    });
    acc.store(s, s_);
  }
  /// W_j += x c on a caught-up feature j (c: K values).
  template <class C>
  inline void add(int64_t j, double x, const C& c) {
    const int64_t K = this->K();
    double* vj = v(j);
    for (int64_t k = 0; k < K; ++k) vj[k] += x * c[k] / s_;
    if (track_) {  // the running sum already counted this step's W_j without the change
      double* sj = sum_.data() + j * K;
      for (int64_t k = 0; k < K; ++k) sj[k] += x * c[k];
    }
  }
  /// Catch up the row's features and add x c^T to W (one traversal of the row).
  template <class Row>
  void catch_up_add(const Row& r, const double* c_in) {
    const detail::KArg<KC> c(c_in, K());
    for_each_nz(r, [&](int64_t j, double x) {
      catch_up(j);
      add(j, x, c);
    });
  }
  /// M += x a^T, then one dense step (advance()), in one traversal of the row: the same result as
  /// axpy_m(r, a); advance(); catch_up_row(r). The row's features must be caught up (catch_up_scores).
  /// The step's dense term is applied to the row's features here, with the updated M_j, and their
  /// clocks moved past the step, so advance() finds nothing pending on them (even when it folds).
  /// A repeated column (CSR allows duplicates) finds its clock already moved and adds only its own
  /// share x a dC.
  template <class Row>
  void axpy_m_advance(const Row& r, const double* a_in, double m_scale = 1.0) {
    if (track_) {  // running sums need the per-step bookkeeping of catch_up
      axpy_m(r, a_in);
      advance(true, m_scale);
      catch_up_row(r);
      return;
    }
    const int64_t K = this->K();
    const detail::KArg<KC> a(a_in, K);
    const double s_next = s_ * a_;
    const double C_next = C_ + (m_scale * eta_) / s_next;  // the clock advance() computes, bit for bit
    const double dC = C_next - C_;
    for_each_nz(r, [&](int64_t j, double x) {
      double* vj = v(j);
      double* mj = vj + K;
      double& lastC = vj[2 * K];
      if (lastC == C_next) {
        for (int64_t k = 0; k < K; ++k) {
          mj[k] += x * a[k];
          vj[k] -= x * a[k] * dC;
        }
      } else {
        for (int64_t k = 0; k < K; ++k) {
          mj[k] += x * a[k];
          vj[k] -= mj[k] * dC;
        }
        lastC = C_next;
      }
    });
    advance(true, m_scale);
  }
  /// One dense step: W <- (1 - eta lambda) W - eta [apply_m] m_scale M (m_scale: SAG/SAGA's first pass,
  /// where M is the table's sum / n and the step uses the sum / rows seen). Folds the scale when it gets
  /// small.
  void advance(bool apply_m = true, double m_scale = 1.0) {
    s_ *= a_;
    if (apply_m) C_ += (m_scale * eta_) / s_;
    if (track_) {
      P_ += s_;
      Q_ += s_ * C_;
    }
    if (s_ < kFoldBelow) fold();
  }
  /// Bring everything up to date and write W (d x K) into out.
  void materialize(double* out) {
    catch_up_all();
    const int64_t K = this->K();
    for (int64_t j = 0; j < d_; ++j)
      for (int64_t k = 0; k < K; ++k) out[j * K + k] = s_ * v(j)[k];
  }
  /// W <- W_new (d x K, O(K d)); resets the lazy bookkeeping (M is kept).
  void set(const double* W) {
    const int64_t K = this->K();
    for (int64_t j = 0; j < d_; ++j) std::copy(W + j * K, W + (j + 1) * K, v(j));
    reset();
  }
  /// Zero the running sums of iterates (they start again from this step).
  void clear_sums() {
    catch_up_all();
    std::fill(sum_.begin(), sum_.end(), 0.0);
  }

 private:
  struct alignas(32) Line {
    double x[4] = {0.0, 0.0, 0.0, 0.0};
  };
  /// 32-byte lines per feature record: V_j (K), M_j (K), C_j.
  static int64_t lines(int64_t K) { return (2 * K + 1 + 3) / 4; }
  int64_t stride() const { return KC > 0 ? lines(KC) * 4 : stride_; }
  double* v(int64_t j) { return reinterpret_cast<double*>(rec_.data()) + j * stride(); }
  const double* v(int64_t j) const { return reinterpret_cast<const double*>(rec_.data()) + j * stride(); }
  void fold() {
    catch_up_all();
    const int64_t K = this->K();
    for (int64_t j = 0; j < d_; ++j)
      for (int64_t k = 0; k < K; ++k) v(j)[k] *= s_;
    reset();
  }
  void reset() {
    s_ = 1.0;
    C_ = P_ = Q_ = 0.0;
    for (int64_t j = 0; j < d_; ++j) v(j)[2 * K()] = 0.0;
    std::fill(lastP_.begin(), lastP_.end(), 0.0);
    std::fill(lastQ_.begin(), lastQ_.end(), 0.0);
  }
  int64_t d_, K_, stride_;
  std::vector<Line> rec_;
  std::vector<double> lastP_, lastQ_, sum_;
  double s_ = 1.0, C_ = 0.0, P_ = 0.0, Q_ = 0.0;
  double eta_, a_;
  bool track_;
};

/// The dense-row store: W (d x K, feature-major) and M (d x K) held as they are, every step applied at
/// once (O(K d) a step, what reading a dense row costs anyway). The same interface and the same steps as
/// LazyWeights, without the scale, the clocks or the catch-up (its catch_up* calls do nothing but what
/// their names add: the scores, the step); the values equal LazyWeights' within rounding (the products are
/// grouped differently), same bits run to run. Running sums (track_sum) add the iterate after every
/// advance() and the row's change in add(), as LazyWeights' cumulative sums do.
template <int KC>
class DenseWeights {
 public:
  DenseWeights(int64_t d, int64_t K, double eta, double lambda, bool track_sum)
      : d_(d), K_(KC > 0 ? KC : K), w_(static_cast<size_t>(d * K_), 0.0), m_(static_cast<size_t>(d * K_), 0.0),
        sum_(track_sum ? static_cast<size_t>(d * K_) : 0, 0.0), eta_(eta), a_(1.0 - eta * lambda), track_(track_sum) {}
  int64_t size() const { return d_; }
  int64_t K() const { return KC > 0 ? KC : K_; }
  double scale() const { return 1.0; }
  double* m(int64_t j) { return m_.data() + j * K(); }
  void zero_m() { std::fill(m_.begin(), m_.end(), 0.0); }
  void set_m(const double* src) { std::copy(src, src + d_ * K(), m_.begin()); }
  template <class Row>
  void axpy_m(const Row& r, const double* a_in) {
    const int64_t K = this->K();
    const detail::KArg<KC> a(a_in, K);
    double* M = m_.data();
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) M[j * K + k] += x * a[k];
    });
  }
  const double* sums() const { return sum_.data(); }
  void catch_up(int64_t) {}
  template <class Row>
  void catch_up_row(const Row&) {}
  void catch_up_all() {}
  /// s[k] = <W_k, x>.
  template <class Row>
  void catch_up_scores(const Row& r, double* s) {
    const int64_t K = this->K();
    detail::KAcc<KC> acc(s, K);
    const double* W = w_.data();
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) acc[k] += x * W[j * K + k];
    });
    acc.store(s, 1.0);
  }
  template <class C>
  inline void add(int64_t j, double x, const C& c) {
    const int64_t K = this->K();
    double* wj = w_.data() + j * K;
    for (int64_t k = 0; k < K; ++k) wj[k] += x * c[k];
    if (track_) {
      double* sj = sum_.data() + j * K;
      for (int64_t k = 0; k < K; ++k) sj[k] += x * c[k];
    }
  }
  template <class Row>
  void catch_up_add(const Row& r, const double* c_in) {
    const detail::KArg<KC> c(c_in, K());
    for_each_nz(r, [&](int64_t j, double x) { add(j, x, c); });
  }
  /// axpy_m(r, a); advance(true, m_scale).
  template <class Row>
  void axpy_m_advance(const Row& r, const double* a_in, double m_scale = 1.0) {
    axpy_m(r, a_in);
    advance(true, m_scale);
  }
  /// W <- (1 - eta lambda) W - eta [apply_m] m_scale M.
  void advance(bool apply_m = true, double m_scale = 1.0) {
    const size_t n = w_.size();
    double* W = w_.data();
    const double a = a_;
    if (apply_m) {
      const double e = m_scale * eta_;
      const double* M = m_.data();
      for (size_t q = 0; q < n; ++q) W[q] = a * W[q] - e * M[q];
    } else {
      for (size_t q = 0; q < n; ++q) W[q] *= a;
    }
    if (track_)
      for (size_t q = 0; q < n; ++q) sum_[q] += W[q];
  }
  void materialize(double* out) { std::copy(w_.begin(), w_.end(), out); }
  void set(const double* W) { std::copy(W, W + d_ * K(), w_.begin()); }
  void clear_sums() { std::fill(sum_.begin(), sum_.end(), 0.0); }

 private:
  int64_t d_, K_;
  std::vector<double> w_, m_, sum_;
  double eta_, a_;
  bool track_;
};

/// The store a variance-reduced fit on Data uses: decided here, once, from the view's type.
template <class Data, int KC>
using WeightStore = std::conditional_t<Data::is_sparse, LazyWeights<KC>, DenseWeights<KC>>;

}  // namespace robustcore
