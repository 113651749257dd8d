// The AdaBoost baseline of the FOL paper (section 5): boosting rounds of an online learner
// (online_learners.hpp) trained for one epoch on examples drawn from the boosting distribution p (a sum
// tree walked with gamma = 0), h_t = sign(learner), alpha_t = 0.5 log(1/eps_t - 1).
// Entry point: adaboost_fit takes (data, labels, params, outputs..., progress), checks every precondition
// (std::invalid_argument) and returns a Result (result.hpp) whose history has the columns train_error,
// test_error of the weighted vote. adaboost_run is the loop over an already built learner.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "data.hpp"
#include "interrupt.hpp"
#include "online_learners.hpp"
#include "result.hpp"
#include "sampler.hpp"
#include "sum_tree.hpp"

namespace robustcore {

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
  Sampler src(params.seed);  // the tree walks' draws
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
        const int64_t i = tree.sample(0.0, src.rng()).first;
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
  detail::check_learner_data(X, y, X_test, y_test, "AdaBoost");
  if (n_hyps < params.max_iter) throw std::invalid_argument("AdaBoost: need one hypothesis row per round (max_iter rows)");
  if (sample_weight && !(validate_sample_weight(sample_weight, X.rows()) > 0.0))
    throw std::invalid_argument("AdaBoost: the sample weights sum to 0");
  return with_learner(params.learner, X.cols(), [&](auto& learner) {
    return adaboost_run(X, y, learner, params, hyps, X_test, y_test, progress, sample_weight, alphas);
  });
}

}  // namespace robustcore
