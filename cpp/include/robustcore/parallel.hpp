// A few tasks of one engine call on threads of their own (the shards of a parallel SGD epoch, the kernel
// groups of a mirror-prox kernel pass), stopped together: the calling thread runs task 0 and keeps polling
// its interrupt (interrupt.hpp) while it waits for the others; an interrupt, or any task's exception,
// makes the other tasks' InterruptChecks throw within about a millisecond; every thread is joined before
// run_tasks returns or throws.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <thread>
#include <vector>

#include "interrupt.hpp"

namespace robustcore {

/// P + 1 bounds cutting items 0..m-1 into P contiguous groups of about equal total cost(j) > 0.
template <class Cost>
std::vector<int64_t> balanced_cuts(int64_t m, int P, Cost&& cost) {
  double total = 0.0;
  for (int64_t j = 0; j < m; ++j) total += cost(j);
  std::vector<int64_t> cuts(static_cast<size_t>(P) + 1, m);
  cuts[0] = 0;
  double acc = 0.0;
  for (int64_t j = 0, p = 1; j < m && p < P; ++j) {
    acc += cost(j);
    while (p < P && acc >= total * p / P) cuts[static_cast<size_t>(p++)] = j + 1;
  }
  return cuts;
}

/// fn(p) for p = 0..P-1 (P >= 1): p = 0 on the calling thread, the others on new threads (a task is an
/// epoch's shard or a kernel pass's group, a millisecond or more, so the tens of microseconds of thread
/// start-up matter little). Rethrows the first exception a task raised that is not an Interrupted, else
/// Interrupted when one was raised or the caller's poll asked to stop.
template <class F>
void run_tasks(int P, F&& fn) {
  std::atomic<bool> stop{false};
  std::atomic<int> running{0};
  std::vector<std::exception_ptr> errors(static_cast<size_t>(P));
  const PollFn worker_poll = [&stop] { return stop.load(std::memory_order_relaxed); };
  auto task = [&](int p) {
    try {
      fn(p);
    } catch (...) {
      errors[static_cast<size_t>(p)] = std::current_exception();
      stop.store(true);
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(P > 1 ? P - 1 : 0));
  auto join_all = [&] {
    for (auto& t : threads)
      if (t.joinable()) t.join();
  };
  try {
    for (int p = 1; p < P; ++p) {
      running.fetch_add(1);
      threads.emplace_back([&, p] {
        {
          InterruptScope scope(worker_poll, 0.001);
          task(p);
        }
        running.fetch_sub(1);
      });
    }
  } catch (...) {  // a thread could not start: stop the started ones, then report it
    running.fetch_sub(1);
    stop.store(true);
    join_all();
    throw;
  }
  task(0);
  InterruptCheck check;  // the caller's poll, about once per its period while the others finish
  // short tasks end within a millisecond of each other: wait for those without sleeping
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
  while (running.load() > 0) {
    if (std::chrono::steady_clock::now() < spin_until) {
      std::this_thread::yield();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (stop.load()) continue;
    try {
      check.tick(std::numeric_limits<int64_t>::max() / 4);
    } catch (...) {
      errors[0] = std::current_exception();
      stop.store(true);
    }
  }
  join_all();
  std::exception_ptr interrupted;
  for (const auto& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const Interrupted&) {
      if (!interrupted) interrupted = e;
    } catch (...) {
      throw;
    }
  }
  if (interrupted) std::rethrow_exception(interrupted);
}

}  // namespace robustcore
