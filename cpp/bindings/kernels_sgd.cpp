// The sgd engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/any_loss.hpp>
#include <robustcore/sgd.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_SGD_INSTANCES()
}  // namespace robustcore
