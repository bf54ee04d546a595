//! XBoard coordinates for the large boards, as QBoard writes and parses them
//! (`../shared/research/engine-protocol.md` §2.2-2.4).
//!
//! Squares: file letters `a..q` (17x17) or `a..s` (19x19) from the first mover's left,
//! ranks `1..N` from the first mover's back rank. The first mover is tengu Black (CECP
//! "white"), who sits at the bottom: XBoard `a1` is tengu `17q` / `19s`.
//!
//! Moves: one to three comma-separated legs `<sq><sq>`, each leg landing on a square the
//! piece passes (a lion's or lion-dog's captured squares, in path order), the last on the
//! destination; an optional `+` (promotes) or `=` (declines); `@@@@` is a pass, and so is
//! any move that starts with `@@@` (QBoard relays an engine's `move @@@@` to the other
//! engine as `usermove @@@64`; these games have no drops, so nothing else starts so).

use std::fmt::Write;

use tengu_rules::config::LegalityRule;
use tengu_rules::{Color, Move, Position, Square};

/// The XBoard name of a square on a board of `size`, e.g. `h8`.
pub fn square_text(s: Square, size: usize) -> String {
    format!("{}{}", (b'a' + s.col() as u8) as char, size - s.row())
}

/// Why a text is not an XBoard square, or not a move of the position (the reason of an
/// `Illegal move (<reason>): <move>` answer). Squares are named in XBoard coordinates.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("a square is missing")]
    MissingSquare,
    #[error("{text:?} does not start with a file letter")]
    NoFile { text: String },
    /// `last`: the board's last file.
    #[error("file {file} is off the board (a to {last})")]
    FileOffBoard { file: char, last: char },
    #[error("{text:?}: a rank number must follow the file letter")]
    NoRank { text: String },
    /// `rank`: as written.
    #[error("rank {rank} is off the board (1 to {size})")]
    RankOffBoard { rank: String, size: usize },
    #[error("{text:?} is not a square")]
    NotASquare { text: String },
    #[error("move text too long")]
    TooLong,
    #[error("more than three legs")]
    TooManyLegs,
    /// `leg`: 1-based.
    #[error("unexpected {rest:?} after leg {leg}")]
    AfterLeg { rest: String, leg: usize },
    #[error("the legs do not chain (each leg must start where the last ended)")]
    Unchained,
    #[error("a leg must leave its square")]
    StandingLeg,
    #[error("no piece on {square}")]
    NoPiece { square: String },
    /// `owner` and `mover`: the sides, as XBoard users know them.
    #[error("the piece on {square} belongs to {owner}, but {mover} is to move")]
    NotMovers {
        square: String,
        owner: &'static str,
        mover: &'static str,
    },
    #[error("{side} would be in check")]
    IntoCheck { side: &'static str },
    #[error("{square} holds a piece of the mover's side")]
    OwnPiece { square: String },
    /// `kind`: the piece's name.
    #[error("the {kind} on {square} has no such move")]
    NoSuchMove { kind: String, square: String },
    #[error("this move does not promote under tengu's rules (RULES.md §4)")]
    NoPromotion,
    #[error(transparent)]
    Pass(#[from] PassRefusal),
}

/// Reads one XBoard square from the front of `text`: a letter and one or two digits.
/// Returns the square and the rest of the text.
fn read_square(text: &str, size: usize) -> Result<(Square, &str), NotationError> {
    let bytes = text.as_bytes();
    let Some(&letter) = bytes.first() else {
        return Err(NotationError::MissingSquare);
    };
    if !letter.is_ascii_lowercase() {
        return Err(NotationError::NoFile { text: text.into() });
    }
    let col = (letter - b'a') as usize;
    if col >= size {
        return Err(NotationError::FileOffBoard {
            file: letter as char,
            last: (b'a' + size as u8 - 1) as char,
        });
    }
    let digits = bytes[1..]
        .iter()
        .take(2)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return Err(NotationError::NoRank { text: text.into() });
    }
    let rank: usize = text[1..1 + digits].parse().unwrap_or(0);
    // Two digits only when they make a rank of this board ("a1" followed by "b2" is "a1b2").
    let (rank, digits) = if digits == 2 && !(1..=size).contains(&rank) {
        (text[1..2].parse().unwrap_or(0), 1)
    } else {
        (rank, digits)
    };
    if !(1..=size).contains(&rank) {
        return Err(NotationError::RankOffBoard {
            rank: text[1..1 + digits].into(),
            size,
        });
    }
    Ok((Square::new(col, size - rank), &text[1 + digits..]))
}

/// Parses one XBoard square name (the whole text).
pub fn parse_square(text: &str, size: usize) -> Result<Square, NotationError> {
    let (s, rest) = read_square(text, size)?;
    if !rest.is_empty() {
        return Err(NotationError::NotASquare { text: text.into() });
    }
    Ok(s)
}

/// The squares a move passes, in path order: origin, the captured squares other than the
/// destination (nearest first), then the destination. Consecutive pairs are its legs.
/// A pass has none (it is `@@@@`).
pub fn move_path(m: Move) -> Vec<Square> {
    if m.is_pass() {
        return Vec::new();
    }
    let from = m.from();
    let mut side: Vec<Square> = m.side_captures().collect();
    side.sort_by_key(|&s| s.distance(from));
    let mut path = Vec::with_capacity(side.len() + 2);
    path.push(from);
    path.extend(side);
    path.push(m.to());
    path
}

/// The move as XBoard text on one line (`h8h9,h9h10+`): used in thinking output and by
/// XBoard-family GUIs that read one-line moves.
pub fn move_text(m: Move, size: usize) -> String {
    let path = move_path(m);
    if path.is_empty() {
        return "@@@@".into();
    }
    let mut s = String::with_capacity(16);
    for (i, leg) in path.windows(2).enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{}{}",
            square_text(leg[0], size),
            square_text(leg[1], size)
        );
    }
    if m.promotes() {
        s.push('+');
    }
    s
}

/// The engine's move as QBoard reads it: one `move` line per leg, every leg but the last
/// ending in `,`; `+` on the last when the mover changes kind (mandatory, chosen or by
/// contagion).
pub fn move_lines(m: Move, size: usize) -> Vec<String> {
    let path = move_path(m);
    if path.is_empty() {
        return vec!["move @@@@".into()];
    }
    let legs = path.len() - 1;
    path.windows(2)
        .enumerate()
        .map(|(i, leg)| {
            let mut line = format!(
                "move {}{}",
                square_text(leg[0], size),
                square_text(leg[1], size)
            );
            if i + 1 < legs {
                line.push(',');
            } else if m.promotes() {
                line.push('+');
            }
            line
        })
        .collect()
}

/// Whether `text` has the shape of an XBoard move (so a bare token is a move, not an
/// unknown command).
pub fn looks_like_move(text: &str) -> bool {
    let b = text.as_bytes();
    is_pass_text(text)
        || (b.len() >= 4
            && b[0].is_ascii_lowercase()
            && b[1].is_ascii_digit()
            && text
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b",+=".contains(&c)))
}

/// Whether `text` names a pass: `@@@@`, or anything else that starts with `@@@` (QBoard's
/// relay of a pass, e.g. `@@@64`; a drop would start with a piece letter and `@`, and these
/// games have none).
pub fn is_pass_text(text: &str) -> bool {
    text.starts_with("@@@")
}

/// Parses an XBoard move and finds it among the legal moves of `pos`. The error is the
/// reason for an `Illegal move (<reason>): <move>` answer.
///
/// The legs give the (from, to, captured squares) triple of RULES.md §2.7: the captured
/// squares are the enemy pieces on the squares the legs land on. `+` picks the promoting
/// version, `=` or no mark the other; a move with one version (DD's mandatory promotion,
/// every multi-leg move from QBoard) is accepted without a mark. `@@@@` (or any text that
/// starts with `@@@`, see [`is_pass_text`]), or a step to an empty square and back, is a
/// pass.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let size = pos.size();
    if text.len() > 64 {
        return Err(NotationError::TooLong);
    }
    let moves = pos.legal_move_list();
    if is_pass_text(text) {
        return moves
            .iter()
            .copied()
            .find(|m| m.is_pass())
            .ok_or_else(|| NotationError::Pass(pass_refusal(pos)));
    }
    let (body, mark) = match text.as_bytes().last() {
        Some(b'+') => (&text[..text.len() - 1], Some(true)),
        Some(b'=') => (&text[..text.len() - 1], Some(false)),
        _ => (text, None),
    };
    let mut path: Vec<Square> = Vec::with_capacity(4);
    for (i, leg) in body.split(',').enumerate() {
        if i >= 3 {
            return Err(NotationError::TooManyLegs);
        }
        let (a, rest) = read_square(leg, size)?;
        let (b, rest) = read_square(rest, size)?;
        if !rest.is_empty() {
            return Err(NotationError::AfterLeg {
                rest: rest.into(),
                leg: i + 1,
            });
        }
        match path.last() {
            None => path.push(a),
            Some(&prev) if prev == a => {}
            Some(_) => return Err(NotationError::Unchained),
        }
        if a == b {
            return Err(NotationError::StandingLeg);
        }
        path.push(b);
    }
    let from = path[0];
    let to = *path.last().expect("at least one leg");
    let me = pos.side_to_move();
    let Some(piece) = pos.piece_at(from) else {
        return Err(NotationError::NoPiece {
            square: square_text(from, size),
        });
    };
    if piece.color != me {
        return Err(NotationError::NotMovers {
            square: square_text(from, size),
            owner: side_name(piece.color),
            mover: side_name(me),
        });
    }
    let enemy = |s: Square| pos.piece_at(s).is_some_and(|p| p.color != me);
    let mut side: Vec<Square> = path[1..path.len() - 1]
        .iter()
        .copied()
        .filter(|&s| s != from && s != to && enemy(s))
        .collect();
    side.sort();
    side.dedup();
    let captures_to = to != from && enemy(to);
    let same = |m: &Move| {
        let mut ms: Vec<Square> = m.side_captures().collect();
        ms.sort();
        m.from() == from && m.to() == to && m.captures_to() == captures_to && ms == side
    };
    let candidates: Vec<Move> = moves.iter().copied().filter(same).collect();
    if candidates.is_empty() {
        if from == to && side.is_empty() {
            return Err(NotationError::Pass(pass_refusal(pos)));
        }
        let mut pseudo = Vec::new();
        pos.pseudo_legal_moves(&mut pseudo);
        if pseudo.iter().any(same) {
            return Err(NotationError::IntoCheck {
                side: side_name(me),
            });
        }
        if pos.piece_at(to).is_some_and(|p| p.color == me) && to != from {
            return Err(NotationError::OwnPiece {
                square: square_text(to, size),
            });
        }
        let v = pos.variant();
        return Err(NotationError::NoSuchMove {
            kind: v.kinds()[v.piece_types()[piece.ty].kind].name.to_string(),
            square: square_text(from, size),
        });
    }
    let promoting = candidates.iter().copied().find(|m| m.promotes());
    let other = candidates.iter().copied().find(|m| !m.promotes());
    match (mark, promoting, other) {
        (Some(true), Some(m), _) => Ok(m),
        (Some(true), None, _) => Err(NotationError::NoPromotion),
        (_, _, Some(m)) => Ok(m),
        // A mandatory promotion: accepted without a mark, or with QBoard's `=`.
        (_, Some(m), None) => Ok(m),
        (_, None, None) => unreachable!("a candidate exists"),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black (the first mover, XBoard white)",
        Color::White => "White (the second mover, XBoard black)",
    }
}

/// Why no pass is legal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PassRefusal {
    #[error("a pass may not follow a pass (RULES.md §7.4)")]
    AfterPass,
    #[error("this rule set allows no pass (PASS=NO_PASS)")]
    NoPassRule,
    #[error("no pass while in check (RULES.md §7.4)")]
    InCheck,
    #[error("no piece of the side to move can pass here (a pass needs a lion-type piece with a neighbour that is empty or enemy)")]
    NoNeighbour,
    #[error("no piece of the side to move can pass here (a pass needs a lion-type piece with an empty neighbour)")]
    NoEmptyNeighbour,
}

/// Why no pass is legal here.
fn pass_refusal(pos: &Position) -> PassRefusal {
    if !pos.pass_allowed() {
        if pos.after_pass() {
            PassRefusal::AfterPass
        } else {
            PassRefusal::NoPassRule
        }
    } else if pos.in_check() && pos.variant().rules().legality == LegalityRule::CheckAware {
        PassRefusal::InCheck
    } else if pos.variant().rules().pass.beside_enemy() {
        PassRefusal::NoNeighbour
    } else {
        PassRefusal::NoEmptyNeighbour
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Variant;

    #[test]
    fn squares_match_the_research_table() {
        let dd = Position::initial(Variant::dai_dai());
        let mdd = Position::initial(Variant::maka_dai_dai());
        let cases = [
            (&dd, "1a", "q17"),
            (&dd, "17q", "a1"),
            (&dd, "9q", "i1"),
            (&dd, "9a", "i17"),
            (&dd, "10j", "h8"),
            (&mdd, "1a", "s19"),
            (&mdd, "19s", "a1"),
            (&mdd, "10s", "j1"),
            (&mdd, "10a", "j19"),
            (&mdd, "10j", "j10"),
        ];
        for (pos, tengu, xboard) in cases {
            let s = tengu_rules::notation::parse_square(tengu, pos.size()).unwrap();
            assert_eq!(square_text(s, pos.size()), xboard, "{tengu}");
            assert_eq!(parse_square(xboard, pos.size()).unwrap(), s, "{xboard}");
        }
    }

    #[test]
    fn square_mapping_is_a_bijection() {
        for size in [17, 19] {
            let mut seen = std::collections::HashSet::new();
            for s in Square::all(size) {
                let text = square_text(s, size);
                assert!(seen.insert(text.clone()), "{text} named twice");
                assert_eq!(parse_square(&text, size), Ok(s), "{text}");
            }
            assert_eq!(seen.len(), size * size);
            for bad in ["", "a0", "a", "1a", "A1", "t1", "a20", "a1x"] {
                let bad = if size == 17 && bad == "t1" { "r1" } else { bad };
                assert!(parse_square(bad, size).is_err(), "{bad} on {size}");
            }
        }
        assert!(parse_square("a18", 17).is_err());
        assert!(parse_square("a18", 19).is_ok());
    }
}
