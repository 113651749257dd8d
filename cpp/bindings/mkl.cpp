// Bindings: multiple kernel learning from noisy labels (mkl.hpp) and the Lemma 3 composite step.
#include "common.hpp"

#include <robustcore/mkl.hpp>
#include <robustcore/projections.hpp>

namespace rcb {

namespace {

using F32 = py::array_t<float, py::array::c_style>;

template <class T>
const double* rows_of(const F64& X, int64_t& rows, int64_t& cols, const char* name) {
  if (X.ndim() != 2) throw std::invalid_argument(std::string(name) + " must be 2-d");
  rows = X.shape(0);
  cols = X.shape(1);
  return X.data();
}

template <class Scalar>
void bank_into(const F64& A, const F64& B, const F64& widths, py::array_t<Scalar, py::array::c_style>& out) {
  int64_t na, nb, d, d2;
  const double* a = rows_of<double>(A, na, d, "A");
  const double* b = rows_of<double>(B, nb, d2, "B");
  if (d != d2) throw std::invalid_argument("A and B must have the same number of columns");
  if (widths.ndim() != 1) throw std::invalid_argument("widths must be 1-d");
  const int64_t nw = widths.shape(0);
  const int64_t m = robustcore::mkl::gaussian_bank_size(d, nw);
  if (out.ndim() != 3 || out.shape(0) != m || out.shape(1) != na || out.shape(2) != nb)
    throw std::invalid_argument("out must have shape (" + std::to_string(m) + ", " + std::to_string(na) + ", " +
                                std::to_string(nb) + ")");
  Scalar* o = out.mutable_data();
  py::gil_scoped_release nogil;
  robustcore::mkl::gaussian_bank<Scalar>(a, na, b, nb, d, widths.data(), nw, o);
}

template <class Scalar>
py::dict solve_bank(const py::array_t<Scalar, py::array::c_style>& K, const F64& y, double lam, double upper,
                    double rho, double gamma, double gamma0, int64_t max_iter, double tol, int method, F64 coef,
                    F64 alpha, py::object callback) {
  if (K.ndim() != 3 || K.shape(1) != K.shape(2)) throw std::invalid_argument("K must have shape (m, n, n)");
  const int64_t m = K.shape(0), n = K.shape(1);
  const double* yp = checked_const(y, n, "y");
  if (coef.ndim() != 2 || coef.shape(0) != m || coef.shape(1) != n)
    throw std::invalid_argument("coef must have shape (m, n)");
  double* ap = checked(alpha, n, "alpha");
  if (method != 0 && method != 1) throw std::invalid_argument("method must be 0 (amp) or 1 (vi)");
  robustcore::mkl::Options opt;
  opt.lambda = lam;
  opt.upper = upper;
  opt.rho = rho;
  opt.gamma = gamma;
  opt.gamma0 = gamma0;
  opt.max_iter = max_iter;
  opt.tol = tol;
  opt.method = static_cast<robustcore::mkl::Method>(method);
  robustcore::mkl::KernelBank<Scalar> bank{K.data(), m, n};
  Progress prog(std::move(callback));
  robustcore::mkl::Result r;
  double* cp = coef.mutable_data();
  {
    py::gil_scoped_release nogil;
    r = robustcore::mkl::solve(bank, yp, opt, cp, ap, prog.fn());
  }
  prog.rethrow();
  py::dict d;
  d["status"] = robustcore::status_name(r.status);
  d["iterations"] = r.iterations;
  d["gamma"] = r.gamma;
  d["gap"] = r.gap;
  d["primal"] = r.primal;
  d["dual"] = r.dual;
  d["gap_hist"] = arr(r.gap_hist);
  d["primal_hist"] = arr(r.primal_hist);
  d["dual_hist"] = arr(r.dual_hist);
  d["seconds"] = arr(r.seconds);
  return d;
}

}  // namespace

void bind_mkl(py::module_& m) {
  m.def("gaussian_bank", &bank_into<double>, py::arg("A").noconvert(), py::arg("B").noconvert(),
        py::arg("widths").noconvert(), py::arg("out").noconvert(),
        "Gaussian kernel bank (all features, then each feature; n_widths each) between rows of A and B, "
        "written into out (m, na, nb) float64.");
  m.def("gaussian_bank", &bank_into<float>, py::arg("A").noconvert(), py::arg("B").noconvert(),
        py::arg("widths").noconvert(), py::arg("out").noconvert(), "float32 storage variant.");
  m.def(
      "gaussian_bank_decision",
      [](const F64& Xt, const F64& Xtr, const F64& widths, const F64& coef, F64 out) {
        int64_t nt, d, n, d2;
        const double* a = rows_of<double>(Xt, nt, d, "X");
        const double* b = rows_of<double>(Xtr, n, d2, "X_fit");
        if (d != d2) throw std::invalid_argument("X must have as many columns as the training data");
        if (widths.ndim() != 1) throw std::invalid_argument("widths must be 1-d");
        const int64_t mk = robustcore::mkl::gaussian_bank_size(d, widths.shape(0));
        if (coef.ndim() != 2 || coef.shape(0) != mk || coef.shape(1) != n)
          throw std::invalid_argument("coef must have shape (m, n_train)");
        double* o = checked(out, nt, "out");
        py::gil_scoped_release nogil;
        robustcore::mkl::gaussian_bank_decision(a, nt, b, n, d, widths.data(), widths.shape(0), coef.data(), o);
      },
      py::arg("X").noconvert(), py::arg("X_fit").noconvert(), py::arg("widths").noconvert(),
      py::arg("coef").noconvert(), py::arg("out").noconvert(),
      "Decision values of a Gaussian-bank model on new rows through the stored training rows.");
  m.def(
      "group_lasso_squared_prox",
      [](const F64& a, double c, F64 scale) {
        if (a.ndim() != 1) throw std::invalid_argument("a must be 1-d");
        double* sp = checked(scale, a.shape(0), "scale");
        return robustcore::group_lasso_squared_prox(a.data(), a.shape(0), c, sp);
      },
      py::arg("a").noconvert(), py::arg("c"), py::arg("scale").noconvert(),
      "MKL Lemma 3 / problem (13): scale factors s_j (written into scale) of the minimiser f_j = s_j fhat_j of "
      "1/2 sum ||f_j - fhat_j||^2 + c/2 (sum ||f_j||)^2 given a_j = ||fhat_j||; returns sum_j ||f_j||.");
  m.def("mkl_solve", &solve_bank<double>, py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("lam"),
        py::arg("upper"), py::arg("rho"), py::arg("gamma"), py::arg("gamma0"), py::arg("max_iter"), py::arg("tol"),
        py::arg("method"), py::arg("coef").noconvert(), py::arg("alpha").noconvert(), py::arg("callback") = py::none(),
        "StPMKL on problem (11) by accelerated mirror prox (method 0) or gradient descent-ascent (method 1).");
  m.def("mkl_solve", &solve_bank<float>, py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("lam"),
        py::arg("upper"), py::arg("rho"), py::arg("gamma"), py::arg("gamma0"), py::arg("max_iter"), py::arg("tol"),
        py::arg("method"), py::arg("coef").noconvert(), py::arg("alpha").noconvert(), py::arg("callback") = py::none(),
        "float32 kernel storage variant.");
}

}  // namespace rcb
