// google-benchmark: what 2 MiB pages (huge_pages.hpp) do to a shuffled pass. The generated problem's
// CSR arrays (bench_sgd's 200,000 x 50,000 x 40, 96 MB) are copied into fresh buffers on ordinary 4 KiB
// pages (/0) or on transparent huge pages (/1, HugePageAllocator: madvise before the first touch), then
//   shuffled_dot_pass: every row's dot product in a uniform random order, with the loops' prefetch;
//   in_order_dot_pass: the same in storage order (the floor);
//   sgd_hinge_epoch:   one exact-shuffle SGD epoch (hinge) over the copy.
// Items are nonzeros. Whether the kernel gave huge pages: AnonHugePages in /proc/meminfo during the run.
#include <benchmark/benchmark.h>

#include <robustcore/huge_pages.hpp>
#include <robustcore/losses.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/sampler.hpp>
#include <robustcore/sgd.hpp>

#include "synthetic.hpp"
#include "sizes.hpp"

#include <vector>

namespace {

/// The problem's arrays copied into vectors with allocator A.
template <template <class> class A>
struct Copy {
  std::vector<double, A<double>> data;
  std::vector<int32_t, A<int32_t>> indices;
  std::vector<int64_t, A<int64_t>> indptr;
  robustcore::CsrView<int64_t> X;
  explicit Copy(const bench::Problem& p)
      : data(p.data.begin(), p.data.end()), indices(p.indices.begin(), p.indices.end()),
        indptr(p.indptr.begin(), p.indptr.end()),
        X{data.data(), indices.data(), indptr.data(), p.X.rows(), p.X.cols()} {}
};

template <template <class> class A>
void run(benchmark::State& state, int what) {
  const bench::Problem& p = bench::problem(bench::rows(200000), 50000, 40);
  const Copy<A> c(p);
  const int64_t n = c.X.rows();
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  robustcore::Rng rng(1);
  if (what != 1) rng.shuffle(order.data(), n);
  std::vector<double> w(static_cast<size_t>(c.X.cols()), 0.5);
  robustcore::SgdParams params;
  params.lr.lambda = 1e-4;
  params.lr.eta0 = 0.01;
  params.max_iter = 1;
  params.record_history = false;
  robustcore::SgdState st(c.X.cols());
  for (auto _ : state) {
    if (what == 2) {
      auto res = robustcore::sgd_fit(c.X, p.y.data(), nullptr, robustcore::Hinge{}, params, st);
      benchmark::DoNotOptimize(res.n_iter);
      continue;
    }
    double s = 0.0;
    for (int64_t k = 0; k < n; ++k) {
      robustcore::prefetch_ahead(c.X, order.data(), k, n);
      s += robustcore::dot(c.X.row(order[static_cast<size_t>(k)]), w.data());
    }
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * c.X.nnz());
}

void BM_pages(benchmark::State& state) {
  if (state.range(1)) run<robustcore::HugePageAllocator>(state, static_cast<int>(state.range(0)));
  else run<std::allocator>(state, static_cast<int>(state.range(0)));
}

}  // namespace

// range(0): 0 shuffled_dot_pass, 1 in_order_dot_pass, 2 sgd_hinge_epoch; range(1): huge pages
BENCHMARK(BM_pages)->ArgNames({"pass", "huge"})->ArgsProduct({{0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
