// The feature-map engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/feature_maps.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_FMAP_INSTANCES()
}  // namespace robustcore
