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
// Output: k iterates w_{t_1..t_k} at times drawn uniformly from [T] before the run (fol_iterates.hpp),
// plus the last iterate.
//
// The w player is any online learner of online_learners.hpp; the kept iterates are fol_iterates.hpp's.
// Sampling: one Sampler (sampler.hpp) -- the seeded draws of the tree walk, or an injected index sequence
// (oracle tests) in their place.
//
// Entry point: fol_fit takes (data, labels, params, outputs..., progress), checks every precondition
// (std::invalid_argument) and returns a Result (result.hpp) whose history has the columns max_loss,
// train_error, test_error, max_q, seconds. fol_run is the loop over an already built learner, for C++
// callers with their own.
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
#include <stdexcept>
#include <string>
#include <vector>

#include "data.hpp"
#include "fol_iterates.hpp"
#include "interrupt.hpp"
#include "online_learners.hpp"
#include "projections.hpp"
#include "result.hpp"
#include "sampler.hpp"
#include "sum_tree.hpp"

namespace robustcore {

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
  // the tree walk's seeded draws, or the injected indices in their place (T * bsz of them)
  Sampler src(params.seed, order, order ? T * bsz : 0);
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
      if (src.injected()) {
        i = src.below(m);
        p = tree.prob(i, params.gamma);
      } else {
        auto ip = tree.sample(params.gamma, src.rng());
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
  detail::check_learner_data(X, y, X_test, y_test, "FOL");
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

}  // namespace robustcore
