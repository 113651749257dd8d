// Bindings: variance-reduced solvers (vr.hpp) for the binary and the softmax model. Conversion only:
// every check of the problem happens in robustcore::vr::fit. The loss is chosen at run time
// (AnySmoothLoss): one binary loop per data view instead of one per loss and view, for ~1-2% more
// instructions in the kernels (bench/bench_vr.cpp's *_runtime_loss cases).
#include "common.hpp"
#include "instances.hpp"

#include <robustcore/any_loss.hpp>
#include <robustcore/vr.hpp>

namespace robustcore {
RCB_VR_INSTANCES(extern)  // compiled in kernels_vr.cpp
}  // namespace robustcore

namespace rcb {

namespace {
/// Runs vr::fit for `model` on X (and the optional test set) without the GIL; rethrows a callback's
/// exception after the solve.
template <class MakeModel, class Label>
robustcore::Result run_vr(const Matrix& X, const robustcore::vr::VrParams& params, double* W, double* b,
                          const std::optional<I64>& order, py::object progress, const Matrix* X_test,
                          const Label* y_test, MakeModel&& make_model) {
  const auto [op, olen] = injected_order(order);
  Progress prog(std::move(progress));
  return prog.run([&] {
    return visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
      return make_model([&](const auto& model) {
        using Model = std::decay_t<decltype(model)>;
        using Data = std::decay_t<decltype(v)>;
        return robustcore::vr::fit(v, model, params, W, b, op, olen, prog.fn(),
                                   robustcore::EvalSet<Model, Data>{tv, y_test});
      });
    });
  });
}
}  // namespace

void bind_vr(py::module_& m) {
  using namespace robustcore;
  using vr::Method;
  using vr::SvrgOption;
  using vr::VrParams;
  py::enum_<Method> methods(m, "VrMethod");  // every method of vr/problem.hpp, by its own name
  for (int i = 0; i < vr::kMethodCount; ++i) methods.value(vr::method_name(Method(i)), Method(i));
  methods.def_property_readonly("class_name", [](Method k) { return vr::method_info(k).class_name; },
                                "the class name of the method's Python solver object");
  methods.def_property_readonly("summary", [](Method k) { return vr::method_info(k).summary; },
                                "one line on the method (its solver object's docstring starts with it)");
  py::enum_<SvrgOption>(m, "SvrgOption")
      .value("last", SvrgOption::Last)
      .value("average", SvrgOption::Average)
      .value("random", SvrgOption::Random);
  py::class_<VrParams>(m, "VrParams")
      .def(py::init<>())
      .def_readwrite("method", &VrParams::method)
      .def_readwrite("option", &VrParams::option)
      .def_readwrite("alpha", &VrParams::lambda)
      .def_readwrite("eta", &VrParams::eta)
      .def_readwrite("max_iter", &VrParams::max_iter)
      .def_readwrite("inner", &VrParams::inner)
      .def_readwrite("batch", &VrParams::batch)
      .def_readwrite("batch_growth", &VrParams::batch_growth)
      .def_readwrite("s2gd_nu", &VrParams::s2gd_nu)
      .def_readwrite("tol", &VrParams::tol)
      .def_readwrite("fit_intercept", &VrParams::fit_intercept)
      .def_readwrite("seed", &VrParams::seed)
      .def_readwrite("record_history", &VrParams::record_history)
      .def_readwrite("max_dense_bytes", &VrParams::max_dense_bytes);

  m.def(
      "vr_fit",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const VrParams& params_in, F64 coef, F64 intercept, std::optional<I64> order, py::object progress,
         const Matrix* X_test, std::optional<F64> y_test) {
        const double* yp = checked_const(y, X.rows(), "y");
        const double* ytp = X_test && y_test ? checked_const(*y_test, X_test->rows(), "y_test") : nullptr;
        VrParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        double* cp = checked(coef, X.cols(), "coef");
        double* bp = checked(intercept, 1, "intercept");
        const AnySmoothLoss l(loss);
        return run_vr(X, params, cp, bp, order, std::move(progress), X_test, ytp,
                      [&](auto&& run) { return run(BinaryModel<AnySmoothLoss>{l, yp}); });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(),
      py::arg("intercept").noconvert(), py::arg("order").noconvert() = py::none(), py::arg("progress") = py::none(),
      py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(),
      "Variance-reduced solver (see vr.hpp) for the binary model (+-1 labels) from the initial coef / "
      "intercept[0], written in place. order: injected random draws (tests); X_test / y_test (+-1): test error "
      "per effective pass. Returns a Result (n_iter = effective passes, step = the eta used).");

  m.def(
      "softmax_fit",
      [](const Matrix& X, const I64& y, int64_t K, std::optional<F64> sample_weight, const VrParams& params_in,
         F64 coef, F64 intercept, std::optional<I64> order, py::object progress, const Matrix* X_test,
         std::optional<I64> y_test) {
        const int64_t* yp = checked_const(y, X.rows(), "y");
        const int64_t* ytp = X_test && y_test ? checked_const(*y_test, X_test->rows(), "y_test") : nullptr;
        VrParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        double* cp = checked(coef, X.cols() * std::max<int64_t>(K, 0), "coef (d * K, feature-major)");
        double* bp = checked(intercept, std::max<int64_t>(K, 0), "intercept");
        return run_vr(X, params, cp, bp, order, std::move(progress), X_test, ytp,
                      [&](auto&& run) { return run(SoftmaxModel{K, yp}); });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("K"), py::arg("sample_weight").noconvert(), py::arg("params"),
      py::arg("coef").noconvert(), py::arg("intercept").noconvert(), py::arg("order").noconvert() = py::none(),
      py::arg("progress") = py::none(), py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(),
      "The softmax model (model.hpp) by any VrMethod (sgd included); coef is (d, K) C-order, written in place. "
      "X_test / y_test (labels in 0..K-1, -1 = a class unseen in training): test error per effective pass.");

  m.def("finito_check_size", &vr::finito_check_size, py::arg("n"), py::arg("d"), py::arg("max_bytes"),
        py::arg("K") = 1);
}

}  // namespace rcb

RCB_REGISTER(vr, Solvers)
