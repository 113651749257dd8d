// google-benchmark: SAGA and SVRG steps on a generated sparse problem (items = nonzeros visited by the
// steps, so rates read as nonzeros per second), next to the floor of one in-order dot-product pass.
// SAGA: 5 effective passes (1 table pass + 4 step passes); SVRG (a): 2 outer iterations of n steps.
// Rows x features x nonzeros-per-row are the arguments (default 200,000 x 50,000 x 40). The
// *_runtime_loss cases run the same kernels with the loss chosen at run time (AnySmoothLoss).
// BM_vr_dense (issue 42): SAGA / SAG / SVRG passes on generated dense rows (3,200 x 20 and 100,000 x 100), through
// the dense view (the dense-row weight store, lazy_weights.hpp's WeightStore) and the same rows stored as CSR
// with every column (the lazy store with its just-in-time catch-up): the cost of that machinery on dense rows.
// items = stored values visited by all the passes (table / snapshot passes included).
#include <benchmark/benchmark.h>

#include <robustcore/any_loss.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/vr.hpp>

#include "synthetic.hpp"
#include "sizes.hpp"

#include <algorithm>
#include <vector>

namespace {

void BM_floor_dot_pass(benchmark::State& state) {
  const auto& p = bench::problem(state.range(0), state.range(1), state.range(2));
  std::vector<double> w(static_cast<size_t>(p.X.cols()), 0.1);
  for (auto _ : state) {
    double s = 0.0;
    for (int64_t i = 0; i < p.X.rows(); ++i) s += robustcore::dot(p.X.row(i), w.data());
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * p.X.nnz());
}

/// Every case's solver settings: ``method`` for ``passes`` effective passes, lambda 1e-4, no history.
robustcore::vr::VrParams params(robustcore::vr::Method method, int64_t passes) {
  robustcore::vr::VrParams prm;
  prm.method = method;
  prm.lambda = 1e-4;
  prm.max_iter = passes;
  prm.record_history = false;
  return prm;
}

template <class Loss>
void BM_vr(benchmark::State& state, Loss loss, robustcore::vr::Method method, int64_t passes, int64_t step_passes) {
  const auto& p = bench::problem(state.range(0), state.range(1), state.range(2));
  const auto prm = params(method, passes);
  std::vector<double> w(static_cast<size_t>(p.X.cols()));
  for (auto _ : state) {
    std::fill(w.begin(), w.end(), 0.0);
    double b = 0.0;
    auto r = robustcore::vr::fit(p.X, robustcore::BinaryModel<Loss>{loss, p.y.data()}, prm, w.data(), &b);
    benchmark::DoNotOptimize(r.n_iter);
  }
  // nonzeros visited by the stochastic steps (the table / snapshot passes are included in the time)
  state.SetItemsProcessed(state.iterations() * p.X.nnz() * step_passes);
}

void BM_vr_dense(benchmark::State& state, bool as_csr, robustcore::vr::Method method, int64_t passes) {
  const auto& p = bench::dense_problem(state.range(0), state.range(1));
  const auto prm = params(method, passes);
  std::vector<double> w(static_cast<size_t>(p.X.cols()));
  const robustcore::BinaryModel<robustcore::Logistic> model{robustcore::Logistic{}, p.y.data()};
  for (auto _ : state) {
    std::fill(w.begin(), w.end(), 0.0);
    double b = 0.0;
    robustcore::Result r;
    if (as_csr) r = robustcore::vr::fit(p.csr, model, prm, w.data(), &b);
    else r = robustcore::vr::fit(p.X, model, prm, w.data(), &b);
    benchmark::DoNotOptimize(r.n_iter);
  }
  state.SetItemsProcessed(state.iterations() * p.X.nnz() * passes);
}

}  // namespace

#define SIZES ->Args({bench::rows(200000), 50000, 40})->Unit(benchmark::kMillisecond)
BENCHMARK(BM_floor_dot_pass) SIZES;
using robustcore::vr::Method;
const robustcore::Logistic kLog;
BENCHMARK_CAPTURE(BM_vr, saga_5passes, kLog, Method::Saga, 5, 4) SIZES;
BENCHMARK_CAPTURE(BM_vr, sag_5passes, kLog, Method::Sag, 5, 4) SIZES;
BENCHMARK_CAPTURE(BM_vr, svrg_2outer, kLog, Method::Svrg, 4, 2) SIZES;
// the same kernels with the loss chosen at run time (any_loss.hpp): the cost of one loop for every loss
const robustcore::AnySmoothLoss kAnyLog{robustcore::LossSpec{robustcore::LossKind::Log}};
BENCHMARK_CAPTURE(BM_vr, saga_5passes_runtime_loss, kAnyLog, Method::Saga, 5, 4) SIZES;
BENCHMARK_CAPTURE(BM_vr, sag_5passes_runtime_loss, kAnyLog, Method::Sag, 5, 4) SIZES;
BENCHMARK_CAPTURE(BM_vr, svrg_2outer_runtime_loss, kAnyLog, Method::Svrg, 4, 2) SIZES;

// dense rows: the dense store (dense view) against the lazy store (the same rows as full CSR)
#define DENSE_SIZES ->Args({bench::rows(3200, 32), 20})->Args({bench::rows(100000), 100})->Unit(benchmark::kMicrosecond)
BENCHMARK_CAPTURE(BM_vr_dense, saga_dense_5passes, false, Method::Saga, 5) DENSE_SIZES;
BENCHMARK_CAPTURE(BM_vr_dense, saga_full_csr_5passes, true, Method::Saga, 5) DENSE_SIZES;
BENCHMARK_CAPTURE(BM_vr_dense, sag_dense_5passes, false, Method::Sag, 5) DENSE_SIZES;
BENCHMARK_CAPTURE(BM_vr_dense, sag_full_csr_5passes, true, Method::Sag, 5) DENSE_SIZES;
BENCHMARK_CAPTURE(BM_vr_dense, svrg_dense_2outer, false, Method::Svrg, 4) DENSE_SIZES;
BENCHMARK_CAPTURE(BM_vr_dense, svrg_full_csr_2outer, true, Method::Svrg, 4) DENSE_SIZES;

BENCHMARK_MAIN();
