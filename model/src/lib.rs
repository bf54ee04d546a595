//! The model side of tengu: the one versioned encoder (position -> input planes) and the
//! policy index (legal move <-> policy slot). The networks and evaluators build on these.

pub mod backend;
pub mod burn_eval;
#[cfg(feature = "candle")]
pub mod candle_eval;
pub mod checkpoint;
pub mod cpu_eval;
pub mod cpu_net;
pub mod encoder;
pub mod evaluator;
pub mod net;
pub mod policy;
#[cfg(feature = "cuda")]
pub mod tch_net;

pub use backend::{Backend, Trainer};
pub use burn_eval::{LossWeights, Losses, TrainExample};
pub use encoder::{Encoder, ENCODER_VERSION};
pub use evaluator::{
    EvalError, EvalInput, Evaluation, Evaluator, RandomEvaluator, UniformEvaluator,
};
pub use policy::{PolicyIndex, PolicySlot};
