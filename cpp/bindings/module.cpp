// The _core extension module: registers each binding file (one per concept), in the order of their stage,
// then of their names (RCB_REGISTER, common.hpp). `_core._bindings` lists them in that order (the structure
// test compares it with the binding files).
#include <algorithm>
#include <cstring>

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
  std::vector<rcb::Registration> files = rcb::registrations();
  std::sort(files.begin(), files.end(), [](const rcb::Registration& a, const rcb::Registration& b) {
    return a.stage != b.stage ? a.stage < b.stage : std::strcmp(a.name, b.name) < 0;
  });
  py::list names;
  for (const rcb::Registration& file : files) {
    file.bind(m);
    names.append(file.name);
  }
  m.attr("_bindings") = py::tuple(names);
}
