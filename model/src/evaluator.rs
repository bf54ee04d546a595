//! The interface search talks to: batched evaluation of positions into a policy over their
//! legal moves and win/draw/loss probabilities. No network library type appears here, so
//! search and self-play depend on this trait, never on a backend.

use tengu_rules::{Move, Position};

use crate::policy::Unindexable;

/// One position to evaluate, with its legal moves (the caller has them already).
#[derive(Clone, Copy, Debug)]
pub struct EvalInput<'a> {
    pub position: &'a Position,
    /// The legal moves; the policy comes back in this order.
    pub moves: &'a [Move],
    /// Earlier occurrences of the position in the game (encoder input).
    pub repetitions: u32,
}

/// The evaluation of one position, from the side to move's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probability of each legal move, same order as [`EvalInput::moves`]; sums to 1
    /// (empty when there is no legal move).
    pub policy: Vec<f32>,
    /// Probabilities of win, draw, loss for the side to move; sum to 1.
    pub wdl: [f32; 3],
    /// Predicted material balance 16 plies later, the mover's view, as
    /// `tanh(balance / MATERIAL_SCALE)` in (-1, 1) (the material head; 0 for evaluators
    /// without one). Search may add it to the value ([`crate::desc::MATERIAL_SCALE`]).
    pub material: f32,
    /// The judge's learned correction to the search leaf's exchange count, on its logit
    /// scale: the leaf's material term becomes `tanh((balance + exchange gain) /
    /// MATERIAL_SCALE + residual)` (search's `residual_utility` weighs it); trained toward a
    /// deeper search's score (`tengu_search::teacher`). 0 for evaluators without the head
    /// and for an untrained network (its last layer starts at zero).
    pub residual: f32,
}

impl Evaluation {
    /// Expected score in [-1, 1]: win - loss.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// A backend this build or machine cannot run (see [`crate::backend::Backend::check`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The backend's cargo feature was not built in.
    #[error("backend {backend} is not in this build: it needs tengu built with `--features {feature}` (see docs/gpu.md)")]
    NotBuilt {
        backend: &'static str,
        feature: &'static str,
    },
    /// A CUDA backend on a machine where libtorch sees no CUDA device.
    #[error("backend {backend}: libtorch sees no CUDA device (on a GPU machine, source scripts/libtorch-env.sh first)")]
    NoDevice { backend: &'static str },
    /// A backend that evaluates but does not train: the Rust trainer runs on tengu's CPU
    /// kernels, GPUs train with PyTorch (`python -m tengu.train`).
    #[error("backend {backend} has no Rust trainer: `tengu train` trains on tengu's CPU kernels (backends burn, burn-flex, candle); on GPUs set train.engine = \"python\" (PyTorch, docs/gpu.md)")]
    NoTrainer { backend: &'static str },
}

/// Why an evaluation failed, or an evaluator could not be built.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("position of {found} given to an evaluator for {expected}")]
    WrongGame { expected: String, found: String },
    /// A legal move whose capture pattern the policy index does not cover.
    #[error(transparent)]
    Unindexable(#[from] Unindexable),
    /// The network's layers do not match its own architecture ([`crate::desc::NetConfig`]):
    /// weights of another network.
    #[error("the network's layers do not fit its architecture: {0}")]
    Architecture(String),
    /// The tensor library failed (a conversion, a thread pool, a device error).
    #[error("evaluation backend failed: {0}")]
    Backend(String),
    /// The backend cannot run in this build or on this machine.
    #[error(transparent)]
    Unavailable(#[from] BackendError),
}

/// Batched position evaluation.
pub trait Evaluator: Send {
    /// Short description for logs (e.g. `uniform`, `burn b6c64 step 1200`).
    fn name(&self) -> String;

    /// Evaluates a batch; the result has one [`Evaluation`] per input, in order.
    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError>;

    /// Seconds spent so far in each stage of evaluation, for evaluators that measure it
    /// (`tengu bench nn --profile`); empty otherwise.
    fn profile(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// One batch row as the network backends' encoders take it: the position, its legal moves
/// and the earlier occurrences of the position.
pub type EncoderRow<'a> = (&'a Position, &'a [Move], u32);

/// The opening every network backend's [`Evaluator::evaluate`] shares: `None` for an empty
/// batch (nothing to run), else the batch, checked to be of `game` ([`check_game`]), as
/// encoder rows.
pub fn checked_rows<'a>(
    game: &str,
    batch: &[EvalInput<'a>],
) -> Result<Option<Vec<EncoderRow<'a>>>, EvalError> {
    if batch.is_empty() {
        return Ok(None);
    }
    check_game(game, batch)?;
    Ok(Some(
        batch
            .iter()
            .map(|i| (i.position, i.moves, i.repetitions))
            .collect(),
    ))
}

/// Refuses a batch with a position of another game than `game`.
pub fn check_game(game: &str, batch: &[EvalInput<'_>]) -> Result<(), EvalError> {
    for input in batch {
        if input.position.variant().id() != game {
            return Err(EvalError::WrongGame {
                expected: game.into(),
                found: input.position.variant().id().into(),
            });
        }
    }
    Ok(())
}

/// Evaluations from a network's raw outputs: `logits [B, m]` over each position's legal
/// moves (the first `counts[i]` of row `i` are real) and `wdl [B, 3]` logits; both softmaxed.
/// `material`: `[B, 2]` row-major (the material head's two horizons; the first is used);
/// `residual`: `[B]` (the judge's correction; empty: 0).
pub fn evaluations_from_logits(
    logits: &[f32],
    m: usize,
    counts: &[usize],
    wdl: &[f32],
    material: &[f32],
    residual: &[f32],
) -> Vec<Evaluation> {
    (0..counts.len())
        .map(|i| {
            let mut policy = logits[i * m..i * m + counts[i]].to_vec();
            softmax_in_place(&mut policy);
            let mut w = [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]];
            softmax_in_place(&mut w);
            Evaluation {
                policy,
                wdl: w,
                material: material.get(2 * i).copied().unwrap_or(0.0),
                residual: residual.get(i).copied().unwrap_or(0.0),
            }
        })
        .collect()
}

/// Softmax of `logits` in place (numerically stable); leaves an empty slice alone.
pub fn softmax_in_place(logits: &mut [f32]) {
    let Some(max) = logits.iter().copied().reduce(f32::max) else {
        return;
    };
    let mut sum = 0.0;
    for x in logits.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in logits.iter_mut() {
        *x /= sum;
    }
}

/// Every legal move equally likely, value a draw: the evaluator of the first self-play
/// generation and a baseline for search tests.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn name(&self) -> String {
        "uniform".into()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|input| {
                let n = input.moves.len();
                Evaluation {
                    policy: vec![1.0 / n as f32; n],
                    wdl: [0.0, 1.0, 0.0],
                    material: 0.0,
                    residual: 0.0,
                }
            })
            .collect())
    }
}

/// Random policy and value from a seeded generator (deterministic for a seed and a
/// sequence of calls): exercises search code paths a uniform evaluator never reaches.
#[derive(Clone, Debug)]
pub struct RandomEvaluator {
    state: u64,
}

impl RandomEvaluator {
    pub fn new(seed: u64) -> RandomEvaluator {
        RandomEvaluator {
            state: seed ^ 0x2545_F491_4F6C_DD1D,
        }
    }

    /// A uniform float in [0, 1) (xorshift64*).
    fn next(&mut self) -> f32 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl Evaluator for RandomEvaluator {
    fn name(&self) -> String {
        "random".into()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|input| {
                let mut policy: Vec<f32> =
                    (0..input.moves.len()).map(|_| 3.0 * self.next()).collect();
                softmax_in_place(&mut policy);
                let mut wdl = [self.next() + 0.01, self.next() + 0.01, self.next() + 0.01];
                let sum: f32 = wdl.iter().sum();
                wdl.iter_mut().for_each(|x| *x /= sum);
                Evaluation {
                    policy,
                    wdl,
                    material: 0.0,
                    residual: 0.0,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Variant;

    #[test]
    fn evaluators_return_distributions_over_legal_moves() {
        let pos = Position::initial(Variant::dai_dai());
        let moves = pos.legal_move_list();
        let input = EvalInput {
            position: &pos,
            moves: &moves,
            repetitions: 0,
        };
        let mut evaluators: Vec<Box<dyn Evaluator>> = vec![
            Box::new(UniformEvaluator),
            Box::new(RandomEvaluator::new(3)),
        ];
        for e in evaluators.iter_mut() {
            let out = e.evaluate(&[input, input]).unwrap();
            assert_eq!(out.len(), 2);
            for ev in out {
                assert_eq!(ev.policy.len(), 59);
                assert!(
                    (ev.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4,
                    "{}",
                    e.name()
                );
                assert!((ev.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                assert!(ev.policy.iter().all(|&p| p > 0.0));
            }
        }
        let a = RandomEvaluator::new(5).evaluate(&[input]).unwrap();
        let b = RandomEvaluator::new(5).evaluate(&[input]).unwrap();
        assert_eq!(a, b, "seeded");
    }

    #[test]
    fn softmax_is_stable() {
        let mut x = [1000.0, 1000.0, -1000.0];
        softmax_in_place(&mut x);
        assert!((x[0] - 0.5).abs() < 1e-6 && x[2] == 0.0);
        let mut empty: [f32; 0] = [];
        softmax_in_place(&mut empty);
    }
}
