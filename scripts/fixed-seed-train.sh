#!/usr/bin/env bash
# The fixed-seed CPU training run (issue #42): 200 steps of `tengu train` on a frozen run
# (one step-0 checkpoint and a few self-play shards), whose losses must not change when the
# trainer's code is reorganised.
#
#   scripts/fixed-seed-train.sh TENGU_BIN FIXTURE_DIR [STEPS]
#
# FIXTURE_DIR is made once when missing (a step-0 checkpoint of the tiny network written by
# `tengu train --max-steps 0`, then 16 self-play games, half their rows labelled by a depth-1
# teacher so that the judge's head trains too); the self-play is not reproducible
# bit for bit (it runs on the clock), so two trainers are compared on the same fixture.
# Each call trains a fresh copy of it (the fixture itself is never written) and prints one
# line per step: step, policy, value, ownership, material and judge (residual) loss, and the
# held-out losses at checkpoints (the loss log's fields, as printed by serde_json; the
# clock's fields left out).
set -euo pipefail
bin=$(realpath "$1")
fixture=$2
steps=${3:-200}

if [ ! -d "$fixture/shards" ]; then
    mkdir -p "$fixture"
    cat >"$fixture.toml" <<'EOF'
game = "dai-dai"
[network]
backend = "burn"
preset = "tiny"
[search]
visits = 8
[selfplay]
games_in_flight = 8
cheap_visits = 4
max_plies = 80
rows_per_shard = 200
live_game_seconds = 0.0
teacher_share = 0.5
teacher_depth = 1
[train]
batch_size = 32
min_rows = 100
passes_per_row = 1000.0
steps_per_checkpoint = 100
holdout_every = 5
holdout_eval_rows = 64
EOF
    "$bin" train --run "$fixture" --config "$fixture.toml" --max-steps 0 --quiet >&2
    "$bin" selfplay --run "$fixture" --games 16 --seed 7 --quiet >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$fixture" "$work/run"
# Only the step-0 checkpoint and the shards: a fresh trainer resumes from step 0.
rm -rf "$work/run/train" "$work/run/trainer" "$work/run/logs" "$work/run/cpu"
"$bin" train --run "$work/run" --max-steps "$steps" --seed 42 --quiet >&2
cat "$work/run"/train/*.jsonl | python3 -c '
import json, sys
keys = ["step", "policy_loss", "value_loss", "ownership_loss", "material_loss",
        "residual_loss", "learning_rate"]
held = ["heldout_policy_loss", "heldout_value_loss", "heldout_ownership_loss",
        "heldout_material_loss", "heldout_residual_loss", "heldout_rows"]
for line in sys.stdin:
    if line.strip():
        v = json.loads(line)
        # A missing value and null print alike (None): the log may leave out what it lacks.
        shown = keys + (held if "heldout_rows" in v else [])
        print(" ".join(f"{k}={v.get(k)}" for k in shown))
'
