//! The arena: players, matches with paired openings, Elo and SPRT.

pub mod elo;
pub mod matches;
pub mod players;
pub mod suite;
pub mod tournament;
