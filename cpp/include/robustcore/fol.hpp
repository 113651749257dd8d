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
// on any loss of losses.hpp, L2 shrinkage through a ScaledVector so sparse steps cost O(nnz)).
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
#include <stdexcept>
#include <string>
#include <vector>

#include "data.hpp"
#include "projections.hpp"
#include "rng.hpp"
#include "schedules.hpp"
#include "result.hpp"
#include "sum_tree.hpp"
#include "weights.hpp"

namespace robustcore {

/// The Perceptron as an online learner: on a mistake (y s <= 0) w += y x, b += y (if fit_intercept).
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

/// What the p player observes as the loss l in [0, 1].
enum class Focus : int {
  ZeroOne = 0,  ///< 1[y s <= 0] (the paper's choice for classification, Corollary 1)
  Clipped = 1,  ///< min(1, surrogate(y, s)): the learner's own loss clipped to [0, 1]
};

struct FolParams {
  int64_t n_steps = 1000;       ///< T
  int64_t batch_size = 1;       ///< b examples per step, all drawn from p_t
  double eta = 0.0;             ///< p-player step; <= 0 means 1/(2m) (Theorem 1)
  double gamma = 0.5;           ///< uniform exploration in Tree.sample(gamma)
  int64_t k = 0;                ///< number of iterates kept at uniformly drawn times
  Focus focus = Focus::ZeroOne;
  int64_t steps_per_epoch = 0;  ///< history/progress period; <= 0 means ceil(m / b)
  bool record_history = true;
  double slack_budget = -1.0;   ///< K of section 4.2; < 0 turns the slack variables off
  double slack_lr = 0.0;        ///< step of the slack player (> 0 when slack_budget >= 0)
  uint64_t seed = 0;
};

struct FolTrace {
  std::vector<double> max_loss;     ///< max_i surrogate(w_last; x_i, y_i)
  std::vector<double> train_error;  ///< 0/1 error of the last iterate on the training set
  std::vector<double> test_error;   ///< same on the test set (empty when none given)
  std::vector<double> max_q;        ///< largest q_i of the sampler (how focused p is)
  std::vector<double> seconds;      ///< cumulative solver seconds (evaluation excluded)
};

struct FolResult {
  Status status = Status::MaxIter;
  int64_t steps_done = 0;
  FolTrace trace;
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

inline void validate_fol_params(const FolParams& p, int64_t m) {
  if (m < 1) throw std::invalid_argument("FOL: need at least one training example");
  if (p.n_steps < 1) throw std::invalid_argument("FOL: n_steps must be >= 1");
  if (p.batch_size < 1) throw std::invalid_argument("FOL: batch_size must be >= 1");
  if (!(p.gamma > 0.0 && p.gamma <= 1.0)) throw std::invalid_argument("FOL: gamma must be in (0, 1]");
  if (!std::isfinite(p.eta) || p.eta < 0.0) throw std::invalid_argument("FOL: eta must be finite and >= 0 (0 = 1/(2m))");
  if (p.k < 0) throw std::invalid_argument("FOL: k must be >= 0");
  if (p.slack_budget >= 0.0 && !(p.slack_lr > 0.0 && std::isfinite(p.slack_lr)))
    throw std::invalid_argument("FOL: slack_lr must be > 0 when slack variables are used");
  if (!std::isfinite(p.slack_budget)) throw std::invalid_argument("FOL: slack_budget must be finite");
}

/// Runs FOL with `learner` (state read and written in place) on (X, y in {-1,+1}).
///   snapshots: k x (d+1) output rows (w then b), filled at the snapshot times.
///   tree: the p player's weights (m leaves); pass a fresh SumTree(m) for the paper's start.
///   xi: slack variables (length m) when params.slack_budget >= 0, else may be null.
///   order: optional injected sample indices (n_steps * batch_size) replacing the sampler's draws (the
///          probabilities p_i are still those of the tree), for oracle tests.
template <class Data, class Learner>
FolResult fol_fit(const Data& X, const double* y, Learner& learner, const FolParams& params, SumTree& tree,
                  double* snapshots, double* xi, const int64_t* order, const Data* X_test, const double* y_test,
                  const ProgressFn& progress) {
  const int64_t m = X.rows(), d = X.cols(), bsz = params.batch_size;
  validate_fol_params(params, m);
  if (tree.size() != m) throw std::invalid_argument("FOL: the sampler must have one leaf per training example");
  if (learner.dim() != d) throw std::invalid_argument("FOL: learner dimension does not match X");
  if (params.slack_budget >= 0.0 && !xi) throw std::invalid_argument("FOL: slack variables need an xi array");
  if (X_test && X_test->cols() != d) throw std::invalid_argument("FOL: X_test has a different number of features");
  const double eta = params.eta > 0.0 ? params.eta : 1.0 / (2.0 * static_cast<double>(m));
  const int64_t spe = params.steps_per_epoch > 0 ? params.steps_per_epoch : (m + bsz - 1) / bsz;
  const bool slack = params.slack_budget >= 0.0;

  FolResult res;
  res.snapshot_times = fol_snapshot_times(params.n_steps, params.k, params.seed);
  Rng rng(params.seed);
  std::vector<typename Data::Row> rows(static_cast<size_t>(bsz));
  std::vector<int64_t> idx(static_cast<size_t>(bsz));
  std::vector<double> ys(static_cast<size_t>(bsz)), sc(static_cast<size_t>(bsz)), pr(static_cast<size_t>(bsz));
  double xi_sum = 0.0;
  if (slack)
    for (int64_t i = 0; i < m; ++i) xi_sum += xi[i];
  size_t next_snap = 0;
  double seconds = 0.0;
  auto t0 = std::chrono::steady_clock::now();

  auto evaluate = [&]() {
    const double secs = seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double mx = 0.0;
    int64_t err = 0;
    for (int64_t i = 0; i < m; ++i) {
      const double s = learner.score(X.row(i));
      mx = std::max(mx, learner.surrogate(y[i], s));
      err += (y[i] * s <= 0.0);
    }
    res.trace.max_loss.push_back(mx);
    res.trace.train_error.push_back(static_cast<double>(err) / static_cast<double>(m));
    if (X_test) {
      int64_t e = 0;
      for (int64_t i = 0; i < X_test->rows(); ++i) e += (y_test[i] * learner.score(X_test->row(i)) <= 0.0);
      res.trace.test_error.push_back(X_test->rows() ? static_cast<double>(e) / static_cast<double>(X_test->rows()) : 0.0);
    }
    double mq = 0.0;
    for (int64_t i = 0; i < m; ++i) mq = std::max(mq, tree.leaf(i));
    res.trace.max_q.push_back(mq / tree.total());
    res.trace.seconds.push_back(secs);
    seconds = secs;
  };

  for (int64_t t = 1; t <= params.n_steps; ++t) {
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
      double l = params.focus == Focus::ZeroOne ? (ys[j] * sc[j] <= 0.0 ? 1.0 : 0.0)
                                                : std::min(1.0, learner.surrogate(ys[j], sc[j]));
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
      if (xi_sum > params.slack_budget || over_box) {
        if (xi_sum > params.slack_budget) {
          project_capped_simplex(xi, m, 1.0, params.slack_budget, xi);
          xi_sum = 0.0;
          for (int64_t i = 0; i < m; ++i) xi_sum += xi[i];
        } else {
          for (int64_t j = 0; j < bsz; ++j) {
            double& x = xi[idx[j]];
            if (x > 1.0) {
              xi_sum -= x - 1.0;
              x = 1.0;
            }
          }
        }
      }
    }
    while (next_snap < res.snapshot_times.size() && res.snapshot_times[next_snap] == t) {
      learner.write(snapshots + static_cast<int64_t>(next_snap) * (d + 1));
      ++next_snap;
    }
    res.steps_done = t;
    if (t % spe == 0 || t == params.n_steps) {
      if (params.record_history) {
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        t0 = std::chrono::steady_clock::now();
        evaluate();
        t0 = std::chrono::steady_clock::now();
      }
      std::vector<double> w(static_cast<size_t>(d + 1));
      learner.write(w.data());
      for (double v : w)
        if (!std::isfinite(v)) {
          res.status = Status::Diverged;
          res.rescales = tree.rescales();
          return res;
        }
      if (progress && !progress(t)) {
        res.status = Status::Interrupted;
        res.rescales = tree.rescales();
        return res;
      }
    }
  }
  res.rescales = tree.rescales();
  return res;
}

struct AdaBoostParams {
  int64_t rounds = 10;
  int64_t batch_size = 1;
  bool warm_start = true;  ///< each round's SGD epoch starts from the previous round's weights
  uint64_t seed = 0;
};

struct AdaBoostResult {
  int64_t rounds_done = 0;
  std::vector<double> alpha;        ///< alpha_t = 0.5 log(1/eps_t - 1)
  std::vector<double> weighted_error;
  std::vector<double> train_error;  ///< of the weighted majority after each round
  std::vector<double> test_error;
};

/// The AdaBoost baseline of the paper's experiment 2: p = uniform; each round runs one epoch (m samples,
/// in batches) of the learner sampling examples from p (sum tree, gamma = 0), giving h_t; eps_t is the
/// p-weighted 0/1 error of h_t, alpha_t = 0.5 log(1/eps_t - 1), p_i <- p_i exp(-alpha_t y_i h_t(x_i)),
/// output sign(sum_t alpha_t h_t(x)). Stops early when eps_t = 0 (h_t is consistent: alpha_t is
/// capped at 0.5 log(1e12)) or eps_t >= 1/2 (no edge). hyps: rounds x (d+1) rows.
template <class Data, class Learner>
AdaBoostResult adaboost_fit(const Data& X, const double* y, Learner& learner, const AdaBoostParams& params,
                            double* hyps, const Data* X_test, const double* y_test, const ProgressFn& progress) {
  const int64_t m = X.rows(), d = X.cols(), bsz = params.batch_size;
  if (m < 1) throw std::invalid_argument("AdaBoost: need at least one training example");
  if (params.rounds < 1) throw std::invalid_argument("AdaBoost: rounds must be >= 1");
  if (bsz < 1) throw std::invalid_argument("AdaBoost: batch_size must be >= 1");
  AdaBoostResult res;
  Rng rng(params.seed);
  std::vector<double> p(static_cast<size_t>(m), 1.0 / static_cast<double>(m)), F(static_cast<size_t>(m), 0.0);
  std::vector<double> Ft(X_test ? static_cast<size_t>(X_test->rows()) : 0, 0.0);
  std::vector<double> w0(static_cast<size_t>(d + 1), 0.0);
  learner.write(w0.data());
  std::vector<typename Data::Row> rows(static_cast<size_t>(bsz));
  std::vector<double> ys(static_cast<size_t>(bsz)), sc(static_cast<size_t>(bsz));
  std::vector<double> h(static_cast<size_t>(m));
  int64_t t_global = 0;
  for (int64_t r = 0; r < params.rounds; ++r) {
    if (!params.warm_start) learner.assign(w0.data(), w0[static_cast<size_t>(d)]);
    SumTree tree(p.data(), m);
    const int64_t steps = (m + bsz - 1) / bsz;
    for (int64_t s = 0; s < steps; ++s) {
      ++t_global;
      for (int64_t j = 0; j < bsz; ++j) {
        const int64_t i = tree.sample(0.0, rng).first;
        rows[j] = X.row(i);
        ys[j] = y[i];
        sc[j] = learner.score(rows[j]);
      }
      learner.step(rows.data(), ys.data(), sc.data(), bsz, t_global);
    }
    double* hw = hyps + r * (d + 1);
    learner.write(hw);
    double eps = 0.0;
    for (int64_t i = 0; i < m; ++i) {
      h[i] = learner.score(X.row(i)) > 0.0 ? 1.0 : -1.0;
      if (h[i] != y[i]) eps += p[i];
    }
    res.weighted_error.push_back(eps);
    if (eps >= 0.5) break;  // no edge: h_t is not added
    const double alpha = 0.5 * std::log(1.0 / std::max(eps, 1e-12) - 1.0);
    res.alpha.push_back(alpha);
    double z = 0.0;
    int64_t err = 0;
    for (int64_t i = 0; i < m; ++i) {
      p[i] *= std::exp(-alpha * y[i] * h[i]);
      z += p[i];
      F[i] += alpha * h[i];
      err += (y[i] * F[i] <= 0.0);
    }
    for (auto& v : p) v /= z;
    res.train_error.push_back(static_cast<double>(err) / static_cast<double>(m));
    if (X_test) {
      int64_t e = 0;
      for (int64_t i = 0; i < X_test->rows(); ++i) {
        Ft[i] += alpha * (learner.score(X_test->row(i)) > 0.0 ? 1.0 : -1.0);
        e += (y_test[i] * Ft[i] <= 0.0);
      }
      res.test_error.push_back(X_test->rows() ? static_cast<double>(e) / static_cast<double>(X_test->rows()) : 0.0);
    }
    res.rounds_done = r + 1;
    if (eps == 0.0) break;
    if (progress && !progress(r + 1)) break;
  }
  return res;
}

}  // namespace robustcore
