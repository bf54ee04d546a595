//! The arena: matches with paired openings, Elo (per game and per game pair) and SPRT, a
//! match's outcome from one side's view (the summary every report and record holds), the
//! match report (`tengu match --json`) and the invocation that asks for it, tournaments
//! with fitted ratings, the compute ladder's report, the tactics suite, and the calibration
//! of material adjudication on games played out. The players are
//! `tengu_search::players`.
//!
//! A short match of Dai Dai Shogi, the greedy player against the random one: one pair of
//! games from the same two random opening plies, each side playing both colours, capped at
//! 40 plies and adjudicated on material there; then its outcome from the greedy player's
//! view, as `tengu match --json` reports it:
//!
//! ```
//! use tengu_arena::elo::{elo_from_score, score_from_elo};
//! use tengu_arena::matches::{self, MatchOptions};
//! use tengu_arena::outcome::MatchOutcome;
//! use tengu_rules::{EndPolicy, Variant};
//! use tengu_search::players::{GreedyPlayer, RandomPlayer};
//!
//! let variant = Variant::dai_dai();
//! let options = MatchOptions {
//!     variant: variant.clone(),
//!     games: 2,
//!     opening_plies: 2,
//!     openings: None,
//!     end: EndPolicy::capped_at(40, Some(1.5)),
//!     seed: 7,
//!     out: None, // keep no results file or game records
//!     sprt: None,
//! };
//! let (mut greedy, mut random) = (GreedyPlayer::new(&variant, 1), RandomPlayer::new(2));
//! let summary = matches::run(&mut greedy, &mut random, &options, &mut |_, _| {})
//!     .expect("the match is played");
//! assert_eq!(summary.results.len(), 2);
//! assert_ne!(summary.results[0].a_is_black, summary.results[1].a_is_black);
//! assert!(summary.results.iter().all(|game| game.plies <= 40));
//!
//! let outcome = MatchOutcome::new(&summary);
//! let counts = outcome.counts.expect("a new outcome keeps its counts");
//! assert_eq!((outcome.games, counts.games()), (2, 2));
//! assert_eq!(outcome.score, counts.mean());
//! println!("greedy vs random: {}", outcome.counts_text());
//! let json = serde_json::to_value(&outcome).unwrap();
//! assert_eq!(json["games"], 2);
//!
//! // The Elo model: an even score is 0 Elo; 75% is about +191.
//! assert_eq!(elo_from_score(0.5), 0.0);
//! assert!((elo_from_score(0.75) - 190.8).abs() < 0.1);
//! assert!((score_from_elo(elo_from_score(0.75)) - 0.75).abs() < 1e-9);
//! ```

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
