#!/usr/bin/env python3
"""Regenerates configs/games/{dai-dai,maka-dai-dai}.toml from the piece tables of RULES.md.

The range vectors, promotion targets and setups are read from the tables of RULES.md
(§9.3/§9.1 and §10.3/§10.1); the special powers (jumps, lion, lion-dog, hook, emperor,
royal, contagion) are the plain-language notes of those sections, written out below.
Run from the repository root: python3 scripts/gen_game_configs.py ../shared/rules/RULES.md
"""
import re
import sys

A = [[2, 2], [2, -2], [-2, 2], [-2, -2]]
D = [[2, 0], [-2, 0], [0, 2], [0, -2]]
ALL8 = ["f", "fr", "r", "br", "b", "bl", "l", "fl"]

COMMON_EXTRA = {
    "K": {"royal": True},
    "LN": {"lion": True},
    "LD": {"lion_dog": ALL8},
    "FF": {"lion": True, "lion_dog": ALL8},
    "HM": {"hook": "orthogonal"},
    "PH": {"jumps": A},
    "KR": {"jumps": D},
}
DD_EXTRA = {
    "GE": {"lion_dog": ["f", "r", "br", "b", "bl", "l"]},
    "LO": {"hook": "diagonal"},
    "PO": {"jumps": [[2, 0], [-2, 2], [-2, -2]]},
}
MDD_EXTRA = {
    "K": {"royal": True, "contagion_immune": True},
    "DE": {"contagion_immune": True},
    "EM": {"royal": True, "emperor": True, "contagion_immune": True},
    "PR": {"royal": True, "contagion_immune": True},
    "DV": {"contagion": "TK"},
    "DS": {"contagion": "BS"},
    "TK": {"lion_dog": ALL8, "contagion": "TK"},
    "BS": {"lion": True, "contagion": "BS"},
    "CA": {"hook": "diagonal"},
    "N": {"jumps": [[2, 1], [2, -1]]},
    "DN": {"jumps": [[2, 0], [-2, 0]]},
    "FBR": {"jumps": [[2, 2], [2, -2]]},
}


def section(text, start, end):
    i = text.index(start)
    j = text.index(end, i)
    return text[i:j]


def pieces(table_text):
    out = []
    for line in table_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or cells[0] in ("code", "---") or not line.startswith("| "):
            continue
        code, name, kanji, betza, rng, extra, promo = cells
        abbr = re.search(r"\(([A-Z][A-Za-z]{0,2})\)", name)
        hodges = abbr.group(1) if abbr else code
        name = re.sub(r"\s*\(.*?\)", "", name.replace("*", "")).strip()
        m = re.search(r"`([^`]*)`", betza)
        betza = m.group(1) if m else ""
        rng = "- - - - - - - -" if rng == "-" else rng
        promo = None if promo in ("-", "") else promo
        out.append(dict(code=code, hodges=hodges, name=name, kanji=kanji, betza=betza, range=rng, extra=extra, promotes_to=promo))
    return out


def setup(grid_text, size):
    rows = []
    for line in grid_text.splitlines():
        toks = line.split()
        if len(toks) == size + 1 and len(toks[0]) == 1 and toks[0].islower():
            body = toks[1:]
            if any(t.isupper() for t in body):
                rows.append((toks[0], [t if t.isupper() else "." for t in body]))
    rows.sort(key=lambda r: r[0], reverse=True)
    return rows


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def write(path, header, rules, plist, rows, extra):
    lines = [header.rstrip(), ""]
    lines.append("[rules]")
    for k, (v, why) in rules.items():
        lines.append(f"# {why}")
        lines.append(f"{k} = {toml_value(v)}")
    lines.append("")
    for p in plist:
        lines.append("[[piece]]")
        note = p["extra"]
        if note:
            lines.append(f"# {note}")
        for key in ("code", "name", "kanji", "betza", "range"):
            if key == "name" and p["hodges"] != p["code"]:
                lines.append(f"hodges = {toml_value(p['hodges'])}")
            lines.append(f"{key} = {toml_value(p[key])}")
        ex = dict(COMMON_EXTRA.get(p["code"], {}))
        ex.update(extra.get(p["code"], {}))
        for k, v in ex.items():
            lines.append(f"{k} = {toml_value(v)}")
        if p["promotes_to"]:
            lines.append(f"promotes_to = {toml_value(p['promotes_to'])}")
        lines.append("")
    lines.append("# Black's half of the initial position, files N..1 from left to right as Black sees the")
    lines.append("# board; '.' is an empty square. White's army is this one rotated by 180 degrees.")
    lines.append("[setup]")
    lines.append("black = [")
    for rank, toks in rows:
        lines.append(f'    "{rank}: ' + " ".join(toks) + '",')
    lines.append("]")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


SCHEMA = """# Schema (every key is checked; unknown keys are errors):
#   [variant]  id, name, size (board side in squares)
#   [rules]    promotion = "mandatory" | "optional-unless-promoted-victim"   (RULES.md §4, §8.1)
#              contagion = "none" | "deva-dark-spirit" | "promoted-only"      (§6.3)
#              pass      = "allowed" | "no-pass"                              (§7.4)
#              stalemate = "loss" | "draw"                                    (§5.3)
#   [[piece]]  code, hodges (abbreviation in Hodges notation, default = code), name, kanji,
#              betza (cross-reference only),
#              range: owner-relative maximum ranges in the order f fr r br b bl l fl;
#                     '-' none, 1/2/3/5 limited slide, '∞' unlimited (§2.1),
#              jumps: [forward, left] leap offsets (§2.2), lion (§2.4), lion_dog = [rays] (§2.5),
#              hook = "orthogonal" | "diagonal" (§2.3; the hooked rays' range must be '-'),
#              emperor (§6.4), royal (§5.1), promotes_to = code (§4),
#              contagion = code a capturer of this piece turns into (§6.3),
#              contagion_immune (the capturer kinds the contagious rule skips).
"""


def main():
    text = open(sys.argv[1] if len(sys.argv) > 1 else "../shared/rules/RULES.md", encoding="utf-8").read()
    dd = pieces(section(text, "### 9.3", "### 9.4"))
    mdd = pieces(section(text, "### 10.3", "### 10.4"))
    dd_rows = setup(section(text, "### 9.1", "### 9.2"), 17)
    mdd_rows = setup(section(text, "### 10.1", "### 10.2"), 19)
    assert len(dd) == 68, len(dd)
    assert len(mdd) == 76, len(mdd)
    write(
        "configs/games/dai-dai.toml",
        "# Dai Dai Shogi (大大将棋), 17x17: RULES.md v1.2 §7, §9, default rule set.\n"
        "# Generated by scripts/gen_game_configs.py from RULES.md; edit both together.\n" + SCHEMA + "\n"
        '[variant]\nid = "dai-dai"\nname = "Dai Dai Shogi"\nsize = 17\n',
        {
            "promotion": ("mandatory", "§7.1: every capture by a promotable piece promotes it."),
            "contagion": ("none", "No contagious pieces in Dai Dai Shogi."),
            "pass": ("allowed", "§7.4: lion-type pieces may pass, never twice in a row."),
            "stalemate": ("loss", "§5.3: no legal move loses."),
        },
        dd,
        dd_rows,
        DD_EXTRA,
    )
    write(
        "configs/games/maka-dai-dai.toml",
        "# Maka Dai Dai Shogi (摩訶大大将棋), 19x19: RULES.md v1.2 §6, §10, default rule set.\n"
        "# Generated by scripts/gen_game_configs.py from RULES.md; edit both together.\n" + SCHEMA + "\n"
        '[variant]\nid = "maka-dai-dai"\nname = "Maka Dai Dai Shogi"\nsize = 19\n',
        {
            "promotion": ("optional-unless-promoted-victim", "§4: optional, mandatory when a promoted piece is captured."),
            "contagion": ("deva-dark-spirit", "§6.3: capturing DV/TK turns the capturer into TK, DS/BS into BS."),
            "pass": ("allowed", "§7.4: lion-type pieces may pass, never twice in a row."),
            "stalemate": ("loss", "§5.3: no legal move loses."),
        },
        mdd,
        mdd_rows,
        MDD_EXTRA,
    )


if __name__ == "__main__":
    main()
