"""DaskNoisyLabelClassifierCV on data three times the cluster's memory (issue 41's acceptance run).

A generated dense problem (planted linear classes, class-conditional flips 0.1 of class 0 and 0.3 of class 1; the
same distribution as ``bench_dask.py --mode noisy``) of --gigabytes of float64 features, made partition by
partition on the workers of a ``LocalCluster(n_workers=2, processes=True, memory_limit=--memory-limit)`` and never
persisted: every pass over X re-makes its partitions where they are needed (as re-reading a file would). Then:

* the distributed ``DaskNoisyLabelClassifierCV`` at its defaults: wall time, the clean test error on --test-rows
  rows of the same distribution, the estimated flip rates against the true 0.1 / 0.3, the label issues' count and
  precision against the true flips (summed on the workers);
* while it runs, every second: the workers' process memory (the largest seen), spilled bytes, and any worker that
  left the cluster (a worker the nanny killed for memory leaves and a new one joins under another address); the
  driver's resident memory above its level before the fit;
* the in-memory ``NoisyLabelClassifierCV`` (defaults) on --sample-rows rows of the same distribution for --seeds
  seeds: the mean and standard deviation of its clean test error, and its rates: the "seed spread" the distributed
  fit's error is judged against.

    python bench/bench_dask_out_of_core.py [--gigabytes 3.3] [--features 100] [--partition-mb 64]
        [--memory-limit 1GiB] [--sample-rows 1000000] [--seeds 3]

--smoke: 4 MB in partitions of 0.5 MiB, threads in place of worker processes, a 5k-row sample, one seed, 2 rounds
(tests/python/test_bench_smoke.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_dask import noisy_data  # noqa: E402

RATES = (0.1, 0.3)  # noisy_data's flips: class 0, class 1


def partition(n, d, seed):
    """One partition of the problem: (X, noisy y, flipped mask), seeded by ``seed`` alone."""
    X, y_noisy, y = noisy_data(n, d, seed)
    return X, y_noisy, y_noisy != y


def lazy_problem(n, d, rows_per_part, seed):
    """X, noisy y and the flipped mask as dask arrays whose partitions are made on the workers when a task needs
    them (not persisted)."""
    import dask
    import dask.array as da

    bounds = list(range(0, n, rows_per_part)) + [n]
    parts = [dask.delayed(partition, pure=True)(b - a, d, seed * 100_003 + p)
             for p, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
    X = da.concatenate([da.from_delayed(q[0], shape=(m, d), dtype=np.float64) for q, m in zip(parts, sizes)])
    y = da.concatenate([da.from_delayed(q[1], shape=(m,), dtype=np.int64) for q, m in zip(parts, sizes)])
    flipped = da.concatenate([da.from_delayed(q[2], shape=(m,), dtype=bool) for q, m in zip(parts, sizes)])
    return X, y, flipped


def driver_rss():
    """This process's resident memory, bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Watch(threading.Thread):
    """Polls the scheduler every ``period`` seconds: the largest worker process memory, the largest spilled bytes,
    the driver's largest resident memory, and every worker address seen. A worker the nanny kills (memory above
    95% of its limit) comes back under a new address, so the workers killed are the addresses seen beyond the
    first ones; the nanny's "Restarting worker" warnings in the log say the same."""

    def __init__(self, client, period=1.0):
        super().__init__(daemon=True)
        self.client, self.period = client, period
        self.first = set(client.scheduler_info()["workers"])
        self.seen = set(self.first)
        self.max_worker = self.max_spilled = 0
        self.max_driver = driver_rss()
        self.stop = threading.Event()

    @property
    def killed(self):
        return len(self.seen) - len(self.first)

    def run(self):
        while not self.stop.wait(self.period):
            try:
                workers = self.client.scheduler_info()["workers"]
            except Exception:  # the scheduler busy or closing: the next poll
                continue
            self.seen |= set(workers)
            for info in workers.values():
                metrics = info.get("metrics", {})
                self.max_worker = max(self.max_worker, int(metrics.get("memory", 0)))
                spilled = metrics.get("spilled_bytes", {})
                self.max_spilled = max(self.max_spilled, int(spilled.get("disk", 0) if isinstance(spilled, dict)
                                                             else spilled))
            self.max_driver = max(self.max_driver, driver_rss())


def main(argv=None):
    import dask
    import robustcore as rc
    from dask.utils import parse_bytes
    from distributed import Client, LocalCluster
    from robustcore.dask import DaskNoisyLabelClassifierCV

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gigabytes", type=float, default=3.3, help="size of X, float64 (10^9 bytes; 3.3: three times a 1 GiB worker)")
    p.add_argument("--features", type=int, default=100)
    p.add_argument("--partition-mb", type=float, default=64.0, help="size of one partition of X (2^20 bytes)")
    p.add_argument("--memory-limit", default="1GiB", help="each worker's memory limit")
    p.add_argument("--sample-rows", type=int, default=1_000_000, help="rows of the in-memory reference fits")
    p.add_argument("--seeds", type=int, default=3, help="seeds of the in-memory reference fits")
    p.add_argument("--test-rows", type=int, default=200_000)
    p.add_argument("--skip-reference", action="store_true")
    p.add_argument("--smoke", action="store_true")
    args = p.parse_args(argv)
    if args.smoke:
        args.gigabytes, args.features, args.partition_mb = 0.004, 20, 0.5
        args.sample_rows, args.seeds, args.test_rows = 5_000, 1, 5_000
    d = args.features
    n = int(args.gigabytes * 1e9 / (8 * d))
    rows_per_part = max(1, int(args.partition_mb * 2**20 / (8 * d)))
    limit = parse_bytes(args.memory_limit)
    Xt, _, yt = noisy_data(args.test_rows, d, 999)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
    print(f"X: {n} x {d} float64 = {n * d * 8 / 1e9:.2f} GB in {-(-n // rows_per_part)} partitions of "
          f"{rows_per_part} rows; 2 workers of {limit / 2**30:.2f} GiB ({n * d * 8 / limit:.1f}x one worker's "
          f"limit); flips {RATES[0]} / {RATES[1]}", flush=True)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=not args.smoke, memory_limit=limit,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        X, y, flipped = lazy_problem(n, d, rows_per_part, seed=0)
        watch = Watch(client)
        base = driver_rss()
        watch.start()
        t0 = time.perf_counter()
        clf = DaskNoisyLabelClassifierCV(max_iter=2 if args.smoke else None, random_state=0, verbose=1).fit(X, y)
        seconds = time.perf_counter() - t0
        n_issues = int(clf.label_issues_.shape[0]) if not np.isnan(clf.label_issues_.shape[0]) else None
        flagged, true_pos, n_flipped = dask.compute(clf.label_issue_mask_.sum(),
                                                    (clf.label_issue_mask_ & flipped).sum(), flipped.sum())
        watch.stop.set()
        watch.join()
        error = 1.0 - clf.score(Xt, yt)
        rates = clf.noise_rates_
        print(f"\ndistributed: {seconds:.0f} s; clean test error {100 * error:.2f}%; rates {rates.round(3)} "
              f"(true {RATES}, largest error {np.abs(rates - RATES).max():.3f}); remedy {clf.best_remedy_}; "
              f"{flagged} rows flagged ({n_issues}), precision {true_pos / max(flagged, 1):.3f}, recall "
              f"{true_pos / max(n_flipped, 1):.3f}")
        print(f"  workers: {watch.killed} killed and restarted; largest worker process memory "
              f"{watch.max_worker / 2**30:.2f} GiB of {limit / 2**30:.2f}; largest spilled to disk "
              f"{watch.max_spilled / 2**30:.2f} GiB; driver resident memory +{(watch.max_driver - base) / 2**20:.0f} "
              f"MiB during the fit (X is {n * d * 8 / 2**20:.0f} MiB)", flush=True)

    if args.skip_reference:
        return 0
    errors, mem_rates = [], []
    for seed in range(args.seeds):
        Xs, ys, _ = noisy_data(args.sample_rows, d, 10_000 + seed)
        t0 = time.perf_counter()
        mem = rc.NoisyLabelClassifierCV(random_state=seed).fit(Xs, ys)
        errors.append(1.0 - mem.score(Xt, yt))
        mem_rates.append(1.0 - np.diag(mem.transition_matrix_))
        print(f"in memory, {args.sample_rows} rows, seed {seed}: {time.perf_counter() - t0:.0f} s; clean test error "
              f"{100 * errors[-1]:.2f}%; rates {mem_rates[-1].round(3)}; remedy {mem.best_remedy_}", flush=True)
        del Xs, ys
    spread = max(float(np.std(errors)), 0.005)
    print(f"\nin memory: {100 * np.mean(errors):.2f} +- {100 * np.std(errors):.2f}% (spread used: "
          f"{100 * spread:.2f} points, at least 0.5); distributed {100 * error:.2f}%: "
          f"{'within' if abs(error - np.mean(errors)) <= spread or error < np.mean(errors) else 'OUTSIDE'} the spread")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
