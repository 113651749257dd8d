// The mkl engine templates the bindings call (instances.hpp), instantiated once, at the release
// optimisation.
#include <robustcore/factored_bank.hpp>
#include <robustcore/mkl.hpp>

#include "instances.hpp"

namespace robustcore {
RCB_MKL_INSTANCES()
}  // namespace robustcore

namespace rcb::kernels {
using robustcore::FactoredBank;
void gaussian_bank_decision(const double* Xt, int64_t nt, const double* Xtr, int64_t n, int64_t d,
                            const double* widths, int64_t nw, const double* coef, double* out) {
  robustcore::mkl::gaussian_bank_decision(Xt, nt, Xtr, n, d, widths, nw, coef, out);
}
FactoredBank gaussian_bank_factored(const double* X, int64_t n, int64_t d, const double* widths, int64_t nw,
                                    double tol, int64_t max_rank, int64_t max_bytes,
                                    const robustcore::ProgressFn& progress) {
  return robustcore::mkl::gaussian_bank_factored(X, n, d, widths, nw, tol, max_rank, max_bytes, progress);
}
void apply_each(const FactoredBank& bank, const double* C, double* G) { bank.apply_each(C, G); }
void quad(const FactoredBank& bank, const double* v, double* q) { bank.quad(v, q); }
void combine(const FactoredBank& bank, const double* w, double* out) { bank.combine(w, out); }
void to_dense(const FactoredBank& bank, double* out) { bank.to_dense(out); }
FactoredBank subset(const FactoredBank& bank, const int64_t* idx, int64_t k) { return bank.subset(idx, k); }
}  // namespace rcb::kernels
