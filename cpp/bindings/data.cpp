// Bindings: data matrices (views over numpy arrays, no copies) and losses (vectorised value/deriv).
#include "common.hpp"
#include "instances.hpp"

namespace rcb {

namespace {

template <class T>
Matrix make_csr(const py::array_t<T, py::array::c_style>& data, const I32& indices, const I64& indptr, int64_t n_cols) {
  if (data.ndim() != 1 || indices.ndim() != 1 || indptr.ndim() != 1)
    throw std::invalid_argument("CSR arrays must be 1-d");
  if (indptr.shape(0) < 1) throw std::invalid_argument("CSR indptr must have at least one entry");
  robustcore::CsrView<int64_t, T> v;
  v.data = data.data();
  v.indices = indices.data();
  v.indptr = indptr.data();
  v.n_rows = indptr.shape(0) - 1;
  v.n_cols = n_cols;
  {
    py::gil_scoped_release nogil;
    kernels::validate(v, data.shape(0), indices.shape(0));
  }
  Matrix m;
  m.view = v;
  m.keep_alive[0] = data;
  m.keep_alive[1] = indices;
  m.keep_alive[2] = indptr;
  return m;
}

template <class T>
Matrix make_dense(const py::array_t<T, py::array::c_style>& X) {
  if (X.ndim() != 2) throw std::invalid_argument("dense matrix must be 2-d");
  robustcore::BasicDenseView<T> v{X.data(), X.shape(0), X.shape(1)};
  {
    py::gil_scoped_release nogil;
    kernels::validate(v);
  }
  Matrix m;
  m.view = v;
  m.keep_alive[0] = X;
  return m;
}

template <class IP, class Idx>
void check_csr_structure(const py::array_t<IP, py::array::c_style>& indptr,
                         const py::array_t<Idx, py::array::c_style>& indices, int64_t data_len, int64_t n_rows,
                         int64_t n_cols) {
  if (indptr.ndim() != 1 || indices.ndim() != 1) throw std::invalid_argument("CSR arrays must be 1-d");
  if (indptr.shape(0) < 1) throw std::invalid_argument("corrupt CSR matrix: indptr is empty");
  py::gil_scoped_release nogil;
  kernels::csr_structure(indptr.data(), indptr.shape(0), indices.data(), indices.shape(0), data_len, n_rows, n_cols);
}

py::dict parameters(const LossSpec& l) {
  py::dict out;
  for (std::size_t i = 0; i < l.parameter_count(); ++i) out[l.parameter_name(i)] = l.values[i];
  return out;
}

}  // namespace

void bind_data(py::module_& m) {
  py::class_<Matrix>(m, "Matrix", "A validated, non-owning view over numpy arrays (dense row-major or CSR).")
      .def_static("dense", &make_dense<double>, py::arg("X").noconvert())
      .def_static("dense", &make_dense<float>, py::arg("X").noconvert(),
                  "float32 values: the SGD solvers train on them without a float64 copy")
      .def_static("csr", &make_csr<double>, py::arg("data").noconvert(), py::arg("indices").noconvert(),
                  py::arg("indptr").noconvert(), py::arg("n_cols"))
      .def_static("csr", &make_csr<float>, py::arg("data").noconvert(), py::arg("indices").noconvert(),
                  py::arg("indptr").noconvert(), py::arg("n_cols"))
      .def_property_readonly("shape", [](const Matrix& mm) { return py::make_tuple(mm.rows(), mm.cols()); })
      .def_property_readonly("is_sparse", &Matrix::is_sparse)
      .def_property_readonly("is_float32", &Matrix::is_float32);

  // robustcore::validate_csr_structure on scipy's own index arrays (no copy, GIL released)
  const char* csr_doc = "Raise ValueError naming the first structural defect of a CSR matrix (data.hpp).";
  m.def("check_csr_structure", &check_csr_structure<int32_t, int32_t>, py::arg("indptr").noconvert(),
        py::arg("indices").noconvert(), py::arg("data_len"), py::arg("n_rows"), py::arg("n_cols"), csr_doc);
  m.def("check_csr_structure", &check_csr_structure<int64_t, int64_t>, py::arg("indptr").noconvert(),
        py::arg("indices").noconvert(), py::arg("data_len"), py::arg("n_rows"), py::arg("n_cols"), csr_doc);
  m.def("check_csr_structure", &check_csr_structure<int32_t, int64_t>, py::arg("indptr").noconvert(),
        py::arg("indices").noconvert(), py::arg("data_len"), py::arg("n_rows"), py::arg("n_cols"), csr_doc);
  m.def("check_csr_structure", &check_csr_structure<int64_t, int32_t>, py::arg("indptr").noconvert(),
        py::arg("indices").noconvert(), py::arg("data_len"), py::arg("n_rows"), py::arg("n_cols"), csr_doc);

  py::class_<CancelFlag, std::shared_ptr<CancelFlag>>(
      m, "CancelFlag",
      "Stops the engine calls made inside `with flag:` (in any thread) once flag.set() is called; they raise "
      "KeyboardInterrupt (common.hpp, Interrupts).")
      .def(py::init<>())
      .def("set", [](CancelFlag& f) { f.set.store(true); })
      .def_property_readonly("is_set", [](const CancelFlag& f) { return f.set.load(); })
      .def("__enter__", [](std::shared_ptr<CancelFlag> f) { current_cancel = f; return f; })
      .def("__exit__", [](const std::shared_ptr<CancelFlag>&, py::args) { current_cancel.reset(); return false; });

  py::class_<robustcore::Result>(m, "Result", "What every solver returns (result.hpp).")
      .def_property_readonly("status", [](const robustcore::Result& r) { return robustcore::status_name(r.status); },
                             "'converged', 'max_iter', 'diverged' or 'interrupted'")
      .def_readonly("n_iter", &robustcore::Result::n_iter, "epochs / effective passes / iterations done")
      .def_readonly("step", &robustcore::Result::step, "the step size the solver chose (0 when given)")
      .def_property_readonly("history", [](const robustcore::Result& r) { return history_to_dict(r.history); },
                             "per-pass columns as a dict of 1-d arrays");

  // the losses' enum and parameters, read from the engine's registry (losses.hpp, `Losses`)
  py::enum_<LossKind> kinds(m, "LossKind");
  robustcore::for_each_loss([&](auto tag) {
    using L = std::remove_pointer_t<decltype(tag)>;
    kinds.value(L::name, L::kind);
  });
  m.def(
      "loss_traits",
      [](LossKind kind) {
        return robustcore::detail::with_kind(kind, [](auto tag) {
          using L = std::remove_pointer_t<decltype(tag)>;
          py::dict out;
          out["smooth"] = L::smooth;
          out["convex"] = L::convex;
          out["bounded"] = L::bounded;
          out["bounded_derivative"] = L::bounded_derivative;
          return out;
        });
      },
      py::arg("kind"), "{trait: bool} a loss declares (losses.hpp): smooth, convex, bounded, bounded_derivative.");
  m.def("loss_parameters", [](LossKind kind) { return parameters(LossSpec(kind)); }, py::arg("kind"),
        "{name: default} of a loss's parameters, in the order its constructor takes them.");

  py::class_<LossSpec>(m, "LossSpec", "A loss and its parameters' values (losses.hpp); validated when built.")
      .def(py::init([](LossKind kind, const py::kwargs& params) {
             LossSpec l(kind);
             for (const auto& item : params) l.set(py::cast<std::string>(item.first), py::cast<double>(item.second));
             visit_loss(l, [](const auto&) { return 0; });  // validates the values (the loss's constructor)
             return l;
           }),
           py::arg("kind"))
      .def_readonly("kind", &LossSpec::kind)
      .def_property_readonly("parameters", &parameters, "{name: value} of the loss's parameters")
      .def("smoothness", [](const LossSpec& l) { return visit_loss(l, [](const auto& f) { return f.smoothness(); }); })
      .def(
          "value_deriv",
          [](const LossSpec& l, const F64& z) {
            F64 v(z.size()), d(z.size());
            const double* zp = z.data();
            double* vp = v.mutable_data();
            double* dp = d.mutable_data();
            kernels::value_deriv(l, zp, z.size(), vp, dp);
            return py::make_tuple(v, d);
          },
          py::arg("z").noconvert(), "Loss value and derivative at each margin z (1-d float64).");
}

}  // namespace rcb

RCB_REGISTER(data, Types)
