// C++ checks for interrupt.hpp: without a poll nothing happens; an installed poll answering true stops an
// SGD fit and a VR fit by throwing Interrupted, within the first pass, leaving the SGD state at the last
// finished epoch (none here: all zeros); the scope restores the previous poll; zeros() fills a table and
// stops under a poll that asks to.
#include "check.hpp"

#include <robustcore/any_loss.hpp>
#include <robustcore/parallel.hpp>
#include <robustcore/sgd.hpp>
#include <robustcore/vr.hpp>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

using namespace robustcore;

int main() {
  const int64_t n = 20000, d = 10;
  Rng rng(3);
  std::vector<double> X(static_cast<size_t>(n * d)), y(static_cast<size_t>(n));
  for (auto& v : X) v = rng.uniform() - 0.5;
  for (int64_t i = 0; i < n; ++i) y[static_cast<size_t>(i)] = X[static_cast<size_t>(i * d)] > 0 ? 1.0 : -1.0;
  const DenseView V{X.data(), n, d};
  SgdParams p;
  p.lr.lambda = 1e-4;
  p.max_iter = 1000000;
  int calls = 0;
  const PollFn stop_on_third = [&] { return ++calls >= 3; };
  {
    InterruptScope scope(stop_on_third, 0.0);  // poll at every clock check
    SgdState st(d);
    CHECK_THROWS(sgd_fit(V, y.data(), nullptr, AnyLoss(LossSpec{LossKind::Hinge}), p, st), Interrupted);
    CHECK(calls == 3);
    CHECK(st.t == 0);  // no epoch finished: the state is the start
    calls = 0;
    vr::VrParams q;
    q.lambda = 1e-4;
    q.max_iter = 1000000;
    std::vector<double> w(static_cast<size_t>(d), 0.0);
    double b = 0.0;
    CHECK_THROWS(vr::fit(V, BinaryModel<AnySmoothLoss>{AnySmoothLoss(LossSpec{LossKind::Log}), y.data()}, q, w.data(), &b),
                 Interrupted);
    CHECK(calls == 3);
  }
  // the scope is gone: a short fit runs to its end
  SgdState st(d);
  p.max_iter = 2;
  CHECK(sgd_fit(V, y.data(), nullptr, AnyLoss(LossSpec{LossKind::Hinge}), p, st).status == Status::MaxIter);
  CHECK(calls == 3);
  // No scope at all (a C++ caller such as the benchmarks): checks, even with huge ticks over more than a
  // poll period, never call a poll; run_tasks waits out a slow task (it polled a null function and crashed).
  {
    InterruptCheck none;
    for (int k = 0; k < 100; ++k) none.tick(std::numeric_limits<int64_t>::max() / 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    for (int k = 0; k < 100; ++k) none.tick(std::numeric_limits<int64_t>::max() / 4);
    int done = 0;
    run_tasks(2, [&](int t) {
      if (t == 1) std::this_thread::sleep_for(std::chrono::milliseconds(40));
      if (t == 1) done += 1;
    });
    CHECK(done == 1);
  }
  // zeros(): every element zero, the size asked for; under a poll answering true, a large table stops being
  // filled (the ticks between its blocks)
  {
    InterruptCheck none;
    const std::vector<double> z = zeros<double>((size_t{1} << 17) + 3, none);
    CHECK(z.size() == (size_t{1} << 17) + 3);
    CHECK(std::all_of(z.begin(), z.end(), [](double v) { return v == 0.0; }));
    CHECK(zeros<double>(0, none).empty());
    calls = 0;
    InterruptScope scope(stop_on_third, 0.0);
    InterruptCheck check;
    CHECK_THROWS(zeros<double>(size_t{1} << 26, check), Interrupted);  // 512 MiB, refused within a few blocks
    CHECK(calls == 3);
  }
  return check::report();
}
