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
void value_deriv(const robustcore::LossSpec& loss, const double* z, int64_t n, double* value, double* deriv) {
  robustcore::visit_loss(loss, [&](const auto& f) {
    for (int64_t i = 0; i < n; ++i) f.value_deriv(z[i], value[i], deriv[i]);
    return 0;
  });
}
}  // namespace rcb::kernels
