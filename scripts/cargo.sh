#!/usr/bin/env bash
# Runs cargo with the given arguments, first installing a Rust toolchain with rustup when
# none is present (fresh machines). Everything else tengu needs is fetched by cargo.
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
    if [ ! -x "$HOME/.cargo/bin/cargo" ]; then
        echo "cargo not found: installing Rust with rustup" >&2
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
            sh -s -- -y --profile minimal --component rustfmt,clippy >&2
    fi
    export PATH="$HOME/.cargo/bin:$PATH"
fi
# `fmt` and `clippy` (scripts/test.sh) need their components, which a minimal toolchain
# installed before this script asked for them lacks.
case "${1:-}" in
fmt | clippy)
    component=$([ "$1" = fmt ] && echo rustfmt || echo clippy)
    if ! cargo "$1" --version >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
        echo "installing the $component component with rustup" >&2
        rustup component add "$component" >&2
    fi
    ;;
esac
cd "$(dirname "$0")/.."
exec cargo "$@"
