// Bindings: Newton's method (newton.hpp) for the binary model with a smooth convex loss chosen at run time.
// Conversion only: every check of the problem happens in robustcore::newton::fit.
// The family's engine instantiations live here too (RCB_NEWTON_INSTANCES): with RCB_KERNELS defined this file
// compiles only them (CMakeLists.txt generates kernels_newton.cpp, the define and an #include of this file,
// built at the kernels' optimisation); without it, the bindings, which see them `extern`, and their
// registration.
#include <robustcore/any_loss.hpp>
#include <robustcore/newton.hpp>

#include "instances.hpp"

// Newton: float64 views, the binary model (AnySmoothLoss: the convex ones are checked in newton::fit).
#define RCB_NEWTON_VIEW(PREFIX, V)                                                                             \
  PREFIX template Result newton::fit<::robustcore::AnySmoothLoss, V>(const V&, const ::rcb::views::Binary&, \
                                                                     const newton::NewtonParams&, double*, double*, \
                                                                     const ProgressFn&);   \
  PREFIX template Eigen::MatrixXd newton::hessian_matrix<::robustcore::AnySmoothLoss, V>(                      \
      const V&, const ::rcb::views::Binary&, const double*, double, bool, const double*, const double*);        \
  PREFIX template void newton::quadratic_forms<V>(const V&, const double*, int64_t, bool, double*);
#define RCB_NEWTON_INSTANCES(PREFIX)             \
  RCB_NEWTON_VIEW(PREFIX, ::rcb::views::DenseF64) \
  RCB_NEWTON_VIEW(PREFIX, ::rcb::views::CsrF64)

#ifdef RCB_KERNELS
namespace robustcore {
RCB_NEWTON_INSTANCES()
}  // namespace robustcore
#else
#include "common.hpp"

namespace robustcore {
RCB_NEWTON_INSTANCES(extern)  // compiled in kernels_newton.cpp (generated)
}  // namespace robustcore

namespace rcb {

void bind_newton(py::module_& m) {
  using namespace robustcore;
  using newton::NewtonParams;
  py::class_<NewtonParams>(m, "NewtonParams")
      .def(py::init<>())
      .def_readwrite("alpha", &NewtonParams::lambda)
      .def_readwrite("max_iter", &NewtonParams::max_iter)
      .def_readwrite("tol", &NewtonParams::tol)
      .def_readwrite("fit_intercept", &NewtonParams::fit_intercept)
      .def_readwrite("record_history", &NewtonParams::record_history)
      .def_readwrite("max_linesearch", &NewtonParams::max_linesearch);
  m.attr("NEWTON_MAX_FEATURES") = newton::kMaxFeatures;

  m.def(
      "newton_fit",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const NewtonParams& params_in, F64 coef, F64 intercept, py::object progress) {
        const double* yp = checked_const(y, X.rows(), "y");
        NewtonParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        double* cp = checked(coef, X.cols(), "coef");
        double* bp = checked(intercept, 1, "intercept");
        const views::Binary model{AnySmoothLoss(loss), yp};
        Progress prog(std::move(progress));
        return prog.run([&] {
          return visit_matrix(X, [&](const auto& v) { return newton::fit(v, model, params, cp, bp, prog.fn()); });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(), py::arg("intercept").noconvert(),
      py::arg("progress") = py::none(),
      "Newton's method (see newton.hpp) for the binary model (+-1 labels, a smooth convex loss) from the initial "
      "coef / intercept[0], written in place (they hold the current iterate whenever progress(iterations) runs). "
      "Returns a Result (n_iter = iterations, step = the last step length; history: objective, train_error, "
      "grad_norm, passes, seconds, evaluations).");

  m.def(
      "newton_hessian",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss, double alpha,
         bool fit_intercept, const F64& coef, double intercept) {
        const double* yp = checked_const(y, X.rows(), "y");
        const double* sw = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        const double* cp = checked_const(coef, X.cols(), "coef");
        const views::Binary model{AnySmoothLoss(loss), yp};
        Eigen::MatrixXd H;
        {
          py::gil_scoped_release release;
          H = visit_matrix(X, [&](const auto& v) {
            return newton::hessian_matrix(v, model, sw, alpha, fit_intercept, cp, &intercept);
          });
        }
        return py::array_t<double>({H.rows(), H.cols()}, H.data());  // symmetric: either order is H
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("alpha"), py::arg("fit_intercept"), py::arg("coef").noconvert(), py::arg("intercept"),
      "The Hessian (d + fit_intercept square, float64) of newton_fit's objective at (coef, intercept): "
      "(1/n) sum_i sw_i r''(y_i s_i) (x_i, 1)(x_i, 1)^T plus alpha on the coefficients' diagonal.");

  m.def(
      "quadratic_forms",
      [](const Matrix& X, const py::array_t<double, py::array::c_style | py::array::forcecast>& A,
         bool fit_intercept) {
        if (A.ndim() != 2 || A.shape(0) != A.shape(1))
          throw std::invalid_argument("the quadratic forms' matrix must be square");
        py::array_t<double> q(X.rows());
        const double* a = A.data();
        double* out = q.mutable_data();
        const int64_t N = A.shape(0);
        {
          py::gil_scoped_release release;
          visit_matrix(X, [&](const auto& v) {
            newton::quadratic_forms(v, a, N, fit_intercept, out);
            return 0;
          });
        }
        return q;
      },
      py::arg("X"), py::arg("A"), py::arg("fit_intercept"),
      "q_i = (x_i, 1) A (x_i, 1)^T for every row of X (the 1 only with fit_intercept), A symmetric: by the products "
      "of each row's stored values (newton.hpp's quadratic_forms; the leave-one-out leverages with A = H^-1).");
}

}  // namespace rcb

RCB_REGISTER(newton, Solvers)
#endif  // RCB_KERNELS
