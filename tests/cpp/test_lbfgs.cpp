// L-BFGS (lbfgs.hpp): the objective's gradient against central differences (binary losses with weights,
// softmax), convergence to the optimum of a long SAG run, dense == CSR, same input == same bits, a warm
// start at the optimum takes no iteration, the progress callback sees the iterate and can stop the
// fit, an installed interrupt poll stops it inside a pass, bad parameters throw.
#include <robustcore/any_loss.hpp>
#include <robustcore/lbfgs.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/vr.hpp>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "check.hpp"

using namespace robustcore;

namespace {
struct Problem {
  int64_t n = 80, d = 9;
  std::vector<double> dense, data, y, sw;
  std::vector<int64_t> cls;
  std::vector<int32_t> idx, ptr;
  Problem() {
    Rng rng(11);
    dense.assign(static_cast<size_t>(n * d), 0.0);
    ptr.push_back(0);
    for (int64_t i = 0; i < n; ++i) {
      double s = 0.0, t = 0.0;
      for (int64_t j = 0; j < d; ++j) {
        if (rng.uniform() < 0.5) {
          const double v = 2.0 * rng.uniform() - 1.0;
          dense[static_cast<size_t>(i * d + j)] = v;
          data.push_back(v);
          idx.push_back(static_cast<int32_t>(j));
          s += v * (j % 2 == 0 ? 1.0 : -0.7);
          t += v * (j % 3 == 0 ? 1.0 : 0.2);
        }
      }
      ptr.push_back(static_cast<int32_t>(data.size()));
      y.push_back(s + 0.4 * (rng.uniform() - 0.5) > 0.1 ? 1.0 : -1.0);
      cls.push_back(s > 0.2 ? 0 : (t > 0 ? 1 : 2));
      sw.push_back(0.2 + 2.0 * rng.uniform());
    }
  }
  DenseView dv() const { return DenseView{dense.data(), n, d}; }
  CsrView<int32_t> cv() const { return CsrView<int32_t>{data.data(), idx.data(), ptr.data(), n, d}; }
};

/// max |analytic - central difference| / (1 + |analytic|) over every coordinate of (W, b).
template <class Model, class Data>
double gradient_error(const Data& X, const Model& model, const double* sw, double lambda, bool fit_intercept,
                      std::vector<double> W, std::vector<double> b) {
  std::vector<double> G(W.size()), gb(b.size()), G2(W.size()), gb2(b.size());
  lbfgs::objective_gradient(X, model, sw, lambda, fit_intercept, W.data(), b.data(), G.data(), gb.data());
  const double h = 1e-6;
  double worst = 0.0;
  auto probe = [&](double& v, double analytic) {
    const double v0 = v;
    v = v0 + h;
    const double fp = lbfgs::objective_gradient(X, model, sw, lambda, fit_intercept, W.data(), b.data(), G2.data(), gb2.data());
    v = v0 - h;
    const double fm = lbfgs::objective_gradient(X, model, sw, lambda, fit_intercept, W.data(), b.data(), G2.data(), gb2.data());
    v = v0;
    worst = std::max(worst, std::fabs((fp - fm) / (2 * h) - analytic) / (1.0 + std::fabs(analytic)));
  };
  for (size_t q = 0; q < W.size(); ++q) probe(W[q], G[q]);
  for (size_t k = 0; k < b.size(); ++k) {
    if (fit_intercept) probe(b[k], gb[k]);
    else worst = std::max(worst, std::fabs(gb[k]));  // the intercept does not move: its gradient is 0
  }
  return worst;
}

double inf_norm(const std::vector<double>& a) {
  double m = 0.0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

/// One evaluation against a plain oracle (one row at a time through model.value_grad, single-chain dot
/// products): the objective, the gradient and the 0/1 error within rounding. Returns the worst relative
/// difference; `wrong` receives the evaluation's error minus the oracle's.
template <class Model, class Data>
double evaluation_vs_oracle(const Data& X, const Model& model, const double* sw, double lambda, const std::vector<double>& W,
                            const std::vector<double>& b, double& wrong) {
  const int64_t n = X.rows(), d = X.cols(), K = model.K();
  std::vector<double> G(W.size()), gb(b.size()), Go(W.size(), 0.0), gbo(b.size(), 0.0), s(b.size()), g(b.size());
  double err = -1.0;
  const double f = lbfgs::objective_gradient(X, model, sw, lambda, true, W.data(), b.data(), G.data(), gb.data(), &err);
  double lsum = 0.0, errors = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < K; ++k) s[k] = b[k];
    for_each_nz(X.row(i), [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) s[k] += x * W[j * K + k];
    });
    errors += model.wrong(i, s.data(), model.y) ? 1.0 : 0.0;
    const double w_i = sw ? sw[i] : 1.0;
    lsum += w_i * model.value_grad(i, s.data(), w_i, g.data());
    for_each_nz(X.row(i), [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) Go[j * K + k] += x * g[k] / n;
    });
    for (int64_t k = 0; k < K; ++k) gbo[k] += g[k] / n;
  }
  double sq = 0.0;
  for (int64_t q = 0; q < d * K; ++q) sq += W[q] * W[q], Go[q] += lambda * W[q];
  const double fo = lsum / n + 0.5 * lambda * sq;
  wrong = err - errors / n;
  double worst = std::fabs(f - fo) / (1.0 + std::fabs(fo));
  for (size_t q = 0; q < G.size(); ++q) worst = std::max(worst, std::fabs(G[q] - Go[q]) / (1.0 + std::fabs(Go[q])));
  for (size_t k = 0; k < gb.size(); ++k) worst = std::max(worst, std::fabs(gb[k] - gbo[k]) / (1.0 + std::fabs(gbo[k])));
  return worst;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
}  // namespace

int main() {
  Problem P;
  const double lambda = 1e-2;
  // ---- gradient check: every smooth binary loss (run-time dispatch, as bound), weighted, with and without
  // an intercept, at a random point; the softmax model
  {
    Rng rng(5);
    std::vector<double> W(static_cast<size_t>(P.d)), b{0.3};
    for (auto& v : W) v = rng.uniform() - 0.5;
    for (auto kind : {LossKind::Log, LossKind::SquaredHinge, LossKind::ModifiedHuber, LossKind::SmoothRamp}) {
      const BinaryModel<AnySmoothLoss> m{AnySmoothLoss(LossSpec(kind)), P.y.data()};
      for (bool fi : {true, false}) {
        CHECK(gradient_error(P.dv(), m, P.sw.data(), lambda, fi, W, b) < 1e-7);
        CHECK(gradient_error(P.cv(), m, nullptr, lambda, fi, W, b) < 1e-7);
      }
    }
    std::vector<double> Ws(static_cast<size_t>(P.d * 3)), bs{0.1, -0.2, 0.05};
    for (auto& v : Ws) v = rng.uniform() - 0.5;
    const SoftmaxModel sm{3, P.cls.data()};
    CHECK(gradient_error(P.dv(), sm, P.sw.data(), lambda, true, Ws, bs) < 1e-7);
    CHECK(gradient_error(P.cv(), sm, nullptr, lambda, true, Ws, bs) < 1e-7);
  }
  // ---- one evaluation (blocks of rows: 80 = 64 + 16) against a row-at-a-time oracle: both models, both
  // views, with and without weights; so dense == CSR within rounding
  {
    Rng rng(9);
    std::vector<double> W(static_cast<size_t>(P.d)), b{-0.2}, Ws(static_cast<size_t>(P.d * 3)), bs{0.1, -0.2, 0.05};
    for (auto& v : W) v = 4.0 * rng.uniform() - 2.0;
    for (auto& v : Ws) v = 4.0 * rng.uniform() - 2.0;
    const SoftmaxModel sm{3, P.cls.data()};
    for (const double* sw : {static_cast<const double*>(nullptr), static_cast<const double*>(P.sw.data())}) {
      double wrong = 1.0;
      for (auto kind : {LossKind::Log, LossKind::SquaredHinge, LossKind::SmoothRamp}) {
        const BinaryModel<AnySmoothLoss> m{AnySmoothLoss(LossSpec(kind)), P.y.data()};
        CHECK(evaluation_vs_oracle(P.dv(), m, sw, lambda, W, b, wrong) < 1e-13 && wrong == 0.0);
        CHECK(evaluation_vs_oracle(P.cv(), m, sw, lambda, W, b, wrong) < 1e-13 && wrong == 0.0);
      }
      CHECK(evaluation_vs_oracle(P.dv(), sm, sw, lambda, Ws, bs, wrong) < 1e-13 && wrong == 0.0);
      CHECK(evaluation_vs_oracle(P.cv(), sm, sw, lambda, Ws, bs, wrong) < 1e-13 && wrong == 0.0);
    }
  }
  // ---- binary: converges to the optimum (a long SAG run), dense == CSR, same input == same bits
  {
    const BinaryModel<Logistic> m{Logistic{}, P.y.data()};
    vr::VrParams ref;
    ref.method = vr::Method::Sag;
    ref.lambda = lambda;
    ref.max_iter = 4000;
    ref.record_history = false;
    ref.sample_weight = P.sw.data();
    std::vector<double> wref(static_cast<size_t>(P.d), 0.0);
    double bref = 0.0;
    vr::fit(P.dv(), m, ref, wref.data(), &bref);
    double fref, gref;
    evaluate_model(P.dv(), m, P.sw.data(), wref.data(), &bref, lambda, true, &fref, &gref, nullptr);
    CHECK(gref < 1e-10);

    lbfgs::LbfgsParams p;
    p.lambda = lambda;
    p.tol = 1e-9;
    p.sample_weight = P.sw.data();
    std::vector<double> w1(static_cast<size_t>(P.d), 0.0), w2 = w1, w3 = w1;
    std::vector<double> b1{0.0}, b2{0.0}, b3{0.0};
    const Result r1 = lbfgs::fit(P.dv(), m, p, w1.data(), b1.data());
    const Result r2 = lbfgs::fit(P.cv(), m, p, w2.data(), b2.data());
    const Result r3 = lbfgs::fit(P.dv(), m, p, w3.data(), b3.data());
    CHECK(r1.status == Status::Converged);
    CHECK(r1.n_iter >= 3 && r1.n_iter < p.max_iter);
    for (int64_t j = 0; j < P.d; ++j) {
      CHECK_CLOSE(w1[j], wref[j], 1e-7);
      CHECK(std::fabs(w1[j] - w2[j]) <= 1e-12 * (1.0 + std::fabs(w1[j])));  // dense == CSR
    }
    CHECK_CLOSE(b1[0], bref, 1e-7);
    CHECK(std::fabs(b1[0] - b2[0]) <= 1e-12 * (1.0 + std::fabs(b1[0])));
    CHECK(r1.n_iter == r2.n_iter);
    CHECK(same_bits(w1, w3) && same_bits(b1, b3));  // deterministic
    CHECK(same_bits(*r1.history.find("objective"), *r3.history.find("objective")));
    // the stopping rule holds at the solution, the history is that of the iterates
    std::vector<double> G(static_cast<size_t>(P.d)), gb(1);
    const double f = lbfgs::objective_gradient(P.dv(), m, P.sw.data(), lambda, true, w1.data(), b1.data(), G.data(), gb.data());
    CHECK(std::max(inf_norm(G), std::fabs(gb[0])) <= p.tol * std::max(1.0, f));
    CHECK_CLOSE(f, fref, 1e-12);
    const auto& obj = *r1.history.find("objective");
    CHECK(obj.size() == static_cast<size_t>(r1.n_iter) + 1);
    CHECK(obj.back() == f);
    for (size_t t = 1; t < obj.size(); ++t) CHECK(obj[t] <= obj[t - 1]);
    const auto& ev = *r1.history.find("evaluations");
    CHECK(ev.size() == obj.size() && ev.back() >= r1.n_iter + 1);
    // a warm start at the optimum stops before its first iteration; near it, within two
    std::vector<double> w4 = w1, b4 = b1;
    const Result r4 = lbfgs::fit(P.dv(), m, p, w4.data(), b4.data());
    CHECK(r4.status == Status::Converged && r4.n_iter == 0);
    CHECK(same_bits(w4, w1));
    lbfgs::LbfgsParams loose = p;
    loose.tol = 1e-6;
    std::vector<double> w5 = w1, b5 = b1;
    for (auto& v : w5) v *= 1.0 + 1e-6;
    const Result r5 = lbfgs::fit(P.dv(), m, loose, w5.data(), b5.data());
    CHECK(r5.status == Status::Converged && r5.n_iter <= 2);
    // without an intercept the given b stays
    lbfgs::LbfgsParams nb = p;
    nb.fit_intercept = false;
    std::vector<double> w6(static_cast<size_t>(P.d), 0.0), b6{0.25};
    const Result r6 = lbfgs::fit(P.cv(), m, nb, w6.data(), b6.data());
    CHECK(r6.status == Status::Converged && b6[0] == 0.25);
    lbfgs::objective_gradient(P.cv(), m, P.sw.data(), lambda, false, w6.data(), b6.data(), G.data(), gb.data());
    CHECK(inf_norm(G) <= 1e-9);
    // max_iter
    lbfgs::LbfgsParams two = p;
    two.max_iter = 2;
    std::vector<double> w7(static_cast<size_t>(P.d), 0.0), b7{0.0};
    const Result r7 = lbfgs::fit(P.dv(), m, two, w7.data(), b7.data());
    CHECK(r7.status == Status::MaxIter && r7.n_iter == 2);
  }
  // ---- every smooth loss through the run-time dispatch: the gradient rule met, dense == CSR
  for (auto kind : {LossKind::SquaredHinge, LossKind::ModifiedHuber, LossKind::SmoothRamp, LossKind::ReversedGompertz}) {
    const BinaryModel<AnySmoothLoss> m{AnySmoothLoss(LossSpec(kind)), P.y.data()};
    lbfgs::LbfgsParams p;
    p.lambda = lambda;
    p.tol = 1e-9;
    p.max_iter = 500;
    std::vector<double> w1(static_cast<size_t>(P.d), 0.0), w2 = w1, b1{0.0}, b2{0.0};
    const Result r1 = lbfgs::fit(P.dv(), m, p, w1.data(), b1.data());
    lbfgs::fit(P.cv(), m, p, w2.data(), b2.data());
    CHECK(r1.status == Status::Converged);
    std::vector<double> G(static_cast<size_t>(P.d)), gb(1);
    const double f = lbfgs::objective_gradient(P.dv(), m, nullptr, lambda, true, w1.data(), b1.data(), G.data(), gb.data());
    // the gradient rule, or the rounding floor at a point whose gradient is already tiny
    CHECK(std::max(inf_norm(G), std::fabs(gb[0])) <= 1e-7 * std::max(1.0, f));
    for (int64_t j = 0; j < P.d; ++j) CHECK(std::fabs(w1[j] - w2[j]) <= 1e-12 * (1.0 + std::fabs(w1[j])));
  }
  // ---- softmax: converges to a long SAG run's optimum, dense == CSR, same bits
  {
    const int64_t K = 3;
    const SoftmaxModel m{K, P.cls.data()};
    vr::VrParams ref;
    ref.method = vr::Method::Sag;
    ref.lambda = lambda;
    ref.max_iter = 4000;
    ref.record_history = false;
    std::vector<double> wref(static_cast<size_t>(P.d * K), 0.0), bref(K, 0.0);
    vr::fit(P.dv(), m, ref, wref.data(), bref.data());
    lbfgs::LbfgsParams p;
    p.lambda = lambda;
    p.tol = 1e-9;
    std::vector<double> w1(static_cast<size_t>(P.d * K), 0.0), w2 = w1, w3 = w1, b1(K, 0.0), b2 = b1, b3 = b1;
    const Result r1 = lbfgs::fit(P.dv(), m, p, w1.data(), b1.data());
    lbfgs::fit(P.cv(), m, p, w2.data(), b2.data());
    lbfgs::fit(P.dv(), m, p, w3.data(), b3.data());
    CHECK(r1.status == Status::Converged);
    for (size_t q = 0; q < w1.size(); ++q) {
      CHECK_CLOSE(w1[q], wref[q], 1e-7);
      CHECK(std::fabs(w1[q] - w2[q]) <= 1e-12 * (1.0 + std::fabs(w1[q])));
    }
    // the intercepts up to a common shift (softmax is invariant to it; both solvers start from 0 and keep
    // their sum at 0 up to rounding)
    for (int64_t k = 0; k < K; ++k) CHECK_CLOSE(b1[k] - b1[0], bref[k] - bref[0], 1e-7);
    CHECK(same_bits(w1, w3) && same_bits(b1, b3));
  }
  // ---- the progress callback: called before the first iteration (0) and after each, with the iterate in
  // W, b; false stops (interrupted); an installed poll stops inside a pass
  {
    const BinaryModel<Logistic> m{Logistic{}, P.y.data()};
    lbfgs::LbfgsParams p;
    p.lambda = lambda;
    p.tol = 1e-12;
    std::vector<double> w(static_cast<size_t>(P.d), 0.0), b{0.0};
    std::vector<int64_t> calls;
    std::vector<double> seen;
    const Result r = lbfgs::fit(P.dv(), m, p, w.data(), b.data(), [&](int64_t done) {
      calls.push_back(done);
      seen.push_back(w[0]);
      return done < 3;
    });
    CHECK(r.status == Status::Interrupted && r.n_iter == 3);
    CHECK(calls.size() == 4 && calls[0] == 0 && calls[3] == 3);
    CHECK(seen[0] == 0.0 && seen[3] == w[0] && seen[1] != seen[2]);
    std::vector<double> w0(static_cast<size_t>(P.d), 0.0), b0{0.0};
    const Result r0 = lbfgs::fit(P.dv(), m, p, w0.data(), b0.data(), [](int64_t) { return false; });
    CHECK(r0.status == Status::Interrupted && r0.n_iter == 0 && inf_norm(w0) == 0.0);
    const PollFn stop_now = [] { return true; };
    InterruptScope scope(stop_now, 0.0);
    CHECK_THROWS(lbfgs::fit(P.dv(), m, p, w0.data(), b0.data()), Interrupted);
  }
  // ---- bad input
  {
    const BinaryModel<Logistic> m{Logistic{}, P.y.data()};
    std::vector<double> w(static_cast<size_t>(P.d), 0.0), b{0.0};
    lbfgs::LbfgsParams p;
    p.memory = 0;
    CHECK_THROWS(lbfgs::fit(P.dv(), m, p, w.data(), b.data()), std::invalid_argument);
    p = lbfgs::LbfgsParams{};
    p.lambda = -1.0;
    CHECK_THROWS(lbfgs::fit(P.dv(), m, p, w.data(), b.data()), std::invalid_argument);
    p = lbfgs::LbfgsParams{};
    p.tol = NAN;
    CHECK_THROWS(lbfgs::fit(P.dv(), m, p, w.data(), b.data()), std::invalid_argument);
    std::vector<double> bad_y = P.y;
    bad_y[3] = 0.5;
    CHECK_THROWS(lbfgs::fit(P.dv(), BinaryModel<Logistic>{Logistic{}, bad_y.data()}, lbfgs::LbfgsParams{}, w.data(),
                            b.data()),
                 std::invalid_argument);
    std::vector<double> bad_sw = P.sw;
    bad_sw[0] = -1.0;
    p = lbfgs::LbfgsParams{};
    p.sample_weight = bad_sw.data();
    CHECK_THROWS(lbfgs::fit(P.dv(), m, p, w.data(), b.data()), std::invalid_argument);
  }
  return check::report();
}
