// C++ checks for sum_tree.hpp, fol.hpp and adaboost.hpp: totals and probabilities against a plain array, sampling
// frequencies, no drift after many updates (incremental == rebuild bit for bit), long multiplicative
// growth stays finite with the ratios kept, FOL + Perceptron reaches zero training error.
#include "check.hpp"

#include <robustcore/adaboost.hpp>
#include <robustcore/fol.hpp>
#include <robustcore/sum_tree.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

using namespace robustcore;

template <int B>
void totals_and_probs() {
  for (int64_t m : {1, 2, 5, 8, 9, 64, 65, 1000, 4099}) {
    BasicSumTree<B> t(m);
    std::vector<double> ref(static_cast<size_t>(m), 1.0);
    Rng rng(static_cast<uint64_t>(m));
    for (int64_t s = 0; s < 10 * m; ++s) {
      const int64_t i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(m)));
      const double f = std::exp(rng.uniform() * 2.0 - 1.0);
      t.update(i, f);
      ref[i] *= f;
    }
    double sum = 0.0;
    for (double v : ref) sum += v;
    CHECK_CLOSE(t.total(), sum, 1e-12);
    for (int64_t i = 0; i < m; ++i) {
      CHECK_CLOSE(t.leaf(i), ref[i], 1e-13);
      CHECK_CLOSE(t.prob(i, 0.5), 0.5 / m + 0.5 * ref[i] / sum, 1e-12);
    }
    const double before = t.total();
    t.rebuild();
    CHECK(t.total() == before);  // ancestors are recomputed from children: no drift
  }
}

void sampling_frequencies() {
  const int64_t m = 13;
  std::vector<double> w(m);
  for (int64_t i = 0; i < m; ++i) w[i] = 1.0 + static_cast<double>(i);
  SumTree t(w.data(), m);
  Rng rng(7);
  const int64_t n = 1300000;
  std::vector<int64_t> c(m, 0);
  for (int64_t s = 0; s < n; ++s) ++c[t.sample(0.25, rng).first];
  double chi2 = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    const double e = t.prob(i, 0.25) * n;
    chi2 += (c[i] - e) * (c[i] - e) / e;
  }
  CHECK(chi2 < 40.0);  // 12 degrees of freedom: P[chi2 > 40] ~ 7e-5
}

void long_growth() {
  const int64_t m = 100;
  SumTree t(m);
  std::vector<double> logw(m, 0.0);
  Rng rng(3);
  for (int64_t s = 0; s < 3000000; ++s) {
    const int64_t i = static_cast<int64_t>(rng.below(10));  // 10 leaves grow by up to e per update
    const double lf = rng.uniform();
    t.update(i, std::exp(lf));
    logw[i] += lf;
  }
  CHECK(t.rescales() > 0);
  CHECK(std::isfinite(t.total()) && t.total() > 0.0);
  double mx = logw[0];
  for (int64_t i = 0; i < 10; ++i) mx = std::max(mx, logw[i]);
  double z = 0.0;
  for (int64_t i = 0; i < 10; ++i) z += std::exp(logw[i] - mx);
  for (int64_t i = 0; i < 10; ++i) CHECK_CLOSE(t.q(i), std::exp(logw[i] - mx) / z, 1e-8);
  for (int64_t i = 10; i < m; ++i) CHECK(t.leaf(i) > 0.0 && t.q(i) < 1e-200);
}

void fol_separable() {
  // Separable data (first coordinate carries the label with margin 0.1): FOL + Perceptron must find a consistent iterate.
  const int64_t n = 400, d = 5;
  Rng rng(11);
  std::vector<double> X(n * d), y(n);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = i % 2 ? 1.0 : -1.0;
    for (int64_t j = 0; j < d; ++j) X[i * d + j] = rng.uniform() - 0.5;
    X[i * d] = y[i] * (0.1 + rng.uniform());  // separable by w = e_1 with margin 0.1
  }
  DenseView V{X.data(), n, d};
  FolParams params;  // the Perceptron by default
  params.max_iter = 40;
  params.seed = 1;
  std::vector<double> coef(d + 1, 0.0), weights(n, 1.0);
  auto res = fol_fit(V, y.data(), params, coef.data(), weights.data(), nullptr, 0, nullptr, nullptr, 0,
                     static_cast<const DenseView*>(nullptr), nullptr, ProgressFn());
  CHECK(res.status == Status::MaxIter && res.n_iter == 40.0);
  const auto* err = res.history.find("train_error");
  CHECK(err && err->size() == 40 && err->back() == 0.0);
  // the returned model is the last iterate: it classifies every example (a zero score predicts -1)
  for (int64_t i = 0; i < n; ++i) {
    double s = coef[d];
    for (int64_t j = 0; j < d; ++j) s += coef[j] * X[i * d + j];
    CHECK(!misclassified(y[i], s));
  }
  // the progress contract: when the callback runs, coef holds the current iterate (here: stop after epoch 3,
  // and the model returned is the one the callback saw)
  {
    std::vector<double> c(d + 1, 0.0), w(n, 1.0), seen;
    auto stopped = fol_fit(V, y.data(), params, c.data(), w.data(), nullptr, 0, nullptr, nullptr, 0,
                           static_cast<const DenseView*>(nullptr), nullptr, [&](int64_t t) {
                             seen.assign(c.begin(), c.end());
                             return t < 3 * params.epoch_steps(n);
                           });
    CHECK(stopped.status == Status::Interrupted && stopped.n_iter == 3.0 && seen == c);
  }
  // every precondition is checked at the entry point
  auto throws = [&](FolParams bad) {
    CHECK_THROWS(fol_fit(V, y.data(), bad, coef.data(), weights.data(), nullptr, 0, nullptr, nullptr, 0,
                         static_cast<const DenseView*>(nullptr), nullptr, ProgressFn()),
                 std::invalid_argument);
  };
  FolParams bad = params;
  bad.gamma = 0.0;
  throws(bad);
  bad = params;
  bad.learner.kind = LearnerKind::Sgd;
  bad.learner.eta0 = 0.0;
  throws(bad);
  bad = params;
  bad.learner.loss = LossSpec(LossKind::Ramp, {2.0});  // s < 1 broken
  throws(bad);
  bad = params;
  bad.k = 3;  // no snapshot rows given
  throws(bad);
  y[0] = 0.5;
  throws(params);
  // the tie rule: a zero score predicts -1
  CHECK(misclassified(1.0, 0.0) && !misclassified(-1.0, 0.0));
  y[0] = -1.0;

  // AdaBoost over the SGD learner (hinge): the same learners, the same entry-point checks
  AdaBoostParams ada;
  ada.learner.kind = LearnerKind::Sgd;
  ada.learner.eta0 = 0.5;
  ada.max_iter = 5;
  std::vector<double> hyps(5 * (d + 1));
  auto ar = adaboost_fit(V, y.data(), ada, hyps.data(), 5, static_cast<const DenseView*>(nullptr), nullptr, ProgressFn());
  const auto* aerr = ar.history.find("train_error");
  CHECK(ar.n_iter >= 1 && aerr && static_cast<double>(aerr->size()) == ar.n_iter && aerr->back() < 0.05);
  CHECK(ar.alpha_t.size() == aerr->size() && ar.weighted_error.size() >= ar.alpha_t.size());
  // the progress contract: alphas holds alpha_t of the rounds kept so far when the callback runs (every 10th
  // label flipped: no round is consistent, so every kept round reports)
  std::vector<double> alphas(5, 0.0), y_noisy = y;
  for (int64_t i = 0; i < n; i += 10) y_noisy[i] = -y_noisy[i];
  size_t calls = 0, complete = 0, initial = 0;
  auto ar2 = adaboost_fit(V, y_noisy.data(), ada, hyps.data(), 5, static_cast<const DenseView*>(nullptr), nullptr,
                          [&](int64_t r) {
                            if (r == 0) {  // asked before the first round (no round kept yet)
                              initial += calls == 0 && alphas[0] == 0.0;
                              return true;
                            }
                            ++calls;
                            complete += alphas[static_cast<size_t>(r - 1)] > 0.0 &&
                                        (r == 5 || alphas[static_cast<size_t>(r)] == 0.0);
                            return true;
                          },
                          nullptr, alphas.data());
  CHECK(initial == 1 && calls >= 1 && complete == calls && calls == ar2.alpha_t.size());
  for (size_t r = 0; r < ar2.alpha_t.size(); ++r) CHECK(alphas[r] == ar2.alpha_t[r]);
  CHECK_THROWS(adaboost_fit(V, y.data(), ada, hyps.data(), 4, static_cast<const DenseView*>(nullptr), nullptr,
                            ProgressFn()),
               std::invalid_argument);  // fewer hypothesis rows than rounds
  ada.batch_size = 0;
  CHECK_THROWS(adaboost_fit(V, y.data(), ada, hyps.data(), 5, static_cast<const DenseView*>(nullptr), nullptr,
                            ProgressFn()),
               std::invalid_argument);
}

void seeded_tree_checks() {
  SeededSumTree t(5, 1);
  CHECK_THROWS(t.update(5, 2.0), std::invalid_argument);
  CHECK_THROWS(t.sample(1.5), std::invalid_argument);
  CHECK_THROWS(t.descend(1.0), std::invalid_argument);
  const int64_t idx[2] = {0, 7};
  const double lf[2] = {1.0, 1.0};
  CHECK_THROWS(t.update_batch_log(idx, lf, 2), std::invalid_argument);
  CHECK(t.leaf(0) == 1.0);  // nothing applied: every index is checked before any update
  const auto r = t.sample(0.5);
  CHECK(r.first >= 0 && r.first < 5 && r.second == t.prob(r.first, 0.5));
}

int main() {
  totals_and_probs<2>();
  totals_and_probs<8>();
  totals_and_probs<16>();
  sampling_frequencies();
  long_growth();
  fol_separable();
  seeded_tree_checks();
  CHECK_THROWS(SumTree(0), std::invalid_argument);
  {
    SumTree t(3);
    CHECK_THROWS(t.update(0, -1.0), std::invalid_argument);
    CHECK_THROWS(t.update(0, INFINITY), std::invalid_argument);
  }
  return check::report();
}
