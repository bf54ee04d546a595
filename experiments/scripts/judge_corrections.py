#!/usr/bin/env python3
"""What the judge's residual head does on labelled rows: the size of its corrections and how
they follow a deeper teacher's.

RUN is a run directory (its config.toml and shards/) whose rows carry teacher labels (the
`teacher` target: the leaf's exchange count on the logit scale, then the teacher's tanh
value). For each checkpoint, on every labelled row: the correction r (logit units: the
search uses tanh(count + r); 0.1 is about one pawn-sized piece), its mean, mean |r|, standard
deviation and 99th percentile of |r|, and its correlation with the teacher's own correction
atanh(teacher) - count.

The rows' `teacher` target is what RUN's `[train]` makes of the label: with
`teacher_future_weight` or `teacher_result_weight` above 0 it blends in the material 16 plies
later or the result, so the script prints the blend and names the correction it compares
against after it. For the depth-2 search's own correction, RUN's config needs both at 0.

Usage: PYTHONPATH=... python experiments/scripts/judge_corrections.py RUN CHECKPOINT...
(the tengu package and torch: docs/python.md)
"""
import os
import sys
import tomllib

import numpy as np
import torch

import tengu
from tengu.train import TenguNet


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run, checkpoints = sys.argv[1], sys.argv[2:]
    train = tomllib.load(open(os.path.join(run, "config.toml"), "rb")).get("train", {})
    future = float(train.get("teacher_future_weight", 0.0))
    result = float(train.get("teacher_result_weight", 0.0))
    target = ("the teacher's" if future == 0 and result == 0 else
              f"the target's (teacher {1 - future - result:g}, material 16 plies on {future:g}, "
              f"result {result:g})")
    nets = [(c, TenguNet.from_checkpoint(c)) for c in checkpoints]
    outputs = {c: [] for c in checkpoints}
    targets = []
    for split in ("train", "held_out"):
        for batch in tengu.ShardReader(run, batch_size=256, split=split):
            labelled = np.asarray(batch["has_teacher"]) > 0
            if not labelled.any():
                continue
            targets.append(np.asarray(batch["teacher"])[labelled])
            planes = torch.as_tensor(np.asarray(batch["planes"])[labelled])
            for c, net in nets:
                with torch.no_grad():
                    outputs[c].append(net(planes).heads["residual"].numpy().reshape(-1))
    if not targets:
        sys.exit(f"{run}: no row with a teacher label")
    t = np.concatenate(targets)
    count, teacher = t[:, 0], t[:, 1]
    gap = np.arctanh(np.clip(teacher, -0.999, 0.999)) - count
    print(f"{len(t)} labelled rows; {target} correction: mean |.| {np.abs(gap).mean():.4f}, "
          f"sd {gap.std():.4f}")
    for c in checkpoints:
        r = np.concatenate(outputs[c])
        corr = np.corrcoef(r, gap)[0, 1] if r.std() > 0 else float("nan")
        print(f"{c}: r mean {r.mean():+.4f}, mean |r| {np.abs(r).mean():.4f}, sd {r.std():.4f}, "
              f"p99 |r| {np.quantile(np.abs(r), 0.99):.3f}, corr with {target} {corr:.3f}")


if __name__ == "__main__":
    main()
