// A deterministic quasi-Newton solver for the smooth L2-regularised objective of the variance-reduced
// solvers (vr/problem.hpp: the same objective, the same lambda, the same models):
//
//   F(W, b) = (1/n) sum_i sw_i loss_i(W^T x_i + b) + (lambda/2) ||W||^2      (b not penalised)
//
// for BinaryModel<Loss> (a smooth margin loss) and the SoftmaxModel (model.hpp), on any data view.
// (With weights, (1/n) sum sw_i is the estimators' (1/sum sw) sum sw_i times sum(sw)/n: they pass
// lambda = alpha sum(sw)/n, _base.weighted_alpha, as for the variance-reduced solvers.)
//
// L-BFGS (Nocedal 1980; Liu & Nocedal 1989): the two-loop recursion over the last `memory` pairs
// (s, y) with the initial scaling s'y / y'y, and a line search satisfying the strong Wolfe conditions
//   F(x + t d) <= F(x) + c1 t F'(x; d),   |F'(x + t d; d)| <= c2 |F'(x; d)|
// by More and Thuente's safeguarded cubic / quadratic interpolation (ACM TOMS 20, 1994; the MINPACK-2
// dcsrch / dcstep that L-BFGS-B and scipy use), with L-BFGS-B's constants: c1 = 1e-3, c2 = 0.9, a relative
// interval width of 0.1, a first step of 1 / ||d|| (then 1), at most `max_linesearch` evaluations.
// A pair with s'y <= eps y'y is not stored (the update would not be positive definite).
//
// Each evaluation is one pass over the rows (model.hpp's evaluate_rows: the scores, the loss through the
// model, X^T (sw * loss'(scores)) / n, and, with record_history, the 0/1 error, which the monitor records); an iteration is one
// accepted step and usually one evaluation. The parameters are x = (W, b) (b only with fit_intercept:
// without it b stays as given); the caller's W and b hold the current iterate whenever the progress
// callback runs (result.hpp's contract).
//
// Stopping (documented in the Python docstrings too; Status::Converged for the first two):
//   * the gradient: ||grad F(x_k)||_inf <= tol * max(1, |F(x_k)|) -- the projected gradient of L-BFGS-B's
//     pgtol test (no bounds here, so the gradient itself), relative to the objective once it exceeds 1, so
//     scaling every sample weight by c (which scales F and its gradient by c) does not change when a fit
//     stops; checked at the starting point too, so a warm start at the optimum takes no iteration;
//   * the rounding floor: the line search found no point with F(x + t d) <= F(x) that moves x, even along
//     -grad F after the memory was cleared (near the optimum the sufficient-decrease test is decided by
//     rounding and the curvature test by the gradient, so the iterates keep improving the gradient well
//     past the point where F stops decreasing; there is no test on F's relative decrease, L-BFGS-B's
//     factr, which at scikit-learn's 64 eps stopped fits at gradients of 1e-7);
//   * max_iter iterations (Status::MaxIter); the monitor's divergence rule (Status::Diverged); the progress
//     callback (Status::Interrupted); an installed interrupt poll throws Interrupted from inside a pass.
// Deterministic: the same input gives the same bits (no random draw anywhere).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "data.hpp"
#include "model.hpp"
#include "monitor.hpp"
#include "result.hpp"

namespace robustcore {
namespace lbfgs {

struct LbfgsParams {
  double lambda = 1e-4;          ///< L2 strength (alpha in Python), the variance-reduced solvers' convention
  int64_t max_iter = 100;        ///< iterations (accepted steps)
  int64_t memory = 10;           ///< correction pairs kept (L-BFGS-B's m)
  double tol = 1e-4;             ///< gradient rule: ||grad||_inf <= tol max(1, |F|); 0 = only the other rules
  bool fit_intercept = true;
  bool record_history = true;    ///< objective, train error, gradient norm per iteration (no extra pass)
  int64_t max_linesearch = 20;   ///< evaluations per line search (L-BFGS-B's maxls)
  /// Optional per-sample weights sw_i (non-owning, length n, >= 0); nullptr = all ones.
  const double* sample_weight = nullptr;

  void validate() const {
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
    if (max_iter < 0) throw std::invalid_argument("max_iter (the number of iterations) must be >= 0");
    if (memory < 1) throw std::invalid_argument("memory (the number of correction pairs) must be >= 1");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("tol must be >= 0 and finite");
    if (max_linesearch < 1) throw std::invalid_argument("max_linesearch must be >= 1");
  }
};

/// F(W, b) (returned) and its gradient (G: d x K feature-major, gb: K; gb = 0 without fit_intercept) in
/// one pass over the rows; `error` (optional) receives the 0/1 training error at (W, b).
template <class Model, class Data>
double objective_gradient(const Data& X, const Model& model, const double* sw, double lambda, bool fit_intercept,
                          const double* W, const double* b, double* G, double* gb, double* error = nullptr) {
  const int64_t n = X.rows(), dK = X.cols() * model.K(), K = model.K();
  std::fill(G, G + dK, 0.0);
  std::fill(gb, gb + K, 0.0);
  double lsum = 0.0;
  int64_t wrong = 0;
  const double inv_n = n ? 1.0 / static_cast<double>(n) : 0.0;
  evaluate_rows(X, model, sw, W, b, 0, n, inv_n, lsum, error ? &wrong : nullptr, G, gb);
  double sq = 0.0;
  for (int64_t q = 0; q < dK; ++q) {
    sq += W[q] * W[q];
    G[q] += lambda * W[q];
  }
  if (!fit_intercept) std::fill(gb, gb + K, 0.0);
  if (error) *error = static_cast<double>(wrong) * inv_n;
  return lsum * inv_n + 0.5 * lambda * sq;
}

namespace detail {

/// One safeguarded step of More and Thuente's search (their Section 4; MINPACK-2's dcstep): from the
/// best step stx (value fx, slope dx), the other end sty of the interval (fy, dy) and the trial stp (fp,
/// dp), the next trial step (returned in stp) from cubic / quadratic (secant) interpolation, and the
/// updated interval; `bracketed` once the interval is known to contain a minimiser. [lo, hi] bounds
/// the trial while nothing is bracketed.
inline void safeguarded_step(double& stx, double& fx, double& dx, double& sty, double& fy, double& dy, double& stp,
                             double fp, double dp, bool& bracketed, double lo, double hi) {
  const double sgnd = dp * (dx > 0.0 ? 1.0 : dx < 0.0 ? -1.0 : 0.0);
  double next;
  // the minimiser of the cubic through (stx, fx, dx) and (a, fa, da), with gamma's sign from `flip`
  auto cubic_gamma = [](double theta, double d1, double d2, bool clamp) {
    const double s = std::max({std::fabs(theta), std::fabs(d1), std::fabs(d2)});
    double r = (theta / s) * (theta / s) - (d1 / s) * (d2 / s);
    if (clamp) r = std::max(0.0, r);
    return s * std::sqrt(r);
  };
  if (fp > fx) {
    // Case 1: a higher value: the minimiser is bracketed; the cubic step, or halfway to the quadratic one
    // when the cubic one is farther from stx.
    const double theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    double gamma = cubic_gamma(theta, dx, dp, false);
    if (stp < stx) gamma = -gamma;
    const double p = (gamma - dx) + theta, q = ((gamma - dx) + gamma) + dp;
    const double stpc = stx + (p / q) * (stp - stx);
    const double stpq = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx);
    next = std::fabs(stpc - stx) <= std::fabs(stpq - stx) ? stpc : stpc + (stpq - stpc) / 2.0;
    bracketed = true;
  } else if (sgnd < 0.0) {
    // Case 2: a lower value and slopes of opposite signs: bracketed; the step farther from stp of the
    // cubic and the secant ones.
    const double theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    double gamma = cubic_gamma(theta, dx, dp, false);
    if (stp > stx) gamma = -gamma;
    const double p = (gamma - dp) + theta, q = ((gamma - dp) + gamma) + dx;
    const double stpc = stp + (p / q) * (stx - stp);
    const double stpq = stp + (dp / (dp - dx)) * (stx - stp);
    next = std::fabs(stpc - stp) > std::fabs(stpq - stp) ? stpc : stpq;
    bracketed = true;
  } else if (std::fabs(dp) < std::fabs(dx)) {
    // Case 3: a lower value, slopes of the same sign, the slope's magnitude decreasing: the cubic step
    // only if it goes the right way and its minimiser is finite, else the bound; kept inside the interval.
    const double theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp;
    double gamma = cubic_gamma(theta, dx, dp, true);
    if (stp > stx) gamma = -gamma;
    const double p = (gamma - dp) + theta, q = (gamma + (dx - dp)) + gamma;
    const double r = p / q;
    double stpc;
    if (r < 0.0 && gamma != 0.0) stpc = stp + r * (stx - stp);
    else stpc = stp > stx ? hi : lo;
    const double stpq = stp + (dp / (dp - dx)) * (stx - stp);
    if (bracketed) {
      next = std::fabs(stpc - stp) < std::fabs(stpq - stp) ? stpc : stpq;
      next = stp > stx ? std::min(stp + 0.66 * (sty - stp), next) : std::max(stp + 0.66 * (sty - stp), next);
    } else {
      next = std::fabs(stpc - stp) > std::fabs(stpq - stp) ? stpc : stpq;
      next = std::min(hi, std::max(lo, next));
    }
  } else {
    // Case 4: a lower value, slopes of the same sign, not decreasing: the cubic through stp and sty when
    // bracketed, else the bound.
    if (bracketed) {
      const double theta = 3.0 * (fp - fy) / (sty - stp) + dy + dp;
      double gamma = cubic_gamma(theta, dy, dp, false);
      if (stp > sty) gamma = -gamma;
      const double p = (gamma - dp) + theta, q = ((gamma - dp) + gamma) + dy;
      next = stp + (p / q) * (sty - stp);
    } else {
      next = stp > stx ? hi : lo;
    }
  }
  // the new interval
  if (fp > fx) {
    sty = stp, fy = fp, dy = dp;
  } else {
    if (sgnd < 0.0) sty = stx, fy = fx, dy = dx;
    stx = stp, fx = fp, dx = dp;
  }
  stp = next;
}

/// More and Thuente's line search (MINPACK-2's dcsrch) as a state machine on phi(t) = F(x + t d):
/// start(t0, phi(0), phi'(0)) once, then after each evaluation at the current trial t, next(t, phi(t),
/// phi'(t)) answers Evaluate (t set to the next trial), Converged (t satisfies both strong Wolfe
/// conditions) or Stuck (rounding errors, the interval below xtol, or a bound reached: t is the last
/// trial, which may satisfy the sufficient decrease only, or nothing).
class MoreThuente {
 public:
  enum class Task { Evaluate, Converged, Stuck };
  MoreThuente(double ftol, double gtol, double xtol, double stpmin, double stpmax)
      : ftol_(ftol), gtol_(gtol), xtol_(xtol), stpmin_(stpmin), stpmax_(stpmax) {}

  void start(double stp, double f0, double g0) {
    bracketed_ = false;
    stage_ = 1;
    finit_ = f0;
    ginit_ = g0;
    gtest_ = ftol_ * g0;
    width_ = stpmax_ - stpmin_;
    width1_ = 2.0 * width_;
    stx_ = sty_ = 0.0;
    fx_ = fy_ = f0;
    gx_ = gy_ = g0;
    stmin_ = 0.0;
    stmax_ = stp + 4.0 * stp;
  }

  Task next(double& stp, double f, double g) {
    const double ftest = finit_ + stp * gtest_;
    if (stage_ == 1 && f <= ftest && g >= 0.0) stage_ = 2;
    if (f <= ftest && std::fabs(g) <= gtol_ * -ginit_) return Task::Converged;
    if ((bracketed_ && (stp <= stmin_ || stp >= stmax_)) || (bracketed_ && stmax_ - stmin_ <= xtol_ * stmax_) ||
        (stp == stpmax_ && f <= ftest && g <= gtest_) || (stp == stpmin_ && (f > ftest || g >= gtest_)))
      return Task::Stuck;
    if (stage_ == 1 && f <= fx_ && f > ftest) {
      // the first stage on the modified function psi(t) = phi(t) - phi(0) - ftol t phi'(0)
      double fm = f - stp * gtest_, fxm = fx_ - stx_ * gtest_, fym = fy_ - sty_ * gtest_;
      double gm = g - gtest_, gxm = gx_ - gtest_, gym = gy_ - gtest_;
      safeguarded_step(stx_, fxm, gxm, sty_, fym, gym, stp, fm, gm, bracketed_, stmin_, stmax_);
      fx_ = fxm + stx_ * gtest_;
      fy_ = fym + sty_ * gtest_;
      gx_ = gxm + gtest_;
      gy_ = gym + gtest_;
    } else {
      safeguarded_step(stx_, fx_, gx_, sty_, fy_, gy_, stp, f, g, bracketed_, stmin_, stmax_);
    }
    if (bracketed_) {  // bisect when the interval did not shrink enough over two steps
      if (std::fabs(sty_ - stx_) >= 0.66 * width1_) stp = stx_ + 0.5 * (sty_ - stx_);
      width1_ = width_;
      width_ = std::fabs(sty_ - stx_);
      stmin_ = std::min(stx_, sty_);
      stmax_ = std::max(stx_, sty_);
    } else {
      stmin_ = stp + 1.1 * (stp - stx_);
      stmax_ = stp + 4.0 * (stp - stx_);
    }
    stp = std::min(stpmax_, std::max(stpmin_, stp));
    // no progress is possible: try the best step so far
    if (bracketed_ && (stp <= stmin_ || stp >= stmax_ || stmax_ - stmin_ <= xtol_ * stmax_)) stp = stx_;
    return Task::Evaluate;
  }

 private:
  double ftol_, gtol_, xtol_, stpmin_, stpmax_;
  bool bracketed_ = false;
  int stage_ = 1;
  double finit_ = 0, ginit_ = 0, gtest_ = 0, width_ = 0, width1_ = 0;
  double stx_ = 0, fx_ = 0, gx_ = 0, sty_ = 0, fy_ = 0, gy_ = 0, stmin_ = 0, stmax_ = 0;
};

inline double dot(const double* a, const double* b, int64_t n) {
  double s = 0.0;
  for (int64_t q = 0; q < n; ++q) s += a[q] * b[q];
  return s;
}
inline double inf_norm(const double* a, int64_t n) {
  double m = 0.0;
  for (int64_t q = 0; q < n; ++q) m = std::max(m, std::fabs(a[q]));
  return m;
}

/// The last `m` correction pairs (s, y) in a ring and the two-loop recursion d = -H g.
class Memory {
 public:
  Memory(int64_t m, int64_t N)
      : m_(m), N_(N), S_(static_cast<size_t>(m * N)), Y_(static_cast<size_t>(m * N)), rho_(static_cast<size_t>(m)),
        a_(static_cast<size_t>(m)) {}
  int64_t size() const { return count_; }
  void clear() { count_ = 0; }
  /// Stores s = x1 - x0, y = g1 - g0 unless s'y <= eps y'y (then the pair would break positive
  /// definiteness); returns whether it was stored.
  bool push(const double* x1, const double* x0, const double* g1, const double* g0) {
    double sy = 0.0, yy = 0.0;
    for (int64_t q = 0; q < N_; ++q) {
      const double sq = x1[q] - x0[q], yq = g1[q] - g0[q];
      sy += sq * yq;
      yy += yq * yq;
    }
    if (!(sy > std::numeric_limits<double>::epsilon() * yy)) return false;  // the oldest pair is kept
    double* s = S_.data() + head_ * N_;
    double* y = Y_.data() + head_ * N_;
    for (int64_t q = 0; q < N_; ++q) {
      s[q] = x1[q] - x0[q];
      y[q] = g1[q] - g0[q];
    }
    rho_[static_cast<size_t>(head_)] = 1.0 / sy;
    gamma_ = sy / yy;
    head_ = (head_ + 1) % m_;
    count_ = std::min(count_ + 1, m_);
    return true;
  }
  /// d = -H g (the identity times gamma as H_0; -g when empty).
  void direction(const double* g, double* d) {
    for (int64_t q = 0; q < N_; ++q) d[q] = -g[q];
    for (int64_t t = 0; t < count_; ++t) {  // newest to oldest
      const int64_t i = (head_ - 1 - t + m_) % m_;
      const double a = rho_[static_cast<size_t>(i)] * dot(S_.data() + i * N_, d, N_);
      a_[static_cast<size_t>(i)] = a;
      const double* y = Y_.data() + i * N_;
      for (int64_t q = 0; q < N_; ++q) d[q] -= a * y[q];
    }
    if (count_ > 0)
      for (int64_t q = 0; q < N_; ++q) d[q] *= gamma_;
    for (int64_t t = count_ - 1; t >= 0; --t) {  // oldest to newest
      const int64_t i = (head_ - 1 - t + m_) % m_;
      const double beta = rho_[static_cast<size_t>(i)] * dot(Y_.data() + i * N_, d, N_);
      const double* s = S_.data() + i * N_;
      const double c = a_[static_cast<size_t>(i)] - beta;
      for (int64_t q = 0; q < N_; ++q) d[q] += c * s[q];
    }
  }

 private:
  int64_t m_, N_, head_ = 0, count_ = 0;
  std::vector<double> S_, Y_, rho_, a_;
  double gamma_ = 1.0;
};

}  // namespace detail

namespace detail {

/// What the two deterministic solvers (this file's L-BFGS, newton.hpp's Newton) share about their iterates:
/// x = (W, b) and its gradient g (the first N entries move: b only with fit_intercept), the trial point xt / gt,
/// F and the 0/1 error at x, the evaluation pass (objective_gradient; counted), the report into the caller's
/// W and b and the monitor, the gradient rule ||g||_inf <= tol max(1, |F|), and the acceptance of a trial
/// point (or the rounding floor when it does not move x or lower F).
template <class Model, class Data>
class Iterates {
 public:
  Iterates(const Data& X, const Model& model, double lambda, bool fit_intercept, const double* sw,
           bool record_history, double tol, double* W, double* b, Result& res, const ProgressFn& progress)
      : X_(X), model_(model), lambda_(lambda), fit_intercept_(fit_intercept), sw_(sw), record_(record_history),
        tol_(tol), W_(W), b_(b), res_(res), dK_(X.cols() * model.K()), K_(model.K()),
        N(dK_ + (fit_intercept ? K_ : 0)), x(static_cast<size_t>(dK_ + K_)), g(x.size()), xt(x.size()), gt(x.size()),
        mon_(X, model, MonitorSettings{lambda, fit_intercept, sw, record_history, /*grad_norm=*/true, /*tol=*/0.0},
             res, progress) {
    std::copy(W, W + dK_, x.begin());
    std::copy(b, b + K_, x.begin() + dK_);
    xt = x;
  }
  /// F at `at` (its gradient into grad, the 0/1 error into *error when the history records it): one pass.
  double evaluate(const std::vector<double>& at, std::vector<double>& grad, double* error) {
    ++evaluations;
    return objective_gradient(X_, model_, sw_, lambda_, fit_intercept_, at.data(), at.data() + dK_, grad.data(),
                              grad.data() + dK_, record_ ? error : nullptr);
  }
  /// Evaluates the starting point and reports it; false: stop (the callback asked, or the gradient rule holds
  /// there: Status::Converged).
  bool start() {
    f = evaluate(x, g, &err);
    return report(0);
  }
  /// F(xt) <= F(x) with xt != x: x = xt (res.step = step), reported as iteration k; else the rounding floor
  /// (Status::Converged). False: stop.
  bool accept(double ft, double errt, double step, int64_t k) {
    if (!trial_moved(ft)) {
      res_.status = Status::Converged;
      return false;
    }
    std::swap(x, xt);
    std::swap(g, gt);
    f = ft;
    err = errt;
    res_.step = step;
    return report(k);
  }
  /// Whether the trial point (value ft) lowers F without leaving x where it is: what accept() asks.
  bool trial_moved(double ft) const {
    bool moved = false;
    for (int64_t q = 0; q < N && !moved; ++q) moved = xt[static_cast<size_t>(q)] != x[static_cast<size_t>(q)];
    return std::isfinite(ft) && ft <= f && moved;
  }

 private:
  /// x into W, b; the monitor; then the gradient rule. False: stop.
  bool report(int64_t k) {
    std::copy(x.begin(), x.begin() + dK_, W_);
    std::copy(x.begin() + dK_, x.end(), b_);
    const KnownPoint kp{f, std::sqrt(dot(g.data(), g.data(), N)), err};
    const bool go = k == 0 ? mon_.start(W_, b_, &kp) : mon_.end_pass(W_, b_, static_cast<double>(k), k, &kp);
    res_.history.push("evaluations", static_cast<double>(evaluations));
    if (!go) return false;
    if (inf_norm(g.data(), N) <= tol_ * std::max(1.0, std::fabs(f))) {
      res_.status = Status::Converged;
      return false;
    }
    return true;
  }

  const Data& X_;
  const Model& model_;
  double lambda_;
  bool fit_intercept_;
  const double* sw_;
  bool record_;
  double tol_;
  double* W_;
  double* b_;
  Result& res_;
  int64_t dK_, K_;

 public:
  const int64_t N;                      ///< the entries of x that move
  std::vector<double> x, g, xt, gt;     ///< the iterate, its gradient; the trial point, its gradient
  double f = 0.0, err = 0.0;            ///< F and the 0/1 error at x
  int64_t evaluations = 0;              ///< passes for F and its gradient so far

 private:
  Monitor<Model, Data> mon_;
};

}  // namespace detail

/// Fits the model from the initial W (d x K feature-major) and b (K), both in/out (a warm start from any
/// given model). Result: n_iter = iterations, step = the last accepted step length; history "objective",
/// "train_error", "grad_norm" (2-norm) per iteration when record_history, and always "passes"
/// (iterations), "seconds" and "evaluations" (passes over the data so far).
template <class Model, class Data>
Result fit(const Data& X, const Model& model, const LbfgsParams& p, double* W, double* b,
           const ProgressFn& progress = nullptr) {
  static_assert(Model::smooth, "L-BFGS needs a smooth loss");
  p.validate();
  const int64_t n = X.rows();
  if (n < 1) throw std::invalid_argument("L-BFGS needs at least one sample");
  model.validate_labels(n);
  validate_sample_weight(p.sample_weight, n);
  Result res;
  detail::Iterates<Model, Data> it(X, model, p.lambda, p.fit_intercept, p.sample_weight, p.record_history, p.tol, W,
                                   b, res, progress);
  const int64_t N = it.N;
  auto &x = it.x, &g = it.g, &xt = it.xt, &gt = it.gt;
  std::vector<double> dir(x.size(), 0.0);
  if (!it.start()) return res;
  detail::Memory memory(p.memory, N);
  detail::MoreThuente search(/*ftol=*/1e-3, /*gtol=*/0.9, /*xtol=*/0.1, /*stpmin=*/0.0, /*stpmax=*/1e10);
  int64_t k = 0;
  while (k < p.max_iter) {
    memory.direction(g.data(), dir.data());
    double gd = detail::dot(g.data(), dir.data(), N);
    if (!(gd < 0.0)) {  // not a descent direction (rounding in H): steepest descent
      memory.clear();
      memory.direction(g.data(), dir.data());
      gd = detail::dot(g.data(), dir.data(), N);
      if (!(gd < 0.0)) {  // a zero gradient
        res.status = Status::Converged;
        return res;
      }
    }
    // the first step of a fresh memory moves x by 1 (L-BFGS-B's 1/||d||), later ones are the quasi-Newton step
    // (capping the first at 1, i.e. a move of ||g||, cost 1-4 more evaluations per fit, cold or warm)
    double stp = memory.size() == 0 ? 1.0 / std::sqrt(detail::dot(dir.data(), dir.data(), N)) : 1.0;
    double ft = 0.0, errt = 0.0, gdt = 0.0;
    int64_t trials = 0;
    auto trial = [&]() {
      for (int64_t q = 0; q < N; ++q) xt[static_cast<size_t>(q)] = x[static_cast<size_t>(q)] + stp * dir[static_cast<size_t>(q)];
      ft = it.evaluate(xt, gt, &errt);
      gdt = detail::dot(gt.data(), dir.data(), N);
      ++trials;
    };
    // a first trial whose scores or losses overflow: shorten it before the interpolation sees it
    trial();
    while (!(std::isfinite(ft) && std::isfinite(gdt)) && trials < p.max_linesearch) {
      stp *= 0.1;
      trial();
    }
    if (std::isfinite(ft) && std::isfinite(gdt)) {
      search.start(stp, it.f, gd);
      while (trials < p.max_linesearch && search.next(stp, ft, gdt) == detail::MoreThuente::Task::Evaluate) {
        trial();
        if (!(std::isfinite(ft) && std::isfinite(gdt))) break;
      }
    }
    const bool moved = it.trial_moved(ft);
    if (!moved && memory.size() > 0) {  // no decrease along d: retry from steepest descent
      memory.clear();
      continue;
    }
    if (moved) memory.push(xt.data(), x.data(), gt.data(), g.data());
    if (!it.accept(ft, errt, stp, ++k)) return res;  // (not even along -grad F: the rounding floor)
  }
  res.status = Status::MaxIter;
  return res;
}

}  // namespace lbfgs
}  // namespace robustcore
