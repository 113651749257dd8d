// Bindings: StPMKL in the primal over a KernelBankMap's feature blocks (mkl_blocks.hpp), and its memory plan.
// The family's engine instantiations live here too (RCB_MKL_BLOCKS_INSTANCES): with RCB_KERNELS defined this file
// compiles only them (CMakeLists.txt generates kernels_mkl_blocks.cpp, the define and an #include of this file,
// built at the kernels' optimisation); without it, the bindings, which see them `extern`, and their
// registration.
#include <robustcore/mkl_blocks.hpp>

#include "instances.hpp"

// StPMKL over feature blocks (mkl_blocks.hpp): the bank map on every view.
#define RCB_MKL_BLOCKS_VIEW(PREFIX, V)                                                                          \
  PREFIX template mkl::MklResult mkl::solve_blocks<feature_maps::KernelBankMap, V>(                           \
      const feature_maps::KernelBankMap&, const V&, const double*, const mkl::Options&, int64_t, double*, double*, \
      const ProgressFn&, const double*, int64_t);
#define RCB_MKL_BLOCKS_INSTANCES(PREFIX)              \
  RCB_MKL_BLOCKS_VIEW(PREFIX, ::rcb::views::DenseF64) \
  RCB_MKL_BLOCKS_VIEW(PREFIX, ::rcb::views::CsrF64)   \
  RCB_MKL_BLOCKS_VIEW(PREFIX, ::rcb::views::DenseF32) \
  RCB_MKL_BLOCKS_VIEW(PREFIX, ::rcb::views::CsrF32)

#ifdef RCB_KERNELS
namespace robustcore {
RCB_MKL_BLOCKS_INSTANCES()
}  // namespace robustcore
#else
#include "common.hpp"

namespace robustcore {
RCB_MKL_BLOCKS_INSTANCES(extern)  // compiled in kernels_mkl_blocks.cpp (generated)
}  // namespace robustcore

namespace rcb {

void bind_mkl_blocks(py::module_& m) {
  namespace mk = robustcore::mkl;
  m.def(
      "mkl_blocks_plan",
      [](int64_t n, int64_t D, int64_t scalar_bytes, int64_t n_threads, int64_t max_bytes) {
        const mk::BlockPlan p = mk::plan_blocks(n, D, scalar_bytes, n_threads, max_bytes);
        py::dict d;
        d["chunk_rows"] = p.chunk_rows;
        d["n_groups"] = p.n_groups;
        d["fixed_bytes"] = p.fixed_bytes;
        d["cached_rows"] = p.cached_rows;
        d["cache_bytes"] = p.cache_bytes;
        return d;
      },
      py::arg("n"), py::arg("D"), py::arg("scalar_bytes"), py::arg("n_threads"), py::arg("max_bytes"),
      "The memory plan of mkl_blocks_solve (plan_blocks): MemoryError when its own arrays pass max_bytes.");
  m.def(
      "mkl_blocks_solve",
      [](const robustcore::feature_maps::KernelBankMap& map, const Matrix& X, const F64& y, const mk::Options& opt,
         int64_t max_bytes, F64 w, F64 dual, py::object progress, const std::optional<F64>& sample_weight) {
        const int64_t n = X.rows();
        const double* yp = checked_const(y, n, "y");
        double* wp = checked(w, map.n_components(), "w");
        double* dp = checked(dual, n, "dual");
        const double* sw = sample_weight ? checked_const(*sample_weight, n, "sample_weight") : nullptr;
        Progress prog(std::move(progress));
        return visit_matrix<kFloat32>(X, [&](const auto& v) {
          return prog.run([&] { return mk::solve_blocks(map, v, yp, opt, max_bytes, wp, dp, prog.fn(), sw); });
        });
      },
      py::arg("map"), py::arg("X"), py::arg("y").noconvert(), py::arg("options"), py::arg("max_bytes"),
      py::arg("w").noconvert(), py::arg("dual").noconvert(), py::arg("progress") = py::none(),
      py::arg("sample_weight").noconvert() = py::none(),
      "StPMKL on problem (11) over the map's feature blocks (one per base kernel): writes the averaged weights "
      "into w (D) and dual variables into dual (n); max_bytes bounds the solver's memory (rows cached while they "
      "fit).");
}

}  // namespace rcb

RCB_REGISTER(mkl_blocks, Extensions)  // takes KernelBankMap (feature_maps.cpp), MklOptions (mkl.cpp)
#endif  // RCB_KERNELS
