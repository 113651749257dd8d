// Shared machinery of the variance-reduced solvers (sgd-variants-multilabel paper, Algorithms 4.2-4.9)
// for binary linear models with a smooth margin loss r:
//
//   F(w, b) = (1/n) sum_i r(y_i (<w, x_i> + b)) + (lambda/2) ||w||^2
//
// Every method takes steps of the form
//   w <- w - eta (lambda w + c_i x_i + m),    b <- b - eta (c_i + m_b)
// where c_i is a per-sample scalar (a difference of loss derivatives times y_i) and m is a dense
// "correction" vector that is constant between the moments where it changes on a row's features only
// (SAG/SAGA table means) or at snapshot boundaries (SVRG family). LazyWeights applies such steps in
// O(nnz of the row):
//   * w = s * v: the L2 shrinkage (1 - eta lambda) is a multiplication of the scale s;
//   * the dense term -eta m is recorded in one cumulative sum C_t = sum_{tau <= t} eta / s_tau (only over
//     steps that apply m); feature j, last brought up to date when the sum was C_j, catches up with
//     v_j -= m_j (C - C_j) just before it is read or before m_j changes ("just-in-time" catch-up);
//   * running sums of the iterates (SVRG option (b), VR-Lite) use two more cumulative sums,
//     P_t = sum s_tau and Q_t = sum s_tau C_tau:  sum_tau w_j(tau) = v_j dP - m_j (dQ - C_j dP);
//   * when s < 1e-9 every feature is caught up (O(d)) and s is folded into v.
// Per-sample memory is one scalar (the stored derivative); O(d) work happens only at pass/snapshot
// boundaries (catch_up_all, set).
// Randomness: every draw goes through IndexStream, which is either the seeded Rng or an injected
// sequence of integers (oracle tests replay the same draws in NumPy).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../data.hpp"
#include "../losses.hpp"
#include "../rng.hpp"
#include "../result.hpp"
#include "../trace.hpp"

namespace robustcore {
namespace vr {

enum class Method : int {
  Saga = 0, Sag = 1, Svrg = 2, S2gd = 3, Finito = 4, VrLite = 5, BatchingSvrg = 6, MixedSvrg = 7,
  Sgd = 8,  ///< plain constant-step SGD: softmax model only (binary SGD lives in sgd.hpp)
};
/// SVRG Algorithm 4.2: the next outer iterate is (a) the last, (b) the average, (c) a uniformly chosen
/// inner iterate.
enum class SvrgOption : int { Last = 0, Average = 1, Random = 2 };

inline const char* method_name(Method m) {
  switch (m) {
    case Method::Saga: return "saga";
    case Method::Sag: return "sag";
    case Method::Svrg: return "svrg";
    case Method::S2gd: return "s2gd";
    case Method::Finito: return "finito";
    case Method::VrLite: return "vrlite";
    case Method::BatchingSvrg: return "batching_svrg";
    case Method::MixedSvrg: return "mixed_svrg";
    case Method::Sgd: return "sgd";
  }
  return "unknown";
}

struct VrParams {
  Method method = Method::Saga;
  SvrgOption option = SvrgOption::Last;
  double lambda = 1e-4;        ///< L2 strength
  double eta = 0.0;            ///< step size; <= 0 picks default_step(method, L, lambda, n)
  int64_t passes = 50;         ///< budget in effective passes (gradient evaluations / n)
  int64_t inner = 0;           ///< SVRG-family inner steps m per outer iteration; 0 = n
  int64_t batch = 0;           ///< Batching/Mixed SVRG first batch size B_1; 0 = n / 8 (at least 1)
  double batch_growth = 2.0;   ///< B_{k+1} = min(n, ceil(growth * B_k)) (Harikandeh et al.'s growing batches)
  double s2gd_nu = -1.0;       ///< S2GD's nu (lower bound on strong convexity); < 0 = lambda
  double tol = 0.0;            ///< stop when max_j |w_j - w_j^prev| <= tol max_j |w_j| over a pass; 0 = never
  bool fit_intercept = true;
  uint64_t seed = 0;
  bool record_history = true;  ///< objective and full-gradient norm per pass (one extra pass each)
  int64_t max_dense_bytes = int64_t(2) << 30;  ///< Finito's n*d table refuses above this size
  /// Optional per-sample weights sw_i (non-owning, length n, >= 0): the loss term becomes
  /// (1/n) sum_i sw_i r(...). nullptr = all ones.
  const double* sample_weight = nullptr;

  void validate() const {
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("lambda must be >= 0 and finite");
    if (!std::isfinite(eta)) throw std::invalid_argument("the step size eta must be finite");
    if (passes < 0) throw std::invalid_argument("the number of passes must be >= 0");
    if (inner < 0) throw std::invalid_argument("the number of inner steps must be >= 0");
    if (batch < 0) throw std::invalid_argument("the batch size must be >= 0");
    if (!(batch_growth >= 1.0) || !std::isfinite(batch_growth)) throw std::invalid_argument("batch_growth must be >= 1");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("tol must be >= 0 and finite");
    if (max_dense_bytes < 0) throw std::invalid_argument("max_dense_bytes must be >= 0");
  }
};

/// sw_i (1 without sample weights).
inline double sw(const VrParams& p, int64_t i) { return p.sample_weight ? p.sample_weight[i] : 1.0; }

struct VrResult {
  Status status = Status::MaxIter;
  double eta = 0.0;               ///< the step size used
  double passes_done = 0.0;       ///< effective passes (gradient evaluations / n)
  std::vector<double> passes;     ///< effective passes at each history entry
  Trace trace;                    ///< objective, grad_norm, seconds (cumulative solver seconds)
};

/// L_max = sup r'' * max_i (||x_i||^2 + [fit_intercept]) + lambda: smoothness of every f_i.
template <class Loss, class Data>
double max_smoothness(const Data& X, const Loss& loss, double lambda, bool fit_intercept,
                      const double* sample_weight = nullptr) {
  double mx = 0.0;
  for (int64_t i = 0; i < X.rows(); ++i)
    mx = std::max(mx, (sample_weight ? sample_weight[i] : 1.0) * (sqnorm(X.row(i)) + (fit_intercept ? 1.0 : 0.0)));
  if (mx == 0.0) mx = 1.0;
  return loss.smoothness() * mx + lambda;
}

/// Default steps from L = L_max (documented in the Python docstring):
///   SAG 1/L (Schmidt, Le Roux, Bach 2017);  SAGA 1/(2(L + lambda n)) capped at 1/(3L) (Defazio et al.
///   2014, Thm 1 and its 1/(3L) practical choice);  SVRG, S2GD, Batching/Mixed SVRG, VR-Lite 1/(4L)
///   (inside Johnson & Zhang's 1/(4L) condition for option (b));  Finito min(1/(2 lambda), n/(2L));
///   plain SGD (softmax model) 1/(4L) as well.
inline double default_step(Method m, double L, double lambda, int64_t n) {
  switch (m) {
    case Method::Sag: return 1.0 / L;
    case Method::Saga: return std::max(1.0 / (2.0 * (L + lambda * static_cast<double>(n))), 1.0 / (3.0 * L));
    case Method::Finito: {
      // Finito's w = mean phi - eta mean g moves the whole average: Defazio et al. use eta = 1/(2 mu)
      // (mu = lambda) under their big-data condition n >= 2 L / mu; n / (2 L) caps it below that.
      const double cap = static_cast<double>(n) / (2.0 * L);
      return lambda > 0.0 ? std::min(1.0 / (2.0 * lambda), cap) : cap;
    }
    default: return 1.0 / (4.0 * L);
  }
}

/// The source of every random index: the seeded Rng, or an injected sequence (tests). With an injected
/// sequence each draw consumes the next value, which must lie in the draw's range.
class IndexStream {
 public:
  IndexStream(uint64_t seed, const int64_t* injected, int64_t len) : rng_(seed), inj_(injected), len_(len) {}
  int64_t below(int64_t n) {
    if (!inj_) return static_cast<int64_t>(rng_.below(static_cast<uint64_t>(n)));
    return take(n);
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
  /// A permutation of 0..n-1 (Fisher-Yates on the Rng; with injection the next n values, checked).
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
      throw std::invalid_argument("injected index " + std::to_string(v) + " out of range [0, " + std::to_string(n) + ")");
    return v;
  }
  Rng rng_;
  const int64_t* inj_;
  int64_t len_;
  int64_t pos_ = 0;
};

/// w = s v with lazily applied dense steps (see the file comment). All features must be caught up
/// (catch_up_all) before m is changed other than through m(j) on an up-to-date feature.
/// Layout: the per-feature state a step touches (v_j, m_j and the clock C_j) is interleaved in one
/// 32-byte record, so a catch-up of a random feature costs one cache line instead of three (on the
/// generated 200,000 x 50,000 problem the three separate d-arrays did not fit in L2; bench/README.md).
class LazyWeights {
 public:
  static constexpr double kFoldBelow = 1e-9;
  LazyWeights(int64_t d, double eta, double lambda, bool track_sum)
      : f_(static_cast<size_t>(d)), lastP_(track_sum ? d : 0, 0.0), lastQ_(track_sum ? d : 0, 0.0),
        sum_(track_sum ? d : 0, 0.0), eta_(eta), a_(1.0 - eta * lambda), track_(track_sum) {
    if (!(a_ > 0.0)) throw std::invalid_argument("step size too large: eta * lambda must be < 1");
  }
  int64_t size() const { return static_cast<int64_t>(f_.size()); }
  double scale() const { return s_; }
  /// m_j of the dense term (change it only on a caught-up feature, or after catch_up_all).
  double& m(int64_t j) { return f_[static_cast<size_t>(j)].m; }
  /// m <- 0 / m <- src (all features caught up first).
  void zero_m() {
    catch_up_all();
    for (auto& f : f_) f.m = 0.0;
  }
  void set_m(const double* src) {
    catch_up_all();
    for (size_t j = 0; j < f_.size(); ++j) f_[j].m = src[j];
  }
  /// m += a x (all features caught up first).
  template <class Row>
  void axpy_m(double a, const Row& r) {
    for_each_nz(r, [&](int64_t j, double x) { f_[static_cast<size_t>(j)].m += a * x; });
  }
  const double* sums() const { return sum_.data(); }

  /// Bring feature j up to date (apply the pending dense steps).
  inline void catch_up(int64_t j) {
    Feat& f = f_[static_cast<size_t>(j)];
    const double dC = C_ - f.lastC;
    if (track_) {
      const double dP = P_ - lastP_[j];
      sum_[j] += s0_ * (f.v * dP - f.m * ((Q_ - lastQ_[j]) - f.lastC * dP));
      lastP_[j] = P_;
      lastQ_[j] = Q_;
    }
    f.v -= f.m * dC;
    f.lastC = C_;
  }
  template <class Row>
  void catch_up_row(const Row& r) {
    for_each_nz(r, [&](int64_t j, double) { catch_up(j); });
  }
  void catch_up_all() {
    for (int64_t j = 0; j < size(); ++j) catch_up(j);
  }
  /// Catch up the row's features and return <w, x> (one traversal of the row).
  template <class Row>
  double catch_up_dot(const Row& r) {
    double acc = 0.0;
    for_each_nz(r, [&](int64_t j, double x) {
      catch_up(j);
      acc += x * f_[static_cast<size_t>(j)].v;
    });
    return s_ * acc;
  }
  /// Catch up the row's features and add c * x to w (one traversal of the row).
  template <class Row>
  void catch_up_add(const Row& r, double c) {
    for_each_nz(r, [&](int64_t j, double x) {
      catch_up(j);
      add(j, c * x);
    });
  }
  /// m += a x, then one dense step (advance()), in one traversal of the row: the same result as
  /// axpy_m(a, r); advance(); catch_up_row(r). The row's features must be caught up (catch_up_dot).
  /// The step's dense term is applied to the row's features here, with the updated m_j, and their
  /// clocks moved past the step, so advance() finds nothing pending on them (even when it folds).
  /// A repeated column (CSR allows duplicates) finds its clock already moved and adds only its own
  /// share a x dC.
  template <class Row>
  void axpy_m_advance(double a, const Row& r) {
    const double s_next = s_ * a_;
    const double C_next = C_ + eta_ / s_next;  // the clock advance() computes, bit for bit
    const double dC = C_next - C_;
    if (track_) {  // running sums need the per-step bookkeeping of catch_up
      axpy_m(a, r);
      advance();
      catch_up_row(r);
      return;
    }
    for_each_nz(r, [&](int64_t j, double x) {
      Feat& f = f_[static_cast<size_t>(j)];
      f.m += a * x;
      if (f.lastC == C_next) {
        f.v -= a * x * dC;
      } else {
        f.v -= f.m * dC;
        f.lastC = C_next;
      }
    });
    advance();
  }
  /// One dense step: w <- (1 - eta lambda) w - eta [apply_m] m. Folds the scale when it gets small.
  void advance(bool apply_m = true) {
    s_ *= a_;
    if (apply_m) C_ += eta_ / s_;
    if (track_) {
      P_ += s_ / s0_;
      Q_ += (s_ / s0_) * C_;
    }
    if (s_ < kFoldBelow) fold();
  }
  /// w_j += delta on a caught-up feature.
  inline void add(int64_t j, double delta) {
    f_[static_cast<size_t>(j)].v += delta / s_;
    if (track_) sum_[j] += delta;  // the running sum already counted this step's w_j without delta
  }
  /// Bring everything up to date and write w into out.
  void materialize(double* out) {
    catch_up_all();
    for (int64_t j = 0; j < size(); ++j) out[j] = s_ * f_[static_cast<size_t>(j)].v;
  }
  /// w <- w_new (O(d)); resets the lazy bookkeeping (m is kept).
  void set(const double* w) {
    for (int64_t j = 0; j < size(); ++j) f_[static_cast<size_t>(j)].v = w[j];
    reset_sums();
  }
  /// Zero the running sums of iterates (sum_j starts again from this step).
  void clear_sums() {
    catch_up_all();
    std::fill(sum_.begin(), sum_.end(), 0.0);
  }

 private:
  struct alignas(32) Feat {
    double v = 0.0, m = 0.0, lastC = 0.0;
  };
  void fold() {
    catch_up_all();
    for (auto& f : f_) f.v *= s_;
    reset_sums();
  }
  void reset_sums() {
    // the running sums are kept in units of w; P, Q are relative to s0 = the scale at the last reset
    s_ = 1.0;
    s0_ = 1.0;
    C_ = P_ = Q_ = 0.0;
    for (auto& f : f_) f.lastC = 0.0;
    std::fill(lastP_.begin(), lastP_.end(), 0.0);
    std::fill(lastQ_.begin(), lastQ_.end(), 0.0);
  }
  std::vector<Feat> f_;
  std::vector<double> lastP_, lastQ_, sum_;
  double s_ = 1.0, s0_ = 1.0, C_ = 0.0, P_ = 0.0, Q_ = 0.0;
  double eta_, a_;
  bool track_;
};

/// Objective F(w, b) and ||grad F(w, b)|| (w and intercept included) in one pass.
template <class Loss, class Data>
void objective_and_grad(const Data& X, const double* y, const Loss& loss, const double* w, double b, double lambda,
                        bool fit_intercept, double* obj, double* gnorm, std::vector<double>& gbuf,
                        const double* sample_weight = nullptr, double* error = nullptr) {
  const int64_t n = X.rows(), d = X.cols();
  gbuf.assign(static_cast<size_t>(d), 0.0);
  double lsum = 0.0, gb = 0.0;
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto r = X.row(i);
    double v, dv;
    const double f = dot(r, w) + b;
    if ((f >= 0 ? 1.0 : -1.0) != y[i]) ++wrong;
    loss.value_deriv(y[i] * f, v, dv);
    const double s = sample_weight ? sample_weight[i] : 1.0;
    lsum += s * v;
    const double c = s * dv * y[i] / static_cast<double>(n);
    axpy(c, r, gbuf.data());
    gb += c;
  }
  double sq = 0.0, g2 = fit_intercept ? gb * gb : 0.0;
  for (int64_t j = 0; j < d; ++j) {
    sq += w[j] * w[j];
    const double g = gbuf[static_cast<size_t>(j)] + lambda * w[j];
    g2 += g * g;
  }
  if (obj) *obj = (n ? lsum / static_cast<double>(n) : 0.0) + 0.5 * lambda * sq;
  if (gnorm) *gnorm = std::sqrt(g2);
  if (error) *error = n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

/// 0/1 error of sign(<w, x_i> + b) against +-1 labels (the SGD solvers' rule: f >= 0 predicts +1).
template <class Data>
double binary_error(const Data& X, const double* y, const double* w, double b) {
  const int64_t n = X.rows();
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    if (((dot(X.row(i), w) + b) >= 0 ? 1.0 : -1.0) != y[i]) ++wrong;
  return n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

/// Optional evaluation set of a binary solve (X_test rows, +-1 labels): test error per effective pass.
template <class Data>
struct EvalSet {
  const Data* X = nullptr;
  const double* y = nullptr;
};

/// Per-pass bookkeeping shared by the drivers: history, divergence, the tol rule, the progress callback.
template <class Loss, class Data>
class PassMonitor {
 public:
  PassMonitor(const Data& X, const double* y, const Loss& loss, const VrParams& p, VrResult& res, ProgressFn progress,
              EvalSet<Data> eval = {})
      : X_(X), y_(y), loss_(loss), p_(p), res_(res), progress_(std::move(progress)), eval_(eval),
        prev_(static_cast<size_t>(X.cols()), 0.0), cur_(static_cast<size_t>(X.cols()), 0.0),
        t0_(std::chrono::steady_clock::now()) {}
  /// Called at the end of a pass with the current model (w caught up and written into w). Returns false
  /// to stop (status set).
  bool end_pass(const double* w, double b, double passes_done, int64_t passes_count) {
    const double secs = elapsed_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const int64_t d = X_.cols();
    res_.passes_done = passes_done;
    bool finite = std::isfinite(b);
    double dmax = 0.0, wmax = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      if (!std::isfinite(w[j])) finite = false;
      dmax = std::max(dmax, std::fabs(w[j] - prev_[static_cast<size_t>(j)]));
      wmax = std::max(wmax, std::fabs(w[j]));
      prev_[static_cast<size_t>(j)] = w[j];
    }
    if (p_.record_history) {
      double obj = NAN, gn = NAN, err = NAN;
      if (finite)
        objective_and_grad(X_, y_, loss_, w, b, p_.lambda, p_.fit_intercept, &obj, &gn, cur_, p_.sample_weight, &err);
      res_.trace.objective.push_back(obj);
      res_.trace.grad_norm.push_back(gn);
      res_.trace.train_error.push_back(err);
      if (eval_.X && eval_.y) res_.trace.test_error.push_back(finite ? binary_error(*eval_.X, eval_.y, w, b) : NAN);
    }
    res_.trace.seconds.push_back(secs);
    res_.passes.push_back(passes_done);
    elapsed_ = secs;
    if (!finite) {
      res_.status = Status::Diverged;
      return false;
    }
    if (p_.tol > 0.0 && passes_count > 1 && dmax <= p_.tol * wmax) {
      res_.status = Status::Converged;
      return false;
    }
    // the progress callback counts effective passes (rounded down), the unit of VrParams::passes
    if (progress_ && !progress_(static_cast<int64_t>(std::floor(passes_done)))) {
      res_.status = Status::Interrupted;
      return false;
    }
    t0_ = std::chrono::steady_clock::now();
    return true;
  }
  void restart_clock() { t0_ = std::chrono::steady_clock::now(); }

 private:
  const Data& X_;
  const double* y_;
  const Loss& loss_;
  const VrParams& p_;
  VrResult& res_;
  ProgressFn progress_;
  EvalSet<Data> eval_;
  std::vector<double> prev_, cur_;
  std::chrono::steady_clock::time_point t0_;
  double elapsed_ = 0.0;
};

/// Checks shared by every driver.
template <class Loss, class Data>
void check_problem(const Data& X, const double* y, const Loss&, const VrParams& p) {
  static_assert(Loss::smooth, "variance-reduced solvers need a smooth loss");
  p.validate();
  if (X.rows() < 1) throw std::invalid_argument("the variance-reduced solvers need at least one sample");
  validate_binary_labels(y, X.rows());
  if (p.sample_weight)
    for (int64_t i = 0; i < X.rows(); ++i)
      if (!(p.sample_weight[i] >= 0.0) || !std::isfinite(p.sample_weight[i]))
        throw std::invalid_argument("sample weights must be finite and >= 0");
}

}  // namespace vr
}  // namespace robustcore
