// SAG (paper Algorithm 4.4; Le Roux, Schmidt, Bach 2012): the SAGA loop of saga.hpp with the table
// updated before the step, so the step is (1/n) times the new table sum (a biased estimate).
#pragma once

#include "saga.hpp"

namespace robustcore {
namespace vr {

template <class Loss, class Data>
VrResult sag_fit(const Data& X, const double* y, const Loss& loss, const VrParams& p, double eta, double* w,
                 double& b, IndexStream& idx, ProgressFn progress, EvalSet<Data> eval = {}) {
  return saga_fit(X, y, loss, p, eta, w, b, idx, std::move(progress), /*sag=*/true, eval);
}

}  // namespace vr
}  // namespace robustcore
