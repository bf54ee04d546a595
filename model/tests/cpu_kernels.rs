//! tengu's CPU kernels (`burn` backend evaluation) compute the function burn-flex computes,
//! from the same checkpoint, for both games and batches that do not fill the last chunk.

mod common;

use std::sync::Arc;

use burn::tensor::Device;
use tengu_model::burn_eval::BurnTrainer;
use tengu_model::checkpoint::{self, CheckpointMeta};
use tengu_model::cpu_net::CHUNK;
use tengu_model::net::NetConfig;
use tengu_model::{Backend, Encoder, EvalInput, Evaluation, Evaluator, ENCODER_VERSION};
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

fn evaluate(eval: &mut dyn Evaluator, ps: &[Position]) -> Vec<Evaluation> {
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
    eval.evaluate(&inputs).unwrap()
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
fn cpu_kernels_agree_with_burn_flex_from_one_checkpoint() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let encoder = Encoder::new(&variant);
        let config = NetConfig::preset("b2c16", encoder.planes(), encoder.size()).unwrap();
        let device = Device::default();
        device.seed(5);
        // A few sharp training steps, so logits are far from uniform and every head matters.
        let ps = positions(&variant, 2 * CHUNK + 3, 20);
        let moves: Vec<Vec<Move>> = ps.iter().map(|p| p.legal_move_list()).collect();
        let targets = one_hot_targets(&moves);
        let rows = examples(&ps, &moves, &targets);
        let mut trainer = BurnTrainer::new(&variant, config.init(&device), &device, 1e-2, 0.0);
        for _ in 0..15 {
            trainer.step(&rows).unwrap();
        }
        let dir = std::env::temp_dir().join(format!("tengu-cpu-kernels-{}", std::process::id()));
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
        let (mut kernels, loaded) = Backend::Burn.load_evaluator(&path, &variant).unwrap();
        assert_eq!(loaded, meta);
        let expected = evaluate(reference.as_mut(), &ps);
        let got = evaluate(kernels.as_mut(), &ps);
        let spread = expected
            .iter()
            .flat_map(|e| {
                let max = e.policy.iter().copied().fold(0.0f32, f32::max);
                let min = e.policy.iter().copied().fold(1.0f32, f32::min);
                [(max / min).ln()]
            })
            .fold(0.0f32, f32::max);
        let diff = max_log_difference(&expected, &got);
        eprintln!(
            "{}: logit spread {spread:.2}, max |log-probability difference| {diff:.2e}",
            variant.id()
        );
        assert!(spread > 1.0, "the trained network is still near uniform");
        assert!(diff < 1e-3, "{}: {diff}", variant.id());
        // The same positions one at a time: chunking does not change a position's result.
        let single = evaluate(kernels.as_mut(), &ps[..1]);
        assert!(max_log_difference(&single, &got[..1]) < 1e-5);
        std::fs::remove_file(&path).ok();
    }
}
