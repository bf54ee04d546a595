#!/usr/bin/env bash
# Evaluates the newest checkpoint of a run the way the learning A/B table reports it:
# the tactics suite, the raw policy against greedy, and MCTS (32 visits) against greedy
# (30 paired games, 300-ply cap, 1.5x material adjudication), searching with the run's
# [search] settings. JSON into RUN/eval/.
# Usage: scripts/evaluate_run.sh RUN_DIR [TENGU_BINARY]
set -euo pipefail
run=$1
tengu=${2:-./target/release/tengu}
game=$(sed -n 's/^game = "\(.*\)"/\1/p' "$run/config.toml" | head -1)
ckpt=${CHECKPOINT:-$(ls "$run"/models/model-*.safetensors | sort | tail -1)}
out="$run/eval/$(basename "$ckpt" .safetensors)"
mkdir -p "$out"
"$tengu" suite --checkpoint "$ckpt" --json --log warn > "$out/suite.json"
"$tengu" match "policy:$ckpt" greedy --game "$game" --games 60 --max-plies 300 \
    --material-ratio 1.5 --threads 2 --json --log warn > "$out/policy-vs-greedy.json"
"$tengu" match "checkpoint:$ckpt:32" greedy --game "$game" --games 30 --max-plies 300 \
    --material-ratio 1.5 --search-config "$run/config.toml" --threads 2 --json --log warn \
    > "$out/mcts32-vs-greedy.json"
python3 - "$out" "$run" <<'PY'
import json, sys, glob, os
out, run = sys.argv[1], sys.argv[2]
suite = json.load(open(f"{out}/suite.json"))
pol = json.load(open(f"{out}/policy-vs-greedy.json"))
mc = json.load(open(f"{out}/mcts32-vs-greedy.json"))
cpu = sum(float(open(f).read()) for f in glob.glob(f"{run}/cpu/*.txt"))
# The loss log: one segment per checkpoint interval (train/<step>.jsonl), in step order.
lines = [json.loads(l) for f in sorted(glob.glob(f"{run}/train/*.jsonl")) for l in open(f) if l.strip()]
held = [l for l in lines if l.get("heldout_value_loss") is not None]
h = held[-1] if held else {}
print(json.dumps({
    "run": run, "checkpoint": os.path.basename(out), "cpu_hours": round(cpu / 3600, 3),
    "games_seen": lines[-1].get("games_seen") if lines else None,
    "heldout_value_loss": h.get("heldout_value_loss"), "heldout_policy_loss": h.get("heldout_policy_loss"),
    "train_value_loss": lines[-1].get("value_loss") if lines else None,
    "suite_top1": suite["top1"], "suite_top3": suite["top3"], "suite_value_sign": suite["value_sign"],
    "policy_vs_greedy": pol.get("score"), "mcts32_vs_greedy": mc.get("score"),
    "mcts32_elo": [mc.get("elo_low"), mc.get("elo"), mc.get("elo_high")],
}))
PY
