// google-benchmark: SGD over a generated sparse problem, 15 epochs per fit as in the SRamp paper
// (items = nonzeros x epochs, so the rate reads as nonzeros per second), with each shuffle mode, next
// to the floor: one in-order pass computing every row's dot product. Block shuffling's one-time copy
// of the rows is inside the timed fit, amortised over the 15 epochs. Rows x features x nonzeros-per-row are the arguments
// (default 200,000 x 50,000 x 40, as bench/bench_sgd.py's synthetic problem). The *_runtime_loss
// cases run the same kernels with the loss chosen at run time (AnyLoss); the *_2_threads cases one problem on
// two threads (SgdParams::n_threads, iterative parameter mixing per epoch), timed in wall-clock seconds.
// BM_calibrate_eta0: the eta0 calibration (31 trial passes on a 1000-row sample; calibration_costs: the trials
// side by side, in groups, or one at a time by the sample's columns) next to BM_calibration_one_at_a_time, the
// same 31 trials one after the other (calibration_cost, the same bits; 1000 rows spread over the problem, the
// sample built in the timed loop as in calibrate_eta0), on narrow and wide problems.
#include <benchmark/benchmark.h>

#include <robustcore/any_loss.hpp>
#include <robustcore/data.hpp>
#include <robustcore/losses.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/sgd.hpp>

#include "synthetic.hpp"
#include "sizes.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int64_t kEpochs = 15;

template <class Loss>
void BM_sgd_fit(benchmark::State& state, Loss loss, robustcore::Shuffle shuffle, int64_t threads = 1) {
  const bench::Problem& p = bench::problem(state.range(0), state.range(1), state.range(2));
  robustcore::SgdParams params;
  params.lr.lambda = 1e-4;
  params.lr.eta0 = 0.01;
  params.max_iter = kEpochs;
  params.shuffle = shuffle;
  params.record_history = false;
  params.n_threads = threads;
  robustcore::SgdState st(p.X.cols());
  for (auto _ : state) {
    auto res = robustcore::sgd_fit(p.X, p.y.data(), nullptr, loss, params, st);
    benchmark::DoNotOptimize(res.n_iter);
  }
  state.SetItemsProcessed(state.iterations() * p.X.nnz() * kEpochs);
}

void BM_floor_dot_pass(benchmark::State& state) {
  const bench::Problem& p = bench::problem(state.range(0), state.range(1), state.range(2));
  std::vector<double> w(static_cast<size_t>(p.X.cols()), 0.5);
  for (auto _ : state) {
    double s = 0.0;
    for (int64_t i = 0; i < p.X.rows(); ++i) s += robustcore::dot(p.X.row(i), w.data());
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * p.X.nnz());
}

/// calibrate_eta0 on X (its 1000-row sample, the trials side by side, in groups or one at a time by its columns)
template <class View, class Loss>
void calibrate(benchmark::State& state, const View& X, const double* y, const Loss& loss) {
  for (auto _ : state)
    benchmark::DoNotOptimize(robustcore::calibrate_eta0(X, y, nullptr, loss, 1e-4, true, 1.0, 3));
}

/// The same 31 trials one after the other (calibration_cost) on 1000 rows spread over X, the sample built in the
/// timed loop too, as calibrate_eta0 builds it (its sort of the columns)
template <class View, class Loss>
void one_at_a_time(benchmark::State& state, const View& X, const double* y, const Loss& loss) {
  std::vector<int64_t> order(static_cast<size_t>(std::min<int64_t>(1000, X.rows())));
  std::vector<double> ys(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = static_cast<int64_t>(i) * (X.rows() / 1000 + 1) % X.rows();
    ys[i] = y[order[i]];
  }
  robustcore::InterruptCheck stop;
  for (auto _ : state) {
    const robustcore::CompactSample sample(X, order.data(), static_cast<int64_t>(order.size()));
    std::vector<double> wd(static_cast<size_t>(sample.n_cols));
    double sum = 0.0;
    for (int k = -20; k <= 10; ++k)
      sum += robustcore::calibration_cost(sample.view(), ys.data(), nullptr, loss, 1e-4, true, 1.0, std::ldexp(1.0, k),
                                          wd, stop);
    benchmark::DoNotOptimize(sum);
  }
}

// rows x columns x nonzeros a row of the generated sparse problem (its columns drawn with replacement)
template <class Loss>
void BM_calibrate_eta0(benchmark::State& state, Loss loss) {
  const bench::Problem& p = bench::problem(state.range(0), state.range(1), state.range(2));
  calibrate(state, p.X, p.y.data(), loss);
}
template <class Loss>
void BM_calibration_one_at_a_time(benchmark::State& state, Loss loss) {
  const bench::Problem& p = bench::problem(state.range(0), state.range(1), state.range(2));
  one_at_a_time(state, p.X, p.y.data(), loss);
}
// and dense rows: 4000 x 20 (bench::dense_problem)
template <class Loss>
void BM_calibrate_eta0_dense(benchmark::State& state, Loss loss) {
  const bench::DenseProblem& p = bench::dense_problem(state.range(0), state.range(1));
  calibrate(state, p.X, p.y.data(), loss);
}
template <class Loss>
void BM_calibration_one_at_a_time_dense(benchmark::State& state, Loss loss) {
  const bench::DenseProblem& p = bench::dense_problem(state.range(0), state.range(1));
  one_at_a_time(state, p.X, p.y.data(), loss);
}

#define SIZES ->Args({bench::rows(200000), 50000, 40})->Unit(benchmark::kMillisecond)
#define CALIBRATION_SIZES                                                                                     \
  ->Args({bench::rows(20000, 2000), 1500, 20})->Args({bench::rows(20000, 2000), 12000, 20})                   \
      ->Args({bench::rows(20000, 2000), 50000, 40})->Unit(benchmark::kMillisecond)
#define DENSE_CALIBRATION ->Args({4000, 20})->Unit(benchmark::kMillisecond)
BENCHMARK_CAPTURE(BM_calibrate_eta0_dense, log, robustcore::Logistic{}) DENSE_CALIBRATION;
BENCHMARK_CAPTURE(BM_calibration_one_at_a_time_dense, log, robustcore::Logistic{}) DENSE_CALIBRATION;
BENCHMARK_CAPTURE(BM_calibrate_eta0_dense, hinge, robustcore::Hinge{}) DENSE_CALIBRATION;
BENCHMARK_CAPTURE(BM_calibration_one_at_a_time_dense, hinge, robustcore::Hinge{}) DENSE_CALIBRATION;
BENCHMARK_CAPTURE(BM_calibrate_eta0, log, robustcore::Logistic{}) CALIBRATION_SIZES;
BENCHMARK_CAPTURE(BM_calibration_one_at_a_time, log, robustcore::Logistic{}) CALIBRATION_SIZES;
BENCHMARK_CAPTURE(BM_calibrate_eta0, hinge, robustcore::Hinge{}) CALIBRATION_SIZES;
BENCHMARK_CAPTURE(BM_calibration_one_at_a_time, hinge, robustcore::Hinge{}) CALIBRATION_SIZES;
BENCHMARK(BM_floor_dot_pass) SIZES;
using robustcore::Shuffle;
BENCHMARK_CAPTURE(BM_sgd_fit, hinge_shuffled, robustcore::Hinge{}, Shuffle::Exact) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, hinge_block_shuffled, robustcore::Hinge{}, Shuffle::Block) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, hinge_in_order, robustcore::Hinge{}, Shuffle::None) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, log_shuffled, robustcore::Logistic{}, Shuffle::Exact) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, log_block_shuffled, robustcore::Logistic{}, Shuffle::Block) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, sramp_shuffled, robustcore::SmoothRamp{-1.0, 2.65, 0.0}, Shuffle::Exact) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, hinge_shuffled_2_threads, robustcore::Hinge{}, Shuffle::Exact, 2) SIZES->UseRealTime();
BENCHMARK_CAPTURE(BM_sgd_fit, log_shuffled_2_threads, robustcore::Logistic{}, Shuffle::Exact, 2) SIZES->UseRealTime();
// the same kernels with the loss chosen at run time (any_loss.hpp): the cost of one loop for every loss
using robustcore::AnyLoss;
using robustcore::LossKind;
using robustcore::LossSpec;
BENCHMARK_CAPTURE(BM_sgd_fit, hinge_shuffled_runtime_loss, AnyLoss{LossSpec{LossKind::Hinge}}, Shuffle::Exact) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, log_shuffled_runtime_loss, AnyLoss{LossSpec{LossKind::Log}}, Shuffle::Exact) SIZES;
BENCHMARK_CAPTURE(BM_sgd_fit, sramp_shuffled_runtime_loss, AnyLoss{LossSpec{LossKind::SmoothRamp, {-1.0, 2.65, 0.0}}},
                  Shuffle::Exact) SIZES;

}  // namespace

BENCHMARK_MAIN();
