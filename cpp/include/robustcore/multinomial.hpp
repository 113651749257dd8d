// Multinomial (softmax) linear model with K weight columns, trained by every variance-reduced solver
// of the variants paper (Algorithms 4.2-4.9: SAGA, SAG, SVRG a/b/c, S2GD, Finito, VR-Lite, Batching and
// Mixed SVRG) and by plain constant-step SGD, for label powerset:
//
//   F(W, b) = (1/n) sum_i sw_i [ logsumexp_k(s_ik) - s_{i y_i} ] + (lambda/2) ||W||_F^2,
//   s_ik = <W_k, x_i> + b_k,   y_i in {0..K-1}.
//
// The gradient of sample i is x_i (p_i - e_{y_i})^T with p_i = softmax(s_i): K scalars per sample, so the
// SAG/SAGA table holds n x K scalars and the SVRG snapshot n x K scalars. W is stored feature-major
// (W[j*K + k]) with one shared scale s (W = s V) and one lazy catch-up clock per feature, as for the
// binary model (vr/lazy.hpp): a step costs O(K nnz of the row), O(K d) only at pass/snapshot boundaries
// (Finito excepted: its per-sample iterates make every step O(K d), as in the binary vr/finito.hpp).
// Each method below mirrors its binary twin line by line (the same draws from IndexStream in the same
// order, the same step-size defaults, batch growth and pass accounting), with the scalar r'_i y_i replaced
// by the K-vector p_i - e_{y_i}:
//   softmax_saga          <-> vr/saga.hpp (SAG with sag = true)
//   softmax_svrg_family   <-> vr/svrg.hpp (SVRG a/b/c, S2GD, Batching SVRG, Mixed SVRG)
//   softmax_vrlite        <-> vr/vrlite.hpp
//   softmax_finito        <-> vr/finito.hpp (n x (d+1) x K table, size-checked first)
//   softmax_sgd           plain SGD: a fresh idx.permutation(n) per pass, constant step, L2 through the scale
// Default steps use L = 0.5 max_i sw_i (||x_i||^2 + fit_intercept) + lambda (the softmax Hessian is
// at most 1/2 in norm) with the same rules as vr::default_step (SGD: 1/(4L), as the SVRG family).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "vr/finito.hpp"
#include "vr/lazy.hpp"

namespace robustcore {
namespace vr {

/// W = s V (feature-major, K columns) with lazily applied dense steps -eta M (see LazyWeights).
class LazyMatrix {
 public:
  LazyMatrix(int64_t d, int64_t K, double eta, double lambda, bool track)
      : d_(d), K_(K), v_(d * K, 0.0), m_(d * K, 0.0), lastC_(d, 0.0), lastP_(track ? d : 0, 0.0),
        lastQ_(track ? d : 0, 0.0), sum_(track ? d * K : 0, 0.0), eta_(eta), a_(1.0 - eta * lambda), track_(track) {
    if (!(a_ > 0.0)) throw std::invalid_argument("step size too large: eta * lambda must be < 1");
  }
  double* m() { return m_.data(); }
  const double* sums() const { return sum_.data(); }
  inline void catch_up(int64_t j) {
    const double dC = C_ - lastC_[j];
    double* v = v_.data() + j * K_;
    const double* m = m_.data() + j * K_;
    if (track_) {
      const double dP = P_ - lastP_[j], dQ = Q_ - lastQ_[j];
      double* s = sum_.data() + j * K_;
      for (int64_t k = 0; k < K_; ++k) s[k] += v[k] * dP - m[k] * (dQ - lastC_[j] * dP);
      lastP_[j] = P_;
      lastQ_[j] = Q_;
    }
    for (int64_t k = 0; k < K_; ++k) v[k] -= m[k] * dC;
    lastC_[j] = C_;
  }
  template <class Row>
  void catch_up_row(const Row& r) { for_each_nz(r, [&](int64_t j, double) { catch_up(j); }); }
  void catch_up_all() { for (int64_t j = 0; j < d_; ++j) catch_up(j); }
  /// scores[k] = <W_k, x> for a caught-up row.
  template <class Row>
  void scores(const Row& r, double* out) const {
    for (int64_t k = 0; k < K_; ++k) out[k] = 0.0;
    for_each_nz(r, [&](int64_t j, double x) {
      const double* v = v_.data() + j * K_;
      for (int64_t k = 0; k < K_; ++k) out[k] += x * v[k];
    });
    for (int64_t k = 0; k < K_; ++k) out[k] *= s_;
  }
  /// One dense step W <- (1 - eta lambda) W - eta [apply_m] M (apply_m = false: Mixed SVRG's plain SGD
  /// steps and softmax SGD, which only shrink).
  void advance(bool apply_m = true) {
    s_ *= a_;
    if (apply_m) C_ += eta_ / s_;
    if (track_) {
      P_ += s_;
      Q_ += s_ * C_;
    }
    if (s_ < LazyWeights::kFoldBelow) {
      catch_up_all();
      for (auto& x : v_) x *= s_;
      reset();
    }
  }
  /// W[j, :] += x * c[:] on a caught-up feature j.
  inline void add(int64_t j, double x, const double* c) {
    double* v = v_.data() + j * K_;
    for (int64_t k = 0; k < K_; ++k) v[k] += x * c[k] / s_;
    if (track_) {
      double* s = sum_.data() + j * K_;
      for (int64_t k = 0; k < K_; ++k) s[k] += x * c[k];
    }
  }
  void materialize(double* out) {
    catch_up_all();
    for (int64_t q = 0; q < d_ * K_; ++q) out[q] = s_ * v_[q];
  }
  void set(const double* W) {
    std::copy(W, W + d_ * K_, v_.begin());
    reset();
  }
  void clear_sums() {
    catch_up_all();
    std::fill(sum_.begin(), sum_.end(), 0.0);
  }

 private:
  void reset() {
    s_ = 1.0;
    C_ = P_ = Q_ = 0.0;
    std::fill(lastC_.begin(), lastC_.end(), 0.0);
    std::fill(lastP_.begin(), lastP_.end(), 0.0);
    std::fill(lastQ_.begin(), lastQ_.end(), 0.0);
  }
  int64_t d_, K_;
  std::vector<double> v_, m_, lastC_, lastP_, lastQ_, sum_;
  double s_ = 1.0, C_ = 0.0, P_ = 0.0, Q_ = 0.0, eta_, a_;
  bool track_;
};

/// g[k] = sw (softmax(s)_k - [k == label]); returns the sample's cross-entropy.
inline double softmax_grad(const double* s, int64_t K, int64_t label, double sw, double* g) {
  double mx = s[0];
  for (int64_t k = 1; k < K; ++k) mx = std::max(mx, s[k]);
  double tot = 0.0;
  for (int64_t k = 0; k < K; ++k) {
    g[k] = std::exp(s[k] - mx);
    tot += g[k];
  }
  for (int64_t k = 0; k < K; ++k) g[k] = sw * (g[k] / tot - (k == label ? 1.0 : 0.0));
  return mx + std::log(tot) - s[label];
}

/// Objective, gradient norm and training 0/1 error of F at (W, b) (any output may be null).
template <class Data>
void softmax_objective(const Data& X, const int64_t* y, int64_t K, const double* W, const double* b, double lambda,
                       bool fit_intercept, const double* sw, double* obj, double* gnorm, double* error = nullptr) {
  const int64_t n = X.rows(), d = X.cols();
  std::vector<double> G(static_cast<size_t>(gnorm ? d * K : 0), 0.0), gb(static_cast<size_t>(K), 0.0),
      s(static_cast<size_t>(K)), g(static_cast<size_t>(K));
  double lsum = 0.0;
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto r = X.row(i);
    for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] = b[k];
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] += x * W[j * K + k];
    });
    if (std::max_element(s.begin(), s.end()) - s.begin() != y[i]) ++wrong;
    const double w_i = sw ? sw[i] : 1.0;
    lsum += w_i * softmax_grad(s.data(), K, y[i], w_i, g.data());
    if (!gnorm) continue;
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) G[static_cast<size_t>(j * K + k)] += x * g[static_cast<size_t>(k)] / n;
    });
    for (int64_t k = 0; k < K; ++k) gb[static_cast<size_t>(k)] += g[static_cast<size_t>(k)] / n;
  }
  double sq = 0.0, g2 = 0.0;
  for (int64_t q = 0; q < d * K; ++q) {
    sq += W[q] * W[q];
    if (gnorm) {
      const double gq = G[static_cast<size_t>(q)] + lambda * W[q];
      g2 += gq * gq;
    }
  }
  if (fit_intercept)
    for (double v : gb) g2 += v * v;
  if (obj) *obj = lsum / static_cast<double>(n) + 0.5 * lambda * sq;
  if (gnorm) *gnorm = std::sqrt(g2);
  if (error) *error = n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

/// Fraction of rows whose arg-max score is not their label (labels outside 0..K-1, e.g. -1 for a class
/// never seen in training, always count as errors).
template <class Data>
double softmax_error(const Data& X, const int64_t* y, int64_t K, const double* W, const double* b) {
  const int64_t n = X.rows();
  std::vector<double> s(static_cast<size_t>(K));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] = b[k];
    for_each_nz(X.row(i), [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] += x * W[j * K + k];
    });
    if (std::max_element(s.begin(), s.end()) - s.begin() != y[i]) ++wrong;
  }
  return n ? static_cast<double>(wrong) / static_cast<double>(n) : 0.0;
}

/// The softmax problem: data, labels, K, parameters, optional evaluation set, and the per-sample
/// gradient g = sw_i (softmax(s_i) - e_{y_i}) at a dense (W, b) or at the lazy iterate.
template <class Data>
struct SoftmaxProblem {
  const Data& X;
  const int64_t* y;
  int64_t K;
  const VrParams& p;
  const Data* X_test = nullptr;
  const int64_t* y_test = nullptr;
  mutable std::vector<double> sc = std::vector<double>(static_cast<size_t>(K));

  /// out = gradient factor of sample i at the dense (W, b).
  template <class Row>
  void grad_at(int64_t i, const Row& r, const double* W, const double* b, double* out) const {
    for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] = b[k];
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] += x * W[j * K + k];
    });
    softmax_grad(sc.data(), K, y[i], sw(p, i), out);
  }
  /// out = gradient factor of sample i at the lazy iterate (catches the row's features up first).
  template <class Row>
  void grad_lazy(int64_t i, const Row& r, LazyMatrix& Wl, const double* b, double* out) const {
    Wl.catch_up_row(r);
    Wl.scores(r, sc.data());
    for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] += b[k];
    softmax_grad(sc.data(), K, y[i], sw(p, i), out);
  }
};

/// Per-pass bookkeeping of the softmax drivers (the twin of PassMonitor in vr/lazy.hpp): history
/// (objective, gradient norm, train error, test error with an evaluation set), divergence, the tol rule,
/// the progress callback. Seconds exclude the history evaluation.
template <class Data>
class SoftmaxMonitor {
 public:
  SoftmaxMonitor(const SoftmaxProblem<Data>& P, VrResult& res, ProgressFn progress)
      : P_(P), res_(res), progress_(std::move(progress)), prev_(static_cast<size_t>(P.X.cols() * P.K), 0.0),
        t0_(std::chrono::steady_clock::now()) {}
  bool end_pass(const double* W, const double* b, double passes_done, int64_t count) {
    const VrParams& p = P_.p;
    const int64_t dK = P_.X.cols() * P_.K, K = P_.K;
    elapsed_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    bool finite = true;
    double dmax = 0.0, wmax = 0.0;
    for (int64_t q = 0; q < dK; ++q) {
      if (!std::isfinite(W[q])) finite = false;
      dmax = std::max(dmax, std::fabs(W[q] - prev_[static_cast<size_t>(q)]));
      wmax = std::max(wmax, std::fabs(W[q]));
      prev_[static_cast<size_t>(q)] = W[q];
    }
    for (int64_t k = 0; k < K; ++k) finite = finite && std::isfinite(b[k]);
    if (p.record_history) {
      double obj = NAN, gn = NAN, err = NAN;
      if (finite) softmax_objective(P_.X, P_.y, K, W, b, p.lambda, p.fit_intercept, p.sample_weight, &obj, &gn, &err);
      res_.trace.objective.push_back(obj);
      res_.trace.grad_norm.push_back(gn);
      res_.trace.train_error.push_back(err);
      if (P_.X_test && P_.y_test)
        res_.trace.test_error.push_back(finite ? softmax_error(*P_.X_test, P_.y_test, K, W, b) : NAN);
    }
    res_.trace.seconds.push_back(elapsed_);
    res_.passes.push_back(passes_done);
    res_.passes_done = passes_done;
    if (!finite) { res_.status = Status::Diverged; return false; }
    if (p.tol > 0.0 && count > 1 && dmax <= p.tol * wmax) { res_.status = Status::Converged; return false; }
    // the progress callback counts effective passes (rounded down), the unit of VrParams::passes
    if (progress_ && !progress_(static_cast<int64_t>(std::floor(passes_done)))) {
      res_.status = Status::Interrupted;
      return false;
    }
    t0_ = std::chrono::steady_clock::now();
    return true;
  }
  void restart_clock() { t0_ = std::chrono::steady_clock::now(); }

 private:
  const SoftmaxProblem<Data>& P_;
  VrResult& res_;
  ProgressFn progress_;
  std::vector<double> prev_;
  std::chrono::steady_clock::time_point t0_;
  double elapsed_ = 0.0;
};

/// SAGA (Alg. 4.3) and, with sag = true, SAG (Alg. 4.4); mirrors vr/saga.hpp. Draws: idx.below(n) per step.
template <class Data>
VrResult softmax_saga(const SoftmaxProblem<Data>& P, double eta, double* W, double* b, IndexStream& idx,
                      ProgressFn progress, bool sag) {
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K;
  const size_t Kz = static_cast<size_t>(K);
  const double inv_n = 1.0 / static_cast<double>(n);
  VrResult res;
  res.eta = eta;
  SoftmaxMonitor<Data> mon(P, res, std::move(progress));
  mon.end_pass(W, b, 0.0, 0);
  mon.restart_clock();
  LazyMatrix Wl(d, K, eta, p.lambda, false);
  Wl.set(W);
  double* m = Wl.m();
  std::vector<double> u(static_cast<size_t>(n) * Kz), mb(Kz, 0.0), g(Kz), c(Kz);
  for (int64_t i = 0; i < n; ++i) {  // the table at the initial point (lines 2-4)
    const auto r = P.X.row(i);
    double* ui = u.data() + static_cast<size_t>(i) * Kz;
    P.grad_at(i, r, W, b, ui);
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * ui[k] * inv_n;
    });
    for (int64_t k = 0; k < K; ++k) mb[static_cast<size_t>(k)] += ui[k] * inv_n;
  }
  int64_t count = 1;
  if (!mon.end_pass(W, b, 1.0, count)) return res;
  while (count < p.passes) {
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = idx.below(n);
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, Wl, b, g.data());
      double* ui = u.data() + static_cast<size_t>(i) * Kz;
      for (size_t k = 0; k < Kz; ++k) {
        c[k] = g[k] - ui[k];
        ui[k] = g[k];
      }
      if (sag) {
        for_each_nz(r, [&](int64_t j, double x) {
          for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * c[static_cast<size_t>(k)] * inv_n;
        });
        for (size_t k = 0; k < Kz; ++k) mb[k] += c[k] * inv_n;
        Wl.advance();
        Wl.catch_up_row(r);
        if (p.fit_intercept)
          for (size_t k = 0; k < Kz; ++k) b[k] -= eta * mb[k];
      } else {
        Wl.advance();
        Wl.catch_up_row(r);  // this step's dense term uses the table mean before the update
        for (size_t k = 0; k < Kz; ++k) g[k] = -eta * c[k];
        for_each_nz(r, [&](int64_t j, double x) {
          Wl.add(j, x, g.data());
          for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * c[static_cast<size_t>(k)] * inv_n;
        });
        for (size_t k = 0; k < Kz; ++k) {
          if (p.fit_intercept) b[k] -= eta * (c[k] + mb[k]);
          mb[k] += c[k] * inv_n;
        }
      }
    }
    ++count;
    Wl.materialize(W);
    if (!mon.end_pass(W, b, static_cast<double>(count), count)) return res;
  }
  return res;
}

/// SVRG (Alg. 4.2, options a/b/c), S2GD (4.5), Batching SVRG (4.8) and Mixed SVRG (4.9); mirrors
/// vr/svrg.hpp: the same snapshot/batch rules, batch growth, effective-pass accounting and draws per outer
/// iteration (the batch as the first B entries of idx.permutation(n) for Batching/Mixed; the chosen inner
/// iterate for option (c), S2GD, Batching and Mixed; then m x idx.below(n)). During the inner loop W[]
/// holds the snapshot W_k (the lazy iterate lives in Wl), so snapshot gradients outside the batch are
/// computed from W[] on the fly.
template <class Data>
VrResult softmax_svrg_family(const SoftmaxProblem<Data>& P, double eta, double* W, double* b, IndexStream& idx,
                             ProgressFn progress) {
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K;
  const size_t Kz = static_cast<size_t>(K);
  const Method meth = p.method;
  const bool batching = meth == Method::BatchingSvrg || meth == Method::MixedSvrg;
  const bool mixed = meth == Method::MixedSvrg;
  const bool average = meth == Method::Svrg && p.option == SvrgOption::Average;
  const bool pick = meth != Method::Svrg || p.option == SvrgOption::Random;
  const int64_t m_inner = p.inner > 0 ? p.inner : n;
  int64_t B = batching ? std::min(n, p.batch > 0 ? p.batch : std::max<int64_t>(1, n / 8)) : n;
  const double nu = p.s2gd_nu >= 0.0 ? p.s2gd_nu : p.lambda;
  VrResult res;
  res.eta = eta;
  SoftmaxMonitor<Data> mon(P, res, std::move(progress));
  mon.end_pass(W, b, 0.0, 0);
  mon.restart_clock();
  LazyMatrix Wl(d, K, eta, p.lambda, average);
  Wl.set(W);
  double* mu = Wl.m();
  std::vector<double> u(static_cast<size_t>(n) * Kz), mub(Kz), g(Kz), gsn(Kz), c(Kz), bk(Kz), bsum(Kz), bpick(Kz),
      wpick(pick ? static_cast<size_t>(d * K) : 0);
  std::vector<char> in_batch(static_cast<size_t>(n), batching ? 0 : 1);
  std::vector<int64_t> perm;
  double evals = 0.0;  // gradient evaluations
  int64_t count = 0;
  while (evals < static_cast<double>(p.passes) * static_cast<double>(n)) {
    // snapshot (Wl is caught up and W[] holds it here)
    std::copy(b, b + K, bk.begin());
    if (batching) {
      idx.permutation(n, perm);
      std::fill(in_batch.begin(), in_batch.end(), 0);
      for (int64_t k = 0; k < B; ++k) in_batch[static_cast<size_t>(perm[static_cast<size_t>(k)])] = 1;
    }
    std::fill(mu, mu + d * K, 0.0);
    std::fill(mub.begin(), mub.end(), 0.0);
    const double inv_b = 1.0 / static_cast<double>(B);
    for (int64_t i = 0; i < n; ++i) {
      if (!in_batch[static_cast<size_t>(i)]) continue;
      const auto r = P.X.row(i);
      double* ui = u.data() + static_cast<size_t>(i) * Kz;
      P.grad_at(i, r, W, bk.data(), ui);
      for_each_nz(r, [&](int64_t j, double x) {
        for (int64_t k = 0; k < K; ++k) mu[j * K + k] += x * ui[k] * inv_b;
      });
      for (size_t k = 0; k < Kz; ++k) mub[k] += ui[k] * inv_b;
    }
    evals += static_cast<double>(B);
    const int64_t B_next = std::min<int64_t>(n, static_cast<int64_t>(std::ceil(p.batch_growth * static_cast<double>(B))));
    int64_t chosen = -1;
    if (pick) chosen = meth == Method::S2gd ? idx.geometric(m_inner, 1.0 - nu * eta) : idx.below(m_inner);
    if (average) Wl.clear_sums();
    std::fill(bsum.begin(), bsum.end(), 0.0);
    for (int64_t t = 0; t < m_inner; ++t) {
      const int64_t i = idx.below(n);
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, Wl, b, g.data());
      evals += 1.0;
      if (mixed && !in_batch[static_cast<size_t>(i)]) {  // plain SGD step: no correction, no dense term
        for (size_t k = 0; k < Kz; ++k) c[k] = -eta * g[k];
        Wl.advance(false);
        Wl.catch_up_row(r);
        for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, c.data()); });
        if (p.fit_intercept)
          for (size_t k = 0; k < Kz; ++k) b[k] += c[k];
      } else {
        const double* gs = u.data() + static_cast<size_t>(i) * Kz;
        if (!in_batch[static_cast<size_t>(i)]) {
          P.grad_at(i, r, W, bk.data(), gsn.data());
          gs = gsn.data();
          evals += 1.0;
        }
        for (size_t k = 0; k < Kz; ++k) c[k] = -eta * (g[k] - gs[k]);
        Wl.advance(true);
        Wl.catch_up_row(r);
        for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, c.data()); });
        if (p.fit_intercept)
          for (size_t k = 0; k < Kz; ++k) b[k] += c[k] - eta * mub[k];
      }
      for (size_t k = 0; k < Kz; ++k) bsum[k] += b[k];
      if (t == chosen) {
        Wl.materialize(wpick.data());
        std::copy(b, b + K, bpick.begin());
      }
    }
    if (average) {
      Wl.catch_up_all();
      for (int64_t q = 0; q < d * K; ++q) W[q] = Wl.sums()[q] / static_cast<double>(m_inner);
      Wl.set(W);
      for (size_t k = 0; k < Kz; ++k) b[k] = bsum[k] / static_cast<double>(m_inner);
    } else if (pick) {
      std::copy(wpick.begin(), wpick.end(), W);
      Wl.set(W);
      std::copy(bpick.begin(), bpick.end(), b);
    } else {
      Wl.materialize(W);
    }
    ++count;
    B = B_next;
    if (!mon.end_pass(W, b, evals / static_cast<double>(n), count)) return res;
  }
  return res;
}

/// VR-Lite (Alg. 4.7); mirrors vr/vrlite.hpp: pass 1 is SGD with replacement (idx.below(n) per step)
/// recording the mean iterate and the mean gradient; each later pass (one idx.permutation(n)) corrects
/// with the previous pass's mean iterate and mean gradient and costs 2 effective passes.
template <class Data>
VrResult softmax_vrlite(const SoftmaxProblem<Data>& P, double eta, double* W, double* b, IndexStream& idx,
                        ProgressFn progress) {
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K;
  const size_t Kz = static_cast<size_t>(K), dK = static_cast<size_t>(d * K);
  const double inv_n = 1.0 / static_cast<double>(n);
  VrResult res;
  res.eta = eta;
  SoftmaxMonitor<Data> mon(P, res, std::move(progress));
  mon.end_pass(W, b, 0.0, 0);
  mon.restart_clock();
  if (p.passes < 1) return res;
  LazyMatrix Wl(d, K, eta, p.lambda, true);
  Wl.set(W);
  std::vector<double> wbar(dK), gbar(dK, 0.0), gnext(dK, 0.0), gbar_b(Kz, 0.0), gnext_b(Kz, 0.0), bsum(Kz, 0.0),
      bbar(Kz), g(Kz), gs(Kz), c(Kz);
  std::vector<int64_t> perm;
  auto accumulate = [&](const auto& r, std::vector<double>& G, std::vector<double>& Gb) {
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) G[static_cast<size_t>(j * K + k)] += x * g[static_cast<size_t>(k)] * inv_n;
    });
    for (size_t k = 0; k < Kz; ++k) Gb[k] += g[k] * inv_n;
  };
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = idx.below(n);
    const auto r = P.X.row(i);
    P.grad_lazy(i, r, Wl, b, g.data());
    for (size_t k = 0; k < Kz; ++k) c[k] = -eta * g[k];
    Wl.advance();
    Wl.catch_up_row(r);
    for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, c.data()); });
    accumulate(r, gbar, gbar_b);
    for (size_t k = 0; k < Kz; ++k) {
      if (p.fit_intercept) b[k] += c[k];
      bsum[k] += b[k];
    }
  }
  Wl.catch_up_all();
  for (size_t q = 0; q < dK; ++q) wbar[q] = Wl.sums()[q] * inv_n;
  for (size_t k = 0; k < Kz; ++k) bbar[k] = bsum[k] * inv_n;
  double evals = static_cast<double>(n);
  int64_t count = 1;
  Wl.materialize(W);
  if (!mon.end_pass(W, b, 1.0, count)) return res;
  while (evals < static_cast<double>(p.passes) * static_cast<double>(n)) {
    std::copy(gbar.begin(), gbar.end(), Wl.m());  // all features are caught up here
    Wl.clear_sums();
    std::fill(gnext.begin(), gnext.end(), 0.0);
    std::fill(gnext_b.begin(), gnext_b.end(), 0.0);
    std::fill(bsum.begin(), bsum.end(), 0.0);
    idx.permutation(n, perm);
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = perm[static_cast<size_t>(step)];
      const auto r = P.X.row(i);
      P.grad_lazy(i, r, Wl, b, g.data());
      P.grad_at(i, r, wbar.data(), bbar.data(), gs.data());
      for (size_t k = 0; k < Kz; ++k) c[k] = -eta * (g[k] - gs[k]);
      Wl.advance();
      Wl.catch_up_row(r);
      for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, c.data()); });
      accumulate(r, gnext, gnext_b);
      for (size_t k = 0; k < Kz; ++k) {
        if (p.fit_intercept) b[k] += c[k] - eta * gbar_b[k];
        bsum[k] += b[k];
      }
    }
    Wl.catch_up_all();
    for (size_t q = 0; q < dK; ++q) wbar[q] = Wl.sums()[q] * inv_n;
    for (size_t k = 0; k < Kz; ++k) bbar[k] = bsum[k] * inv_n;
    gbar.swap(gnext);
    gbar_b.swap(gnext_b);
    evals += 2.0 * static_cast<double>(n);
    ++count;
    Wl.materialize(W);
    if (!mon.end_pass(W, b, evals * inv_n, count)) return res;
  }
  return res;
}

/// Finito (Alg. 4.6); mirrors vr/finito.hpp: one iterate (W, b) per sample (an n x (d+1) x K table,
/// checked against max_dense_bytes first) and one gradient K-vector per sample; a fresh
/// idx.permutation(n) per pass; every step is O(K d).
template <class Data>
VrResult softmax_finito(const SoftmaxProblem<Data>& P, double eta, double* W, double* b, IndexStream& idx,
                        ProgressFn progress) {
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K;
  finito_check_size(n, d, p.max_dense_bytes, K);
  const size_t Kz = static_cast<size_t>(K), D = static_cast<size_t>(d * K);
  const double inv_n = 1.0 / static_cast<double>(n);
  VrResult res;
  res.eta = eta;
  SoftmaxMonitor<Data> mon(P, res, std::move(progress));
  mon.end_pass(W, b, 0.0, 0);
  mon.restart_clock();
  std::vector<double> phi(static_cast<size_t>(n) * D), phib(static_cast<size_t>(n) * Kz), u(static_cast<size_t>(n) * Kz);
  std::vector<double> phibar(W, W + D), gbar(D, 0.0), phibar_b(b, b + K), gbar_b(Kz, 0.0), wk(D), bk(Kz), g(Kz);
  for (int64_t i = 0; i < n; ++i) {
    std::copy(W, W + D, phi.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * D));
    std::copy(b, b + K, phib.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(i) * Kz));
    const auto r = P.X.row(i);
    double* ui = u.data() + static_cast<size_t>(i) * Kz;
    P.grad_at(i, r, W, b, ui);
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) gbar[static_cast<size_t>(j * K + k)] += x * ui[k] * inv_n;
    });
    for (size_t k = 0; k < Kz; ++k) gbar_b[k] += ui[k] * inv_n;
  }
  int64_t count = 1;
  if (!mon.end_pass(W, b, 1.0, count)) return res;
  std::vector<int64_t> perm;
  while (count < p.passes) {
    idx.permutation(n, perm);
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = perm[static_cast<size_t>(step)];
      double* ph = phi.data() + static_cast<size_t>(i) * D;
      double* phb = phib.data() + static_cast<size_t>(i) * Kz;
      for (size_t q = 0; q < D; ++q) {
        wk[q] = phibar[q] - eta * (gbar[q] + p.lambda * phibar[q]);
        phibar[q] += (wk[q] - ph[q]) * inv_n;
        ph[q] = wk[q];
      }
      for (size_t k = 0; k < Kz; ++k) {
        bk[k] = p.fit_intercept ? phibar_b[k] - eta * gbar_b[k] : b[k];
        phibar_b[k] += (bk[k] - phb[k]) * inv_n;
        phb[k] = bk[k];
      }
      const auto r = P.X.row(i);
      P.grad_at(i, r, wk.data(), bk.data(), g.data());
      double* ui = u.data() + static_cast<size_t>(i) * Kz;
      for (size_t k = 0; k < Kz; ++k) {
        const double delta = g[k] - ui[k];
        ui[k] = g[k];
        g[k] = delta;
        gbar_b[k] += delta * inv_n;
      }
      for_each_nz(r, [&](int64_t j, double x) {
        for (int64_t k = 0; k < K; ++k) gbar[static_cast<size_t>(j * K + k)] += x * g[static_cast<size_t>(k)] * inv_n;
      });
    }
    ++count;
    for (size_t q = 0; q < D; ++q) W[q] = phibar[q] - eta * (gbar[q] + p.lambda * phibar[q]);
    if (p.fit_intercept)
      for (size_t k = 0; k < Kz; ++k) b[k] = phibar_b[k] - eta * gbar_b[k];
    if (!mon.end_pass(W, b, static_cast<double>(count), count)) return res;
  }
  return res;
}

/// Plain SGD with a constant step: each pass visits idx.permutation(n) and takes
///   W <- (1 - eta lambda) W - eta x_i g_i^T,   b <- b - eta g_i
/// with the L2 shrinkage in the scale (no dense term, so no catch-up): O(K nnz) per step.
template <class Data>
VrResult softmax_sgd(const SoftmaxProblem<Data>& P, double eta, double* W, double* b, IndexStream& idx,
                     ProgressFn progress) {
  const VrParams& p = P.p;
  const int64_t n = P.X.rows(), d = P.X.cols(), K = P.K;
  const size_t Kz = static_cast<size_t>(K);
  VrResult res;
  res.eta = eta;
  SoftmaxMonitor<Data> mon(P, res, std::move(progress));
  mon.end_pass(W, b, 0.0, 0);
  mon.restart_clock();
  LazyMatrix Wl(d, K, eta, p.lambda, false);
  Wl.set(W);
  std::vector<double> g(Kz);
  std::vector<int64_t> perm;
  int64_t count = 0;
  while (count < p.passes) {
    idx.permutation(n, perm);
    for (int64_t step = 0; step < n; ++step) {
      prefetch_ahead(P.X, perm.data(), step, n);
      const int64_t i = perm[static_cast<size_t>(step)];
      const auto r = P.X.row(i);
      Wl.scores(r, P.sc.data());  // M = 0 and advance(false): every feature is always up to date
      for (size_t k = 0; k < Kz; ++k) P.sc[k] += b[k];
      softmax_grad(P.sc.data(), K, P.y[i], sw(p, i), g.data());
      for (size_t k = 0; k < Kz; ++k) g[k] *= -eta;
      Wl.advance(false);
      for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, g.data()); });
      if (p.fit_intercept)
        for (size_t k = 0; k < Kz; ++k) b[k] += g[k];
    }
    ++count;
    Wl.materialize(W);
    if (!mon.end_pass(W, b, static_cast<double>(count), count)) return res;
  }
  return res;
}

/// Fit the softmax model from the initial W (d x K feature-major) and b (K), both in/out, by any
/// Method (see the file comment). `injected` (length len) replaces the Rng's draws (tests);
/// X_test / y_test (optional, labels in 0..K-1 or -1 for a class never seen in training) add the test
/// error per effective pass to the history.
template <class Data>
VrResult softmax_fit(const Data& X, const int64_t* y, int64_t K, const VrParams& p, double* W, double* b,
                     const int64_t* injected = nullptr, int64_t len = 0, ProgressFn progress = nullptr,
                     const Data* X_test = nullptr, const int64_t* y_test = nullptr) {
  p.validate();
  const int64_t n = X.rows(), d = X.cols();
  if (n < 1) throw std::invalid_argument("the softmax solvers need at least one sample");
  if (K < 2) throw std::invalid_argument("the softmax model needs K >= 2 classes");
  for (int64_t i = 0; i < n; ++i)
    if (y[i] < 0 || y[i] >= K)
      throw std::invalid_argument("class label " + std::to_string(y[i]) + " out of range [0, " + std::to_string(K) + ")");
  if (X_test && X_test->cols() != d) throw std::invalid_argument("the test set has a different number of features");
  if (X_test && !y_test) throw std::invalid_argument("X_test given without y_test");
  if (p.sample_weight)
    for (int64_t i = 0; i < n; ++i)
      if (!(p.sample_weight[i] >= 0.0) || !std::isfinite(p.sample_weight[i]))
        throw std::invalid_argument("sample weights must be finite and >= 0");
  const Method meth = p.method;
  if (meth == Method::Finito) finito_check_size(n, d, p.max_dense_bytes, K);
  double mx = 0.0;
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, sw(p, i) * (sqnorm(X.row(i)) + (p.fit_intercept ? 1.0 : 0.0)));
  const double L = 0.5 * (mx > 0 ? mx : 1.0) + p.lambda;
  const double eta = p.eta > 0.0 ? p.eta : default_step(meth, L, p.lambda, n);
  if (!(eta * p.lambda < 1.0)) throw std::invalid_argument("step size too large: eta * lambda must be < 1");
  IndexStream idx(p.seed, injected, len);
  const SoftmaxProblem<Data> P{X, y, K, p, X_test, y_test};
  switch (meth) {
    case Method::Saga: return softmax_saga(P, eta, W, b, idx, std::move(progress), false);
    case Method::Sag: return softmax_saga(P, eta, W, b, idx, std::move(progress), true);
    case Method::Svrg:
    case Method::S2gd:
    case Method::BatchingSvrg:
    case Method::MixedSvrg: return softmax_svrg_family(P, eta, W, b, idx, std::move(progress));
    case Method::VrLite: return softmax_vrlite(P, eta, W, b, idx, std::move(progress));
    case Method::Finito: return softmax_finito(P, eta, W, b, idx, std::move(progress));
    case Method::Sgd: return softmax_sgd(P, eta, W, b, idx, std::move(progress));
  }
  throw std::invalid_argument("unknown softmax method");
}

}  // namespace vr
}  // namespace robustcore
