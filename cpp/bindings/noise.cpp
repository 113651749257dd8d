// Bindings: the bounded sigmoid's likelihood sums (bounded_sigmoid.hpp), the rate fit's per-row pass.
// With RCB_KERNELS defined this file compiles only the engine's pass (CMakeLists.txt generates kernels_noise.cpp,
// the define and an #include of this file, built at the kernels' optimisation); without it, the binding, which
// calls that pass, and its registration.
#include <cstdint>

namespace rcb::kernels {
/// robustcore::bounded_sigmoid_sums, compiled once at the kernels' optimisation.
void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                          const double* th, int64_t m, double* f, double* g, double* H);
}  // namespace rcb::kernels

#ifdef RCB_KERNELS
#include <robustcore/bounded_sigmoid.hpp>

namespace rcb::kernels {
void bounded_sigmoid_sums(const double* score, const double* n_pos, const double* n_neg, int64_t n,
                          const double* th, int64_t m, double* f, double* g, double* H) {
  robustcore::bounded_sigmoid_sums(score, n_pos, n_neg, n, th, m, f, g, H);
}
}  // namespace rcb::kernels
#else
#include "common.hpp"

namespace rcb {

void bind_noise(py::module_& m) {
  m.def(
      "bounded_sigmoid_sums",
      [](const F64& score, const F64& n_pos, const F64& n_neg, const F64& th) {
        if (score.ndim() != 1 || n_pos.ndim() != 1 || n_neg.ndim() != 1 || n_pos.shape(0) != score.shape(0) ||
            n_neg.shape(0) != score.shape(0))
          throw std::invalid_argument("score, n_pos and n_neg must be 1-d arrays of one length");
        if (th.ndim() != 2 || th.shape(1) != 4) throw std::invalid_argument("th must have shape (m, 4)");
        const int64_t n = score.shape(0), points = th.shape(0);
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
}

}  // namespace rcb

RCB_REGISTER(noise, Solvers)
#endif  // RCB_KERNELS
