// SGD, averaged SGD and Pegasos for L2-regularised linear classifiers with any margin loss:
//
//   min_{w,b}  (1/n) sum_i sw_i r(y_i (<w, x_i> + b)) + (lambda/2) ||w||^2
//
// Update (SRamp paper, Algorithm 1, updates I/II are the Smooth Ramp / Reversed Gompertz cases of r'):
//   z = y (<w, x> + b);  w <- (1 - eta lambda) w - eta sw r'(z) y x;  b <- b - eta sw r'(z) y
// The L2 step goes through the scale of a ScaledVector, so a step costs O(nnz of the row).
// Averaging:  Running -> output the running average of the iterates after `average_start` steps
//             (ASGD, Xu 2011, O(nnz) per step);  Epoch -> option B of Algorithm 1: each epoch
//             restarts from the previous epoch's average and outputs it.
// Pegasos: schedule 1/(lambda t) and projection onto the ball of radius 1/sqrt(lambda), with a
// running ||w||^2 so the projection stays O(nnz).
// Centring (SgdParams::center = mu, e.g. the column means): the steps see the features x - mu, so the
// model scores w.(x - mu) + b_c; w = s v + a mu (weights.hpp's Centering) keeps a step O(nnz), and the
// state in and out stays the plain model (w, b = b_c - w.mu). The optimum is the same problem (the
// intercept is not regularised); only the path changes: on non-centred features (e.g. [0, 1]-scaled)
// the bounded losses otherwise tend to push a whole class onto their plateau.
// Sampling through PassOrder (sampler.hpp), per-epoch bookkeeping through Monitor (monitor.hpp).
// Template contracts: Loss as in losses.hpp; Data as in data.hpp (CsrView or DenseView).
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "any_loss.hpp"
#include "data.hpp"
#include "losses.hpp"
#include "model.hpp"
#include "monitor.hpp"
#include "parallel.hpp"
#include "sampler.hpp"
#include "rng.hpp"
#include "schedules.hpp"
#include "result.hpp"
#include "weights.hpp"

namespace robustcore {

enum class Averaging : int { None = 0, Running = 1, Epoch = 2 };

struct SgdParams {
  LearningRate lr;
  int64_t max_iter = 15;       ///< epochs
  Averaging average = Averaging::None;
  int64_t average_start = 0;   ///< Running: first step (1-based count of steps taken before) to average
  bool fit_intercept = true;
  double intercept_lr = 1.0;   ///< the intercept's step is intercept_lr * eta (Bottou's sgd uses 0.01)
  bool project_ball = false;   ///< Pegasos projection onto ||w|| <= 1/sqrt(lambda)
  Shuffle shuffle = Shuffle::Exact;
  int64_t block_rows = 0;      ///< Shuffle::Block: rows per block; 0 = about 32 KiB of the stored rows
  uint64_t seed = 0;
  bool record_history = true;  ///< objective / errors per epoch (one extra pass each); seconds always
  /// Optional centre mu (non-owning, length d, finite): the steps see x - mu (see the top of this file);
  /// nullptr = none. Not with the Pegasos projection.
  const double* center = nullptr;
  /// Threads for one problem (>= 1). Above 1, each epoch is iterative parameter mixing: the epoch's pass
  /// order is cut into n_threads contiguous shards, each thread runs the epoch's steps over its shard from
  /// the model at the start of the epoch, and the model after the epoch is the shards' models averaged,
  /// weighted by their rows (McDonald et al. 2010; Zinkevich et al. 2010). Same seed and n_threads, same
  /// bits; another n_threads gives another path, equally valid.
  int64_t n_threads = 1;

  void validate() const {
    lr.validate();
    if (max_iter < 0) throw std::invalid_argument("max_iter (the number of epochs) must be >= 0");
    if (average_start < 0) throw std::invalid_argument("average_start must be >= 0");
    if (block_rows < 0) throw std::invalid_argument("block_rows must be >= 0");
    if (!(intercept_lr > 0.0) || !std::isfinite(intercept_lr)) throw std::invalid_argument("intercept_lr must be > 0");
    if (project_ball && !(lr.lambda > 0.0)) throw std::invalid_argument("the Pegasos projection needs lambda > 0");
    if (project_ball && center) throw std::invalid_argument("centring is not implemented with the Pegasos projection");
    if (n_threads < 1) throw std::invalid_argument("n_threads must be >= 1");
  }
};

/// Throws unless the centre mu (if given) is finite.
inline void validate_center(const double* mu, int64_t d) {
  if (!mu) return;
  for (int64_t j = 0; j < d; ++j)
    if (!std::isfinite(mu[j])) throw std::invalid_argument("sgd: the centre (feature means) must be finite");
}

/// Model state, in/out: a fit continues from it (partial_fit) and leaves the final state in it.
struct SgdState {
  std::vector<double> w;      ///< current iterate
  double b = 0.0;
  std::vector<double> wbar;   ///< running average (Running averaging only)
  double bbar = 0.0;
  int64_t avg_count = 0;      ///< iterates summarised in wbar
  int64_t t = 0;              ///< steps taken so far (the schedule's clock)

  explicit SgdState(int64_t d = 0) : w(static_cast<size_t>(d), 0.0), wbar(static_cast<size_t>(d), 0.0) {}
};

namespace detail {

/// Where an epoch's indices come from: the fit's PassOrder (a fresh order of n rows each epoch), or one
/// fixed sequence (a shard of the parallel epoch). Not a template, so each view compiles one epoch loop.
struct PassSource {
  PassOrder* order = nullptr;
  const int64_t* fixed = nullptr;
  int64_t n = 0;
  const int64_t* next() const { return order ? order->next(Draw::Reshuffle, n) : fixed; }
};

/// The epochs of sgd_fit, after its checks and its sampling set-up: each epoch steps through the m
/// indices next_pass.next() returns, into the rows Xs (labels ys, weights sws); X, model and
/// sample_weight (the data as given) serve the monitor.
template <class Loss, class Data>
Result sgd_epochs(const Data& X, const BinaryModel<Loss>& model, const double* sample_weight, const Data& Xs,
                  const double* ys, const double* sws, const Loss& loss, const SgdParams& params, SgdState& state,
                  const PassSource& next_pass, int64_t m, const Data* X_test, const double* y_test,
                  const ProgressFn& progress) {
  const int64_t d = X.cols();
  const double lambda = params.lr.lambda;
  const double radius = params.project_ball ? 1.0 / std::sqrt(lambda) : 0.0;
  const bool running = params.average == Averaging::Running;
  const bool epoch_avg = params.average == Averaging::Epoch;
  ScaledVector w(d, (running || epoch_avg) ? kAverageFoldBelow : kFoldBelow);
  w.assign(state.w.data());
  Centering cen(params.center, d);  // the loop's w is s v + a mu, its intercept b_c = b + w.mu
  cen.assign(w);
  double b = state.b + cen.dot_mu(state.w.data());
  RunningAverage avg(d);
  double bbar = state.bbar + cen.dot_mu(state.wbar.data()), abar = 0.0;  // abar: the average of a
  if (running && state.avg_count > 0) avg.assign(state.wbar.data(), state.avg_count);
  double sqn = params.project_ball ? w.sqnorm() : 0.0;  // running ||w||^2 (Pegasos only)
  std::vector<double> wout(static_cast<size_t>(d));
  // The plain weights (w, or the running average) into out.
  auto weights = [&](double* out) {
    w.materialize(out);
    cen.add_mu(cen.a(), out);
  };
  auto average = [&](double* out) {
    avg.materialize(w, out);
    cen.add_mu(abar, out);
  };

  Result res;
  res.step = params.lr.schedule == Schedule::Pegasos ? 0.0 : params.lr.eta0;
  const MonitorSettings ms{lambda, params.fit_intercept, sample_weight, params.record_history, /*grad_norm=*/false,
                           0.0, 1, /*record_start=*/false};
  Monitor<BinaryModel<Loss>, Data> mon(X, model, ms, res, progress, EvalSet<BinaryModel<Loss>, Data>{X_test, y_test});
  int64_t t = state.t;
  {
    std::vector<double> w0(static_cast<size_t>(d));
    const bool out_avg = running && !avg.empty();
    if (out_avg) average(w0.data()); else weights(w0.data());
    const double b0 = (out_avg ? bbar : b) - cen.dot_mu(w0.data());
    if (!mon.start(w0.data(), &b0)) return res;  // a callback answering false before the first epoch: none
  }
  InterruptCheck stop;

  for (int64_t epoch = 0; epoch < params.max_iter; ++epoch) {
    const int64_t* idx = next_pass.next();
    if (epoch_avg) avg.reset(), bbar = 0.0, abar = 0.0;
    const bool use_avg = running || epoch_avg;

    for (int64_t k = 0; k < m; ++k) {
      stop.tick();
      const int64_t i = idx[k];
      prefetch_ahead(Xs, idx, k, m);
      prefetch_samples(idx, k, m, ys, sws);
      const auto row = Xs.row(i);
      ++t;
      const double eta = params.lr(static_cast<double>(t));
      double xmu = 0.0;
      const double p = cen.on() ? cen.score(w, row, xmu) : w.dot(row);
      const double yi = ys[i];
      const double g = loss.deriv(yi * (p + b)) * (sws ? sws[i] : 1.0);

      // L2 shrinkage through the scale (fold before underflow, keeping the average intact).
      const double shrink = 1.0 - eta * lambda;
      if (shrink != 1.0) {
        if (!(shrink > 0.0) || w.scale() * shrink < w.fold_below()) {
          if (use_avg && !avg.empty()) avg.before_fold(w);
          w.scale_by(shrink);
          w.fold();
          cen.scale_by(shrink);
          cen.refresh(w);
        } else {
          w.scale_by(shrink);
          cen.scale_by(shrink);
        }
        if (params.project_ball) sqn *= (shrink > 0.0 ? shrink * shrink : 0.0);
      }
      double c = 0.0;
      if (g != 0.0) {
        const double a = -eta * g * yi;
        if (params.project_ball) {
          // ||w + a x||^2 = ||w||^2 + 2 a <w, x> + a^2 ||x||^2, with <w, x> after shrinkage.
          const double wx = (shrink > 0.0 ? shrink : 0.0) * p;
          sqn += 2.0 * a * wx + a * a * sqnorm(row);
        }
        c = w.add(a, row);
        cen.add(a, c, xmu);
        if (params.fit_intercept) b -= params.intercept_lr * eta * g * yi;
      }
      if (params.project_ball && sqn > radius * radius) {
        const double f = radius / std::sqrt(sqn);
        if (w.scale() * f < w.fold_below() && use_avg && !avg.empty()) avg.before_fold(w);
        w.scale_by(f);
        if (w.needs_fold()) w.fold();
        sqn = radius * radius;
      }
      if (use_avg && (epoch_avg || t > params.average_start)) {
        const double mu = 1.0 / static_cast<double>(avg.count() + 1);
        avg.update(w, c, row, mu);
        bbar += mu * (b - bbar);
        abar += mu * (cen.a() - abar);
      }
    }

    if (epoch_avg) {  // Algorithm 1 option B: the next epoch starts from this epoch's average.
      average(wout.data());
      w.assign(wout.data());
      cen.assign(w);
      b = bbar;
      if (params.project_ball) sqn = w.sqnorm();
    }
    // Write the state back after every finished epoch, so an interrupted fit keeps it.
    cen.refresh(w);  // v.mu afresh once an epoch
    weights(state.w.data());
    state.b = b - cen.dot_mu(state.w.data());
    state.t = t;
    if (running) {
      if (!avg.empty()) average(state.wbar.data());
      state.bbar = bbar - cen.dot_mu(state.wbar.data());
      state.avg_count = avg.count();
    }
    // Output weights (what predict uses): history, divergence check and progress, O(d) per epoch.
    const bool out_avg = running && !avg.empty();
    if (out_avg) average(wout.data()); else weights(wout.data());
    const double bout = (out_avg ? bbar : b) - cen.dot_mu(wout.data());
    if (!mon.end_pass(wout.data(), &bout, static_cast<double>(epoch + 1), epoch + 1)) return res;
  }
  res.status = Status::MaxIter;
  return res;
}

/// The row-weighted average of the shards' states into `out` (iterates, intercepts, clocks; the running
/// averages of the shards that have started one).
inline void mix_states(const std::vector<SgdState>& shards, const std::vector<double>& weight, SgdState& out) {
  const size_t d = out.w.size();
  std::fill(out.w.begin(), out.w.end(), 0.0);
  double b = 0.0, t = 0.0, avg_weight = 0.0, avg_count = 0.0, bbar = 0.0;
  for (size_t p = 0; p < shards.size(); ++p) {
    const double a = weight[p];
    const SgdState& s = shards[p];
    for (size_t j = 0; j < d; ++j) out.w[j] += a * s.w[j];
    b += a * s.b;
    t += a * static_cast<double>(s.t);
    if (s.avg_count > 0) avg_weight += a;
  }
  out.b = b;
  out.t = static_cast<int64_t>(std::llround(t));
  if (avg_weight > 0.0) {
    std::fill(out.wbar.begin(), out.wbar.end(), 0.0);
    for (size_t p = 0; p < shards.size(); ++p) {
      const SgdState& s = shards[p];
      if (s.avg_count == 0) continue;
      const double a = weight[p] / avg_weight;
      for (size_t j = 0; j < d; ++j) out.wbar[j] += a * s.wbar[j];
      bbar += a * s.bbar;
      avg_count += a * static_cast<double>(s.avg_count);
    }
    out.bbar = bbar;
    out.avg_count = std::max<int64_t>(1, static_cast<int64_t>(std::llround(avg_count)));
  }
}

/// sgd_fit with params.n_threads > 1 (see SgdParams::n_threads): each epoch's pass order is cut into P
/// shards, the shards run one epoch each (sgd_epochs) on threads, and the epoch ends with their average.
template <class Loss, class Data>
Result sgd_epochs_parallel(const Data& X, const BinaryModel<Loss>& model, const double* sample_weight,
                           const Data& Xs, const double* ys, const double* sws, const Loss& loss,
                           const SgdParams& params, SgdState& state, const PassSource& next_pass, int64_t n,
                           const Data* X_test, const double* y_test, const ProgressFn& progress) {
  const int P = static_cast<int>(std::min<int64_t>(params.n_threads, n));
  Result res;
  res.step = params.lr.schedule == Schedule::Pegasos ? 0.0 : params.lr.eta0;
  const MonitorSettings ms{params.lr.lambda, params.fit_intercept, sample_weight, params.record_history,
                           /*grad_norm=*/false, 0.0, P, /*record_start=*/false};  // the history's pass on the same threads
  Monitor<BinaryModel<Loss>, Data> mon(X, model, ms, res, progress, EvalSet<BinaryModel<Loss>, Data>{X_test, y_test});
  const bool running = params.average == Averaging::Running;
  {
    const bool out_avg = running && state.avg_count > 0;
    const double b0 = out_avg ? state.bbar : state.b;
    if (!mon.start(out_avg ? state.wbar.data() : state.w.data(), &b0)) return res;
  }
  SgdParams shard_params = params;  // one epoch over a given order, nothing recorded, no callback
  shard_params.max_iter = 1;
  shard_params.record_history = false;
  shard_params.n_threads = 1;
  std::vector<SgdState> shards(static_cast<size_t>(P), state);
  std::vector<Result> shard_results(static_cast<size_t>(P));
  std::vector<int64_t> lo(static_cast<size_t>(P) + 1);
  std::vector<double> weight(static_cast<size_t>(P));
  for (int p = 0; p <= P; ++p) lo[static_cast<size_t>(p)] = n * p / P;
  for (int p = 0; p < P; ++p)
    weight[static_cast<size_t>(p)] = static_cast<double>(lo[static_cast<size_t>(p) + 1] - lo[static_cast<size_t>(p)]) / static_cast<double>(n);
  for (int64_t epoch = 0; epoch < params.max_iter; ++epoch) {
    const int64_t* idx = next_pass.next();
    for (auto& sh : shards) sh = state;
    run_tasks(P, [&](int p) {
      const size_t q = static_cast<size_t>(p);
      const int64_t* shard = idx + lo[q];
      shard_results[q] = sgd_epochs(X, model, sample_weight, Xs, ys, sws, loss, shard_params, shards[q],
                                    PassSource{nullptr, shard, lo[q + 1] - lo[q]}, lo[q + 1] - lo[q],
                                    static_cast<const Data*>(nullptr), nullptr, nullptr);
    });
    mix_states(shards, weight, state);
    for (const Result& r : shard_results)
      if (r.status == Status::Diverged) {
        res.status = Status::Diverged;
        return res;
      }
    const bool out_avg = running && state.avg_count > 0;
    const double bout = out_avg ? state.bbar : state.b;
    if (!mon.end_pass(out_avg ? state.wbar.data() : state.w.data(), &bout, static_cast<double>(epoch + 1), epoch + 1))
      return res;
  }
  res.status = Status::MaxIter;
  return res;
}

/// The checks of every SGD entry point (sgd_fit, fused_sgd_fit): parameters, state size, rows, labels,
/// weights and the centre; returns the binary model over y.
template <class Loss>
BinaryModel<Loss> checked_problem(const Loss& loss, const double* y, const double* sample_weight,
                                  const SgdParams& params, const SgdState& state, int64_t n, int64_t d) {
  params.validate();
  if (static_cast<int64_t>(state.w.size()) != d || static_cast<int64_t>(state.wbar.size()) != d)
    throw std::invalid_argument("sgd: state has the wrong number of features");
  if (n == 0) throw std::invalid_argument("sgd: no training samples");
  const BinaryModel<Loss> model{loss, y};
  model.validate_labels(n);
  validate_sample_weight(sample_weight, n);
  validate_center(params.center, d);
  return model;
}

}  // namespace detail

/// Runs params.max_iter epochs from `state`. `injected` (optional, length len) replaces the seeded
/// shuffle by a flat sequence of sample indices consumed n per epoch (the Sampler's injection contract;
/// used by the oracle tests). `X_test`/`y_test` (optional) add test error to the history. `progress` is
/// called after every epoch. Validates everything it is given (labels, weights, state, test set).
template <class Loss, class Data>
Result sgd_fit(const Data& X, const double* y, const double* sample_weight, const Loss& loss, SgdParams params,
               SgdState& state, const int64_t* injected = nullptr, int64_t len = 0, const Data* X_test = nullptr,
               const double* y_test = nullptr, const ProgressFn& progress = nullptr) {
  const int64_t n = X.rows(), d = X.cols();
  const BinaryModel<Loss> model = detail::checked_problem(loss, y, sample_weight, params, state, n, d);
  if (X_test) {
    if (X_test->cols() != d) throw std::invalid_argument("sgd: test set has a different number of features");
    if (!y_test) throw std::invalid_argument("X_test given without y_test");
    validate_binary_labels(y_test, X_test->rows());
  }

  // The rows the steps read (X itself, or with block shuffling a copy of X in a random row order) and
  // each epoch's order over them.
  Sampler src(params.seed, injected, len);
  const SampledRows<Data> rows(X, y, sample_weight, params.shuffle, params.block_rows, src);
  PassOrder order(n, params.shuffle, rows.block(), src);

  const detail::PassSource next_pass{&order, nullptr, n};
  if (params.n_threads > 1 && n > 1)
    return detail::sgd_epochs_parallel(X, model, sample_weight, rows.rows(), rows.labels(), rows.weights(), loss,
                                       params, state, next_pass, n, X_test, y_test, progress);
  return detail::sgd_epochs(X, model, sample_weight, rows.rows(), rows.labels(), rows.weights(), loss, params,
                            state, next_pass, n, X_test, y_test, progress);
}

/// The objective on the sample S (rows 0..m-1 of S, labels ys, weights sws or nullptr) after one pass of
/// constant-step SGD from w = 0 with step eta (calibrate_eta0's trial; +infinity when not finite).
template <class Loss>
double calibration_cost(const CsrView<int64_t>& S, const double* ys, const double* sws, const Loss& loss,
                        double lambda, bool fit_intercept, double intercept_lr, double eta, std::vector<double>& wd,
                        InterruptCheck& stop) {
  const int64_t m = S.rows();
  ScaledVector w(S.cols());
  double b = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    stop.tick();
    const auto row = S.row(i);
    const double g = loss.deriv(ys[i] * (w.dot(row) + b)) * (sws ? sws[i] : 1.0);
    const double shrink = 1.0 - eta * lambda;
    w.scale_by(shrink);
    if (w.needs_fold()) w.fold();
    if (g != 0.0) {
      w.add(-eta * g * ys[i], row);
      if (fit_intercept) b -= intercept_lr * eta * g * ys[i];
    }
  }
  w.materialize(wd.data());
  double lsum = 0.0;
  for (int64_t i = 0; i < m; ++i) lsum += (sws ? sws[i] : 1.0) * loss.value(ys[i] * (dot(S.row(i), wd.data()) + b));
  double sq = 0.0;
  for (double v : wd) sq += v * v;
  const double c = lsum / static_cast<double>(m) + 0.5 * lambda * sq;
  return std::isfinite(c) ? c : std::numeric_limits<double>::infinity();
}

/// The most weights calibration_costs keeps side by side (the sample's columns times the trials): 512 KiB, about
/// what a core's L2 cache holds. Every trial at once up to ~2,100 columns; groups of kCalibrationGroup trials or
/// more up to ~16,000 columns; one trial at a time beyond (the loops over a group's trials too short to pay).
inline constexpr size_t kCalibrationWeights = size_t{1} << 16;
inline constexpr size_t kCalibrationGroup = 4;

namespace detail {
/// calibration_costs for the T steps etas[0..T-1] at once.
template <class Loss>
void calibration_costs_side_by_side(const CsrView<int64_t>& S, const double* ys, const double* sws, const Loss& loss,
                                    double lambda, bool fit_intercept, double intercept_lr, const double* etas,
                                    size_t T, double* costs, InterruptCheck& stop) {
  const int64_t m = S.rows();
  const size_t u = static_cast<size_t>(S.cols());
  std::vector<double> V(u * T, 0.0), scale(T, 1.0), b(T, 0.0), acc(T), grad(T), step(T), shrink(T);
  std::vector<char> moves(T);
  for (size_t t = 0; t < T; ++t) shrink[t] = 1.0 - etas[t] * lambda;
  auto column_times = [&](size_t t, double f) {  // v_t <- f v_t (a fold, or zero)
    for (size_t j = 0; j < u; ++j) V[j * T + t] *= f;
  };
  auto dots = [&](const auto& row) {  // acc[t] = x . V[:, t], each summed in the row's order (dot's bits)
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t k = 0; k < row.nnz; ++k) {
      const double x = row.val[k];
      const double* v = &V[static_cast<size_t>(row.idx[k]) * T];
      for (size_t t = 0; t < T; ++t) acc[t] += x * v[t];
    }
  };
  for (int64_t i = 0; i < m; ++i) {
    stop.tick();
    const auto row = S.row(i);
    const double y = ys[i], sw = sws ? sws[i] : 1.0;
    dots(row);
    for (size_t t = 0; t < T; ++t) grad[t] = loss.deriv(y * (scale[t] * acc[t] + b[t])) * sw;  // a loop of its own:
    for (size_t t = 0; t < T; ++t) {  // the branch-free losses' (the log loss's exp) vectorises over the trials
      const double g = grad[t];
      if (shrink[t] > 0.0) {
        scale[t] *= shrink[t];
      } else {
        column_times(t, 0.0);
        scale[t] = 1.0;
      }
      if (scale[t] < kFoldBelow) {
        column_times(t, scale[t]);
        scale[t] = 1.0;
      }
      moves[t] = g != 0.0;
      step[t] = moves[t] ? (-etas[t] * g * y) / scale[t] : 0.0;
      if (moves[t] && fit_intercept) b[t] -= intercept_lr * etas[t] * g * y;
    }
    const bool finite = std::all_of(row.val, row.val + row.nnz, [](double x) { return std::isfinite(x); });
    for (int64_t k = 0; k < row.nnz; ++k) {  // a trial that does not move adds 0 * x, which leaves v as it is
      const double x = row.val[k];        // where x is finite; a row with an infinite or NaN value skips it
      double* v = &V[static_cast<size_t>(row.idx[k]) * T];
      if (finite) {
        for (size_t t = 0; t < T; ++t) v[t] += step[t] * x;
      } else {
        for (size_t t = 0; t < T; ++t)
          if (moves[t]) v[t] += step[t] * x;
      }
    }
  }
  // w = s v, then the objective on the sample: the mean loss plus lambda / 2 ||w||^2
  for (size_t j = 0; j < u; ++j)
    for (size_t t = 0; t < T; ++t) V[j * T + t] *= scale[t];
  std::vector<double> lsum(T, 0.0), sq(T, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    stop.tick();
    const auto row = S.row(i);
    const double y = ys[i], sw = sws ? sws[i] : 1.0;
    dots(row);  // V holds w now
    for (size_t t = 0; t < T; ++t) lsum[t] += sw * loss.value(y * (acc[t] + b[t]));
  }
  for (size_t j = 0; j < u; ++j)
    for (size_t t = 0; t < T; ++t) sq[t] += V[j * T + t] * V[j * T + t];
  for (size_t t = 0; t < T; ++t) {
    const double c = lsum[t] / static_cast<double>(m) + 0.5 * lambda * sq[t];
    costs[t] = std::isfinite(c) ? c : std::numeric_limits<double>::infinity();
  }
}
}  // namespace detail

/// The objectives on the sample S (rows 0..m-1 of S, labels ys, weights sws or nullptr) after one pass of
/// constant-step SGD from w = 0 with each step etas[t] (calibrate_eta0's trials; +infinity where not
/// finite), all trials side by side in one pass over the rows: each row's values are read once for every
/// trial, and the trials' weights sit together per column (V[j * T + t]), so the inner loops run over the
/// trials. Each trial's arithmetic is a ScaledVector's (w = s v; the shrink, the fold below kFoldBelow, the
/// step c = a / s), operation for operation: the bits of one trial at a time (tests/cpp/test_sgd.cpp).
/// The trials go side by side in groups whose weights fit in kCalibrationWeights: beyond, they would be read from
/// far caches (samples of 20 to 1,500 columns: 1.5-2.3x faster side by side; 40,000 columns, all 31 at once:
/// 1.3-2x slower; docs/benchmarks/speed_targets.md).
/// Where a group would hold fewer than kCalibrationGroup trials, the trials run one at a time (calibration_cost),
/// the same bits.
template <class Loss>
void calibration_costs(const CsrView<int64_t>& S, const double* ys, const double* sws, const Loss& loss, double lambda,
                       bool fit_intercept, double intercept_lr, const std::vector<double>& etas, double* costs,
                       InterruptCheck& stop) {
  const size_t group = kCalibrationWeights / std::max<size_t>(1, static_cast<size_t>(S.cols()));
  if (group >= kCalibrationGroup) {
    for (size_t first = 0; first < etas.size(); first += group)
      detail::calibration_costs_side_by_side(S, ys, sws, loss, lambda, fit_intercept, intercept_lr, etas.data() + first,
                                             std::min(group, etas.size() - first), costs + first, stop);
    return;
  }
  std::vector<double> wd(static_cast<size_t>(S.cols()));
  for (size_t t = 0; t < etas.size(); ++t)
    costs[t] = calibration_cost(S, ys, sws, loss, lambda, fit_intercept, intercept_lr, etas[t], wd, stop);
}

/// eta0 calibration in the spirit of Bottou's sgd code: on the first min(n, n_sample) samples of a
/// seeded permutation, run one pass of constant-step SGD from w = 0 for each candidate eta = 2^k,
/// k = -20..10, measure the objective on that sample, and return the eta with the lowest cost (the
/// smaller one on ties). A full grid rather than Bottou's walk from 1: bounded losses have a
/// plateau at large steps (every margin saturated, gradients vanish) that stops a local walk, and a
/// window around the sample's scale missed the grid's step on small features and for the hinge
/// (bench/studies/eta0_walk.py). The 31 trials run side by side (calibration_costs: one pass over the
/// sample, the loss dispatched once).
/// O(size of the sample), not O(d): the trials run on a CompactSample of the sampled rows (their
/// columns renumbered to the u <= d they use; the weights elsewhere stay 0 in every trial), which gives
/// the bits trials over all d columns give; one trial loop serves every data view.
template <class Loss, class Data>
double calibrate_eta0(const Data& X, const double* y, const double* sample_weight, const Loss& loss, double lambda,
                      bool fit_intercept, double intercept_lr, uint64_t seed, int64_t n_sample = 1000) {
  const int64_t n = X.rows();
  if (n == 0) throw std::invalid_argument("calibrate_eta0: no training samples");
  validate_binary_labels(y, n);
  validate_sample_weight(sample_weight, n);
  if (!(lambda >= 0.0)) throw std::invalid_argument("calibrate_eta0: lambda must be >= 0");
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  Rng rng(seed);
  rng.shuffle(perm.data(), n);
  const int64_t m = std::min(n, std::max<int64_t>(1, n_sample));
  const CompactSample sample(X, perm.data(), m);
  std::vector<double> ys(static_cast<size_t>(m)), sws(sample_weight ? static_cast<size_t>(m) : 0);
  for (int64_t k = 0; k < m; ++k) {
    ys[static_cast<size_t>(k)] = y[perm[static_cast<size_t>(k)]];
    if (sample_weight) sws[static_cast<size_t>(k)] = sample_weight[perm[static_cast<size_t>(k)]];
  }
  std::vector<double> etas, costs(31);
  for (int k = -20; k <= 10; ++k) etas.push_back(std::ldexp(1.0, k));
  InterruptCheck stop;
  with_concrete_loss(loss, [&](const auto& concrete) {  // the loss dispatched once, not per row and trial
    calibration_costs(sample.view(), ys.data(), sample_weight ? sws.data() : nullptr, concrete, lambda, fit_intercept,
                      intercept_lr, etas, costs.data(), stop);
    return 0;
  });
  double best_eta = 1.0, best_cost = std::numeric_limits<double>::infinity();
  for (size_t t = 0; t < etas.size(); ++t) {
    if (costs[t] < best_cost) {
      best_cost = costs[t];
      best_eta = etas[t];
    }
  }
  return best_eta;
}

}  // namespace robustcore
