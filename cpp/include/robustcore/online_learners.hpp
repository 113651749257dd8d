// The online learners that play w in FOL's game (fol.hpp) and are boosted by AdaBoost (adaboost.hpp),
// and what both games share about them: the tie rule, the error rate, the checks of the data they see.
//
// OnlineLearner concept (linear models over a data view, no virtual calls):
//   int64_t dim() const                                 d (the intercept is kept apart)
//   template <class Row> double score(const Row&) const w.x + b
//   template <class Row> void step(const Row* rows, const double* y, const double* score, int64_t b,
//                                  int64_t t)           one update from b examples scored at w_t
//   double surrogate(double y, double score) const      the learner's own loss (history "max_loss")
//   void write(double* out) const                       w (d values) then b
//   void assign(const double* w, double b)              set w and b
// Learners here: Perceptron (mistake-driven, Example 1 of the FOL paper) and SgdLearner<Loss> (one SGD
// step on any loss of losses.hpp, L2 shrinkage through a ScaledVector so sparse steps cost O(nnz)). A
// LearnerSpec names one of them at run time; with_learner builds it (checking its parameters) and calls a
// function with it, so a game's loop is instantiated once per learner type (the SGD learner once, on
// AnyLoss).
// Tie rule (scikit-learn's), for every error count of the games: a score > 0 predicts +1, a zero score -1.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "any_loss.hpp"
#include "data.hpp"
#include "interrupt.hpp"
#include "losses.hpp"
#include "schedules.hpp"
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

/// Labels and the optional test set, checked once by every game's entry point (`who` names it).
template <class Data>
void check_learner_data(const Data& X, const double* y, const Data* X_test, const double* y_test, const char* who) {
  validate_binary_labels(y, X.rows());
  if (X_test) {
    if (X_test->cols() != X.cols())
      throw std::invalid_argument(std::string(who) + ": X_test has a different number of features");
    if (!y_test) throw std::invalid_argument(std::string(who) + ": X_test given without y_test");
    validate_binary_labels(y_test, X_test->rows());
  }
}
}  // namespace detail


}  // namespace robustcore
