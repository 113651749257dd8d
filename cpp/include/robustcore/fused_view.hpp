// The fused path of kernel approximation (issue 31): a data view whose rows are the features z(x_i) of a
// feature map (feature_maps.hpp) over a base view, computed batch by batch, so a solver trains on them
// without the n x D feature matrix.
//
// FusedView follows data.hpp's view contract (rows(), cols(), row(i) a DenseRow, prefetch_*), so the
// solvers' own loops run on it unchanged: the SGD epochs (fused_sgd.hpp) and every variance-reduced
// method through vr::fit (vr.hpp; the bindings instantiate vr::fit<BinaryModel<AnySmoothLoss>, FusedView>).
// Those loops call prefetch_ahead(X, idx, k, m) before they read row idx[k] of a pass; for a FusedView
// that call is the staging hook: at the start of each batch of `batch` positions of the pass order it
// gathers those base rows and maps them (map_rows, on n_threads threads) into one batch x D buffer, from
// which row(idx[k]) is served. Any other access (the monitor's in-order history pass, the step size's
// max ||z_i||^2, a warm start's or an SVRG snapshot's in-order pass, the eta0 calibration's sample) maps
// on demand: the next `batch` rows when the reads go in order, else a single row.
// Memory: O(batch (D + d)) beyond the data and the map's own O(D d) (RFF) / O(m (d + D)) (Nystroem).
//
// The features equal transform()'s within rounding: the maps' products go through blas::gemm (blas.hpp),
// whose BLAS may sum a row's terms in an order that depends on the block it is mapped in (same bits with
// the baseline product, which sums every feature from its own row in a fixed order). A float32 base view is mapped in float32 (transform's values for float32 data) and widened
// to double, exactly as the solvers widen a float32 row's values (data.hpp's row functions).
// Not with Shuffle::Block (a copy of the data in a shuffled order): fused_sgd_fit refuses it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <variant>
#include <vector>

#include "data.hpp"
#include "feature_maps.hpp"
#include "parallel.hpp"
#include "sampler.hpp"

namespace robustcore {

/// The mapped rows of a base view (see the top of this file). One type for every map and base view (a
/// variant each, dispatched once per batch), so the bindings compile one loop per solver for the fused path.
class FusedView {
 public:
  using Scalar = double;
  using Row = DenseRow;
  static constexpr bool is_sparse = false;
  using AnyMap = feature_maps::KernelMaps::Any;  ///< any map of one kernel (feature_maps.hpp's registry)
  using AnyBase = std::variant<DenseView, CsrView<int64_t>, BasicDenseView<float>, CsrView<int64_t, float>>;

  FusedView(const AnyMap& map, const AnyBase& X, int64_t batch = 256, int n_threads = 1)
      : map_(&map), X_(X), batch_(batch), threads_(n_threads) {
    if (batch < 1) throw std::invalid_argument("fused: batch must be >= 1");
    if (n_threads < 1) throw std::invalid_argument("fused: n_threads must be >= 1");
    n_ = std::visit([](const auto& v) { return v.rows(); }, X_);
    d_ = std::visit([](const auto& v) { return v.cols(); }, X_);
    D_ = std::visit([](const auto& m) { return m.n_components(); }, map);
    const int64_t md = std::visit([](const auto& m) { return m.n_features(); }, map);
    if (md != d_) throw std::invalid_argument("fused: X and the map have different numbers of features");
    buf_.resize(static_cast<size_t>(batch_ * D_));
    miss_.resize(static_cast<size_t>(batch_ * D_));
    ids_.resize(static_cast<size_t>(batch_));
  }
  FusedView(const FusedView&) = delete;  // the buffers are the view's state: no copies in flight

  int64_t rows() const { return n_; }
  int64_t cols() const { return D_; }
  int64_t nnz() const { return n_ * D_; }
  int64_t batch() const { return batch_; }
  void prefetch_pointer(int64_t) const {}
  void prefetch_row(int64_t) const {}

  /// The staging hook (prefetch_ahead): position k of the pass idx[0..m) is read next.
  void stage(const int64_t* idx, int64_t k, int64_t m) const {
    if (k == 0 || k < lo_ || k >= hi_ || ids_[static_cast<size_t>(k - lo_)] != idx[k]) {
      lo_ = k;
      hi_ = std::min(m, k + batch_);
      for (int64_t q = lo_; q < hi_; ++q) ids_[static_cast<size_t>(q - lo_)] = idx[q];
      map_gathered(ids_.data(), hi_ - lo_, buf_.data());
    }
    pos_ = k - lo_;
  }

  Row row(int64_t i) const {
    if (pos_ >= 0 && pos_ < hi_ - lo_ && ids_[static_cast<size_t>(pos_)] == i)
      return Row{buf_.data() + pos_ * D_, D_};
    // on demand: a row of the last miss block, or a new block (in-order reads) / row (random reads)
    if (i < miss_lo_ || i >= miss_hi_) {
      const int64_t len = (i == last_ + 1) ? std::min(batch_, n_ - i) : 1;
      miss_rows_.resize(static_cast<size_t>(len));
      for (int64_t q = 0; q < len; ++q) miss_rows_[static_cast<size_t>(q)] = i + q;
      map_gathered(miss_rows_.data(), len, miss_.data());
      miss_lo_ = i;
      miss_hi_ = i + len;
    }
    last_ = i;
    return Row{miss_.data() + (i - miss_lo_) * D_, D_};
  }

 private:
  /// Gathered copies of base rows, in the base view's scalar, and (float32) the features before widening.
  template <class T>
  struct Scratch {
    std::vector<T> dense, val, features;
    std::vector<int32_t> idx;
    std::vector<int64_t> ptr;
  };

  /// The features of base rows rows[0..len) into out (len x D), on the view's threads.
  void map_gathered(const int64_t* rows, int64_t len, double* out) const {
    std::visit(
        [&](const auto& X) {
          using V = std::decay_t<decltype(X)>;
          using T = typename V::Scalar;
          Scratch<T>& s = scratch<T>();
          T* dst;
          if constexpr (std::is_same_v<T, double>) {
            dst = out;
          } else {
            s.features.resize(static_cast<size_t>(len * D_));
            dst = s.features.data();
          }
          if constexpr (V::is_sparse) {
            s.ptr.assign(1, 0);
            s.val.clear();
            s.idx.clear();
            for (int64_t q = 0; q < len; ++q) {
              const auto r = X.row(rows[q]);
              s.val.insert(s.val.end(), r.val, r.val + r.nnz);
              s.idx.insert(s.idx.end(), r.idx, r.idx + r.nnz);
              s.ptr.push_back(static_cast<int64_t>(s.val.size()));
            }
            run_map(CsrView<int64_t, T>{s.val.data(), s.idx.data(), s.ptr.data(), len, d_}, len, dst);
          } else {
            s.dense.resize(static_cast<size_t>(len * d_));
            for (int64_t q = 0; q < len; ++q)
              std::copy(X.data + rows[q] * d_, X.data + (rows[q] + 1) * d_, s.dense.data() + q * d_);
            run_map(BasicDenseView<T>{s.dense.data(), len, d_}, len, dst);
          }
          if constexpr (!std::is_same_v<T, double>)
            for (int64_t q = 0; q < len * D_; ++q) out[q] = static_cast<double>(dst[q]);
        },
        X_);
  }
  template <class V>
  void run_map(const V& G, int64_t len, typename V::Scalar* out) const {
    const int P = static_cast<int>(std::min<int64_t>(threads_, std::max<int64_t>(1, len / 16)));
    // through map_rows_any: the one compiled block method of every map per view (kernels_feature_maps.cpp)
    const feature_maps::MapRef ref = std::visit([](const auto& mp) { return feature_maps::MapRef(&mp); }, *map_);
    if (P <= 1) return feature_maps::map_rows_any(ref, G, 0, len, out, D_);
    run_tasks(P, [&](int p) {
      const int64_t a = len * p / P, b = len * (p + 1) / P;
      feature_maps::map_rows_any(ref, G, a, b, out + a * D_, D_);
    });
  }
  template <class T>
  Scratch<T>& scratch() const {
    if constexpr (std::is_same_v<T, double>) return s64_;
    else return s32_;
  }

  const AnyMap* map_;
  AnyBase X_;
  int64_t batch_ = 256, n_ = 0, d_ = 0, D_ = 0;
  int threads_ = 1;
  mutable std::vector<double> buf_, miss_;
  mutable std::vector<int64_t> ids_, miss_rows_;
  mutable Scratch<double> s64_;
  mutable Scratch<float> s32_;
  mutable int64_t lo_ = 0, hi_ = 0, pos_ = -1, miss_lo_ = 0, miss_hi_ = 0, last_ = -2;
};

/// The fused view's staging hook, found by argument-dependent lookup from the solvers' loops.
inline void prefetch_ahead(const FusedView& X, const int64_t* idx, int64_t k, int64_t n) { X.stage(idx, k, n); }

}  // namespace robustcore
