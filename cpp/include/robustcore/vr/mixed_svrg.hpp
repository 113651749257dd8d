// Mixed SVRG (paper Algorithm 4.9; Harikandeh et al. 2015): Batching SVRG whose inner steps on samples
// outside the batch are plain SGD steps (no correction term; the lazy catch-up skips the dense term on
// those steps through LazyWeights::advance(false)). The loop is svrg_family_fit (svrg.hpp) with
// Method::MixedSvrg.
#pragma once

#include "svrg.hpp"
