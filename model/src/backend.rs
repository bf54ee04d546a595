//! Backends chosen by name, so that search, the trainer and the CLI never name burn or tch.
//!
//! * `burn`: the pure-Rust default (always built): evaluation by tengu's own CPU kernels
//!   ([`crate::cpu_eval`], about 3x burn-flex's forward);
//! * `burn-flex`: evaluation through burn-flex (the reference the CPU kernels are checked
//!   against);
//! * `candle`: evaluation through candle's CPU backend ([`crate::candle_eval`], for
//!   comparison), in builds with the `candle` feature;
//! * `tch-cpu`, `tch-cuda`, `tch-cuda-bf16`: libtorch inference, in builds with the `cuda`
//!   feature (`tch-cuda-bf16` runs inference under bfloat16 autocast).
//!
//! Training runs on two engines, as KataGo's and lc0's do: tengu's CPU kernels
//! ([`crate::cpu_train`], the one Rust [`Trainer`], whatever CPU backend evaluates) and
//! PyTorch on GPUs (`python -m tengu.train`, the Python package). The tch backends have no
//! trainer ([`BackendError::NoTrainer`]); burn's autodiff stays as the test oracle of the
//! CPU kernels' hand-derived gradients ([`crate::burn_eval::BurnTrainer`]).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use tengu_rules::Variant;

use crate::burn_eval::BurnEvaluator;
use crate::checkpoint::{self, CheckpointError, CheckpointMeta};
use crate::cpu_eval::CpuEvaluator;
use crate::cpu_train::{CpuTrainer, OptimizerStateError};
use crate::desc::{LossWeights, Losses, NetConfig, TrainExample};
use crate::encoder::Encoder;
use crate::evaluator::{BackendError, EvalError, Evaluator};

/// Where networks run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Burn,
    BurnFlex,
    Candle,
    TchCpu,
    TchCuda,
    TchCudaBf16,
}

impl Backend {
    pub const NAMES: [&'static str; 6] = [
        "burn",
        "burn-flex",
        "candle",
        "tch-cpu",
        "tch-cuda",
        "tch-cuda-bf16",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Burn => "burn",
            Backend::BurnFlex => "burn-flex",
            Backend::Candle => "candle",
            Backend::TchCpu => "tch-cpu",
            Backend::TchCuda => "tch-cuda",
            Backend::TchCudaBf16 => "tch-cuda-bf16",
        }
    }

    /// Whether this build can run the backend at all (tch needs the `cuda` feature, candle
    /// the `candle` feature).
    // With a feature on, clippy sees `true` arms and asks for `matches!`; the arms are per feature.
    #[allow(clippy::match_like_matches_macro)]
    pub fn compiled(self) -> bool {
        match self {
            Backend::Burn | Backend::BurnFlex => true,
            Backend::Candle => cfg!(feature = "candle"),
            _ => cfg!(feature = "cuda"),
        }
    }

    /// The error of a backend this build lacks ([`Backend::compiled`] is false).
    fn unavailable(self) -> BackendError {
        BackendError::NotBuilt {
            backend: self.name(),
            feature: if self == Backend::Candle {
                "candle"
            } else {
                "cuda"
            },
        }
    }

    /// Whether this build and machine can run the backend: its feature is built in, and a
    /// CUDA backend sees a device. Commands check this before they start anything.
    pub fn check(self) -> Result<(), BackendError> {
        if !self.compiled() {
            return Err(self.unavailable());
        }
        #[cfg(feature = "cuda")]
        if matches!(
            self,
            Backend::TchCpu | Backend::TchCuda | Backend::TchCudaBf16
        ) {
            self.tch_device()?;
        }
        Ok(())
    }

    #[cfg(feature = "cuda")]
    fn tch_device(self) -> Result<tch::Device, BackendError> {
        if self == Backend::TchCpu {
            return Ok(tch::Device::Cpu);
        }
        if !tch::Cuda::is_available() {
            return Err(BackendError::NoDevice {
                backend: self.name(),
            });
        }
        Ok(tch::Device::Cuda(0))
    }

    /// A freshly initialised network as an evaluator.
    pub fn new_evaluator(
        self,
        variant: &Variant,
        config: &NetConfig,
        label: &str,
    ) -> Result<Box<dyn Evaluator>, EvalError> {
        match self {
            Backend::Burn => {
                let device = burn::tensor::Device::default();
                let net = config.init(&device);
                Ok(Box::new(CpuEvaluator::new(variant, &net, config, label)?))
            }
            Backend::BurnFlex => {
                let device = burn::tensor::Device::default();
                Ok(Box::new(BurnEvaluator::new(
                    variant,
                    config.init(&device),
                    config.clone(),
                    device,
                    label,
                )))
            }
            #[cfg(feature = "candle")]
            Backend::Candle => {
                use crate::candle_eval::CandleEvaluator;
                let device = burn::tensor::Device::default();
                let net = config.init(&device);
                Ok(Box::new(CandleEvaluator::new(
                    variant, &net, config, label,
                )?))
            }
            #[cfg(not(feature = "candle"))]
            Backend::Candle => Err(self.unavailable().into()),
            #[cfg(feature = "cuda")]
            _ => {
                use crate::tch_net::{TchEvaluator, TchNet};
                let net = TchNet::new(config, self.tch_device()?);
                Ok(Box::new(TchEvaluator::new(
                    variant,
                    net,
                    self == Backend::TchCudaBf16,
                    label,
                )))
            }
            #[cfg(not(feature = "cuda"))]
            _ => Err(self.unavailable().into()),
        }
    }

    /// The network of a checkpoint as an evaluator, with the checkpoint's metadata.
    pub fn load_evaluator(
        self,
        path: &Path,
        variant: &Variant,
    ) -> Result<(Box<dyn Evaluator>, CheckpointMeta), CheckpointError> {
        // A backend this build or machine lacks is the cause, whatever the file holds.
        self.check()?;
        check_planes(path, variant)?;
        let label = |meta: &CheckpointMeta| {
            format!(
                "{} step {}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                meta.step
            )
        };
        match self {
            Backend::Burn => {
                let device = burn::tensor::Device::default();
                let (net, meta) = checkpoint::load(path, variant.id(), &device)?;
                let eval = CpuEvaluator::new(variant, &net, &meta.config, label(&meta))
                    .map_err(|e| CheckpointError::of_evaluator(path, e))?;
                Ok((Box::new(eval), meta))
            }
            Backend::BurnFlex => {
                let device = burn::tensor::Device::default();
                let (net, meta) = checkpoint::load(path, variant.id(), &device)?;
                let eval =
                    BurnEvaluator::new(variant, net, meta.config.clone(), device, label(&meta));
                Ok((Box::new(eval), meta))
            }
            #[cfg(feature = "candle")]
            Backend::Candle => {
                use crate::candle_eval::CandleEvaluator;
                let device = burn::tensor::Device::default();
                let (net, meta) = checkpoint::load(path, variant.id(), &device)?;
                let eval = CandleEvaluator::new(variant, &net, &meta.config, label(&meta))
                    .map_err(|e| CheckpointError::of_evaluator(path, e))?;
                Ok((Box::new(eval), meta))
            }
            #[cfg(not(feature = "candle"))]
            Backend::Candle => Err(self.unavailable().into()),
            #[cfg(feature = "cuda")]
            _ => {
                use crate::tch_net::{TchEvaluator, TchNet};
                let device = self.tch_device()?;
                let stored = checkpoint::read_meta_for(path, variant.id())?;
                let other = checkpoint::OtherRules::of(path, &stored, variant.id())?;
                let (net, meta) = match &other {
                    // Another layout of input planes: tch reads files, so it reads the
                    // network as burn maps it, written to a temporary file.
                    Some(o) if o.planes.is_some() => {
                        let cpu = burn::tensor::Device::default();
                        let (mapped, meta) = checkpoint::load(path, variant.id(), &cpu)?;
                        static LOADS: std::sync::atomic::AtomicUsize =
                            std::sync::atomic::AtomicUsize::new(0);
                        let n = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let tmp = std::env::temp_dir().join(format!(
                            "tengu-{}-{n}-step-{}.safetensors",
                            std::process::id(),
                            stored.step
                        ));
                        let as_playing = CheckpointMeta {
                            game: variant.id().into(),
                            ..meta.clone()
                        };
                        checkpoint::save(&mapped, &as_playing, &tmp)?;
                        let loaded = TchNet::load(&tmp, variant.id(), device);
                        let _ = std::fs::remove_file(&tmp);
                        (loaded?.0, meta)
                    }
                    _ => {
                        if let Some(o) = &other {
                            o.warn_once();
                        }
                        TchNet::load(path, variant.id(), device)?
                    }
                };
                let eval =
                    TchEvaluator::new(variant, net, self == Backend::TchCudaBf16, label(&meta));
                Ok((Box::new(eval), meta))
            }
            #[cfg(not(feature = "cuda"))]
            _ => Err(self.unavailable().into()),
        }
    }

    /// Whether `tengu train` can train with this backend: the CPU backends train on
    /// tengu's CPU kernels; the tch backends have no Rust trainer (GPUs train with PyTorch).
    /// Commands check this before they write anything.
    pub fn check_trainer(self) -> Result<(), BackendError> {
        // Whatever the build: a tch backend never trains.
        match self {
            Backend::Burn | Backend::BurnFlex | Backend::Candle => self.check(),
            _ => Err(BackendError::NoTrainer {
                backend: self.name(),
            }),
        }
    }

    /// The trainer (AdamW on tengu's CPU kernels) for `config`, starting from `checkpoint`
    /// if given, else fresh weights; [`BackendError::NoTrainer`] for the tch backends.
    pub fn trainer(
        self,
        variant: &Variant,
        config: &NetConfig,
        checkpoint: Option<&Path>,
        learning_rate: f64,
        weight_decay: f64,
    ) -> Result<Box<dyn Trainer>, CheckpointError> {
        self.check_trainer()?;
        if let Some(path) = checkpoint {
            check_planes(path, variant)?;
        }
        let trainer = match checkpoint {
            Some(path) => {
                CpuTrainer::from_checkpoint(variant, path, learning_rate, weight_decay as f32)?
            }
            None => {
                let net = config.init(&burn::tensor::Device::default());
                CpuTrainer::new(variant, &net, config, learning_rate, weight_decay as f32).map_err(
                    |e| CheckpointError::Weights {
                        path: "(new network)".into(),
                        problem: e.to_string(),
                    },
                )?
            }
        };
        Ok(Box::new(trainer))
    }
}

/// Refuses a checkpoint of another game or encoder version, or whose input planes fit no
/// encoder layout of `variant` (read from its header alone; a checkpoint of another rule set
/// of the game is checked against its own rules' layouts and read in `variant`'s, see
/// [`checkpoint::OtherRules`]).
pub fn check_planes(path: &Path, variant: &Variant) -> Result<(), CheckpointError> {
    let meta = checkpoint::read_meta_for(path, variant.id())?;
    let planes = match checkpoint::OtherRules::of(path, &meta, variant.id())? {
        Some(other) => other.planes_under(meta.config.planes),
        None => meta.config.planes,
    };
    Encoder::for_planes(variant, planes)
        .map(|_| ())
        .map_err(|source| CheckpointError::Planes {
            path: path.display().to_string(),
            source,
        })
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend name that is none of [`Backend::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend {name:?}; expected one of {}", Backend::NAMES.join(", "))]
pub struct UnknownBackend {
    pub name: String,
}

impl FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Backend, UnknownBackend> {
        match s {
            "burn" => Ok(Backend::Burn),
            "burn-flex" => Ok(Backend::BurnFlex),
            "candle" => Ok(Backend::Candle),
            "tch-cpu" => Ok(Backend::TchCpu),
            "tch-cuda" => Ok(Backend::TchCuda),
            "tch-cuda-bf16" => Ok(Backend::TchCudaBf16),
            other => Err(UnknownBackend { name: other.into() }),
        }
    }
}

/// A network being trained, whatever the backend.
pub trait Trainer {
    /// One optimizer step on `batch`; returns the losses before the step.
    fn step(&mut self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError>;
    /// The losses of the current weights on `batch`, without a step (held-out data).
    fn losses(&self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError>;
    fn set_learning_rate(&mut self, learning_rate: f64);
    /// Weights of the auxiliary losses (ownership, material).
    fn set_loss_weights(&mut self, weights: LossWeights);
    /// Writes the current weights as a checkpoint (atomically).
    fn save(&self, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError>;
    /// Writes the optimizer state (atomically), so a restart continues exactly.
    fn save_optimizer(&self, path: &Path) -> Result<(), OptimizerStateError>;
    /// Restores optimizer state written by `save_optimizer`.
    fn load_optimizer(&mut self, path: &Path) -> Result<(), OptimizerStateError>;
    /// Seconds spent per stage of the steps so far, `(stage, seconds)` in the order the
    /// stages first ran; empty for trainers that do not measure it.
    fn profile(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// Writes through `tengu_store::atomic` (a hidden temporary name, synced, then renamed).
fn atomically(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), OptimizerStateError>,
) -> Result<(), OptimizerStateError> {
    tengu_store::atomic::write_atomic_with(path, write, |e| OptimizerStateError::io(path, e))
}

impl Trainer for CpuTrainer {
    fn step(&mut self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        CpuTrainer::step(self, batch)
    }

    fn losses(&self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        CpuTrainer::losses(self, batch)
    }

    fn set_learning_rate(&mut self, learning_rate: f64) {
        self.learning_rate = learning_rate;
    }

    fn set_loss_weights(&mut self, weights: LossWeights) {
        self.weights = weights;
    }

    fn save(&self, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError> {
        CpuTrainer::save(self, meta, path)
    }

    fn save_optimizer(&self, path: &Path) -> Result<(), OptimizerStateError> {
        atomically(path, |tmp| CpuTrainer::save_optimizer(self, tmp))
    }

    fn load_optimizer(&mut self, path: &Path) -> Result<(), OptimizerStateError> {
        CpuTrainer::load_optimizer(self, path)
    }

    fn profile(&self) -> Vec<(&'static str, f64)> {
        self.profile.seconds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in Backend::NAMES {
            let backend: Backend = name.parse().unwrap();
            assert_eq!(backend.name(), name);
        }
        assert!("candel".parse::<Backend>().is_err());
    }

    #[cfg(not(feature = "candle"))]
    #[test]
    fn candle_without_the_feature_says_so() {
        let variant = Variant::dai_dai();
        let encoder = Encoder::new(&variant);
        let config = NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
        assert!(!Backend::Candle.compiled());
        let Err(e) = Backend::Candle.new_evaluator(&variant, &config, "candle") else {
            panic!("candle evaluated without the feature");
        };
        assert!(e.to_string().contains("--features candle"), "{e}");
        let Err(e) = Backend::Candle.trainer(&variant, &config, None, 1e-3, 0.0) else {
            panic!("candle trained without the feature");
        };
        assert!(e.to_string().contains("--features candle"), "{e}");
    }

    #[test]
    fn the_tch_backends_have_no_trainer_whatever_the_build() {
        let variant = Variant::dai_dai();
        let encoder = Encoder::new(&variant);
        let config = NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
        for backend in [Backend::TchCpu, Backend::TchCuda, Backend::TchCudaBf16] {
            let want = BackendError::NoTrainer {
                backend: backend.name(),
            };
            assert_eq!(backend.check_trainer(), Err(want.clone()));
            let Err(e) = backend.trainer(&variant, &config, None, 1e-3, 0.0) else {
                panic!("{backend} trained");
            };
            assert!(
                matches!(&e, CheckpointError::Backend(b) if *b == want),
                "{backend}: {e}"
            );
            assert!(e.to_string().contains("train.engine = \"python\""), "{e}");
        }
        assert_eq!(Backend::Burn.check_trainer(), Ok(()));
        assert_eq!(Backend::BurnFlex.check_trainer(), Ok(()));
    }
}
