"""Question: Would another selection rule over NoisyLabelClassifierCV's grid pick better candidates (issue 32's
  grid / selection split)?
Answer: no: the replay reproduces the fit's picks (37 / 47 / 45 of 48 cells), no rule replayed reaches the
  accuracy line, and even the cross-seed hindsight choice reaches 41-43 of 48: the line is out of reach of any
  selection over this grid (docs/benchmarks/noise.md, 'The cross-seed hindsight')
Date: 2026-11-27
Private imports: none (it does not import robustcore: it reads the dump of ``bench/noise_cv.py accuracy
  --explore --dump``). Dumps made since 2026-11-28 have no "sramp_sgd" remedy (bench/noise_cv.py no longer
  patches it into _noise_cv.REMEDIES): the rules that name it need a dump made before.

Replay NoisyLabelClassifierCV's selection offline (issue 32's grid / selection split): from a dump of
``python bench/noise_cv.py accuracy --explore --dump FILE`` (every candidate of the grid, Smooth Ramp with the
SGD solver included as "sramp_sgd", scored on every fold, and every candidate refitted on all rows and tested
on the clean labels), pick per run what a selection rule would have picked and count the cells within the seed
spread of the configuration ceiling, of LogisticRegression (noisy CV) and of CleanLearning, as
``bench/noise_cv.py`` counts them.

    python bench/studies/noise_cv_replay.py FILE [RULE ...]     # RULE names: print its cells that lose
    python bench/studies/noise_cv_replay.py FILE --against OTHER   # + the configuration best on OTHER's seeds, tested here

It also prints the cross-seed hindsight (per cell and seed, the configuration best on the other seeds: how much
of the hindsight ceiling no selection can reach) and the selection's leak at 40% symmetric noise (fold scores
above what a perfect classifier can score on the noisy labels).

Rules: the fit's own (successive halving, n_finalists=3, the best mean corrected score; the noisy accuracy
when T is ill-conditioned), over different remedy sets, without halving, and two one-standard-error variants
("1se": the first remedy in order, then the largest alpha, within one standard error of the best; "1se_alpha":
the best's remedy, its largest alpha within one standard error); "hindsight": the candidate of the grid with
the best mean clean test error per cell (the selection ceiling). The candidates' fold fits are independent
(same seed, same bits), so the replayed default reproduces the fit's picks (checked: 37 / 47 / 45 of 48, the
measured table, from the dump of the code it was measured on).
"""

from __future__ import annotations

import pickle
import sys

import numpy as np

ORDER = ("plain", "corrected", "pruned", "sramp", "sramp_sgd")
SGD = ("plain", "corrected", "pruned", "sramp_sgd")


def remedy(key):
    return key.split()[1]


def alpha(key):
    return float(key.split("alpha=")[1])


def select(run, remedies, rule="mean", n_finalists=3, n_screen=2):
    """The key ("grid <remedy> alpha=<a>") the rule picks in one run."""
    cv = run["_cv"]
    keys = cv["keys"]
    idx = sorted((i for i, k in enumerate(keys) if remedy(k) in remedies),
                 key=lambda i: (remedies.index(remedy(keys[i])), i))
    S = np.array(cv["noisy"] if cv["scoring"] == "noisy" else cv["splits"])[idx]
    names = [keys[i] for i in idx]
    C, F = S.shape
    reused = [c for c in range(C) if remedy(names[c]) == "plain"]  # the shared pass's fits: every fold
    fitted = [c for c in range(C) if c not in reused]
    mask = np.ones((C, F), bool)
    if n_finalists is not None and F > n_screen and len(fitted) > n_finalists:
        partial = S[:, :n_screen].mean(axis=1)
        finalists = sorted(fitted, key=lambda c: -partial[c])[:n_finalists]
        for c in fitted:
            if c not in finalists:
                mask[c, n_screen:] = False
    complete = mask.all(axis=1)
    mean = np.where(complete, np.where(mask, S, 0).sum(1) / mask.sum(1), -np.inf)
    best = int(np.argmax(mean))
    if rule == "mean":
        return names[best]
    ok = [c for c in range(C) if complete[c] and mean[c] >= mean[best] - S[best].std() / np.sqrt(F)]
    if rule == "1se":
        return names[min(ok, key=lambda c: (remedies.index(remedy(names[c])), -alpha(names[c])))]
    r = remedy(names[best])  # "1se_alpha"
    return names[max((c for c in ok if remedy(names[c]) == r), key=lambda c: alpha(names[c]))]


def within(errs, ref):
    """bench/noise_cv.py's rule: the mean error within the larger seed standard deviation (at least 0.5
    points) of the reference's mean, or better."""
    return bool(errs.mean() <= ref.mean() + max(errs.std(), ref.std(), 0.005))


def ceiling_key(runs):
    """The configuration ceiling: noise-bench's configuration with the best mean error over these runs."""
    return min((k for k in runs[0] if k.startswith("rc ")), key=lambda k: np.mean([r[k] for r in runs]))


def verdict(cells, pick):
    """({who: {setting: [within, cells]}}, per cell [name, setting, mean ± sd, losses...])."""
    out, rows = {}, []
    for name, label, runs in cells:
        if isinstance(pick, tuple):  # hindsight within the grid of these remedies: one candidate per cell
            keys = [k for k in runs[0]["_cv"]["keys"] if remedy(k) in pick and all(k in r for r in runs)]
            best = min(keys, key=lambda k: np.mean([r[k] for r in runs]))
            errs = np.array([r[best] for r in runs])
        else:
            errs = np.array([r[pick(r)] for r in runs])
        others = {"ceiling": ceiling_key(runs),
                  "LR": "LogisticRegression (noisy CV)", "cleanlab": "cleanlab CleanLearning"}
        row = [name, label, f"{100 * errs.mean():.1f} ± {100 * errs.std():.1f}"]
        for who, key in others.items():
            if key not in runs[0]:
                continue
            v = np.array([r[key] for r in runs])
            ok = within(errs, v)
            cell = out.setdefault(who, {}).setdefault(label, [0, 0])
            cell[0], cell[1] = cell[0] + ok, cell[1] + 1
            if not ok:
                row.append(f"behind {who} {100 * v.mean():.1f} ± {100 * v.std():.1f}")
        rows.append(row)
    return out, rows


RULES = {
    "default": lambda r: select(r, ORDER[:4]),
    "default, no halving": lambda r: select(r, ORDER[:4], n_finalists=None),
    "default, screened on one fold": lambda r: select(r, ORDER[:4], n_screen=1),
    "+sramp_sgd": lambda r: select(r, ORDER),
    "sramp->sgd": lambda r: select(r, SGD),
    "default 1se": lambda r: select(r, ORDER[:4], "1se"),
    "default 1se_alpha": lambda r: select(r, ORDER[:4], "1se_alpha"),
    "sramp->sgd 1se": lambda r: select(r, SGD, "1se"),
    "sramp->sgd 1se_alpha": lambda r: select(r, SGD, "1se_alpha"),
    "+sramp_sgd 1se_alpha": lambda r: select(r, ORDER, "1se_alpha"),
    "hindsight default grid": ORDER[:4],
    "hindsight +sramp_sgd grid": ORDER,
    "hindsight sramp->sgd grid": SGD,
}


def cross_seed(cells, prefix):
    """{setting: [within, cells]}: per cell, for each seed the configuration (``prefix`` "rc ": noise-bench's
    configurations, the ceiling's own family; "grid ": our grid) with the best mean error over the *other*
    seeds, tested on that seed -- the best fixed choice for the cell learnt from independent noise draws --
    against the all-seed hindsight ceiling, by the same spread rule. What no selection from one data set can
    be expected to beat: it measures how much of the ceiling is the minimum over many noisy means."""
    out = {}
    for _, label, runs in cells:
        keys = [k for k in runs[0] if k.startswith(prefix) and all(k in r for r in runs)]
        E = np.array([[r[k] for k in keys] for r in runs])
        ceiling = np.array([r[ceiling_key(runs)] for r in runs])
        xs = np.array([E[s, np.argmin(np.delete(E, s, axis=0).mean(axis=0))] for s in range(len(runs))])
        cell = out.setdefault(label, [0, 0])
        cell[0] += int(within(xs, ceiling))
        cell[1] += 1
    return out


def cross_table(chosen, tested):
    """{setting: [within, cells]}: per cell, noise-bench's configuration with the best mean error on the table
    ``chosen`` (other seeds), tested on the table ``tested``, against ``tested``'s hindsight ceiling."""
    out = {}
    for (name, label, runs), (name2, label2, runs2) in zip(chosen, tested):
        assert (name, label) == (name2, label2), "the two dumps hold different cells"
        pick, ceiling = ceiling_key(runs), ceiling_key(runs2)
        a, b = np.array([r[pick] for r in runs2]), np.array([r[ceiling] for r in runs2])
        cell = out.setdefault(label, [0, 0])
        cell[0] += int(within(a, b))
        cell[1] += 1
    return out


def leak(cells, rate=0.4):
    """(pruned / corrected candidates whose mean fold score on the noisy labels is above 1 - rate, of all;
    corrected candidates whose mean corrected score is above 1, of all) at symmetric noise ``rate``: a perfect
    classifier scores 1 - rate on noisy labels, and the corrected score estimates an accuracy."""
    above = n = over1 = m = 0
    for _, label, runs in cells:
        if label != f"q={rate}":
            continue
        for r in runs:
            cv = r["_cv"]
            for k, noisy, corr in zip(cv["keys"], cv["noisy"], cv["splits"]):
                if remedy(k) in ("pruned", "corrected"):
                    above, n = above + int(np.nanmean(noisy) > 1 - rate), n + 1
                    if not np.all(np.isnan(corr)):
                        over1, m = over1 + int(np.nanmean(corr) > 1), m + 1
    return above, n, over1, m


def main():
    with open(sys.argv[1], "rb") as fh:
        cells = pickle.load(fh)
    args = sys.argv[2:]
    if "--against" in args:  # a dump of the same cells with other seeds (--first-seed)
        other_path = args[args.index("--against") + 1]
        with open(other_path, "rb") as fh:
            other = pickle.load(fh)
        d = cross_table(other, cells)
        print(f"== noise-bench's configuration best on {other_path}, tested here: within the ceiling's spread "
              f"{sum(v[0] for v in d.values())}/{sum(v[1] for v in d.values())}: "
              + " ".join(f"{label} {v[0]}/{v[1]}" for label, v in d.items()))
    for prefix, what in (("rc ", "noise-bench's configurations"), ("grid ", "our grid (+ sramp_sgd)")):
        d = cross_seed(cells, prefix)
        print(f"== cross-seed hindsight over {what} (each seed's pick from the other seeds): within the "
              f"ceiling's spread {sum(v[0] for v in d.values())}/{sum(v[1] for v in d.values())}: "
              + " ".join(f"{label} {v[0]}/{v[1]}" for label, v in d.items()))
    above, n, over1, m = leak(cells)
    print(f"== at q=0.4, pruned / corrected candidates' mean noisy score above 0.6: {above} of {n}; mean corrected "
          f"score above 1: {over1} of {m}")
    for name, pick in RULES.items():
        out, rows = verdict(cells, pick)
        totals = ", ".join(f"{who} {sum(v[0] for v in d.values())}/{sum(v[1] for v in d.values())}"
                           for who, d in out.items())
        print(f"== {name}: within the seed spread of {totals}")
        for who, d in out.items():
            print(f"   {who}: " + " ".join(f"{label} {v[0]}/{v[1]}" for label, v in d.items()))
        if name in sys.argv[2:]:
            for row in rows:
                if len(row) > 3:
                    print("     " + " | ".join(row))


if __name__ == "__main__":
    main()
