// google-benchmark for mkl.hpp: seconds per AMP iteration against n and m (Gaussian kernels on random
// data; dense float64 and float32 storage, and the factored bank of factored_bank.hpp), and the two projections against n (Lemma 2: capped simplex,
// Lemma 3: composite group-lasso step) to show their O(n log n) growth.
#include <benchmark/benchmark.h>

#include <robustcore/mkl.hpp>
#include <robustcore/projections.hpp>
#include <robustcore/rng.hpp>

#include <vector>

namespace {

using namespace robustcore;

template <class Scalar>
void BM_amp_iteration(benchmark::State& state) {
  const int64_t n = state.range(0), nw = state.range(1), d = 14;
  const int64_t m = mkl::gaussian_bank_size(d, nw);
  Rng rng(0);
  std::vector<double> X(n * d), y(n);
  for (auto& v : X) v = rng.uniform();
  for (int64_t i = 0; i < n; ++i) y[i] = X[i * d] > 0.5 ? 1.0 : -1.0;
  std::vector<double> widths;
  for (int64_t w = 0; w < nw; ++w) widths.push_back(std::ldexp(1.0, static_cast<int>(w) - 3));
  std::vector<Scalar> K(m * n * n);
  mkl::gaussian_bank<Scalar>(X.data(), n, X.data(), n, d, widths.data(), nw, K.data());
  mkl::KernelBank<Scalar> bank{K.data(), m, n};
  mkl::Options opt;
  opt.rho = 0.8 * n;
  opt.max_iter = 20;
  opt.tol = 0.0;
  opt.gamma = 1.0;
  std::vector<double> coef(m * n), alpha(n);
  for (auto _ : state) {
    auto r = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    benchmark::DoNotOptimize(r.gap);
  }
  state.counters["m"] = static_cast<double>(m);
  state.counters["s_per_iter"] =
      benchmark::Counter(static_cast<double>(opt.max_iter), benchmark::Counter::kIsIterationInvariantRate |
                                                                benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * opt.max_iter * m * n * n);  // kernel entries read
}

// The same problem on the factored bank (pivoted Cholesky to 1e-10 per entry, dense past rank n / 2).
void BM_amp_iteration_factored(benchmark::State& state) {
  const int64_t n = state.range(0), nw = state.range(1), d = 14;
  Rng rng(0);
  std::vector<double> X(n * d), y(n);
  for (auto& v : X) v = rng.uniform();
  for (int64_t i = 0; i < n; ++i) y[i] = X[i * d] > 0.5 ? 1.0 : -1.0;
  std::vector<double> widths;
  for (int64_t w = 0; w < nw; ++w) widths.push_back(std::ldexp(1.0, static_cast<int>(w) - 3));
  const FactoredBank bank = mkl::gaussian_bank_factored(X.data(), n, d, widths.data(), nw, 1e-10);
  mkl::Options opt;
  opt.rho = 0.8 * n;
  opt.max_iter = 20;
  opt.tol = 0.0;
  opt.gamma = 1.0;
  std::vector<double> coef(bank.m * n), alpha(n);
  for (auto _ : state) {
    auto r = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    benchmark::DoNotOptimize(r.gap);
  }
  state.counters["m"] = static_cast<double>(bank.m);
  state.counters["fill"] = bank.fill();
  state.counters["s_per_iter"] =
      benchmark::Counter(static_cast<double>(opt.max_iter), benchmark::Counter::kIsIterationInvariantRate |
                                                                benchmark::Counter::kInvert);
}

void BM_capped_simplex(benchmark::State& state) {
  const int64_t n = state.range(0);
  Rng rng(1);
  std::vector<double> v(n), out(n);
  for (auto& x : v) x = 2.0 * rng.uniform() - 0.5;
  for (auto _ : state) benchmark::DoNotOptimize(project_capped_simplex(v.data(), n, 1.0, 0.3 * n, out.data()));
  state.SetComplexityN(n);
}

void BM_group_lasso_prox(benchmark::State& state) {
  const int64_t n = state.range(0);
  Rng rng(2);
  std::vector<double> a(n), s(n);
  for (auto& x : a) x = rng.uniform();
  for (auto _ : state) benchmark::DoNotOptimize(group_lasso_squared_prox(a.data(), n, 10.0 / n, s.data()));
  state.SetComplexityN(n);
}

}  // namespace

BENCHMARK_TEMPLATE(BM_amp_iteration, double)->ArgsProduct({{138, 276, 552}, {2, 5, 10}})->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_amp_iteration, float)->ArgsProduct({{138, 276, 552}, {10}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_amp_iteration_factored)->ArgsProduct({{138, 276, 552}, {10}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_capped_simplex)->RangeMultiplier(4)->Range(256, 262144)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_group_lasso_prox)->RangeMultiplier(4)->Range(256, 262144)->Complexity(benchmark::oNLogN);

BENCHMARK_MAIN();
