// Bindings: the bounded sigmoid's likelihood sums (bounded_sigmoid.hpp), the rate fit's per-row pass.
// With RCB_KERNELS defined this file compiles only the engine's pass (CMakeLists.txt generates kernels_noise.cpp,
// the define and an #include of this file, built at the kernels' optimisation); without it, the binding, which
// calls that pass, and its registration.
#include <cstdint>
#include <functional>

namespace robustcore {
struct RateNewtonParams;
struct AnchorPenalty;
}  // namespace robustcore

namespace rcb::kernels {
/// robustcore::bounded_sigmoid_sums, compiled once at the kernels' optimisation.
void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                          const double* th, int64_t m, double* f, double* g, double* H);
/// The sums of a caller's (a Python reduction): (th, m, f, g, H).
using RateSums = std::function<void(const double*, int64_t, double*, double*, double*)>;
/// robustcore::rate_newton over the engine's sums of these scores, or over a caller's sums.
void rate_newton(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                 const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p, double* th, int64_t m,
                 double* f);
void rate_newton(const RateSums& sums, const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p,
                 double* th, int64_t m, double* f);
/// robustcore::detail::rate_objective over the engine's sums of these scores (the objective rate_newton minimises).
void rate_objective(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                    const robustcore::AnchorPenalty& pen, const double* th, int64_t m, double* f, double* g, double* H);
}  // namespace rcb::kernels

#ifdef RCB_KERNELS
#include <robustcore/bounded_sigmoid.hpp>

namespace rcb::kernels {
void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                          const double* th, int64_t m, double* f, double* g, double* H) {
  robustcore::bounded_sigmoid_sums(score, n_pos, n_neg, n, th, m, f, g, H);
}
void rate_newton(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                 const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p, double* th, int64_t m,
                 double* f) {
  robustcore::rate_newton(
      [&](const double* t, int64_t k, double* fo, double* go, double* ho) {
        robustcore::bounded_sigmoid_sums(score, n_pos, n_neg, n, t, k, fo, go, ho);
      },
      pen, p, th, m, f);
}
void rate_newton(const RateSums& sums, const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p,
                 double* th, int64_t m, double* f) {
  robustcore::rate_newton(sums, pen, p, th, m, f);
}
void rate_objective(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                    const robustcore::AnchorPenalty& pen, const double* th, int64_t m, double* f, double* g, double* H) {
  auto sums = [&](const double* t, int64_t k, double* fo, double* go, double* ho) {
    robustcore::bounded_sigmoid_sums(score, n_pos, n_neg, n, t, k, fo, go, ho);
  };
  robustcore::detail::rate_objective(sums, pen, th, m, f, g, H);
}
}  // namespace rcb::kernels
#else
#include <robustcore/bounded_sigmoid.hpp>
#include "common.hpp"

namespace rcb {

namespace {
/// The scores a rate fit sums over and their label counts: three 1-d arrays of one length.
void check_scores(const F64& score, const F64& n_pos, const F64& n_neg) {
  if (score.ndim() != 1 || n_pos.ndim() != 1 || n_neg.ndim() != 1 || n_pos.shape(0) != score.shape(0) ||
      n_neg.shape(0) != score.shape(0))
    throw std::invalid_argument("score, n_pos and n_neg must be 1-d arrays of one length");
}
/// The number of parameter points m of th, which must be (m, 4).
int64_t points_of(const F64& th) {
  if (th.ndim() != 2 || th.shape(1) != 4) throw std::invalid_argument("th must have shape (m, 4)");
  return th.shape(0);
}
}  // namespace

void bind_noise(py::module_& m) {
  m.def(
      "bounded_sigmoid_sums",
      [](const F64& score, const F64& n_pos, const F64& n_neg, const F64& th) {
        check_scores(score, n_pos, n_neg);
        const int64_t n = score.shape(0), points = points_of(th);
        F64 f(std::vector<py::ssize_t>{points}), g(std::vector<py::ssize_t>{points, 4}),
            H(std::vector<py::ssize_t>{points, 4, 4});
        double *fp = f.mutable_data(), *gp = g.mutable_data(), *hp = H.mutable_data();
        {
          py::gil_scoped_release nogil;
          kernels::bounded_sigmoid_sums(score.data(), n_pos.data(), n_neg.data(), n, th.data(), points, fp, gp, hp);
        }
        return py::make_tuple(f, g, H);
      },
      py::arg("score").noconvert(), py::arg("n_pos").noconvert(), py::arg("n_neg").noconvert(),
      py::arg("th").noconvert(),
      "(f (m,), g (m, 4), H (m, 4, 4)): the bounded sigmoid's negative log-likelihood, gradient and Hessian in "
      "theta = (a, c, u, v) at the m points th over scores carrying n_pos / n_neg labels (see bounded_sigmoid.hpp).");

  py::class_<robustcore::RateNewtonParams>(m, "RateNewtonParams",
                                           "The rate fit's Newton constants (bounded_sigmoid.hpp; noise/_transition.py)")
      .def(py::init<>())
      .def_readwrite("max_iter", &robustcore::RateNewtonParams::max_iter)
      .def_readwrite("gtol", &robustcore::RateNewtonParams::gtol)
      .def_readwrite("ftol", &robustcore::RateNewtonParams::ftol)
      .def_readwrite("patience", &robustcore::RateNewtonParams::patience)
      .def_readwrite("behind", &robustcore::RateNewtonParams::behind)
      .def_readwrite("grow", &robustcore::RateNewtonParams::grow);
  py::class_<robustcore::AnchorPenalty>(m, "AnchorPenalty", "The rate fit's anchor penalty and row count (bounded_sigmoid.hpp)")
      .def(py::init([](double n, double s_lo, double s_hi, double reach, double mu) {
             if (!(n > 0.0)) throw std::invalid_argument("the rate fit needs at least one row (n > 0)");
             return robustcore::AnchorPenalty{n, s_lo, s_hi, reach, mu};
           }),
           py::arg("n"), py::arg("s_lo"), py::arg("s_hi"), py::arg("reach"), py::arg("mu"));
  m.def(
      "rate_objective",
      [](const F64& th, const robustcore::AnchorPenalty& pen, const F64& score, const F64& n_pos, const F64& n_neg) {
        check_scores(score, n_pos, n_neg);
        const int64_t points = points_of(th);
        F64 f(std::vector<py::ssize_t>{points}), g(std::vector<py::ssize_t>{points, 4}),
            H(std::vector<py::ssize_t>{points, 4, 4});
        kernels::rate_objective(score.data(), n_pos.data(), n_neg.data(), score.shape(0), pen, th.data(), points,
                                f.mutable_data(), g.mutable_data(), H.mutable_data());
        return py::make_tuple(f, g, H);
      },
      py::arg("th").noconvert(), py::arg("penalty"), py::arg("score").noconvert(), py::arg("n_pos").noconvert(),
      py::arg("n_neg").noconvert(),
      "(f, g, H) at the points th (m, 4) of what rate_newton minimises: the sums over these scores / n plus the "
      "anchor penalty.");
  m.def(
      "rate_newton",
      [](F64 th, const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p, const F64& score,
                 const F64& n_pos, const F64& n_neg) {
        check_scores(score, n_pos, n_neg);
        const int64_t points = points_of(th);
        F64 f(std::vector<py::ssize_t>{points});
        double *tp = th.mutable_data(), *fp = f.mutable_data();
        {
          py::gil_scoped_release nogil;
          kernels::rate_newton(score.data(), n_pos.data(), n_neg.data(), score.shape(0), pen, p, tp, points, fp);
        }
        return f;
      },
      py::arg("th").noconvert(), py::arg("penalty"), py::arg("params"), py::arg("score").noconvert(),
      py::arg("n_pos").noconvert(), py::arg("n_neg").noconvert(),
      "Newton's method from the starts th (m, 4; in/out: each start's last point) on the bounded sigmoid's mean "
      "negative log-likelihood over these scores plus the anchor penalty; returns each start's objective "
      "(rate_newton in bounded_sigmoid.hpp).");
  m.def(
      "rate_newton",
      [](F64 th, const robustcore::AnchorPenalty& pen, const robustcore::RateNewtonParams& p,
                 const py::function& sums) {
        const int64_t points = points_of(th);
        F64 f(std::vector<py::ssize_t>{points});
        kernels::RateSums call = [&sums](const double* t, int64_t k, double* fo, double* go, double* ho) {
          F64 at(std::vector<py::ssize_t>{k, 4});
          std::copy(t, t + 4 * k, at.mutable_data());
          const py::tuple out = sums(at);
          if (out.size() != 3) throw std::invalid_argument("sums(th) must return (f, g, H)");
          const F64 fa = py::cast<F64>(out[0]), ga = py::cast<F64>(out[1]), ha = py::cast<F64>(out[2]);
          if (fa.size() != k || ga.size() != 4 * k || ha.size() != 16 * k)
            throw std::invalid_argument("sums(th) must return f (m,), g (m, 4) and H (m, 4, 4) for th (m, 4)");
          std::copy(fa.data(), fa.data() + k, fo);
          std::copy(ga.data(), ga.data() + 4 * k, go);
          std::copy(ha.data(), ha.data() + 16 * k, ho);
        };
        kernels::rate_newton(call, pen, p, th.mutable_data(), points, f.mutable_data());
        return f;
      },
      py::arg("th").noconvert(), py::arg("penalty"), py::arg("params"), py::arg("sums"),
      "rate_newton over a caller's sums: sums(th (k, 4)) -> (f (k,), g (k, 4), H (k, 4, 4)), the negative "
      "log-likelihood's sums over all rows (robustcore.noise.distributed: a reduction over a dask collection).");
}

}  // namespace rcb

RCB_REGISTER(noise, Solvers)
#endif  // RCB_KERNELS
