// Umbrella and dispatch for the variance-reduced solvers (vr/*.hpp): vr::fit picks the step size
// (VrParams::eta or vr::default_step from the smoothness constant) and runs the chosen method.
#pragma once

#include "vr/batching_svrg.hpp"
#include "vr/finito.hpp"
#include "vr/lazy.hpp"
#include "vr/mixed_svrg.hpp"
#include "vr/s2gd.hpp"
#include "vr/sag.hpp"
#include "vr/saga.hpp"
#include "vr/svrg.hpp"
#include "vr/vrlite.hpp"

namespace robustcore {
namespace vr {

/// Fit from the initial (w, b) (in/out). `injected` (length len) replaces the Rng's draws (tests).
/// X_test / y_test (optional, +-1 labels) add the test error per effective pass to the history.
template <class Loss, class Data>
VrResult fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double* w, double& b,
             const int64_t* injected = nullptr, int64_t len = 0, ProgressFn progress = nullptr,
             const Data* X_test = nullptr, const double* y_test = nullptr) {
  check_problem(X, y, loss, p);
  if (p.method == Method::Sgd)
    throw std::invalid_argument("method sgd is the softmax model's plain SGD; binary SGD is sgd_fit (sgd.hpp)");
  if (X_test) {
    if (X_test->cols() != X.cols()) throw std::invalid_argument("the test set has a different number of features");
    if (!y_test) throw std::invalid_argument("X_test given without y_test");
    validate_binary_labels(y_test, X_test->rows());
  }
  const EvalSet<Data> eval{X_test, y_test};
  if (p.method == Method::Finito) finito_check_size(X.rows(), X.cols(), p.max_dense_bytes);
  const double L = max_smoothness(X, loss, p.lambda, p.fit_intercept, p.sample_weight);
  const double eta = p.eta > 0.0 ? p.eta : default_step(p.method, L, p.lambda, X.rows());
  if (!(eta * p.lambda < 1.0)) throw std::invalid_argument("step size too large: eta * lambda must be < 1");
  IndexStream idx(p.seed, injected, len);
  switch (p.method) {
    case Method::Saga: return saga_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), false, eval);
    case Method::Sag: return sag_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), eval);
    case Method::Svrg:
    case Method::S2gd:
    case Method::BatchingSvrg:
    case Method::MixedSvrg: return svrg_family_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), eval);
    case Method::Finito: return finito_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), eval);
    case Method::VrLite: return vrlite_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), eval);
    case Method::Sgd: break;
  }
  throw std::invalid_argument("unknown variance-reduced method");
}

}  // namespace vr
}  // namespace robustcore
