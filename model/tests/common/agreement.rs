//! Checking that an evaluator computes burn's function: a sharply trained checkpoint,
//! positions to evaluate, and the distance between two sets of evaluations.
// Each test crate that includes `common` uses only part of this module.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use tengu_model::burn_eval::BurnTrainer;
use tengu_model::checkpoint::{self, CheckpointMeta};
use tengu_model::desc::NetConfig;
use tengu_model::{Encoder, EvalError, EvalInput, Evaluation, Evaluator, ENCODER_VERSION};
use tengu_rules::{Move, Position, Variant};

use super::{examples, one_hot_targets, row_targets};

/// `count` positions of a pseudo-random game, all but the first `count - skip` sampled
/// sparsely from deeper plies (captures, promotions, long move lists).
pub fn game_positions(variant: &Arc<Variant>, count: usize, skip: usize) -> Vec<Position> {
    let mut pos = Position::initial(variant.clone());
    let mut out = Vec::new();
    let mut k = 7usize;
    while out.len() < count {
        let moves = pos.legal_move_list();
        if moves.is_empty() {
            pos = Position::initial(variant.clone());
            continue;
        }
        k = k.wrapping_mul(2654435761).wrapping_add(12345);
        pos.play(moves[(k >> 7) % moves.len()]);
        if k.is_multiple_of(3) || out.len() + skip < count {
            out.push(pos.clone());
        }
    }
    out
}

/// The evaluations of `ps` (with their legal moves) in one batch.
pub fn evaluate(eval: &mut dyn Evaluator, ps: &[Position]) -> Result<Vec<Evaluation>, EvalError> {
    let moves: Vec<Vec<Move>> = ps.iter().map(|p| p.legal_move_list()).collect();
    let inputs: Vec<EvalInput> = ps
        .iter()
        .zip(&moves)
        .map(|(p, m)| EvalInput {
            position: p,
            moves: m,
            repetitions: 0,
        })
        .collect();
    eval.evaluate(&inputs)
}

/// Largest difference of log-probabilities (so of logits up to a constant: small
/// probabilities count as much as large ones), WDL included, and of the material output
/// and the judge's correction.
pub fn max_log_difference(a: &[Evaluation], b: &[Evaluation]) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut worst = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.policy.len(), y.policy.len());
        for (p, q) in x
            .policy
            .iter()
            .zip(&y.policy)
            .chain(x.wdl.iter().zip(&y.wdl))
        {
            worst = worst.max((p.ln() - q.ln()).abs());
        }
        worst = worst.max((x.material - y.material).abs());
        worst = worst.max((x.residual - y.residual).abs());
    }
    worst
}

/// Largest log-ratio of a position's most to least probable move: near 0 for a network
/// that is still near uniform.
pub fn logit_spread(evaluations: &[Evaluation]) -> f32 {
    evaluations
        .iter()
        .map(|e| {
            let max = e.policy.iter().copied().fold(0.0f32, f32::max);
            let min = e.policy.iter().copied().fold(1.0f32, f32::min);
            (max / min).ln()
        })
        .fold(0.0f32, f32::max)
}

/// A b2c16 network trained 15 sharp steps on `ps` (so logits are far from uniform and
/// every head matters), saved as a checkpoint in a temporary folder named after `tag`.
pub fn trained_checkpoint(
    variant: &Arc<Variant>,
    ps: &[Position],
    tag: &str,
) -> (PathBuf, CheckpointMeta) {
    let encoder = Encoder::new(variant);
    let config = NetConfig::preset("b2c16", encoder.planes(), encoder.size()).unwrap();
    let device = Device::default();
    device.seed(5);
    let moves: Vec<Vec<Move>> = ps.iter().map(|p| p.legal_move_list()).collect();
    let targets = one_hot_targets(&moves);
    let row_targets = row_targets(ps.len());
    let rows = examples(ps, &moves, &targets, &row_targets);
    let mut trainer = BurnTrainer::new(variant, config.init(&device), &device, 1e-2, 0.0);
    for _ in 0..15 {
        trainer.step(&rows).unwrap();
    }
    let dir = std::env::temp_dir().join(format!("tengu-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.safetensors", variant.id()));
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: variant.id().into(),
        config,
        step: 15,
        parent: None,
    };
    checkpoint::save(&trainer.net(), &meta, &path).unwrap();
    (path, meta)
}
