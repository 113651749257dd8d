// Interrupts: how a long engine call stops within milliseconds of being asked to (Ctrl-C, a cancelled
// thread pool), whatever the size of the data.
//
// The caller installs a poll for its thread (InterruptScope: a function returning true to stop, and the
// period between two calls of it). Every loop of the engine holds an InterruptCheck and calls
// tick(units of work) as it goes (a sample, a row of a kernel, a kernel of a bank); about once a
// millisecond of work the check reads the clock, and once per period it calls the poll. When the poll
// answers true, tick throws Interrupted: the engine call unwinds (in/out state keeps the last finished
// pass, as after a progress callback's stop) and the caller catches it. Without an installed poll,
// tick is a decrement and a never-taken branch.
// The per-pass ProgressFn (result.hpp) is the other way to stop, between passes and with a Status.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

namespace robustcore {

/// Thrown by InterruptCheck::tick when the installed poll asked to stop.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("robustcore: interrupted") {}
};

/// Returns true when the current engine call must stop.
using PollFn = std::function<bool()>;

namespace detail {
struct Poll {
  const PollFn* fn = nullptr;
  double period = 0.01;  ///< seconds between two calls of fn
};
inline thread_local Poll current_poll;
}  // namespace detail

/// Installs `fn` as this thread's poll for the scope's lifetime (the previous one is restored after).
class InterruptScope {
 public:
  explicit InterruptScope(const PollFn& fn, double period_seconds = 0.01) : saved_(detail::current_poll) {
    detail::current_poll = detail::Poll{&fn, period_seconds};
  }
  ~InterruptScope() { detail::current_poll = saved_; }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  detail::Poll saved_;
};

/// The check every loop holds (one per function; cheap to build). tick(units) counts work down and,
/// when the count runs out, reads the clock: the stride adapts so the clock is read about every
/// millisecond, and the poll is called once per period.
class InterruptCheck {
 public:
  InterruptCheck() : poll_(detail::current_poll) {
    if (!poll_.fn) left_ = std::numeric_limits<int64_t>::max();
    last_clock_ = last_poll_ = std::chrono::steady_clock::now();
  }
  void tick(int64_t units = 1) {
    if ((left_ -= units) <= 0) slow();
  }

 private:
  using clock = std::chrono::steady_clock;
#if defined(__GNUC__)
  __attribute__((noinline, cold))
#endif
  void slow() {
    if (!poll_.fn) {  // no scope installed: nothing to poll (a large tick can still bring us here)
      left_ = std::numeric_limits<int64_t>::max();
      return;
    }
    const auto now = clock::now();
    const double since = std::chrono::duration<double>(now - last_clock_).count();
    if (since < 0.5e-3 && stride_ < (int64_t{1} << 40)) stride_ *= 2;
    else if (since > 2e-3 && stride_ > 1) stride_ /= 2;
    left_ = stride_;
    last_clock_ = now;
    if (std::chrono::duration<double>(now - last_poll_).count() >= poll_.period) {
      last_poll_ = now;
      if ((*poll_.fn)()) throw Interrupted();
    }
  }

  detail::Poll poll_;
  int64_t left_ = 1;
  int64_t stride_ = 1;
  clock::time_point last_clock_, last_poll_;
};

/// A zero-filled vector of `size` elements, filled a block at a time with a tick of `stop` after each block.
/// Value-initialising a large table in one call (SAGA's n x K gradient factors: 610 MB at 300 000 rows and 255
/// classes) runs for a third of a second here, more on a loaded machine, without a poll; its capacity is
/// reserved first (no reallocation), and the pages are touched as the blocks are filled.
template <class T>
std::vector<T> zeros(std::size_t size, InterruptCheck& stop) {
  constexpr std::size_t kBlock = std::size_t{1} << 16;  // elements: 512 KiB of doubles, ~50 us to fault in and zero
  std::vector<T> v;
  v.reserve(size);
  while (v.size() < size) {
    v.resize(std::min(size, v.size() + kBlock));
    stop.tick();
  }
  return v;
}

}  // namespace robustcore
