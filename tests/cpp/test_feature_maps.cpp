// C++ checks for feature_maps.hpp: the fast cosine against std::cos, random Fourier features (dense ==
// CSR == a direct loop, float32 close), the float32-output exponential, Nystroem's kernel rows against direct
// sums (one sub-block and several; float32 data: the float64 kernel rounded once), the bank's blocks,
// the threaded transform's same bits, bad input.
#include <robustcore/feature_maps.hpp>
#include <robustcore/rng.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "check.hpp"

using namespace robustcore;
namespace fm = robustcore::feature_maps;

int main() {
  Rng rng(7);
  const int64_t n = 37, d = 5, D = 24;
  std::vector<double> X(n * d), W(d * D), b(D);
  for (auto& v : X) v = (2.0 * rng.uniform() - 1.0);
  for (auto& v : W) v = 0.7 * (2.0 * rng.uniform() - 1.0);
  for (auto& v : b) v = 6.283185307179586 * rng.uniform();
  for (int64_t k = 0; k < n * d; k += 3) X[k] = 0.0;  // some zeros for the CSR copy
  std::vector<double> val;
  std::vector<int32_t> idx;
  std::vector<int64_t> ptr{0};
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < d; ++j)
      if (X[i * d + j] != 0.0) val.push_back(X[i * d + j]), idx.push_back(static_cast<int32_t>(j));
    ptr.push_back(static_cast<int64_t>(val.size()));
  }
  const DenseView dense{X.data(), n, d};
  const CsrView<int64_t> csr{val.data(), idx.data(), ptr.data(), n, d};

  // The branch-free cosine, arguments up to its limit and past it (std::cos there).
  {
    std::vector<double> t, zero;
    for (double a = -1e5; a <= 1e5; a += 0.37) t.push_back(a);
    t.push_back(3e5);
    zero.assign(t.size(), 0.0);
    std::vector<double> c(t);
    fm::detail::scaled_cos(c.data(), zero.data(), static_cast<int64_t>(c.size()) - 1, 2.0);
    double worst = 0.0;
    for (size_t k = 0; k + 1 < t.size(); ++k) worst = std::max(worst, std::fabs(c[k] - 2.0 * std::cos(t[k])));
    CHECK(worst < 1e-11);  // |t| up to 1e5: std::cos's own argument is exact, the reduction's error ~ |t| eps
    std::vector<double> one{3e5, 1.0}, z2{0.0, 0.0};
    fm::detail::scaled_cos(one.data(), z2.data(), 2, 1.0);
    CHECK_CLOSE(one[0], std::cos(3e5), 1e-15);
    CHECK_CLOSE(one[1], std::cos(1.0), 1e-15);
  }
  // The branch-free exp(-s x) against std::exp: x from 0 to past the underflow (subnormal results, then 0),
  // every level the CPU has (the dispatched one) and the baseline loop itself.
  {
    std::vector<double> x;
    for (double a = 0.0; a <= 800.0; a += 0.0137) x.push_back(a);
    x.push_back(1e300);
    for (int level = 0; level < 2; ++level) {
      std::vector<double> e(x);
      if (level == 0) fm::detail::neg_exp_loop(e.data(), static_cast<int64_t>(e.size()), 1.0);
      else fm::detail::neg_exp(e.data(), static_cast<int64_t>(e.size()), 1.0);
      double worst = 0.0;
      for (size_t k = 0; k < x.size(); ++k) {
        const double ref = std::exp(-x[k]);
        if (ref >= 1e-300) worst = std::max(worst, std::fabs(e[k] - ref) / ref);
        else CHECK(std::fabs(e[k] - ref) <= 1e-300 * 1e-15 + 5e-324);  // subnormal: within a unit of the last place
      }
      CHECK(worst < 4.5e-16);  // 2 ulp
      CHECK(e.back() == 0.0 && e.front() == 1.0);
    }
    std::vector<double> half{2.0};
    fm::detail::neg_exp(half.data(), 1, 0.5);
    CHECK_CLOSE(half[0], std::exp(-1.0), 1e-15);
  }
  // The float32-output exponential (the float32 Nystroem kernel block): the float64 value rounded once, at the
  // dispatched level and the baseline loop.
  {
    std::vector<double> x;
    for (double a = 0.0; a <= 200.0; a += 0.0093) x.push_back(a);
    const int64_t nx = static_cast<int64_t>(x.size());
    std::vector<double> e64(x), b64(x);
    fm::detail::neg_exp(e64.data(), nx, 0.7);
    fm::detail::neg_exp_loop(b64.data(), nx, 0.7);
    std::vector<float> e32(x.size()), b32(x.size());
    fm::detail::neg_exp(x.data(), e32.data(), nx, 0.7);
    fm::detail::neg_exp_loop(x.data(), b32.data(), nx, 0.7);
    for (size_t k = 0; k < x.size(); ++k) {
      CHECK(e32[k] == static_cast<float>(e64[k]));
      CHECK(b32[k] == static_cast<float>(b64[k]));
    }
  }
  // Random Fourier features: dense, CSR and a direct loop; 1 and 3 threads give the same bits.
  {
    const fm::RandomFourierMap map(W.data(), b.data(), d, D, std::sqrt(2.0 / D));
    std::vector<double> zd(n * D), zc(n * D), z3(n * D);
    fm::transform(map, dense, zd.data(), 1, 8);
    fm::transform(map, csr, zc.data(), 1, 8);
    fm::transform(map, dense, z3.data(), 3, 8);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < D; ++c) {
        double a = b[c];
        for (int64_t j = 0; j < d; ++j) a += X[i * d + j] * W[j * D + c];
        const double ref = std::sqrt(2.0 / D) * std::cos(a);
        CHECK_CLOSE(zd[i * D + c], ref, 1e-13);
        CHECK_CLOSE(zc[i * D + c], ref, 1e-13);
        CHECK(z3[i * D + c] == zd[i * D + c]);
      }
    std::vector<float> Xf(X.begin(), X.end()), zf(n * D);
    fm::transform(map, BasicDenseView<float>{Xf.data(), n, d}, zf.data(), 2);
    for (int64_t k = 0; k < n * D; ++k) CHECK(std::fabs(zf[k] - zd[k]) < 1e-5);
    // the block method into a wider buffer
    std::vector<double> blk(3 * (D + 2), -1.0);
    map.map_rows(csr, 10, 13, blk.data(), D + 2);
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t c = 0; c < D; ++c) CHECK_CLOSE(blk[i * (D + 2) + c], zd[(10 + i) * D + c], 1e-13);
      CHECK(blk[i * (D + 2) + D] == -1.0);
    }
    CHECK_THROWS(map.map_rows(csr, 5, 4, blk.data(), D), std::invalid_argument);
    CHECK_THROWS(map.map_rows(csr, 0, 1, blk.data(), D - 1), std::invalid_argument);
    std::vector<double> bad(W);
    bad[3] = std::nan("");
    CHECK_THROWS(fm::RandomFourierMap(bad.data(), b.data(), d, D, 1.0), std::invalid_argument);
  }
  // Nystroem kernel rows (rbf, laplacian, polynomial), dense == CSR == direct sums.
  {
    const int64_t m = 6;
    std::vector<double> L(X.begin(), X.begin() + m * d), I(m * m, 0.0);
    for (int64_t j = 0; j < m; ++j) I[j * m + j] = 1.0;
    for (auto kind : {fm::KernelKind::Rbf, fm::KernelKind::Laplacian, fm::KernelKind::Polynomial}) {
      const fm::NystroemMap map(kind, 0.3, 1.0, 2.0, L.data(), m, d, I.data(), m);
      std::vector<double> kd(n * m), kc(n * m);
      fm::transform(map, dense, kd.data(), 2, 4);
      fm::transform(map, csr, kc.data(), 1);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j) {
          double s2 = 0.0, s1 = 0.0, ip = 0.0;
          for (int64_t k = 0; k < d; ++k) {
            const double df = X[i * d + k] - L[j * d + k];
            s2 += df * df;
            s1 += std::fabs(df);
            ip += X[i * d + k] * L[j * d + k];
          }
          const double ref = kind == fm::KernelKind::Rbf         ? std::exp(-0.3 * s2)
                             : kind == fm::KernelKind::Laplacian ? std::exp(-0.3 * s1)
                                                                 : std::pow(0.3 * ip + 1.0, 2.0);
          CHECK_CLOSE(kd[i * m + j], ref, 1e-12);
          CHECK_CLOSE(kc[i * m + j], ref, 1e-12);
        }
    }
    CHECK_THROWS(fm::NystroemMap(fm::KernelKind::Rbf, 0.0, 0.0, 1.0, L.data(), m, d, I.data(), m),
                 std::invalid_argument);
  }
  // Nystroem with enough landmarks that a call's rows go in several L2-sized sub-blocks (kernel_block_rows):
  // a block of rows == the rows one by one == direct sums; float32 data: the float64 kernel rounded to float32.
  {
    const int64_t m = 3000;
    std::vector<double> L(m * d), N(m * 3);
    for (auto& v : L) v = 2.0 * rng.uniform() - 1.0;
    for (auto& v : N) v = rng.uniform() - 0.5;
    for (auto kind : {fm::KernelKind::Rbf, fm::KernelKind::Polynomial}) {
      const fm::NystroemMap map(kind, 0.4, 1.0, 2.0, L.data(), m, d, N.data(), 3);
      CHECK(map.kernel_block_rows() < n);
      std::vector<double> kb(n * m), k1(m);
      map.kernel_rows(dense, 0, n, kb.data());
      std::vector<float> Xf(X.begin(), X.end()), kf(n * m);
      const BasicDenseView<float> densef{Xf.data(), n, d};
      map.kernel_rows(densef, 0, n, kf.data());
      std::vector<double> kf64(n * m);
      map.kernel_rows(densef, 0, n, kf64.data());
      for (int64_t i = 0; i < n; ++i) {
        map.kernel_rows(dense, i, i + 1, k1.data());
        for (int64_t j = 0; j < m; ++j) {
          double s2 = 0.0, ip = 0.0;
          for (int64_t k = 0; k < d; ++k) {
            const double df = X[i * d + k] - L[j * d + k];
            s2 += df * df;
            ip += X[i * d + k] * L[j * d + k];
          }
          const double ref = kind == fm::KernelKind::Rbf ? std::exp(-0.4 * s2) : std::pow(0.4 * ip + 1.0, 2.0);
          CHECK_CLOSE(kb[i * m + j], ref, 1e-12);
          CHECK_CLOSE(k1[j], kb[i * m + j], 1e-13);
          CHECK(kf[i * m + j] == static_cast<float>(kf64[i * m + j]));
          CHECK(std::fabs(kf[i * m + j] - ref) <= 1e-6 * std::max(1.0, std::fabs(ref)));
        }
      }
      std::vector<double> zd(n * 3);
      std::vector<float> zf(n * 3);
      fm::transform(map, dense, zd.data(), 1, 16);
      fm::transform(map, densef, zf.data(), 1, 16);
      for (int64_t k = 0; k < n * 3; ++k) CHECK(std::fabs(zf[k] - zd[k]) <= 1e-4 * std::max(1.0, std::fabs(zd[k])));
    }
  }
  // The bank: a block over all features and one over feature 2, each equal to its map alone.
  {
    const fm::RandomFourierMap all(W.data(), b.data(), d, D, 0.5);
    const fm::RandomFourierMap one(W.data(), b.data(), 1, D, 0.5);  // W's first row as a 1-feature map
    fm::KernelBankMap bank(d);
    bank.add(-1, all);
    bank.add(2, one);
    CHECK(bank.n_blocks() == 2 && bank.n_components() == 2 * D && bank.offset(1) == D);
    std::vector<double> z(n * 2 * D), za(n * D), zo(n * D);
    fm::transform(bank, csr, z.data(), 2, 5);
    fm::transform(all, dense, za.data());
    std::vector<double> col(n);
    for (int64_t i = 0; i < n; ++i) col[i] = X[i * d + 2];
    fm::transform(one, DenseView{col.data(), n, 1}, zo.data());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < D; ++c) {
        CHECK_CLOSE(z[i * 2 * D + c], za[i * D + c], 1e-13);
        CHECK_CLOSE(z[i * 2 * D + D + c], zo[i * D + c], 1e-13);
      }
    CHECK_THROWS(bank.add(1, all), std::invalid_argument);
    CHECK_THROWS(bank.add(d, one), std::invalid_argument);
    // any map of the registry by reference (what the bindings call): its own transform's and block's bits
    std::vector<double> zr(n * 2 * D), zb(3 * 2 * D);
    fm::transform_any(fm::MapRef(&bank), csr, zr.data(), 2, 5);
    for (size_t k = 0; k < z.size(); ++k) CHECK(zr[k] == z[k]);
    fm::map_rows_any(fm::MapRef(&all), dense, 4, 7, zb.data(), 2 * D);
    for (int64_t i = 4; i < 7; ++i)
      for (int64_t c = 0; c < D; ++c) CHECK(zb[(i - 4) * 2 * D + c] == za[i * D + c]);
  }
  // the registry: the kernel maps, then the bank; every map named
  {
    std::vector<std::string> names;
    fm::for_each_map<fm::FeatureMaps>([&](auto tag) { names.push_back(std::remove_pointer_t<decltype(tag)>::name); });
    CHECK(fm::FeatureMaps::size == fm::KernelMaps::size + 1);
    CHECK(names.size() == fm::FeatureMaps::size && names.back() == "KernelBankMap");
    CHECK(names[0] == "RandomFourierMap" && names[1] == "NystroemMap");
  }
  return check::report();
}
