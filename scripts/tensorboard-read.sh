#!/usr/bin/env bash
# Reads TensorBoard event files back with TensorBoard's own reader (its EventAccumulator),
# as `tensorboard --logdir DIR` would: prints one JSON object {tag: [[step, value], ...]} of
# every scalar in DIR. The test of `tengu tensorboard` compares it with the run's files.
# Usage: scripts/tensorboard-read.sh DIR
# TensorBoard (pinned) is installed on first use into a venv under
# ${TENGU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tengu} (about 120 MB, 30 s); later runs need
# no network. Exit status 2: the reader could not be installed or run.
set -euo pipefail
# shellcheck source=scripts/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/python-venv.sh"

TB_VERSION=2.21.0
dir="${1:?usage: scripts/tensorboard-read.sh DIR}"
say() { echo "tensorboard-read: $*" >&2; }
[ -d "$dir" ] || { say "$dir is not a directory"; exit 2; }

venv="$(cached_venv "tensorboard-$TB_VERSION" \
    '"$VENV/bin/python" -c "from tensorboard.backend.event_processing import event_accumulator"' \
    "tensorboard==$TB_VERSION")" || { say "TensorBoard could not be installed"; exit 2; }
"$venv/bin/python" - "$dir" <<'PY'
import json, sys
from tensorboard.backend.event_processing import event_accumulator as ea

# size_guidance 0: keep every event (the default samples 1,000 scalars a tag).
acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0})
acc.Reload()
print(json.dumps({tag: [[e.step, e.value] for e in acc.Scalars(tag)]
                  for tag in acc.Tags()["scalars"]}))
PY
