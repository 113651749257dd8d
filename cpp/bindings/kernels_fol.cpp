// The fol engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/adaboost.hpp>
#include <robustcore/fol.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_FOL_INSTANCES()
}  // namespace robustcore
