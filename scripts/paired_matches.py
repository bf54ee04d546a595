#!/usr/bin/env python3
"""Two players' matches against the same opponent on the same openings, compared game by game.

Each match is a `tengu match --out DIR` folder (its results.jsonl); arm A's i-th folder and
arm B's i-th folder must be played with the same seed, so that game `index` of one opened as
game `index` of the other. Prints each arm's score (wins + draws / 2), wins/draws/losses and
material share with its 95% interval, and the paired difference of the scores with its 95%
interval (the openings' variance cancels in the difference).

Usage: paired_matches.py --a ON_S1 ON_S2 --b OFF_S1 OFF_S2 [--names on off]
"""
import argparse
import json
import math
import os
import sys


def games(folder):
    path = os.path.join(folder, "results.jsonl")
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return {r["index"]: r for r in rows}


def score(r):
    return (r["result"] + 1) / 2


def mean_interval(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--a", nargs="+", required=True)
    a.add_argument("--b", nargs="+", required=True)
    a.add_argument("--names", nargs=2, default=["A", "B"])
    args = a.parse_args()
    if len(args.a) != len(args.b):
        sys.exit("--a and --b need as many match folders each (one per seed, in the same order)")
    pairs = []
    for fa, fb in zip(args.a, args.b):
        ga, gb = games(fa), games(fb)
        for i in sorted(set(ga) & set(gb)):
            pairs.append((ga[i], gb[i]))
    if not pairs:
        sys.exit("no game index played in both arms")
    for k, name in enumerate(args.names):
        side = [p[k] for p in pairs]
        w = sum(r["result"] == 1 for r in side)
        d = sum(r["result"] == 0 for r in side)
        l = sum(r["result"] == -1 for r in side)
        s, si = mean_interval([score(r) for r in side])
        m, mi = mean_interval([r["material_share"] for r in side])
        print(f"{name}: {len(side)} games, score {s:.3f} +- {si:.3f} (+{w} ={d} -{l}), "
              f"material share {m:.3f} +- {mi:.3f}")
    diff, di = mean_interval([score(x) - score(y) for x, y in pairs])
    print(f"paired difference {args.names[0]} - {args.names[1]}: {diff:+.3f} +- {di:.3f} "
          f"over {len(pairs)} pairs")


if __name__ == "__main__":
    main()
