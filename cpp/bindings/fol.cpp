// Bindings: the FOL sum tree (sum_tree.hpp), the online learners (online_learners.hpp), the FOL loop
// (fol.hpp, its kept iterates fol_iterates.hpp) and the AdaBoost baseline (adaboost.hpp).
// Type conversion only: the engine builds the learners and checks every parameter.
// The family's engine instantiations live here too (RCB_FOL_INSTANCES): with RCB_KERNELS defined this file
// compiles only them (CMakeLists.txt generates kernels_fol.cpp, the define and an #include of this file,
// built at the kernels' optimisation); without it, the bindings, which see them `extern`, and their
// registration.
#include <robustcore/adaboost.hpp>
#include <robustcore/fol.hpp>

#include "instances.hpp"

// FOL and AdaBoost: float64 views.
#define RCB_FOL_VIEW(PREFIX, V)                                                                                    \
  PREFIX template FolResult fol_fit<V>(const V&, const double*, const FolParams&, double*, double*, double*,       \
                                       int64_t, double*, const int64_t*, int64_t, const V*, const double*,         \
                                       const ProgressFn&);                                                         \
  PREFIX template AdaBoostResult adaboost_fit<V>(const V&, const double*, const AdaBoostParams&, double*, int64_t, \
                                                 const V*, const double*, const ProgressFn&, const double*, double*);
#define RCB_FOL_INSTANCES(PREFIX)              \
  RCB_FOL_VIEW(PREFIX, ::rcb::views::DenseF64) \
  RCB_FOL_VIEW(PREFIX, ::rcb::views::CsrF64)

#ifdef RCB_KERNELS
namespace robustcore {
RCB_FOL_INSTANCES()
}  // namespace robustcore
#else
#include "common.hpp"

namespace robustcore {
RCB_FOL_INSTANCES(extern)  // compiled in kernels_fol.cpp (generated)
}  // namespace robustcore

namespace rcb {

namespace {

using robustcore::SeededSumTree;

/// Checks two 1-d arrays have the same length and returns it.
int64_t same_length(const py::array& a, const py::array& b, const char* what) {
  if (a.ndim() != 1 || b.ndim() != 1 || a.shape(0) != b.shape(0))
    throw std::invalid_argument(std::string(what) + " must be 1-d arrays of the same length");
  return a.shape(0);
}

/// (rows, pointer) of a 2-d output array with n_features + 1 columns.
std::pair<int64_t, double*> model_rows(F64& a, int64_t d, const char* name) {
  if (a.ndim() != 2 || a.shape(1) != d + 1)
    throw std::invalid_argument(std::string(name) + " must have shape (rows, n_features + 1)");
  return {a.shape(0), a.mutable_data()};
}

/// The test labels' pointer (length-checked against X_test), or null.
const double* test_labels(const Matrix* X_test, const std::optional<F64>& y_test) {
  if (!X_test || !y_test) return nullptr;
  return checked_const(*y_test, X_test->rows(), "y_test");
}

void bind_sum_tree(py::module_& m) {
  py::class_<SeededSumTree>(m, "SumTree", "FOL sampler (sum_tree.hpp): m leaf weights, O(log m) sample and update.")
      .def(py::init<int64_t, uint64_t>(), py::arg("m"), py::arg("seed") = 0)
      .def(py::init([](const F64& w, uint64_t seed) {
             if (w.ndim() != 1) throw std::invalid_argument("weights must be a 1-d array");
             return SeededSumTree(w.data(), w.shape(0), seed);
           }),
           py::arg("weights").noconvert(), py::arg("seed") = 0)
      .def_property_readonly("size", &SeededSumTree::size)
      .def_property_readonly("total", [](const SeededSumTree& t) { return t.tree().total(); })
      .def_property_readonly("rescales", [](const SeededSumTree& t) { return t.tree().rescales(); })
      .def("leaf", &SeededSumTree::leaf, py::arg("i"))
      .def("q", &SeededSumTree::q, py::arg("i"))
      .def("prob", &SeededSumTree::prob, py::arg("i"), py::arg("gamma"))
      .def("leaves", [](const SeededSumTree& t, F64 out) { t.leaves(checked(out, t.size(), "out")); },
           py::arg("out").noconvert(), "Writes the m leaf weights into out.")
      .def("sample", &SeededSumTree::sample, py::arg("gamma"),
           "(i, p_i) with p_i = gamma/m + (1-gamma) q_i (paper, section 2.3).")
      .def("sample_batch",
           [](SeededSumTree& t, double g, I64 idx, F64 p) {
             t.sample_batch(g, idx.mutable_data(), p.mutable_data(), same_length(idx, p, "idx and p"));
           },
           py::arg("gamma"), py::arg("idx").noconvert(), py::arg("p").noconvert(),
           "len(idx) draws of sample(gamma), written into idx and p.")
      .def("descend", &SeededSumTree::descend, py::arg("u"), "The leaf the tree walk reaches for the uniform u (gamma = 0).")
      .def("update", &SeededSumTree::update, py::arg("i"), py::arg("factor"))
      .def("update_log", &SeededSumTree::update_log, py::arg("i"), py::arg("log_factor"))
      .def("update_batch_log",
           [](SeededSumTree& t, const I64& idx, const F64& lf) {
             t.update_batch_log(idx.data(), lf.data(), same_length(idx, lf, "idx and log_factor"));
           },
           py::arg("idx").noconvert(), py::arg("log_factor").noconvert(),
           "v_i <- v_i exp(log_factor) for each pair, in order.")
      .def("rebuild", &SeededSumTree::rebuild);
}

void bind_params(py::module_& m) {
  using namespace robustcore;
  py::enum_<LearnerKind>(m, "LearnerKind").value("perceptron", LearnerKind::Perceptron).value("sgd", LearnerKind::Sgd);
  py::enum_<Focus>(m, "Focus").value("zero_one", Focus::ZeroOne).value("clipped", Focus::Clipped);

  py::class_<LearnerSpec>(m, "LearnerSpec", "The w player of FOL / AdaBoost and its parameters (online_learners.hpp).")
      .def(py::init<>())
      .def_readwrite("kind", &LearnerSpec::kind)
      .def_readwrite("loss", &LearnerSpec::loss)
      .def_readwrite("schedule", &LearnerSpec::schedule)
      .def_readwrite("alpha", &LearnerSpec::alpha, "L2 strength (lambda of the papers)")
      .def_readwrite("eta0", &LearnerSpec::eta0)
      .def_readwrite("power_t", &LearnerSpec::power_t)
      .def_readwrite("fit_intercept", &LearnerSpec::fit_intercept)
      .def_readwrite("intercept_lr", &LearnerSpec::intercept_lr);

  py::class_<FolParams>(m, "FolParams", "Parameters of fol_fit (fol.hpp); checked by the engine.")
      .def(py::init<>())
      .def_readwrite("learner", &FolParams::learner)
      .def_readwrite("max_iter", &FolParams::max_iter)
      .def_readwrite("steps_per_epoch", &FolParams::steps_per_epoch)
      .def_readwrite("batch_size", &FolParams::batch_size)
      .def_readwrite("eta", &FolParams::eta)
      .def_readwrite("gamma", &FolParams::gamma)
      .def_readwrite("k", &FolParams::k)
      .def_readwrite("focus", &FolParams::focus)
      .def_readwrite("record_history", &FolParams::record_history)
      .def_readwrite("slack_budget", &FolParams::slack_budget)
      .def_readwrite("slack_lr", &FolParams::slack_lr)
      .def_readwrite("seed", &FolParams::seed)
      .def_readwrite("focus_weights", &FolParams::focus_weights,
                     "per example in [0, 1], multiplies the p player's focus loss (empty: all 1)")
      .def("epoch_steps", &FolParams::epoch_steps, py::arg("m"), "FOL steps per epoch for m training examples")
      .def("n_steps", &FolParams::n_steps, py::arg("m"), "T for m training examples")
      .def("validate", &FolParams::validate, py::arg("m"), "The checks fol_fit makes, for loops run elsewhere.");

  py::class_<AdaBoostParams>(m, "AdaBoostParams", "Parameters of adaboost_fit (adaboost.hpp); checked by the engine.")
      .def(py::init<>())
      .def_readwrite("learner", &AdaBoostParams::learner)
      .def_readwrite("max_iter", &AdaBoostParams::max_iter)
      .def_readwrite("batch_size", &AdaBoostParams::batch_size)
      .def_readwrite("warm_start", &AdaBoostParams::warm_start)
      .def_readwrite("seed", &AdaBoostParams::seed);

  py::class_<FolResult, Result>(m, "FolResult", "Result of fol_fit: n_iter = epochs done, plus the snapshot times.")
      .def_property_readonly("snapshot_times",
                             [](const FolResult& r) {
                               return py::array_t<int64_t>(static_cast<py::ssize_t>(r.snapshot_times.size()),
                                                           r.snapshot_times.data());
                             })
      .def_readonly("rescales", &FolResult::rescales);
  py::class_<AdaBoostResult, Result>(m, "AdaBoostResult", "Result of adaboost_fit: n_iter = rounds kept.")
      .def_property_readonly("alpha_t", [](const AdaBoostResult& r) { return arr(r.alpha_t); })
      .def_property_readonly("weighted_error", [](const AdaBoostResult& r) { return arr(r.weighted_error); });
}

}  // namespace

void bind_fol(py::module_& m) {
  using namespace robustcore;
  bind_sum_tree(m);
  bind_params(m);

  m.def("fol_snapshot_times", [](int64_t T, int64_t k, uint64_t seed) {
    auto v = fol_snapshot_times(T, k, seed);
    return py::array_t<int64_t>(static_cast<py::ssize_t>(v.size()), v.data());
  }, py::arg("T"), py::arg("k"), py::arg("seed"), "The k sorted snapshot times in [1, T] that fol_fit uses for this seed.");

  m.def(
      "fol_fit",
      [](const Matrix& X, const F64& y, const FolParams& params, F64 coef, F64 weights, F64 snapshots,
         std::optional<F64> xi, std::optional<I64> order, const Matrix* X_test, std::optional<F64> y_test,
         py::object progress) {
        const int64_t n = X.rows(), d = X.cols();
        const double* yp = checked_const(y, n, "y");
        double* cp = checked(coef, d + 1, "coef");
        double* wp = checked(weights, n, "weights");
        const auto snaps = model_rows(snapshots, d, "snapshots");
        double* xp = xi ? checked(*xi, n, "xi") : nullptr;
        if (order && order->ndim() != 1) throw std::invalid_argument("order must be 1-d");
        const int64_t* op = order ? order->data() : nullptr;
        const int64_t n_order = order ? order->shape(0) : 0;
        const double* ytp = test_labels(X_test, y_test);
        Progress prog(progress);
        return prog.run([&] {
          return visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
            return fol_fit(v, yp, params, cp, wp, snaps.second, snaps.first, xp, op, n_order, tv, ytp, prog.fn());
          });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("params"), py::arg("coef").noconvert(),
      py::arg("weights").noconvert(), py::arg("snapshots").noconvert(), py::arg("xi").noconvert() = py::none(),
      py::arg("order").noconvert() = py::none(), py::arg("X_test") = nullptr,
      py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      "FOL (fol.hpp). coef = [w, b] (start, written back = last iterate); weights = tree leaves (in/out); "
      "snapshots (k, d+1) receive the iterates at the k snapshot times; xi = slack variables (in/out); "
      "order = injected sample indices (T * batch_size).");

  m.def(
      "adaboost_fit",
      [](const Matrix& X, const F64& y, const AdaBoostParams& params, F64 hyps, const Matrix* X_test,
         std::optional<F64> y_test, py::object progress, std::optional<F64> sample_weight,
         std::optional<F64> alphas) {
        const double* yp = checked_const(y, X.rows(), "y");
        double* ap = alphas ? checked(*alphas, params.max_iter, "alphas") : nullptr;
        const double* wp = sample_weight ? checked_const(*sample_weight, X.rows(), "sample_weight") : nullptr;
        const auto h = model_rows(hyps, X.cols(), "hyps");
        const double* ytp = test_labels(X_test, y_test);
        Progress prog(progress);
        return prog.run([&] {
          return visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
            return adaboost_fit(v, yp, params, h.second, h.first, tv, ytp, prog.fn(), wp, ap);
          });
        });
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("params"), py::arg("hyps").noconvert(),
      py::arg("X_test") = nullptr, py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      py::arg("sample_weight").noconvert() = py::none(), py::arg("alphas").noconvert() = py::none(),
      "AdaBoost over one SGD/Perceptron epoch per round sampled from p (paper, experiment 2). hyps (max_iter, d+1); "
      "sample_weight (n): the initial p, proportional to it (None: uniform); alphas (max_iter): alpha_t of the "
      "kept rounds, written (like hyps) before each round's progress call.");
}

}  // namespace rcb

RCB_REGISTER(fol, Extensions)  // takes Schedule (linear.cpp)
#endif  // RCB_KERNELS
