// C++ checks for mkl.hpp and the Lemma 3 composite step (projections.hpp).
#include <robustcore/mkl.hpp>
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
    opt.lambda = 0.05;
    opt.rho = 0.8 * n;
    opt.max_iter = 200;
    opt.tol = 0.0;
    std::vector<double> coef(m * n), alpha(n);
    auto r = mkl::solve(bank, y.data(), opt, coef.data(), alpha.data());
    CHECK(r.status == Status::MaxIter && r.iterations == 200);
    for (double g : r.gap_hist) CHECK(g >= -1e-12);
    CHECK(r.gap_hist.back() < 0.5 * r.gap_hist.front());
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
  return check::report();
}
