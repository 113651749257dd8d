// Focused Online Learning (FOL): minimise the maximal loss max_i l(w, x_i, y_i) over the training set
// by a zero-sum game between an online learner (the w player) and an EXP3-style sampler (the p player)
// kept in a sum tree (FOL paper, section 2.3; Theorem 1).
//
// Loop over t = 1..T (paper, section 2.3):
//   (i_t, p_{i_t}) = Tree.sample(gamma)                (gamma = 1/2 in the paper)
//   l_t = l(w_t, x_{i_t}, y_{i_t})  in [0, 1]           (the "focus" loss of the p player)
//   OLA.step(x_{i_t}, y_{i_t})
//   Tree.update(i_t, exp(eta l_t / p_{i_t}))            (eta = 1/(2m) by Theorem 1)
// With mini-batches of b examples all drawn from p_t, the p player's estimate of the loss vector is
// (1/b) sum_j l_j / p_j e_{i_j}, so each factor is exp(eta l_j / (b p_j)); the learner takes one step
// on the batch (all scores computed at w_t).
// Output: k iterates w_{t_1..t_k} at times drawn uniformly from [T] before the run (only those k are
// stored, never all T), plus the last iterate; the Python layer combines them by majority or average.
//
// OnlineLearner concept (linear models over a data view, no virtual calls):
//   int64_t dim() const                                 d (the intercept is kept apart)
//   template <class Row> double score(const Row&) const w.x + b
//   template <class Row> void step(const Row* rows, const double* y, const double* score, int64_t b,
//                                  int64_t t)           one update from b examples scored at w_t
//   double surrogate(double y, double score) const      the learner's own loss (history "max_loss")
//   void write(double* out) const                       w (d values) then b
// Learners here: Perceptron (mistake-driven, Example 1 of the paper) and SgdLearner<Loss> (one SGD step
// on any loss of losses.hpp, L2 shrinkage through a ScaledVector so sparse steps cost O(nnz)). A
// LearnerSpec names one of them at run time; with_learner builds it (checking its parameters) and
// calls a function with it, so the loop is instantiated once per learner type (the SGD learner once,
// on AnyLoss).
//
// Entry points: fol_fit and adaboost_fit take (data, labels, params, outputs..., progress), check every
// precondition (std::invalid_argument) and return a Result (result.hpp) whose history has the columns
// max_loss, train_error, test_error, max_q, seconds (FOL) / train_error, test_error (AdaBoost).
// fol_run / adaboost_run are the loops over an already built learner, for C++ callers with their own.
// Tie rule (scikit-learn's), for every error count here: a score > 0 predicts +1, a zero score -1.
//
// Robust variant, slack variables (section 4.2, additive slack): the p player sees
// max(0, l_i - xi_i), and after each step the slack player moves xi_{i_t} += slack_lr / b for the sampled
// examples whose loss still exceeds their slack (a stochastic gradient step on E_{i~p}[max(0, l_i - xi_i)],
// whose xi_i-derivative is -1[l_i > xi_i]), then projects xi onto
// {xi in [0, 1]^m, sum xi <= K} (projections.hpp; the O(m log m) projection runs only on steps that
// leave the set through the budget, the box alone is a clip).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "any_loss.hpp"
#include "data.hpp"
#include "losses.hpp"
#include "projections.hpp"
#include "rng.hpp"
#include "schedules.hpp"
#include "result.hpp"
#include "sum_tree.hpp"
#include "weights.hpp"

namespace robustcore {

/// 1 when the score s misclassifies the label y in {-1, +1} under the tie rule (s > 0 predicts +1).
inline bool misclassified(double y, double s) { return (s > 0.0) != (y > 0.0); }

/// The Perceptron as an online learner: on a mistake (y s <= 0; the Perceptron's own update rule, which
/// also updates on a zero margin) w += y x, b += y (if fit_intercept).
/// Batches add every mistaken example of the batch (scale-invariant, so no 1/b is needed).
class Perceptron {
 public:
  Perceptron(int64_t d, bool fit_intercept) : w_(static_cast<size_t>(d), 0.0), fit_intercept_(fit_intercept) {}
  int64_t dim() const { return static_cast<int64_t>(w_.size()); }
  template <class Row>
  double score(const Row& r) const { return dot(r, w_.data()) + b_; }
  template <class Row>
  void step(const Row* rows, const double* y, const double* s, int64_t n, int64_t /*t*/) {
    for (int64_t j = 0; j < n; ++j) {
      if (y[j] * s[j] <= 0.0) {
        axpy(y[j], rows[j], w_.data());
        if (fit_intercept_) b_ += y[j];
      }
    }
  }
  double surrogate(double y, double s) const { return std::max(0.0, -y * s); }
  void write(double* out) const {
    std::copy(w_.begin(), w_.end(), out);
    out[w_.size()] = b_;
  }
  void assign(const double* w, double b) {
    std::copy(w, w + w_.size(), w_.begin());
    b_ = b;
  }

 private:
  std::vector<double> w_;
  double b_ = 0.0;
  bool fit_intercept_;
};

/// One SGD step per FOL iteration on loss `Loss` with L2 penalty lambda/2 ||w||^2:
///   w <- (1 - lr_t lambda) w - lr_t (1/b) sum_j Loss'(y_j s_j) y_j x_j,   b <- b - lr_t ibl (1/b) sum_j Loss'(..) y_j
/// with lr_t from schedules.hpp (t = FOL step index, from 1).
template <class Loss>
class SgdLearner {
 public:
  SgdLearner(int64_t d, const Loss& loss, const LearningRate& lr, bool fit_intercept, double intercept_lr)
      : w_(d), loss_(loss), lr_(lr), fit_intercept_(fit_intercept), intercept_lr_(intercept_lr) {
    lr_.validate();
  }
  int64_t dim() const { return w_.size(); }
  template <class Row>
  double score(const Row& r) const { return w_.dot(r) + b_; }
  template <class Row>
  void step(const Row* rows, const double* y, const double* s, int64_t n, int64_t t) {
    const double eta = lr_(static_cast<double>(t));
    if (lr_.lambda > 0.0) {
      w_.scale_by(1.0 - eta * lr_.lambda);
      if (w_.needs_fold()) w_.fold();
    }
    const double inv = 1.0 / static_cast<double>(n);
    double gb = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double g = loss_.deriv(y[j] * s[j]) * y[j];
      if (g != 0.0) {
        w_.add(-eta * inv * g, rows[j]);
        gb += g;
      }
    }
    if (fit_intercept_) b_ -= eta * intercept_lr_ * inv * gb;
  }
  double surrogate(double y, double s) const { return loss_.value(y * s); }
  void write(double* out) const {
    w_.materialize(out);
    out[w_.size()] = b_;
  }
  void assign(const double* w, double b) {
    w_.assign(w);
    b_ = b;
  }
  const Loss& loss() const { return loss_; }

 private:
  ScaledVector w_;
  double b_ = 0.0;
  Loss loss_;
  LearningRate lr_;
  bool fit_intercept_;
  double intercept_lr_;
};

/// Which online learner plays w, by name at run time.
enum class LearnerKind : int {
  Perceptron = 0,  ///< Perceptron (no step size, no loss)
  Sgd = 1,         ///< SgdLearner on `loss` with the schedule, alpha, eta0, power_t
};

/// A learner and its parameters (the Python estimators' names).
struct LearnerSpec {
  LearnerKind kind = LearnerKind::Perceptron;
  LossSpec loss;  ///< Sgd: the loss of the step (and of the history's max_loss)
  Schedule schedule = Schedule::Constant;
  double alpha = 1e-4;  ///< Sgd: L2 strength (lambda of the papers)
  double eta0 = 0.1;
  double power_t = 0.5;
  bool fit_intercept = true;
  double intercept_lr = 1.0;  ///< Sgd: the intercept's step is intercept_lr times the weights' step

  LearningRate lr() const {
    LearningRate r;
    r.schedule = schedule;
    r.lambda = alpha;
    r.eta0 = eta0;
    r.power_t = power_t;
    return r;
  }
  /// Throws std::invalid_argument on any bad parameter (checked whatever the kind, so a bad value
  /// never waits for a later switch of learner to surface).
  void validate() const {
    if (kind != LearnerKind::Perceptron && kind != LearnerKind::Sgd)
      throw std::invalid_argument("learner must be the Perceptron or SGD");
    lr().validate();
    visit_loss(loss, [](const auto&) { return 0; });  // the loss's constructor checks its parameters
    if (!(intercept_lr > 0.0) || !std::isfinite(intercept_lr))
      throw std::invalid_argument("intercept_lr must be > 0 and finite");
  }
};

/// Builds the learner `spec` names for d features (w = 0, b = 0), after spec.validate(), and returns
/// f(learner).
template <class F>
decltype(auto) with_learner(const LearnerSpec& spec, int64_t d, F&& f) {
  spec.validate();
  if (spec.kind == LearnerKind::Perceptron) {
    Perceptron p(d, spec.fit_intercept);
    return f(p);
  }
  SgdLearner<AnyLoss> learner(d, AnyLoss(spec.loss), spec.lr(), spec.fit_intercept, spec.intercept_lr);
  return f(learner);
}

/// What the p player observes as the loss l in [0, 1].
enum class Focus : int {
  ZeroOne = 0,  ///< 1[the score misclassifies y] (the paper's choice for classification, Corollary 1)
  Clipped = 1,  ///< min(1, surrogate(y, s)): the learner's own loss clipped to [0, 1]
};

struct FolParams {
  LearnerSpec learner;
  int64_t max_iter = 10;        ///< epochs: T = max_iter * steps per epoch FOL steps
  int64_t steps_per_epoch = 0;  ///< history/progress period; <= 0 means ceil(m / b)
  int64_t batch_size = 1;       ///< b examples per step, all drawn from p_t
  double eta = 0.0;             ///< p-player step; 0 means 1/(2m) (Theorem 1)
  double gamma = 0.5;           ///< uniform exploration in Tree.sample(gamma)
  int64_t k = 0;                ///< number of iterates kept at uniformly drawn times
  Focus focus = Focus::ZeroOne;
  bool record_history = true;
  double slack_budget = -1.0;   ///< K of section 4.2; < 0 turns the slack variables off
  double slack_lr = 0.0;        ///< step of the slack player (> 0 when slack_budget >= 0)
  uint64_t seed = 0;
  /// Per example, in [0, 1]: multiplies the focus loss l_t of the p player (class weights: a class weighted
  /// down is not chased by the sampler). Empty: all 1 (the paper).
  std::vector<double> focus_weights;

  /// Steps per epoch for m training examples (batch_size >= 1).
  int64_t epoch_steps(int64_t m) const { return steps_per_epoch > 0 ? steps_per_epoch : (m + batch_size - 1) / batch_size; }
  /// T for m training examples.
  int64_t n_steps(int64_t m) const { return max_iter * epoch_steps(m); }

  void validate(int64_t m) const {
    if (m < 1) throw std::invalid_argument("FOL: need at least one training example");
    learner.validate();
    if (max_iter < 1) throw std::invalid_argument("FOL: max_iter must be >= 1");
    if (batch_size < 1) throw std::invalid_argument("FOL: batch_size must be >= 1");
    if (max_iter > std::numeric_limits<int64_t>::max() / epoch_steps(m) / batch_size)
      throw std::invalid_argument("FOL: max_iter * steps per epoch * batch_size overflows");
    if (!(gamma > 0.0 && gamma <= 1.0)) throw std::invalid_argument("FOL: gamma must be in (0, 1]");
    if (!std::isfinite(eta) || eta < 0.0) throw std::invalid_argument("FOL: eta must be finite and >= 0 (0 = 1/(2m))");
    if (k < 0) throw std::invalid_argument("FOL: k must be >= 0");
    if (focus != Focus::ZeroOne && focus != Focus::Clipped) throw std::invalid_argument("FOL: unknown focus");
    if (!std::isfinite(slack_budget)) throw std::invalid_argument("FOL: slack_budget must be finite");
    if (slack_budget >= 0.0 && !(slack_lr > 0.0 && std::isfinite(slack_lr)))
      throw std::invalid_argument("FOL: slack_lr must be > 0 when slack variables are used");
    if (!focus_weights.empty()) {
      if (static_cast<int64_t>(focus_weights.size()) != m)
        throw std::invalid_argument("FOL: focus_weights must hold one value per training example");
      for (double v : focus_weights)
        if (!(v >= 0.0 && v <= 1.0)) throw std::invalid_argument("FOL: focus_weights must be in [0, 1]");
    }
  }
};

/// FOL's result: Result (n_iter = epochs done; history max_loss, train_error, test_error, max_q,
/// seconds) plus the snapshot times and the sum tree's rescale count.
struct FolResult : Result {
  std::vector<int64_t> snapshot_times;  ///< the k times t_1 <= ... <= t_k in [1, T]
  int64_t rescales = 0;                 ///< sum-tree rescales (diagnostic)
};

/// The k snapshot times, drawn uniformly with replacement from [1, T] and sorted. Uses its own
/// generator (seed mixed with a constant) so the sampling sequence does not depend on k.
inline std::vector<int64_t> fol_snapshot_times(int64_t T, int64_t k, uint64_t seed) {
  if (T < 1) throw std::invalid_argument("FOL: the number of steps T must be >= 1");
  if (k < 0) throw std::invalid_argument("FOL: k must be >= 0");
  Rng rng(seed ^ 0x5eed5eed5eed5eedULL);
  std::vector<int64_t> t(static_cast<size_t>(k));
  for (auto& x : t) x = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(T)));
  std::sort(t.begin(), t.end());
  return t;
}

namespace detail {
/// Fraction of rows of X whose score misclassifies y.
template <class Data, class Learner>
double error_rate(const Data& X, const double* y, const Learner& learner) {
  int64_t e = 0;
  InterruptCheck stop;
  for (int64_t i = 0; i < X.rows(); ++i) {
    stop.tick();
    e += misclassified(y[i], learner.score(X.row(i)));
  }
  return X.rows() ? static_cast<double>(e) / static_cast<double>(X.rows()) : 0.0;
}

/// Labels and the optional test set, checked once by every entry point.
template <class Data>
void check_fol_data(const Data& X, const double* y, const Data* X_test, const double* y_test, const char* who) {
  validate_binary_labels(y, X.rows());
  if (X_test) {
    if (X_test->cols() != X.cols())
      throw std::invalid_argument(std::string(who) + ": X_test has a different number of features");
    if (!y_test) throw std::invalid_argument(std::string(who) + ": X_test given without y_test");
    validate_binary_labels(y_test, X_test->rows());
  }
}
}  // namespace detail

/// The FOL loop with `learner` (state read and written in place) on (X, y in {-1,+1}), params already
/// validated against X.rows().
///   snapshots: k x (d+1) output rows (w then b), filled at the snapshot times.
///   tree: the p player's weights (m leaves); a fresh SumTree(m) is the paper's start.
///   xi: slack variables (length m) when params.slack_budget >= 0, else may be null.
///   order: optional injected sample indices (T * batch_size) replacing the sampler's draws (the
///          probabilities p_i are still those of the tree), for oracle tests.
///   current: optional d+1 values receiving the current iterate (w then b) before each progress call.
template <class Data, class Learner>
FolResult fol_run(const Data& X, const double* y, Learner& learner, const FolParams& params, SumTree& tree,
                  double* snapshots, double* xi, const int64_t* order, const Data* X_test, const double* y_test,
                  const ProgressFn& progress, double* current = nullptr) {
  const int64_t m = X.rows(), d = X.cols(), bsz = params.batch_size;
  if (tree.size() != m) throw std::invalid_argument("FOL: the sampler must have one leaf per training example");
  if (learner.dim() != d) throw std::invalid_argument("FOL: learner dimension does not match X");
  const bool slack = params.slack_budget >= 0.0;
  if (slack && !xi) throw std::invalid_argument("FOL: slack variables need an xi array");
  const double eta = params.eta > 0.0 ? params.eta : 1.0 / (2.0 * static_cast<double>(m));
  const int64_t spe = params.epoch_steps(m), T = params.n_steps(m);

  FolResult res;
  res.snapshot_times = fol_snapshot_times(T, params.k, params.seed);
  Rng rng(params.seed);
  std::vector<typename Data::Row> rows(static_cast<size_t>(bsz));
  std::vector<int64_t> idx(static_cast<size_t>(bsz));
  std::vector<double> ys(static_cast<size_t>(bsz)), sc(static_cast<size_t>(bsz)), pr(static_cast<size_t>(bsz));
  std::vector<double> w(static_cast<size_t>(d + 1));
  double xi_sum = 0.0;
  if (slack)
    for (int64_t i = 0; i < m; ++i) xi_sum += xi[i];
  size_t next_snap = 0;
  double seconds = 0.0;
  auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](Status s, int64_t t) {
    res.status = s;
    res.n_iter = static_cast<double>(t) / static_cast<double>(spe);
    res.rescales = tree.rescales();
    return res;
  };

  InterruptCheck stop;
  auto evaluate = [&]() {
    double mx = 0.0;
    for (int64_t i = 0; i < m; ++i) {
      stop.tick();
      mx = std::max(mx, learner.surrogate(y[i], learner.score(X.row(i))));
    }
    res.history.push("max_loss", mx);
    res.history.push("train_error", detail::error_rate(X, y, learner));
    if (X_test) res.history.push("test_error", detail::error_rate(*X_test, y_test, learner));
    double mq = 0.0;
    for (int64_t i = 0; i < m; ++i) mq = std::max(mq, tree.leaf(i));
    res.history.push("max_q", mq / tree.total());
    res.history.push("seconds", seconds);
  };

  if (progress && !progress(0)) return finish(Status::Interrupted, 0);  // false before the first step: none
  for (int64_t t = 1; t <= T; ++t) {
    stop.tick(bsz);
    for (int64_t j = 0; j < bsz; ++j) {
      int64_t i;
      double p;
      if (order) {
        i = order[(t - 1) * bsz + j];
        if (i < 0 || i >= m) throw std::invalid_argument("FOL: injected index out of range");
        p = tree.prob(i, params.gamma);
      } else {
        auto ip = tree.sample(params.gamma, rng);
        i = ip.first;
        p = ip.second;
      }
      idx[j] = i;
      pr[j] = p;
      rows[j] = X.row(i);
      ys[j] = y[i];
      sc[j] = learner.score(rows[j]);
    }
    learner.step(rows.data(), ys.data(), sc.data(), bsz, t);
    const double scale = eta / static_cast<double>(bsz);
    for (int64_t j = 0; j < bsz; ++j) {
      double l = params.focus == Focus::ZeroOne ? (misclassified(ys[j], sc[j]) ? 1.0 : 0.0)
                                                : std::min(1.0, learner.surrogate(ys[j], sc[j]));
      if (!params.focus_weights.empty()) l *= params.focus_weights[static_cast<size_t>(idx[j])];
      if (slack) {
        l = std::max(0.0, l - xi[idx[j]]);
        pr[j] = l > 0.0 ? -pr[j] : pr[j];  // sign marks "slack still active" for the slack step below
      }
      if (l > 0.0) tree.update_log(idx[j], scale * l / std::fabs(pr[j]));
    }
    if (slack) {
      bool over_box = false;
      for (int64_t j = 0; j < bsz; ++j) {
        if (pr[j] > 0.0) continue;  // d/dxi_i max(0, l_i - xi_i) = -1[l_i > xi_i]
        double& x = xi[idx[j]];
        const double nx = x + params.slack_lr / static_cast<double>(bsz);
        xi_sum += nx - x;
        x = nx;
        over_box |= nx > 1.0;
      }
      if (xi_sum > params.slack_budget) {
        project_capped_simplex(xi, m, 1.0, params.slack_budget, xi);
        xi_sum = 0.0;
        for (int64_t i = 0; i < m; ++i) xi_sum += xi[i];
      } else if (over_box) {
        for (int64_t j = 0; j < bsz; ++j) {
          double& x = xi[idx[j]];
          if (x > 1.0) {
            xi_sum -= x - 1.0;
            x = 1.0;
          }
        }
      }
    }
    while (next_snap < res.snapshot_times.size() && res.snapshot_times[next_snap] == t) {
      learner.write(snapshots + static_cast<int64_t>(next_snap) * (d + 1));
      ++next_snap;
    }
    if (t % spe == 0 || t == T) {
      // solver seconds only: the evaluation pass is timed out
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (params.record_history) evaluate();
      learner.write(w.data());
      for (double v : w)
        if (!std::isfinite(v)) return finish(Status::Diverged, t);
      if (current) std::copy(w.begin(), w.end(), current);
      if (progress && !progress(t)) return finish(Status::Interrupted, t);
      t0 = std::chrono::steady_clock::now();
    }
  }
  return finish(Status::MaxIter, T);
}

/// FOL with the learner params.learner names, from the model coef = [w, b] (d + 1, written back with
/// the last iterate) and the sampler weights `weights` (m leaf weights, written back; all ones is the
/// paper's start). snapshots: n_snapshots x (d+1) rows, n_snapshots == params.k. xi: slack variables
/// (length m, in/out) when params.slack_budget >= 0. order: n_order injected indices (n_order ==
/// T * batch_size) or null. Every precondition is checked here (std::invalid_argument).
template <class Data>
FolResult fol_fit(const Data& X, const double* y, const FolParams& params, double* coef, double* weights,
                  double* snapshots, int64_t n_snapshots, double* xi, const int64_t* order, int64_t n_order,
                  const Data* X_test, const double* y_test, const ProgressFn& progress) {
  const int64_t m = X.rows(), d = X.cols();
  params.validate(m);
  detail::check_fol_data(X, y, X_test, y_test, "FOL");
  if (n_snapshots != params.k) throw std::invalid_argument("FOL: need one snapshot row per kept iterate (k rows)");
  if (order && n_order != params.n_steps(m) * params.batch_size)
    throw std::invalid_argument("FOL: order must hold T * batch_size = " +
                                std::to_string(params.n_steps(m) * params.batch_size) + " indices");
  SumTree tree(weights, m);
  FolResult res = with_learner(params.learner, d, [&](auto& learner) {
    learner.assign(coef, coef[d]);
    FolResult r = fol_run(X, y, learner, params, tree, snapshots, xi, order, X_test, y_test, progress, coef);
    learner.write(coef);
    return r;
  });
  for (int64_t i = 0; i < m; ++i) weights[i] = tree.leaf(i);
  return res;
}

struct AdaBoostParams {
  LearnerSpec learner;
  int64_t max_iter = 10;   ///< rounds (at most; stops early without an edge)
  int64_t batch_size = 1;
  bool warm_start = true;  ///< each round's epoch starts from the previous round's weights
  uint64_t seed = 0;

  void validate(int64_t m) const {
    if (m < 1) throw std::invalid_argument("AdaBoost: need at least one training example");
    learner.validate();
    if (max_iter < 1) throw std::invalid_argument("AdaBoost: max_iter must be >= 1");
    if (batch_size < 1) throw std::invalid_argument("AdaBoost: batch_size must be >= 1");
  }
};

/// AdaBoost's result: Result (n_iter = rounds kept; history train_error, test_error of the weighted
/// majority after each round) plus alpha_t and the weighted error of every round tried.
struct AdaBoostResult : Result {
  std::vector<double> alpha_t;         ///< alpha_t = 0.5 log(1/eps_t - 1), one per kept round
  std::vector<double> weighted_error;  ///< eps_t, one per round tried (the last may have no edge)
};

/// The AdaBoost loop over an already built learner (params validated): p = uniform (or proportional to
/// sample_weight when given, checked: the distribution of the data with row i repeated w_i times); each round runs one
/// epoch (m samples, in batches) of the learner sampling examples from p (sum tree, gamma = 0), giving
/// h_t; eps_t is the p-weighted 0/1 error of h_t, alpha_t = 0.5 log(1/eps_t - 1), p_i <- p_i exp(-alpha_t
/// y_i h_t(x_i)), output sign(sum_t alpha_t h_t(x)). Stops early (Status::Converged) when eps_t = 0 (h_t is
/// consistent: alpha_t is capped at 0.5 log(1e12)) or eps_t >= 1/2 (no edge). hyps: max_iter x (d+1) rows.
template <class Data, class Learner>
AdaBoostResult adaboost_run(const Data& X, const double* y, Learner& learner, const AdaBoostParams& params,
                            double* hyps, const Data* X_test, const double* y_test, const ProgressFn& progress,
                            const double* sample_weight, double* alphas = nullptr) {
  const int64_t m = X.rows(), d = X.cols(), bsz = params.batch_size;
  AdaBoostResult res;
  Rng rng(params.seed);
  std::vector<double> p(static_cast<size_t>(m), 1.0 / static_cast<double>(m)), F(static_cast<size_t>(m), 0.0);
  if (sample_weight) {
    const double total = std::accumulate(sample_weight, sample_weight + m, 0.0);
    for (int64_t i = 0; i < m; ++i) p[static_cast<size_t>(i)] = sample_weight[i] / total;
  }
  std::vector<double> Ft(X_test ? static_cast<size_t>(X_test->rows()) : 0, 0.0);
  std::vector<double> w0(static_cast<size_t>(d + 1), 0.0);
  learner.write(w0.data());
  std::vector<typename Data::Row> rows(static_cast<size_t>(bsz));
  std::vector<double> ys(static_cast<size_t>(bsz)), sc(static_cast<size_t>(bsz));
  std::vector<double> h(static_cast<size_t>(m));
  // the ensemble's error: F is the weighted vote, so the tie rule applies to it as to any score
  auto vote_error = [](const std::vector<double>& votes, const double* labels) {
    int64_t e = 0;
    for (size_t i = 0; i < votes.size(); ++i) e += misclassified(labels[i], votes[i]);
    return votes.empty() ? 0.0 : static_cast<double>(e) / static_cast<double>(votes.size());
  };
  int64_t t_global = 0;
  if (progress && !progress(0)) {  // false before the first round: none
    res.status = Status::Interrupted;
    return res;
  }
  InterruptCheck stop;
  for (int64_t r = 0; r < params.max_iter; ++r) {
    if (!params.warm_start) learner.assign(w0.data(), w0[static_cast<size_t>(d)]);
    SumTree tree(p.data(), m);
    const int64_t steps = (m + bsz - 1) / bsz;
    for (int64_t s = 0; s < steps; ++s) {
      stop.tick(bsz);
      ++t_global;
      for (int64_t j = 0; j < bsz; ++j) {
        const int64_t i = tree.sample(0.0, rng).first;
        rows[j] = X.row(i);
        ys[j] = y[i];
        sc[j] = learner.score(rows[j]);
      }
      learner.step(rows.data(), ys.data(), sc.data(), bsz, t_global);
    }
    learner.write(hyps + r * (d + 1));
    double eps = 0.0;
    for (int64_t i = 0; i < m; ++i) {
      stop.tick();
      h[i] = learner.score(X.row(i)) > 0.0 ? 1.0 : -1.0;
      if (h[i] != y[i]) eps += p[i];
    }
    res.weighted_error.push_back(eps);
    if (eps >= 0.5) {  // no edge: h_t is not added, and the stopping rule is met
      res.status = Status::Converged;
      break;
    }
    const double alpha = 0.5 * std::log(1.0 / std::max(eps, 1e-12) - 1.0);
    res.alpha_t.push_back(alpha);
    if (alphas) alphas[r] = alpha;
    double z = 0.0;
    for (int64_t i = 0; i < m; ++i) {
      p[i] *= std::exp(-alpha * y[i] * h[i]);
      z += p[i];
      F[i] += alpha * h[i];
    }
    for (auto& v : p) v /= z;
    res.history.push("train_error", vote_error(F, y));
    if (X_test) {
      for (int64_t i = 0; i < X_test->rows(); ++i) Ft[i] += alpha * (learner.score(X_test->row(i)) > 0.0 ? 1.0 : -1.0);
      res.history.push("test_error", vote_error(Ft, y_test));
    }
    res.n_iter = static_cast<double>(r + 1);
    if (eps == 0.0) {
      res.status = Status::Converged;
      break;
    }
    if (progress && !progress(r + 1)) {
      res.status = Status::Interrupted;
      break;
    }
  }
  return res;
}

/// AdaBoost with the learner params.learner names. hyps: n_hyps x (d+1) output rows, n_hyps >=
/// params.max_iter (row r = h_r, w then b). sample_weight: m weights >= 0 with a positive sum, the initial
/// distribution p (null: uniform). alphas (optional, max_iter values): alpha_t of every kept round, written
/// before the round's progress call. Every precondition is checked here (std::invalid_argument).
template <class Data>
AdaBoostResult adaboost_fit(const Data& X, const double* y, const AdaBoostParams& params, double* hyps,
                            int64_t n_hyps, const Data* X_test, const double* y_test, const ProgressFn& progress,
                            const double* sample_weight = nullptr, double* alphas = nullptr) {
  params.validate(X.rows());
  detail::check_fol_data(X, y, X_test, y_test, "AdaBoost");
  if (n_hyps < params.max_iter) throw std::invalid_argument("AdaBoost: need one hypothesis row per round (max_iter rows)");
  if (sample_weight && !(validate_sample_weight(sample_weight, X.rows()) > 0.0))
    throw std::invalid_argument("AdaBoost: the sample weights sum to 0");
  return with_learner(params.learner, X.cols(), [&](auto& learner) {
    return adaboost_run(X, y, learner, params, hyps, X_test, y_test, progress, sample_weight, alphas);
  });
}

}  // namespace robustcore
