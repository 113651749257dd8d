// The per-pass monitor of every linear solver (SGD and the variance-reduced methods, binary and softmax
// models): at the end of each pass (epoch / effective pass) it
//   * adds the solver seconds since the last pass (the evaluation below excluded) to "seconds";
//   * checks divergence (Status::Diverged): a weight or intercept that is non-finite or larger in magnitude
//     than kDivergedWeight, or (with the history) a non-finite objective, i.e. scores or losses that left
//     the representable range. A run that gets there never comes back to a useful model: its scores
//     overflow (squared hinge on features of 1e40 reached weights of 3.7e279 and NaN scores, reported as
//     'max_iter', before this rule);
//   * records the history through the model (evaluate_model): "objective", "train_error",
//     ["grad_norm"], ["test_error" with an evaluation set], and "passes";
//   * applies the tol rule: max_j |w_j - w_j^prev| <= tol max_j |w_j| -> Status::Converged;
//   * calls the progress callback with the passes done (rounded down); false -> Status::Interrupted.
// end_pass returns false when the solve must stop (the status set in the Result). start(), which every
// loop calls before its first pass, asks the callback (progress(0)), so a callback answering false stops
// before any pass runs; it also records the initial point as pass 0 unless MonitorSettings::record_start
// is off (the SGD epochs: their history starts at epoch 1, as scikit-learn's). A full-gradient solver
// (lbfgs.hpp), which has just evaluated the objective, its gradient and the training error at the point it
// reports, hands them over (KnownPoint): the history then costs no pass of its own.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "model.hpp"
#include "result.hpp"

namespace robustcore {

struct MonitorSettings {
  double lambda = 0.0;
  bool fit_intercept = true;
  const double* sample_weight = nullptr;
  bool record_history = true;  ///< objective / errors per pass (one extra pass over X each)
  bool grad_norm = true;       ///< also the full-gradient norm (needs a differentiable loss)
  double tol = 0.0;            ///< 0 = never stop early
  int threads = 1;             ///< threads for the history's passes over the data (evaluate_model)
  bool record_start = true;    ///< start() records the initial point as pass 0 (history, divergence check)
};

/// Optional evaluation set: test error per pass (labels of the model's Label type).
template <class Model, class Data>
struct EvalSet {
  const Data* X = nullptr;
  const typename Model::Label* y = nullptr;
};

/// What a solver already computed at the point it reports (start / end_pass): the history's objective,
/// gradient norm and training error, recorded instead of the monitor's own pass over X (evaluate_model).
struct KnownPoint {
  double objective = 0.0;
  double grad_norm = 0.0;
  double train_error = 0.0;
};

/// The largest weight magnitude of a run that has not diverged (monitor.hpp). No well-posed problem on
/// data the estimators accept (|x| <= 1e100, _base.check_magnitude) needs weights this large: a fit that
/// reaches it has left any useful range (a step size far too large for the data's scale).
inline constexpr double kDivergedWeight = 1e100;

template <class Model, class Data>
class Monitor {
 public:
  Monitor(const Data& X, const Model& model, const MonitorSettings& s, Result& res, ProgressFn progress,
          EvalSet<Model, Data> eval = {})
      : X_(X), model_(model), s_(s), res_(res), progress_(std::move(progress)), eval_(eval),
        prev_(static_cast<size_t>(X.cols() * model.K()), 0.0), t0_(std::chrono::steady_clock::now()) {}

  /// Records the initial point (pass 0; only its weights for the tol rule without record_start) and asks
  /// the progress callback; false: stop before any pass (status set).
  bool start(const double* W, const double* b, const KnownPoint* known = nullptr) {
    bool go = true;
    if (s_.record_start) {
      go = end_pass(W, b, 0.0, 0, known);
    } else {
      std::copy(W, W + X_.cols() * model_.K(), prev_.begin());
      if (progress_ && !progress_(0)) {
        res_.status = Status::Interrupted;
        go = false;
      }
    }
    restart_clock();
    return go;
  }
  /// Called at the end of a pass with the current model (W: d x K feature-major, b: K). Returns false
  /// to stop (status set). `known`: the point's objective, gradient norm and error, already computed.
  bool end_pass(const double* W, const double* b, double passes_done, int64_t count,
                const KnownPoint* known = nullptr) {
    elapsed_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const int64_t dK = X_.cols() * model_.K(), K = model_.K();
    bool finite = true;
    double dmax = 0.0, wmax = 0.0;
    for (int64_t q = 0; q < dK; ++q) {
      if (!std::isfinite(W[q])) finite = false;
      dmax = std::max(dmax, std::fabs(W[q] - prev_[static_cast<size_t>(q)]));
      wmax = std::max(wmax, std::fabs(W[q]));
      prev_[static_cast<size_t>(q)] = W[q];
    }
    for (int64_t k = 0; k < K; ++k) {
      finite = finite && std::isfinite(b[k]);
      wmax = std::max(wmax, std::fabs(b[k]));
    }
    finite = finite && wmax <= kDivergedWeight;  // (false for NaN: isfinite above)
    if (s_.record_history) {
      double obj = NAN, gn = NAN, err = NAN;
      if (finite && known) {
        obj = known->objective;
        gn = known->grad_norm;
        err = known->train_error;
      } else if (finite) {
        evaluate_model(X_, model_, s_.sample_weight, W, b, s_.lambda, s_.fit_intercept, &obj,
                       s_.grad_norm ? &gn : nullptr, &err, s_.threads);
      }
      if (finite && !std::isfinite(obj)) finite = false;  // the scores or the losses overflowed
      res_.history.push("objective", obj);
      res_.history.push("train_error", err);
      if (s_.grad_norm) res_.history.push("grad_norm", gn);
      if (eval_.X && eval_.y)
        res_.history.push("test_error", finite ? model_error(*eval_.X, model_, eval_.y, W, b, s_.threads) : NAN);
    }
    res_.history.push("passes", passes_done);
    res_.history.push("seconds", elapsed_);
    res_.n_iter = passes_done;
    if (!finite) {
      res_.status = Status::Diverged;
      return false;
    }
    if (s_.tol > 0.0 && count > 1 && dmax <= s_.tol * wmax) {
      res_.status = Status::Converged;
      return false;
    }
    // the callback counts passes (rounded down), the unit of the solver's budget
    if (progress_ && !progress_(static_cast<int64_t>(std::floor(passes_done)))) {
      res_.status = Status::Interrupted;
      return false;
    }
    restart_clock();
    return true;
  }
  void restart_clock() { t0_ = std::chrono::steady_clock::now(); }

 private:
  const Data& X_;
  const Model& model_;
  MonitorSettings s_;
  Result& res_;
  ProgressFn progress_;
  EvalSet<Model, Data> eval_;
  std::vector<double> prev_;
  std::chrono::steady_clock::time_point t0_;
  double elapsed_ = 0.0;
};

}  // namespace robustcore
