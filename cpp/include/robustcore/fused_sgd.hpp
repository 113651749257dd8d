// The fused SGD path of kernel approximation (issue 31): SGD / ASGD / Pegasos on the features z(x_i) of a
// feature map without the n x D feature matrix: sgd.hpp's detail::sgd_epochs, unchanged, on a FusedView
// (fused_view.hpp: the rows of each batch of the pass order mapped when the loop stages them).
// Same bits as sgd_fit on the materialised features: the pass order, the eta0 calibration and every step
// are sgd_fit's, on the same values. Not with Shuffle::Block (a copy of the data in a shuffled order) nor
// n_threads > 1 in SgdParams (parameter mixing): the view's threads map the batch instead (same bits for
// any number). The variance-reduced solvers need no entry point of their own: vr::fit runs on a FusedView.
#pragma once

#include <stdexcept>

#include "fused_view.hpp"
#include "sgd.hpp"

namespace robustcore {

/// sgd_fit (sgd.hpp) on the mapped rows of Z: the same checks, pass order and steps, so the same bits as
/// sgd_fit on the materialised features (see the top of this file).
template <class Loss>
Result fused_sgd_fit(const FusedView& Z, const double* y, const double* sample_weight, const Loss& loss,
                     SgdParams params, SgdState& state, const ProgressFn& progress = nullptr) {
  if (params.shuffle == Shuffle::Block) throw std::invalid_argument("fused sgd: block shuffling is not available");
  if (params.n_threads > 1)
    throw std::invalid_argument("fused sgd: parameter mixing (n_threads > 1) is not available; the view's threads map the batches");
  const int64_t n = Z.rows(), d = Z.cols();
  const BinaryModel<Loss> model = detail::checked_problem(loss, y, sample_weight, params, state, n, d);
  Sampler src(params.seed, nullptr, 0);
  PassOrder order(n, params.shuffle, 1, src);
  const detail::PassSource next_pass{&order, nullptr, n};
  return detail::sgd_epochs(Z, model, sample_weight, Z, y, sample_weight, loss, params, state, next_pass, n,
                            static_cast<const FusedView*>(nullptr), nullptr, progress);
}

}  // namespace robustcore
