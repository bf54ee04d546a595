"""What a notebook user meets (issue #44): the board as a grid, the encoder of a checkpoint,
messages for bad input, the import from the sources' folder, a run's game files, results of
resigned games, cshogi's conveniences (piece, hash, peek, is_draw) and an XBoard engine."""

import json
import warnings
import pathlib
import shutil
import subprocess
import sys

import pytest

import tengu

ROOT = pathlib.Path(__file__).resolve().parents[2]
LION_DOG = ("1,k,15/17/17/17/17/5,p,11/6,p,10/7,P,9/8,LD,1,P,p,5/17/17/17/17/17/17/17/"
            "15,K,1 b -")
RANKS = "abcdefghijklmnopqrs"


def test_print_board_draws_a_grid():
    board = tengu.Board(LION_DOG)
    lines = str(board).splitlines()
    # A file header, 17 ranks, the side to move, the position text.
    assert len(lines) == 20, str(board)
    assert lines[1].split()[0] == "a" and lines[17].split()[0] == "q"
    rank_i = lines[1 + RANKS.index("i")].split()
    assert rank_i[0] == "i" and rank_i[1:] == ["."] * 8 + ["LD", ".", "P", "p"] + ["."] * 5
    assert lines[18] == "Black to move" and lines[19] == LION_DOG
    assert repr(board) == f'Board("{LION_DOG}")'


def test_a_bad_position_names_both_readings():
    with pytest.raises(tengu.PositionError) as e:
        tengu.Board("garbage")
    text = str(e.value)
    assert "garbage" in text and "RULES.md" in text and "QBoard FEN" in text, text
    # Text with commas can only be tengu's own: no FEN message.
    with pytest.raises(tengu.PositionError) as e:
        tengu.Board("1,k,15/17 b -")
    assert "RULES.md" in str(e.value) and "QBoard" not in str(e.value), str(e.value)


def test_the_encoder_of_a_checkpoint_has_its_planes(run, tmp_path):
    step, path, _ = tengu.newest_checkpoint(str(run))
    meta = tengu.read_checkpoint_meta(path)
    enc = tengu.Encoder.for_checkpoint(path)
    assert enc.planes == meta["net"]["planes"] and enc.game == meta["game"]
    assert enc.encode(tengu.Board()).shape == (meta["net"]["planes"], 17, 17)
    # The network of the shipped CPU checkpoint reads material planes: 2 more than the
    # default encoder's.
    shipped = ROOT / "networks" / "dai-dai.safetensors"
    if shipped.exists():
        planes = tengu.read_checkpoint_meta(str(shipped))["net"]["planes"]
        assert tengu.Encoder.for_checkpoint(str(shipped)).planes == planes
        assert planes != tengu.Encoder().planes, "the issue's case: the default differs"
    not_one = tmp_path / "not-a-checkpoint.safetensors"
    not_one.write_bytes(b"\x00" * 16)
    with pytest.raises(tengu.CheckpointError):
        tengu.Encoder.for_checkpoint(str(not_one))


def test_importing_from_the_source_folder_says_what_to_do(tmp_path):
    # The sources without the native module, as `python/` is before a build.
    shutil.copytree(pathlib.Path(tengu.__file__).parent, tmp_path / "tengu",
                    ignore=shutil.ignore_patterns("_tengu*", "__pycache__"))
    out = subprocess.run([sys.executable, "-c", "import tengu"], cwd=tmp_path,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert "native module" in last and "maturin develop" in last, out.stderr
    assert "circular import" not in last, out.stderr


def test_built_wheels_are_not_tracked_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in ["dist/tengu-0.1.0-cp39-abi3-linux_x86_64.whl",
                 "python/dist/tengu-0.1.0-cp39-abi3-linux_x86_64.whl"]:
        ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", path])
        assert ignored.returncode == 0, f"{path} is not ignored"


def test_a_runs_game_files_are_read_with_their_values(run):
    files = sorted((run / "games").glob("*.records"))
    assert files, "the fixture run has no game files"
    boards = [b for f in files for b in tengu.read_game_file(str(f))]
    assert len(boards) >= 6, len(boards)
    for b in boards:
        assert b.values is not None and len(b.values) == len(b)
        assert len(b) > 0 and b.result() != "*"
    # read_records takes the same text.
    text = files[0].read_text()
    assert [b.move_stack for b in tengu.read_records(text)] == \
        [b.move_stack for b in tengu.read_game_file(str(files[0]))]


def test_a_damaged_game_line_is_named_and_the_other_games_read(tmp_path):
    good = tengu.Board()
    good.push(good.legal_moves()[0])
    line = json.dumps({"game": 0, "record": good.record(), "values": [0.1]})
    damaged = tmp_path / "x.records"
    damaged.write_text(line + "\n" + line[: len(line) // 2] + "\n" + line + "\n")
    with pytest.warns(tengu.RecordWarning, match=r"x\.records: line 2: not a game line") as caught:
        boards = tengu.read_game_file(str(damaged))
    assert len(caught) == 1
    assert [b.move_stack for b in boards] == [good.move_stack, good.move_stack]
    assert boards[1].values == [pytest.approx(0.1)]
    # Records one after another: the damaged one is named by its number.
    record = good.record()
    bad = '[Game "Dai Dai Shogi"]\n1. 99z>1a\n'
    with pytest.warns(tengu.RecordWarning, match=r"^record 2: "):
        boards = tengu.read_records(record + "\n" + bad + "\n" + record)
    assert len(boards) == 2
    # Made an error, the warning stops the read.
    with warnings.catch_warnings():
        warnings.simplefilter("error", tengu.RecordWarning)
        with pytest.raises(tengu.RecordWarning, match="line 2"):
            tengu.read_game_file(str(damaged))


def _resigned(result="1-0", termination="resignation"):
    board = tengu.Board()
    for i in range(4):
        board.push(board.legal_moves()[i])
    text = board.record({"Termination": termination})
    return text.replace('[Result "*"]', f'[Result "{result}"]')


def test_a_resigned_game_has_its_records_result():
    text = _resigned()
    board = tengu.Board.from_record(text)
    assert not board.is_game_over()
    assert board.result() == "1-0" and board.termination() == "resignation"
    assert not board.is_draw()
    last = board.pop()
    assert board.result() == "*" and board.termination() is None
    board.push(last)
    assert board.result() == "1-0"
    # The same through a run's game file line.
    line = json.dumps({"game": 0, "record": text, "values": [None] * 4})
    assert tengu.read_records(line)[0].result() == "1-0"
    drawn = tengu.Board.from_record(_resigned("1/2-1/2", "adjudication"))
    assert drawn.is_draw() and drawn.termination() == "adjudication"


def _squares(size):
    return [f"{f}{RANKS[r]}" for r in range(size) for f in range(1, size + 1)]


def test_piece_hash_peek_and_is_draw():
    board = tengu.Board(LION_DOG)
    pieces = {s: board.piece(s) for s in _squares(17)}
    assert sorted(p for p in pieces.values() if p) == sorted(["k", "p", "p", "P", "LD", "P",
                                                               "p", "K"])
    ld = next(s for s, p in pieces.items() if p == "LD")
    assert any(m.startswith(ld) for m in board.legal_moves())
    with pytest.raises(tengu.PositionError, match="18a"):
        board.piece("18a")
    assert tengu.Board(game="maka-dai-dai").piece("19s") is not None
    with pytest.raises(IndexError):
        board.peek()
    start = board.zobrist_hash()
    move = board.legal_moves()[0]
    board.push(move)
    assert board.peek() == move and board.zobrist_hash() != start
    board.pop()
    assert board.zobrist_hash() == start == tengu.Board(LION_DOG).zobrist_hash()
    assert not board.is_draw()


def test_an_xboard_engine_from_python(tengu_exe):
    with tengu.Engine(tengu_exe, args=["--alphabeta"], movetime_ms=50, timeout=60) as engine:
        assert engine.name
        board = tengu.Board()
        for _ in range(3):
            move = engine.go(board)
            assert move in board.legal_moves(), move
            board.push(move)
        maka = tengu.Board(game="maka-dai-dai")
        assert engine.go(maka) in maka.legal_moves()
        dog = tengu.Board(LION_DOG)
        assert engine.go(dog) in dog.legal_moves()
    with pytest.raises(tengu.EngineError, match="exited|no feature"):
        tengu.Engine(["sh", "-c", "echo broken >&2; exit 3"], timeout=10)
    with pytest.raises(tengu.EngineError, match="cannot start"):
        tengu.Engine(["/nonexistent/engine"])
