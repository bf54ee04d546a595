#!/usr/bin/env python3
"""Packs the slim state of the judge's GPU run (experiments/scripts/gpu-judge.sh) after a session.

The state is what the next session resumes from and what the ladder is rated on, small
enough to commit (the issue allows 8 MB a commit):
- config.toml, README.md: as they were;
- models/: the newest checkpoint, its record and its optimizer state (the resume point);
- trainer/: its ingest state, without the shard lists (rows and games seen go on);
- train/, cpu/: the whole loss log and CPU ledger (the ledger's total is the run's CPU-hours;
  the loss log's `cpu_seconds` at a step is that checkpoint's, as `tengu ladder` reads it);
- rungs/: one checkpoint at each ladder rung's CPU-hours (0.25 .. 32), the one published
  nearest to it once the run has passed it, kept once and never replaced;
- sessions.tsv: one line a session (date, GPU, wall seconds, CPU-hours and steps from/to).

Usage: gpu_judge_pack.py --run DIR --state DIR --out FILE.tar.gz --wall-seconds S --gpu NAME
       --exit-code N --cpu-seconds-from S --cpu-seconds-to S
"""
import argparse
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time

RUNGS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]


def logged_cpu_hours(run):
    """Each logged step's CPU-hours: the run's ledger as its loss log line recorded it."""
    hours = {}
    folder = os.path.join(run, "train")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        for line in open(os.path.join(folder, name)):
            if line.strip():
                record = json.loads(line)
                hours[record["step"]] = record["cpu_seconds"] / 3600
    return hours


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--run", required=True)
    a.add_argument("--state", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--wall-seconds", type=float, required=True)
    a.add_argument("--gpu", default="none")
    a.add_argument("--exit-code", type=int, default=0)
    a.add_argument("--cpu-seconds-from", type=float, required=True,
                   help="the run's ledger when the session started")
    a.add_argument("--cpu-seconds-to", type=float, required=True,
                   help="the run's ledger when it stopped")
    args = a.parse_args()
    run, state = args.run, args.state

    models = sorted(n for n in os.listdir(os.path.join(run, "models")) if n.endswith(".json"))
    if not models:
        sys.exit(f"{run}/models holds no checkpoint record: nothing to pack")
    records = {n: json.load(open(os.path.join(run, "models", n))) for n in models}
    newest = records[models[-1]]

    # The session's checkpoints with their CPU-hours (step 0 has no loss log line).
    logged = logged_cpu_hours(run)
    published = [(records[n]["step"], logged[records[n]["step"]]) for n in models
                if records[n]["step"] in logged]

    slim = tempfile.mkdtemp(prefix="gpu-judge-state-")
    for name in os.listdir(state):
        if name in ("models", "train", "cpu", "trainer"):
            continue
        src = os.path.join(state, name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, os.path.join(slim, name))
    os.makedirs(os.path.join(slim, "models"))
    shutil.copy2(os.path.join(run, "models", models[-1]), os.path.join(slim, "models"))
    for part in ("weights", "optimizer"):
        if newest.get(part):
            shutil.copy2(os.path.join(run, newest[part]["key"]), os.path.join(slim, newest[part]["key"]))
    # The ingest state of the newest checkpoint without its shard lists: the next machine has
    # none of these shards, but the rows and games seen must go on (the trainer's
    # passes_per_row counts every row the run has written; at zero it would wait until the
    # new rows caught up with all the steps taken before).
    ingest = os.path.join(run, "trainer", f"ingest-{newest['step']:09d}.json")
    if os.path.exists(ingest):
        state_json = json.load(open(ingest))
        state_json["seen"], state_json["window"] = [], []
        os.makedirs(os.path.join(slim, "trainer"))
        with open(os.path.join(slim, "trainer", os.path.basename(ingest)), "w") as f:
            json.dump(state_json, f, indent=1)
    for folder in ("train", "cpu"):
        if os.path.isdir(os.path.join(run, folder)):
            shutil.copytree(os.path.join(run, folder), os.path.join(slim, folder))

    # Rungs: a rung passed in this session gets the checkpoint published nearest to it.
    rungs = os.path.join(slim, "rungs")
    os.makedirs(rungs, exist_ok=True)
    have = {n.split("-")[1] for n in os.listdir(rungs)}
    start_h, end_h = args.cpu_seconds_from / 3600, args.cpu_seconds_to / 3600
    added = []
    for target in RUNGS:
        tag = f"{target:g}h"
        if tag in have or not published or not (start_h <= target * 1.05 and target <= end_h):
            continue
        step, h = min(published, key=lambda r: abs(r[1] - target))
        if abs(h - target) > 0.1 * target:
            continue
        name = f"model-{step:09d}.safetensors"
        shutil.copy2(os.path.join(run, "models", name), os.path.join(rungs, f"rung-{tag}-{name}"))
        # The run's settings beside the rung (`<name>.toml`), so `tengu match` plays it with
        # the run's own [search] and not the built-in defaults (outside models/ the run's
        # config.toml is not found).
        shutil.copy2(os.path.join(run, "config.toml"),
                     os.path.join(rungs, f"rung-{tag}-model-{step:09d}.toml"))
        added.append(f"{tag} = step {step} at {h:.3f} CPU-h")

    sessions = os.path.join(slim, "sessions.tsv")
    first = not os.path.exists(sessions)
    steps_from = records[models[0]]["step"]
    with open(sessions, "a") as f:
        if first:
            f.write("# date gpu wall_seconds cpu_hours_from cpu_hours_to step_from step_to exit\n")
        gpu = args.gpu.replace(" ", "_")
        f.write(f"{time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())} {gpu} {args.wall_seconds:.0f} "
                f"{start_h:.3f} {end_h:.3f} {steps_from} {newest['step']} {args.exit_code}\n")

    with tarfile.open(args.out, "w:gz") as tar:
        for name in sorted(os.listdir(slim)):
            tar.add(os.path.join(slim, name), arcname=name)
    size = os.path.getsize(args.out)
    shutil.rmtree(slim)
    print(f"judge: state packed ({size / 1e6:.2f} MB): step {newest['step']}, "
          f"{start_h:.3f} -> {end_h:.3f} CPU-h, {len(models)} checkpoints, "
          f"rungs {', '.join(added) if added else 'none new'}")


if __name__ == "__main__":
    main()
