// What the extension compiles of the engine, and where (CMakeLists.txt; docs/benchmarks/build.md, "Build time and the kernel A/B").
// - The engine templates the bindings call, one list per solver family, instantiated (empty prefix) in its
//   kernels translation unit at -O3 (MKL, FOL: -O2), without pybind11; the glue file that calls them declares
//   the same list `extern` (`RCB_<FAMILY>_INSTANCES(extern)`, after including the family's engine header), so
//   the glue (-Og, one unity translation unit by default) compiles no engine loop. A list no other file shares
//   lives in its family's binding file (lbfgs.cpp, linear.cpp, fol.cpp, mkl_blocks.cpp: under RCB_KERNELS the
//   file is only that list, and CMake generates its kernels unit); the lists below are shared (the fused
//   path's kernels name the VR and feature-map lists; mkl.cpp and mkl_banks.cpp share MKL's), each
//   instantiated by its hand-written kernels_<family>.cpp. To bind a new engine template: add its signature
//   to its family's list.
// - rcb::views: the data views and models every list names.
// - rcb::kernels, below: out-of-line copies of the inline engine functions the glue calls on data.
#pragma once

#include <robustcore/any_loss.hpp>
#include <robustcore/data.hpp>
#include <robustcore/model.hpp>
#include <robustcore/result.hpp>

namespace robustcore {
class FactoredBank;
class FusedView;
}

namespace rcb::views {
// Macro arguments take no commas: one name per view.
using DenseF64 = robustcore::DenseView;
using DenseF32 = robustcore::BasicDenseView<float>;
using CsrF64 = robustcore::CsrView<int64_t>;
using CsrF32 = robustcore::CsrView<int64_t, float>;
using Binary = robustcore::BinaryModel<robustcore::AnySmoothLoss>;  // the VR solvers' binary model
}  // namespace rcb::views

// Variance-reduced solvers: float64 views, the binary and the softmax model.
#define RCB_VR_VIEW_MODEL(PREFIX, V, M)                                                                          \
  PREFIX template Result vr::fit<M, V>(const V&, const M&, const vr::VrParams&, double*, double*, const int64_t*, \
                                       int64_t, const ProgressFn&, EvalSet<M, V>);
#define RCB_VR_VIEW(PREFIX, V)                                     \
  RCB_VR_VIEW_MODEL(PREFIX, V, ::rcb::views::Binary)               \
  RCB_VR_VIEW_MODEL(PREFIX, V, ::robustcore::SoftmaxModel)         \
  PREFIX template double vr::step_size<::rcb::views::Binary, V>(const V&, const ::rcb::views::Binary&, \
                                                                const vr::VrParams&);
#define RCB_VR_INSTANCES(PREFIX)              \
  RCB_VR_VIEW(PREFIX, ::rcb::views::DenseF64) \
  RCB_VR_VIEW(PREFIX, ::rcb::views::CsrF64)

// Multiple kernel learning: the solver over each bank type, the Gaussian bank in each storage type.
#define RCB_MKL_BANK(PREFIX, B)                                                                                \
  PREFIX template mkl::MklResult mkl::solve<B>(const B&, const double*, const mkl::Options&, double*, double*, \
                                               const ProgressFn&, const double*);
#define RCB_MKL_INSTANCES(PREFIX)                                                                          \
  RCB_MKL_BANK(PREFIX, ::robustcore::mkl::KernelBank<double>)                                              \
  RCB_MKL_BANK(PREFIX, ::robustcore::mkl::KernelBank<float>)                                               \
  RCB_MKL_BANK(PREFIX, ::robustcore::FactoredBank)                                                         \
  PREFIX template void mkl::gaussian_bank<double>(const double*, int64_t, const double*, int64_t, int64_t,     \
                                                  const double*, int64_t, double*);                            \
  PREFIX template void mkl::gaussian_bank<float>(const double*, int64_t, const double*, int64_t, int64_t,      \
                                                 const double*, int64_t, float*);

// Feature maps (kernel approximation): the block method and the threaded transform of any map of the
// registry (feature_maps.hpp's FeatureMaps, dispatched once per call), every view: a map added to the
// registry is compiled here without an edit.
#define RCB_FMAP_VIEW(PREFIX, V)                                                                               \
  PREFIX template void feature_maps::map_rows_any<V>(const feature_maps::MapRef&, const V&, int64_t, int64_t, \
                                                     V::Scalar*, int64_t);                                     \
  PREFIX template void feature_maps::transform_any<V>(const feature_maps::MapRef&, const V&, V::Scalar*, int,  \
                                                      int64_t);
#define RCB_FMAP_INSTANCES(PREFIX)              \
  RCB_FMAP_VIEW(PREFIX, ::rcb::views::DenseF64) \
  RCB_FMAP_VIEW(PREFIX, ::rcb::views::CsrF64)   \
  RCB_FMAP_VIEW(PREFIX, ::rcb::views::DenseF32) \
  RCB_FMAP_VIEW(PREFIX, ::rcb::views::CsrF32)

// The fused path (fused_view.hpp): one SGD loop, one eta0 calibration and the variance-reduced methods of
// the binary model over the mapped rows (FusedView holds every map and base view behind variants).
#define RCB_FUSED_INSTANCES(PREFIX)                                                                           \
  PREFIX template Result fused_sgd_fit<AnyLoss>(const FusedView&, const double*, const double*, const AnyLoss&, \
                                                SgdParams, SgdState&, const ProgressFn&);                       \
  PREFIX template double calibrate_eta0<AnyLoss, FusedView>(const FusedView&, const double*, const double*,    \
                                                            const AnyLoss&, double, bool, double, uint64_t, int64_t); \
  RCB_VR_VIEW_MODEL(PREFIX, ::robustcore::FusedView, ::rcb::views::Binary)

// Inline engine functions (class members, non-templates) that the glue calls directly and that do real
// work: one out-of-line copy of each, compiled with its kernels_*.cpp (-O3 / -O2), which the glue calls
// (at -Og the glue would inline its own, unvectorised copy).
namespace rcb::kernels {
// kernels_data.cpp: the data views' checks, O(n d) / O(nnz), once per Matrix (data.cpp).
void validate(const views::DenseF64& v);
void validate(const views::DenseF32& v);
void validate(const views::CsrF64& v, int64_t data_len, int64_t indices_len);
void validate(const views::CsrF32& v, int64_t data_len, int64_t indices_len);
// kernels_data.cpp: robustcore::validate_csr_structure over scipy's index arrays (int32 / int64 each),
// O(nnz), once per sparse input (_core.check_csr_structure).
template <class IP, class Idx>
void csr_structure(const IP* indptr, int64_t indptr_len, const Idx* indices, int64_t indices_len, int64_t data_len,
                   int64_t n_rows, int64_t n_cols);
// kernels_data.cpp: the loss's value and derivative at each of n margins (LossSpec.value_deriv).
void value_deriv(const robustcore::LossSpec& loss, const double* z, int64_t n, double* value, double* deriv);
// kernels_mkl.cpp: the kernel banks (mkl_banks.cpp).
void gaussian_bank_decision(const double* Xt, int64_t nt, const double* Xtr, int64_t n, int64_t d,
                            const double* widths, int64_t nw, const double* coef, double* out);
robustcore::FactoredBank gaussian_bank_factored(const double* X, int64_t n, int64_t d, const double* widths,
                                                int64_t nw, double tol, int64_t max_rank, int64_t max_bytes,
                                                const robustcore::ProgressFn& progress);
void apply_each(const robustcore::FactoredBank& bank, const double* C, double* G);
void quad(const robustcore::FactoredBank& bank, const double* v, double* q);
void combine(const robustcore::FactoredBank& bank, const double* w, double* out);
void to_dense(const robustcore::FactoredBank& bank, double* out);
robustcore::FactoredBank subset(const robustcore::FactoredBank& bank, const int64_t* idx, int64_t k);
}  // namespace rcb::kernels
