#!/usr/bin/env python3
"""How close the free targets stored in self-play rows are to a deeper teacher's correction of
the exchange count (record 2026-11-28-c, "Offline: are other free targets closer").

On every row of RUN with a teacher label: each candidate's correction to the count (its logit
minus the count) against the teacher's own (atanh(teacher) - count): the mean |correction| and
the correlation. Candidates: the material 16 plies later, at the game's end, their mean, the
row's root search value, and its mean with the 16-ply material.

RUN's config must leave the label and the value target plain, or the batches carry blends:
`[train] teacher_future_weight = 0`, `teacher_result_weight = 0` (the `teacher` target is the
teacher's), `search_value_weight = 1`, `future_value_weight = 0` (the `wdl` target is the root
search value). A copy of a run's config.toml beside a link to its shards/ will do.

Usage: PYTHONPATH=... python experiments/scripts/free_targets.py RUN   (the tengu package: docs/python.md)
"""
import os
import sys
import tomllib

import numpy as np

import tengu

NEEDED = {"teacher_future_weight": 0.0, "teacher_result_weight": 0.0,
          "search_value_weight": 1.0, "future_value_weight": 0.0}


def logit(x):
    return np.arctanh(np.clip(x, -0.999, 0.999))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    run = sys.argv[1]
    train = tomllib.load(open(os.path.join(run, "config.toml"), "rb")).get("train", {})
    wrong = {k: train.get(k, 0.0) for k, v in NEEDED.items() if float(train.get(k, 0.0)) != v}
    if wrong:
        sys.exit(f"{run}/config.toml: [train] needs {NEEDED}; it has {wrong}")
    parts = []
    for batch in tengu.ShardReader(run, batch_size=256, split="all"):
        labelled = np.asarray(batch["has_teacher"]) > 0
        if labelled.any():
            wdl = np.asarray(batch["wdl"])[labelled]
            parts.append(np.column_stack([np.asarray(batch["teacher"])[labelled],
                                          wdl[:, 0] - wdl[:, 2],
                                          np.asarray(batch["material"])[labelled]]))
    if not parts:
        sys.exit(f"{run}: no row with a teacher label")
    count, teacher, root, m16, end = np.concatenate(parts).T
    gap = logit(teacher) - count
    print(f"{len(count)} labelled rows; the teacher's correction: mean |.| {np.abs(gap).mean():.4f}")
    for name, x in [("material 16 plies later", logit(m16)), ("material at the end", logit(end)),
                    ("mean of 16 plies and end", (logit(m16) + logit(end)) / 2),
                    ("root search value", logit(root)),
                    ("mean of root value and 16 plies", (logit(root) + logit(m16)) / 2)]:
        g = x - count
        print(f"{name}: mean |correction| {np.abs(g).mean():.3f}, "
              f"corr with the teacher's {np.corrcoef(g, gap)[0, 1]:.3f}")


if __name__ == "__main__":
    main()
