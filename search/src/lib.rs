//! Search for tengu over the `Evaluator` trait: the one search driver (a search per root,
//! whose leaves the caller evaluates in batches: self-play with hundreds, the
//! single-position search with one), the tree, PUCT selection, the Gumbel root, root noise
//! and root move ranking, leaf evaluation with the capture-only exchange search, what a
//! move may cost (`Limits`, `Stop`) and what a search reports (`Thought`), classical
//! alpha-beta, and the players (random, greedy, alpha-beta, raw policy, MCTS) that the
//! arena, the XBoard engine, terminal play and the book builder share. Self-play's game
//! loop around the driver lives in `tengu-selfplay`.
//!
//! The modules from the ground up, each importing only modules before it: `mate`,
//! `exchange`, `config`, `noise`, `limits`, `thought`; `alphabeta`, `teacher` (its fixed-depth
//! search), `leaf`; `node`, `selection`, `root_ranking`, `gumbel`, `tree`; `driver`,
//! `search`; `players` on top (`tests/module_graph.rs` fails on any circle).

pub mod alphabeta;
pub mod config;
pub mod driver;
pub mod exchange;
pub mod gumbel;
pub mod leaf;
pub mod limits;
pub mod mate;
pub mod node;
pub mod noise;
pub mod players;
pub mod root_ranking;
pub mod search;
pub mod selection;
pub mod teacher;
pub mod thought;
pub mod tree;

pub use config::{LeafMaterial, RootSelection, SearchConfig};
