// google-benchmark: one loss value + derivative per call (value_deriv shares the exp), per loss.
#include <benchmark/benchmark.h>

#include <robustcore/losses.hpp>
#include <robustcore/rng.hpp>

#include <vector>

namespace {

template <class Loss>
void BM_value_deriv(benchmark::State& state, Loss loss) {
  robustcore::Rng rng(0);
  std::vector<double> z(4096);
  for (auto& x : z) x = 6.0 * rng.uniform() - 3.0;  // margins around the interesting region
  size_t i = 0;
  double acc = 0.0;
  for (auto _ : state) {
    double v, d;
    loss.value_deriv(z[i], v, d);
    acc += v + d;
    i = (i + 1) & 4095;
  }
  benchmark::DoNotOptimize(acc);
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK_CAPTURE(BM_value_deriv, hinge, robustcore::Hinge{});
BENCHMARK_CAPTURE(BM_value_deriv, squared_hinge, robustcore::SquaredHinge{});
BENCHMARK_CAPTURE(BM_value_deriv, log, robustcore::Logistic{});
BENCHMARK_CAPTURE(BM_value_deriv, modified_huber, robustcore::ModifiedHuber{});
BENCHMARK_CAPTURE(BM_value_deriv, ramp, robustcore::Ramp{-1.0});
BENCHMARK_CAPTURE(BM_value_deriv, sramp, robustcore::SmoothRamp{-1.0, 2.65, 0.0});
BENCHMARK_CAPTURE(BM_value_deriv, rgomp, robustcore::ReversedGompertz{2.0});

BENCHMARK_MAIN();
