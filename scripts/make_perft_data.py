#!/usr/bin/env python3
"""Writes rules/tests/data/{dai-dai,maka-dai-dai}.perft: hand-built positions (below) and
positions from random play (rules/examples/random_positions.rs), with node counts from
`tengu perft`. The counts are checked independently: the test suite compares every entry
against the simple reference generator of rules/tests/reference (tests/reference_compare.rs).

usage (repository root, after cargo build --release): python3 scripts/make_perft_data.py
   or (after cargo test --no-run): TENGU=./target/debug/tengu python3 scripts/make_perft_data.py
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, "scripts")
from compose_position import compose  # noqa: E402

# Any build of the binary gives the same counts; TENGU=./target/debug/tengu saves a release build.
TENGU = os.environ.get("TENGU", "./target/release/tengu")
PROFILE = [] if os.environ.get("TENGU", "").startswith("./target/debug/") else ["--release"]
MAX_NODES = 1_500_000

DD = [
    ("checkmate: two rooks against the king in the corner", 17, "w", "-", "1a=k 3a=R 3b=R 9q=K"),
    ("no legal move without check (loss, §5.3)", 17, "w", "-", "1a=k 3b=R 2c=R 9q=K"),
    ("lion against lion in the open", 17, "b", "-", "9q=K 9a=k 9i=LN 9f=ln 8h=p 10j=P 7g=g 11e=p"),
    ("lion in check from a lion, igui and double captures", 17, "b", "-", "9o=K 9a=k 9m=ln 10n=p 8n=G 9n=P 11l=LN"),
    ("hook mover attack around a corner, Black in check", 17, "b", "-", "13q=K 1a=k 5c=hm 9o=G 13p=S 10p=SM 3q=R"),
    ("hook movers and long-nosed goblins on an open board", 17, "b", "-",
     "9q=K 9a=k 5n=HM 13l=hm 8i=LO 10f=lo 4d=p 12n=P 8q=G 10q=G 9p=S 8p=P 10p=P 8a=g 10a=g 9b=s"),
    ("a hook mover checks around two corners' worth of open lines", 17, "b", "-",
     "9q=K 9a=k 5n=HM 13l=hm 8i=LO 10f=lo 4d=p 12n=P 8q=G 10q=G 9p=S 8a=g 10a=g 9b=s"),
    ("promoted lion dog (great elephant) and furious fiend", 17, "b", "-", "2q=K 16a=k 9i=GE 9h=p 9g=p 10j=p 5e=ff 5g=P 6f=P 4d=s"),
    ("promoted pieces written with +", 17, "w", "-", "9q=K 9a=k 4f=+LN 12k=+ld 6h=+Q 10g=+sq 3c=MW 14n=ws 8e=+dk 7m=P"),
    ("pass forbidden after a pass", 17, "b", "p", "9q=K 9a=k 9i=LN 12h=LD 9c=ld 4e=ff 9m=P"),
    ("pinned gold, pinned lion", 17, "b", "-", "9q=K 9a=k 9o=G 9d=r 8p=LN 5l=b 12c=p 3p=P"),
    ("jumpers: phoenix, kirin, poisonous snake", 17, "b", "-", "9q=K 9a=k 9i=PH 7i=KR 11i=PO 9g=p 9e=po 11f=kr 7f=ph 8h=S"),
    ("immobile pawns and lances on the last rank", 17, "w", "-", "9q=K 9a=k 3a=P 4a=L 5a=ST 6a=I 12q=p 13q=l 1b=W 9i=g"),
    ("queen and free demon check, interposition", 17, "b", "-", "9q=K 1a=k 9e=q 5m=fr 4m=P 10p=G 8p=S 12l=VO"),
]

MDD = [
    ("emperor against protected pieces, with pawns", 19, "b", "-", "10j=EM 10a=k 9b=g 11b=s 3c=p 15d=p 2s=N 5q=P"),
    ("two emperors, each protected by a gold", 19, "b", "-", "10j=EM 10k=G 10c=em 10b=g 10d=p 4h=p 16p=P"),
    ("king against an enemy emperor: royals must be protected", 19, "b", "-", "10s=K 10r=G 9r=S 11r=S 10e=em 10d=g 3c=p"),
    ("king and prince: only a move taking both is check", 19, "b", "-", "10s=K 10r=PR 10p=ln 10a=k 5c=p 14q=G"),
    ("king and prince, one attacked (not check)", 19, "w", "-", "10s=K 9r=PR 1a=k 3a=ln 2c=r 9k=q"),
    ("contagion: deva and dark spirit next to lion and lion dog", 19, "b", "-", "10j=LD 10i=dv 10h=ds 8j=LN 7i=dv 9h=ds 10s=K 10a=k"),
    ("teaching king and buddhist spirit", 19, "b", "-", "10s=K 10a=k 5e=TK 14o=bs 5f=p 13n=P 6g=dv 12l=ds 9c=g"),
    ("optional promotion and +G", 19, "b", "-", "10s=K 10a=k 5k=P 5j=p 6j=+g 7k=G 7j=s 12h=L 12c=fg 3e=N 2c=ca"),
    ("capricorn and hook mover cross fire", 19, "w", "-", "10s=K 10a=k 9j=CA 11h=HM 4d=ca 16b=hm 5e=P 15o=p 9r=P 10r=P 11r=P 9s=G 11s=G 9a=g 11a=g 9b=s 10b=s 11b=s"),
    ("king may promote to emperor by capture", 19, "b", "-", "10s=K 10r=p 11r=dv 9r=g 10a=k 1a=r 18b=b"),
    ("drunk elephant next to a teaching king", 19, "b", "-", "10s=K 9r=DE 9q=tk 10a=k 14b=DE 13b=p 1d=l"),
    ("immobile knights and pawns", 19, "b", "-", "10s=K 10a=k 3a=N 4b=N 5a=P 6a=L 7a=ST 8a=FST 15s=n 16r=n 12h=DN"),
    ("checkmate of a lone king by rooks", 19, "w", "-", "1a=k 3a=R 3b=R 10s=K"),
    ("two drunk elephants: once one is a Prince the other may not promote (v1.2 §4)", 19, "b", "-",
     "10s=K 10a=k 8m=DE 8l=p 12m=DE 12l=+g 11k=s 3c=g"),
    ("prince and drunk elephant on both sides: declining captures only (v1.2 §4)", 19, "w", "-",
     "10s=K 10a=k 9r=PR 11n=DE 11m=p 6d=pr 6e=de 6f=P 5f=+G 7f=FG"),
]

# Positions given whole (§12.2), by game.
FIXED = {
    "maka-dai-dai": [
        ("issue #11: White's drunk elephant beside its prince (v1.2 §4)",
         "19/19/11,FTL,7/flp,17,FEA/LN,18/19/19/19/FF,LD,fbo,16/pr,de,LC,2,ca,11,OM,1/DS,LN,bs,1,PR,11,ff,hm,BS/"
         "4,K,10,ld,ln,OM,tk/15,HM,ff,BS,k/15,LN,ff,FBR,1/RV,14,RC,ca,2/19/19/19/19 w -"),
    ],
}


def perft(pos, depth):
    out = subprocess.run([TENGU, "perft", "--position", pos, "--depth", str(depth), "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{pos}: {out.stderr}")
    return json.loads(out.stdout)["nodes"]


def entries(pos, comment, max_depth=4):
    lines = [f"# {comment}"]
    for depth in range(1, max_depth + 1):
        n = perft(pos, depth)
        lines.append(f"{pos}; {depth}; {n}")
        if n == 0 or n * 60 > MAX_NODES:
            break
    return lines


def random_positions(game, count, plies, seed):
    out = subprocess.run(["cargo", "run", *PROFILE, "-q", "-p", "tengu-rules", "--example", "random_positions", "--",
                          game, str(count), plies, str(seed)], capture_output=True, text=True, check=True)
    return [l for l in out.stdout.splitlines() if l.strip()]


def main():
    for game, hand in (("dai-dai", DD), ("maka-dai-dai", MDD)):
        lines = [f"# {game}: hand-built positions and positions from random play.",
                 "# Format: <position>; <depth>; <nodes>. Written by scripts/make_perft_data.py.", ""]
        for comment, size, side, pas, pieces in hand:
            lines += entries(compose(size, side, pas, pieces.split()), comment)
        for comment, pos in FIXED.get(game, []):
            lines += entries(pos, comment)
        for i, pos in enumerate(random_positions(game, 4, "60,150,300", 11)):
            lines += entries(pos, f"random play, position {i + 1}", 3)
        with open(f"rules/tests/data/{game}.perft", "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
