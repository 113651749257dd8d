// google-benchmark: SAGA and SVRG steps on a generated sparse problem (items = nonzeros visited by the
// steps, so rates read as nonzeros per second), next to the floor of one in-order dot-product pass.
// SAGA: 5 effective passes (1 table pass + 4 step passes); SVRG (a): 2 outer iterations of n steps.
// Rows x features x nonzeros-per-row are the arguments (default 200,000 x 50,000 x 40). The
// *_runtime_loss cases run the same kernels with the loss chosen at run time (AnySmoothLoss).
#include <benchmark/benchmark.h>

#include <robustcore/any_loss.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/vr.hpp>

#include "synthetic.hpp"

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

template <class Loss>
void BM_vr(benchmark::State& state, Loss loss, robustcore::vr::Method method, int64_t passes, int64_t step_passes) {
  const auto& p = bench::problem(state.range(0), state.range(1), state.range(2));
  robustcore::vr::VrParams prm;
  prm.method = method;
  prm.lambda = 1e-4;
  prm.max_iter = passes;
  prm.record_history = false;
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

}  // namespace

#define SIZES ->Args({200000, 50000, 40})->Unit(benchmark::kMillisecond)
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

BENCHMARK_MAIN();
