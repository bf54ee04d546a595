"""The notebook view of tengu (public API only): a board from a position, its legal moves
against `tengu moves`, moves played and undone, records, perft, the SVG, the encoder."""

import json
import xml.dom.minidom

import numpy as np
import pytest

import tengu

# RULES.md Appendix C2: a Lion Dog among pawns.
LION_DOG = ("1,k,15/17/17/17/17/5,p,11/6,p,10/7,P,9/8,LD,1,P,p,5/17/17/17/17/17/17/17/"
            "15,K,1 b -")


def test_a_position_lists_the_moves_tengu_moves_lists(tengu_bin):
    board = tengu.Board(LION_DOG)
    assert board.game == "dai-dai" and board.size == 17 and board.turn == "black"
    expected = tengu_bin("moves", "--position", LION_DOG).split()
    assert sorted(board.legal_moves()) == sorted(expected)
    assert len(expected) > 10


def test_moves_are_played_and_undone():
    board = tengu.Board()
    start = board.position_text()
    moves = board.legal_moves()
    board.push(moves[0])
    assert board.turn == "white" and board.move_stack == [moves[0]]
    assert board.position_text() != start
    reply = board.legal_moves()[-1]
    board.push(reply)
    assert board.pop() == reply
    assert board.pop() == moves[0]
    assert board.position_text() == start and len(board) == 0
    with pytest.raises(IndexError):
        board.pop()


def test_bad_input_is_an_exception_naming_it():
    with pytest.raises(tengu.PositionError, match="garbage"):
        tengu.Board("garbage")
    with pytest.raises(tengu.PositionError, match="chess"):
        tengu.Board(game="chess")
    with pytest.raises(tengu.PositionError, match="contradicts"):
        tengu.Board(LION_DOG, game="maka-dai-dai")
    board = tengu.Board()
    with pytest.raises(tengu.MoveError):
        board.push("not a move")
    with pytest.raises(tengu.MoveError, match="1a"):
        board.push("1a>1b")
    with pytest.raises(tengu.RecordError):
        tengu.Board.from_record("[Game \"Dai Dai Shogi\"]\n1. 99z>1a\n")
    assert issubclass(tengu.ShardVersionError, tengu.ShardError)
    assert issubclass(tengu.ShardError, tengu.TenguError)


def test_perft_agrees_with_the_cli(tengu_bin):
    board = tengu.Board()
    cli = json.loads(tengu_bin("perft", "--depth", "2", "--json"))
    assert board.perft(2) == cli["nodes"]
    assert board.perft(1) == len(board.legal_moves())


KINGS = "1,k,15/" + "17/" * 15 + "15,K,1 b -"


def test_check_result_and_repetition():
    board = tengu.Board(LION_DOG)
    assert not board.is_check() and not board.is_game_over()
    assert board.result() == "*" and board.termination() is None
    # Two kings stepping out and back: the fourth occurrence ends the game (RULES.md 5.5).
    board = tengu.Board(KINGS)
    assert board.repetition_count() == 1
    black = next(m for m in board.legal_moves() if ">" in m)
    board.push(black)
    white = next(m for m in board.legal_moves() if ">" in m)
    board.pop()
    back = lambda m: ">".join(reversed(m.split(">")))
    cycle = [black, white, back(black), back(white)]
    for n in range(3):
        for m in cycle:
            assert not board.is_game_over()
            board.push(m)
        assert board.repetition_count() == n + 2
    assert board.is_game_over() and board.termination() == "repetition"
    assert board.result() in ("1-0", "0-1", "1/2-1/2")
    with pytest.raises(tengu.MoveError, match="over"):
        board.push(black)


def test_records_round_trip():
    board = tengu.Board()
    for _ in range(6):
        board.push(board.legal_moves()[len(board) % 5])
    text = board.record({"Black": "pytest", "White": "numpy"})
    again = tengu.Board.from_record(text)
    assert again.move_stack == board.move_stack
    assert again.position_text() == board.position_text()
    assert dict(again.tags)["Black"] == "pytest"
    assert [b.position_text() for b in tengu.read_records(text + "\n" + text)] == \
        [board.position_text()] * 2


def test_qboard_fen_round_trips_and_maka_dai_dai_works():
    board = tengu.Board(game="maka-dai-dai")
    assert board.size == 19 and board.game == "maka-dai-dai"
    assert tengu.Board(board.qboard_fen()) == board
    dd = tengu.Board()
    assert tengu.Board(dd.qboard_fen()).position_text() == dd.position_text()


def test_the_board_draws_itself_as_svg():
    board = tengu.Board(LION_DOG)
    board.push(board.legal_moves()[0])
    svg = board._repr_svg_()
    doc = xml.dom.minidom.parseString(svg)
    root = doc.documentElement
    assert root.tagName == "svg"
    texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
    assert "LD" in texts and "k" in texts and "K" in texts
    assert board.svg() == svg


def test_the_encoder_gives_the_rust_layout():
    assert tengu.ENCODER_VERSION == 2
    board = tengu.Board(LION_DOG)
    enc = tengu.Encoder()
    planes = enc.encode(board)
    assert planes.shape == (enc.planes, 17, 17) and planes.dtype == np.float32
    # The board plane (2T + 3) is all ones; exactly the pieces on the board are marked.
    types = (enc.planes - 9) // 2
    assert np.all(planes[2 * types + 3] == 1.0)
    assert planes[:2 * types].sum() == 8
    many = enc.encode_many([board, tengu.Board()])
    assert np.array_equal(many[0], planes)
    ids = enc.policy_ids(board)
    moves = board.legal_moves()
    assert len(ids) == len(moves) == len(set(ids.tolist()))
    assert all(enc.move_of_id(board, i) == m for i, m in zip(ids, moves))
    slots = enc.legal_slots(board)
    assert np.array_equal((slots[:, 0] * 289 + slots[:, 1]) * tengu.CODES + slots[:, 2], ids)
    with pytest.raises(tengu.CheckpointError, match="input planes"):
        tengu.Encoder(planes=7)
    with pytest.raises(tengu.CheckpointError):
        tengu.Encoder(game="maka-dai-dai").encode(board)
