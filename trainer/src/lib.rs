//! The trainer: a sliding window of the newest replay shards, sampled into batches for the
//! backend's training step, with checkpoints published into the run directory; its `[train]`
//! settings, the loss log it writes with the record types every run file shares (`records`,
//! `log`), and the PyTorch trainer's command line (`python`). The run around it (`tengu
//! run`'s supervisor, the other records, the curves) is `tengu-run`.

pub mod config;
pub mod log;
pub mod python;
pub mod records;
pub mod train;
pub mod window;

pub use config::{TrainConfig, TrainEngine};
