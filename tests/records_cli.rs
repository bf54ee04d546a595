//! `tengu show --record`: a record whose moves end before the result it claims is shown with
//! a warning, and a `--game` that contradicts the record is refused by name.

mod common;
use common::tengu;

const MOVES: &str = "1. 12k>12g{12g} 6g>6k{6k}\n";

fn record(dir: &std::path::Path, tags: &str) -> String {
    let path = dir.join("game.txt");
    std::fs::write(&path, format!("[Game \"Dai Dai Shogi\"]\n{tags}\n{MOVES}")).unwrap();
    path.display().to_string()
}

/// A record cut halfway keeps its `[Result "1-0"]` over moves that do not finish the game:
/// `show` says so on stderr and in its output (and still shows the board).
#[test]
fn a_record_whose_moves_end_before_its_result_is_shown_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    for tags in [
        "[Result \"1-0\"]\n[Termination \"checkmate\"]\n",
        "[Result \"0-1\"]\n",
    ] {
        let r = record(dir.path(), tags);
        let (ok, out, err) = tengu(&["show", "--record", &r]);
        assert!(ok, "{err}");
        assert!(out.contains("Black to move"), "{out}");
        for text in [&out, &err] {
            assert!(
                text.contains("the moves end before the result")
                    && text.contains("not over after the last move")
                    && text.contains("ply 2"),
                "{tags}: {text}"
            );
        }
    }
    // A result before the end with a reason outside the rules, or no result: no warning.
    for tags in [
        "[Result \"1-0\"]\n[Termination \"resignation\"]\n",
        "[Result \"1/2-1/2\"]\n[Termination \"ply cap\"]\n",
        "[Result \"*\"]\n",
        "",
    ] {
        let r = record(dir.path(), tags);
        let (ok, out, err) = tengu(&["show", "--record", &r]);
        assert!(ok, "{err}");
        assert!(
            !out.contains("Warning") && !err.contains("result"),
            "{tags}: {out}{err}"
        );
    }
}

/// `--game` with `--record` must name the record's game, as with `--position`.
#[test]
fn show_refuses_a_game_that_contradicts_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let r = record(dir.path(), "[Result \"*\"]\n");
    let (ok, out, err) = tengu(&["show", "--record", &r, "--game", "maka-dai-dai"]);
    assert!(
        !ok && err.contains("--game maka-dai-dai") && err.contains("Dai Dai Shogi record"),
        "{out}{err}"
    );
    assert!(out.is_empty(), "{out}");
    let (ok, out, err) = tengu(&["show", "--record", &r, "--game", "dai-dai"]);
    assert!(ok && out.contains("Black to move"), "{out}{err}");
}
