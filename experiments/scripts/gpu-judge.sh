#!/usr/bin/env bash
# Continues the judge's long GPU run (issue #43) on a lent GPU machine, then measures the
# PyTorch trainer of configs/run/dai-dai-gpu.toml beside its 16 workers (issue #42).
#
# Runs from the repository root on the GPU machine (PyTorch there, no Rust), with the bundle
# of scripts/gpu-bundle.sh in gpu-bundle/ and the Python package's wheel beside it
# (GPU_WHEEL=1 scripts/gpu-bundle.sh puts it there). The run's slim state lives in the
# repository, in $STATE (experiments/gpu-runs/dai-dai-judge): config.toml, the newest checkpoint with
# its optimizer, the loss log, the CPU ledger, the ladder rungs and one line per session. No
# replay buffer travels: each session's workers start from the newest checkpoint and the
# trainer waits for min_rows of new rows. The new slim state comes back as
# $OUT/judge-state.tar.gz; unpack it over $STATE (tar -xzf ... -C $STATE) and commit it.
#
# Usage: experiments/scripts/gpu-judge.sh [JUDGE_MINUTES [TRAINER_MINUTES]]   (defaults 5 and 2; 0 skips)
# Environment: OUT (./out), STATE, RUN_DIR (/tmp/gpu-judge-run), BUNDLE (gpu-bundle),
# TENGU_PYTHON (python3, the interpreter with PyTorch), BACKEND (the trainer
# measurement's worker backend, tch-cuda-bf16; tch-cpu for a rehearsal without a GPU),
# TRAINER_SET ("table.key=value ..." overrides of dai-dai-gpu.toml for the measurement).
#
# Writes to $OUT: judge-state.tar.gz, judge-logs.tar.gz (the run's logs and GPU samples),
# trainer.tar.gz (the measurement's loss log, logs and nvidia-smi samples), summary.txt.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
judge_minutes=${1:-5}
trainer_minutes=${2:-2}
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
state=${STATE:-$root/experiments/gpu-runs/dai-dai-judge}
run=${RUN_DIR:-/tmp/gpu-judge-run}
bundle=${BUNDLE:-$root/gpu-bundle}
tengu=$bundle/tengu
summary=$OUT/summary.txt
say() { echo "$*" | tee -a "$summary"; }

# PyTorch's libraries for the cuda binary, and the tengu package for the trainer.
export TENGU_PYTHON=${TENGU_PYTHON:-python3}
python=$TENGU_PYTHON
torch_lib="$("$python" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')" || exit 1
export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! "$python" -c 'import tengu' 2>/dev/null; then
    wheel=$(ls "$bundle"/tengu-*.whl 2>/dev/null | head -1)
    [ -n "$wheel" ] || { say "no tengu wheel in $bundle and python3 cannot import tengu"; exit 1; }
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tengu-site "$wheel" || exit 1
    export PYTHONPATH=/tmp/tengu-site${PYTHONPATH:+:$PYTHONPATH}
fi
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
say "date $(date -u +%FT%TZ), $(nproc) cores, GPU ${gpu_name:-none}, $(cat "$bundle/BUILD.txt" 2>/dev/null | head -1)"

# ledger_seconds RUN: the run's CPU ledger, summed (seconds).
ledger_seconds() {
    cat "$1"/cpu/*.txt 2>/dev/null | awk '{ s += $1 } END { printf "%.1f", s }'
}
newest_step() {
    ls "$1"/models/model-*.json 2>/dev/null | sort | tail -1 | sed 's/.*model-0*\([0-9]*\)\.json/\1/'
}
# gpu_sampler FILE: nvidia-smi's utilisation every second until killed.
gpu_sampler() {
    command -v nvidia-smi >/dev/null || return 0
    nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -l 1 >"$1" 2>/dev/null
}

judge() {
    rm -rf "$run"
    mkdir -p "$run"
    cp "$state/config.toml" "$run/config.toml"
    for d in models train cpu trainer; do
        [ -d "$state/$d" ] && cp -r "$state/$d" "$run/$d"
    done
    local start_seconds start_step
    start_seconds=$(ledger_seconds "$run")
    start_step=$(newest_step "$run")
    say "judge: resuming at step ${start_step:-none}, $start_seconds CPU-s, for $judge_minutes min"
    gpu_sampler "$run/gpu-session.csv" &
    local sampler=$!
    local started=$(date +%s)
    timeout "$(( judge_minutes * 60 + 90 ))" "$tengu" run --run "$run" \
        --max-minutes "$judge_minutes" --quiet >"$run/run.log" 2>&1
    local rc=$?
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    local wall=$(( $(date +%s) - started )) end_seconds
    end_seconds=$(ledger_seconds "$run")
    say "judge: tengu run exited $rc after $wall s; step $(newest_step "$run"), $end_seconds CPU-s"
    tail -5 "$run/run.log" >>"$summary"
    python3 "$root/experiments/scripts/gpu_judge_pack.py" --run "$run" --state "$state" --out "$OUT/judge-state.tar.gz" \
        --wall-seconds "$wall" --gpu "${gpu_name:-none}" --exit-code "$rc" \
        --cpu-seconds-from "$start_seconds" --cpu-seconds-to "$end_seconds" | tee -a "$summary"
    tar -czf "$OUT/judge-logs.tar.gz" -C "$run" logs run.log gpu-session.csv 2>/dev/null
    return $rc
}

trainer() {
    # dai-dai-gpu.toml as shipped (tch-cuda-bf16 workers, b10c128, the PyTorch trainer), with
    # the judge run's rows seeded into its shards so that the trainer starts at once: 256
    # games a worker take about 35 minutes to finish their first games.
    local trun=/tmp/gpu-trainer-run
    rm -rf "$trun"
    mkdir -p "$trun/shards"
    cp -l "$run"/shards/*.shard "$trun/shards/" 2>/dev/null || cp "$run"/shards/*.shard "$trun/shards/"
    local config=$trun.toml
    awk -v set="${TRAINER_SET:-}" -f "$root/scripts/config-set.awk" configs/run/dai-dai-gpu.toml >"$config"
    say "trainer: dai-dai-gpu.toml, overrides: ${TRAINER_SET:-none}; $(ls "$trun/shards" | wc -l) seeded shards; $trainer_minutes min"
    gpu_sampler "$trun/gpu.csv" &
    local sampler=$!
    timeout "$(( trainer_minutes * 60 + 90 ))" "$tengu" run --config "$config" --run "$trun" \
        --max-minutes "$trainer_minutes" --backend "${BACKEND:-tch-cuda-bf16}" --quiet >"$trun/run.log" 2>&1
    local rc=$?
    kill "$sampler" 2>/dev/null
    wait "$sampler" 2>/dev/null
    cat "$trun"/train/*.jsonl >"$trun/train.jsonl" 2>/dev/null
    say "trainer: tengu run exited $rc"
    python3 - "$trun" <<'PY' | tee -a "$summary"
import csv, json, os, sys
run = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(run, "train.jsonl")) if l.strip()] if os.path.exists(os.path.join(run, "train.jsonl")) else []
rates = [l["samples_per_second"] for l in lines if l.get("samples_per_second")]
print(f"trainer: {len(lines)} loss-log lines, last step {lines[-1].get('step') if lines else None}, "
      f"samples/s {min(rates) if rates else None:} .. {max(rates) if rates else None}, "
      f"median {sorted(rates)[len(rates) // 2] if rates else None}")
busy = []
try:
    for row in csv.reader(open(os.path.join(run, "gpu.csv"))):
        busy.append(float(row[1].strip().rstrip('%').strip()))
except (FileNotFoundError, ValueError, IndexError):
    pass
if busy:
    print(f"trainer: GPU busy mean {sum(busy) / len(busy):.0f}% over {len(busy)} s, "
          f"busiest minute {max(sum(busy[i:i + 60]) / len(busy[i:i + 60]) for i in range(0, len(busy), 10)):.0f}%")
PY
    tar -czf "$OUT/trainer.tar.gz" -C "$trun" train.jsonl run.log logs gpu.csv config.toml 2>/dev/null
    return $rc
}

rc=0
[ "$judge_minutes" != 0 ] && { judge || rc=$?; }
[ "$trainer_minutes" != 0 ] && { trainer || rc=$?; }
say "done $(date -u +%FT%TZ), exit $rc"
exit $rc
