#!/usr/bin/env bash
# Installs libtorch for the `cuda` feature (tch 0.24 = PyTorch 2.11) from PyPI into a
# virtual environment at .venv-torch (about 2.6 GB; CPU and CUDA kernels both included).
# Afterwards build with:  source scripts/libtorch-env.sh && cargo build --release --features cuda
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TENGU_TORCH_VENV:-.venv-torch}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet "torch==2.11.0"
"$VENV/bin/python" -c 'import torch; print("torch", torch.__version__, "cuda available:", torch.cuda.is_available())'
