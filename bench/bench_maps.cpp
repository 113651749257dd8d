// google-benchmark: the feature maps' own kernels (issue 42) at each instruction level this CPU has, and the
// engine's baseline product (what runs when no BLAS is registered: this binary links none).
//   neg_exp/<level>   x = exp(-gamma x) over n values (the Nystroem rbf / laplacian kernels' exponential)
//   neg_exp_f32/<level> the same from float64 distances into float32 values (the float32 map's kernel block)
//   scaled_cos/<level> x = s cos(x + b) over n values (random Fourier features), float64
//   baseline_gemm     a Nystroem whitening block: rows x m by m x m, row-major (blas.hpp's baseline_gemm)
// Levels: baseline (the loop as the x86-64 baseline build compiles it), avx2 (x86-64-v3), avx512 (x86-64-v4);
// a level the CPU lacks is skipped. Items = values (GFLOP/s for the product: 2 rows m^2 flops per iteration).
//   cmake -S . -B build-bench -DROBUSTCORE_BENCH=ON -DROBUSTCORE_PYTHON=OFF && cmake --build build-bench --target bench_maps
#include <benchmark/benchmark.h>

#include <robustcore/blas.hpp>
#include <robustcore/feature_maps.hpp>
#include <robustcore/rng.hpp>

#include <algorithm>
#include <vector>

namespace {

namespace fm = robustcore::feature_maps;
using Level = robustcore::SimdLevel;

std::vector<double> distances(int64_t n) {
  robustcore::Rng rng(1);
  std::vector<double> x(static_cast<size_t>(n));
  for (auto& v : x) v = 40.0 * rng.uniform();  // squared distances of scaled rows: exp(-x) from 1 to 4e-18
  return x;
}

bool have(Level l) { return robustcore::simd_level() >= l; }

void BM_neg_exp(benchmark::State& state, Level level) {
  if (!have(level)) return state.SkipWithError("this CPU (or ROBUSTCORE_SIMD) does not allow the level");
  const int64_t n = state.range(0);
  const std::vector<double> x0 = distances(n);
  std::vector<double> x(x0);
  double gamma = 1.0;  // a run-time value, as the maps' gamma (a constant one changes what GCC vectorises)
  benchmark::DoNotOptimize(gamma);
  for (auto _ : state) {
    std::copy(x0.begin(), x0.end(), x.begin());  // timed: a copy costs ~1% of the loop (no Pause/ResumeTiming)
    switch (level) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
      case Level::Avx512: fm::detail::neg_exp_v4(x.data(), n, gamma); break;
      case Level::Avx2: fm::detail::neg_exp_v3(x.data(), n, gamma); break;
#endif
      default: fm::detail::neg_exp_loop(x.data(), n, gamma);
    }
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_neg_exp_f32(benchmark::State& state, Level level) {
  if (!have(level)) return state.SkipWithError("this CPU (or ROBUSTCORE_SIMD) does not allow the level");
  const int64_t n = state.range(0);
  const std::vector<double> x = distances(n);
  std::vector<float> out(static_cast<size_t>(n));
  double gamma = 1.0;
  benchmark::DoNotOptimize(gamma);
  for (auto _ : state) {
    switch (level) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
      case Level::Avx512: fm::detail::neg_exp_v4(x.data(), out.data(), n, gamma); break;
      case Level::Avx2: fm::detail::neg_exp_v3(x.data(), out.data(), n, gamma); break;
#endif
      default: fm::detail::neg_exp_loop(x.data(), out.data(), n, gamma);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_scaled_cos(benchmark::State& state, Level level) {
  if (!have(level)) return state.SkipWithError("this CPU (or ROBUSTCORE_SIMD) does not allow the level");
  const int64_t n = state.range(0);
  const std::vector<double> x0 = distances(n), b = distances(n);
  std::vector<double> x(x0);
  for (auto _ : state) {
    std::copy(x0.begin(), x0.end(), x.begin());  // timed: a copy costs ~1% of the loop (no Pause/ResumeTiming)
    switch (level) {
#ifdef ROBUSTCORE_SIMD_DISPATCH
      case Level::Avx512: fm::detail::scaled_cos_v4(x.data(), b.data(), n, 0.1); break;
      case Level::Avx2: fm::detail::scaled_cos_v3(x.data(), b.data(), n, 0.1); break;
#endif
      default: fm::detail::scaled_cos_loop(x.data(), b.data(), n, 0.1);
    }
    benchmark::DoNotOptimize(x.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_baseline_gemm(benchmark::State& state) {
  const int64_t rows = state.range(0), m = state.range(1);
  const std::vector<double> K = distances(rows * m), N = distances(m * m);
  std::vector<double> out(static_cast<size_t>(rows * m));
  for (auto _ : state) {
    robustcore::blas::baseline_gemm<double>(K.data(), m, N.data(), m, out.data(), m, rows, m, m);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(rows * m * m) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

}  // namespace

// 64 Ki values (512 KiB: in L2, as a transform block's kernel values are); one 256-row block at m = 500
BENCHMARK_CAPTURE(BM_neg_exp, baseline, Level::Baseline)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_neg_exp, avx2, Level::Avx2)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_neg_exp, avx512, Level::Avx512)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_neg_exp_f32, baseline, Level::Baseline)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_neg_exp_f32, avx2, Level::Avx2)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_neg_exp_f32, avx512, Level::Avx512)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_scaled_cos, baseline, Level::Baseline)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_scaled_cos, avx2, Level::Avx2)->Arg(1 << 16);
BENCHMARK_CAPTURE(BM_scaled_cos, avx512, Level::Avx512)->Arg(1 << 16);
BENCHMARK(BM_baseline_gemm)->Args({256, 500})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
