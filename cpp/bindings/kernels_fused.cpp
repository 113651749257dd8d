// The fused-path engine templates the bindings call (instances.hpp: the SGD epochs, the eta0 calibration,
// vr::fit of the binary model), instantiated once, at the release optimisation. The maps' block methods are kernels_feature_maps.cpp's.
#include <robustcore/any_loss.hpp>
#include <robustcore/fused_sgd.hpp>
#include <robustcore/vr.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_FMAP_INSTANCES(extern)
RCB_FUSED_INSTANCES()
}  // namespace robustcore
