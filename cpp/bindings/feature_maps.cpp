// Bindings: the kernel-approximation feature maps (feature_maps.hpp). Each map is a class built from its
// fitted parameters (numpy arrays, copied); transform / map_rows write into a caller-provided array of
// the data's scalar (float32 data: float32 features), without the GIL and with the Ctrl-C poll.
#include "common.hpp"
#include "instances.hpp"

#include <robustcore/blas.hpp>
#include <robustcore/feature_maps.hpp>

namespace robustcore {
RCB_FMAP_INSTANCES(extern)  // compiled in kernels_feature_maps.cpp
}  // namespace robustcore

namespace rcb {

namespace {

namespace fm = robustcore::feature_maps;

const double* fmap_matrix(const F64& a, int64_t rows, int64_t cols, const char* name) {
  if (a.ndim() != 2 || (rows >= 0 && a.shape(0) != rows) || (cols >= 0 && a.shape(1) != cols))
    throw std::invalid_argument(std::string(name) + " must be a 2-d float64 array of shape (" + std::to_string(rows) +
                                ", " + std::to_string(cols) + ")");
  return a.data();
}

/// The output array as the view's scalar: C-contiguous, writeable, shape (rows, >= D); returns (ptr, ld).
template <class T>
std::pair<T*, int64_t> fmap_out(py::array& out, int64_t rows, int64_t D) {
  using A = py::array_t<T, py::array::c_style>;
  if (!py::isinstance<A>(out))
    throw std::invalid_argument(std::string("out must be a C-contiguous ") +
                                (std::is_same_v<T, float> ? "float32" : "float64") + " array (the data's dtype)");
  A a = py::reinterpret_borrow<A>(out);
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) < D)
    throw std::invalid_argument("out must have shape (" + std::to_string(rows) + ", " + std::to_string(D) + ")");
  return {a.mutable_data(), static_cast<int64_t>(a.shape(1))};
}

template <class Map>
void fmap_transform(const Map& map, const Matrix& X, py::array out, int n_threads, int64_t block_rows) {
  visit_matrix<kFloat32>(X, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    auto [o, ld] = fmap_out<T>(out, v.rows(), map.n_components());
    if (ld != map.n_components()) throw std::invalid_argument("out must have exactly n_components columns");
    Interrupts().run([&, o = o] {
      fm::transform_any(fm::MapRef(&map), v, o, n_threads, block_rows);
      return 0;
    });
    return 0;
  });
}

template <class Map>
void fmap_map_rows(const Map& map, const Matrix& X, int64_t lo, int64_t hi, py::array out) {
  visit_matrix<kFloat32>(X, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    auto [o, ld] = fmap_out<T>(out, hi - lo, map.n_components());
    py::gil_scoped_release nogil;
    fm::map_rows_any(fm::MapRef(&map), v, lo, hi, o, ld);
    return 0;
  });
}

/// What every map's class has: its shape, transform and map_rows.
template <class Map>
void fmap_common(py::class_<Map>& cls) {
  cls.def_property_readonly("n_features", &Map::n_features)
      .def_property_readonly("n_components", &Map::n_components)
      .def("transform", &fmap_transform<Map>, py::arg("X"), py::arg("out"), py::arg("n_threads") = 1,
           py::arg("block_rows") = 0,
           "out[i] = z(X[i]) for every row, on n_threads threads in blocks of block_rows rows (0: about 16 MiB "
           "of output, at most 4096 rows); out: (n, n_components), the data's dtype")
      .def("map_rows", &fmap_map_rows<Map>, py::arg("X"), py::arg("lo"), py::arg("hi"), py::arg("out"),
           "out[i - lo, :n_components] = z(X[i]) for lo <= i < hi (the engine's block method); out: (hi - lo, >= "
           "n_components), the data's dtype");
}

fm::KernelKind fmap_kind(const std::string& k) {
  if (k == "rbf") return fm::KernelKind::Rbf;
  if (k == "laplacian") return fm::KernelKind::Laplacian;
  if (k == "polynomial") return fm::KernelKind::Polynomial;
  throw std::invalid_argument("kernel must be 'rbf', 'laplacian' or 'polynomial', got '" + k + "'");
}

// Each map's own part of its class (its constructor from its fitted parameters, its docstring, anything
// only it has): one overload per map of the registry, so a map without one does not compile.
void def_map(py::class_<fm::RandomFourierMap>& cls) {
  cls.doc() = "z(x) = scale cos(x W + b), W (n_features, n_components) (feature_maps.hpp)";
  cls.def(py::init([](const F64& W, const F64& b, double scale) {
            if (W.ndim() != 2) throw std::invalid_argument("W must be 2-d (n_features, n_components)");
            const int64_t d = W.shape(0), D = W.shape(1);
            return fm::RandomFourierMap(W.data(), checked_const(b, D, "b"), d, D, scale);
          }),
          py::arg("W").noconvert(), py::arg("b").noconvert(), py::arg("scale"));
}

void def_map(py::class_<fm::NystroemMap>& cls) {
  cls.doc() = "z(x) = k(x, landmarks) normalization^T (feature_maps.hpp)";
  cls.def(py::init([](const std::string& kernel, double gamma, double coef0, double degree, const F64& landmarks,
                      const F64& normalization) {
            const double* L = fmap_matrix(landmarks, -1, -1, "landmarks");
            const int64_t mm = landmarks.shape(0), d = landmarks.shape(1);
            if (normalization.ndim() != 2) throw std::invalid_argument("normalization must be 2-d");
            const int64_t D = normalization.shape(0);
            const double* N = fmap_matrix(normalization, D, mm, "normalization");
            return fm::NystroemMap(fmap_kind(kernel), gamma, coef0, degree, L, mm, d, N, D);
          }),
          py::arg("kernel"), py::arg("gamma"), py::arg("coef0"), py::arg("degree"), py::arg("landmarks").noconvert(),
          py::arg("normalization").noconvert());
}

void def_map(py::class_<fm::KernelBankMap>& cls) {
  cls.doc() = "Blocks of maps, one per base kernel, over all features or one (feature_maps.hpp)";
  cls.def(py::init<int64_t>(), py::arg("n_features"));
  fm::for_each_map<fm::KernelMaps>([&](auto tag) {  // add(feature, map) for every map of one kernel
    using M = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    cls.def("add", [](fm::KernelBankMap& b, int64_t feature, const M& mp) { b.add(feature, mp); }, py::arg("feature"),
            py::arg("map"), "appends a block: feature -1 (all features) or one feature's index");
  });
  cls.def_property_readonly("n_blocks", &fm::KernelBankMap::n_blocks)
      .def_property_readonly("offsets", [](const fm::KernelBankMap& b) {
        py::array_t<int64_t> r(b.n_blocks() + 1);
        for (int64_t j = 0; j < b.n_blocks(); ++j) r.mutable_data()[j] = b.offset(j);
        r.mutable_data()[b.n_blocks()] = b.n_components();
        return r;
      }, "block j's columns are offsets[j]:offsets[j + 1]");
}

/// The function a PyCapsule holds (scipy.linalg.cython_blas's __pyx_capi__ entries), or null for None.
template <class Fn>
Fn* capsule_function(const py::object& c, const char* name) {
  if (c.is_none()) return nullptr;
  if (!PyCapsule_CheckExact(c.ptr())) throw py::type_error(std::string(name) + " must be a PyCapsule or None");
  void* p = PyCapsule_GetPointer(c.ptr(), PyCapsule_GetName(c.ptr()));
  if (p == nullptr) throw py::error_already_set();
  return reinterpret_cast<Fn*>(p);
}

}  // namespace

// One class per map of the registry (feature_maps.hpp's FeatureMaps), named by the map.
void bind_feature_maps(py::module_& m) {
  m.def("set_blas", [](const py::object& dgemm, const py::object& sgemm) {
        robustcore::blas::set_gemm(capsule_function<robustcore::blas::GemmFn<double>>(dgemm, "dgemm"),
                                   capsule_function<robustcore::blas::GemmFn<float>>(sgemm, "sgemm"));
      }, py::arg("dgemm"), py::arg("sgemm"),
      "registers the Fortran-ABI dgemm / sgemm (LP64) the engine's dense products call (blas.hpp): capsules "
      "such as scipy.linalg.cython_blas.__pyx_capi__['dgemm']; None: the engine's own product for that scalar");
  m.def("blas_registered", [] {
        return py::make_tuple(robustcore::blas::registered_gemm<double>() != nullptr,
                              robustcore::blas::registered_gemm<float>() != nullptr);
      }, "(dgemm registered, sgemm registered)");
  m.def("simd_level", [] { return robustcore::simd_level_name(robustcore::simd_level()); },
        "the instruction level the engine's vectorised loops run at (the feature maps' cosine and exponential, the "
        "log loss over blocks of rows): 'baseline', 'avx2' or 'avx512' (simd.hpp; capped by the environment "
        "variable ROBUSTCORE_SIMD, read once)");
  fm::for_each_map<fm::FeatureMaps>([&](auto tag) {
    using M = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    py::class_<M> cls(m, M::name);
    fmap_common(cls);
    def_map(cls);
  });
}

}  // namespace rcb

RCB_REGISTER(feature_maps, Solvers)
