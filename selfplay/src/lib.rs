//! Self-play for tengu: many games in flight over `tengu-search`'s tree, their leaves
//! evaluated in one batch, replay shards, the run-directory layout and the self-play worker.

pub mod config;
pub mod cpu;
pub mod openings;
pub mod play;
pub mod shard;
pub mod worker;

pub use config::SelfplayConfig;
pub use play::{FinishedGame, SelfPlay};
pub use shard::{Row, ShardError, ShardHeader};
