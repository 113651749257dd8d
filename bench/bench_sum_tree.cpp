// google-benchmark: the FOL sampler. One FOL p-player round (sample(1/2) + update with a factor in
// [1, e]) for m = 1e3 .. 1e7 with the 8-ary tree (the default), the binary tree, and a naive O(m)
// sampler (linear scan of the weights) for contrast; beside them the latency floor: a pointer chase (one
// dependent load per step, one 64-byte line per node, random cyclic order) through an array the size of
// the tree's leaves (8 m bytes); then one FOL step (sample + Perceptron/SGD step +
// update) against one plain SGD step (uniform index, same learner) on a sparse problem shaped like
// ijcnn1 (49,990 rows x 22 features, ~13 nonzeros per row, generated with a fixed seed).
#include "sizes.hpp"

#include <benchmark/benchmark.h>

#include <robustcore/online_learners.hpp>
#include <robustcore/huge_pages.hpp>
#include <robustcore/losses.hpp>
#include <robustcore/sum_tree.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

using namespace robustcore;

namespace {

template <int B>
void BM_TreeSampleUpdate(benchmark::State& state) {
  const int64_t m = state.range(0);
  BasicSumTree<B> tree(m);
  Rng rng(1);
  // warm the tree up into a non-uniform state
  for (int64_t s = 0; s < std::min<int64_t>(m, 1000000); ++s) tree.update(static_cast<int64_t>(rng.below(m)), 1.0 + rng.uniform());
  const double eta = 1.0 / (2.0 * static_cast<double>(m));
  for (auto _ : state) {
    auto ip = tree.sample(0.5, rng);
    tree.update(ip.first, std::exp(eta * 1.0 / ip.second));
    benchmark::DoNotOptimize(ip);
  }
  state.SetItemsProcessed(state.iterations());
}

// One dependent random load per step through 8 m bytes (the leaves' size): the memory latency floor of
// any sampler that must read a random leaf.
// HugePages = true puts the array on 2 MiB pages (huge_pages.hpp), as the tree's own array is from 4 MiB.
struct alignas(64) ChaseLine {
  int64_t next;
  char pad[56];
};
template <bool HugePages>
void BM_PointerChase(benchmark::State& state) {
  const int64_t m = state.range(0);
  const int64_t lines = std::max<int64_t>(2, m * 8 / 64);
  std::conditional_t<HugePages, HugeVector<ChaseLine>, std::vector<ChaseLine>> a(static_cast<size_t>(lines));
  std::vector<int64_t> perm(static_cast<size_t>(lines));
  for (int64_t k = 0; k < lines; ++k) perm[static_cast<size_t>(k)] = k;
  Rng rng(7);
  for (int64_t k = lines - 1; k > 0; --k)
    std::swap(perm[static_cast<size_t>(k)], perm[static_cast<size_t>(rng.below(static_cast<uint64_t>(k + 1)))]);
  for (int64_t k = 0; k < lines; ++k)  // one cycle through every line
    a[static_cast<size_t>(perm[static_cast<size_t>(k)])].next = perm[static_cast<size_t>((k + 1) % lines)];
  int64_t at = perm[0];
  for (auto _ : state) {
    at = a[static_cast<size_t>(at)].next;
    benchmark::DoNotOptimize(at);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_NaiveSampleUpdate(benchmark::State& state) {
  const int64_t m = state.range(0);
  std::vector<double> w(static_cast<size_t>(m), 1.0);
  double total = static_cast<double>(m);
  Rng rng(1);
  const double eta = 1.0 / (2.0 * static_cast<double>(m));
  for (auto _ : state) {
    int64_t i;
    if (rng.uniform() < 0.5) {
      i = static_cast<int64_t>(rng.below(m));
    } else {
      double u = rng.uniform() * total;
      i = 0;
      for (; i < m - 1; ++i) {
        if (u < w[i]) break;
        u -= w[i];
      }
    }
    const double p = 0.5 / m + 0.5 * w[i] / total;
    const double nv = w[i] * std::exp(eta / p);
    total += nv - w[i];
    w[i] = nv;
    benchmark::DoNotOptimize(i);
  }
  state.SetItemsProcessed(state.iterations());
}

struct Sparse {
  std::vector<double> data, y;
  std::vector<int32_t> indices;
  std::vector<int64_t> indptr;
  CsrView<int64_t> X;
};

const Sparse& ijcnn1_like() {
  static Sparse p;
  if (p.X.rows()) return p;
  const int64_t n = 49990, d = 22;
  Rng rng(42);
  p.indptr.push_back(0);
  for (int64_t i = 0; i < n; ++i) {
    p.indices.push_back(static_cast<int32_t>(rng.below(10)));  // one-hot block (features 1-10)
    p.data.push_back(1.0);
    for (int32_t j = 10; j < d; ++j) {
      if (rng.uniform() < 0.05) continue;  // a few explicit zeros, as in the real file
      p.indices.push_back(j);
      p.data.push_back(rng.uniform() * 2.0 - 1.0);
    }
    p.indptr.push_back(static_cast<int64_t>(p.data.size()));
    p.y.push_back(rng.uniform() < 0.1 ? 1.0 : -1.0);
  }
  p.X = CsrView<int64_t>{p.data.data(), p.indices.data(), p.indptr.data(), n, d};
  return p;
}

template <class Loss>
Loss log_loss() {
  return Loss{};
}
template <>
AnyLoss log_loss<AnyLoss>() {
  LossSpec spec;
  spec.kind = LossKind::Log;
  return AnyLoss(spec);
}

// Loss: Logistic (one loop per loss) or AnyLoss (the run-time switch the FOL entry points use).
template <bool Focused, class Loss = Logistic>
void BM_Step(benchmark::State& state) {
  const Sparse& P = ijcnn1_like();
  const int64_t m = P.X.rows();
  LearningRate lr;
  lr.schedule = Schedule::Constant;
  lr.eta0 = 0.01;
  lr.lambda = 1e-5;
  SgdLearner<Loss> learner(P.X.cols(), log_loss<Loss>(), lr, true, 1.0);
  SumTree tree(m);
  Rng rng(3);
  const double eta = 1.0 / (2.0 * static_cast<double>(m));
  int64_t t = 0;
  SparseRow row{};
  for (auto _ : state) {
    ++t;
    int64_t i;
    double p = 1.0;
    if (Focused) {
      auto ip = tree.sample(0.5, rng);
      i = ip.first;
      p = ip.second;
    } else {
      i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(m)));
    }
    row = P.X.row(i);
    const double yi = P.y[i];
    double s = learner.score(row);
    learner.step(&row, &yi, &s, 1, t);
    if (Focused && misclassified(yi, s)) tree.update_log(i, eta / p);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

// update_log with factors alternating across the total's rescale threshold (issue 30): one leaf holds most
// of the total and is multiplied by e^+-360 in turn, so the total crosses 2^513 and comes back each
// pair. Before the rescale hysteresis every call rebuilt the tree (O(m): 6.8 ms at m = 1e6); now a rebuild
// follows at least m updates, O(log m) amortised.
void BM_UpdateLogAlternating(benchmark::State& state) {
  const int64_t m = state.range(0);
  SumTree tree(m);
  tree.update_log(0, 20.0);
  double f = 360.0;
  for (auto _ : state) {
    tree.update_log(0, f);
    f = -f;
  }
  state.counters["rescales"] = static_cast<double>(tree.rescales());
}

BENCHMARK(BM_UpdateLogAlternating)->RangeMultiplier(100)->Range(10000, bench::rows(1000000, 10000));
BENCHMARK_TEMPLATE(BM_PointerChase, false)->RangeMultiplier(10)->Range(1000, bench::rows(10000000, 1000));
BENCHMARK_TEMPLATE(BM_PointerChase, true)->RangeMultiplier(10)->Range(1000, bench::rows(10000000, 1000));
BENCHMARK_TEMPLATE(BM_TreeSampleUpdate, 8)->RangeMultiplier(10)->Range(1000, bench::rows(10000000, 1000));
BENCHMARK_TEMPLATE(BM_TreeSampleUpdate, 2)->RangeMultiplier(10)->Range(1000, bench::rows(10000000, 1000));
BENCHMARK(BM_NaiveSampleUpdate)->RangeMultiplier(10)->Range(1000, 100000);
BENCHMARK_TEMPLATE(BM_Step, true)->Name("BM_FolStep_ijcnn1_like");
BENCHMARK_TEMPLATE(BM_Step, true, AnyLoss)->Name("BM_FolStep_AnyLoss_ijcnn1_like");
BENCHMARK_TEMPLATE(BM_Step, false)->Name("BM_SgdStep_ijcnn1_like");

BENCHMARK_MAIN();
