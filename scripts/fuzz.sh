#!/usr/bin/env bash
# Coverage-guided fuzzing of tengu's doors with AFL++ (cargo-afl, stable Rust).
#
#   scripts/fuzz.sh TARGET MINUTES   fuzz one target for MINUTES, then minimise its corpus
#                                    (fuzz/corpus/TARGET) with afl-cmin and keep crashes
#                                    and hangs in fuzz/found/TARGET/
#   scripts/fuzz.sh list             the targets
#   scripts/fuzz.sh build            install cargo-afl (once) and build the harness
#   scripts/fuzz.sh repro TARGET FILE   run one input through the target, outside AFL++
#
# Pinning is the caller's: `taskset -c 0 scripts/fuzz.sh position 30` (AFL++ is told not
# to bind a core of its own, AFL_NO_AFFINITY, so the caller's mask holds). Everything it
# installs stays in the repository: cargo-afl in fuzz/.tools, the build in fuzz/target,
# AFL++'s working folders in fuzz/out (all ignored by git). docs/fuzzing.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/fuzz/.tools
AFL_VERSION=0.18.2
export PATH="$TOOLS/bin:$HOME/.cargo/bin:$PATH"
BIN=$ROOT/fuzz/target/release/tengu-fuzz

install() {
    if ! cargo afl --version 2>/dev/null | grep -q "$AFL_VERSION"; then
        echo "installing cargo-afl $AFL_VERSION into fuzz/.tools (builds AFL++ too)" >&2
        cargo install cargo-afl --locked --version "$AFL_VERSION" --root "$TOOLS" >&2
    fi
    # cargo-afl builds AFL++ when it is installed; a machine whose toolchain changed since
    # needs it built again for the new rustc. (afl-fuzz -h exits 1, so its help text is
    # the sign that it is there.)
    local help
    help=$(cargo afl fuzz -h 2>/dev/null || true)
    if ! grep -q "afl-fuzz" <<<"$help"; then
        cargo afl config --build >&2
    fi
}

build() {
    install
    (cd fuzz && cargo afl build --release >&2)
    # The seeds the project's own writers make (a shard) join the corpus once.
    local made
    made=$(mktemp -d)
    "$BIN" --write-seeds "$made"
    for dir in "$made"/*; do
        local target
        target=$(basename "$dir")
        if [ -z "$(ls -A "fuzz/corpus/$target" 2>/dev/null)" ]; then
            mkdir -p "fuzz/corpus/$target"
            cp "$dir"/* "fuzz/corpus/$target/"
        fi
    done
    rm -rf "$made"
}

targets() {
    ls fuzz/corpus
}

case "${1:-}" in
list)
    targets
    ;;
build)
    build
    ;;
repro)
    [ $# -eq 3 ] || { echo "usage: scripts/fuzz.sh repro TARGET FILE" >&2; exit 2; }
    [ -x "$BIN" ] || build
    RUST_BACKTRACE=1 "$BIN" "$2" < "$3"
    ;;
""|-h|--help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
*)
    [ $# -eq 2 ] || { echo "usage: scripts/fuzz.sh TARGET MINUTES" >&2; exit 2; }
    target=$1
    minutes=$2
    [ -d "fuzz/corpus/$target" ] || { echo "no target $target; one of: $(targets | tr '\n' ' ')" >&2; exit 2; }
    build
    out=$ROOT/fuzz/out/$target
    rm -rf "$out"
    mkdir -p "$out"
    # A hang is an input that takes longer than 2 s (AFL++'s -t, in ms); every target is
    # bounded far below that on any input.
    AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        AFL_NO_UI=1 AFL_SKIP_CRASHES=1 AFL_MAP_SIZE=${AFL_MAP_SIZE:-2000000} \
        cargo afl fuzz -V $((minutes * 60)) -t 2000 -m none \
        -i "fuzz/corpus/$target" -o "$out" -- "$BIN" "$target" > "$out/afl.log" 2>&1 || {
        tail -30 "$out/afl.log" >&2
        exit 1
    }
    stats=$out/default/fuzzer_stats
    # Keep what AFL++ found: crashes and hangs to fix (each becomes a corpus input with its
    # fix), the queue merged into the corpus and minimised.
    found=$ROOT/fuzz/found/$target
    for kind in crashes hangs; do
        if ls "$out/default/$kind"/id:* >/dev/null 2>&1; then
            mkdir -p "$found/$kind"
            cp "$out/default/$kind"/id:* "$found/$kind/"
        fi
    done
    merged=$(mktemp -d)
    cp "fuzz/corpus/$target"/* "$merged/"
    cp "$out/default/queue"/id:* "$merged/" 2>/dev/null || true
    minimised=$(mktemp -d)
    rmdir "$minimised"
    AFL_NO_AFFINITY=1 AFL_MAP_SIZE=${AFL_MAP_SIZE:-2000000} cargo afl cmin -t 2000 -m none \
        -i "$merged" -o "$minimised" -- "$BIN" "$target" > "$out/cmin.log" 2>&1 || {
        tail -20 "$out/cmin.log" >&2
        exit 1
    }
    # Inputs with a name (seed-*, crash-*, hang-*: the seeds and the regression inputs of
    # fixed finds) stay as they are whatever their coverage; the found ones are named by a
    # hash of their content (AFL++'s id: names hold ':' and ','), and those afl-cmin
    # dropped go.
    find "fuzz/corpus/$target" -type f -regextype posix-extended -regex '.*/[0-9a-f]{16}' -delete
    kept=$(for f in "fuzz/corpus/$target"/*; do sha1sum < "$f" | cut -c1-16; done)
    for f in "$minimised"/*; do
        # The repository keeps found inputs of at most 16 KiB: a checkpoint's mutants are
        # each the size of the seed network (about 360 KB), and AFL++ finds them again from
        # the seed.
        if [ "$(stat -c %s "$f")" -gt 16384 ]; then
            continue
        fi
        hash=$(sha1sum < "$f" | cut -c1-16)
        if grep -qx "$hash" <<<"$kept"; then
            continue
        fi
        kept+=$'\n'"$hash"
        cp "$f" "fuzz/corpus/$target/$hash"
    done
    rm -rf "$merged" "$minimised"
    echo "$target: $(grep -E '^(run_time|execs_done|execs_per_sec|bitmap_cvg|edges_found|total_edges|saved_crashes|saved_hangs|corpus_count) ' "$stats" | awk '{printf "%s=%s ", $1, $3}')" \
        | tee -a fuzz/out/summary.log
    echo "corpus: $(ls "fuzz/corpus/$target" | wc -l) inputs, $(du -sh "fuzz/corpus/$target" | cut -f1)"
    # This run's finds (fuzz/found/ keeps earlier runs' too, until their fixes land).
    if ls "$out/default/crashes"/id:* >/dev/null 2>&1 || ls "$out/default/hangs"/id:* >/dev/null 2>&1; then
        echo "FOUND: see $found (scripts/fuzz.sh repro $target FILE)" >&2
        exit 3
    fi
    ;;
esac
