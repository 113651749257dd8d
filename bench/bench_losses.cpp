// google-benchmark: one loss value + derivative per call (value_deriv shares the exp), per loss; and the log
// loss's value and derivative over a block of margins (value_deriv_n, what L-BFGS and Newton evaluate) at each
// instruction level this CPU has (log_block/<level>; a level the CPU lacks is skipped; items = margins).
#include <benchmark/benchmark.h>

#include <robustcore/losses.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/simd.hpp>

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

using Level = robustcore::SimdLevel;

void BM_log_block(benchmark::State& state, Level level) {
  if (robustcore::simd_level() < level)
    return state.SkipWithError("this CPU (or ROBUSTCORE_SIMD) does not allow the level");
  const int64_t n = state.range(0);
  robustcore::Rng rng(0);
  std::vector<double> z(static_cast<size_t>(n)), v(z.size()), d(z.size());
  for (auto& x : z) x = 20.0 * rng.uniform() - 10.0;
  for (auto _ : state) {
    switch (level) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
      case Level::Avx512: robustcore::detail::logistic_value_deriv_v4(z.data(), v.data(), d.data(), n); break;
      case Level::Avx2: robustcore::detail::logistic_value_deriv_v3(z.data(), v.data(), d.data(), n); break;
#endif
      default: robustcore::detail::logistic_value_deriv_loop(z.data(), v.data(), d.data(), n);
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::DoNotOptimize(d.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

}  // namespace

// 4 Ki margins (a few of evaluate_rows' 64-row blocks' worth, in L1)
BENCHMARK_CAPTURE(BM_log_block, baseline, Level::Baseline)->Arg(4096);
BENCHMARK_CAPTURE(BM_log_block, avx2, Level::Avx2)->Arg(4096);
BENCHMARK_CAPTURE(BM_log_block, avx512, Level::Avx512)->Arg(4096);
BENCHMARK_CAPTURE(BM_value_deriv, hinge, robustcore::Hinge{});
BENCHMARK_CAPTURE(BM_value_deriv, squared_hinge, robustcore::SquaredHinge{});
BENCHMARK_CAPTURE(BM_value_deriv, log, robustcore::Logistic{});
BENCHMARK_CAPTURE(BM_value_deriv, modified_huber, robustcore::ModifiedHuber{});
BENCHMARK_CAPTURE(BM_value_deriv, ramp, robustcore::Ramp{-1.0});
BENCHMARK_CAPTURE(BM_value_deriv, sramp, robustcore::SmoothRamp{-1.0, 2.65, 0.0});
BENCHMARK_CAPTURE(BM_value_deriv, rgomp, robustcore::ReversedGompertz{2.0});

BENCHMARK_MAIN();
