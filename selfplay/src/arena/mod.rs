//! The arena: players, matches with paired openings, Elo (per game and per game pair) and
//! SPRT.

pub mod elo;
pub mod ladder;
pub mod matches;
pub mod pairs;
pub mod suite;
pub mod tournament;
