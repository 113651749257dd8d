// The data views' checks the bindings call (instances.hpp, rcb::kernels), compiled once, at -O3.
#include <robustcore/data.hpp>

#include "instances.hpp"

namespace rcb::kernels {
void validate(const views::DenseF64& v) { v.validate(); }
void validate(const views::DenseF32& v) { v.validate(); }
void validate(const views::CsrF64& v, int64_t data_len, int64_t indices_len) { v.validate(data_len, indices_len); }
void validate(const views::CsrF32& v, int64_t data_len, int64_t indices_len) { v.validate(data_len, indices_len); }
}  // namespace rcb::kernels
