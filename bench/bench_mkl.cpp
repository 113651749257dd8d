// google-benchmark for mkl.hpp: seconds per AMP iteration against n and m (Gaussian kernels on random
// data; dense float64 and float32 storage, and the factored bank of factored_bank.hpp), and the two
// projections against n (Lemma 2: capped simplex, Lemma 3: composite group-lasso step) to show their
// O(n log n) growth.
#include "sizes.hpp"

#include <benchmark/benchmark.h>

#include <robustcore/mkl.hpp>
#include <robustcore/projections.hpp>
#include <robustcore/rng.hpp>

#include <vector>

namespace {

using namespace robustcore;

// Random data in [0, 1]^14 labelled by its first feature, the Gaussian widths 2^-3 ... 2^(nw - 4), and the
// solver options shared by both bank layouts (20 AMP iterations per benchmark iteration, no early stop).
struct AmpProblem {
  int64_t n, nw, d = 14;
  std::vector<double> X, y, widths;
  mkl::Options opt;
  AmpProblem(int64_t n_, int64_t nw_) : n(n_), nw(nw_), X(n_ * 14), y(n_) {
    Rng rng(0);
    for (auto& v : X) v = rng.uniform();
    for (int64_t i = 0; i < n; ++i) y[i] = X[i * d] > 0.5 ? 1.0 : -1.0;
    for (int64_t w = 0; w < nw; ++w) widths.push_back(std::ldexp(1.0, static_cast<int>(w) - 3));
    opt.rho = 0.8 * n;
    opt.max_iter = 20;
    opt.tol = 0.0;
    opt.gamma = 1.0;
  }
  template <class Bank>
  void run(benchmark::State& state, const Bank& bank, int64_t m) {
    std::vector<double> coef(m * n), alpha(n);
    for (auto _ : state) {
      auto r = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
      benchmark::DoNotOptimize(r.gap);
    }
    state.counters["m"] = static_cast<double>(m);
    state.counters["s_per_iter"] =
        benchmark::Counter(static_cast<double>(opt.max_iter), benchmark::Counter::kIsIterationInvariantRate |
                                                                  benchmark::Counter::kInvert);
  }
};

template <class Scalar>
void BM_amp_iteration(benchmark::State& state) {
  AmpProblem P(state.range(0), state.range(1));
  const int64_t n = P.n, m = mkl::gaussian_bank_size(P.d, P.nw);
  std::vector<Scalar> K(m * n * n);
  mkl::gaussian_bank<Scalar>(P.X.data(), n, P.X.data(), n, P.d, P.widths.data(), P.nw, K.data());
  P.run(state, mkl::KernelBank<Scalar>{K.data(), m, n}, m);
  state.SetItemsProcessed(state.iterations() * P.opt.max_iter * m * n * n);  // kernel entries read
}

// The same problem on the factored bank (pivoted Cholesky to 1e-10 per entry, dense past rank n / 2).
void BM_amp_iteration_factored(benchmark::State& state) {
  AmpProblem P(state.range(0), state.range(1));
  const FactoredBank bank = mkl::gaussian_bank_factored(P.X.data(), P.n, P.d, P.widths.data(), P.nw, 1e-10);
  P.run(state, bank, bank.m);
  state.counters["fill"] = bank.fill();
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

BENCHMARK_TEMPLATE(BM_amp_iteration, double)->ArgsProduct({bench::sweep({138, 276, 552}), {2, 5, 10}})->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_amp_iteration, float)->ArgsProduct({bench::sweep({138, 276, 552}), {10}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_amp_iteration_factored)->ArgsProduct({bench::sweep({138, 276, 552}), {10}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_capped_simplex)->RangeMultiplier(4)->Range(256, bench::rows(262144))->Complexity(benchmark::oNLogN);
BENCHMARK(BM_group_lasso_prox)->RangeMultiplier(4)->Range(256, bench::rows(262144))->Complexity(benchmark::oNLogN);

BENCHMARK_MAIN();
