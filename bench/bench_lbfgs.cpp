// google-benchmark: L-BFGS (lbfgs.hpp) on the generated sparse problem (synthetic.hpp), next to the floor
// of one of its passes. A fit's cost is its number of evaluations times one full-gradient pass (scores,
// loss through the model, X^T (sw r'(z)) / n, the 0/1 error): items = nonzeros read by the evaluations,
// so the fit's rate and the pass's rate read alike, and their ratio is the solver's overhead (the
// two-loop recursion, O(m d) per iteration). Rows x features x nonzeros-per-row are the arguments
// (default 100,000 x 2,000 x 20: the sparse problem of issue 40; and 200,000 x 50,000 x 40).
#include <benchmark/benchmark.h>

#include <robustcore/any_loss.hpp>
#include <robustcore/lbfgs.hpp>

#include "synthetic.hpp"
#include "sizes.hpp"

#include <vector>

namespace {

using Model = robustcore::BinaryModel<robustcore::AnySmoothLoss>;
const robustcore::AnySmoothLoss kLog{robustcore::LossSpec{robustcore::LossKind::Log}};

void BM_gradient_pass(benchmark::State& state) {
  const auto& p = bench::problem(state.range(0), state.range(1), state.range(2));
  const Model m{kLog, p.y.data()};
  std::vector<double> w(static_cast<size_t>(p.X.cols()), 0.01), G(w.size());
  double b = 0.0, gb = 0.0;
  for (auto _ : state) {
    const double f = robustcore::lbfgs::objective_gradient(p.X, m, nullptr, 1e-4, true, w.data(), &b, G.data(), &gb);
    benchmark::DoNotOptimize(f);
  }
  state.SetItemsProcessed(state.iterations() * p.X.nnz());
}

void BM_lbfgs_fit(benchmark::State& state, double tol) {
  const auto& p = bench::problem(state.range(0), state.range(1), state.range(2));
  const Model m{kLog, p.y.data()};
  robustcore::lbfgs::LbfgsParams prm;
  prm.lambda = 1.0 / static_cast<double>(p.X.rows());  // scikit-learn's C = 1
  prm.tol = tol;
  prm.max_iter = 1000;
  prm.record_history = true;  // free: the monitor records what the evaluations computed
  std::vector<double> w(static_cast<size_t>(p.X.cols()));
  double evaluations = 0.0, iterations = 0.0;
  for (auto _ : state) {
    std::fill(w.begin(), w.end(), 0.0);
    double b = 0.0;
    const auto r = robustcore::lbfgs::fit(p.X, m, prm, w.data(), &b);
    evaluations = r.history.find("evaluations")->back();
    iterations = r.n_iter;
  }
  state.counters["iterations"] = iterations;
  state.counters["evaluations"] = evaluations;
  state.SetItemsProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * evaluations *
                                               static_cast<double>(p.X.nnz())));
}

}  // namespace

#define SIZES ->Args({bench::rows(100000), 2000, 20})->Args({bench::rows(200000), 50000, 40})->Unit(benchmark::kMillisecond)
BENCHMARK(BM_gradient_pass) SIZES;
BENCHMARK_CAPTURE(BM_lbfgs_fit, tol_1e_4, 1e-4) SIZES;
BENCHMARK_CAPTURE(BM_lbfgs_fit, tol_1e_6, 1e-6) SIZES;

BENCHMARK_MAIN();
