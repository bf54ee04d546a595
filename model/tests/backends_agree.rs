//! burn and tch compute the same function from the same checkpoint (tch is inference only:
//! GPUs train with PyTorch).
//! Runs with `--features cuda` (libtorch from scripts/install-libtorch.sh); on CPU libtorch
//! everywhere, and on CUDA too when a GPU is present.
#![cfg(feature = "cuda")]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use tengu_model::burn_eval::BurnEvaluator;
use tengu_model::checkpoint::{self, CheckpointMeta};
use tengu_model::desc::NetConfig;
use tengu_model::tch_net::{TchEvaluator, TchInference, TchNet};
use tengu_model::{Encoder, Evaluation, Evaluator, ENCODER_VERSION};
use tengu_rules::{Position, Variant};

use common::agreement;

/// Evaluations of `ps` in one batch (they must succeed).
fn evaluate(eval: &mut dyn Evaluator, ps: &[Position]) -> Vec<Evaluation> {
    agreement::evaluate(eval, ps).unwrap()
}

/// A short pseudo-random game: the initial position and the positions after each move.
fn positions(variant: &Arc<Variant>, count: usize, seed: usize) -> Vec<Position> {
    let mut pos = Position::initial(variant.clone());
    let mut out = vec![pos.clone()];
    let mut k = seed;
    while out.len() < count {
        let moves = pos.legal_move_list();
        k = k.wrapping_mul(2654435761).wrapping_add(12345);
        pos.play(moves[(k >> 7) % moves.len()]);
        out.push(pos.clone());
    }
    out
}

fn preset(variant: &Variant, name: &str) -> NetConfig {
    let enc = Encoder::new(variant);
    NetConfig::preset(name, enc.planes(), enc.size()).unwrap()
}

fn temp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengu-backends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn meta(variant: &Variant, config: &NetConfig) -> CheckpointMeta {
    CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: variant.id().into(),
        config: config.clone(),
        step: 0,
        parent: None,
    }
}

/// Largest absolute difference over every policy and WDL probability.
fn max_difference(a: &[Evaluation], b: &[Evaluation]) -> f32 {
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
            worst = worst.max((p - q).abs());
        }
    }
    worst
}

fn tch_devices() -> Vec<tch::Device> {
    let mut v = vec![tch::Device::Cpu];
    if tch::Cuda::is_available() {
        v.push(tch::Device::Cuda(0));
    }
    v
}

#[test]
fn a_burn_checkpoint_evaluates_the_same_in_tch() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let device = Device::default();
        let config = preset(&variant, "b2c16");
        let net = config.init(&device);
        let path = temp_file(&format!("burn-{}.safetensors", variant.id()));
        checkpoint::save(&net, &meta(&variant, &config), &path).unwrap();
        // Positions deep enough to have captures, promoted pieces and many moves.
        let mut ps = positions(&variant, 40, 3);
        ps.drain(1..30);
        let mut burn_eval = BurnEvaluator::new(&variant, net, config.clone(), device, "burn");
        let expected = evaluate(&mut burn_eval, &ps);
        for dev in tch_devices() {
            let (tnet, loaded) = TchNet::load(&path, variant.id(), dev).unwrap();
            assert_eq!(loaded.config, config);
            let got = evaluate(&mut TchEvaluator::new(&variant, tnet, false, "tch"), &ps);
            let diff = max_difference(&expected, &got);
            eprintln!(
                "{} burn vs tch on {dev:?}: max |difference| {diff:.2e}",
                variant.id()
            );
            // f32 on both sides; CUDA may use TF32 convolutions, hence the wider bound there.
            let bound = if dev == tch::Device::Cpu { 1e-4 } else { 5e-3 };
            assert!(diff < bound, "{} on {dev:?}: {diff}", variant.id());
        }
    }
}

#[test]
fn parallel_encoding_and_the_reused_host_buffer_change_no_evaluation() {
    let variant = Variant::dai_dai();
    let config = preset(&variant, "b2c16");
    let path = temp_file("encode-threads.safetensors");
    TchNet::new(&config, tch::Device::Cpu)
        .save(&meta(&variant, &config), &path)
        .unwrap();
    let load = || {
        let (net, _) = TchNet::load(&path, variant.id(), tch::Device::Cpu).unwrap();
        TchEvaluator::new(&variant, net, false, "tch")
    };
    // 48 positions: 4 threads of 12 each (a thread takes at least 8).
    let ps = positions(&variant, 48, 5);
    tengu_model::encoder::set_encode_threads(1);
    let one_thread = evaluate(&mut load(), &ps);
    tengu_model::encoder::set_encode_threads(4);
    let mut eval = load();
    let four_threads = evaluate(&mut eval, &ps);
    // A smaller batch reuses the first rows of the larger one's host buffer, which must be
    // cleared of the planes left there.
    let tail = evaluate(&mut eval, &ps[40..]);
    tengu_model::encoder::set_encode_threads(1);
    assert_eq!(max_difference(&one_thread, &four_threads), 0.0);
    let diff = max_difference(&one_thread[40..], &tail);
    assert!(diff < 1e-5, "{diff}");
}

#[test]
fn the_gpu_inference_features_change_no_evaluation_beyond_their_precision() {
    // Every feature a GPU evaluator turns on, run here on CPU libtorch: NHWC strides and
    // batches padded for cuDNN's timed shapes change nothing but float order; bf16
    // weights round to bf16's 8 significant bits.
    let variant = Variant::dai_dai();
    let config = preset(&variant, "b2c16");
    let path = temp_file("inference-features.safetensors");
    TchNet::new(&config, tch::Device::Cpu)
        .save(&meta(&variant, &config), &path)
        .unwrap();
    let load = |bf16: bool, inference: &str| {
        let (net, _) = TchNet::load(&path, variant.id(), tch::Device::Cpu).unwrap();
        let inference = TchInference::parse(inference).unwrap();
        TchEvaluator::with_inference(&variant, net, bf16, inference, "tch")
    };
    // 37 positions: padded to 64 rows with cuDNN benchmarking.
    let ps = positions(&variant, 37, 9);
    let plain = evaluate(&mut load(false, ""), &ps);
    let mut fast = load(false, "channels-last,cudnn-benchmark");
    let diff = max_difference(&plain, &evaluate(&mut fast, &ps));
    assert!(diff < 1e-5, "channels-last and padding: {diff}");
    // A smaller batch after a larger one: the padding rows are zeros, not old planes.
    let diff = max_difference(&plain[30..], &evaluate(&mut fast, &ps[30..]));
    assert!(diff < 1e-5, "a smaller padded batch: {diff}");
    let bf16 = evaluate(
        &mut load(true, "bf16-weights,channels-last,cudnn-benchmark"),
        &ps,
    );
    let diff = max_difference(&plain, &bf16);
    eprintln!("bf16 weights on the CPU: max |difference| {diff:.2e}");
    assert!(diff > 0.0, "bf16 weights computed in f32");
    assert!(diff < 5e-2, "bf16 weights: {diff}");
    assert!(TchInference::parse("bf16-weights,nhwc").is_err());
}

#[test]
fn a_tch_checkpoint_evaluates_the_same_in_burn() {
    let variant = Variant::dai_dai();
    let config = preset(&variant, "b4c32");
    let tnet = TchNet::new(&config, tch::Device::Cpu);
    let path = temp_file("tch.safetensors");
    tnet.save(&meta(&variant, &config), &path).unwrap();
    assert_eq!(
        checkpoint::read_meta(&path).unwrap(),
        meta(&variant, &config)
    );
    let ps = positions(&variant, 12, 11);
    let expected = evaluate(&mut TchEvaluator::new(&variant, tnet, false, "tch"), &ps);
    let device = Device::default();
    let (net, _) = checkpoint::load(&path, variant.id(), &device).unwrap();
    let got = evaluate(
        &mut BurnEvaluator::new(&variant, net, config, device, "burn"),
        &ps,
    );
    let diff = max_difference(&expected, &got);
    eprintln!("tch vs burn: max |difference| {diff:.2e}");
    assert!(diff < 1e-4, "{diff}");
}

#[test]
fn tch_refuses_a_checkpoint_of_the_other_game() {
    let variant = Variant::maka_dai_dai();
    let config = preset(&variant, "b2c16");
    let path = temp_file("mdd.safetensors");
    TchNet::new(&config, tch::Device::Cpu)
        .save(&meta(&variant, &config), &path)
        .unwrap();
    let e = TchNet::load(&path, "dai-dai", tch::Device::Cpu)
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("mdd.safetensors"), "{e}");
}

#[test]
fn bf16_evaluation_stays_close_to_f32() {
    if !tch::Cuda::is_available() {
        eprintln!("no CUDA device: bf16 comparison skipped");
        return;
    }
    let variant = Variant::dai_dai();
    let config = preset(&variant, "b4c32");
    let path = temp_file("bf16.safetensors");
    TchNet::new(&config, tch::Device::Cpu)
        .save(&meta(&variant, &config), &path)
        .unwrap();
    let ps = positions(&variant, 16, 5);
    let load = || {
        TchNet::load(&path, variant.id(), tch::Device::Cuda(0))
            .unwrap()
            .0
    };
    let f32_out = evaluate(&mut TchEvaluator::new(&variant, load(), false, "f32"), &ps);
    let bf16_out = evaluate(&mut TchEvaluator::new(&variant, load(), true, "bf16"), &ps);
    let diff = max_difference(&f32_out, &bf16_out);
    eprintln!("bf16 vs f32 on CUDA: max |difference| {diff:.2e}");
    assert!(diff < 0.05, "{diff}");
}
