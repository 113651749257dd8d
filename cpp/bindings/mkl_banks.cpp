// Bindings: the Gaussian kernel banks of multiple kernel learning (mkl.hpp, factored_bank.hpp) and the
// decision values through them. The engine's bank functions are inline, not templates: the glue calls
// their copies in kernels_mkl.cpp (rcb::kernels, instances.hpp).
#include "common.hpp"
#include "instances.hpp"

#include <robustcore/factored_bank.hpp>
#include <robustcore/mkl.hpp>

namespace robustcore {
RCB_MKL_INSTANCES(extern)  // compiled in kernels_mkl.cpp
}  // namespace robustcore

namespace rcb {

namespace {

const double* rows_of(const F64& X, int64_t& rows, int64_t& cols, const char* name) {
  if (X.ndim() != 2) throw std::invalid_argument(std::string(name) + " must be 2-d");
  rows = X.shape(0);
  cols = X.shape(1);
  return X.data();
}

template <class Scalar>
void bank_into(const F64& A, const F64& B, const F64& widths, py::array_t<Scalar, py::array::c_style>& out) {
  int64_t na, nb, d, d2;
  const double* a = rows_of(A, na, d, "A");
  const double* b = rows_of(B, nb, d2, "B");
  if (d != d2) throw std::invalid_argument("A and B must have the same number of columns");
  if (widths.ndim() != 1) throw std::invalid_argument("widths must be 1-d");
  const int64_t nw = widths.shape(0);
  const int64_t m = robustcore::mkl::gaussian_bank_size(d, nw);
  if (out.ndim() != 3 || out.shape(0) != m || out.shape(1) != na || out.shape(2) != nb)
    throw std::invalid_argument("out must have shape (" + std::to_string(m) + ", " + std::to_string(na) + ", " +
                                std::to_string(nb) + ")");
  Scalar* o = out.mutable_data();
  Interrupts().run([&] {
    robustcore::mkl::gaussian_bank<Scalar>(a, na, b, nb, d, widths.data(), nw, o);
    return 0;
  });
}

// (m, n) row-major array argument of a bank method.
const double* bank_rows(const F64& a, const robustcore::FactoredBank& b, const char* name) {
  if (a.ndim() != 2 || a.shape(0) != b.m || a.shape(1) != b.n)
    throw std::invalid_argument(std::string(name) + " must have shape (" + std::to_string(b.m) + ", " +
                                std::to_string(b.n) + ")");
  return a.data();
}

void bind_factored_bank(py::module_& m) {
  using robustcore::FactoredBank;
  py::class_<FactoredBank>(m, "FactoredKernelBank",
                           "m PSD kernels over n points, each dense or as a pivoted-Cholesky factor (factored_bank.hpp).")
      .def_readonly("m", &FactoredBank::m)
      .def_readonly("n", &FactoredBank::n)
      .def_property_readonly("nbytes", &FactoredBank::bytes)
      .def_property_readonly("fill", &FactoredBank::fill, "stored values / (n^2 m)")
      .def_property_readonly("ranks",
                             [](const FactoredBank& b) {
                               py::array_t<int64_t> r(b.m);
                               for (int64_t j = 0; j < b.m; ++j) r.mutable_data()[j] = b.rank(j);
                               return r;
                             },
                             "rank of each factor; -1 for a kernel stored dense")
      .def("apply_each",
           [](const FactoredBank& b, const F64& C) {
             const double* c = bank_rows(C, b, "C");
             py::array_t<double, py::array::c_style> G({b.m, b.n});
             double* g = G.mutable_data();
             Interrupts().run([&] {
               kernels::apply_each(b, c, g);
               return 0;
             });
             return G;
           },
           py::arg("C").noconvert(), "G[j] = K_j C[j] for C of shape (m, n)")
      .def("quad",
           [](const FactoredBank& b, const F64& v) {
             const double* vp = checked_const(v, b.n, "v");
             py::array_t<double> q(b.m);
             double* qp = q.mutable_data();
             py::gil_scoped_release nogil;
             kernels::quad(b, vp, qp);
             return q;
           },
           py::arg("v").noconvert(), "q[j] = v^T K_j v")
      .def("combine",
           [](const FactoredBank& b, const F64& w) {
             const double* wp = checked_const(w, b.m, "w");
             py::array_t<double, py::array::c_style> out({b.n, b.n});
             double* o = out.mutable_data();
             py::gil_scoped_release nogil;
             kernels::combine(b, wp, o);
             return out;
           },
           py::arg("w").noconvert(), "sum_j w[j] K_j as a dense (n, n) array")
      .def("to_dense",
           [](const FactoredBank& b) {
             py::array_t<double, py::array::c_style> out({b.m, b.n, b.n});
             double* o = out.mutable_data();
             py::gil_scoped_release nogil;
             kernels::to_dense(b, o);
             return out;
           },
           "dense (m, n, n) copy")
      .def("subset",
           [](const FactoredBank& b, const I64& idx) {
             if (idx.ndim() != 1) throw std::invalid_argument("idx must be 1-d");
             return kernels::subset(b, idx.data(), idx.shape(0));
           },
           py::arg("idx").noconvert(), "the bank on the points idx");
  m.def(
      "gaussian_bank_factored",
      [](const F64& X, const F64& widths, double tol, int64_t max_rank, int64_t max_bytes, py::object progress) {
        int64_t n, d;
        const double* x = rows_of(X, n, d, "X");
        if (widths.ndim() != 1) throw std::invalid_argument("widths must be 1-d");
        const double* w = widths.data();
        const int64_t nw = widths.shape(0);
        // BankTooLarge (a std::length_error) arrives as MemoryError (module.cpp)
        // the callback only reports (its answer is ignored: a bank cannot be half built); Ctrl-C and an
        // exception it raises still stop the build
        Progress prog(progress.is_none() ? progress : py::cpp_function([progress](int64_t done) {
          progress(done);
          return true;
        }));
        return prog.run(
            [&] { return kernels::gaussian_bank_factored(x, n, d, w, nw, tol, max_rank, max_bytes, prog.fn()); });
      },
      py::arg("X").noconvert(), py::arg("widths").noconvert(), py::arg("tol"), py::arg("max_rank") = 0,
      py::arg("max_bytes") = 0, py::arg("progress") = py::none(),
      "The Gaussian bank of gaussian_bank(X, X) as a FactoredKernelBank, every entry within tol; kernels of "
      "rank > max_rank (0: n / 2) stored dense; MemoryError past max_bytes (0: no limit); progress(done) "
      "after each kernel (display only: its answer is ignored; an exception it raises stops the build).");
}

}  // namespace

void bind_mkl_banks(py::module_& m) {
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
        const double* a = rows_of(Xt, nt, d, "X");
        const double* b = rows_of(Xtr, n, d2, "X_fit");
        if (d != d2) throw std::invalid_argument("X must have as many columns as the training data");
        if (widths.ndim() != 1) throw std::invalid_argument("widths must be 1-d");
        const int64_t mk = robustcore::mkl::gaussian_bank_size(d, widths.shape(0));
        if (coef.ndim() != 2 || coef.shape(0) != mk || coef.shape(1) != n)
          throw std::invalid_argument("coef must have shape (m, n_train)");
        double* o = checked(out, nt, "out");
        Interrupts().run([&] {
          kernels::gaussian_bank_decision(a, nt, b, n, d, widths.data(), widths.shape(0), coef.data(), o);
          return 0;
        });
      },
      py::arg("X").noconvert(), py::arg("X_fit").noconvert(), py::arg("widths").noconvert(),
      py::arg("coef").noconvert(), py::arg("out").noconvert(),
      "Decision values of a Gaussian-bank model on new rows through the stored training rows.");
  bind_factored_bank(m);
}

}  // namespace rcb

RCB_REGISTER(mkl_banks, Solvers)
