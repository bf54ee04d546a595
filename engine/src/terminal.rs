//! Playing tengu in the terminal: the board drawn after every move, the human's moves typed
//! in tengu's coordinate notation (`10j>10i`), Hodges notation (`P-10i`) or XBoard
//! coordinates (`h8h9`), illegal input explained, the engine's move shown with its score.

use std::io::{BufRead, Write};

use tengu_rules::notation::hodges_piece;
use tengu_rules::{Color, Game, Move, MoveRefused, ParseError, Position, Square};
use tengu_search::limits::{Limits, Stop};
use tengu_search::players::Player;

use crate::notation::NotationError;

/// Finds the move a human typed, in any of the three notations. The error explains why
/// nothing matched.
pub fn parse_human_move(pos: &Position, text: &str) -> Result<Move, HumanMoveError> {
    let text = text.trim();
    if text.contains('>') {
        return Ok(pos.parse_move(text)?);
    }
    let moves = pos.legal_move_list();
    let hodges: Vec<(Move, String)> = moves.iter().map(|&m| (m, pos.hodges(m))).collect();
    if let Some((m, _)) = hodges.iter().find(|(_, h)| h == text) {
        return Ok(*m);
    }
    let folded: Vec<&(Move, String)> = hodges
        .iter()
        .filter(|(_, h)| h.eq_ignore_ascii_case(text))
        .collect();
    if let [(m, _)] = folded[..] {
        return Ok(*m);
    }
    if crate::notation::looks_like_move(text) {
        return Ok(crate::notation::parse_move(pos, text)?);
    }
    // Suggest the legal moves that share the typed prefix (a piece code).
    let prefix: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '+')
        .collect();
    let mut like: Vec<&str> = hodges
        .iter()
        .filter(|(_, h)| {
            !prefix.is_empty()
                && h.to_ascii_lowercase()
                    .starts_with(&prefix.to_ascii_lowercase())
        })
        .map(|(_, h)| h.as_str())
        .collect();
    like.sort();
    like.truncate(12);
    Err(HumanMoveError::NoMatch {
        text: text.into(),
        like: like.into_iter().map(String::from).collect(),
    })
}

/// Why a typed move is not played: the notation it looks like refused it, it matches no
/// legal move (`like`: legal moves in Hodges notation that share its piece prefix, at most
/// 12), or the game refused it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HumanMoveError {
    /// tengu's coordinates (`from>to`).
    #[error(transparent)]
    Coordinates(#[from] ParseError),
    #[error(transparent)]
    Xboard(#[from] NotationError),
    #[error("{text:?} is no legal move here{}", like_list(.like))]
    NoMatch { text: String, like: Vec<String> },
    #[error(transparent)]
    Refused(#[from] MoveRefused),
}

/// The tail of [`HumanMoveError::NoMatch`]'s message.
fn like_list(like: &[String]) -> String {
    if like.is_empty() {
        " (type `moves` for the list, `help` for the notations)".into()
    } else {
        format!("; legal moves like it: {}", like.join(" "))
    }
}

/// How to type a move and the commands, with examples that are legal in `pos` (a pawn's step
/// where there is one), in each of the three notations.
fn help(pos: &Position) -> String {
    let moves = pos.legal_move_list();
    let example = moves
        .iter()
        .copied()
        .find(|&m| !m.is_pass() && pos.hodges(m).starts_with("P-"))
        .or_else(|| moves.iter().copied().find(|m| !m.is_pass()));
    let examples = match example {
        Some(m) => format!(
            " (here e.g. `{}`, `{}` or `{}`)",
            pos.move_text(m),
            pos.hodges(m),
            crate::notation::move_text(m, pos.size())
        ),
        None => String::new(),
    };
    format!(
        "Type a move in tengu coordinates (`from>to`, docs/rules/notation.md §12.3), Hodges \
(§12.4) or XBoard coordinates{examples}. A lion's double move names the square it passes: \
`from>to{{via}}`; a pass is a move to its own square. Commands: moves (list the legal \
moves), pieces (name each piece on the board), undo (take back your last move), board, help, \
quit."
    )
}

/// Plays one game between the human (`human` colour) and `player`, reading the human's
/// input from `input` and drawing with `render`. Returns at the end of the game, on
/// `quit` or at the end of input.
pub fn play<R: BufRead, W: Write>(
    mut input: R,
    out: &mut W,
    start: Position,
    human: Color,
    player: &mut dyn Player,
    limits: &Limits,
    render: &dyn Fn(&Position) -> String,
) -> std::io::Result<Game> {
    let mut game = Game::new(start);
    writeln!(
        out,
        "You play {}. {}",
        side_name(human),
        help(game.position())
    )?;
    let mut draw = true;
    loop {
        let pos = game.position().clone();
        // One board a move pair: before the human's turn and at the end, not also between
        // the human's move and tengu's reply (which names its move).
        if draw && (pos.side_to_move() == human || game.outcome().is_some()) {
            write!(out, "\n{}", render(&pos))?;
        }
        draw = true;
        if let Some(o) = game.outcome() {
            let who = match o.winner {
                Some(c) => format!("{} wins", side_name(c)),
                None => "draw".into(),
            };
            writeln!(
                out,
                "Game over: {} ({who} by {}).",
                o.result_text(),
                o.termination.as_str()
            )?;
            return Ok(game);
        }
        if pos.side_to_move() != human {
            writeln!(
                out,
                "tengu ({}) is thinking...",
                side_name(pos.side_to_move())
            )?;
            out.flush()?;
            match player.think(&game, limits, &Stop::new(), &mut |_| {}) {
                Ok(t) => {
                    writeln!(
                        out,
                        "tengu plays {} ({}): score {:+} for tengu, depth {}, {} nodes, {:.1} s",
                        pos.hodges(t.best),
                        pos.move_text(t.best),
                        t.score,
                        t.depth,
                        t.nodes,
                        t.elapsed.as_secs_f32()
                    )?;
                    game.play_unchecked(t.best);
                }
                Err(e) => {
                    writeln!(out, "tengu cannot move: {e}")?;
                    return Ok(game);
                }
            }
            continue;
        }
        write!(out, "Your move ({}): ", side_name(human))?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(game);
        }
        let text = line.trim();
        draw = false;
        match text {
            "" => {}
            "quit" | "exit" | "resign" => return Ok(game),
            "help" => writeln!(out, "{}", help(&pos))?,
            "board" => draw = true,
            "pieces" => writeln!(out, "{}", pieces(&pos))?,
            "moves" => {
                let mut list: Vec<String> = game
                    .legal_move_list()
                    .into_iter()
                    .map(|m| format!("{} ({})", pos.hodges(m), pos.move_text(m)))
                    .collect();
                list.sort();
                writeln!(out, "{} legal moves: {}", list.len(), list.join(", "))?;
            }
            "undo" => {
                let moves: Vec<Move> = game.moves().collect();
                // Back to the human's previous turn.
                let keep = if moves.len() >= 2 { moves.len() - 2 } else { 0 };
                if keep == moves.len() || (keep == 0 && game.start().side_to_move() != human) {
                    writeln!(out, "Nothing to take back.")?;
                    continue;
                }
                let mut g = Game::new(game.start().clone());
                for &m in &moves[..keep] {
                    g.play_unchecked(m);
                }
                game = g;
                draw = true;
            }
            // `Game::play` also refuses a move back to an earlier position (STRICT).
            _ => match parse_human_move(&pos, text)
                .and_then(|m| game.play(m).map_err(HumanMoveError::from))
            {
                Ok(()) => draw = true,
                Err(e) => writeln!(out, "Illegal: {e}")?,
            },
        }
    }
}

/// Each kind of piece on the board as the board and Hodges notation write it, with its name:
/// `Ln Lion, BD Buddhist Devil, ...` (White's are the same after a `v`).
fn pieces(pos: &Position) -> String {
    let v = pos.variant();
    let mut types: Vec<usize> = Square::all(pos.size())
        .filter_map(|s| pos.piece_at(s).map(|p| p.ty))
        .collect();
    types.sort_unstable();
    types.dedup();
    let names: Vec<String> = types
        .into_iter()
        .map(|ty| {
            let t = &v.piece_types()[ty];
            let name = &v.kinds()[t.kind].name;
            let promoted = if t.promoted { " (promoted)" } else { "" };
            format!("{} {name}{promoted}", hodges_piece(v, ty))
        })
        .collect();
    format!(
        "Pieces on the board (White's after a v): {}",
        names.join(", ")
    )
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black (sente, moves first)",
        Color::White => "White (gote)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Variant;
    use tengu_search::players::RandomPlayer;

    #[test]
    fn all_three_notations_name_the_same_move() {
        let pos = Position::initial(Variant::dai_dai());
        for m in pos.legal_move_list() {
            assert_eq!(parse_human_move(&pos, &pos.move_text(m)), Ok(m));
            assert_eq!(parse_human_move(&pos, &pos.hodges(m)), Ok(m));
            let size = pos.size();
            let xb = parse_human_move(&pos, &crate::notation::move_text(m, size)).unwrap();
            // `@@@@` names a pass, not the piece that passes (all passes lead to one position).
            assert!(
                xb == m || (xb.is_pass() && m.is_pass()),
                "{}",
                pos.move_text(m)
            );
        }
        let e = parse_human_move(&pos, "P-1a").unwrap_err().to_string();
        assert!(e.contains("legal moves like it"), "{e}");
        assert!(parse_human_move(&pos, "10j>10i").is_err());
    }

    #[test]
    fn a_scripted_terminal_game() {
        let pos = Position::initial(Variant::dai_dai());
        let first = pos.legal_move_list()[0];
        let script = format!("nonsense\nmoves\n{}\nundo\nhelp\nquit\n", pos.hodges(first));
        let mut out = Vec::new();
        let mut player = RandomPlayer::new(1);
        let game = play(
            script.as_bytes(),
            &mut out,
            pos,
            Color::Black,
            &mut player,
            &Limits::default(),
            &|p| format!("{p}\n"),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Illegal: \"nonsense\""), "{text}");
        assert!(text.contains("legal moves:"), "{text}");
        assert!(text.contains("tengu plays"), "{text}");
        assert!(game.is_empty(), "undo took back both moves");
    }

    #[test]
    fn one_board_a_move_pair_and_a_help_whose_examples_are_legal() {
        let pos = Position::initial(Variant::dai_dai());
        let text = help(&pos);
        let (_, here) = text
            .split_once("here e.g. ")
            .expect("examples of the position");
        let here = here.split(')').next().unwrap();
        let examples: Vec<&str> = here.split('`').skip(1).step_by(2).collect();
        assert_eq!(examples.len(), 3, "{text}");
        let legal = parse_human_move(&pos, examples[0]).unwrap();
        for e in &examples[1..3] {
            assert_eq!(parse_human_move(&pos, e), Ok(legal), "{e} in {text}");
        }
        let first = pos.legal_move_list()[0];
        let script = format!(
            "{}
undo
quit
",
            pos.hodges(first)
        );
        let mut out = Vec::new();
        play(
            script.as_bytes(),
            &mut out,
            pos,
            Color::Black,
            &mut RandomPlayer::new(1),
            &Limits::default(),
            &|_| "BOARD\n".to_string(),
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        // The start, after tengu's reply, after the take-back: not between the two moves.
        assert_eq!(out.matches("BOARD").count(), 3, "{out}");
        assert!(out.find("tengu plays") < out.match_indices("BOARD").nth(1).map(|(i, _)| i));
    }

    #[test]
    fn pieces_names_each_kind_on_the_board_as_the_board_and_the_moves_write_it() {
        let pos = Position::initial(Variant::dai_dai());
        let mut out = Vec::new();
        play(
            "pieces\nquit\n".as_bytes(),
            &mut out,
            pos.clone(),
            Color::Black,
            &mut RandomPlayer::new(1),
            &Limits::default(),
            &tengu_rules::diagram::hodges_diagram,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let line = out
            .lines()
            .find(|l| l.contains("Pieces on the board"))
            .expect("the pieces line");
        assert!(
            line.contains("Ln Lion") && line.contains("BD Blue Dragon"),
            "{line}"
        );
        // Every kind on the board is named, by the token the board shows.
        let board = tengu_rules::diagram::hodges_diagram(&pos);
        let listed = line.split_once("after a v): ").unwrap().1;
        let kinds = listed.split(", ").count();
        let mut types: Vec<usize> = Square::all(pos.size())
            .filter_map(|s| pos.piece_at(s).map(|p| p.ty))
            .collect();
        types.sort_unstable();
        types.dedup();
        assert_eq!(kinds, types.len(), "{line}");
        for entry in listed.split(", ") {
            let token = entry.split(' ').next().unwrap();
            assert!(
                board.contains(&format!(" {token} ")) || board.contains(&format!(" {token}\n")),
                "{token} not on the board"
            );
        }
        assert!(help(&pos).contains("pieces"));
    }

    #[test]
    fn strict_repetition_refuses_a_move_back_and_ends_a_game_without_a_legal_move() {
        // White's King can only step between 1a and 1b (its Lances on files 1 and 2 block
        // each other), so White's replies are forced.
        let mut ranks = vec!["15,l,k".to_string(), "15,l,1".to_string()];
        ranks.extend((0..14).map(|_| "15,l,l".to_string()));
        ranks.push("8,K,6,l,l".to_string());
        let text = format!("{} b -", ranks.join("/"));
        for strict in [false, true] {
            let mut rules = tengu_rules::RuleSet::default_for("dai-dai");
            if strict {
                rules.set("REPETITION", "STRICT").unwrap();
            }
            let variant = Variant::with_rules(&rules).unwrap();
            let run = |script: &str| {
                let pos = Position::parse_for(variant.clone(), &text).unwrap();
                let mut out = Vec::new();
                let game = play(
                    script.as_bytes(),
                    &mut out,
                    pos,
                    Color::Black,
                    &mut RandomPlayer::new(1),
                    &Limits::default(),
                    &|_| String::new(),
                )
                .unwrap();
                (game, String::from_utf8(out).unwrap())
            };
            // 9o>9p would recreate the position after Black's first move.
            let (game, out) = run("9q>9p\n9p>9o\n9o>9p\nquit\n");
            assert_eq!(
                out.contains("recreates an earlier position"),
                strict,
                "{out}"
            );
            assert_eq!(game.len(), if strict { 4 } else { 6 }, "{out}");
            // Out and back: White's only move would recreate the start position.
            let (game, out) = run("9q>9p\n9p>9q\nquit\n");
            assert_eq!(out.contains("Game over: 1-0"), strict, "{out}");
            assert_eq!(game.len(), if strict { 3 } else { 4 }, "{out}");
        }
    }
}
