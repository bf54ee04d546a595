#!/usr/bin/env python3
"""One head-to-head result over several `tengu match --out DIR` folders of the same two players
(one folder a seed), from player a's view: wins/draws/losses, score, Elo from the game pairs
with its 95% interval, material share with its 95% interval, and the games at the ply cap.

A match plays each opening twice with colours swapped (games 2i and 2i+1), so the pairs are
the independent samples: their mean score's standard error gives the interval, which a
per-game interval would understate (paired games share the opening).

`--material-ratio R` scores the same games again with a lower adjudication threshold: a game
drawn at the ply cap becomes a win for the side holding at least R / (1 + R) of the material
(a match at fixed visits replays move for move, so this is what a match at R would give).
Games already decided keep their result, so R must not exceed the ratio the matches used.

Usage: head_to_head.py [--material-ratio R] MATCH_DIR...
"""
import argparse
import math
import sys

from paired_matches import games, mean_interval, score


def elo(s):
    """The Elo difference of a mean score in (0, 1); +-inf at the ends."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    # + 0.0: an even score prints as 0, not -0.
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0


def readjudicated(r, ratio):
    """Game `r` with a draw at the ply cap decided by `ratio` (None: as played)."""
    if ratio is None or r["termination"] != "ply cap":
        return r
    share, win = r["material_share"], ratio / (1.0 + ratio)
    result = 1 if share >= win else -1 if share <= 1.0 - win else 0
    return dict(r, result=result)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--material-ratio", type=float, default=None)
    a.add_argument("folders", nargs="+")
    args = a.parse_args()
    if args.material_ratio is not None and not args.material_ratio > 1.0:
        a.error("--material-ratio must be above 1")
    rows, pairs = [], []
    for folder in args.folders:
        g = {i: readjudicated(r, args.material_ratio) for i, r in games(folder).items()}
        rows.extend(g.values())
        for i in sorted(g):
            if i % 2 == 0 and i + 1 in g:
                pairs.append((score(g[i]) + score(g[i + 1])) / 2)
    if len(pairs) < 2:
        sys.exit("fewer than two complete game pairs")
    w = sum(r["result"] == 1 for r in rows)
    d = sum(r["result"] == 0 for r in rows)
    l = sum(r["result"] == -1 for r in rows)
    capped = sum(r["termination"] == "ply cap" for r in rows)
    s, si = mean_interval(pairs)
    m, mi = mean_interval([r["material_share"] for r in rows])
    players = sorted({(r["a"], r["b"]) for r in rows})
    who = f"{players[0][0]} against {players[0][1]}" if len(players) == 1 else \
        f"{len(players)} pairs of players"
    ratio = "" if args.material_ratio is None else f" (at the cap {args.material_ratio:g}x)"
    print(f"{who}: {len(rows)} games{ratio}, +{w} ={d} -{l}, score {s:.3f}")
    print(f"Elo from {len(pairs)} pairs {elo(s):+.0f} (95% {elo(s - si):+.0f} .. {elo(s + si):+.0f})")
    print(f"material share {m:.3f} +- {mi:.3f}; {capped} games at the ply cap")


if __name__ == "__main__":
    main()
