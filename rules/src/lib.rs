//! Rules engine for Dai Dai Shogi (17x17) and Maka Dai Dai Shogi (19x19), following
//! `RULES.md` v1.2 ([`RULES_VERSION`]): piece data from `configs/games/*.toml`, exact
//! pseudo-legal and legal move generation, make/unmake with an incremental Zobrist key, the
//! text formats of §12, game records, openings files, repetition and results, and perft.

mod attack;
pub mod betza;
mod board;
mod check;
pub mod config;
pub mod diagram;
pub mod end;
pub mod game;
pub mod hash;
mod legal;
mod movegen;
pub mod notation;
pub mod openings;
pub mod perft;
pub mod position;
pub mod record;
pub mod ruleset;
pub mod types;
pub mod values;
pub mod variant;

pub use config::{ConfigError, VariantSpec};
pub use end::{EndPolicy, Ending, GameEnd};
pub use game::{Game, MoveRefused, Outcome, Termination};
pub use notation::ParseError;
pub use openings::{format_opening, parse_openings, Opening, OpeningsError};
pub use position::{Piece, Position, Undo};
pub use record::{Record, ResultMismatch};
pub use ruleset::{RuleDifference, RuleSet, RuleSetError};
pub use types::{Color, Move, Square};
pub use variant::{PieceType, Variant};

/// The version of `RULES.md` these rules implement (v1.2: at most one Prince a side, §4).
pub const RULES_VERSION: &str = "1.2";
