// Umbrella include for the robustcore engine.
#pragma once

#include "data.hpp"
#include "losses.hpp"
#include "rng.hpp"
#include "schedules.hpp"
#include "sgd.hpp"
#include "status.hpp"
#include "trace.hpp"
#include "weights.hpp"
#include "sum_tree.hpp"
#include "fol.hpp"
