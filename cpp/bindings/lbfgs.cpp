// Bindings: L-BFGS (lbfgs.hpp) for the binary model (any smooth loss, chosen at run time) and the softmax
// model, one function name with one overload per model. Conversion only: every check of the problem
// happens in robustcore::lbfgs::fit.
// The family's engine instantiations live here too (RCB_LBFGS_INSTANCES): with RCB_KERNELS defined this file
// compiles only them (CMakeLists.txt generates kernels_lbfgs.cpp, the define and an #include of this file,
// built at the kernels' optimisation); without it, the bindings, which see them `extern`, and their
// registration.
#include <robustcore/any_loss.hpp>
#include <robustcore/lbfgs.hpp>

#include "instances.hpp"

// L-BFGS: float64 views, the binary and the softmax model.
#define RCB_LBFGS_VIEW_MODEL(PREFIX, V, M)                                                                 \
  PREFIX template Result lbfgs::fit<M, V>(const V&, const M&, const lbfgs::LbfgsParams&, double*, double*, \
                                          const ProgressFn&);
#define RCB_LBFGS_INSTANCES(PREFIX)                                                      \
  RCB_LBFGS_VIEW_MODEL(PREFIX, ::rcb::views::DenseF64, ::rcb::views::Binary)             \
  RCB_LBFGS_VIEW_MODEL(PREFIX, ::rcb::views::DenseF64, ::robustcore::SoftmaxModel)       \
  RCB_LBFGS_VIEW_MODEL(PREFIX, ::rcb::views::CsrF64, ::rcb::views::Binary)               \
  RCB_LBFGS_VIEW_MODEL(PREFIX, ::rcb::views::CsrF64, ::robustcore::SoftmaxModel)

#ifdef RCB_KERNELS
namespace robustcore {
RCB_LBFGS_INSTANCES()
}  // namespace robustcore
#else
#include "common.hpp"

namespace robustcore {
RCB_LBFGS_INSTANCES(extern)  // compiled in kernels_lbfgs.cpp (generated)
}  // namespace robustcore

namespace rcb {

namespace {
/// Runs lbfgs::fit for `model` on X without the GIL; rethrows a callback's exception after the solve.
template <class Model>
robustcore::Result run_lbfgs(const Matrix& X, const Model& model, const robustcore::lbfgs::LbfgsParams& params,
                             double* W, double* b, py::object progress) {
  Progress prog(std::move(progress));
  return prog.run([&] {
    return visit_matrix(X, [&](const auto& v) { return robustcore::lbfgs::fit(v, model, params, W, b, prog.fn()); });
  });
}
}  // namespace

void bind_lbfgs(py::module_& m) {
  using namespace robustcore;
  using lbfgs::LbfgsParams;
  py::class_<LbfgsParams>(m, "LbfgsParams")
      .def(py::init<>())
      .def_readwrite("alpha", &LbfgsParams::lambda)
      .def_readwrite("max_iter", &LbfgsParams::max_iter)
      .def_readwrite("memory", &LbfgsParams::memory)
      .def_readwrite("tol", &LbfgsParams::tol)
      .def_readwrite("fit_intercept", &LbfgsParams::fit_intercept)
      .def_readwrite("record_history", &LbfgsParams::record_history)
      .def_readwrite("max_linesearch", &LbfgsParams::max_linesearch);

  m.def(
      "lbfgs_fit",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const LbfgsParams& params_in, F64 coef, F64 intercept, py::object progress) {
        const double* yp = checked_const(y, X.rows(), "y");
        LbfgsParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        double* cp = checked(coef, X.cols(), "coef");
        double* bp = checked(intercept, 1, "intercept");
        return run_lbfgs(X, BinaryModel<AnySmoothLoss>{AnySmoothLoss(loss), yp}, params, cp, bp, std::move(progress));
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(), py::arg("intercept").noconvert(),
      py::arg("progress") = py::none(),
      "L-BFGS (see lbfgs.hpp) for the binary model (+-1 labels, a smooth loss) from the initial coef / "
      "intercept[0], written in place (they hold the current iterate whenever progress(iterations) runs). "
      "Returns a Result (n_iter = iterations, step = the last step length; history: objective, train_error, "
      "grad_norm, passes, seconds, evaluations).");
  m.def(
      "lbfgs_fit",
      [](const Matrix& X, const I64& y, int64_t K, std::optional<F64> sample_weight, const LbfgsParams& params_in,
         F64 coef, F64 intercept, py::object progress) {
        const int64_t* yp = checked_const(y, X.rows(), "y");
        LbfgsParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        double* cp = checked(coef, X.cols() * std::max<int64_t>(K, 0), "coef (d * K, feature-major)");
        double* bp = checked(intercept, std::max<int64_t>(K, 0), "intercept");
        return run_lbfgs(X, SoftmaxModel{K, yp}, params, cp, bp, std::move(progress));
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("K"), py::arg("sample_weight").noconvert(), py::arg("params"),
      py::arg("coef").noconvert(), py::arg("intercept").noconvert(), py::arg("progress") = py::none(),
      "The softmax model (labels in 0..K-1, int64) by L-BFGS; coef is (d, K) C-order, written in place.");
}

}  // namespace rcb

RCB_REGISTER(lbfgs, Solvers)
#endif  // RCB_KERNELS
