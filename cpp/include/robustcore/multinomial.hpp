// Multinomial (softmax) linear model with K weight columns, trained by the variance-reduced solvers
// SAGA, SAG, SVRG (options a/b/c) and S2GD (variants paper Algorithms 4.2-4.5), for label powerset:
//
//   F(W, b) = (1/n) sum_i sw_i [ logsumexp_k(s_ik) - s_{i y_i} ] + (lambda/2) ||W||_F^2,
//   s_ik = <W_k, x_i> + b_k,   y_i in {0..K-1}.
//
// The gradient of sample i is x_i (p_i - e_{y_i})^T with p_i = softmax(s_i): K scalars per sample, so the
// SAG/SAGA table holds n x K scalars and the SVRG snapshot n x K scalars. W is stored feature-major
// (W[j*K + k]) with one shared scale s (W = s V) and one lazy catch-up clock per feature, as for the
// binary model (vr/lazy.hpp): a step costs O(K nnz of the row), O(K d) only at pass/snapshot boundaries.
// Default steps use L = 0.5 max_i sw_i (||x_i||^2 + fit_intercept) + lambda (the softmax Hessian is
// at most 1/2 in norm) with the same rules as vr::default_step.
#pragma once

#include <cmath>
#include <vector>

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
  void advance() {
    s_ *= a_;
    C_ += eta_ / s_;
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

/// Objective and gradient norm of F at (W, b).
template <class Data>
void softmax_objective(const Data& X, const int64_t* y, int64_t K, const double* W, const double* b, double lambda,
                       bool fit_intercept, const double* sw, double* obj, double* gnorm) {
  const int64_t n = X.rows(), d = X.cols();
  std::vector<double> G(static_cast<size_t>(d * K), 0.0), gb(static_cast<size_t>(K), 0.0), s(static_cast<size_t>(K)),
      g(static_cast<size_t>(K));
  double lsum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const auto r = X.row(i);
    for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] = b[k];
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) s[static_cast<size_t>(k)] += x * W[j * K + k];
    });
    const double w_i = sw ? sw[i] : 1.0;
    lsum += w_i * softmax_grad(s.data(), K, y[i], w_i, g.data());
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) G[static_cast<size_t>(j * K + k)] += x * g[static_cast<size_t>(k)] / n;
    });
    for (int64_t k = 0; k < K; ++k) gb[static_cast<size_t>(k)] += g[static_cast<size_t>(k)] / n;
  }
  double sq = 0.0, g2 = 0.0;
  for (int64_t q = 0; q < d * K; ++q) {
    sq += W[q] * W[q];
    const double gq = G[static_cast<size_t>(q)] + lambda * W[q];
    g2 += gq * gq;
  }
  if (fit_intercept)
    for (double v : gb) g2 += v * v;
  if (obj) *obj = lsum / static_cast<double>(n) + 0.5 * lambda * sq;
  if (gnorm) *gnorm = std::sqrt(g2);
}

/// Fit the softmax model from the initial W (d x K feature-major) and b (K), both in/out.
/// Methods: Saga, Sag, Svrg (p.option), S2gd; draws as in the binary solvers (saga.hpp, svrg.hpp).
template <class Data>
VrResult softmax_fit(const Data& X, const int64_t* y, int64_t K, const VrParams& p, double* W, double* b,
                     const int64_t* injected = nullptr, int64_t len = 0, ProgressFn progress = nullptr) {
  p.validate();
  const int64_t n = X.rows(), d = X.cols();
  if (n < 1) throw std::invalid_argument("the softmax solvers need at least one sample");
  if (K < 2) throw std::invalid_argument("the softmax model needs K >= 2 classes");
  for (int64_t i = 0; i < n; ++i)
    if (y[i] < 0 || y[i] >= K)
      throw std::invalid_argument("class label " + std::to_string(y[i]) + " out of range [0, " + std::to_string(K) + ")");
  const Method meth = p.method;
  if (meth != Method::Saga && meth != Method::Sag && meth != Method::Svrg && meth != Method::S2gd)
    throw std::invalid_argument(std::string("the softmax model supports saga, sag, svrg and s2gd, not ") + method_name(meth));
  double mx = 0.0;
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, sw(p, i) * (sqnorm(X.row(i)) + (p.fit_intercept ? 1.0 : 0.0)));
  const double L = 0.5 * (mx > 0 ? mx : 1.0) + p.lambda;
  const double eta = p.eta > 0.0 ? p.eta : default_step(meth, L, p.lambda, n);
  IndexStream idx(p.seed, injected, len);
  const double inv_n = 1.0 / static_cast<double>(n);
  const size_t Kz = static_cast<size_t>(K);
  VrResult res;
  res.eta = eta;
  std::vector<double> prev(static_cast<size_t>(d * K), 0.0), sc(Kz), g(Kz), c(Kz);
  auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  int64_t count = 0;
  // per-pass bookkeeping (history, divergence, tol, progress)
  auto end_pass = [&](double passes_done) -> bool {
    elapsed += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bool finite = true;
    double dmax = 0.0, wmax = 0.0;
    for (int64_t q = 0; q < d * K; ++q) {
      if (!std::isfinite(W[q])) finite = false;
      dmax = std::max(dmax, std::fabs(W[q] - prev[static_cast<size_t>(q)]));
      wmax = std::max(wmax, std::fabs(W[q]));
      prev[static_cast<size_t>(q)] = W[q];
    }
    for (int64_t k = 0; k < K; ++k) finite = finite && std::isfinite(b[k]);
    if (p.record_history) {
      double obj = NAN, gn = NAN;
      if (finite) softmax_objective(X, y, K, W, b, p.lambda, p.fit_intercept, p.sample_weight, &obj, &gn);
      res.trace.objective.push_back(obj);
      res.trace.grad_norm.push_back(gn);
    }
    res.trace.seconds.push_back(elapsed);
    res.passes.push_back(passes_done);
    res.passes_done = passes_done;
    t0 = std::chrono::steady_clock::now();
    if (!finite) { res.status = Status::Diverged; return false; }
    if (p.tol > 0.0 && count > 1 && dmax <= p.tol * wmax) { res.status = Status::Converged; return false; }
    if (progress && !progress(count)) { res.status = Status::Interrupted; return false; }
    return true;
  };
  end_pass(0.0);
  const bool average = meth == Method::Svrg && p.option == SvrgOption::Average;
  LazyMatrix Wl(d, K, eta, p.lambda, average);
  Wl.set(W);
  double* m = Wl.m();
  std::vector<double> u(static_cast<size_t>(n) * Kz), mb(Kz, 0.0);
  auto sample_grad = [&](int64_t i, const auto& r, const double* Wd, const double* bd, double* out) {
    for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] = bd[k];
    for_each_nz(r, [&](int64_t j, double x) {
      for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] += x * Wd[j * K + k];
    });
    softmax_grad(sc.data(), K, y[i], sw(p, i), out);
  };
  auto table_pass = [&](const double* bk) {  // u_i = grad at the current (materialised) W, M = mean
    std::fill(m, m + d * K, 0.0);
    std::fill(mb.begin(), mb.end(), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const auto r = X.row(i);
      double* ui = u.data() + static_cast<size_t>(i) * Kz;
      sample_grad(i, r, W, bk, ui);
      for_each_nz(r, [&](int64_t j, double x) {
        for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * ui[k] * inv_n;
      });
      for (int64_t k = 0; k < K; ++k) mb[static_cast<size_t>(k)] += ui[k] * inv_n;
    }
  };
  if (meth == Method::Saga || meth == Method::Sag) {
    table_pass(b);
    count = 1;
    if (!end_pass(1.0)) return res;
    const bool sag = meth == Method::Sag;
    while (count < p.passes) {
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = idx.below(n);
        const auto r = X.row(i);
        Wl.catch_up_row(r);
        Wl.scores(r, sc.data());
        for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] += b[k];
        softmax_grad(sc.data(), K, y[i], sw(p, i), g.data());
        double* ui = u.data() + static_cast<size_t>(i) * Kz;
        for (int64_t k = 0; k < K; ++k) {
          c[static_cast<size_t>(k)] = g[static_cast<size_t>(k)] - ui[k];
          ui[k] = g[static_cast<size_t>(k)];
        }
        if (sag) {
          for_each_nz(r, [&](int64_t j, double x) {
            for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * c[static_cast<size_t>(k)] * inv_n;
          });
          for (int64_t k = 0; k < K; ++k) mb[static_cast<size_t>(k)] += c[static_cast<size_t>(k)] * inv_n;
          Wl.advance();
          Wl.catch_up_row(r);
          if (p.fit_intercept)
            for (int64_t k = 0; k < K; ++k) b[k] -= eta * mb[static_cast<size_t>(k)];
        } else {
          Wl.advance();
          Wl.catch_up_row(r);  // this step's dense term uses the table mean before the update
          for (int64_t k = 0; k < K; ++k) g[static_cast<size_t>(k)] = -eta * c[static_cast<size_t>(k)];
          for_each_nz(r, [&](int64_t j, double x) {
            Wl.add(j, x, g.data());
            for (int64_t k = 0; k < K; ++k) m[j * K + k] += x * c[static_cast<size_t>(k)] * inv_n;
          });
          for (int64_t k = 0; k < K; ++k) {
            if (p.fit_intercept) b[k] -= eta * (c[static_cast<size_t>(k)] + mb[static_cast<size_t>(k)]);
            mb[static_cast<size_t>(k)] += c[static_cast<size_t>(k)] * inv_n;
          }
        }
      }
      ++count;
      Wl.materialize(W);
      if (!end_pass(static_cast<double>(count))) return res;
    }
    return res;
  }
  // SVRG / S2GD
  const int64_t m_inner = p.inner > 0 ? p.inner : n;
  const bool pick = meth == Method::S2gd || p.option == SvrgOption::Random;
  const double nu = p.s2gd_nu >= 0.0 ? p.s2gd_nu : p.lambda;
  std::vector<double> wpick(pick ? static_cast<size_t>(d * K) : 0), bk(Kz), bsum(Kz), bpick(Kz);
  double evals = 0.0;
  while (evals < static_cast<double>(p.passes) * static_cast<double>(n)) {
    std::copy(b, b + K, bk.begin());
    table_pass(bk.data());
    evals += static_cast<double>(n);
    const int64_t chosen = pick ? (meth == Method::S2gd ? idx.geometric(m_inner, 1.0 - nu * eta) : idx.below(m_inner)) : -1;
    if (average) Wl.clear_sums();
    std::fill(bsum.begin(), bsum.end(), 0.0);
    for (int64_t t = 0; t < m_inner; ++t) {
      const int64_t i = idx.below(n);
      const auto r = X.row(i);
      Wl.catch_up_row(r);
      Wl.scores(r, sc.data());
      for (int64_t k = 0; k < K; ++k) sc[static_cast<size_t>(k)] += b[k];
      softmax_grad(sc.data(), K, y[i], sw(p, i), g.data());
      evals += 1.0;
      const double* ui = u.data() + static_cast<size_t>(i) * Kz;
      for (int64_t k = 0; k < K; ++k) c[static_cast<size_t>(k)] = -eta * (g[static_cast<size_t>(k)] - ui[k]);
      Wl.advance();
      Wl.catch_up_row(r);
      for_each_nz(r, [&](int64_t j, double x) { Wl.add(j, x, c.data()); });
      if (p.fit_intercept)
        for (int64_t k = 0; k < K; ++k) b[k] += c[static_cast<size_t>(k)] - eta * mb[static_cast<size_t>(k)];
      for (int64_t k = 0; k < K; ++k) bsum[static_cast<size_t>(k)] += b[k];
      if (t == chosen) {
        Wl.materialize(wpick.data());
        std::copy(b, b + K, bpick.begin());
      }
    }
    if (average) {
      Wl.catch_up_all();
      for (int64_t q = 0; q < d * K; ++q) W[q] = Wl.sums()[q] / static_cast<double>(m_inner);
      Wl.set(W);
      for (int64_t k = 0; k < K; ++k) b[k] = bsum[static_cast<size_t>(k)] / static_cast<double>(m_inner);
    } else if (pick) {
      std::copy(wpick.begin(), wpick.end(), W);
      Wl.set(W);
      std::copy(bpick.begin(), bpick.end(), b);
    } else {
      Wl.materialize(W);
    }
    ++count;
    if (!end_pass(evals / static_cast<double>(n))) return res;
  }
  return res;
}

}  // namespace vr
}  // namespace robustcore
