// The entry point of the variance-reduced solvers (vr/*.hpp): vr::fit validates the problem once (the
// parameters, the labels through the model, sample weights, the evaluation set, Finito's table size),
// picks the step size (VrParams::eta or default_step from the smoothness constant; eta * lambda < 1 is
// checked here and only here), and runs the chosen method's loop for the model with one Sampler and one
// Monitor.
#pragma once

#include <stdexcept>

#include "monitor.hpp"
#include "result.hpp"
#include "vr/finito.hpp"
#include "vr/plain_sgd.hpp"
#include "vr/problem.hpp"
#include "vr/saga.hpp"
#include "vr/svrg.hpp"
#include "vr/vrlite.hpp"

namespace robustcore {
namespace vr {

/// The step size fit() uses: p.eta when given, otherwise default_step from L_max.
template <class Model, class Data>
double step_size(const Data& X, const Model& model, const VrParams& p) {
  if (p.eta > 0.0) return p.eta;
  const double L = max_smoothness(X, model.curvature(), p.lambda, p.fit_intercept, p.sample_weight);
  return default_step(p.method, L, p.lambda, X.rows());
}

/// Fit the model from the initial W (d x K feature-major) and b (K), both in/out. `injected` (length len)
/// replaces the Sampler's random draws (tests). `eval` (optional) adds the test error per effective pass
/// to the history. The Result's n_iter counts effective passes, step is the eta used.
template <class Model, class Data>
Result fit(const Data& X, const Model& model, const VrParams& p, double* W, double* b,
           const int64_t* injected = nullptr, int64_t len = 0, const ProgressFn& progress = nullptr,
           EvalSet<Model, Data> eval = {}) {
  static_assert(Model::smooth, "the variance-reduced solvers need a smooth loss");
  p.validate();
  const int64_t n = X.rows();
  if (n < 1) throw std::invalid_argument("the variance-reduced solvers need at least one sample");
  model.validate_labels(n);
  validate_sample_weight(p.sample_weight, n);
  if (eval.X) {
    if (eval.X->cols() != X.cols()) throw std::invalid_argument("the test set has a different number of features");
    if (!eval.y) throw std::invalid_argument("X_test given without y_test");
    Model::validate_test_labels(eval.y, eval.X->rows());
  }
  if (p.method == Method::Finito) finito_check_size(n, X.cols(), p.max_dense_bytes, model.K());
  const double eta = step_size(X, model, p);
  if (!(eta * p.lambda < 1.0)) throw std::invalid_argument("step size too large: eta * lambda must be < 1");
  Result res;
  res.step = eta;
  const MonitorSettings ms{p.lambda, p.fit_intercept, p.sample_weight, p.record_history, /*grad_norm=*/true, p.tol};
  Monitor<Model, Data> mon(X, model, ms, res, progress, eval);
  // each method's own draws (with replacement or a fresh permutation, as published)
  Sampler src(p.seed, injected, len);
  PassOrder order(n, Shuffle::Exact, 1, src);
  const Problem<Model, Data> P{X, model, p, eta};
  switch (p.method) {
    case Method::Saga: saga_fit(P, W, b, order, mon, /*sag=*/false); break;
    case Method::Sag: saga_fit(P, W, b, order, mon, /*sag=*/true); break;
    case Method::Svrg:
    case Method::S2gd:
    case Method::BatchingSvrg:
    case Method::MixedSvrg: svrg_family_fit(P, W, b, order, mon); break;
    case Method::Finito: finito_fit(P, W, b, order, mon); break;
    case Method::VrLite: vrlite_fit(P, W, b, order, mon); break;
    case Method::Sgd: plain_sgd_fit(P, W, b, order, mon); break;
    case Method::Count: break;  // refused by p.validate()
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
