// Shared by the benchmark binaries: a generated sparse binary problem (seeded, built once per size and
// cached): n rows x d features, k nonzeros per row at uniform columns (sorted), values in (0, 1], labels
// from a random planted linear model; and a generated dense one (`dense_problem`).
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

/// A dense n x d problem (seeded, cached per shape): values uniform in [-1, 1), labels of a planted model with
/// 10% flipped (so the losses are not all near zero), classes drawn uniformly from 3 for the softmax model; the
/// same rows also as a CSR matrix with every column stored (`csr`).
struct DenseProblem {
  std::vector<double> data, y;
  std::vector<int64_t> classes;
  std::vector<int32_t> indices;
  std::vector<int64_t> indptr;
  robustcore::DenseView X;
  robustcore::CsrView<int64_t> csr;
};

const DenseProblem& dense_problem(int64_t n, int64_t d) {
  static DenseProblem p;
  if (p.X.rows() == n && p.X.cols() == d) return p;
  robustcore::Rng rng(7);
  p.data.resize(static_cast<size_t>(n * d));
  p.y.resize(static_cast<size_t>(n));
  p.classes.resize(static_cast<size_t>(n));
  p.indices.resize(static_cast<size_t>(n * d));
  p.indptr.resize(static_cast<size_t>(n + 1));
  std::vector<double> w(static_cast<size_t>(d));
  for (auto& v : w) v = rng.uniform() - 0.5;
  for (int64_t i = 0; i < n; ++i) {
    double f = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      const double x = 2.0 * rng.uniform() - 1.0;
      p.data[static_cast<size_t>(i * d + j)] = x;
      p.indices[static_cast<size_t>(i * d + j)] = static_cast<int32_t>(j);
      f += x * w[static_cast<size_t>(j)];
    }
    p.indptr[static_cast<size_t>(i)] = i * d;
    p.y[static_cast<size_t>(i)] = (f > 0) != (rng.uniform() < 0.1) ? 1.0 : -1.0;
    p.classes[static_cast<size_t>(i)] = static_cast<int64_t>(rng.below(3));
  }
  p.indptr[static_cast<size_t>(n)] = n * d;
  p.X = robustcore::DenseView{p.data.data(), n, d};
  p.csr = robustcore::CsrView<int64_t>{p.data.data(), p.indices.data(), p.indptr.data(), n, d};
  return p;
}

}  // namespace bench
