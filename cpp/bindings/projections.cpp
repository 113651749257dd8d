// Bindings: Euclidean projections (projections.hpp).
#include "common.hpp"

#include <robustcore/projections.hpp>

namespace rcb {

void bind_projections(py::module_& m) {
  m.def(
      "project_capped_simplex",
      [](const F64& v, double upper, double budget, F64 out) {
        if (v.ndim() != 1) throw std::invalid_argument("v must be 1-d");
        double* op = checked(out, v.shape(0), "out");
        py::gil_scoped_release nogil;
        return robustcore::project_capped_simplex(v.data(), v.shape(0), upper, budget, op);
      },
      py::arg("v").noconvert(), py::arg("upper"), py::arg("budget"), py::arg("out").noconvert(),
      "Projection of v onto {0 <= x <= upper, sum x <= budget}, written into out; returns the budget "
      "multiplier theta (see projections.hpp).");
}

}  // namespace rcb

RCB_REGISTER(projections, Solvers)
