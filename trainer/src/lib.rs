//! The trainer: a sliding window of the newest replay shards, sampled into batches for the
//! backend's training step, with checkpoints published into the run directory; its `[train]`
//! settings and `tengu run`'s supervisor with its `[arena]` settings, which starts this
//! trainer or the PyTorch one (`python`).

pub mod config;
pub mod curves;
pub mod log;
pub mod python;
pub mod records;
pub mod supervise;
pub mod train;
pub mod window;

pub use config::{TrainConfig, TrainEngine};
