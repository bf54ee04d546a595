#!/usr/bin/env bash
# Builds what the GPU machine runs (issue #15) into one folder, gpu-bundle/ (ignored):
# the release binary with --features cuda, configs/, a fresh checkpoint of the gpu preset
# and gpu-check.sh (with config-set.awk). libtorch is not in it: on the GPU machine
# gpu-check.sh finds the installed PyTorch's lib/ and puts it on LD_LIBRARY_PATH. Fails
# above 64 MiB (the device tool's limit on what travels).
# Usage: scripts/gpu-bundle.sh [BUNDLE_DIR]   (env: TENGU_TORCH_VENV, CARGO_TARGET_DIR,
#        CARGO_JOBS, PRESET (default gpu), GPU_WHEEL: "build" adds the Python package's
#        release wheel (abi3; the PyTorch trainer needs it there: experiments/scripts/gpu-judge.sh
#        installs it), a path adds that wheel)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bundle=${1:-$root/gpu-bundle}
preset=${PRESET:-gpu}
venv=${TENGU_TORCH_VENV:-$root/.venv-torch}
if [ ! -x "$venv/bin/python" ]; then
    echo "no PyTorch venv at $venv: installing one" >&2
    bash scripts/install-libtorch.sh
fi
export TENGU_TORCH_VENV=$venv
# shellcheck source=libtorch-env.sh
source scripts/libtorch-env.sh
target=${CARGO_TARGET_DIR:-$root/target}
start=$(date +%s)
CARGO_TARGET_DIR=$target bash scripts/cargo.sh build --release --features cuda ${CARGO_JOBS:+-j "$CARGO_JOBS"}
echo "cuda release build: $(( $(date +%s) - start )) s" >&2

rm -rf "$bundle"
mkdir -p "$bundle"
cp "$target/release/tengu" "$bundle/tengu"
strip "$bundle/tengu" 2>/dev/null || true
cp -r configs "$bundle/configs"
cp scripts/gpu-check.sh "$bundle/gpu-check.sh"
cp scripts/config-set.awk "$bundle/config-set.awk"
chmod +x "$bundle/gpu-check.sh" "$bundle/tengu"

case "${GPU_WHEEL:-}" in
    "") ;;
    build)
        [ -x "$venv/bin/maturin" ] || "$venv/bin/pip" install --quiet maturin
        CARGO_TARGET_DIR=$target "$venv/bin/maturin" build --release --quiet -m python/Cargo.toml \
            -i "$venv/bin/python" -o "$bundle" ;;
    *) cp "$GPU_WHEEL" "$bundle/" ;;
esac

# A freshly initialised checkpoint: step 0 of a trainer on an empty run directory.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s/^preset = .*/preset = \"$preset\"/" configs/run/dai-dai-gpu.toml > "$tmp/config.toml"
"$bundle/tengu" train --run "$tmp/run" --config "$tmp/config.toml" --backend burn \
    --max-steps 0 --quiet --log warn
ckpt=$(ls "$tmp"/run/models/model-*.safetensors | head -1)
cp "$ckpt" "$bundle/checkpoint-$preset.safetensors"
chmod 644 "$bundle/checkpoint-$preset.safetensors"

# What it was built from, for the record.
{
    echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (dirty)')"
    echo "built $(date -u +%FT%TZ) on $(uname -srm)"
    echo "torch $(python3 -c 'import torch; print(torch.__version__)')"
    echo "needs: $(ldd "$bundle/tengu" | grep -E 'torch|c10' | awk '{print $1}' | tr '\n' ' ')"
} > "$bundle/BUILD.txt"

bytes=$(du -sb "$bundle" | cut -f1)
echo "bundle $bundle: $(du -sh "$bundle" | cut -f1) ($bytes bytes)"
ls -la "$bundle"
if [ "$bytes" -gt $((64 * 1024 * 1024)) ]; then
    echo "bundle is over 64 MiB" >&2
    exit 1
fi
