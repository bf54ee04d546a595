#!/usr/bin/env python3
"""One head-to-head result over several `tengu match --out DIR` folders of the same two players
(one folder a seed), from player a's view: wins/draws/losses, score, Elo from the game pairs
with its 95% interval, material share with its 95% interval, and the games at the ply cap.

A match plays each opening twice with colours swapped (games 2i and 2i+1), so the pairs are
the independent samples: their mean score's standard error gives the interval, which a
per-game interval would understate (paired games share the opening).

Usage: head_to_head.py MATCH_DIR...
"""
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


def main():
    folders = sys.argv[1:]
    if not folders:
        sys.exit(__doc__)
    rows, pairs = [], []
    for folder in folders:
        g = games(folder)
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
    print(f"{rows[0]['a']} against {rows[0]['b']}: {len(rows)} games, +{w} ={d} -{l}, "
          f"score {s:.3f}")
    print(f"Elo from {len(pairs)} pairs {elo(s):+.0f} (95% {elo(s - si):+.0f} .. {elo(s + si):+.0f})")
    print(f"material share {m:.3f} +- {mi:.3f}; {capped} games at the ply cap")


if __name__ == "__main__":
    main()
