//! Openings files: start positions for matches and self-play, one opening a line.
//!
//! ```text
//! # Dai Dai Shogi openings (comments start with '#')
//! start                                   # the initial position itself
//! 9l>9k 9f>9g                             # ply 2
//! 13l>13k 5f>5g 9l>9k # ply 3 E 0.51
//! ```
//!
//! Grammar, line by line:
//! - Everything from the first `#` to the end of the line is a comment.
//! - A line that is empty once the comment is removed is skipped.
//! - A line holding the single token `start` is the initial position (no moves); `start`
//!   with moves beside it is refused.
//! - Any other line is a space-separated list of moves in the coordinate notation of
//!   RULES.md §12.3 ([`Position::move_text`]), played in order from the variant's initial
//!   position. Every move must be legal where it is played, and the game must not be over
//!   after the last one (an opening leaves a game to play).
//!
//! Parse, then validate: every problem is an [`OpeningsError`] naming the line (1-based),
//! the move token and why it was refused; nothing panics on bad text.

use std::sync::Arc;

use crate::game::Game;
use crate::position::Position;
use crate::types::Move;
use crate::variant::Variant;

/// Largest openings file `tengu_selfplay::openings::read_openings` reads, in bytes (64 MiB: far above any real book).
pub const MAX_OPENINGS_FILE: u64 = 64 << 20;

/// The token of a line that stands for the initial position.
pub const START: &str = "start";

/// One opening: moves from the variant's initial position, and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Legal moves in order from the initial position (empty for `start`).
    pub moves: Vec<Move>,
    /// The line of the file it came from (1-based).
    pub line: usize,
}

impl Opening {
    /// The game after the opening's moves, from `variant`'s initial position. The moves
    /// were checked when the file was parsed, for the same variant.
    pub fn game(&self, variant: &Arc<Variant>) -> Game {
        let mut game = Game::new(Position::initial(variant.clone()));
        for &m in &self.moves {
            game.play_unchecked(m);
        }
        game
    }
}

/// A refused openings file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    /// The file could not be read (or is too large).
    #[error("{file}: {problem}")]
    Read { file: String, problem: String },
    /// No line holds an opening.
    #[error("{}no openings (every line is blank or a comment)", prefix(.file))]
    Empty { file: Option<String> },
    /// A line was refused.
    #[error("{}line {line}: {problem}", prefix(.file))]
    Line {
        /// The file, once known (the file reader fills it in).
        file: Option<String>,
        /// 1-based line number.
        line: usize,
        /// The move token at fault, when one is.
        token: Option<String>,
        /// Why the line was refused.
        problem: String,
    },
}

fn prefix(file: &Option<String>) -> String {
    file.as_ref().map_or(String::new(), |f| format!("{f}: "))
}

impl OpeningsError {
    /// The line at fault, for errors about one line.
    pub fn line(&self) -> Option<usize> {
        match self {
            OpeningsError::Line { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The same error, naming `file`.
    pub fn in_file(self, name: &str) -> OpeningsError {
        let file = Some(name.to_string());
        match self {
            OpeningsError::Empty { .. } => OpeningsError::Empty { file },
            OpeningsError::Line {
                line,
                token,
                problem,
                ..
            } => OpeningsError::Line {
                file,
                line,
                token,
                problem,
            },
            read => read,
        }
    }
}

/// Parses an openings file's text for `variant` (see the module documentation), replaying
/// every line. The openings come in file order.
pub fn parse_openings(variant: &Arc<Variant>, text: &str) -> Result<Vec<Opening>, OpeningsError> {
    let mut openings = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let body = raw.split_once('#').map_or(raw, |(before, _)| before);
        let tokens: Vec<&str> = body.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let refuse = |token: Option<&str>, problem: String| OpeningsError::Line {
            file: None,
            line,
            token: token.map(str::to_string),
            problem,
        };
        if tokens == [START] {
            openings.push(Opening {
                moves: Vec::new(),
                line,
            });
            continue;
        }
        if tokens.contains(&START) {
            return Err(refuse(
                Some(START),
                format!("{START:?} stands alone on its line (the initial position, no moves)"),
            ));
        }
        let mut game = Game::new(Position::initial(variant.clone()));
        let mut moves = Vec::with_capacity(tokens.len());
        for (i, &token) in tokens.iter().enumerate() {
            if let Some(outcome) = game.outcome() {
                return Err(refuse(
                    Some(token),
                    format!(
                        "ply {}: move {token:?} after the end of the game ({} by {})",
                        i + 1,
                        outcome.result_text(),
                        outcome.termination.as_str()
                    ),
                ));
            }
            // `parse_move` checks legality and names the token and the reason; `Game::play`
            // refuses a move back to an earlier position under `REPETITION=STRICT`.
            let m = game
                .position()
                .parse_move(token)
                .map_err(|e| refuse(Some(token), format!("ply {}: {e}", i + 1)))?;
            game.play(m)
                .map_err(|e| refuse(Some(token), format!("ply {}: {e}", i + 1)))?;
            moves.push(m);
        }
        if let Some(outcome) = game.outcome() {
            let last = tokens.last().copied();
            return Err(refuse(
                last,
                format!(
                    "the game is over after these {} plies ({} by {}); an opening must leave a game to play",
                    moves.len(),
                    outcome.result_text(),
                    outcome.termination.as_str()
                ),
            ));
        }
        openings.push(Opening { moves, line });
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty { file: None });
    }
    Ok(openings)
}

/// One line of an openings file: `moves` (a legal sequence from `variant`'s initial
/// position, as a [`Game`] holds them) in §12.3 notation, or `start` when there are none,
/// then ` # comment` when one is given (line breaks in it become spaces, so the line stays
/// one line). No line break at the end. [`parse_openings`] reads it back to the same moves.
pub fn format_opening(variant: &Arc<Variant>, moves: &[Move], comment: Option<&str>) -> String {
    let mut pos = Position::initial(variant.clone());
    let mut line = if moves.is_empty() {
        START.to_string()
    } else {
        let mut tokens = Vec::with_capacity(moves.len());
        for &m in moves {
            tokens.push(pos.move_text(m));
            pos.play(m);
        }
        tokens.join(" ")
    };
    if let Some(comment) = comment {
        let comment: String = comment
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        line.push_str(" # ");
        line.push_str(comment.trim());
    }
    line
}
