// What the bindings call on data, compiled once, at -O3 (instances.hpp, rcb::kernels): the data views'
// checks and the losses evaluated over an array of margins.
#include <robustcore/any_loss.hpp>
#include <robustcore/data.hpp>

#include "instances.hpp"

namespace rcb::kernels {
void validate(const views::DenseF64& v) { v.validate(); }
void validate(const views::DenseF32& v) { v.validate(); }
void validate(const views::CsrF64& v, int64_t data_len, int64_t indices_len) { v.validate(data_len, indices_len); }
void validate(const views::CsrF32& v, int64_t data_len, int64_t indices_len) { v.validate(data_len, indices_len); }
template <class IP, class Idx>
void csr_structure(const IP* indptr, int64_t indptr_len, const Idx* indices, int64_t indices_len, int64_t data_len,
                   int64_t n_rows, int64_t n_cols) {
  robustcore::validate_csr_structure(indptr, indptr_len, indices, indices_len, data_len, n_rows, n_cols);
}
template void csr_structure<int32_t, int32_t>(const int32_t*, int64_t, const int32_t*, int64_t, int64_t, int64_t, int64_t);
template void csr_structure<int64_t, int64_t>(const int64_t*, int64_t, const int64_t*, int64_t, int64_t, int64_t, int64_t);
template void csr_structure<int32_t, int64_t>(const int32_t*, int64_t, const int64_t*, int64_t, int64_t, int64_t, int64_t);
template void csr_structure<int64_t, int32_t>(const int64_t*, int64_t, const int32_t*, int64_t, int64_t, int64_t, int64_t);
void value_deriv(const robustcore::LossSpec& loss, const double* z, int64_t n, double* value, double* deriv) {
  robustcore::visit_loss(loss, [&](const auto& f) {
    robustcore::value_deriv_n(f, z, value, deriv, n);  // what the models' passes call (vectorised: the log loss)
    return 0;
  });
}
}  // namespace rcb::kernels
