// Bindings: the FOL sum tree (sum_tree.hpp), the FOL loop and the AdaBoost baseline (fol.hpp).
#include "common.hpp"

#include <robustcore/fol.hpp>

namespace rcb {

namespace {

/// A sum tree plus its own seeded generator, for the Python learner protocol.
struct PySumTree {
  robustcore::SumTree tree;
  robustcore::Rng rng;
  PySumTree(int64_t m, uint64_t seed) : tree(m), rng(seed) {}
  PySumTree(const F64& w, uint64_t seed) : rng(seed) {
    if (w.ndim() != 1) throw std::invalid_argument("weights must be a 1-d array");
    tree.assign(w.data(), w.shape(0));
  }
  int64_t index(int64_t i) const {
    if (i < 0 || i >= tree.size())
      throw std::invalid_argument("index " + std::to_string(i) + " out of range [0, " + std::to_string(tree.size()) + ")");
    return i;
  }
};

void check_gamma(double g) {
  if (!(g >= 0.0 && g <= 1.0)) throw std::invalid_argument("gamma must be in [0, 1]");
}

enum class LearnerKind : int { Perceptron = 0, Sgd = 1 };

struct LearnerSpec {
  LearnerKind kind = LearnerKind::Perceptron;
  robustcore::LearningRate lr;
  bool fit_intercept = true;
  double intercept_lr = 1.0;
};

LearnerSpec make_learner_spec(const std::string& learner, int schedule, double lam, double eta0, double power_t,
                              bool fit_intercept, double intercept_lr) {
  LearnerSpec spec;
  if (learner == "perceptron") spec.kind = LearnerKind::Perceptron;
  else if (learner == "sgd") spec.kind = LearnerKind::Sgd;
  else throw std::invalid_argument("learner must be 'perceptron' or 'sgd'");
  if (schedule < 0 || schedule > 4) throw std::invalid_argument("unknown schedule");
  spec.lr.schedule = static_cast<robustcore::Schedule>(schedule);
  spec.lr.lambda = lam;
  spec.lr.eta0 = eta0;
  spec.lr.power_t = power_t;
  spec.fit_intercept = fit_intercept;
  spec.intercept_lr = intercept_lr;
  return spec;
}

template <class F>
decltype(auto) with_learner(const LearnerSpec& s, const LossSpec& loss, int64_t d, F&& f) {
  if (s.kind == LearnerKind::Perceptron) {
    robustcore::Perceptron p(d, s.fit_intercept);
    return f(p);
  }
  return visit_loss(loss, [&](const auto& l) {
    robustcore::SgdLearner<std::decay_t<decltype(l)>> learner(d, l, s.lr, s.fit_intercept, s.intercept_lr);
    return f(learner);
  });
}

py::dict fol_trace_to_dict(const robustcore::FolTrace& t) {
  py::dict d;
  d["max_loss"] = arr(t.max_loss);
  d["train_error"] = arr(t.train_error);
  d["test_error"] = arr(t.test_error);
  d["max_q"] = arr(t.max_q);
  d["seconds"] = arr(t.seconds);
  return d;
}

}  // namespace

void bind_fol(py::module_& m) {
  using namespace robustcore;
  py::class_<PySumTree>(m, "SumTree", "FOL sampler (sum_tree.hpp): m leaf weights, O(log m) sample and update.")
      .def(py::init<int64_t, uint64_t>(), py::arg("m"), py::arg("seed") = 0)
      .def(py::init<const F64&, uint64_t>(), py::arg("weights").noconvert(), py::arg("seed") = 0)
      .def_property_readonly("size", [](const PySumTree& t) { return t.tree.size(); })
      .def_property_readonly("total", [](const PySumTree& t) { return t.tree.total(); })
      .def_property_readonly("rescales", [](const PySumTree& t) { return t.tree.rescales(); })
      .def("leaf", [](const PySumTree& t, int64_t i) { return t.tree.leaf(t.index(i)); }, py::arg("i"))
      .def("q", [](const PySumTree& t, int64_t i) { return t.tree.q(t.index(i)); }, py::arg("i"))
      .def("prob", [](const PySumTree& t, int64_t i, double g) { check_gamma(g); return t.tree.prob(t.index(i), g); },
           py::arg("i"), py::arg("gamma"))
      .def("leaves", [](const PySumTree& t, F64 out) {
             double* o = checked(out, t.tree.size(), "out");
             for (int64_t i = 0; i < t.tree.size(); ++i) o[i] = t.tree.leaf(i);
           }, py::arg("out").noconvert(), "Writes the m leaf weights into out.")
      .def("sample", [](PySumTree& t, double g) { check_gamma(g); return t.tree.sample(g, t.rng); }, py::arg("gamma"),
           "(i, p_i) with p_i = gamma/m + (1-gamma) q_i (paper, section 2.3).")
      .def("sample_batch", [](PySumTree& t, double g, I64 idx, F64 p) {
             check_gamma(g);
             if (idx.ndim() != 1 || p.ndim() != 1 || idx.shape(0) != p.shape(0))
               throw std::invalid_argument("idx and p must be 1-d arrays of the same length");
             int64_t* ip = idx.mutable_data();
             double* pp = p.mutable_data();
             for (py::ssize_t j = 0; j < idx.shape(0); ++j) {
               auto r = t.tree.sample(g, t.rng);
               ip[j] = r.first;
               pp[j] = r.second;
             }
           }, py::arg("gamma"), py::arg("idx").noconvert(), py::arg("p").noconvert(),
           "len(idx) draws of sample(gamma), written into idx and p.")
      .def("descend", [](const PySumTree& t, double u) {
             if (!(u >= 0.0 && u < 1.0)) throw std::invalid_argument("u must be in [0, 1)");
             return t.tree.descend(u);
           }, py::arg("u"), "The leaf the tree walk reaches for the uniform u (gamma = 0).")
      .def("update", [](PySumTree& t, int64_t i, double f) { t.tree.update(t.index(i), f); }, py::arg("i"), py::arg("factor"))
      .def("update_log", [](PySumTree& t, int64_t i, double lf) { t.tree.update_log(t.index(i), lf); }, py::arg("i"),
           py::arg("log_factor"))
      .def("update_batch_log", [](PySumTree& t, const I64& idx, const F64& lf) {
             if (idx.ndim() != 1 || lf.ndim() != 1 || idx.shape(0) != lf.shape(0))
               throw std::invalid_argument("idx and log_factor must be 1-d arrays of the same length");
             const int64_t* ip = idx.data();
             const double* lp = lf.data();
             for (py::ssize_t j = 0; j < idx.shape(0); ++j) t.index(ip[j]);
             for (py::ssize_t j = 0; j < idx.shape(0); ++j) t.tree.update_log(ip[j], lp[j]);
           }, py::arg("idx").noconvert(), py::arg("log_factor").noconvert(),
           "v_i <- v_i exp(log_factor) for each pair, in order.")
      .def("rebuild", [](PySumTree& t) { t.tree.rebuild(); })
      .def("renormalise", [](PySumTree& t) { t.tree.renormalise(); });

  m.def("fol_snapshot_times", [](int64_t T, int64_t k, uint64_t seed) {
    auto v = fol_snapshot_times(T, k, seed);
    return py::array_t<int64_t>(static_cast<py::ssize_t>(v.size()), v.data());
  }, py::arg("T"), py::arg("k"), py::arg("seed"), "The k sorted snapshot times in [1, T] that fol_fit uses for this seed.");

  m.def(
      "fol_fit",
      [](const Matrix& X, const F64& y, const std::string& learner, const LossSpec& loss, int schedule, double lam,
         double eta0, double power_t, bool fit_intercept, double intercept_lr, int64_t n_steps, int64_t batch_size,
         double eta, double gamma, int focus, int64_t steps_per_epoch, bool record_history, double slack_budget,
         double slack_lr, uint64_t seed, F64 coef, F64 weights, F64 snapshots, std::optional<F64> xi,
         std::optional<I64> order, const Matrix* X_test, std::optional<F64> y_test, py::object progress) {
        const int64_t n = X.rows(), d = X.cols();
        const double* yp = checked_const(y, n, "y");
        const LearnerSpec spec = make_learner_spec(learner, schedule, lam, eta0, power_t, fit_intercept, intercept_lr);
        FolParams p;
        p.n_steps = n_steps;
        p.batch_size = batch_size;
        p.eta = eta;
        p.gamma = gamma;
        if (focus != 0 && focus != 1) throw std::invalid_argument("focus must be 0 (zero_one) or 1 (clipped)");
        p.focus = static_cast<Focus>(focus);
        p.steps_per_epoch = steps_per_epoch;
        p.record_history = record_history;
        p.slack_budget = slack_budget;
        p.slack_lr = slack_lr;
        p.seed = seed;
        validate_fol_params(p, n);
        double* cp = checked(coef, d + 1, "coef");
        double* wp = checked(weights, n, "weights");
        if (snapshots.ndim() != 2 || snapshots.shape(1) != d + 1)
          throw std::invalid_argument("snapshots must have shape (k, n_features + 1)");
        p.k = snapshots.shape(0);
        double* sp = snapshots.mutable_data();
        double* xp = xi ? checked(*xi, n, "xi") : nullptr;
        const int64_t* op = order ? checked_const(*order, n_steps * batch_size, "order") : nullptr;
        const double* ytp = nullptr;
        if (X_test) {
          if (!y_test) throw std::invalid_argument("X_test given without y_test");
          ytp = checked_const(*y_test, X_test->rows(), "y_test");
        }
        Progress prog(progress);
        FolResult res;
        {
          py::gil_scoped_release nogil;
          validate_binary_labels(yp, n);
          if (ytp) validate_binary_labels(ytp, X_test->rows());
          SumTree tree(wp, n);
          res = with_learner(spec, loss, d, [&](auto& l) {
            l.assign(cp, cp[d]);
            FolResult r = visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
              return fol_fit(v, yp, l, p, tree, sp, xp, op, tv, ytp, prog.fn());
            });
            l.write(cp);
            return r;
          });
          for (int64_t i = 0; i < n; ++i) wp[i] = tree.leaf(i);
        }
        prog.rethrow();
        py::dict out;
        out["status"] = status_name(res.status);
        out["steps_done"] = res.steps_done;
        out["history"] = fol_trace_to_dict(res.trace);
        out["snapshot_times"] = py::array_t<int64_t>(static_cast<py::ssize_t>(res.snapshot_times.size()),
                                                     res.snapshot_times.data());
        out["rescales"] = res.rescales;
        return out;
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("learner"), py::arg("loss"), py::arg("schedule"), py::arg("lam"),
      py::arg("eta0"), py::arg("power_t"), py::arg("fit_intercept"), py::arg("intercept_lr"), py::arg("n_steps"),
      py::arg("batch_size"), py::arg("eta"), py::arg("gamma"), py::arg("focus"), py::arg("steps_per_epoch"),
      py::arg("record_history"), py::arg("slack_budget"), py::arg("slack_lr"), py::arg("seed"),
      py::arg("coef").noconvert(), py::arg("weights").noconvert(), py::arg("snapshots").noconvert(),
      py::arg("xi").noconvert() = py::none(), py::arg("order").noconvert() = py::none(), py::arg("X_test") = nullptr,
      py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      "FOL (fol.hpp). coef = [w, b] (start, written back = last iterate); weights = tree leaves (in/out); "
      "snapshots (k, d+1) receive the iterates at the k snapshot times; xi = slack variables (in/out).");

  m.def(
      "adaboost_fit",
      [](const Matrix& X, const F64& y, const std::string& learner, const LossSpec& loss, int schedule, double lam,
         double eta0, double power_t, bool fit_intercept, double intercept_lr, int64_t batch_size, bool warm_start,
         uint64_t seed, F64 hyps, const Matrix* X_test, std::optional<F64> y_test, py::object progress) {
        const int64_t n = X.rows(), d = X.cols();
        const double* yp = checked_const(y, n, "y");
        const LearnerSpec spec = make_learner_spec(learner, schedule, lam, eta0, power_t, fit_intercept, intercept_lr);
        AdaBoostParams p;
        if (hyps.ndim() != 2 || hyps.shape(1) != d + 1)
          throw std::invalid_argument("hyps must have shape (rounds, n_features + 1)");
        p.rounds = hyps.shape(0);
        p.batch_size = batch_size;
        p.warm_start = warm_start;
        p.seed = seed;
        double* hp = hyps.mutable_data();
        const double* ytp = nullptr;
        if (X_test) {
          if (!y_test) throw std::invalid_argument("X_test given without y_test");
          ytp = checked_const(*y_test, X_test->rows(), "y_test");
        }
        Progress prog(progress);
        AdaBoostResult res;
        {
          py::gil_scoped_release nogil;
          validate_binary_labels(yp, n);
          if (ytp) validate_binary_labels(ytp, X_test->rows());
          res = with_learner(spec, loss, d, [&](auto& l) {
            return visit_matrix_pair(X, X_test, [&](const auto& v, const auto* tv) {
              return adaboost_fit(v, yp, l, p, hp, tv, ytp, prog.fn());
            });
          });
        }
        prog.rethrow();
        py::dict out;
        out["rounds_done"] = res.rounds_done;
        out["alpha"] = arr(res.alpha);
        out["weighted_error"] = arr(res.weighted_error);
        out["train_error"] = arr(res.train_error);
        out["test_error"] = arr(res.test_error);
        return out;
      },
      py::arg("X"), py::arg("y").noconvert(), py::arg("learner"), py::arg("loss"), py::arg("schedule"), py::arg("lam"),
      py::arg("eta0"), py::arg("power_t"), py::arg("fit_intercept"), py::arg("intercept_lr"), py::arg("batch_size"),
      py::arg("warm_start"), py::arg("seed"), py::arg("hyps").noconvert(), py::arg("X_test") = nullptr,
      py::arg("y_test").noconvert() = py::none(), py::arg("progress") = py::none(),
      "AdaBoost over one SGD/Perceptron epoch per round sampled from p (paper, experiment 2). hyps (rounds, d+1).");
}

}  // namespace rcb
