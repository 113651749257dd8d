// google-benchmark: one L-BFGS evaluation (lbfgs::objective_gradient, one pass of model.hpp's
// evaluate_rows: scores, loss and its derivative through the model, X^T (sw r'(z)) / n, the 0/1 error),
// per stored value, next to its floor: the two products X w and X^T r as plain loops (scipy's csr_matvec
// and the transposed scatter; for dense rows the same loops over every entry). items = stored values read
// per evaluation, so the two rates compare directly (ns per stored value = 1e9 / items_per_second).
// Shapes: the sparse problem of issue 40 (80,000 x 2,000, 20 values a row; synthetic.hpp) and dense
// 4,000 x 20 and 100,000 x 100; the binary model (log loss through AnySmoothLoss, as the bindings
// compile it) and the softmax model (3 classes).
#include <benchmark/benchmark.h>

#include <robustcore/any_loss.hpp>
#include <robustcore/lbfgs.hpp>
#include <robustcore/rng.hpp>

#include "synthetic.hpp"
#include "sizes.hpp"

#include <cstdint>
#include <vector>

namespace {

using Binary = robustcore::BinaryModel<robustcore::AnySmoothLoss>;
const robustcore::AnySmoothLoss kLog{robustcore::LossSpec{robustcore::LossKind::Log}};

/// The sparse problem and its classes mod 3.
struct Sparse {
  const bench::Problem* p;
  std::vector<int64_t> classes;
};
const Sparse& sparse(int64_t n, int64_t d, int64_t k) {
  static Sparse s;
  s.p = &bench::problem(n, d, k);
  if (static_cast<int64_t>(s.classes.size()) != n) {
    s.classes.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s.classes[static_cast<size_t>(i)] = i % 3;
  }
  return s;
}

template <class Model, class Data>
void run_evaluation(benchmark::State& state, const Data& X, const Model& m) {
  const int64_t K = m.K();
  std::vector<double> W(static_cast<size_t>(X.cols() * K)), G(W.size()), b(static_cast<size_t>(K), 0.1),
      gb(static_cast<size_t>(K));
  for (size_t q = 0; q < W.size(); ++q) W[q] = 0.01 * static_cast<double>(q % 7) - 0.03;
  for (auto _ : state) {
    double err = 0.0;
    const double f = robustcore::lbfgs::objective_gradient(X, m, nullptr, 1e-4, true, W.data(), b.data(), G.data(),
                                                           gb.data(), &err);
    benchmark::DoNotOptimize(f);
    benchmark::DoNotOptimize(err);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * X.nnz());
}

/// X w then X^T r, plain loops (the floor: a gather and a scatter per stored value, nothing else).
template <class Data>
void run_products(benchmark::State& state, const Data& X) {
  const int64_t n = X.rows(), d = X.cols();
  std::vector<double> w(static_cast<size_t>(d), 0.01), r(static_cast<size_t>(n)), G(static_cast<size_t>(d));
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] = robustcore::dot(X.row(i), w.data());
    std::fill(G.begin(), G.end(), 0.0);
    for (int64_t i = 0; i < n; ++i) robustcore::axpy(r[static_cast<size_t>(i)], X.row(i), G.data());
    benchmark::DoNotOptimize(G.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * X.nnz());
}

void BM_sparse_binary(benchmark::State& state) {
  const auto& s = sparse(state.range(0), state.range(1), state.range(2));
  run_evaluation(state, s.p->X, Binary{kLog, s.p->y.data()});
}
void BM_sparse_softmax3(benchmark::State& state) {
  const auto& s = sparse(state.range(0), state.range(1), state.range(2));
  run_evaluation(state, s.p->X, robustcore::SoftmaxModel{3, s.classes.data()});
}
void BM_sparse_products(benchmark::State& state) {
  run_products(state, sparse(state.range(0), state.range(1), state.range(2)).p->X);
}
void BM_dense_binary(benchmark::State& state) {
  const auto& p = bench::dense_problem(state.range(0), state.range(1));
  run_evaluation(state, p.X, Binary{kLog, p.y.data()});
}
void BM_dense_softmax3(benchmark::State& state) {
  const auto& p = bench::dense_problem(state.range(0), state.range(1));
  run_evaluation(state, p.X, robustcore::SoftmaxModel{3, p.classes.data()});
}
void BM_dense_products(benchmark::State& state) { run_products(state, bench::dense_problem(state.range(0), state.range(1)).X); }

}  // namespace

#define SPARSE ->Args({bench::rows(80000), 2000, 20})->Unit(benchmark::kMillisecond)
#define DENSE ->Args({bench::rows(4000, 40), 20})->Args({bench::rows(100000), 100})->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_sparse_binary) SPARSE;
BENCHMARK(BM_sparse_softmax3) SPARSE;
BENCHMARK(BM_sparse_products) SPARSE;
BENCHMARK(BM_dense_binary) DENSE;
BENCHMARK(BM_dense_softmax3) DENSE;
BENCHMARK(BM_dense_products) DENSE;

BENCHMARK_MAIN();
