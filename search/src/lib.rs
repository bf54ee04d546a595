//! Search for tengu over the `Evaluator` trait: the one search driver (a search per root,
//! whose leaves the caller evaluates in batches: self-play with hundreds, the
//! single-position search with one), the tree, PUCT selection, the Gumbel root, root noise
//! and root move ranking, leaf evaluation with the capture-only exchange search, what a
//! move may cost (`Limits`, `Stop`), and the players (random, greedy, alpha-beta, raw
//! policy, MCTS) that the arena, the XBoard engine, terminal play and the book builder
//! share. Self-play's game loop around the driver lives in `tengu-selfplay`.

pub mod config;
pub mod driver;
pub mod exchange;
pub mod gumbel;
pub mod leaf;
pub mod mate;
pub mod noise;
pub mod players;
pub mod root_ranking;
pub mod search;
pub mod selection;
pub mod teacher;
pub mod tree;

pub use config::{LeafMaterial, RootSelection, SearchConfig};
