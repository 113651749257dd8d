// C++ checks for fused_view.hpp: every variance-reduced method (vr::fit) on a FusedView gives the bits of the
// same method on the materialised features (transform), for a float64 and a float32 base; block shuffling of
// computed rows is refused (SGD's, the one solver with block shuffling).
#include <robustcore/any_loss.hpp>
#include <robustcore/feature_maps.hpp>
#include <robustcore/fused_sgd.hpp>
#include <robustcore/fused_view.hpp>
#include <robustcore/rng.hpp>
#include <robustcore/vr.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "check.hpp"

using namespace robustcore;

int main() {
  const int64_t n = 90, d = 4, D = 11;
  Rng rng(3);
  std::vector<double> X(n * d), y(n), W(d * D), b(D);
  for (auto& v : X) v = 2.0 * rng.uniform() - 1.0;
  for (int64_t i = 0; i < n; ++i) y[i] = X[i * d] * X[i * d + 1] > 0 ? 1.0 : -1.0;
  for (auto& v : W) v = rng.uniform() * 2.0 - 1.0;
  for (auto& v : b) v = 6.283185307179586 * rng.uniform();
  const FusedView::AnyMap map = feature_maps::RandomFourierMap(W.data(), b.data(), d, D, std::sqrt(2.0 / D));
  const auto& rff = std::get<feature_maps::RandomFourierMap>(map);
  std::vector<float> X32(X.begin(), X.end());
  const BinaryModel<AnySmoothLoss> model{AnySmoothLoss(LossSpec{LossKind::SquaredHinge}), y.data()};
  for (int base = 0; base < 2; ++base) {
    // the materialised features, as transform gives them (float32 data: float32 features, widened)
    std::vector<double> Z(n * D);
    if (base == 0) {
      feature_maps::transform(rff, DenseView{X.data(), n, d}, Z.data());
    } else {
      std::vector<float> Z32(n * D);
      feature_maps::transform(rff, BasicDenseView<float>{X32.data(), n, d}, Z32.data());
      Z.assign(Z32.begin(), Z32.end());
    }
    const FusedView::AnyBase bv = base == 0 ? FusedView::AnyBase(DenseView{X.data(), n, d})
                                            : FusedView::AnyBase(BasicDenseView<float>{X32.data(), n, d});
    for (int m = 0; m <= static_cast<int>(vr::Method::MixedSvrg); ++m) {
      vr::VrParams p;
      p.method = static_cast<vr::Method>(m);
      p.lambda = 1e-3;
      p.max_iter = 3;
      p.seed = 5;
      std::vector<double> wf(D, 0.0), wm(D, 0.0);
      double bf = 0.0, bm = 0.0;
      const FusedView F(map, bv, 7, 2);
      const Result rf = vr::fit(F, model, p, wf.data(), &bf);
      const Result rm = vr::fit(DenseView{Z.data(), n, D}, model, p, wm.data(), &bm);
      bool same = bf == bm && rf.step == rm.step;
      for (int64_t j = 0; j < D; ++j) same = same && wf[j] == wm[j];
      CHECK(same);
      // the monitor's history pass (rows mapped on demand, in order): the same objective
      const auto* of = rf.history.find("objective");
      const auto* om = rm.history.find("objective");
      CHECK(of && om && *of == *om && !of->empty());
    }
  }
  bool threw = false;
  try {
    SgdParams p;  // SGD's block shuffling copies rows: not rows computed on the fly
    p.shuffle = Shuffle::Block;
    SgdState state(D);
    const FusedView F(map, FusedView::AnyBase(DenseView{X.data(), n, d}), 8, 1);
    fused_sgd_fit(F, y.data(), nullptr, AnyLoss(LossSpec{LossKind::Hinge}), p, state);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
  return check::report();
}
