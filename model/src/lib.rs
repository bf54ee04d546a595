//! The model side of tengu: the one versioned encoder (position -> input planes) and the
//! policy index (legal move <-> policy slot), the network description every backend reads
//! ([`desc`]), and the networks and evaluators built on these.
//!
//! Modules in dependency order (each imports only modules above it):
//! * [`desc`]: architecture, presets, plane and code counts, head sizes, weight names,
//!   training example and losses;
//! * [`encoder`] (planes), then [`policy`] (move <-> slot);
//! * [`evaluator`]: the `Evaluator` trait search talks to, its errors, uniform and random;
//! * [`net`]: the burn network; [`checkpoint`]: safetensors with metadata;
//! * backends: [`cpu_net`] and [`cpu_eval`] (tengu's CPU kernels), [`burn_eval`]
//!   (burn-flex, and training), `candle_eval` (`candle` feature), `tch_net` (`cuda`);
//! * [`backend`]: backends chosen by name, and the `Trainer` trait.

pub mod backend;
pub mod burn_eval;
#[cfg(feature = "candle")]
pub mod candle_eval;
pub mod checkpoint;
pub mod cpu_eval;
pub mod cpu_net;
pub mod cpu_train;
pub mod desc;
pub mod encoder;
pub mod evaluator;
pub mod net;
pub mod policy;
#[cfg(feature = "cuda")]
pub mod tch_net;

pub use backend::{Backend, Trainer};
pub use desc::{LossWeights, Losses, NetConfig, TrainExample};
pub use encoder::{Encoder, ENCODER_VERSION};
pub use evaluator::{
    BackendError, EvalError, EvalInput, Evaluation, Evaluator, RandomEvaluator, UniformEvaluator,
};
pub use policy::{PolicyIndex, PolicySlot};
