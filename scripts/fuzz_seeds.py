#!/usr/bin/env python3
"""Seeds the fuzz corpora (fuzz/corpus/<target>/seed-*) from files the project writes and
keeps in the repository: perft positions, game records, run configs, a book, a network,
manifests and run records, plus hand-written protocol sessions. Run once when a target is
added; `scripts/fuzz.sh` then grows and minimises each corpus (docs/fuzzing.md)."""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def first_lines(path, n):
    return b"".join(read(path).splitlines(keepends=True)[:n])


def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)


def perft_positions(path, n):
    out = []
    for line in read(path).decode().splitlines():
        if line and not line.startswith("#"):
            pos = line.split(";")[0].strip()
            if pos not in out:
                out.append(pos)
    return out[:n]


def record_moves(record, n):
    body = [l for l in record.decode().splitlines() if l and not l.startswith("[")]
    tokens = [t for t in " ".join(body).split() if not t.endswith(".")]
    return tokens[:n]


def main():
    for game in ["dai-dai", "maka-dai-dai"]:
        for i, pos in enumerate(perft_positions(f"rules/tests/data/{game}.perft", 4)):
            put("position", f"{game}-perft-{i}", pos.encode())
    dai_record = sorted(glob.glob(os.path.join(ROOT, "experiments/baselines/dai-dai-cpu-2026-11-25/contempt-500/contempt-0/games/*.record")))[0]
    maka_record = sorted(glob.glob(os.path.join(ROOT, "experiments/baselines/maka-dai-dai-cpu-2026-11-26/ladder/*/games/*.record")))[0]
    dai, maka = read(dai_record), read(maka_record)
    put("record", "dai-dai", dai)
    put("record", "maka-dai-dai", maka)
    # Moves: the first byte picks the position (0: Dai Dai's initial, 0x80: Maka Dai Dai's).
    put("moves", "dai-dai-own", b"\x00" + record_moves(dai, 1)[0].encode())
    put("moves", "maka-own", b"\x80" + record_moves(maka, 1)[0].encode())
    put("moves", "dai-dai-xboard", b"\x00i6i7")
    put("moves", "dai-dai-hodges", b"\x00P-9k")
    records = sorted(glob.glob(os.path.join(ROOT, "experiments/cpu-runs/dai-dai-to-the-end-value/games/*.records")))[0]
    put("records_file", "two-games", first_lines(os.path.relpath(records, ROOT), 2))
    put("openings", "dai-dai", b"\x00start\n" + " ".join(record_moves(dai, 4)).encode() + b" # four plies\n")
    put("rule_set", "toml-dai-dai", b"\x00LO = \"EDO\"\nLD = \"TSA\"\n")
    put("rule_set", "canonical", b"\x01dai-dai:LO=EDO")
    put("rule_set", "game-description", b"\x02" + read("configs/games/dai-dai.toml"))
    for path in sorted(glob.glob(os.path.join(ROOT, "configs/run/*.toml"))):
        put("run_config", os.path.basename(path), read(os.path.relpath(path, ROOT)))
    put("book", "before", read("book/tests/data/before.tbk"))
    put("checkpoint", "dai-dai-network", b"\x00" + read("networks/dai-dai.safetensors"))
    put("manifest", "step-800", read("experiments/baselines/dai-dai-cpu-2026-11-25/models/model-000000800.json"))
    put("run_records", "loss-log", b"\x00" + first_lines("experiments/cpu-runs/dai-dai-to-the-end/train/000000200.jsonl", 2))
    put("run_records", "elo", b"\x01" + first_lines("experiments/baselines/dai-dai-cpu-2026-11-25/elo.jsonl", 2))
    put("run_records", "suite-records", b"\x02" + first_lines("experiments/baselines/dai-dai-cpu-2026-11-25/suite.jsonl", 2))
    put("run_records", "match-results", b"\x03" + first_lines("experiments/baselines/dai-dai-cpu-2026-11-25/contempt-500/contempt-0/results.jsonl", 2))
    put("run_records", "ladder", b"\x04" + read("experiments/baselines/dai-dai-cpu-2026-11-25/ladder/ladder.json"))
    put("run_records", "suite", b"\x05" + first_lines("suites/dai-dai.jsonl", 3))
    put("xboard", "session", b"xboard\nprotover 2\nnew\nvariant daidai\nst 1\nusermove i6i7\ngo\nforce\nundo\nresult 1-0 {resign}\nquit\n")
    put("xboard", "setboard", b"xboard\nprotover 2\nnew\nvariant maka\nsetboard " + perft_positions("rules/tests/data/maka-dai-dai.perft", 1)[0].encode() + b"\nanalyze\nexit\nquit\n")
    put("serve_http", "now", b"GET /api/now HTTP/1.1\r\nHost: localhost\r\n\r\n")
    put("serve_http", "game", b"GET /api/game?key=games/1764000000000-fuzz-1-00000.records&index=1 HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/games HTTP/1.1\r\nHost: localhost\r\n\r\n")
    body = b'{"game":"dai-dai","opponent":"random","side":"black"}'
    put("serve_http", "play-new", b"POST /api/play/new HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    put("analyze_query", "opening", b'{"id":"opening","moves":["9l>9k","9f>9g"],"visits":64,"max_moves":3,"pv_plies":4}\n{"id":"opening","action":"terminate"}\n')
    put("analyze_query", "record", b'{"id":"r","record":' + repr_json(dai) + b',"analyze_plies":[0,2]}\n')
    put("movegen_diff", "walk", bytes([0, 0]) + bytes(range(7, 250, 3)))
    put("movegen_diff", "placed", bytes([1, 1]) + bytes(range(1, 200)))
    put("movegen_diff", "maka-walk", bytes([40, 2]) + bytes(range(250, 7, -5)))


def repr_json(data):
    import json
    return json.dumps(data.decode()).encode()


if __name__ == "__main__":
    sys.exit(main())
