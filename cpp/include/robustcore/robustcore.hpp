// Umbrella include for the robustcore engine.
#pragma once

#include "data.hpp"
#include "losses.hpp"
#include "rng.hpp"
#include "schedules.hpp"
#include "sgd.hpp"
#include "result.hpp"
#include "trace.hpp"
#include "weights.hpp"
#include "sum_tree.hpp"
#include "fol.hpp"
#include "projections.hpp"
#include "factored_bank.hpp"
#include "mkl.hpp"
#include "vr.hpp"
#include "multinomial.hpp"
