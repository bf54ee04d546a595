//! The arena: matches with paired openings, Elo (per game and per game pair) and SPRT, a
//! match's outcome from one side's view (the summary every report and record holds), the
//! match report (`tengu match --json`) and the invocation that asks for it, tournaments
//! with fitted ratings, the compute ladder's report, the tactics suite, and the calibration
//! of material adjudication on games played out. The players are
//! `tengu_search::players`.

pub mod calibrate;
pub mod elo;
pub mod ladder;
pub mod matches;
pub mod outcome;
pub mod pairs;
pub mod report;
pub mod results;
pub mod suite;
pub mod tournament;
