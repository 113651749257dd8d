// Batching SVRG (paper Algorithm 4.8; Harikandeh et al. 2015): the snapshot gradient is the mean over a
// batch of B samples drawn without replacement (VrParams::batch, default n/8, growing by batch_growth); gradients at the snapshot
// outside the batch are computed on the fly. The loop is svrg_family_fit (svrg.hpp) with
// Method::BatchingSvrg.
#pragma once

#include "svrg.hpp"
