// C++ checks for mkl.hpp and the Lemma 3 composite step (projections.hpp).
#include <robustcore/mkl.hpp>
#include <robustcore/robustcore.hpp>  // the umbrella header compiles as a whole
#include <robustcore/projections.hpp>
#include <robustcore/rng.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "check.hpp"

using namespace robustcore;

int main() {
  // Composite step: KKT t_j = [a_j - c S]_+, S = sum t_j.
  {
    const std::vector<double> a{3.0, 1.0, 0.2, 0.0, 2.5};
    std::vector<double> s(a.size());
    const double c = 0.4;
    const double S = group_lasso_squared_prox(a.data(), 5, c, s.data());
    double tot = 0.0;
    for (size_t j = 0; j < a.size(); ++j) {
      const double t = s[j] * a[j];
      CHECK_CLOSE(t, std::max(0.0, a[j] - c * S), 1e-12);
      tot += t;
    }
    CHECK_CLOSE(tot, S, 1e-12);
    bool threw = false;
    try {
      group_lasso_squared_prox(a.data(), 5, -1.0, s.data());
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    CHECK(threw);
  }
  // Gaussian bank: shape, diagonal 1, symmetry; AMP gap non-negative and shrinking; VI runs.
  {
    Rng rng(1);
    const int64_t n = 30, d = 2;
    std::vector<double> X(n * d), y(n);
    for (auto& v : X) v = rng.uniform();
    for (int64_t i = 0; i < n; ++i) y[i] = X[i * d] + 0.3 * X[i * d + 1] > 0.6 ? 1.0 : -1.0;
    const std::vector<double> widths{0.25, 1.0, 4.0};
    const int64_t m = mkl::gaussian_bank_size(d, 3);
    CHECK(m == 9);
    std::vector<double> K(m * n * n);
    mkl::gaussian_bank<double>(X.data(), n, X.data(), n, d, widths.data(), 3, K.data());
    for (int64_t j = 0; j < m; ++j)
      for (int64_t i = 0; i < n; ++i) {
        CHECK_CLOSE(K[(j * n + i) * n + i], 1.0, 0.0);
        CHECK(K[(j * n + i) * n + (n - 1 - i)] == K[(j * n + (n - 1 - i)) * n + i]);
      }
    mkl::KernelBank<double> bank{K.data(), m, n};
    CHECK_CLOSE(mkl::coupling_norm_bound(bank), std::sqrt(static_cast<double>(m) * n) / n, 0.2);
    mkl::Options opt;
    opt.alpha = 0.05;
    opt.rho = 0.8 * n;
    opt.max_iter = 200;
    opt.tol = 0.0;
    std::vector<double> coef(m * n), alpha(n);
    auto r = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    CHECK(r.status == Status::MaxIter && r.n_iter == 200);
    const auto& gaps = *r.history.find("gap");
    CHECK(gaps.size() == 200 && r.history.find("seconds")->size() == 200);
    for (double g : gaps) CHECK(g >= -1e-12);
    CHECK(gaps.back() < 0.5 * gaps.front());
    double asum = 0.0;
    for (double v : alpha) {
      CHECK(v >= 0.0 && v <= 1.0 + 1e-12);
      asum += v;
    }
    CHECK(asum <= opt.rho + 1e-9);
    opt.method = mkl::Method::VI;
    opt.gamma0 = 10.0;
    auto rv = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    CHECK(rv.gap >= 0.0 && std::isfinite(rv.gap));
    // float storage agrees with double
    std::vector<float> Kf(K.begin(), K.end());
    mkl::KernelBank<float> bankf{Kf.data(), m, n};
    opt.method = mkl::Method::AMP;
    std::vector<double> coef2(m * n);
    auto rf = mkl::solve(bankf, y.data(), opt, coef2.data(), alpha.data());
    CHECK_CLOSE(rf.gap, r.gap, 1e-4);
    // bad input
    y[0] = 0.5;
    bool threw = false;
    try {
      mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    CHECK(threw);
  }
  // Factored bank: every entry within tol of the dense bank; ranks bounded by the distinct values of a
  // feature; the solver on the factored bank follows the dense one.
  {
    Rng rng(3);
    const int64_t n = 40, d = 3;
    std::vector<double> X(n * d), y(n);
    for (int64_t i = 0; i < n; ++i) {
      X[i * d] = rng.uniform();
      X[i * d + 1] = static_cast<double>(rng.below(3));  // three distinct values
      X[i * d + 2] = rng.uniform();
      y[i] = X[i * d] + 0.2 * X[i * d + 1] > 0.7 ? 1.0 : -1.0;
    }
    const std::vector<double> widths{0.125, 1.0, 8.0};
    const int64_t m = mkl::gaussian_bank_size(d, 3);
    std::vector<double> K(m * n * n), Kf(m * n * n);
    mkl::gaussian_bank<double>(X.data(), n, X.data(), n, d, widths.data(), 3, K.data());
    const double tol = 1e-10;
    const FactoredBank fb = mkl::gaussian_bank_factored(X.data(), n, d, widths.data(), 3, tol);
    CHECK(fb.m == m && fb.n == n);
    fb.to_dense(Kf.data());
    double err = 0.0;
    for (size_t q = 0; q < K.size(); ++q) err = std::max(err, std::abs(K[q] - Kf[q]));
    CHECK(err <= tol * 1.01);
    for (int64_t w = 0; w < 3; ++w) CHECK(fb.rank(2 * 3 + w) >= 1 && fb.rank(2 * 3 + w) <= 3);
    CHECK(fb.fill() < 1.0);
    mkl::KernelBank<double> bank{K.data(), m, n};
    CHECK_CLOSE(coupling_norm_bound(fb), mkl::coupling_norm_bound(bank), 1e-9);
    mkl::Options opt;
    opt.alpha = 0.05;
    opt.rho = 0.8 * n;
    opt.max_iter = 100;
    opt.tol = 0.0;
    std::vector<double> c1(m * n), c2(m * n), a1(n), a2(n);
    const auto r1 = mkl::solve(bank, y.data(), opt, c1.data(), a1.data());
    const auto r2 = mkl::solve(fb, y.data(), opt, c2.data(), a2.data());
    CHECK_CLOSE(r1.gap, r2.gap, 1e-7);
    for (size_t q = 0; q < c1.size(); ++q) CHECK_CLOSE(c1[q], c2[q], 1e-6);
    // the kernel pass on threads: the same bits as on one, for both banks
    for (int64_t threads : {2, 3}) {
      mkl::Options ot = opt;
      ot.n_threads = threads;
      std::vector<double> c3(m * n), c4(m * n), a3(n), a4(n);
      const auto r3 = mkl::solve(bank, y.data(), ot, c3.data(), a3.data());
      const auto r4 = mkl::solve(fb, y.data(), ot, c4.data(), a4.data());
      CHECK(c3 == c1 && a3 == a1 && r3.gap == r1.gap);
      CHECK(c4 == c2 && a4 == a2 && r4.gap == r2.gap);
    }
    // balanced_cuts: contiguous groups covering 0..m-1, none with more than its share plus one item
    const std::vector<double> cost{5, 1, 1, 1, 1, 1, 4, 1, 1, 2};
    for (int P : {1, 2, 3, 4}) {
      const auto cuts = balanced_cuts(10, P, [&](int64_t j) { return cost[static_cast<size_t>(j)]; });
      CHECK(cuts.size() == static_cast<size_t>(P) + 1 && cuts.front() == 0 && cuts.back() == 10);
      for (int p = 0; p < P; ++p) {
        CHECK(cuts[p] <= cuts[p + 1]);
        double part = 0.0;
        for (int64_t j = cuts[p]; j < cuts[p + 1]; ++j) part += cost[static_cast<size_t>(j)];
        CHECK(part <= 18.0 / P + 5.0);
      }
    }
    // a tight memory limit is refused with BankTooLarge
    bool threw = false;
    try {
      mkl::gaussian_bank_factored(X.data(), n, d, widths.data(), 3, tol, 0, 1000);
    } catch (const BankTooLarge&) {
      threw = true;
    }
    CHECK(threw);
  }
  return check::report();
}
