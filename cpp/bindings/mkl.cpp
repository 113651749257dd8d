// Bindings: the multiple kernel learning solver (mkl.hpp) and the Lemma 3 composite step. The kernel banks
// it runs on are built in mkl_banks.cpp.
#include "common.hpp"
#include "instances.hpp"

#include <robustcore/mkl.hpp>
#include <robustcore/projections.hpp>

namespace robustcore {
RCB_MKL_INSTANCES(extern)  // compiled in kernels_mkl.cpp
}  // namespace robustcore

namespace rcb {

namespace {

template <class Bank>
robustcore::mkl::MklResult run_solve(const Bank& bank, const F64& y, const robustcore::mkl::Options& opt, F64& coef,
                                     F64& dual, py::object progress, const std::optional<F64>& sample_weight) {
  const int64_t m = bank.m, n = bank.n;
  const double* yp = checked_const(y, n, "y");
  if (coef.ndim() != 2 || coef.shape(0) != m || coef.shape(1) != n)
    throw std::invalid_argument("coef must have shape (m, n)");
  double* dp = checked(dual, n, "dual");
  double* cp = coef.mutable_data();
  const double* wp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
  Progress prog(std::move(progress));
  return prog.run([&] { return robustcore::mkl::solve(bank, yp, opt, cp, dp, prog.fn(), wp); });
}

template <class Scalar>
robustcore::mkl::MklResult solve_dense(const py::array_t<Scalar, py::array::c_style>& K, const F64& y,
                                       const robustcore::mkl::Options& opt, F64 coef, F64 dual, py::object progress,
                                       const std::optional<F64>& sample_weight) {
  if (K.ndim() != 3 || K.shape(1) != K.shape(2)) throw std::invalid_argument("K must have shape (m, n, n)");
  const robustcore::mkl::KernelBank<Scalar> bank{K.data(), K.shape(0), K.shape(1)};
  return run_solve(bank, y, opt, coef, dual, std::move(progress), sample_weight);
}

robustcore::mkl::MklResult solve_factored(const robustcore::FactoredBank& bank, const F64& y,
                                          const robustcore::mkl::Options& opt, F64 coef, F64 dual,
                                          py::object progress, const std::optional<F64>& sample_weight) {
  return run_solve(bank, y, opt, coef, dual, std::move(progress), sample_weight);
}

}  // namespace

void bind_mkl(py::module_& m) {
  m.def(
      "group_lasso_squared_prox",
      [](const F64& a, double c, F64 scale) {
        if (a.ndim() != 1) throw std::invalid_argument("a must be 1-d");
        double* sp = checked(scale, a.shape(0), "scale");
        return robustcore::group_lasso_squared_prox(a.data(), a.shape(0), c, sp);
      },
      py::arg("a").noconvert(), py::arg("c"), py::arg("scale").noconvert(),
      "MKL Lemma 3 / problem (13): scale factors s_j (written into scale) of the minimiser f_j = s_j fhat_j of "
      "1/2 sum ||f_j - fhat_j||^2 + c/2 (sum ||f_j||)^2 given a_j = ||fhat_j||; returns sum_j ||f_j||.");
  using robustcore::mkl::Method;
  using robustcore::mkl::MklResult;
  using robustcore::mkl::Options;
  py::enum_<Method>(m, "MklMethod").value("amp", Method::AMP).value("vi", Method::VI);
  py::class_<Options>(m, "MklOptions", "Options of mkl_solve (mkl.hpp); checked by the engine.")
      .def(py::init<>())
      .def_readwrite("alpha", &Options::alpha, "regulariser (the paper's lambda)")
      .def_readwrite("upper", &Options::upper)
      .def_readwrite("rho", &Options::rho)
      .def_readwrite("gamma", &Options::gamma)
      .def_readwrite("gamma0", &Options::gamma0)
      .def_readwrite("max_iter", &Options::max_iter)
      .def_readwrite("tol", &Options::tol)
      .def_readwrite("method", &Options::method)
      .def_readwrite("n_threads", &Options::n_threads, "threads for the kernel pass (same bits for any number)");
  py::class_<MklResult, robustcore::Result>(m, "MklResult", "Result of mkl_solve: step = gamma used, final gap.")
      .def_readonly("gap", &MklResult::gap)
      .def_readonly("primal", &MklResult::primal)
      .def_readonly("dual", &MklResult::dual);
  const char* doc = "StPMKL on problem (11) by accelerated mirror prox (method amp) or gradient descent-ascent (vi); "
                    "writes the averaged coefficients into coef (m, n) and dual variables into dual (n); sample_weight (n) "
                    "scales each dual variable's box and the 1/n of the hinge terms (1/sum of the weights).";
  m.def("mkl_solve", &solve_dense<double>, py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("options"),
        py::arg("coef").noconvert(), py::arg("dual").noconvert(), py::arg("progress") = py::none(),
        py::arg("sample_weight").noconvert() = py::none(), doc);
  m.def("mkl_solve", &solve_dense<float>, py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("options"),
        py::arg("coef").noconvert(), py::arg("dual").noconvert(), py::arg("progress") = py::none(),
        py::arg("sample_weight").noconvert() = py::none(), "float32 kernel storage variant.");
  m.def("mkl_solve", &solve_factored, py::arg("K"), py::arg("y").noconvert(), py::arg("options"),
        py::arg("coef").noconvert(), py::arg("dual").noconvert(), py::arg("progress") = py::none(),
        py::arg("sample_weight").noconvert() = py::none(), "factored kernel bank variant.");
}

}  // namespace rcb

RCB_REGISTER(mkl, Extensions)  // mkl_solve takes FactoredBank (mkl_banks.cpp)
