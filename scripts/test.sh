#!/usr/bin/env bash
# The test command (README, CI's .ci/run): formatting, lints with warnings as errors, then
# every test of the workspace (browser and Python checks included). Stops at the first that
# fails, saying which.
set -euo pipefail
cd "$(dirname "$0")/.."
step() {
    echo "== $1" >&2
    shift
    "$@" || { echo "scripts/test.sh: failed: $*" >&2; exit 1; }
}
step "formatting (cargo fmt --check; fix with: bash scripts/cargo.sh fmt --all)" \
    bash scripts/cargo.sh fmt --all --check
step "lints (clippy, warnings are errors)" \
    bash scripts/cargo.sh clippy --workspace --all-targets --quiet -- -D warnings
step "tests" bash scripts/cargo.sh test --workspace
