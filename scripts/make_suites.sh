#!/usr/bin/env bash
# Builds the shipped tactics suites (suites/<game>.jsonl, format version 1): positions from
# games of the random and greedy players, each with a clearly best move found by a
# three-ply capture search. Deterministic for the seeds below; labels are for evaluation
# only (`tengu suite --checkpoint PATH`), never training targets.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-2000}
bash scripts/cargo.sh build --release
for game in dai-dai maka-dai-dai; do
    ./target/release/tengu suite make --game "$game" --count "$COUNT" --seed 1 --out "suites/$game.jsonl"
done
