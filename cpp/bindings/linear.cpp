// Bindings: SGD / averaged SGD / Pegasos for linear models (sgd.hpp). Conversion only: every check of
// the problem happens in robustcore::sgd_fit. The loss is chosen at run time (AnyLoss): one SGD loop per
// data view instead of one per loss and view, for ~1-2% more instructions in the kernels
// (bench/bench_sgd.cpp's *_runtime_loss cases).
// The family's engine instantiations live here too (RCB_SGD_INSTANCES): with RCB_KERNELS defined this file
// compiles only them (CMakeLists.txt generates kernels_linear.cpp, the define and an #include of this file,
// built at the kernels' optimisation); without it, the bindings, which see them `extern`, and their
// registration.
#include <robustcore/any_loss.hpp>
#include <robustcore/sgd.hpp>

#include "instances.hpp"

// SGD / ASGD / Pegasos: every view, float32 included (common.hpp's kFloat32).
#define RCB_SGD_VIEW(PREFIX, V)                                                                                    \
  PREFIX template Result sgd_fit<AnyLoss, V>(const V&, const double*, const double*, const AnyLoss&, SgdParams,    \
                                             SgdState&, const int64_t*, int64_t, const V*, const double*,          \
                                             const ProgressFn&);                                                   \
  PREFIX template double calibrate_eta0<AnyLoss, V>(const V&, const double*, const double*, const AnyLoss&, double, \
                                                    bool, double, uint64_t, int64_t);
#define RCB_SGD_INSTANCES(PREFIX)                 \
  RCB_SGD_VIEW(PREFIX, ::rcb::views::DenseF64)    \
  RCB_SGD_VIEW(PREFIX, ::rcb::views::CsrF64)      \
  RCB_SGD_VIEW(PREFIX, ::rcb::views::DenseF32)    \
  RCB_SGD_VIEW(PREFIX, ::rcb::views::CsrF32)

#ifdef RCB_KERNELS
namespace robustcore {
RCB_SGD_INSTANCES()
}  // namespace robustcore
#else
#include "common.hpp"

namespace robustcore {
RCB_SGD_INSTANCES(extern)  // compiled in kernels_linear.cpp (generated)
}  // namespace robustcore

namespace rcb {

namespace {
/// A writable numpy view of a vector owned by `owner` (kept alive by the view).
py::array_t<double> view_of(std::vector<double>& v, py::handle owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(double))},
                             v.data(), owner);
}
}  // namespace

void bind_linear(py::module_& m) {
  using namespace robustcore;
  py::enum_<Schedule>(m, "Schedule")
      .value("constant", Schedule::Constant)
      .value("optimal", Schedule::Optimal)
      .value("invscaling", Schedule::InvScaling)
      .value("pegasos", Schedule::Pegasos)
      .value("asgd", Schedule::Asgd);
  py::enum_<Shuffle>(m, "Shuffle")
      .value("none", Shuffle::None)
      .value("exact", Shuffle::Exact)
      .value("block", Shuffle::Block);
  py::enum_<Averaging>(m, "Averaging")
      .value("none", Averaging::None)
      .value("running", Averaging::Running)
      .value("epoch", Averaging::Epoch);

  py::class_<SgdParams>(m, "SgdParams")
      .def(py::init<>())
      .def_property("schedule", [](const SgdParams& p) { return p.lr.schedule; },
                    [](SgdParams& p, Schedule s) { p.lr.schedule = s; })
      .def_property("alpha", [](const SgdParams& p) { return p.lr.lambda; }, [](SgdParams& p, double v) { p.lr.lambda = v; })
      .def_property("eta0", [](const SgdParams& p) { return p.lr.eta0; }, [](SgdParams& p, double v) { p.lr.eta0 = v; })
      .def_property("power_t", [](const SgdParams& p) { return p.lr.power_t; },
                    [](SgdParams& p, double v) { p.lr.power_t = v; })
      .def_readwrite("max_iter", &SgdParams::max_iter)
      .def_readwrite("average", &SgdParams::average)
      .def_readwrite("average_start", &SgdParams::average_start)
      .def_readwrite("fit_intercept", &SgdParams::fit_intercept)
      .def_readwrite("intercept_lr", &SgdParams::intercept_lr)
      .def_readwrite("project_ball", &SgdParams::project_ball)
      .def_readwrite("shuffle", &SgdParams::shuffle)
      .def_readwrite("block_rows", &SgdParams::block_rows)
      .def_readwrite("seed", &SgdParams::seed)
      .def_readwrite("record_history", &SgdParams::record_history)
      .def_readwrite("n_threads", &SgdParams::n_threads, "threads for one problem (iterative parameter mixing per epoch)");

  py::class_<SgdState>(m, "SgdState", "SGD model state, read and written by sgd_fit (a fit continues from it).")
      .def(py::init<int64_t>(), py::arg("d"))
      .def_property_readonly("w", [](py::object self) { return view_of(self.cast<SgdState&>().w, self); },
                             "current iterate (a writable view)")
      .def_property_readonly("wbar", [](py::object self) { return view_of(self.cast<SgdState&>().wbar, self); },
                             "running average (Running averaging only; a writable view)")
      .def_readwrite("b", &SgdState::b)
      .def_readwrite("bbar", &SgdState::bbar)
      .def_readwrite("t", &SgdState::t, "steps taken so far (the schedule's clock)")
      .def_readwrite("avg_count", &SgdState::avg_count, "iterates summarised in wbar");
  // no pickle of its own: linear_model._sgd.SgdStates pickles the vectors as NumPy arrays

  m.def(
      "sgd_mix_states",
      [](const std::vector<SgdState>& shards, const F64& weight, SgdState& out) {
        if (shards.empty()) throw std::invalid_argument("sgd_mix_states needs at least one state");
        const double* wp = checked_const(weight, static_cast<int64_t>(shards.size()), "weight");
        for (const SgdState& s : shards)
          if (s.w.size() != out.w.size() || s.wbar.size() != out.wbar.size())
            throw std::invalid_argument("sgd_mix_states: the states have different numbers of features");
        robustcore::detail::mix_states(shards, std::vector<double>(wp, wp + shards.size()), out);
      },
      py::arg("shards"), py::arg("weight").noconvert(), py::arg("out"),
      "The weighted average of SGD states into `out` (sgd.hpp's mix_states: the one averaging rule of "
      "parallel='rows' and robustcore.dask). weight: one non-negative weight per state, summing to 1.");

  m.def(
      "sgd_fit",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const SgdParams& params_in, SgdState& state, std::optional<I64> order, const Matrix* X_test,
         std::optional<F64> y_test, py::object progress, std::optional<F64> center) {
        const int64_t n = X.rows();
        SgdParams params = params_in;
        params.center = center ? checked_const(*center, X.cols(), "center") : nullptr;
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        const auto [op, olen] = injected_order(order);
        const double* ytp = X_test && y_test ? checked_const(*y_test, X_test->rows(), "y_test") : nullptr;
        Progress prog(progress);
        return prog.run([&] {
          return visit_matrix_pair<kFloat32>(X, X_test, [&](const auto& v, const auto* tv) {
            return sgd_fit(v, yp, swp, AnyLoss(loss), params, state, op, olen, tv, ytp, prog.fn());
          });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("state"), py::arg("order").noconvert() = py::none(), py::arg("X_test") = nullptr,
      py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      py::arg("center").noconvert() = py::none(),
      "SGD / ASGD / Pegasos epochs over X (see sgd.hpp), continuing from `state` and leaving the state after "
      "the last finished epoch in it. order: injected sample indices, n per epoch (tests). center: the steps "
      "see X - center (length n_features; the state stays the plain model).");

  m.def(
      "sgd_calibrate_eta0",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss, double alpha,
         bool fit_intercept, double intercept_lr, uint64_t seed, int64_t n_sample) {
        const int64_t n = X.rows();
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        return Interrupts().run([&] {
          return visit_matrix<kFloat32>(X, [&](const auto& v) {
            return calibrate_eta0(v, yp, swp, AnyLoss(loss), alpha, fit_intercept, intercept_lr, seed, n_sample);
          });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"), py::arg("alpha"),
      py::arg("fit_intercept"), py::arg("intercept_lr"), py::arg("seed"), py::arg("n_sample") = 1000,
      "Bottou's eta0 calibration on a subsample (see sgd.hpp).");
}

}  // namespace rcb

RCB_REGISTER(linear, Solvers)
#endif  // RCB_KERNELS
