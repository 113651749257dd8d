// The vr engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/any_loss.hpp>
#include <robustcore/vr.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_VR_INSTANCES()
}  // namespace robustcore
