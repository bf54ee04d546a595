//! The trainer: a sliding window of the newest replay shards, sampled into batches for the
//! backend's training step, with checkpoints published into the run directory; and the run
//! configuration shared by every process of a run.

pub mod config;
pub mod curves;
pub mod log;
pub mod supervise;
pub mod train;
pub mod window;

pub use config::{RunConfig, TrainConfig};
