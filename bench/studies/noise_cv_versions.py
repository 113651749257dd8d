"""Two versions of NoisyLabelClassifierCV head to head on the accuracy tables (issue 40): reads the tables that
``bench/noise_cv.py accuracy --seeds 3 --first-seed S`` printed for each version and seed triple, and prints per
triple the bench's counts (within the larger seed spread of the ceiling / LogisticRegression / CleanLearning), the
same counts within the peer's own spread only, and the cell-by-cell difference of the mean test errors.

    python bench/studies/noise_cv_versions.py OLD_0.log NEW_0.log [OLD_3.log NEW_3.log ...]

Then, per table, the cells where ours and each peer are within the bench's band of the hindsight ceiling (how far
the ceiling column is from the models tuned on the noisy labels).

The bench's verdict, ``ours <= peer + max(our sd, peer sd, 0.5)``, lets a version's own spread over the seeds widen
the band it is judged in: a version whose results vary more between seeds is counted within more often. The
second count, ``ours <= peer + max(peer sd, 0.5)``, does not. (The tables print one decimal, so a cell within 0.05
of the band can count differently from the bench's own line, which reads unrounded numbers.)

How the 2026-11-29 comparison ran (docs/benchmarks/noise.md, "The judged version head to head"): the judged
counts are 0.4.0's (commit 85c7a1a, the parent of issue 40's first commit), built as a wheel
(``pip wheel --no-build-isolation --no-deps 85c7a1a's worktree``), its ``_core`` extension copied into that
worktree's ``python/robustcore`` and its own ``bench/noise_cv.py`` run with that tree first on ``sys.path``;
the new version the same way from a frozen copy of main.
"""

from __future__ import annotations

import re
import sys

import numpy as np

_ROW = re.compile(r"\| (.+?) \| (.+?) \| ([\d.]+) ± ([\d.]+) \| ([\d.]+) ± ([\d.]+) \((.+?)\) \| ([\d.]+) ± ([\d.]+) \| "
                  r"([\d.]+) ± ([\d.]+) \|")
_COUNT = re.compile(r"within the seed spread of (\S+?),? or better: (\d+) of (\d+)")
PEERS = ("ceiling", "LogisticRegression", "cleanlab")


def parse(path):
    """({(data, noise): {"ours"/"ceiling"/"LogisticRegression"/"cleanlab": (mean, sd)}}, {peer: the bench's count})."""
    cells, counts = {}, {}
    with open(path) as fh:
        for line in fh:
            m = _ROW.match(line)
            if m:
                g = m.groups()
                cells[g[0], g[1]] = {"ours": (float(g[2]), float(g[3])), "ceiling": (float(g[4]), float(g[5])),
                                     "LogisticRegression": (float(g[7]), float(g[8])),
                                     "cleanlab": (float(g[9]), float(g[10]))}
            m = _COUNT.match(line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    return cells, counts


def within_peer_spread(cells, peer):
    """The cells where ours is within the peer's own spread (at least 0.5 points) of the peer's mean, or better."""
    return sum(v["ours"][0] <= v[peer][0] + max(v[peer][1], 0.5) + 1e-9 for v in cells.values())


def within_ceiling(cells, who):
    """The cells where ``who`` (ours or a peer) is within the bench's band of the hindsight ceiling: the larger of
    the two seed spreads, at least 0.5 points (read from the tables' one-decimal numbers)."""
    return sum(v[who][0] <= v["ceiling"][0] + max(v[who][1], v["ceiling"][1], 0.5) + 1e-9 for v in cells.values())


def main(paths):
    if len(paths) < 2 or len(paths) % 2:
        raise SystemExit(__doc__)
    print("| tables (old / new) | the bench's counts, old | new | within the peer's spread only, old | new | cells: "
          "new minus old, mean | better / worse by > 0.5 points |\n|---|---|---|---|---|---|---|")
    diffs = []
    totals = {k: np.zeros(3, int) for k in ("bench old", "bench new", "peer old", "peer new")}
    for old_path, new_path in zip(paths[::2], paths[1::2]):
        (old, old_counts), (new, new_counts) = parse(old_path), parse(new_path)
        common = sorted(set(old) & set(new))
        d = np.array([new[k]["ours"][0] - old[k]["ours"][0] for k in common])
        diffs.append(d)
        row = {"bench old": [old_counts.get(p, -1) for p in PEERS], "bench new": [new_counts.get(p, -1) for p in PEERS],
               "peer old": [within_peer_spread(old, p) for p in PEERS],
               "peer new": [within_peer_spread(new, p) for p in PEERS]}
        for k, v in row.items():
            totals[k] += v
        print(f"| {old_path} / {new_path} | " + " | ".join(" / ".join(map(str, row[k])) for k in totals) +
              f" | {d.mean():+.2f} | {(d < -0.5).sum()} / {(d > 0.5).sum()} |")
    d = np.concatenate(diffs)
    print(f"| all ({d.size} cells) | " + " | ".join(" / ".join(map(str, v)) for v in totals.values()) +
          f" | {d.mean():+.2f} | {(d < -0.5).sum()} / {(d > 0.5).sum()} |")
    # how far the ceiling column is from everything tuned on the noisy labels: each table's cells within the
    # ceiling's band, ours and the peers'
    print("\n| table | cells | ours within the ceiling | LogisticRegression within it | CleanLearning within it |\n"
          "|---|---|---|---|---|")
    for path in paths:
        cells = parse(path)[0]
        print(f"| {path} | {len(cells)} | " + " | ".join(str(within_ceiling(cells, w))
                                                        for w in ("ours", "LogisticRegression", "cleanlab")) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
