// S2GD (paper Algorithm 4.5; Konecny & Richtarik 2017): SVRG's inner loop with the next outer iterate
// drawn with probability ~ (1 - nu eta)^(m - t) (nu = VrParams::s2gd_nu, default lambda). The loop is
// svrg_family_fit (svrg.hpp) with Method::S2gd.
#pragma once

#include "svrg.hpp"
