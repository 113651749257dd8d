// Bindings: SGD / averaged SGD / Pegasos for linear models (sgd.hpp).
#include "common.hpp"

#include <robustcore/sgd.hpp>

namespace rcb {

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
      .def_property("lam", [](const SgdParams& p) { return p.lr.lambda; }, [](SgdParams& p, double v) { p.lr.lambda = v; })
      .def_property("eta0", [](const SgdParams& p) { return p.lr.eta0; }, [](SgdParams& p, double v) { p.lr.eta0 = v; })
      .def_property("power_t", [](const SgdParams& p) { return p.lr.power_t; },
                    [](SgdParams& p, double v) { p.lr.power_t = v; })
      .def_readwrite("epochs", &SgdParams::epochs)
      .def_readwrite("average", &SgdParams::average)
      .def_readwrite("average_start", &SgdParams::average_start)
      .def_readwrite("fit_intercept", &SgdParams::fit_intercept)
      .def_readwrite("intercept_lr", &SgdParams::intercept_lr)
      .def_readwrite("project_ball", &SgdParams::project_ball)
      .def_readwrite("shuffle", &SgdParams::shuffle)
      .def_readwrite("block_rows", &SgdParams::block_rows)
      .def_readwrite("seed", &SgdParams::seed)
      .def_readwrite("record_history", &SgdParams::record_history);

  m.def(
      "sgd_fit",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss,
         const SgdParams& params, F64 coef, F64 avg_coef, F64 scalars, I64 counters, std::optional<I64> order,
         const Matrix* X_test, std::optional<F64> y_test, py::object progress) {
        const int64_t n = X.rows(), d = X.cols();
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        double* cp = checked(coef, d, "coef");
        double* ap = checked(avg_coef, d, "avg_coef");
        double* sp = checked(scalars, 2, "scalars");
        int64_t* tp = checked(counters, 2, "counters");
        const int64_t* op = order ? checked_const(*order, n * params.epochs, "order") : nullptr;
        const double* ytp = nullptr;
        if (X_test) {
          if (!y_test) throw std::invalid_argument("X_test given without y_test");
          ytp = checked_const(*y_test, X_test->rows(), "y_test");
        }
        SgdState state(d);
        std::copy(cp, cp + d, state.w.begin());
        std::copy(ap, ap + d, state.wbar.begin());
        state.b = sp[0];
        state.bbar = sp[1];
        state.t = tp[0];
        state.avg_count = tp[1];
        Progress prog(progress);
        Result res;
        {
          py::gil_scoped_release nogil;
          validate_binary_labels(yp, n);
          if (ytp) validate_binary_labels(ytp, X_test->rows());
          res = visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
            return visit_loss(loss, [&](const auto& l) {
              return sgd_fit(v, yp, swp, l, params, state, op, tv, ytp, prog.fn());
            });
          });
        }
        // The state after the last finished epoch is written back even when interrupted.
        std::copy(state.w.begin(), state.w.end(), cp);
        std::copy(state.wbar.begin(), state.wbar.end(), ap);
        sp[0] = state.b;
        sp[1] = state.bbar;
        tp[0] = state.t;
        tp[1] = state.avg_count;
        prog.rethrow();
        return res;
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"),
      py::arg("params"), py::arg("coef").noconvert(), py::arg("avg_coef").noconvert(),
      py::arg("scalars").noconvert(), py::arg("counters").noconvert(), py::arg("order").noconvert() = py::none(),
      py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      "SGD / ASGD / Pegasos epochs over X (see sgd.hpp). coef, avg_coef, scalars=[b, bbar] and "
      "counters=[t, avg_count] are the model state, read and written in place.");

  m.def(
      "sgd_calibrate_eta0",
      [](const Matrix& X, const F64& y, std::optional<F64> sample_weight, const LossSpec& loss, double lam,
         bool fit_intercept, double intercept_lr, uint64_t seed, int64_t n_sample) {
        const int64_t n = X.rows();
        const double* yp = checked_const(y, n, "y");
        const double* swp = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        py::gil_scoped_release nogil;
        validate_binary_labels(yp, n);
        return visit_matrix(X, [&](const auto& v) {
          return visit_loss(loss, [&](const auto& l) {
            return calibrate_eta0(v, yp, swp, l, lam, fit_intercept, intercept_lr, seed, n_sample);
          });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("sample_weight").noconvert(), py::arg("loss"), py::arg("lam"),
      py::arg("fit_intercept"), py::arg("intercept_lr"), py::arg("seed"), py::arg("n_sample") = 1000,
      "Bottou's eta0 calibration on a subsample (see sgd.hpp).");
}

}  // namespace rcb
