// Shared by the benchmark binaries: a generated sparse binary problem (seeded, built once per size and
// cached): n rows x d features, k nonzeros per row at uniform columns (sorted), values in (0, 1], labels
// from a random planted linear model.
#pragma once

#include <robustcore/data.hpp>
#include <robustcore/rng.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace bench {

struct Problem {
  std::vector<double> data, y;
  std::vector<int32_t> indices;
  std::vector<int64_t> indptr;
  robustcore::CsrView<int64_t> X;
};

const Problem& problem(int64_t n, int64_t d, int64_t k) {
  static Problem p;
  if (p.X.rows() == n && p.X.cols() == d && p.X.nnz() == n * k) return p;
  robustcore::Rng rng(42);
  p.data.resize(static_cast<size_t>(n * k));
  p.indices.resize(static_cast<size_t>(n * k));
  p.indptr.resize(static_cast<size_t>(n + 1));
  p.y.resize(static_cast<size_t>(n));
  std::vector<double> w(static_cast<size_t>(d));
  for (auto& v : w) v = rng.uniform() - 0.5;
  for (int64_t i = 0; i < n; ++i) {
    p.indptr[i] = i * k;
    double f = 0.0;
    for (int64_t j = 0; j < k; ++j) {
      const int32_t c = static_cast<int32_t>(rng.below(static_cast<uint64_t>(d)));
      p.indices[i * k + j] = c;
      p.data[i * k + j] = rng.uniform() + 1e-3;
      f += p.data[i * k + j] * w[c];
    }
    std::sort(p.indices.begin() + i * k, p.indices.begin() + (i + 1) * k);
    p.y[i] = f > 0 ? 1.0 : -1.0;
  }
  p.indptr[n] = n * k;
  p.X = robustcore::CsrView<int64_t>{p.data.data(), p.indices.data(), p.indptr.data(), n, d};
  return p;
}

}  // namespace bench
