#!/usr/bin/env python3
"""Composes a RULES.md §12.2 position from a piece list, for writing test positions by hand.

usage: compose_position.py <17|19> <b|w> <-|p> <square>=<token> ...
e.g.   compose_position.py 17 b - 9q=K 9a=k 9i=LN 9g=p
"""
import sys


def compose(size, side, pas, placements):
    grid = [[None] * size for _ in range(size)]
    for item in placements:
        sq, tok = item.split("=")
        file, rank = int(sq[:-1]), ord(sq[-1]) - ord("a")
        col = size - file
        assert 0 <= col < size and 0 <= rank < size, sq
        assert grid[rank][col] is None, sq
        grid[rank][col] = tok
    ranks = []
    for row in grid:
        items, empty = [], 0
        for cell in row:
            if cell is None:
                empty += 1
            else:
                if empty:
                    items.append(str(empty))
                    empty = 0
                items.append(cell)
        if empty:
            items.append(str(empty))
        ranks.append(",".join(items))
    return "/".join(ranks) + f" {side} {pas}"


if __name__ == "__main__":
    print(compose(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]))
