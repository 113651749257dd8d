// The L-BFGS engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/any_loss.hpp>
#include <robustcore/lbfgs.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_LBFGS_INSTANCES()
}  // namespace robustcore
