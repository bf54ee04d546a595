#!/usr/bin/env bash
# The Python package's tests: scripts/python-test.sh [PYTEST ARGS...]
#
# Makes (once) the cached venv python-torch-2.15.0 under the tengu cache (scripts/python-venv.sh:
# torch, numpy, pytest, maturin from PyPI; torch's Linux wheel brings its CUDA libraries,
# about 5.4 GB, measured 129 s to install), builds the abi3 wheel of python/ with maturin
# (cargo's dev profile, in the workspace's target directory), unpacks it into
# TARGET/python-site (never into the shared venv) and runs pytest on python/tests.
# tests/python.rs runs it under `cargo test` with TENGU_PY_FIXTURES set to a run made by
# the Rust side; without it the tests that need that run fail and say so.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/python-venv.sh"

venv=$(cached_venv python-torch-2.15.0 \
    '"$VENV/bin/python" -c "import torch, numpy, pytest" && "$VENV/bin/maturin" --version' \
    torch==2.15.0 numpy==2.4.6 pytest==9.2.0 maturin==1.16.0) || exit $?

target="${CARGO_TARGET_DIR:-$root/target}"
site="$target/python-site"
mkdir -p "$target"
(
    # One build and unpack at a time per target directory (parallel test runs).
    flock 9
    start=$(date +%s)
    wheels="$target/python-wheels"
    rm -rf "$wheels"
    # cargo must be on PATH for maturin (scripts/cargo.sh installs one where missing).
    if ! command -v cargo >/dev/null 2>&1; then export PATH="$HOME/.cargo/bin:$PATH"; fi
    CARGO_TARGET_DIR="$target" "$venv/bin/maturin" build --quiet -m "$root/python/Cargo.toml" \
        -i "$venv/bin/python" -o "$wheels" >&2
    rm -rf "$site"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --target "$site" \
        "$wheels"/tengu-*.whl >&2
    echo "python-test: wheel built and unpacked in $(( $(date +%s) - start )) s" >&2
) 9>"$target/python-site.lock"

# From the tests' folder, so that python/tengu (the sources, without the native module)
# does not shadow the unpacked wheel.
cd "$root/python/tests"
export PYTHONPATH="$site"
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -p no:cacheprovider -q . "$@"
