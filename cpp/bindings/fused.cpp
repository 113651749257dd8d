// Bindings: the fused path of kernel approximation (fused_view.hpp). _core.FusedMatrix is a feature map and
// a data matrix (float64 or float32, dense or CSR); sgd_fit, sgd_calibrate_eta0 and vr_fit gain an overload
// taking it, so the Python layer's driver (linear_model.LinearSolver) runs unchanged on mapped rows. Each
// engine call builds its own FusedView (its buffers are its state), so one-vs-rest problems may run on
// threads side by side.
#include "common.hpp"
#include "instances.hpp"

#include <robustcore/any_loss.hpp>
#include <robustcore/fused_sgd.hpp>
#include <robustcore/vr.hpp>

namespace robustcore {
RCB_FUSED_INSTANCES(extern)  // compiled in kernels_fused.cpp
}  // namespace robustcore

namespace rcb {

namespace {

struct FusedMatrix {
  robustcore::FusedView::AnyMap map;
  robustcore::FusedView::AnyBase base;
  int64_t batch = 256;
  int n_threads = 1;
  py::object keep_alive;  // the Matrix (its arrays)
  int64_t rows() const { return std::visit([](const auto& v) { return v.rows(); }, base); }
  int64_t cols() const { return std::visit([](const auto& m) { return m.n_components(); }, map); }
};

FusedMatrix make_fused(py::object map, py::object X, int64_t batch, int n_threads) {
  namespace fm = robustcore::feature_maps;
  FusedMatrix f;
  bool found = false;
  std::string names;
  fm::for_each_map<fm::KernelMaps>([&](auto tag) {  // every map of one kernel (feature_maps.hpp's registry)
    using M = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    names += std::string(names.empty() ? "" : " or ") + M::name;
    if (!found && py::isinstance<M>(map)) {
      f.map = map.cast<const M&>();
      found = true;
    }
  });
  if (!found) throw std::invalid_argument("FusedMatrix: map must be a " + names);
  const Matrix& M = X.cast<const Matrix&>();
  f.base = std::visit([](const auto& v) { return robustcore::FusedView::AnyBase(v); }, M.view);
  f.batch = batch;
  f.n_threads = n_threads;
  f.keep_alive = X;
  robustcore::FusedView check(f.map, f.base, batch, n_threads);  // shapes, batch, threads
  return f;
}

}  // namespace

void bind_fused(py::module_& m) {
  using namespace robustcore;
  py::class_<FusedMatrix>(m, "FusedMatrix",
                          "A feature map over a Matrix (float64 or float32): the mapped rows, computed batch by batch "
                          "inside the SGD and variance-reduced solvers (fused_view.hpp), never materialised; float32 "
                          "data mapped in float32 and widened, as transform's features then a float64 fit.")
      .def(py::init(&make_fused), py::arg("map"), py::arg("X"), py::arg("batch") = 256, py::arg("n_threads") = 1)
      .def_property_readonly("shape", [](const FusedMatrix& f) { return py::make_tuple(f.rows(), f.cols()); })
      .def_readonly("batch", &FusedMatrix::batch)
      .def_readonly("n_threads", &FusedMatrix::n_threads);

  m.def(
      "sgd_fit",
      [](const FusedMatrix& Z, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const SgdParams& params_in, SgdState& state, std::optional<I64> order, py::object X_test,
         std::optional<F64> y_test, py::object progress, std::optional<F64> center) {
        if (order || !X_test.is_none() || y_test)
          throw std::invalid_argument("sgd_fit on a FusedMatrix: no injected order and no test set");
        const int64_t n = Z.rows();
        SgdParams params = params_in;
        params.center = center ? checked_const(*center, Z.cols(), "center") : nullptr;
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        Progress prog(progress);
        return prog.run([&] {
          const FusedView view(Z.map, Z.base, Z.batch, Z.n_threads);
          return fused_sgd_fit(view, yp, swp, AnyLoss(loss), params, state, prog.fn());
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("state"), py::arg("order").noconvert() = py::none(), py::arg("X_test") = py::none(),
      py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      py::arg("center").noconvert() = py::none(),
      "SGD epochs on the mapped rows of a FusedMatrix (fused_sgd.hpp): sgd_fit's bits on the materialised features.");

  m.def(
      "sgd_calibrate_eta0",
      [](const FusedMatrix& Z, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss, double alpha,
         bool fit_intercept, double intercept_lr, uint64_t seed, int64_t n_sample) {
        const int64_t n = Z.rows();
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        return Interrupts().run([&] {
          const FusedView view(Z.map, Z.base, Z.batch, Z.n_threads);
          return calibrate_eta0(view, yp, swp, AnyLoss(loss), alpha, fit_intercept, intercept_lr, seed, n_sample);
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"), py::arg("alpha"),
      py::arg("fit_intercept"), py::arg("intercept_lr"), py::arg("seed"), py::arg("n_sample") = 1000,
      "Bottou's eta0 calibration on the mapped rows of a FusedMatrix (the sample's rows mapped on demand).");

  m.def(
      "vr_fit",
      [](const FusedMatrix& Z, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const vr::VrParams& params_in, F64 coef, F64 intercept, std::optional<I64> order, py::object progress,
         py::object X_test, std::optional<F64> y_test) {
        if (!X_test.is_none() || y_test) throw std::invalid_argument("vr_fit on a FusedMatrix: no test set");
        const int64_t n = Z.rows();
        const double* yp = checked_const(y, n, "y");
        vr::VrParams params = params_in;
        params.sample_weight = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        double* cp = checked(coef, Z.cols(), "coef");
        double* bp = checked(intercept, 1, "intercept");
        const std::pair<const int64_t*, int64_t> injected = injected_order(order);
        const AnySmoothLoss l(loss);
        Progress prog(progress);
        return prog.run([&] {
          const FusedView view(Z.map, Z.base, Z.batch, Z.n_threads);
          return vr::fit(view, views::Binary{l, yp}, params, cp, bp, injected.first, injected.second, prog.fn());
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(), py::arg("intercept").noconvert(),
      py::arg("order").noconvert() = py::none(), py::arg("progress") = py::none(), py::arg("X_test") = py::none(),
      py::arg("y_test").noconvert() = py::none(),
      "A variance-reduced solver (vr.hpp, the binary model) on the mapped rows of a FusedMatrix: vr_fit's bits on "
      "the materialised features.");
}

}  // namespace rcb

RCB_REGISTER(fused, Extensions)  // adds overloads to sgd_fit / sgd_calibrate_eta0 (linear.cpp), vr_fit (vr.cpp)
