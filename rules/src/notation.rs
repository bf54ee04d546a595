//! Text formats of RULES.md §12: squares, positions, coordinate moves and Hodges notation.
//!
//! Parse, then validate: syntax errors name the offending field, rank or token; a
//! well-formed position that breaks a rule (royal pieces, side not to move in check) is
//! rejected with the reason. Output is canonical, so `print(parse(x)) == x`.

use std::fmt::{self, Write};
use std::str::FromStr;
use std::sync::Arc;

use crate::config::LegalityRule;
use crate::position::{Piece, Position};
use crate::types::{Color, Move, Square};
use crate::variant::Variant;

/// A rejected text: what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(msg.into()))
}

/// Longest text any parser here looks at; longer input is rejected before any work.
const MAX_TEXT: usize = 4096;

/// Parses a square name (`<file><rank>`, §12.1) for a board of `size`.
pub fn parse_square(text: &str, size: usize) -> Result<Square, ParseError> {
    let bytes = text.as_bytes();
    let Some((&rank, digits)) = bytes.split_last() else {
        return err("empty square name");
    };
    if digits.is_empty()
        || digits.len() > 2
        || !digits.iter().all(u8::is_ascii_digit)
        || digits[0] == b'0'
    {
        return err(format!(
            "square {text:?}: expected a file 1..{size} then a rank letter"
        ));
    }
    let file: usize = std::str::from_utf8(digits)
        .unwrap_or("0")
        .parse()
        .unwrap_or(0);
    if !(1..=size).contains(&file) {
        return err(format!("square {text:?}: file {file} is outside 1..{size}"));
    }
    if !rank.is_ascii_lowercase() || (rank - b'a') as usize >= size {
        return err(format!(
            "square {text:?}: rank must be a letter a..{}",
            (b'a' + size as u8 - 1) as char
        ));
    }
    Ok(Square::from_file_rank(file, (rank - b'a') as usize, size).expect("checked above"))
}

/// The text token of a piece (§12.2): optional `+`, code in upper case for Black.
pub fn piece_token(variant: &Variant, piece: Piece) -> String {
    let ty = &variant.piece_types()[piece.ty];
    let code = &variant.kinds()[ty.kind].code;
    let mut s = String::with_capacity(5);
    if variant.plus_marked(piece.ty) {
        s.push('+');
    }
    match piece.color {
        Color::Black => s.push_str(code),
        Color::White => s.push_str(&code.to_ascii_lowercase()),
    }
    s
}

/// The abbreviation of piece type `ty` in Hodges notation (§12.4), the same for both
/// colours: the Hodges column of its kind, `+` in front of a promoted piece whose kind is in
/// the setup (`Ln`, `BD`, `+P`).
pub fn hodges_piece(variant: &Variant, ty: usize) -> String {
    let t = &variant.piece_types()[ty];
    let kind = &variant.kinds()[t.kind];
    if t.promoted && kind.in_setup {
        format!("+{}", kind.hodges)
    } else {
        kind.hodges.clone()
    }
}

/// Parses a piece token of `variant` (§12.2).
pub fn parse_piece(variant: &Variant, token: &str) -> Result<Piece, ParseError> {
    let (plus, code) = match token.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphabetic()) {
        return err(format!("{token:?} is not a piece token"));
    }
    let color = if code.chars().all(|c| c.is_ascii_uppercase()) {
        Color::Black
    } else if code.chars().all(|c| c.is_ascii_lowercase()) {
        Color::White
    } else {
        return err(format!("piece {token:?} mixes upper and lower case"));
    };
    let upper = code.to_ascii_uppercase();
    let Some(kind) = variant.kind_index(&upper) else {
        return err(format!(
            "piece {token:?}: {upper} is not a piece of {}",
            variant.name()
        ));
    };
    let in_setup = variant.kinds()[kind].in_setup;
    let ty = if plus {
        match variant.type_index(kind, true) {
            Some(t) if in_setup => t,
            _ if !in_setup => {
                return err(format!(
                    "piece {token:?}: {upper} is promoted-only, written without '+'"
                ))
            }
            _ => {
                return err(format!(
                    "piece {token:?}: {upper} is never the result of a promotion in {}",
                    variant.name()
                ))
            }
        }
    } else if in_setup {
        variant
            .type_index(kind, false)
            .expect("setup kinds exist unpromoted")
    } else {
        variant
            .type_index(kind, true)
            .expect("promoted-only kinds exist promoted")
    };
    Ok(Piece { color, ty })
}

impl Position {
    /// Parses and validates a §12.2 position. The number of ranks picks the built-in game.
    pub fn parse(text: &str) -> Result<Position, ParseError> {
        if text.len() > MAX_TEXT {
            return err(format!(
                "position text is {} bytes long; at most {MAX_TEXT}",
                text.len()
            ));
        }
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 3 || fields.iter().any(|f| f.is_empty()) {
            return err(format!(
                "a position is '<board> <side> <pass>' separated by single spaces; found {} fields",
                fields.iter().filter(|f| !f.is_empty()).count()
            ));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        let Some(variant) = Variant::for_size(ranks.len()) else {
            return err(format!(
                "board has {} ranks; expected 17 (Dai Dai Shogi) or 19 (Maka Dai Dai Shogi)",
                ranks.len()
            ));
        };
        Position::parse_for(variant, text)
    }

    /// Parses and validates a §12.2 position of a given variant.
    pub fn parse_for(variant: Arc<Variant>, text: &str) -> Result<Position, ParseError> {
        if text.len() > MAX_TEXT {
            return err(format!(
                "position text is {} bytes long; at most {MAX_TEXT}",
                text.len()
            ));
        }
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 3 || fields.iter().any(|f| f.is_empty()) {
            return err("a position is '<board> <side> <pass>' separated by single spaces");
        }
        let size = variant.size();
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return err(format!("side field {s:?}: expected 'b' or 'w'")),
        };
        let after_pass = match fields[2] {
            "p" => true,
            "-" => false,
            s => return err(format!("pass field {s:?}: expected 'p' or '-'")),
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != size {
            return err(format!(
                "board has {} ranks; {} needs {size}",
                ranks.len(),
                variant.name()
            ));
        }
        let mut pos = Position::empty(variant.clone(), side, after_pass);
        for (row, rank_text) in ranks.iter().enumerate() {
            let rank_name = (b'a' + row as u8) as char;
            let mut col = 0usize;
            let mut last_was_count = false;
            if rank_text.is_empty() {
                return err(format!("rank {rank_name} is empty"));
            }
            for item in rank_text.split(',') {
                if item.is_empty() {
                    return err(format!("rank {rank_name}: empty item"));
                }
                if item.bytes().all(|c| c.is_ascii_digit()) {
                    if last_was_count {
                        return err(format!(
                            "rank {rank_name}: two empty-square counts in a row"
                        ));
                    }
                    let n: usize = match item.parse() {
                        Ok(n) if n >= 1 && n <= size && !item.starts_with('0') => n,
                        _ => {
                            return err(format!(
                                "rank {rank_name}: count {item:?} is not a number 1..{size}"
                            ))
                        }
                    };
                    col += n;
                    last_was_count = true;
                } else {
                    let piece = parse_piece(&variant, item)
                        .map_err(|e| ParseError(format!("rank {rank_name}: {e}")))?;
                    if col < size {
                        pos.put(Square::new(col, row), piece);
                    }
                    col += 1;
                    last_was_count = false;
                }
                if col > size {
                    return err(format!("rank {rank_name} covers more than {size} squares"));
                }
            }
            if col != size {
                return err(format!(
                    "rank {rank_name} covers {col} squares; expected {size}"
                ));
            }
        }
        pos.validate()?;
        Ok(pos)
    }

    /// Checks the rules of §12.2 that a well-formed board may still break (royals, pieces
    /// on squares they could never stand on, ...): what [`Position::parse_for`] checks after
    /// placing the pieces, for positions built from other notations.
    pub fn validate(&self) -> Result<(), ParseError> {
        let v = self.variant().clone();
        for color in Color::ALL {
            let name = if color == Color::Black {
                "Black"
            } else {
                "White"
            };
            let royals: Vec<Square> = self.royals(color).collect();
            // Under LEGALITY=PSEUDO_LEGAL the side to move may have lost its last royal
            // (the game is over), and the other side may stand in check.
            let pseudo_legal = v.rules().legality == LegalityRule::PseudoLegal;
            if royals.is_empty() && !(pseudo_legal && color == self.side_to_move()) {
                return err(format!("{name} has no royal piece"));
            }
            // At most one royal per family (King/Emperor, Prince).
            let mut families: Vec<usize> = Vec::new();
            for &s in &royals {
                let piece = self.piece_at(s).expect("royal square is occupied");
                let kind = v.piece_types()[piece.ty].kind;
                let family = crate::variant::royal_family(v.kinds(), kind);
                if families.contains(&family) {
                    return err(format!(
                        "{name} has two royal pieces of the {} family; at most one is allowed",
                        v.kinds()[family].name
                    ));
                }
                families.push(family);
            }
        }
        let other = self.side_to_move().opposite();
        if v.rules().legality == LegalityRule::CheckAware && self.is_in_check(other) {
            let name = if other == Color::Black {
                "Black"
            } else {
                "White"
            };
            return err(format!(
                "{name} is not to move but is in check; such a position cannot arise"
            ));
        }
        Ok(())
    }

    /// A square's name on this board.
    pub fn square_name(&self, s: Square) -> String {
        s.name(self.size()).to_string()
    }

    /// Formats a move in §12.3 coordinate notation: `from>to`, the captured squares in
    /// braces, `+`/`=` for an optional promotion taken or declined.
    ///
    /// ```
    /// use tengu_rules::{Position, Variant};
    /// let pos = Position::initial(Variant::dai_dai());
    /// let m = pos.parse_move("9l>9k").unwrap();
    /// assert_eq!(pos.move_text(m), "9l>9k");
    /// ```
    pub fn move_text(&self, m: Move) -> String {
        let size = self.size();
        let mut s = String::with_capacity(24);
        let _ = write!(s, "{}>{}", m.from().name(size), m.to().name(size));
        if m.is_capture() {
            s.push('{');
            for (i, c) in m.captures().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{}", c.name(size));
            }
            s.push('}');
        }
        if m.promotion_optional() {
            s.push(if m.promotes() { '+' } else { '=' });
        }
        s
    }

    /// Parses a §12.3 move and checks that it is one of this position's legal moves.
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseError> {
        if text.len() > 64 {
            return err(format!(
                "move text {:?}... is too long",
                &text[..text.char_indices().nth(16).map_or(text.len(), |(i, _)| i)]
            ));
        }
        let size = self.size();
        let Some((from_text, rest)) = text.split_once('>') else {
            return err(format!("move {text:?}: expected '<from>><to>'"));
        };
        let from = parse_square(from_text, size)
            .map_err(|e| ParseError(format!("move {text:?}: from: {e}")))?;
        let to_end = rest.find(['{', '+', '=']).unwrap_or(rest.len());
        let to = parse_square(&rest[..to_end], size)
            .map_err(|e| ParseError(format!("move {text:?}: to: {e}")))?;
        let mut rest = &rest[to_end..];
        let mut captured = Vec::new();
        if let Some(body) = rest.strip_prefix('{') {
            let Some(close) = body.find('}') else {
                return err(format!("move {text:?}: '{{' without '}}'"));
            };
            for item in body[..close].split(',') {
                let s = parse_square(item, size)
                    .map_err(|e| ParseError(format!("move {text:?}: captured square: {e}")))?;
                captured.push(s);
            }
            if captured.windows(2).any(|w| w[0] >= w[1]) {
                return err(format!("move {text:?}: captured squares must be listed once each in board reading order"));
            }
            rest = &body[close + 1..];
        }
        let mark = match rest {
            "" => None,
            "+" => Some(true),
            "=" => Some(false),
            r => return err(format!("move {text:?}: unexpected {r:?} after the move")),
        };
        let Some(piece) = self.piece_at(from) else {
            return err(format!("move {text:?}: no piece on {from_text}"));
        };
        if piece.color != self.side_to_move() {
            return err(format!(
                "move {text:?}: the piece on {from_text} belongs to the side not to move"
            ));
        }
        let moves = self.legal_move_list();
        let found = moves.iter().copied().find(|&m| {
            m.from() == from
                && m.to() == to
                && m.captures().eq(captured.iter().copied())
                && (!m.promotion_optional() || Some(m.promotes()) == mark)
                && (m.promotion_optional() || mark.is_none())
        });
        if let Some(m) = found {
            return Ok(m);
        }
        let same = moves.iter().any(|&m| {
            m.from() == from && m.to() == to && m.captures().eq(captured.iter().copied())
        });
        if same {
            return err(match mark {
                None => format!(
                    "move {text:?}: promotion is optional here; add '+' (promote) or '=' (decline)"
                ),
                Some(_) => format!(
                    "move {text:?}: this move has no promotion choice; write it without a mark"
                ),
            });
        }
        if from == to && captured.is_empty() && self.after_pass() && !self.pass_allowed() {
            return err(format!(
                "move {text:?}: a pass may not follow a pass (RULES.md §7.4)"
            ));
        }
        let mut pseudo = Vec::new();
        self.pseudo_legal_moves(&mut pseudo);
        if pseudo
            .iter()
            .any(|&m| m.from() == from && m.to() == to && m.captures().eq(captured.iter().copied()))
        {
            return err(format!(
                "move {text:?}: leaves {} in check",
                if self.side_to_move() == Color::Black {
                    "Black"
                } else {
                    "White"
                }
            ));
        }
        err(format!(
            "move {text:?}: the {} on {from_text} has no such move",
            self.kind_name(piece)
        ))
    }

    /// Plays a move given in §12.3 notation after checking it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, ParseError> {
        let m = self.parse_move(text)?;
        self.play(m);
        Ok(m)
    }

    fn kind_name(&self, piece: Piece) -> &str {
        let v = self.variant();
        &v.kinds()[v.piece_types()[piece.ty].kind].name
    }

    /// Hodges-style notation of a legal move (§12.4): `P-8g`, `CSx7c+`, `Lnx!7c`, with the
    /// origin square inserted when another piece of the same type has a move with the same
    /// captures and destination. Lion moves list every captured square: `Lnx9hx9g`;
    /// igui is `x!` plus the victim's square; a pass is `Ln-!`.
    pub fn hodges(&self, m: Move) -> String {
        let v = self.variant();
        let size = self.size();
        let piece = self
            .piece_at(m.from())
            .expect("a legal move starts on a piece");
        let mut s = hodges_piece(v, piece.ty);
        let ambiguous = self.legal_move_list().iter().any(|&o| {
            o.from() != m.from()
                && o.to() == m.to()
                && o.captures().eq(m.captures())
                && self.piece_at(o.from()).map(|p| p.ty) == Some(piece.ty)
        });
        if ambiguous {
            let _ = write!(s, "{}", m.from().name(size));
        }
        if m.is_pass() {
            s.push_str("-!");
            return s;
        }
        let side: Vec<Square> = m.side_captures().collect();
        if m.to() == m.from() {
            for c in &side {
                let _ = write!(s, "x!{}", c.name(size));
            }
        } else {
            for c in &side {
                let _ = write!(s, "x{}", c.name(size));
            }
            s.push(if m.captures_to() { 'x' } else { '-' });
            let _ = write!(s, "{}", m.to().name(size));
        }
        if m.promotes() {
            s.push('+');
        } else if m.promotion_optional() {
            s.push('=');
        }
        s
    }
}

impl fmt::Display for Position {
    /// The canonical §12.2 text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.size();
        let v = self.variant();
        for row in 0..size {
            if row > 0 {
                f.write_char('/')?;
            }
            let mut empty = 0;
            let mut first = true;
            let sep = |f: &mut fmt::Formatter<'_>, first: &mut bool| -> fmt::Result {
                if !*first {
                    f.write_char(',')?;
                }
                *first = false;
                Ok(())
            };
            for col in 0..size {
                match self.piece_at(Square::new(col, row)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            sep(f, &mut first)?;
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        sep(f, &mut first)?;
                        f.write_str(&piece_token(v, p))?;
                    }
                }
            }
            if empty > 0 {
                sep(f, &mut first)?;
                write!(f, "{empty}")?;
            }
        }
        let side = if self.side_to_move() == Color::Black {
            "b"
        } else {
            "w"
        };
        write!(f, " {side} {}", if self.after_pass() { "p" } else { "-" })
    }
}

impl FromStr for Position {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Position, ParseError> {
        Position::parse(s)
    }
}
