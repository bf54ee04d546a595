//! Search for tengu over the `Evaluator` trait: the tree, PUCT selection, the Gumbel root,
//! root noise and root move ranking, leaf evaluation with the capture-only exchange search,
//! what a move may cost (`Limits`, `Stop`), the single-position driver, and the players
//! (random, greedy, alpha-beta, raw policy, MCTS) that the arena, the XBoard engine,
//! terminal play and the book builder share. Self-play's batched many-games driver lives in
//! `tengu-selfplay`.

pub mod config;
pub mod exchange;
pub mod gumbel;
pub mod leaf;
pub mod noise;
pub mod players;
pub mod root_ranking;
pub mod search;
pub mod selection;
pub mod tree;

pub use config::{LeafMaterial, RootSelection, SearchConfig};
