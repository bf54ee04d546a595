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
use tengu_rules::{Color, ParseError, Piece, Position, Square, Variant};

/// A QBoard code table that is missing or does not fit its game (`origin`: which table).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeTableError {
    /// `game`: a game id.
    #[error("no QBoard piece codes for {game}")]
    NoTable { game: String },
    /// The table is not TOML of the expected shape (`problem`: the TOML reader's words).
    #[error("{origin}: {problem}")]
    Toml { origin: String, problem: String },
    #[error("{origin}: {token:?} is not a piece of the game")]
    NotAPiece { origin: String, token: String },
    /// A code of `[read]` that is not of the shape `[+]` upper-case letter `['!~`]`.
    #[error("{origin}: [read] {code:?} is not a code (an optional +, one upper-case letter, an optional ' ! ~ or `)")]
    BadCode { origin: String, code: String },
    #[error("{origin}: {token} is written {code:?}, which does not read back as {token}")]
    NotReadBack {
        origin: String,
        token: String,
        code: String,
    },
    #[error("{origin}: no code to write {token}")]
    NoWriteCode { origin: String, token: String },
}

/// Why a text is not a position (`rank`: a rank's letter, `a` the top; `square`: 1-based
/// from the left; `game`: the game's name).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("side to move {text:?}: expected w or b")]
    Side { text: String },
    #[error("no side to move after the board (w or b)")]
    NoSide,
    #[error("the board has {found} ranks; {game} needs {expected}")]
    Ranks {
        found: usize,
        game: String,
        expected: usize,
    },
    #[error("rank {rank}: bad empty count {text:?}")]
    BadEmptyCount { rank: char, text: String },
    #[error("rank {rank}: an empty count of {count} (1 to {size})")]
    EmptyCount {
        rank: char,
        count: usize,
        size: usize,
    },
    /// `text`: the first three characters where a code should start.
    #[error("rank {rank}, square {square}: {text:?} does not start a piece code")]
    NoCode {
        rank: char,
        square: usize,
        text: String,
    },
    #[error("rank {rank}: {code:?} is not a QBoard piece code of {game}")]
    UnknownCode {
        rank: char,
        code: String,
        game: String,
    },
    #[error("rank {rank} has more than {size} squares")]
    RankTooLong { rank: char, size: usize },
    #[error("rank {rank} has {found} squares; expected {size}")]
    RankLength {
        rank: char,
        found: usize,
        size: usize,
    },
    /// The board read, but the position breaks the rules' checks.
    #[error("{0}")]
    Invalid(#[source] ParseError),
    /// tengu's position text (RULES.md §12.2) refused.
    #[error("{0}")]
    Text(#[source] ParseError),
    #[error(transparent)]
    Codes(#[from] CodeTableError),
    /// Neither tengu's text nor QBoard's FEN: the FEN's refusal.
    #[error("QBoard FEN: {0}")]
    Qboard(#[source] Box<FenError>),
}

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
    pub fn for_variant(variant: &Arc<Variant>) -> Result<&'static QboardCodes, CodeTableError> {
        static DAI_DAI: OnceLock<Result<QboardCodes, CodeTableError>> = OnceLock::new();
        static MAKA: OnceLock<Result<QboardCodes, CodeTableError>> = OnceLock::new();
        let (cell, text) = match variant.game() {
            "dai-dai" => (&DAI_DAI, include_str!("../../configs/qboard/dai-dai.toml")),
            "maka-dai-dai" => (
                &MAKA,
                include_str!("../../configs/qboard/maka-dai-dai.toml"),
            ),
            other => return Err(CodeTableError::NoTable { game: other.into() }),
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
            let codes: &'static QboardCodes =
                Box::leak(Box::new(QboardCodes::parse(variant, text)?));
            others.insert(variant.id().to_string(), codes);
            return Ok(codes);
        }
        cell.get_or_init(|| QboardCodes::parse(variant, text))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a code table and checks it: every piece type has a written code, every code read
    /// names a piece type, and every written code reads back as its own piece.
    pub fn parse(variant: &Arc<Variant>, text: &str) -> Result<QboardCodes, CodeTableError> {
        let origin = format!("QBoard codes of {}", variant.name());
        let file: CodeFile = toml::from_str(text).map_err(|e| CodeTableError::Toml {
            origin: origin.clone(),
            problem: e.to_string(),
        })?;
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
                .ok_or_else(|| CodeTableError::NotAPiece {
                    origin: origin.clone(),
                    token: token.into(),
                })
        };
        let mut read = BTreeMap::new();
        for (code, token) in &file.read {
            if !is_code(code) {
                return Err(CodeTableError::BadCode {
                    origin: origin.clone(),
                    code: code.clone(),
                });
            }
            read.insert(code.clone(), type_of(token)?);
        }
        let mut write = vec![String::new(); types];
        for (token, code) in &file.write {
            let ty = type_of(token)?;
            if read.get(code) != Some(&ty) {
                return Err(CodeTableError::NotReadBack {
                    origin: origin.clone(),
                    token: token.clone(),
                    code: code.clone(),
                });
            }
            write[ty] = code.clone();
        }
        if let Some((token, _)) = token_of.iter().find(|(_, &ty)| write[ty].is_empty()) {
            return Err(CodeTableError::NoWriteCode {
                origin: origin.clone(),
                token: token.clone(),
            });
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
    pub fn parse_fen(&self, text: &str) -> Result<Position, FenError> {
        let variant = &self.variant;
        let size = variant.size();
        let mut fields = text.split_whitespace();
        let board = fields.next().ok_or(FenError::Empty)?;
        let side = match fields.next() {
            Some("w") => Color::Black,
            Some("b") => Color::White,
            Some(s) => return Err(FenError::Side { text: s.into() }),
            None => return Err(FenError::NoSide),
        };
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != size {
            return Err(FenError::Ranks {
                found: ranks.len(),
                game: variant.name().to_string(),
                expected: size,
            });
        }
        let mut pos = Position::empty(variant.clone(), side, false);
        for (row, rank) in ranks.iter().enumerate() {
            let rank_name = (b'a' + row as u8) as char;
            let mut col = 0;
            let mut rest = *rank;
            while !rest.is_empty() {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    let n: usize = rest[..digits]
                        .parse()
                        .map_err(|_| FenError::BadEmptyCount {
                            rank: rank_name,
                            text: rest[..digits].into(),
                        })?;
                    if n == 0 || n > size {
                        return Err(FenError::EmptyCount {
                            rank: rank_name,
                            count: n,
                            size,
                        });
                    }
                    col += n;
                    rest = &rest[digits..];
                } else {
                    let Some((code, color, len)) = next_code(rest) else {
                        return Err(FenError::NoCode {
                            rank: rank_name,
                            square: col + 1,
                            text: rest.chars().take(3).collect(),
                        });
                    };
                    let Some(&ty) = self.read.get(&code) else {
                        return Err(FenError::UnknownCode {
                            rank: rank_name,
                            code: rest[..len].into(),
                            game: variant.name().to_string(),
                        });
                    };
                    if col < size {
                        pos.put(Square::new(col, row), Piece { color, ty });
                    }
                    col += 1;
                    rest = &rest[len..];
                }
                if col > size {
                    return Err(FenError::RankTooLong {
                        rank: rank_name,
                        size,
                    });
                }
            }
            if col != size {
                return Err(FenError::RankLength {
                    rank: rank_name,
                    found: col,
                    size,
                });
            }
        }
        // The rules' own checks, so a FEN is held to what tengu's position text is.
        pos.validate().map_err(FenError::Invalid)?;
        Ok(pos)
    }
}

/// The first piece code of `text`: (the first mover's spelling, colour, bytes used); `None`
/// when `text` does not start with one.
fn next_code(text: &str) -> Option<(String, Color, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut code = String::new();
    if bytes[0] == b'+' {
        code.push('+');
        i = 1;
    }
    let &letter = bytes.get(i).filter(|b| b.is_ascii_alphabetic())?;
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
    Some((code, color, i))
}

/// Whether `code` has the shape of a first mover's code: `[+]` upper-case letter `['!~`]`.
fn is_code(code: &str) -> bool {
    matches!(next_code(code), Some((c, Color::Black, len)) if len == code.len() && c == code)
}

/// Parses a `setboard` argument of a `variant` game: tengu's position text (which names its
/// game by its size), else QBoard's FEN.
pub fn parse_position(text: &str, variant: &Arc<Variant>) -> Result<Position, FenError> {
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
            Position::parse_for(variant, text).map_err(FenError::Text)
        } else {
            Position::parse(text).map_err(FenError::Text)
        };
    }
    match Position::parse_for(variant.clone(), text) {
        Ok(pos) => Ok(pos),
        Err(_) => QboardCodes::for_variant(&variant)?
            .parse_fen(text)
            .map_err(|e| FenError::Qboard(Box::new(e))),
    }
}
