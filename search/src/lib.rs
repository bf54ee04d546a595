//! Search for tengu: the MCTS tree (PUCT selection, Gumbel root, noise) over the
//! `Evaluator` trait, leaf evaluation with the capture-only exchange search, what a move may
//! cost (`Limits`, `Stop`), the single-position driver, and the players (random, greedy,
//! alpha-beta, raw policy, MCTS) that the arena, the XBoard engine, terminal play and the
//! book builder share. Self-play's batched many-games driver lives in `tengu-selfplay`.

pub mod config;
pub mod exchange;
pub mod mcts;
pub mod players;
pub mod search;

pub use config::{LeafMaterial, RootSelection, SearchConfig};
