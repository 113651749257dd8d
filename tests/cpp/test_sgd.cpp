// SGD engine: dense == CSR, same seed == same bits, an injected order replaces the shuffle,
// the scale trick equals a plain dense update, divergence is a status, bad input throws.
#include <robustcore/data.hpp>
#include <robustcore/losses.hpp>
#include <robustcore/projections.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/sampler.hpp>
#include <robustcore/sgd.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "check.hpp"

using namespace robustcore;

struct Data {
  int64_t n = 120, d = 7;
  std::vector<double> dense, csr_data, y;
  std::vector<int32_t> idx;
  std::vector<int64_t> ptr;
  Data() {
    Rng rng(3);
    dense.assign(static_cast<size_t>(n * d), 0.0);
    ptr.push_back(0);
    for (int64_t i = 0; i < n; ++i) {
      double f = 0.0;
      for (int64_t j = 0; j < d; ++j) {
        if (rng.uniform() < 0.5) continue;
        const double v = rng.uniform();
        dense[i * d + j] = v;
        csr_data.push_back(v);
        idx.push_back(static_cast<int32_t>(j));
        f += v * (j % 2 ? 1.0 : -1.0);
      }
      ptr.push_back(static_cast<int64_t>(idx.size()));
      y.push_back(f > -0.2 ? 1.0 : -1.0);
    }
  }
  DenseView dv() const { return DenseView{dense.data(), n, d}; }
  CsrView<int64_t> cv() const { return CsrView<int64_t>{csr_data.data(), idx.data(), ptr.data(), n, d}; }
};

template <class Loss, class View>
SgdState run(const View& X, const Data& D, const Loss& l, SgdParams p, const int64_t* order = nullptr,
             int64_t len = 0) {
  SgdState st(D.d);
  sgd_fit(X, D.y.data(), nullptr, l, p, st, order, len);
  return st;
}

int main() {
  Data D;
  SgdParams p;
  p.lr.lambda = 1e-2;
  p.lr.eta0 = 0.1;
  p.max_iter = 4;
  p.seed = 11;
  for (int avg = 0; avg < 3; ++avg) {
    p.average = static_cast<Averaging>(avg);
    const SgdState a = run(D.dv(), D, Logistic{}, p), b = run(D.cv(), D, Logistic{}, p);
    for (int64_t j = 0; j < D.d; ++j) {
      CHECK_CLOSE(a.w[j], b.w[j], 1e-12);
      CHECK_CLOSE(a.wbar[j], b.wbar[j], 1e-12);
    }
    const SgdState c = run(D.cv(), D, Logistic{}, p);
    for (int64_t j = 0; j < D.d; ++j) CHECK(b.w[j] == c.w[j]);  // same seed, same bits
  }
  // Block shuffling: dense == CSR, same seed == same bits, and each epoch's order is a permutation
  // made of whole blocks of consecutive rows.
  p.shuffle = Shuffle::Block;
  {
    const SgdState a = run(D.dv(), D, Logistic{}, p), b2 = run(D.cv(), D, Logistic{}, p), c = run(D.cv(), D, Logistic{}, p);
    for (int64_t j = 0; j < D.d; ++j) {
      CHECK_CLOSE(a.w[j], b2.w[j], 1e-12);
      CHECK(b2.w[j] == c.w[j]);
    }
    const int64_t n = 103, block = 10;
    std::vector<int64_t> blocks(11), perm(static_cast<size_t>(n));
    for (int64_t q = 0; q < 11; ++q) blocks[static_cast<size_t>(q)] = q;
    Rng r(9);
    for (int rep = 0; rep < 3; ++rep) {
      PassOrder::block_shuffle_order(n, block, blocks, r, perm.data());
      std::vector<int> seen(static_cast<size_t>(n), 0);
      for (int64_t i : perm) seen[static_cast<size_t>(i)]++;
      for (int v : seen) CHECK(v == 1);
      int64_t k = 0;
      for (int64_t bl : blocks) {  // the k-th chunk of the order is exactly block bl's rows
        const int64_t lo = bl * block, hi = std::min(n, lo + block);
        for (int64_t q = k; q < k + hi - lo; ++q) CHECK(perm[static_cast<size_t>(q)] >= lo && perm[static_cast<size_t>(q)] < hi);
        k += hi - lo;
      }
    }
  }
  p.shuffle = Shuffle::Exact;
  // Injected order + constant step: compare with a plain dense update written here.
  p.average = Averaging::None;
  p.lr.schedule = Schedule::Constant;
  p.max_iter = 2;
  std::vector<int64_t> order(static_cast<size_t>(2 * D.n));
  Rng rng(5);
  for (auto& o : order) o = static_cast<int64_t>(rng.below(static_cast<uint64_t>(D.n)));
  const SmoothRamp sr(-1.0, 2.65, 0.0);
  const SgdState e = run(D.cv(), D, sr, p, order.data(), static_cast<int64_t>(order.size()));
  std::vector<double> w(static_cast<size_t>(D.d), 0.0);
  double b = 0.0;
  for (int64_t i : order) {
    double f = b;
    for (int64_t j = 0; j < D.d; ++j) f += D.dense[i * D.d + j] * w[j];
    const double g = sr.deriv(D.y[i] * f);
    for (int64_t j = 0; j < D.d; ++j) w[j] = (1 - p.lr.eta0 * p.lr.lambda) * w[j] - p.lr.eta0 * g * D.y[i] * D.dense[i * D.d + j];
    b -= p.lr.eta0 * g * D.y[i];
  }
  for (int64_t j = 0; j < D.d; ++j) CHECK_CLOSE(e.w[j], w[j], 1e-12);
  CHECK_CLOSE(e.b, b, 1e-12);
  // Centring (SgdParams::center = mu): the steps of a plain dense update on x - mu written here, the state
  // the plain model (b = b_c - w.mu); dense == CSR; mu = 0 gives the uncentred bits; not with Pegasos.
  {
    std::vector<double> mu(static_cast<size_t>(D.d), 0.0), zero(static_cast<size_t>(D.d), 0.0);
    for (int64_t i = 0; i < D.n; ++i)
      for (int64_t j = 0; j < D.d; ++j) mu[static_cast<size_t>(j)] += D.dense[i * D.d + j] / static_cast<double>(D.n);
    SgdParams c = p;
    c.center = mu.data();
    const int64_t len = static_cast<int64_t>(order.size());
    const SgdState cd = run(D.dv(), D, sr, c, order.data(), len), cc = run(D.cv(), D, sr, c, order.data(), len);
    std::vector<double> wc(static_cast<size_t>(D.d), 0.0);
    double bc = 0.0;
    for (int64_t i : order) {
      double f = bc;
      for (int64_t j = 0; j < D.d; ++j) f += (D.dense[i * D.d + j] - mu[static_cast<size_t>(j)]) * wc[static_cast<size_t>(j)];
      const double g = sr.deriv(D.y[i] * f);
      for (int64_t j = 0; j < D.d; ++j)
        wc[static_cast<size_t>(j)] = (1 - p.lr.eta0 * p.lr.lambda) * wc[static_cast<size_t>(j)] -
                                     p.lr.eta0 * g * D.y[i] * (D.dense[i * D.d + j] - mu[static_cast<size_t>(j)]);
      bc -= p.lr.eta0 * g * D.y[i];
    }
    double wmu = 0.0;
    for (int64_t j = 0; j < D.d; ++j) {
      CHECK_CLOSE(cd.w[j], cc.w[j], 1e-12);
      CHECK_CLOSE(cd.w[j], wc[static_cast<size_t>(j)], 1e-10);
      wmu += wc[static_cast<size_t>(j)] * mu[static_cast<size_t>(j)];
    }
    CHECK_CLOSE(cd.b, bc - wmu, 1e-10);
    c.center = zero.data();
    const SgdState z = run(D.cv(), D, sr, c, order.data(), len);
    for (int64_t j = 0; j < D.d; ++j) CHECK(z.w[j] == e.w[j]);
    c.project_ball = true;
    CHECK_THROWS(run(D.cv(), D, sr, c), std::invalid_argument);
  }
  // n_threads (iterative parameter mixing): each epoch's injected order cut into shards, every shard's
  // plain dense update from the epoch's start model, then the row-weighted average; same bits twice;
  // dense == CSR; the clock advances by the mean shard length.
  for (int P : {2, 3}) {
    SgdParams q = p;
    q.n_threads = P;
    const int64_t len = static_cast<int64_t>(order.size());
    const SgdState pd = run(D.dv(), D, sr, q, order.data(), len), pc = run(D.cv(), D, sr, q, order.data(), len);
    const SgdState again = run(D.cv(), D, sr, q, order.data(), len);
    std::vector<double> wm(static_cast<size_t>(D.d), 0.0);
    double bm = 0.0;
    for (int64_t epoch = 0; epoch < q.max_iter; ++epoch) {
      std::vector<double> wsum(static_cast<size_t>(D.d), 0.0);
      double bsum = 0.0;
      for (int s = 0; s < P; ++s) {
        const int64_t lo = D.n * s / P, hi = D.n * (s + 1) / P;
        std::vector<double> ws = wm;
        double bs = bm;
        for (int64_t k = lo; k < hi; ++k) {
          const int64_t i = order[static_cast<size_t>(epoch * D.n + k)];
          double f = bs;
          for (int64_t j = 0; j < D.d; ++j) f += D.dense[i * D.d + j] * ws[static_cast<size_t>(j)];
          const double g = sr.deriv(D.y[i] * f);
          for (int64_t j = 0; j < D.d; ++j)
            ws[static_cast<size_t>(j)] = (1 - q.lr.eta0 * q.lr.lambda) * ws[static_cast<size_t>(j)] -
                                         q.lr.eta0 * g * D.y[i] * D.dense[i * D.d + j];
          bs -= q.lr.eta0 * g * D.y[i];
        }
        const double a = static_cast<double>(hi - lo) / static_cast<double>(D.n);
        for (int64_t j = 0; j < D.d; ++j) wsum[static_cast<size_t>(j)] += a * ws[static_cast<size_t>(j)];
        bsum += a * bs;
      }
      wm = wsum;
      bm = bsum;
    }
    for (int64_t j = 0; j < D.d; ++j) {
      CHECK_CLOSE(pd.w[j], wm[static_cast<size_t>(j)], 1e-12);
      CHECK_CLOSE(pc.w[j], pd.w[j], 1e-12);
      CHECK(again.w[j] == pc.w[j]);
    }
    CHECK_CLOSE(pd.b, bm, 1e-12);
    CHECK(pd.t == q.max_iter * D.n / P);
  }
  {
    SgdParams zero_threads = p;
    zero_threads.n_threads = 0;
    CHECK_THROWS(run(D.dv(), D, Hinge{}, zero_threads), std::invalid_argument);
  }
  // Divergence is a status, not an exception or NaN output.
  SgdParams bad = p;
  bad.lr.eta0 = 1e300;
  SgdState st(D.d);
  const Result r = sgd_fit(D.dv(), D.y.data(), nullptr, SquaredHinge{}, bad, st);
  CHECK(r.status == Status::Diverged);
  // Broken preconditions throw.
  SgdParams neg = p;
  neg.lr.lambda = -1.0;
  CHECK_THROWS(run(D.dv(), D, Hinge{}, neg), std::invalid_argument);
  SgdState wrong(D.d + 1);
  CHECK_THROWS(sgd_fit(D.dv(), D.y.data(), nullptr, Hinge{}, p, wrong), std::invalid_argument);
  std::vector<int32_t> bad_idx = D.idx;
  bad_idx[0] = static_cast<int32_t>(D.d);
  CsrView<int64_t> broken{D.csr_data.data(), bad_idx.data(), D.ptr.data(), D.n, D.d};
  CHECK_THROWS(broken.validate(static_cast<int64_t>(D.csr_data.size()), static_cast<int64_t>(bad_idx.size())),
               std::invalid_argument);
  // eta0 calibration: the 31 trials side by side (calibration_costs on a sample of 7 columns) give each trial's
  // cost bit for bit as one trial at a time (calibration_cost): the shrink to zero at eta * lambda >= 1, the fold
  // of a small scale, steps that leave w alone, weights, no intercept, a diverging trial.
  {
    std::vector<double> etas;
    for (int k = -20; k <= 10; ++k) etas.push_back(std::ldexp(1.0, k));
    std::vector<double> sw(static_cast<size_t>(D.n));
    for (int64_t i = 0; i < D.n; ++i) sw[static_cast<size_t>(i)] = 0.25 + static_cast<double>(i % 7) / 3.0;
    const CsrView<int64_t> S = D.cv();
    InterruptCheck stop;
    auto check_loss = [&](const auto& loss, LossKind kind) {
      for (double lambda : {0.0, 1e-4, 1e-2, 0.5}) {
        for (int variant = 0; variant < 3; ++variant) {
          const double* w = variant == 1 ? sw.data() : nullptr;
          const bool icpt = variant != 2;
          std::vector<double> costs(etas.size());
          calibration_costs(S, D.y.data(), w, loss, lambda, icpt, 0.5, etas, costs.data(), stop);
          std::vector<double> wd(static_cast<size_t>(D.d));
          for (size_t t = 0; t < etas.size(); ++t)
            CHECK(costs[t] == calibration_cost(S, D.y.data(), w, loss, lambda, icpt, 0.5, etas[t], wd, stop));
          // calibrate_eta0 (a seeded order of the rows): a step of the grid, the same on the dense and CSR views
          const double eta = calibrate_eta0(D.dv(), D.y.data(), w, AnyLoss(LossSpec(kind)), lambda, icpt, 0.5, 7);
          CHECK(std::find(etas.begin(), etas.end(), eta) != etas.end());
          CHECK(eta == calibrate_eta0(D.cv(), D.y.data(), w, AnyLoss(LossSpec(kind)), lambda, icpt, 0.5, 7));
        }
      }
    };
    check_loss(Logistic{}, LossKind::Log);
    check_loss(Hinge{}, LossKind::Hinge);
    check_loss(SquaredHinge{}, LossKind::SquaredHinge);
    check_loss(AnyLoss(LossSpec(LossKind::SmoothRamp)), LossKind::SmoothRamp);  // also through the dispatch
    // A sample of more columns: the trials side by side in groups (8 a pass at 8,000 columns), the same bits.
    {
      const int64_t rows = 300, per_row = 5, cols = static_cast<int64_t>(kCalibrationWeights / 8);
      std::vector<double> wv, wy;
      std::vector<int32_t> wi;
      std::vector<int64_t> wp{0};
      Rng r(21);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t k = 0; k < per_row; ++k) {
          wi.push_back(static_cast<int32_t>((i * per_row + k) * (cols / (rows * per_row))));
          wv.push_back(r.uniform() - 0.3);
        }
        wp.push_back(static_cast<int64_t>(wi.size()));
        wy.push_back(r.uniform() < 0.5 ? 1.0 : -1.0);
      }
      const CsrView<int64_t> wide{wv.data(), wi.data(), wp.data(), rows, cols};
      CHECK(kCalibrationWeights / static_cast<size_t>(cols) < etas.size() &&
            kCalibrationWeights / static_cast<size_t>(cols) >= kCalibrationGroup);
      std::vector<double> costs(etas.size()), wd(static_cast<size_t>(cols));
      calibration_costs(wide, wy.data(), nullptr, Logistic{}, 1e-3, true, 1.0, etas, costs.data(), stop);
      for (size_t t = 0; t < etas.size(); ++t)
        CHECK(costs[t] == calibration_cost(wide, wy.data(), nullptr, Logistic{}, 1e-3, true, 1.0, etas[t], wd, stop));
    }
    // An infinite value in a row: every trial ends at +infinity, as one at a time (the trials that do not
    // move skip their 0 * x there).
    std::vector<double> vals(D.csr_data);
    vals[vals.size() / 2] = std::numeric_limits<double>::infinity();
    const CsrView<int64_t> bad{vals.data(), D.idx.data(), D.ptr.data(), D.n, D.d};
    std::vector<double> costs(etas.size());
    calibration_costs(bad, D.y.data(), nullptr, Hinge{}, 1e-3, true, 1.0, etas, costs.data(), stop);
    std::vector<double> wd(static_cast<size_t>(D.d));
    for (size_t t = 0; t < etas.size(); ++t)
      CHECK(costs[t] == calibration_cost(bad, D.y.data(), nullptr, Hinge{}, 1e-3, true, 1.0, etas[t], wd, stop));
  }
  // Box-capped projection: feasibility and the budget.
  std::vector<double> v = {0.9, 2.0, -1.0, 0.4}, out(4);
  const double theta = project_capped_simplex(v.data(), 4, 1.0, 1.5, out.data());
  CHECK(theta > 0.0);
  CHECK_CLOSE(out[0] + out[1] + out[2] + out[3], 1.5, 1e-14);
  CHECK(out[2] == 0.0 && out[1] <= 1.0);
  return check::report();
}
