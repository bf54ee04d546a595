//! Positions for `setboard`: tengu's own position text (RULES.md §12.2), or an XBoard FEN
//! with QBoard's piece codes, as QBoard sends a position from "File > Open".
//!
//! QBoard's FEN has the same board layout as tengu's text (the top rank first: rank `a`,
//! White's back rank; files left to right as Black sees them), with other piece tokens:
//! an optional `+`, one letter and an optional `'`, `!`, `~` or `` ` ``, upper case for the
//! first mover (tengu Black), no separators between squares, and a run of empty squares as
//! a decimal count (two digits on a full rank). After the board comes the side to move, in
//! XBoard's colours: `w` (the first mover, tengu Black) or `b`; anything after it (a move
//! number) is ignored. The code tables are data: `configs/qboard/<game>.toml`.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use tengu_rules::notation::piece_token;
use tengu_rules::{Color, Piece, Position, Square, Variant};

/// A game's code table as stored in `configs/qboard/<game>.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeFile {
    /// tengu token (Black's) -> the QBoard code tengu writes.
    write: BTreeMap<String, String>,
    /// QBoard code (first mover's) -> tengu token (Black's).
    read: BTreeMap<String, String>,
}

/// QBoard's piece codes of one game, checked against the game's piece types.
#[derive(Debug)]
pub struct QboardCodes {
    variant: Arc<Variant>,
    /// The code written for each piece type (first mover's, upper case).
    write: Vec<String>,
    /// Piece type of each QBoard code (first mover's).
    read: BTreeMap<String, usize>,
}

impl QboardCodes {
    /// The shipped table of `variant`'s game.
    pub fn for_variant(variant: &Arc<Variant>) -> Result<&'static QboardCodes, String> {
        static DAI_DAI: OnceLock<Result<QboardCodes, String>> = OnceLock::new();
        static MAKA: OnceLock<Result<QboardCodes, String>> = OnceLock::new();
        let (cell, text) = match variant.game() {
            "dai-dai" => (&DAI_DAI, include_str!("../../configs/qboard/dai-dai.toml")),
            "maka-dai-dai" => (
                &MAKA,
                include_str!("../../configs/qboard/maka-dai-dai.toml"),
            ),
            other => return Err(format!("no QBoard piece codes for {other}")),
        };
        if !variant.rule_set().is_default() {
            // Another rule set has other piece types: its own table, built once per set.
            type Tables = std::sync::Mutex<std::collections::HashMap<String, &'static QboardCodes>>;
            static OTHERS: OnceLock<Tables> = OnceLock::new();
            let mut others = OTHERS
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(codes) = others.get(variant.id()) {
                return Ok(codes);
            }
            let codes: &'static QboardCodes = Box::leak(Box::new(QboardCodes::parse(variant, text)?));
            others.insert(variant.id().to_string(), codes);
            return Ok(codes);
        }
        cell.get_or_init(|| QboardCodes::parse(variant, text))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a code table and checks it: every piece type has a written code, every code read
    /// names a piece type, and every written code reads back as its own piece.
    pub fn parse(variant: &Arc<Variant>, text: &str) -> Result<QboardCodes, String> {
        let origin = format!("QBoard codes of {}", variant.name());
        let file: CodeFile = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
        let types = variant.piece_types().len();
        let token_of: BTreeMap<String, usize> = (0..types)
            .map(|ty| {
                let piece = Piece {
                    color: Color::Black,
                    ty,
                };
                (piece_token(variant, piece), ty)
            })
            .collect();
        let type_of = |token: &str| {
            token_of
                .get(token)
                .copied()
                .ok_or_else(|| format!("{origin}: {token:?} is not a piece of the game"))
        };
        let mut read = BTreeMap::new();
        for (code, token) in &file.read {
            check_code(code).map_err(|e| format!("{origin}: [read] {e}"))?;
            read.insert(code.clone(), type_of(token)?);
        }
        let mut write = vec![String::new(); types];
        for (token, code) in &file.write {
            let ty = type_of(token)?;
            if read.get(code) != Some(&ty) {
                return Err(format!(
                    "{origin}: {token} is written {code:?}, which does not read back as {token}"
                ));
            }
            write[ty] = code.clone();
        }
        if let Some((token, _)) = token_of.iter().find(|(_, &ty)| write[ty].is_empty()) {
            return Err(format!("{origin}: no code to write {token}"));
        }
        Ok(QboardCodes {
            variant: variant.clone(),
            write,
            read,
        })
    }

    /// The QBoard FEN of `pos` (the side to move in XBoard's colours, then move number 1).
    pub fn to_fen(&self, pos: &Position) -> String {
        let size = pos.size();
        let mut out = String::new();
        for row in 0..size {
            if row > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for col in 0..size {
                match pos.piece_at(Square::new(col, row)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let code = &self.write[p.ty];
                        match p.color {
                            Color::Black => out.push_str(code),
                            Color::White => out.push_str(&code.to_ascii_lowercase()),
                        }
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
        }
        out.push_str(match pos.side_to_move() {
            Color::Black => " w 1",
            Color::White => " b 1",
        });
        out
    }

    /// Parses a QBoard FEN into a validated position (not after a pass).
    pub fn parse_fen(&self, text: &str) -> Result<Position, String> {
        let variant = &self.variant;
        let size = variant.size();
        let mut fields = text.split_whitespace();
        let board = fields.next().ok_or("empty FEN")?;
        let side = match fields.next() {
            Some("w") => Color::Black,
            Some("b") => Color::White,
            Some(s) => return Err(format!("side to move {s:?}: expected w or b")),
            None => return Err("no side to move after the board (w or b)".into()),
        };
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != size {
            return Err(format!(
                "the board has {} ranks; {} needs {size}",
                ranks.len(),
                variant.name()
            ));
        }
        let mut pos = Position::empty(variant.clone(), side, false);
        for (row, rank) in ranks.iter().enumerate() {
            let rank_name = (b'a' + row as u8) as char;
            let mut col = 0;
            let mut rest = *rank;
            while !rest.is_empty() {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    let n: usize = rest[..digits].parse().map_err(|_| {
                        format!("rank {rank_name}: bad empty count {:?}", &rest[..digits])
                    })?;
                    if n == 0 || n > size {
                        return Err(format!(
                            "rank {rank_name}: an empty count of {n} (1 to {size})"
                        ));
                    }
                    col += n;
                    rest = &rest[digits..];
                } else {
                    let (code, color, len) = next_code(rest)
                        .map_err(|e| format!("rank {rank_name}, square {}: {e}", col + 1))?;
                    let Some(&ty) = self.read.get(&code) else {
                        return Err(format!(
                            "rank {rank_name}: {:?} is not a QBoard piece code of {}",
                            &rest[..len],
                            variant.name()
                        ));
                    };
                    if col < size {
                        pos.put(Square::new(col, row), Piece { color, ty });
                    }
                    col += 1;
                    rest = &rest[len..];
                }
                if col > size {
                    return Err(format!("rank {rank_name} has more than {size} squares"));
                }
            }
            if col != size {
                return Err(format!(
                    "rank {rank_name} has {col} squares; expected {size}"
                ));
            }
        }
        // The rules' own checks, so a FEN is held to what tengu's position text is.
        pos.validate().map_err(|e| e.to_string())?;
        Ok(pos)
    }
}

/// The first piece code of `text`: (the first mover's spelling, colour, bytes used).
fn next_code(text: &str) -> Result<(String, Color, usize), String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut code = String::new();
    if bytes[0] == b'+' {
        code.push('+');
        i = 1;
    }
    let Some(&letter) = bytes.get(i).filter(|b| b.is_ascii_alphabetic()) else {
        let shown: String = text.chars().take(3).collect();
        return Err(format!("{shown:?} does not start a piece code"));
    };
    let color = if letter.is_ascii_uppercase() {
        Color::Black
    } else {
        Color::White
    };
    code.push(letter.to_ascii_uppercase() as char);
    i += 1;
    if let Some(&suffix) = bytes.get(i).filter(|b| b"'!~`".contains(b)) {
        code.push(suffix as char);
        i += 1;
    }
    Ok((code, color, i))
}

/// Checks the shape of a first mover's code: `[+]` upper-case letter `['!~`]`.
fn check_code(code: &str) -> Result<(), String> {
    match next_code(code) {
        Ok((c, Color::Black, len)) if len == code.len() && c == code => Ok(()),
        _ => Err(format!(
            "{code:?} is not a code (an optional +, one upper-case letter, an optional ' ! ~ or `)"
        )),
    }
}

/// Parses a `setboard` argument of a `variant` game: tengu's position text (which names its
/// game by its size), else QBoard's FEN.
pub fn parse_position(text: &str, variant: &Arc<Variant>) -> Result<Position, String> {
    let text = text.trim();
    // Both texts name their game by their number of ranks too, as QBoard may send one before
    // `variant`; a board of the given variant's size plays its rule set.
    let ranks = text
        .split_whitespace()
        .next()
        .map_or(0, |b| b.split('/').count());
    let variant = if variant.size() == ranks {
        variant.clone()
    } else {
        Variant::for_size(ranks).unwrap_or_else(|| variant.clone())
    };
    if text.contains(',') || text.ends_with(" -") || text.ends_with(" p") {
        return if variant.size() == ranks {
            Position::parse_for(variant, text).map_err(|e| e.to_string())
        } else {
            Position::parse(text).map_err(|e| e.to_string())
        };
    }
    match Position::parse_for(variant.clone(), text) {
        Ok(pos) => Ok(pos),
        Err(_) => QboardCodes::for_variant(&variant)?
            .parse_fen(text)
            .map_err(|e| format!("QBoard FEN: {e}")),
    }
}
