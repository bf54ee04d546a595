#!/usr/bin/env bash
# The Python package's tests as `cargo test` runs them: scripts/python-test.sh [PYTEST ARGS...]
#
# The interpreter: $TENGU_TEST_PYTHON, else the active virtual environment ($VIRTUAL_ENV)
# when it has torch, numpy, pytest and maturin, else (once) the cached venv
# python-torch-2.15.0 under the tengu cache (scripts/python-venv.sh: those four from PyPI;
# PyPI's Linux torch brings its CUDA libraries: 5.4 GB, 94-129 s to install here). It builds
# the abi3 wheel with the documented `maturin build -m python/Cargo.toml` (cargo's dev
# profile here; the workspace's target directory and Cargo.lock), installs that wheel into
# TARGET/python-site (never into the interpreter's own environment) and runs pytest on
# python/tests. tests/python.rs runs it with TENGU_PY_FIXTURES set to a run made by the Rust
# side; without it conftest.py makes one with cargo.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/python-venv.sh"

# has_tools PYTHON: whether PYTHON imports torch, numpy and pytest and has maturin beside it.
has_tools() {
    "$1" -c "import torch, numpy, pytest" 2>/dev/null &&
        { [ -x "$(dirname "$1")/maturin" ] || command -v maturin >/dev/null; }
}

if [ -n "${TENGU_TEST_PYTHON:-}" ]; then
    python=$TENGU_TEST_PYTHON
    has_tools "$python" || {
        echo "TENGU_TEST_PYTHON=$python lacks torch, numpy, pytest or maturin" >&2
        exit 2
    }
elif [ -n "${VIRTUAL_ENV:-}" ] && has_tools "$VIRTUAL_ENV/bin/python"; then
    python=$VIRTUAL_ENV/bin/python
else
    venv=$(cached_venv python-torch-2.15.0 \
        '"$VENV/bin/python" -c "import torch, numpy, pytest" && "$VENV/bin/maturin" --version' \
        torch==2.15.0 numpy==2.4.6 pytest==9.2.0 maturin==1.16.0) || exit $?
    python=$venv/bin/python
fi
maturin="$(dirname "$python")/maturin"
[ -x "$maturin" ] || maturin=$(command -v maturin)
echo "python-test: $python ($("$python" -c 'import torch; print("torch", torch.__version__)'))" >&2

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
    CARGO_TARGET_DIR="$target" "$maturin" build --quiet -m "$root/python/Cargo.toml" \
        -i "$python" -o "$wheels" >&2
    rm -rf "$site"
    "$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$site" \
        "$wheels"/tengu-*.whl >&2
    echo "python-test: wheel built and unpacked in $(( $(date +%s) - start )) s" >&2
) 9>"$target/python-site.lock"

# From the tests' folder, so that python/tengu (the sources, without the native module)
# does not shadow the unpacked wheel.
cd "$root/python/tests"
export PYTHONPATH="$site"
export PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest -p no:cacheprovider -q . "$@"
