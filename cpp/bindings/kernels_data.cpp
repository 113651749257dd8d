// The data views the bindings validate (instances.hpp), instantiated once, at the release optimisation.
#include <robustcore/data.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_DATA_INSTANCES()
}  // namespace robustcore
