// Bindings: variance-reduced solvers (vr.hpp) for binary linear models.
#include "common.hpp"

#include <robustcore/multinomial.hpp>
#include <robustcore/vr.hpp>

namespace rcb {

void bind_vr(py::module_& m) {
  using namespace robustcore;
  using vr::Method;
  using vr::SvrgOption;
  using vr::VrParams;
  py::enum_<Method>(m, "VrMethod")
      .value("saga", Method::Saga)
      .value("sag", Method::Sag)
      .value("svrg", Method::Svrg)
      .value("s2gd", Method::S2gd)
      .value("finito", Method::Finito)
      .value("vrlite", Method::VrLite)
      .value("batching_svrg", Method::BatchingSvrg)
      .value("mixed_svrg", Method::MixedSvrg)
      .value("sgd", Method::Sgd);
  py::enum_<SvrgOption>(m, "SvrgOption")
      .value("last", SvrgOption::Last)
      .value("average", SvrgOption::Average)
      .value("random", SvrgOption::Random);
  py::class_<VrParams>(m, "VrParams")
      .def(py::init<>())
      .def_readwrite("method", &VrParams::method)
      .def_readwrite("option", &VrParams::option)
      .def_readwrite("lam", &VrParams::lambda)
      .def_readwrite("eta", &VrParams::eta)
      .def_readwrite("passes", &VrParams::passes)
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
        const int64_t n = X.rows(), d = X.cols();
        const double* yp = checked_const(y, n, "y");
        if (X_test && !y_test) throw std::invalid_argument("X_test given without y_test");
        const double* ytp = X_test ? checked_const(*y_test, X_test->rows(), "y_test") : nullptr;
        VrParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        double* cp = checked(coef, d, "coef");
        double* bp = checked(intercept, 1, "intercept");
        const int64_t* op = order ? order->data() : nullptr;
        const int64_t olen = order ? static_cast<int64_t>(order->size()) : 0;
        if (order && order->ndim() != 1) throw std::invalid_argument("order must be a 1-d int64 array");
        Progress prog(progress);
        vr::VrResult res;
        double b = bp[0];
        {
          py::gil_scoped_release nogil;
          res = visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
            return visit_smooth_loss(loss, [&](const auto& l) {
              return vr::fit(v, yp, l, params, cp, b, op, olen, prog.fn(), tv, ytp);
            });
          });
        }
        bp[0] = b;
        prog.rethrow();
        py::dict out;
        out["status"] = status_name(res.status);
        out["eta"] = res.eta;
        out["passes_done"] = res.passes_done;
        out["passes"] = py::array_t<double>(static_cast<py::ssize_t>(res.passes.size()), res.passes.data());
        out["history"] = trace_to_dict(res.trace);
        return out;
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(),
      py::arg("intercept").noconvert(), py::arg("order").noconvert() = py::none(), py::arg("progress") = py::none(),
      py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(),
      "Variance-reduced solver (see vr.hpp) from the initial coef / intercept[0], written in place. "
      "order: injected random draws (tests); X_test / y_test (+-1): test error per effective pass.");

  m.def("vr_default_step",
        [](const Matrix& X, const LossSpec& loss, Method method, double lam, bool fit_intercept) {
          return visit_matrix(X, [&](const auto& v) {
            return visit_smooth_loss(loss, [&](const auto& l) {
              return vr::default_step(method, vr::max_smoothness(v, l, lam, fit_intercept), lam, v.rows());
            });
          });
        },
        py::arg("X"), py::arg("loss"), py::arg("method"), py::arg("lam"), py::arg("fit_intercept"));
  m.def(
      "softmax_fit",
      [](const Matrix& X, const I64& y, int64_t K, std::optional<F64> sample_weight, const VrParams& params_in,
         F64 coef, F64 intercept, std::optional<I64> order, py::object progress, const Matrix* X_test,
         std::optional<I64> y_test) {
        const int64_t n = X.rows(), d = X.cols();
        const int64_t* yp = checked_const(y, n, "y");
        if (X_test && !y_test) throw std::invalid_argument("X_test given without y_test");
        const int64_t* ytp = X_test ? checked_const(*y_test, X_test->rows(), "y_test") : nullptr;
        if (K < 2) throw std::invalid_argument("the softmax model needs K >= 2 classes");
        VrParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        double* cp = checked(coef, d * K, "coef (d * K, feature-major)");
        double* bp = checked(intercept, K, "intercept");
        if (order && order->ndim() != 1) throw std::invalid_argument("order must be a 1-d int64 array");
        const int64_t* op = order ? order->data() : nullptr;
        const int64_t olen = order ? static_cast<int64_t>(order->size()) : 0;
        Progress prog(progress);
        vr::VrResult res;
        {
          py::gil_scoped_release nogil;
          res = visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
            return vr::softmax_fit(v, yp, K, params, cp, bp, op, olen, prog.fn(), tv, ytp);
          });
        }
        prog.rethrow();
        py::dict out;
        out["status"] = status_name(res.status);
        out["eta"] = res.eta;
        out["passes_done"] = res.passes_done;
        out["passes"] = py::array_t<double>(static_cast<py::ssize_t>(res.passes.size()), res.passes.data());
        out["history"] = trace_to_dict(res.trace);
        return out;
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("K"), py::arg("sample_weight").noconvert(), py::arg("params"),
      py::arg("coef").noconvert(), py::arg("intercept").noconvert(), py::arg("order").noconvert() = py::none(),
      py::arg("progress") = py::none(), py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(),
      "Softmax model (multinomial.hpp) by any VrMethod (sgd included); coef is (d, K) C-order, written in place. "
      "X_test / y_test (labels in 0..K-1, -1 = a class unseen in training): test error per effective pass.");
  m.def("finito_check_size", &vr::finito_check_size, py::arg("n"), py::arg("d"), py::arg("max_bytes"),
        py::arg("K") = 1);
}

}  // namespace rcb
