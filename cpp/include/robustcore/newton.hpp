// Newton's method with the exact Hessian, solved by Cholesky, for the binary model (model.hpp's BinaryModel)
// with a smooth convex margin loss (squared hinge, log, modified Huber: the losses with `second`, r''), on any
// data view, for the L2-regularised objective of lbfgs.hpp (the same F, lambda, models and gradient pass):
//
//   F(w, b) = (1/n) sum_i sw_i r(y_i (w^T x_i + b)) + (lambda/2) ||w||^2      (b not penalised)
//   H       = (1/n) sum_i sw_i r''(y_i s_i) (x_i, 1)(x_i, 1)^T + lambda diag(1, ..., 1, 0)
//
// For many rows and few features (scikit-learn's "newton-cholesky"; LIBLINEAR's trust-region Newton is the
// large-d relative): an iteration is one pass for F and its gradient (objective_gradient) and one for H,
// O(n d^2) -- dense rows, and CSR rows at least a quarter full, by blocks of kHessianBlock through Eigen's
// rank-k update, sparser CSR rows by the products of their stored values, O(nnz_i^2) a row -- and a d x d
// Cholesky factorisation, where L-BFGS spends an O(n d) pass per iteration but takes 10-100 iterations where
// Newton takes 3-6 (issue 40: the noisy-label fits at weak alpha). The direction solves H d = -grad F;
// where H is not positive definite (lambda = 0 on rank-deficient rows, or a hinge-type loss flat on every
// row) a multiple of the identity is added to it, growing by 10 from 1e-10 of its largest diagonal entry
// until Cholesky succeeds (Levenberg; a non-finite H, or none of 21 shifts: the steepest-descent direction).
// The step is a backtracking line search from t = 1 (Armijo's test, c1 = 1e-4; each retry the minimiser of
// the quadratic through F(x), F'(x; d) and the failed trial, kept in [0.1 t, 0.5 t]), at most max_linesearch
// evaluations.
//
// Stopping exactly as lbfgs.hpp (Status::Converged for the first two): the gradient rule
// ||grad F||_inf <= tol max(1, |F|), checked at the start too (a warm start at the optimum takes no
// iteration); the rounding floor (the line search found no point with F(x + t d) <= F(x) that moves x);
// max_iter iterations (Status::MaxIter); the monitor's divergence rule; the progress callback
// (Status::Interrupted); an installed interrupt poll throws Interrupted from inside a pass.
// At most kMaxFeatures features (H is (d + 1)^2 doubles): std::invalid_argument above, naming L-BFGS.
// Deterministic: the same input gives the same bits on one machine (Eigen's products block by the
// instruction set, so dense and CSR rows agree to rounding, not bits).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "any_loss.hpp"
#include "data.hpp"
#include "interrupt.hpp"
#include "lbfgs.hpp"
#include "model.hpp"
#include "monitor.hpp"
#include "result.hpp"

namespace robustcore {
namespace newton {

/// The largest number of features Newton's d x d Hessian is formed for (128 MiB at 4096).
inline constexpr int64_t kMaxFeatures = 4096;
/// Dense rows per rank-k update of the Hessian.
inline constexpr int64_t kHessianBlock = 256;

struct NewtonParams {
  double lambda = 1e-4;         ///< L2 strength (alpha in Python), lbfgs.hpp's convention
  int64_t max_iter = 100;       ///< iterations (accepted steps)
  double tol = 1e-4;            ///< gradient rule: ||grad||_inf <= tol max(1, |F|); 0 = only the other rules
  bool fit_intercept = true;
  bool record_history = true;   ///< objective, train error, gradient norm per iteration (no extra pass)
  int64_t max_linesearch = 20;  ///< evaluations per line search
  /// Optional per-sample weights sw_i (non-owning, length n, >= 0); nullptr = all ones.
  const double* sample_weight = nullptr;

  void validate() const {
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
    if (max_iter < 0) throw std::invalid_argument("max_iter (the number of iterations) must be >= 0");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("tol must be >= 0 and finite");
    if (max_linesearch < 1) throw std::invalid_argument("max_linesearch must be >= 1");
  }
};

/// Whether Newton's method takes the loss value type L (a second derivative, a convex loss).
template <class L>
inline constexpr bool takes_loss = L::smooth && L::convex;

namespace detail {

template <class Data>
inline constexpr bool dense_rows = false;
template <class T>
inline constexpr bool dense_rows<BasicDenseView<T>> = true;

inline std::string loss_names() {
  std::string out;
  for_each_loss([&](auto tag) {
    using L = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    if constexpr (takes_loss<L>) out += (out.empty() ? "" : ", ") + std::string(L::name);
  });
  return out;
}

}  // namespace detail

/// Throws std::invalid_argument unless Newton's method takes the loss (any_loss.hpp's run-time loss or a
/// loss value type).
template <class Loss>
void check_loss(const Loss& loss) {
  with_concrete_loss(loss, [](const auto& f) {
    using L = std::decay_t<decltype(f)>;
    if constexpr (!takes_loss<L>)
      throw std::invalid_argument(std::string("Newton's method needs a smooth convex loss (") + detail::loss_names() +
                                  "), got " + L::name);
    return 0;
  });
}

/// H (N x N, N = d + fit_intercept; the lower triangle is right, the upper may hold anything) of the model's
/// loss term at (W, b): (1/n) sum_i sw_i r''(y_i s_i) (x_i, 1)(x_i, 1)^T, plus lambda on W's diagonal.
template <class Loss, class Data>
void hessian(const Data& X, const BinaryModel<Loss>& model, const double* sw, double lambda, bool fit_intercept,
             const double* W, const double* b, Eigen::MatrixXd& H) {
  const int64_t n = X.rows(), d = X.cols(), N = d + (fit_intercept ? 1 : 0);
  H.setZero(N, N);
  const double inv_n = n ? 1.0 / static_cast<double>(n) : 0.0;
  with_concrete_loss(model.loss, [&](const auto& f) {
    using L = std::decay_t<decltype(f)>;
    if constexpr (!takes_loss<L>) {
      throw std::invalid_argument("Newton's method needs a smooth convex loss");
    } else {
      // dense rows, and CSR rows at least a quarter full, by blocks through the rank-k update; sparser CSR rows
      // by the products of their stored values
      bool blocks = true;
      if constexpr (!detail::dense_rows<Data>) blocks = 4 * X.nnz() >= n * d;
      const int64_t B = blocks ? kHessianBlock : 1;
      std::vector<double> S(static_cast<size_t>(B));
      InterruptCheck stop;
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> R;
      if (blocks) R.resize(B, N);
      for (int64_t r0 = 0; r0 < n; r0 += B) {
        const int64_t r1 = std::min(n, r0 + B);
        stop.tick(r1 - r0);
        scores<1>(X, W, b, 1, r0, r1, S.data());
        for (int64_t i = r0; i < r1; ++i) S[static_cast<size_t>(i - r0)] *= model.y[i];
        second_n(f, S.data(), S.data(), r1 - r0);  // r''(y_i s_i) for the block (vectorised for the log loss)
        for (int64_t i = r0; i < r1; ++i) {
          const double h = (sw ? sw[i] : 1.0) * S[static_cast<size_t>(i - r0)] * inv_n;
          const auto row = X.row(i);
          if (blocks) {  // the row times sqrt(h) into the block
            const double r = std::sqrt(h);
            double* out = R.data() + (i - r0) * N;
            if constexpr (detail::dense_rows<Data>) {
              for (int64_t j = 0; j < d; ++j) out[j] = r * static_cast<double>(row.val[j]);
            } else {
              std::fill(out, out + d, 0.0);
              for (int64_t q = 0; q < row.nnz; ++q) out[row.idx[q]] += r * static_cast<double>(row.val[q]);
            }
            if (fit_intercept) out[d] = r;
          } else if constexpr (!detail::dense_rows<Data>) {  // every product of two stored values (both triangles:
            if (h == 0.0) continue;                           // no branch on the order of the columns)
            double* Hd = H.data();
            for (int64_t q = 0; q < row.nnz; ++q) {
              double* col = Hd + static_cast<int64_t>(row.idx[q]) * N;
              const double hq = h * static_cast<double>(row.val[q]);
              for (int64_t t = 0; t < row.nnz; ++t) col[row.idx[t]] += hq * static_cast<double>(row.val[t]);
              if (fit_intercept) col[d] += hq;
            }
            if (fit_intercept) Hd[d * N + d] += h;
          }
        }
        if (blocks) H.template selfadjointView<Eigen::Lower>().rankUpdate(R.topRows(r1 - r0).transpose());
      }
    }
    return 0;
  });
  for (int64_t j = 0; j < d; ++j) H(j, j) += lambda;
}

/// The Hessian of F at (W, b), whole (both triangles), after the checks fit makes of the problem: what
/// Newton's method factorises, and what the noisy-label pass's leave-one-out probabilities invert
/// (noise/_cv.py's _loo_logit).
template <class Loss, class Data>
Eigen::MatrixXd hessian_matrix(const Data& X, const BinaryModel<Loss>& model, const double* sw, double lambda,
                               bool fit_intercept, const double* W, const double* b) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
  check_loss(model.loss);
  if (X.cols() > kMaxFeatures)
    throw std::invalid_argument("the Hessian of " + std::to_string(X.cols()) + " features is more than " +
                                std::to_string(kMaxFeatures) + " features' worth");
  model.validate_labels(X.rows());
  validate_sample_weight(sw, X.rows());
  Eigen::MatrixXd H;
  hessian(X, model, sw, lambda, fit_intercept, W, b, H);
  H.template triangularView<Eigen::StrictlyUpper>() = H.transpose();
  return H;
}

/// q_i = (x_i, 1) A (x_i, 1)^T for every row (the 1 only with fit_intercept), A (N x N, N = d + fit_intercept)
/// symmetric, whole and column-major, by the products of each row's stored values (nnz_i^2 a row; dense rows:
/// d^2): the leverages of the noisy-label pass's leave-one-out step (noise/_cv.py's _loo_logit, A = H^-1), where
/// a sparse row's quadratic form costs far less than its product with A.
template <class Data>
void quadratic_forms(const Data& X, const double* A, int64_t N, bool fit_intercept, double* q) {
  const int64_t n = X.rows(), d = X.cols();
  if (N != d + (fit_intercept ? 1 : 0))
    throw std::invalid_argument("the quadratic forms' matrix must be " + std::to_string(d + (fit_intercept ? 1 : 0)) +
                                " square (the features, and the intercept's 1), got " + std::to_string(N));
  InterruptCheck stop;
  for (int64_t i = 0; i < n; ++i) {
    stop.tick();
    const auto row = X.row(i);
    double s = fit_intercept ? A[d * N + d] : 0.0;
    for_each_nz(row, [&](int64_t jp, double xp) {
      const double* col = A + jp * N;
      double acc = fit_intercept ? 2.0 * col[d] : 0.0;
      for_each_nz(row, [&](int64_t jt, double xt) { acc += col[jt] * xt; });
      s += xp * acc;
    });
    q[i] = s;
  }
}

/// Fits the model from the initial w (d) and b (1), both in/out (a warm start from any given model).
/// Result: n_iter = iterations, step = the last accepted step length; history "objective", "train_error",
/// "grad_norm" (2-norm) per iteration when record_history, and always "passes" (iterations), "seconds" and
/// "evaluations" (passes over the data for F and its gradient so far; each iteration adds one for H).
template <class Loss, class Data>
Result fit(const Data& X, const BinaryModel<Loss>& model, const NewtonParams& p, double* W, double* b,
           const ProgressFn& progress = nullptr) {
  using Model = BinaryModel<Loss>;
  p.validate();
  check_loss(model.loss);
  const int64_t n = X.rows(), d = X.cols();
  if (n < 1) throw std::invalid_argument("Newton's method needs at least one sample");
  if (d > kMaxFeatures)
    throw std::invalid_argument("Newton's method forms a d x d Hessian: " + std::to_string(d) +
                                " features is more than " + std::to_string(kMaxFeatures) + "; use L-BFGS");
  model.validate_labels(n);
  validate_sample_weight(p.sample_weight, n);
  Result res;
  lbfgs::detail::Iterates<Model, Data> it(X, model, p.lambda, p.fit_intercept, p.sample_weight, p.record_history,
                                          p.tol, W, b, res, progress);
  const int64_t N = it.N;
  auto &x = it.x, &g = it.g, &xt = it.xt, &gt = it.gt;
  if (!it.start()) return res;
  Eigen::MatrixXd H;
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::VectorXd dir(N);
  int64_t k = 0;
  while (k < p.max_iter) {
    hessian(X, model, p.sample_weight, p.lambda, p.fit_intercept, x.data(), x.data() + d, H);
    ++it.evaluations;
    const Eigen::Map<const Eigen::VectorXd> gv(g.data(), N);
    llt.compute(H);
    if (llt.info() != Eigen::Success && H.allFinite()) {  // not positive definite: Levenberg's shift, growing by
      // 10 from 1e-10 to 1e10 of H's largest diagonal entry (then H + mu I is diagonally dominant)
      const double top = std::max(H.diagonal().cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
      double mu = 1e-10 * top;
      for (int shift = 0; shift <= 20 && llt.info() != Eigen::Success; ++shift, mu *= 10.0) {
        Eigen::MatrixXd shifted = H;
        shifted.diagonal().array() += mu;
        llt.compute(shifted);
      }
    }
    if (llt.info() == Eigen::Success) dir = llt.solve(-gv);
    double gd = llt.info() == Eigen::Success && dir.allFinite() ? gv.dot(dir) : 0.0;
    if (!(gd < 0.0)) {  // no descent direction from H (rounding, a non-finite H): steepest descent
      dir = -gv;
      gd = gv.dot(dir);
      if (!(gd < 0.0)) {  // a zero gradient
        res.status = Status::Converged;
        return res;
      }
    }
    double stp = 1.0, ft = 0.0, errt = 0.0;
    int64_t trials = 0;
    auto trial = [&]() {
      for (int64_t q = 0; q < N; ++q) xt[static_cast<size_t>(q)] = x[static_cast<size_t>(q)] + stp * dir[q];
      ft = it.evaluate(xt, gt, &errt);
      ++trials;
    };
    trial();
    while (!(std::isfinite(ft) && ft <= it.f + 1e-4 * stp * gd) && trials < p.max_linesearch) {
      // the quadratic's minimiser through F(x), F'(x; d) and the failed trial, in [0.1, 0.5] of the step
      const double curv = std::isfinite(ft) ? ft - it.f - gd * stp : std::numeric_limits<double>::infinity();
      const double q = curv > 0.0 ? -gd * stp * stp / (2.0 * curv) : 0.5 * stp;
      stp = std::min(0.5 * stp, std::max(0.1 * stp, q));
      trial();
    }
    if (!it.accept(ft, errt, stp, ++k)) return res;  // (no decrease along d: the rounding floor)
  }
  res.status = Status::MaxIter;
  return res;
}

}  // namespace newton
}  // namespace robustcore
