//! A training run around the trainer: `tengu run`'s supervisor (`supervise`), which starts
//! the self-play workers and the trainer (`tengu train` or the PyTorch one) on one run
//! directory and evaluates each new checkpoint with its `[arena]` settings (`config`); the
//! run's ratings, tactics-suite and compute-ladder records (`records`); and `curves.svg`,
//! drawn from them and the trainer's loss log (`curves`).

pub mod config;
pub mod curves;
pub mod records;
pub mod supervise;

pub use config::ArenaConfig;
