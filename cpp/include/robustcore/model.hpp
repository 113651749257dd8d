// Linear models with K score columns, as policies for the solvers (vr/*.hpp, monitor.hpp): a model
// turns the scores s_i = W^T x_i + b of sample i (K numbers) into the sample's loss and its gradient
// with respect to the scores, so every method is written once for
//   BinaryModel<Loss>  K = 1 (known at compile time), labels y_i in {-1, +1}, loss r(y_i s_i):
//                      gradient coefficient g_i = sw_i r'(y_i s_i) y_i;
//   SoftmaxModel       K >= 2 classes (at run time), labels y_i in {0..K-1}, cross-entropy:
//                      g_i = sw_i (softmax(s_i) - e_{y_i}).
// The weights are stored feature-major, W[j * K + k]; the loss-gradient of sample i is x_i g_i^T.
// Model contract:
//   static constexpr int KC;            K at compile time (0: run time, read K())
//   using Label;                        the label type (double for +-1, int64_t for class indices)
//   static constexpr bool smooth;       whether the loss has a Lipschitz gradient (the VR solvers need it)
//   const Label* y;                     training labels
//   int64_t K() const;
//   double curvature() const;           bound on the Hessian of the loss in the scores (smoothness of the
//                                       per-sample loss is curvature * ||x||^2)
//   void grad(i, s, sw, g) const;       g = sw * d loss_i / d s at scores s
//   double value_grad(i, s, sw, g);     the same, returning the unweighted loss value
//   bool wrong(i, s, y) const;          0/1 error of scores s against label y[i] (a zero score is the
//                                       negative class / class 0 on ties, scikit-learn's rule)
//   void validate_labels(n) const;      throws std::invalid_argument on a label outside the model's range
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "data.hpp"
#include "interrupt.hpp"
#include "parallel.hpp"
#include "losses.hpp"

namespace robustcore {

/// K doubles: a fixed array when K is known at compile time (KC > 0), a vector otherwise.
template <int KC>
using KVec = std::conditional_t<(KC > 0), std::array<double, (KC > 0 ? KC : 1)>, std::vector<double>>;

template <int KC>
KVec<KC> make_kvec(int64_t K) {
  if constexpr (KC > 0) {
    (void)K;
    return KVec<KC>{};
  } else {
    return std::vector<double>(static_cast<size_t>(K), 0.0);
  }
}

/// s[k] = <W_k, x> + b[k] for a dense feature-major W (d x K).
template <int KC, class Row>
inline void linear_scores(const Row& r, const double* W, const double* b, int64_t K, double* s) {
  if constexpr (KC == 1) {
    (void)K;
    s[0] = dot(r, W) + b[0];
  } else {
    for (int64_t k = 0; k < K; ++k) s[k] = b[k];
    for_each_nz(r, [&](int64_t j, double x) {
      const double* w = W + j * K;
      for (int64_t k = 0; k < K; ++k) s[k] += x * w[k];
    });
  }
}

/// Binary margin model: one score, labels -1 / +1, any margin loss of losses.hpp.
template <class Loss>
struct BinaryModel {
  static constexpr int KC = 1;
  static constexpr bool smooth = Loss::smooth;
  using Label = double;
  Loss loss;
  const double* y = nullptr;

  int64_t K() const { return 1; }
  double curvature() const { return loss.smoothness(); }
  void grad(int64_t i, const double* s, double sw, double* g) const { g[0] = loss.deriv(y[i] * s[0]) * y[i] * sw; }
  double value_grad(int64_t i, const double* s, double sw, double* g) const {
    double v, dv;
    loss.value_deriv(y[i] * s[0], v, dv);
    g[0] = dv * y[i] * sw;
    return v;
  }
  static bool wrong(int64_t i, const double* s, const double* labels) {
    return (s[0] > 0 ? 1.0 : -1.0) != labels[i];
  }
  void validate_labels(int64_t n) const { validate_binary_labels(y, n); }
  static void validate_test_labels(const double* yt, int64_t n) { validate_binary_labels(yt, n); }
};

/// g[k] = sw (softmax(s)_k - [k == label]); returns the sample's (unweighted) cross-entropy.
inline double softmax_grad(const double* s, int64_t K, int64_t label, double sw, double* g) {
  double mx = s[0];
  for (int64_t k = 1; k < K; ++k) mx = std::max(mx, s[k]);
  double tot = 0.0;
  for (int64_t k = 0; k < K; ++k) {
    g[k] = std::exp(s[k] - mx);
    tot += g[k];
  }
  for (int64_t k = 0; k < K; ++k) g[k] = sw * (g[k] / tot - (k == label ? 1.0 : 0.0));
  return mx + std::log(tot) - s[label];
}

/// Multinomial (softmax) model with K classes: F(W, b) = (1/n) sum_i sw_i [logsumexp(s_i) - s_{i y_i}].
/// The softmax Hessian is at most 1/2 in norm, hence curvature() = 1/2.
struct SoftmaxModel {
  static constexpr int KC = 0;
  static constexpr bool smooth = true;
  using Label = int64_t;
  int64_t classes = 2;
  const int64_t* y = nullptr;

  int64_t K() const { return classes; }
  double curvature() const { return 0.5; }
  void grad(int64_t i, const double* s, double sw, double* g) const { softmax_grad(s, classes, y[i], sw, g); }
  double value_grad(int64_t i, const double* s, double sw, double* g) const {
    return softmax_grad(s, classes, y[i], sw, g);
  }
  /// The arg-max score (the first on ties) against the label; labels outside 0..K-1 (a test class never
  /// seen in training, -1) are always errors.
  bool wrong(int64_t i, const double* s, const int64_t* labels) const {
    return std::max_element(s, s + classes) - s != labels[i];
  }
  void validate_labels(int64_t n) const {
    if (classes < 2) throw std::invalid_argument("the softmax model needs K >= 2 classes");
    for (int64_t i = 0; i < n; ++i)
      if (y[i] < 0 || y[i] >= classes)
        throw std::invalid_argument("class label " + std::to_string(y[i]) + " out of range [0, " +
                                    std::to_string(classes) + ")");
  }
  static void validate_test_labels(const int64_t*, int64_t) {}
};

/// The (loss sum, errors) of evaluate_model over rows [lo, hi), with the gradient sums into G / gb when
/// G is not null (scaled by inv_n).
template <class Model, class Data>
void evaluate_rows(const Data& X, const Model& model, const double* sw, const double* W, const double* b, int64_t lo,
                   int64_t hi, double inv_n, double& lsum, int64_t& wrong, double* G, double* gb) {
  constexpr int KC = Model::KC;
  const int64_t K = model.K();
  KVec<KC> s = make_kvec<KC>(K), g = make_kvec<KC>(K);
  InterruptCheck stop;
  for (int64_t i = lo; i < hi; ++i) {
    stop.tick();
    const auto r = X.row(i);
    linear_scores<KC>(r, W, b, K, s.data());
    if (model.wrong(i, s.data(), model.y)) ++wrong;
    const double w_i = sw ? sw[i] : 1.0;
    lsum += w_i * model.value_grad(i, s.data(), w_i, g.data());
    if (!G) continue;
    for_each_nz(r, [&](int64_t j, double x) {
      double* Gj = G + j * K;
      for (int64_t k = 0; k < K; ++k) Gj[k] += x * g[static_cast<size_t>(k)] * inv_n;
    });
    for (int64_t k = 0; k < K; ++k) gb[k] += g[static_cast<size_t>(k)] * inv_n;
  }
}

/// Runs part(lo, hi, p) over `threads` contiguous row blocks of [0, n) (run_tasks; one block, on the
/// calling thread, when threads <= 1).
template <class F>
void over_row_blocks(int64_t n, int threads, F&& part) {
  const int P = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  if (P == 1) return part(int64_t{0}, n, 0);
  run_tasks(P, [&](int p) { part(n * p / P, n * (p + 1) / P, p); });
}

/// Objective F(W, b) = (1/n) sum_i sw_i loss_i + (lambda/2) ||W||^2, the norm of its gradient (W and, with
/// fit_intercept, b) and the 0/1 error on the training labels, in one pass over X (outputs may be null).
/// `threads` > 1 (without gnorm) splits the rows into blocks on threads (the sums then add in block order).
template <class Model, class Data>
void evaluate_model(const Data& X, const Model& model, const double* sw, const double* W, const double* b,
                    double lambda, bool fit_intercept, double* obj, double* gnorm, double* error, int threads = 1) {
  const int64_t n = X.rows(), d = X.cols(), K = model.K();
  std::vector<double> G(static_cast<size_t>(gnorm ? d * K : 0), 0.0), gb(static_cast<size_t>(K), 0.0);
  const double inv_n = n ? 1.0 / static_cast<double>(n) : 0.0;
  const int P = gnorm ? 1 : std::max(1, threads);
  std::vector<double> lsums(static_cast<size_t>(P), 0.0);
  std::vector<int64_t> wrongs(static_cast<size_t>(P), 0);
  over_row_blocks(n, P, [&](int64_t lo, int64_t hi, int p) {
    evaluate_rows(X, model, sw, W, b, lo, hi, inv_n, lsums[static_cast<size_t>(p)], wrongs[static_cast<size_t>(p)],
                  gnorm ? G.data() : nullptr, gb.data());
  });
  double lsum = 0.0;
  int64_t wrong = 0;
  for (int p = 0; p < P; ++p) lsum += lsums[static_cast<size_t>(p)], wrong += wrongs[static_cast<size_t>(p)];
  double sq = 0.0, g2 = 0.0;
  for (int64_t q = 0; q < d * K; ++q) {
    sq += W[q] * W[q];
    if (gnorm) {
      const double gq = G[static_cast<size_t>(q)] + lambda * W[q];
      g2 += gq * gq;
    }
  }
  if (gnorm && fit_intercept)
    for (int64_t k = 0; k < K; ++k) g2 += gb[static_cast<size_t>(k)] * gb[static_cast<size_t>(k)];
  if (obj) *obj = (n ? lsum / static_cast<double>(n) : 0.0) + 0.5 * lambda * sq;
  if (gnorm) *gnorm = std::sqrt(g2);
  if (error) *error = n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

/// 0/1 error of the model (W, b) on (X, labels) (labels of the model's Label type); `threads` as in
/// evaluate_model.
template <class Model, class Data>
double model_error(const Data& X, const Model& model, const typename Model::Label* labels, const double* W,
                   const double* b, int threads = 1) {
  constexpr int KC = Model::KC;
  const int64_t n = X.rows(), K = model.K();
  std::vector<int64_t> wrongs(static_cast<size_t>(std::max(1, threads)), 0);
  over_row_blocks(n, threads, [&](int64_t lo, int64_t hi, int p) {
    KVec<KC> s = make_kvec<KC>(K);
    InterruptCheck stop;
    int64_t wrong = 0;
    for (int64_t i = lo; i < hi; ++i) {
      stop.tick();
      linear_scores<KC>(X.row(i), W, b, K, s.data());
      if (model.wrong(i, s.data(), labels)) ++wrong;
    }
    wrongs[static_cast<size_t>(p)] = wrong;
  });
  int64_t wrong = 0;
  for (int64_t w : wrongs) wrong += w;
  return n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

}  // namespace robustcore
