// The feature-block MKL solver (mkl_blocks.hpp) the bindings call (instances.hpp), instantiated once, at
// the release optimisation (-O3: its passes are the per-row loops of an SGD epoch).
#include <robustcore/mkl_blocks.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_MKL_BLOCKS_INSTANCES()
}  // namespace robustcore
