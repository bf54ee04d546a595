#!/usr/bin/env bash
# The GPU measurements of issue #15, run from the folder scripts/gpu-bundle.sh makes (tengu,
# configs/, checkpoint-*.safetensors, this script) on a machine with PyTorch installed and no
# Rust: tengu is linked at run time against that PyTorch's libraries (LD_LIBRARY_PATH).
#
# Usage: ./gpu-check.sh [--backends LIST] [STEP...]     steps: agree nn search sweep run summary
#        (default: all, in that order; the summary is always rewritten at the end)
# Each step logs to $OUT/<step>.log and writes $OUT/<step>.json; a failing step is recorded
# in $OUT/steps.jsonl and the next one runs. Every step fits in the device tool's 10 minutes
# (run the steps as separate commands to stay under it in total).
#
# Environment (defaults are the GPU settings; the tch-cpu rehearsal sets smaller ones):
#   OUT              output folder (./out)
#   BACKENDS         device backends, comma separated (tch-cuda,tch-cuda-bf16); --backends too
#   CHECKPOINT       checkpoint for agree (the bundle's checkpoint-*.safetensors)
#   AGREE_POSITIONS  positions compared (512)
#   NN_PRESETS       presets of bench nn (cpu,gpu,b20c256)
#   NN_BATCHES       batch sizes of bench nn (64,256,1024,4096)
#   NN_SECONDS       seconds per bench nn measurement (2)
#   NN_TRAIN_BATCH   batch of bench nn's training measurement (256)
#   SEARCH_PRESET SEARCH_GAMES SEARCH_VISITS SEARCH_SECONDS   bench search (gpu 1024 400 20)
#   SWEEP SWEEP_GAMES SWEEP_SECONDS   worker processes x encoder threads sharing the GPU
#                    ("1x1 4x1 8x1 12x1 1x8 4x3 8x2", 256 games each, 12 s)
#   RUN_CONFIG       run configuration (configs/run/dai-dai-gpu.toml)
#   RUN_SET          "table.key=value ..." overrides of its keys
#   RUN_MINUTES      minutes of tengu run (6: with the match it stays under 10)
#   RUN_DIR          run directory, kept out of $OUT, whose shards and checkpoints are large
#                    (${TMPDIR:-/tmp}/tengu-gpu-check-run); curves, logs and jsonl are copied
#   MATCH_GAMES MATCH_VISITS MATCH_THREADS MATCH_TIMEOUT   newest checkpoint vs greedy
#                    (20 32 8, at most 180 s)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
tengu="$here/tengu"

backends=${BACKENDS:-tch-cuda,tch-cuda-bf16}
steps=()
while [ $# -gt 0 ]; do
    case "$1" in
        --backends) backends=$2; shift 2 ;;
        --backends=*) backends=${1#--backends=}; shift ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) steps+=("$1"); shift ;;
    esac
done
[ ${#steps[@]} -eq 0 ] && steps=(agree nn search run)
first_backend=${backends%%,*}

OUT=${OUT:-./out}
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

# The installed PyTorch's libraries (libtorch_cpu, libtorch_cuda, libc10...).
torch_lib="$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>>"$OUT/env.log")"
if [ -z "$torch_lib" ] || [ ! -d "$torch_lib" ]; then
    echo "no PyTorch found by python3 ($(command -v python3)); see $OUT/env.log" >&2
    exit 1
fi
export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    echo "date $(date -u +%FT%TZ)"
    echo "host $(uname -srm), $(nproc) cores"
    echo "python3 $(command -v python3)"
    echo "torch lib $torch_lib"
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
    echo "backends $backends"
    cat "$here/BUILD.txt" 2>/dev/null
    ldd "$tengu" | grep -E 'torch|c10|not found'
    command -v nvidia-smi >/dev/null && nvidia-smi
} >>"$OUT/env.log" 2>&1

# GPU utilisation and memory, one sample a second, while a step runs (when nvidia-smi exists).
gpu_monitor=""
monitor_start() {
    gpu_monitor=""
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits \
            -l 1 >"$OUT/$1-gpu.csv" 2>/dev/null &
        gpu_monitor=$!
    fi
}
monitor_stop() {
    if [ -n "$gpu_monitor" ]; then
        kill "$gpu_monitor" 2>/dev/null
        wait "$gpu_monitor" 2>/dev/null
        gpu_monitor=""
    fi
}

step_agree() {
    local ckpt=${CHECKPOINT:-$(ls "$here"/checkpoint-*.safetensors 2>/dev/null | head -1)}
    [ -n "$ckpt" ] || { echo "no checkpoint (set CHECKPOINT)"; return 1; }
    "$tengu" bench agree --checkpoint "$ckpt" --backends "burn,$backends" \
        --positions "${AGREE_POSITIONS:-512}" --batch 64 --json >"$OUT/agree.json"
}

step_nn() {
    monitor_start nn
    "$tengu" bench nn --backends "$backends" --presets "${NN_PRESETS:-cpu,gpu,b20c256}" \
        --batches "${NN_BATCHES:-64,256,1024,4096}" --seconds "${NN_SECONDS:-2}" \
        --train-batch "${NN_TRAIN_BATCH:-256}" --json >"$OUT/nn.json"
    local rc=$?
    monitor_stop
    return $rc
}

step_search() {
    monitor_start search
    "$tengu" bench search --backend "$first_backend" --preset "${SEARCH_PRESET:-gpu}" \
        --games "${SEARCH_GAMES:-1024}" --visits "${SEARCH_VISITS:-400}" \
        --seconds "${SEARCH_SECONDS:-20}" --json >"$OUT/search.json"
    local rc=$?
    monitor_stop
    return $rc
}

# Self-play worker processes sharing the GPU: for each "PxT[@G]" of SWEEP (P processes of
# bench search, network only, each encoding on T threads with G games in flight, default
# SWEEP_GAMES), the evaluations/s of all together and
# the GPU's utilisation; sweep.json holds them and the best (most evaluations/s).
step_sweep() {
    local spec procs threads games i pids
    mkdir -p "$OUT/sweep"
    for spec in ${SWEEP:-1x1 4x1 8x1 12x1 1x8 4x3 8x2}; do
        procs=${spec%%x*}
        threads=${spec#*x}
        threads=${threads%@*}
        games=${SWEEP_GAMES:-256}
        [[ $spec == *@* ]] && games=${spec#*@}
        monitor_start "sweep/$spec"
        pids=()
        for i in $(seq "$procs"); do
            TENGU_ENCODE_THREADS=$threads "$tengu" bench search --backend "$first_backend" \
                --preset "${SEARCH_PRESET:-gpu}" --games "$games" \
                --visits "${SEARCH_VISITS:-400}" --seconds "${SWEEP_SECONDS:-12}" \
                --network-only --json --log warn >"$OUT/sweep/$spec-$i.json" 2>"$OUT/sweep/$spec-$i.log" &
            pids+=($!)
        done
        for i in "${pids[@]}"; do wait "$i"; done
        monitor_stop
        echo "sweep $spec done"
    done
    python3 - "$OUT" ${SWEEP:-1x1 4x1 8x1 12x1 1x8 4x3 8x2} <<'PY'
import csv, glob, json, os, sys
out, specs = sys.argv[1], sys.argv[2:]
rows = []
for spec in specs:
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "sweep", f"{spec}-*.json"))):
        try:
            runs.append(json.load(open(path))["network"])
        except (OSError, ValueError, KeyError):
            pass
    util = []
    gpu_csv = os.path.join(out, "sweep", f"{spec}-gpu.csv")
    if os.path.exists(gpu_csv):
        for row in csv.reader(open(gpu_csv)):
            try:
                util.append(float(row[1]))
            except (IndexError, ValueError):
                pass
    busy = util[4:] or util   # the first seconds start CUDA
    stages = {}
    for r in runs:
        for k, v in (r.get("evaluator_seconds") or {}).items():
            stages[k] = stages.get(k, 0.0) + v
    rows.append({
        "spec": spec, "processes": int(spec.split("x")[0]),
        "encode_threads": int(spec.split("x")[1].split("@")[0]),
        "games_in_flight": int(spec.split("@")[1]) if "@" in spec else int(os.environ.get("SWEEP_GAMES", "256")),
        "finished": len(runs),
        "evaluations_per_second": sum(r["evaluations_per_second"] for r in runs),
        "simulations_per_second": sum(r["simulations_per_second"] for r in runs),
        "positions_per_hour": sum(r["positions_per_hour"] for r in runs),
        "share_outside_evaluator": sum(r["share_outside_evaluator"] for r in runs) / max(1, len(runs)),
        "evaluator_seconds": stages,
        "gpu_utilization_mean": sum(busy) / len(busy) if busy else None,
    })
best = max(rows, key=lambda r: r["evaluations_per_second"]) if rows else None
json.dump({"rows": rows, "best": best}, open(os.path.join(out, "sweep.json"), "w"), indent=1)
for r in rows:
    print(f'{r["spec"]:>5}: {r["evaluations_per_second"]:9.0f} evals/s {r["positions_per_hour"]:10.0f} positions/h '
          f'outside {r["share_outside_evaluator"]:.2f} gpu {r["gpu_utilization_mean"]} stages {r["evaluator_seconds"]}')
PY
}

step_run() {
    local run=${RUN_DIR:-${TMPDIR:-/tmp}/tengu-gpu-check-run}
    rm -rf "$run"
    local config=${RUN_CONFIG:-configs/run/dai-dai-gpu.toml}
    # RUN_SET="table.key=value ..." overrides keys of the config (e.g. shorter games, so that
    # a few minutes finish some and train on them).
    if [ -n "${RUN_SET:-}" ]; then
        awk -v set="$RUN_SET" -f "$here/config-set.awk" "$config" >"${TMPDIR:-/tmp}/gpu-check-run.toml"
        config=${TMPDIR:-/tmp}/gpu-check-run.toml
    fi
    echo "run: $config, overrides: ${RUN_SET:-none}"
    monitor_start run
    # The run stops itself after RUN_MINUTES; the timeout (a minute more) keeps a stuck stop
    # from eating the device call, whose files come back only if the command ends in time.
    timeout "$(python3 -c "print(int(${RUN_MINUTES:-6} * 60 + 60))")" \
        "$tengu" run --config "$config" --run "$run" \
        --max-minutes "${RUN_MINUTES:-6}" --backend "$first_backend" --quiet
    local rc=$?
    monitor_stop
    mkdir -p "$OUT/run"
    [ -d "$run/train" ] && cat "$run"/train/*.jsonl >"$run/train.jsonl"   # the loss log, whole
    for f in config.toml train.jsonl elo.jsonl suite.jsonl curves.svg; do
        [ -f "$run/$f" ] && cp "$run/$f" "$OUT/run/$f" && [ "$f" != config.toml ] && cp "$run/$f" "$OUT/$f"
    done
    [ -d "$run/logs" ] && cp -r "$run/logs" "$OUT/run/logs"
    ls -la "$run" "$run/models" >"$OUT/run/listing.txt" 2>&1
    du -sh "$run"/* >>"$OUT/run/listing.txt" 2>&1
    [ $rc -eq 0 ] || return $rc
    local ckpt
    ckpt=$(ls "$run"/models/model-*.safetensors 2>/dev/null | sort | tail -1)
    [ -n "$ckpt" ] || { echo "the run left no checkpoint"; return 1; }
    echo "match: $ckpt against greedy"
    timeout "${MATCH_TIMEOUT:-180}" \
        "$tengu" match "checkpoint:$ckpt:${MATCH_VISITS:-32}" greedy --game dai-dai \
        --games "${MATCH_GAMES:-20}" --max-plies 300 --material-ratio 1.5 \
        --search-config "$run/config.toml" --backend "$first_backend" \
        --threads "${MATCH_THREADS:-8}" --json --log warn >"$OUT/match.json"
    rc=$?
    python3 - "$run" "$ckpt" "$OUT/run.json" <<'PY' || true
import json, os, sys
run, ckpt, out = sys.argv[1:]
def lines(name):
    try:
        return [json.loads(l) for l in open(os.path.join(run, name)) if l.strip()]
    except FileNotFoundError:
        return []
train, elo = lines("train.jsonl"), lines("elo.jsonl")
shards = os.path.join(run, "shards")
rows = None
last = train[-1] if train else {}
json.dump({
    "newest_checkpoint": os.path.basename(ckpt),
    "train_steps": last.get("step"),
    "games_seen": last.get("games_seen"),
    "rows_seen": last.get("rows_seen"),
    "samples_per_second": last.get("samples_per_second"),
    "policy_loss": last.get("policy_loss"),
    "value_loss": last.get("value_loss"),
    "shards": len(os.listdir(shards)) if os.path.isdir(shards) else 0,
    "elo": elo[-1] if elo else None,
    "train_last": last,
}, open(out, "w"), indent=1)
PY
    return $rc
}

step_summary() {
    python3 - "$OUT" "$backends" <<'PY'
import csv, json, os, sys
out, backends = sys.argv[1], sys.argv[2]
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
def gpu(step):
    path = os.path.join(out, f"{step}-gpu.csv")
    if not os.path.exists(path):
        return None
    util, mem = [], []
    for row in csv.reader(open(path)):
        try:
            util.append(float(row[1])); mem.append(float(row[2]))
        except (IndexError, ValueError):
            pass
    if not util:
        return None
    return {"samples": len(util), "utilization_mean": sum(util) / len(util),
            "utilization_max": max(util), "memory_used_mib_max": max(mem)}
steps = {}
if os.path.exists(os.path.join(out, "steps.jsonl")):
    for l in open(os.path.join(out, "steps.jsonl")):
        if l.strip():
            s = json.loads(l); steps[s["step"]] = s
summary = {"backends": backends.split(","), "steps": steps}
agree = load("agree.json")
if agree:
    summary["agree"] = {"max_abs": agree["max_abs"], "preset": agree["preset"], "pairs": [
        {k: p[k] for k in ("reference", "backend", "policy_max_abs", "wdl_max_abs",
                           "material_max_abs", "top1_agreement")} for p in agree["pairs"]]}
nn = load("nn.json")
if nn:
    summary["nn"] = [{"backend": p["backend"], "preset": p["preset"],
                      "positions_per_second": {str(f["batch"]): round(f["positions_per_second"], 1)
                                               for f in p["forward"]},
                      "train_samples_per_second": round(p["train_samples_per_second"], 1)}
                     for p in nn["presets"]]
    summary["nn_gpu"] = gpu("nn")
search = load("search.json")
if search:
    summary["search"] = {k: search[k] for k in ("games_in_flight", "visits")}
    for k in ("uniform", "network"):
        r = search[k]
        summary["search"][k] = {x: r[x] for x in ("evaluator", "simulations_per_second",
                                "evaluations_per_second", "positions_per_hour", "share_outside_evaluator")}
    summary["search_gpu"] = gpu("search")
sweep = load("sweep.json")
if sweep:
    summary["sweep"] = sweep
run = load("run.json")
if run:
    summary["run"] = {k: v for k, v in run.items() if k != "train_last"}
    summary["run_gpu"] = gpu("run")
match = load("match.json")
if match:
    summary["match_vs_greedy"] = {k: match.get(k) for k in ("games", "score", "elo", "elo_low", "elo_high")}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps(summary, indent=1))
PY
}

for step in "${steps[@]}"; do
    if ! declare -F "step_$step" >/dev/null; then
        echo "unknown step $step (agree nn search sweep run summary)" >&2
        continue
    fi
    [ "$step" = summary ] && continue
    echo "== $step ($(date -u +%T))" >&2
    start=$(date +%s.%N)
    "step_$step" >"$OUT/$step.log" 2>&1
    rc=$?
    seconds=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 1))")
    echo "{\"step\": \"$step\", \"rc\": $rc, \"ok\": $([ $rc -eq 0 ] && echo true || echo false), \"seconds\": $seconds, \"backends\": \"$backends\"}" >>"$OUT/steps.jsonl"
    echo "   rc $rc, ${seconds}s, log $OUT/$step.log" >&2
    [ $rc -eq 0 ] || tail -5 "$OUT/$step.log" >&2
done
step_summary >"$OUT/summary.log" 2>&1 || echo "summary failed: $OUT/summary.log" >&2
echo "summary: $OUT/summary.json" >&2
