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
//   void value_grad_rows(lo, hi, S, sw, lsum); value_grad over rows [lo, hi) at once: S (row-major,
//                                       (hi - lo) x K) holds their scores on entry and their g on return
//                                       (sw null: all ones); adds sw_i loss_i to lsum in row order (the
//                                       loss chosen once per call)
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

#include "any_loss.hpp"
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

/// Rows per block of evaluate_rows: the block's scores (rows x K doubles) stay in L1 between its loops.
inline constexpr int64_t kEvalBlock = 64;

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
  void value_grad_rows(int64_t lo, int64_t hi, double* S, const double* sw, double& lsum) const {
    with_concrete_loss(loss, [&](const auto& f) {
      double acc = lsum;
      // the margins, then the loss's values and derivatives over them in one call (vectorised for the log loss),
      // then the sums in row order
      std::array<double, kEvalBlock> z, v, dv;
      for (int64_t c0 = lo; c0 < hi; c0 += kEvalBlock) {
        const int64_t m = std::min(hi - c0, kEvalBlock);
        double* Sc = S + (c0 - lo);
        for (int64_t k = 0; k < m; ++k) z[k] = y[c0 + k] * Sc[k];
        value_deriv_n(f, z.data(), v.data(), dv.data(), m);
        for (int64_t k = 0; k < m; ++k) {
          const double w_i = sw ? sw[c0 + k] : 1.0;
          Sc[k] = dv[k] * y[c0 + k] * w_i;
          acc += w_i * v[k];
        }
      }
      lsum = acc;
      return 0;
    });
  }
  static bool wrong(int64_t i, const double* s, const double* labels) {
    return (s[0] > 0 ? 1.0 : -1.0) != labels[i];
  }
  void validate_labels(int64_t n) const { validate_binary_labels(y, n); }
  static void validate_test_labels(const double* yt, int64_t n) { validate_binary_labels(yt, n); }
};

/// g[k] = sw (softmax(s)_k - [k == label]); returns the sample's (unweighted) cross-entropy. g may be s.
inline double softmax_grad(const double* s, int64_t K, int64_t label, double sw, double* g) {
  const double s_label = s[label];
  double mx = s[0];
  for (int64_t k = 1; k < K; ++k) mx = std::max(mx, s[k]);
  double tot = 0.0;
  for (int64_t k = 0; k < K; ++k) {
    g[k] = std::exp(s[k] - mx);
    tot += g[k];
  }
  for (int64_t k = 0; k < K; ++k) g[k] = sw * (g[k] / tot - (k == label ? 1.0 : 0.0));
  return mx + std::log(tot) - s_label;
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
  void value_grad_rows(int64_t lo, int64_t hi, double* S, const double* sw, double& lsum) const {
    for (int64_t i = lo; i < hi; ++i) {
      const double w_i = sw ? sw[i] : 1.0;
      double* s = S + (i - lo) * classes;
      lsum += w_i * softmax_grad(s, classes, y[i], w_i, s);
    }
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

/// Whether a view's rows stay valid while other rows are read (CSR and dense views: pointers into memory
/// the view never rewrites). Any other view (fused_view.hpp's FusedView maps rows on demand into a buffer
/// the next row() may refill) is read one row at a time, each row once per pass.
template <class Data>
inline constexpr bool stable_rows = false;
template <class IP, class T>
inline constexpr bool stable_rows<CsrView<IP, T>> = true;
template <class T>
inline constexpr bool stable_rows<BasicDenseView<T>> = true;

/// s_r = init + sum_k x_rk w[j_rk * stride] for a group of four rows r (stored values x_rk at columns j_rk;
/// every entry of a dense row), each summed in its stored order: the bits of one row at a time (data.hpp's
/// dot, linear_scores), but four independent dependency chains instead of one. evaluate_rows' scores, a
/// column of the feature-major W at a time (stride K).
template <class T>
inline void dot_rows4(const BasicSparseRow<T>* r, const double* w, int64_t stride, double init, double* s) {
  double a0 = init, a1 = init, a2 = init, a3 = init;
  const int64_t m = std::min(std::min(r[0].nnz, r[1].nnz), std::min(r[2].nnz, r[3].nnz));
  const T *v0 = r[0].val, *v1 = r[1].val, *v2 = r[2].val, *v3 = r[3].val;
  const int32_t *j0 = r[0].idx, *j1 = r[1].idx, *j2 = r[2].idx, *j3 = r[3].idx;
  for (int64_t k = 0; k < m; ++k) {
    a0 += static_cast<double>(v0[k]) * w[j0[k] * stride];
    a1 += static_cast<double>(v1[k]) * w[j1[k] * stride];
    a2 += static_cast<double>(v2[k]) * w[j2[k] * stride];
    a3 += static_cast<double>(v3[k]) * w[j3[k] * stride];
  }
  for (int64_t k = m; k < r[0].nnz; ++k) a0 += static_cast<double>(v0[k]) * w[j0[k] * stride];
  for (int64_t k = m; k < r[1].nnz; ++k) a1 += static_cast<double>(v1[k]) * w[j1[k] * stride];
  for (int64_t k = m; k < r[2].nnz; ++k) a2 += static_cast<double>(v2[k]) * w[j2[k] * stride];
  for (int64_t k = m; k < r[3].nnz; ++k) a3 += static_cast<double>(v3[k]) * w[j3[k] * stride];
  s[0] = a0, s[1] = a1, s[2] = a2, s[3] = a3;
}
template <class T>
inline void dot_rows4(const BasicDenseRow<T>* r, const double* w, int64_t stride, double init, double* s) {
  double a0 = init, a1 = init, a2 = init, a3 = init;
  const T *v0 = r[0].val, *v1 = r[1].val, *v2 = r[2].val, *v3 = r[3].val;
  for (int64_t k = 0; k < r[0].n; ++k) {
    const double wk = w[k * stride];
    a0 += static_cast<double>(v0[k]) * wk;
    a1 += static_cast<double>(v1[k]) * wk;
    a2 += static_cast<double>(v2[k]) * wk;
    a3 += static_cast<double>(v3[k]) * wk;
  }
  s[0] = a0, s[1] = a1, s[2] = a2, s[3] = a3;
}
/// One row of dot_rows4 (the rows of a block past its last group of four).
template <class Row>
inline double dot_row(const Row& r, const double* w, int64_t stride, double init) {
  double a = init;
  for_each_nz(r, [&](int64_t j, double x) { a += x * w[j * stride]; });
  return a;
}
/// w[j_k * stride] += a x_k over a row's stored values (data.hpp's axpy with a stride).
template <class T>
inline void axpy_strided(double a, const BasicSparseRow<T>& r, double* w, int64_t stride) {
  for (int64_t k = 0; k < r.nnz; ++k) w[r.idx[k] * stride] += a * static_cast<double>(r.val[k]);
}
template <class T>
inline void axpy_strided(double a, const BasicDenseRow<T>& r, double* w, int64_t stride) {
  for (int64_t k = 0; k < r.n; ++k) w[k * stride] += a * static_cast<double>(r.val[k]);
}

/// The scores of rows [r0, r1) into S (row-major, (r1 - r0) x K), rows in groups of four (dot_rows4): the
/// binary model's dot(x_i, W) + b, the softmax model's b_k + sum_j x_ij W_jk (linear_scores' bits).
template <int KC, class Data>
void scores(const Data& X, const double* W, const double* b, int64_t K, int64_t r0, int64_t r1, double* S) {
  using Row = typename Data::Row;
  int64_t i = r0;
  for (; i + 4 <= r1; i += 4) {
    const Row rows[4] = {X.row(i), X.row(i + 1), X.row(i + 2), X.row(i + 3)};
    double* s = S + (i - r0) * K;
    if constexpr (KC == 1) {
      dot_rows4(rows, W, 1, 0.0, s);
      for (int q = 0; q < 4; ++q) s[q] += b[0];
    } else {
      double t[4];
      for (int64_t k = 0; k < K; ++k) {
        dot_rows4(rows, W + k, K, b[k], t);
        for (int q = 0; q < 4; ++q) s[q * K + k] = t[q];
      }
    }
  }
  for (; i < r1; ++i) {
    const Row r = X.row(i);
    double* s = S + (i - r0) * K;
    if constexpr (KC == 1) s[0] = dot_row(r, W, 1, 0.0) + b[0];
    else
      for (int64_t k = 0; k < K; ++k) s[k] = dot_row(r, W + k, K, b[k]);
  }
}

/// The loss sum (added to lsum in row order) and the 0/1 errors (added to *wrong; not counted when wrong
/// is null) of evaluate_model over rows [lo, hi), with the gradient sums into G / gb when G is not null
/// (G_jk += x_ij (g_ik inv_n)). Blocks of kEvalBlock rows (one row without stable_rows), three loops each:
/// the scores (`scores`), the losses and their gradients g_i through the model (one loss dispatch per
/// block: value_grad_rows), the scatter X_B^T g_B (of the binary model's rows with g_i != 0: a row at weight 0,
/// or where the loss is flat, adds nothing); an interrupt tick per block. The same bits for any block size.
template <class Model, class Data>
void evaluate_rows(const Data& X, const Model& model, const double* sw, const double* W, const double* b, int64_t lo,
                   int64_t hi, double inv_n, double& lsum, int64_t* wrong, double* G, double* gb) {
  constexpr int KC = Model::KC;
  const int64_t K = model.K();
  constexpr int64_t B = stable_rows<Data> ? kEvalBlock : 1;
  std::conditional_t<(KC > 0), std::array<double, B*(KC > 0 ? KC : 1)>, std::vector<double>> block{};
  if constexpr (KC == 0) block.assign(static_cast<size_t>(B * K), 0.0);
  double* S = block.data();
  InterruptCheck stop;
  for (int64_t r0 = lo; r0 < hi; r0 += B) {
    const int64_t r1 = std::min(hi, r0 + B);
    stop.tick(r1 - r0);
    scores<KC>(X, W, b, K, r0, r1, S);
    if (wrong)
      for (int64_t i = r0; i < r1; ++i) *wrong += model.wrong(i, S + (i - r0) * K, model.y) ? 1 : 0;
    model.value_grad_rows(r0, r1, S, sw, lsum);
    if (!G) continue;
    for (int64_t i = r0; i < r1; ++i) {
      const auto r = X.row(i);
      const double* g = S + (i - r0) * K;
      if constexpr (KC == 1) {
        const double c = g[0] * inv_n;
        if (c == 0.0) continue;  // a row at weight 0, or where the loss is flat (a margin past the hinge): no scatter
        gb[0] += c;
        axpy_strided(c, r, G, 1);
      } else {
        double* c = S + (i - r0) * K;
        for (int64_t k = 0; k < K; ++k) {
          c[k] = g[k] * inv_n;
          gb[k] += c[k];
        }
        if constexpr (Data::is_sparse) {  // the K entries of a stored value together (by columns: 20% slower)
          for_each_nz(r, [&](int64_t j, double x) {
            double* Gj = G + j * K;
            for (int64_t k = 0; k < K; ++k) Gj[k] += x * c[k];
          });
        } else {  // a column of G at a time (the K entries together: 16% slower)
          for (int64_t k = 0; k < K; ++k) axpy_strided(c[k], r, G + k, K);
        }
      }
    }
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
    evaluate_rows(X, model, sw, W, b, lo, hi, inv_n, lsums[static_cast<size_t>(p)],
                  error ? &wrongs[static_cast<size_t>(p)] : nullptr, gnorm ? G.data() : nullptr, gb.data());
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
