// The _core extension module: registers each concept's bindings (one file per concept).
#include "common.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "robustcore engine (header-only C++17/Eigen), thin bindings";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::length_error& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "robustcore: the engine could not allocate the memory this problem needs "
                                         "(check the sizes: rows, features, classes, batch_size)");
    }
  });
  rcb::bind_data(m);
  rcb::bind_linear(m);
  rcb::bind_projections(m);
  rcb::bind_fol(m);
  rcb::bind_mkl(m);
  rcb::bind_mkl_banks(m);
  rcb::bind_vr(m);
  rcb::bind_lbfgs(m);
  rcb::bind_feature_maps(m);
  rcb::bind_mkl_blocks(m);  // after bind_feature_maps and bind_mkl: takes KernelBankMap, MklOptions
  rcb::bind_fused(m);  // after bind_linear: overloads of sgd_fit / sgd_calibrate_eta0
}
