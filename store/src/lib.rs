//! Run locations: everything a run reads and writes goes through [`RunStore`], so a run
//! lives in a local directory, on a shared filesystem (`file://`) or in an object store
//! (`s3://`, `gs://`, `az://`; `memory://` for tests) alike.
//!
//! The rules that make many machines safe on one run (see `layout`):
//! - every object is written once under a unique name, except the few derived files of a
//!   single writer (the trainer's log, curves, its heartbeat);
//! - a checkpoint is committed by its manifest, written after the weights; readers ignore
//!   checkpoints without one and verify the weights' SHA-256 ([`checkpoint`]);
//! - one trainer per run, fenced by put-if-absent leases ([`lease`]);
//! - listings are incremental (`list_after`), never per training step.

pub mod atomic;
pub mod checkpoint;
pub mod cpu;
mod error;
pub mod framed;
pub mod layout;
pub mod lease;
mod location;
pub mod requests;
mod store;

pub use error::StoreError;
pub use location::Location;
pub use store::{Entry, RequestCounts, RunStore};
