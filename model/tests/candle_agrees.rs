//! candle's CPU backend (`candle` evaluator, `--features candle`) computes the function
//! burn-flex computes, from the same checkpoint, for both games, on a batch that is not a
//! multiple of any chunk size.
#![cfg(feature = "candle")]

mod common;

use std::sync::Arc;

use burn::tensor::Device;
use tengu_model::burn_eval::BurnTrainer;
use tengu_model::checkpoint::{self, CheckpointMeta};
use tengu_model::net::NetConfig;
use tengu_model::{Backend, Encoder, EvalError, EvalInput, Evaluation, Evaluator, ENCODER_VERSION};
use tengu_rules::{Move, Position, Variant};

use common::{examples, one_hot_targets};

/// Positions of a pseudo-random game from ply `skip` on (captures, promotions, long lists).
fn positions(variant: &Arc<Variant>, count: usize, skip: usize) -> Vec<Position> {
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
        if k % 3 == 0 || out.len() + skip < count {
            out.push(pos.clone());
        }
    }
    out
}

fn evaluate(eval: &mut dyn Evaluator, ps: &[Position]) -> Result<Vec<Evaluation>, EvalError> {
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
/// probabilities count as much as large ones), WDL included, and of the material output.
fn max_log_difference(a: &[Evaluation], b: &[Evaluation]) -> f32 {
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
    }
    worst
}

#[test]
fn candle_agrees_with_burn_flex_from_one_checkpoint() {
    assert!(Backend::Candle.compiled());
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let encoder = Encoder::new(&variant);
        let config = NetConfig::preset("b2c16", encoder.planes(), encoder.size()).unwrap();
        let device = Device::default();
        device.seed(5);
        // A few sharp training steps, so logits are far from uniform and every head matters.
        // 11 positions: a multiple of no chunk size (the CPU kernels' 4 included).
        let ps = positions(&variant, 11, 20);
        let moves: Vec<Vec<Move>> = ps.iter().map(|p| p.legal_move_list()).collect();
        let targets = one_hot_targets(&moves);
        let rows = examples(&ps, &moves, &targets);
        let mut trainer = BurnTrainer::new(&variant, config.init(&device), &device, 1e-2, 0.0);
        for _ in 0..15 {
            trainer.step(&rows).unwrap();
        }
        let dir = std::env::temp_dir().join(format!("tengu-candle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.safetensors", variant.id()));
        let meta = CheckpointMeta {
            encoder_version: ENCODER_VERSION,
            game: variant.id().into(),
            config: config.clone(),
            step: 15,
            parent: None,
        };
        checkpoint::save(&trainer.net(), &meta, &path).unwrap();

        let (mut reference, _) = Backend::BurnFlex.load_evaluator(&path, &variant).unwrap();
        let (mut candle, loaded) = Backend::Candle.load_evaluator(&path, &variant).unwrap();
        assert_eq!(loaded, meta);
        let expected = evaluate(reference.as_mut(), &ps).unwrap();
        let got = evaluate(candle.as_mut(), &ps).unwrap();
        let spread = expected
            .iter()
            .map(|e| {
                let max = e.policy.iter().copied().fold(0.0f32, f32::max);
                let min = e.policy.iter().copied().fold(1.0f32, f32::min);
                (max / min).ln()
            })
            .fold(0.0f32, f32::max);
        let diff = max_log_difference(&expected, &got);
        eprintln!(
            "{}: logit spread {spread:.2}, max |log-probability difference| {diff:.2e}",
            variant.id()
        );
        assert!(spread > 1.0, "the trained network is still near uniform");
        assert!(diff < 1e-3, "{}: {diff}", variant.id());
        // One position at a time and an odd slice: the batch does not change a result.
        let single = evaluate(candle.as_mut(), &ps[..1]).unwrap();
        assert!(max_log_difference(&single, &got[..1]) < 1e-5);
        let part = evaluate(candle.as_mut(), &ps[4..9]).unwrap();
        assert!(max_log_difference(&part, &got[4..9]) < 1e-5);
        assert!(evaluate(candle.as_mut(), &[]).unwrap().is_empty());
        std::fs::remove_file(&path).ok();
    }
}

#[test]
fn candle_refuses_another_games_positions() {
    let dai = Variant::dai_dai();
    let encoder = Encoder::new(&dai);
    let config = NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
    let mut eval = Backend::Candle
        .new_evaluator(&dai, &config, "candle tiny")
        .unwrap();
    let maka = positions(&Variant::maka_dai_dai(), 2, 0);
    assert!(matches!(
        evaluate(eval.as_mut(), &maka),
        Err(EvalError::WrongGame { .. })
    ));
}
