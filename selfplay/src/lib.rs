//! Self-play for tengu: PUCT search over the `Evaluator` trait with many games in flight,
//! replay shards, the run-directory layout and the self-play worker.

pub mod arena;
pub mod config;
pub mod cpu;
pub mod exchange;
pub mod mcts;
pub mod openings;
pub mod play;
pub mod search;
pub mod shard;
pub mod worker;

pub use config::{LeafMaterial, RootSelection, SearchConfig, SelfplayConfig};
pub use play::{FinishedGame, SelfPlay};
pub use shard::{Row, ShardError, ShardHeader};
