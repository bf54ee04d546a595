//! Self-play for tengu: many games in flight over `tengu-search`'s tree, their leaves
//! evaluated in one batch, and the self-play worker that writes their rows as replay shards
//! (`tengu-shard`) into a run (`tengu-store`).

pub mod config;
pub mod live;
pub mod openings;
pub mod play;
pub mod records;
pub mod worker;

pub use config::SelfplayConfig;
pub use play::{FinishedGame, InFlight, SelfPlay};
