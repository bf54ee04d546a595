//! tengu's CPU training kernels (`cpu_train`) against burn-flex's autodiff (`BurnTrainer`):
//! the same losses, the same gradients and the same weights after AdamW steps, checkpoints
//! that every evaluator loads, and an optimizer state that resumes exactly.

#[allow(dead_code)]
mod common;

use burn::tensor::Device;
use tengu_model::burn_eval::BurnTrainer;
use tengu_model::checkpoint::{self, CheckpointMeta};
use tengu_model::cpu_train::CpuTrainer;
use tengu_model::desc::{HeadId, LossWeights, NetConfig, RowTargets, TrainExample, HEADS};
use tengu_model::{Backend, Encoder, ENCODER_VERSION};
use tengu_rules::{Move, Position, Variant};

use common::agreement::game_positions;

/// `(name, values)` of every parameter, in checkpoint order.
type Named = Vec<(String, Vec<f32>)>;

fn named(trainer: &CpuTrainer) -> Named {
    trainer
        .tensors()
        .into_iter()
        .map(|(name, _, v)| (name, v))
        .collect()
}

/// The largest `|a - b|` over every parameter, relative to `scale + max |b|` of that
/// parameter; names must agree.
fn worst_difference(a: &Named, b: &Named, scale: f32) -> (f32, String) {
    assert_eq!(a.len(), b.len());
    let mut worst = (0.0f32, String::new());
    for ((na, va), (nb, vb)) in a.iter().zip(b) {
        assert_eq!(na, nb);
        assert_eq!(va.len(), vb.len(), "{na}");
        let size = vb.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for (x, y) in va.iter().zip(vb) {
            assert!(x.is_finite(), "{na}: {x}");
            let d = (x - y).abs() / (scale + size);
            if d > worst.0 {
                worst = (d, na.clone());
            }
        }
    }
    worst
}

/// The absolute floor of gradient comparisons: a thousandth of the largest gradient. A
/// bias whose gradient is a sum that cancels (the code bias of plain moves: the softmax's
/// gradient sums to zero over the moves) is float noise in both backends.
fn gradient_floor(grads: &Named) -> f32 {
    1e-3 * grads
        .iter()
        .flat_map(|(_, v)| v)
        .fold(0.0f32, |m, v| m.max(v.abs()))
}

/// A varied batch of `count` rows: one-hot and spread policy targets, a row without a
/// policy target, rows with and without ownership targets, mixed WDL targets.
struct Rows {
    positions: Vec<Position>,
    moves: Vec<Vec<Move>>,
    policy: Vec<Vec<f32>>,
    targets: Vec<RowTargets>,
}

impl Rows {
    fn new(variant: &std::sync::Arc<Variant>, count: usize) -> Rows {
        let positions = game_positions(variant, count, 2);
        let moves: Vec<Vec<Move>> = positions.iter().map(|p| p.legal_move_list()).collect();
        let policy = moves
            .iter()
            .enumerate()
            .map(|(i, m)| match i % 3 {
                0 => (0..m.len())
                    .map(|j| if j == (7 * i) % m.len() { 1.0 } else { 0.0 })
                    .collect(),
                1 => vec![1.0 / m.len() as f32; m.len()],
                _ => vec![0.0; m.len()],
            })
            .collect();
        let area = variant.size() * variant.size();
        let ownership: Vec<Vec<u8>> = (0..count)
            .map(|i| {
                if i % 4 == 3 {
                    Vec::new()
                } else {
                    (0..2 * area).map(|s| ((s * 7 + i) % 3) as u8).collect()
                }
            })
            .collect();
        let targets = ownership
            .into_iter()
            .enumerate()
            .map(|(i, ownership)| {
                let mut targets = RowTargets {
                    wdl: [[1.0, 0.0, 0.0], [0.2, 0.5, 0.3], [0.0, 0.0, 1.0]][i % 3],
                    ownership,
                    material: [0.3 - 0.1 * i as f32, -0.2 + 0.05 * i as f32],
                    // Rows with and without teacher labels.
                    teacher: (i % 3 != 1).then_some([0.4 - 0.15 * i as f32, -0.5 + 0.2 * i as f32]),
                    // The targets of heads added later.
                    ..RowTargets::default()
                };
                // A head whose target the row has but left at zero (one added later) gets
                // a target of its own, so that its loss and gradient are not zero.
                for (k, head) in HEADS.iter().enumerate() {
                    let len = head.target_len(area);
                    let zero = targets.values(head.target).iter().all(|&v| v == 0.0);
                    if !head.has_class_target() && targets.has(head, area) && zero {
                        let values: Vec<f32> = (0..len)
                            .map(|j| 0.6 - 0.13 * ((i + 2 * j + 3 * k) % 9) as f32)
                            .collect();
                        targets.set_values(head.target, &values);
                    }
                }
                targets
            })
            .collect();
        Rows {
            positions,
            moves,
            policy,
            targets,
        }
    }

    fn examples(&self) -> Vec<TrainExample<'_>> {
        (0..self.positions.len())
            .map(|i| TrainExample {
                position: &self.positions[i],
                repetitions: (i % 2) as u32,
                moves: &self.moves[i],
                policy: &self.policy[i],
                targets: &self.targets[i],
            })
            .collect()
    }
}

fn config(variant: &Variant, preset: &str) -> NetConfig {
    let encoder = Encoder::new(variant);
    NetConfig::preset(preset, encoder.planes(), encoder.size()).unwrap()
}

#[test]
fn one_step_matches_burn_losses_gradients_and_weights() {
    let variant = Variant::dai_dai();
    // 6 rows: one chunk of the convolutions is full, the second is not.
    let rows = Rows::new(&variant, 6);
    let batch = rows.examples();
    let config = config(&variant, "b2c16");
    let device = Device::default();
    let net = config.init(&device);
    let (lr, wd) = (2e-3, 1e-2);
    // Every head's weight away from 1 (ownership 0.7, material 1.3, the judge 1.9, ...).
    let weights = LossWeights::with(
        tengu_model::desc::weight_keys()
            .into_iter()
            .zip([0.7, 1.3, 1.9, 1.1, 0.6, 1.5, 0.9, 1.7]),
    )
    .unwrap();
    let mut burn = BurnTrainer::new(&variant, net.clone(), &device, lr, wd as f32);
    burn.weights = weights;
    let mut ours = CpuTrainer::new(&variant, &net, &config, lr, wd as f32).unwrap();
    ours.weights = weights;
    assert_eq!(
        worst_difference(
            &named(&ours),
            &named(&CpuTrainer::new(&variant, &burn.net(), &config, lr, 0.0).unwrap()),
            0.0
        )
        .0,
        0.0
    );

    // Losses and gradients of the same weights.
    let (burn_losses, burn_grads) = burn.gradients(&batch).unwrap();
    let burn_grads = named(&CpuTrainer::new(&variant, &burn_grads, &config, lr, 0.0).unwrap());
    let (losses, grads) = ours.gradients(&batch).unwrap();
    let heads = tengu_model::desc::HEADS
        .iter()
        .map(|h| (h.loss_name, losses.of_head(h.id), burn_losses.of_head(h.id)));
    for (what, a, b) in [("policy", losses.policy, burn_losses.policy)]
        .into_iter()
        .chain(heads)
    {
        assert!(a.is_finite() && a > 0.0, "{what} loss {a}");
        assert!(
            (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
            "{what} loss {a} against burn's {b}"
        );
    }
    // Every parameter gets a gradient, and the gradients agree to float rounding.
    for (name, g) in &grads {
        assert!(g.iter().any(|&v| v != 0.0), "{name} has no gradient");
    }
    // A gradient that cancels to zero (the plain-move code bias: the softmax's gradient sums
    // to zero over the moves) is float noise in both backends, whose size varies with
    // burn-flex's threading: it must be noise in ours too, and is not compared digit by digit.
    let floor = gradient_floor(&burn_grads);
    let noise = |v: &Vec<f32>| v.iter().fold(0.0f32, |m, x| m.max(x.abs())) < floor;
    let (grads, burn_grads): (Named, Named) = grads
        .into_iter()
        .zip(burn_grads)
        .filter(|((name, ours), (_, theirs))| {
            if noise(theirs) {
                assert!(
                    noise(ours),
                    "{name}: burn's gradient cancels to noise, ours does not"
                );
                false
            } else {
                true
            }
        })
        .unzip();
    let (worst, name) = worst_difference(&grads, &burn_grads, floor);
    assert!(
        worst < 1e-3,
        "gradient of {name} differs from burn's by {worst:.2e} of its size"
    );

    // Three AdamW steps (weight decay, bias correction), with the losses before each.
    for step in 0..3 {
        let b = burn.step(&batch).unwrap();
        let o = ours.step(&batch).unwrap();
        assert!(
            (o.policy - b.policy).abs() <= 1e-4 * (1.0 + b.policy.abs()),
            "step {step}: {o:?} against {b:?}"
        );
        assert!(
            (o.of_head(HeadId::Value) - b.of_head(HeadId::Value)).abs()
                <= 1e-4 * (1.0 + b.of_head(HeadId::Value).abs()),
            "step {step}: {o:?} against {b:?}"
        );
        let burn_now = named(&CpuTrainer::new(&variant, &burn.net(), &config, lr, 0.0).unwrap());
        // Each step moves a weight by up to about the learning rate, so a wrong sign shows as
        // twice that a step. AdamW divides by sqrt(v) + 1e-5, so the float noise of a
        // gradient that cancels to about 0 (the code bias above: 1e-7 or so) moves a weight
        // by a few hundredths of the learning rate a step, in either backend, and the
        // differences add up over the steps.
        let (worst, name) = worst_difference(&named(&ours), &burn_now, 1.0);
        assert!(
            worst < 0.1 * lr as f32 * (step + 1) as f32,
            "step {step}: {name} differs from burn's by {worst:.2e}"
        );
    }
    // The held-out losses of the updated weights agree too.
    let (b, o) = (burn.losses(&batch).unwrap(), ours.losses(&batch).unwrap());
    assert!(
        (o.policy - b.policy).abs() <= 1e-4 * (1.0 + b.policy.abs()),
        "{o:?} against {b:?}"
    );
    assert!(
        (o.of_head(HeadId::Ownership) - b.of_head(HeadId::Ownership)).abs()
            <= 1e-4 * (1.0 + b.of_head(HeadId::Ownership).abs()),
        "{o:?} against {b:?}"
    );
}

#[test]
fn the_cpu_preset_matches_burn_gradients() {
    // The shipped architecture (b4c32, head and value channels 16) on a batch of 5.
    let variant = Variant::dai_dai();
    let rows = Rows::new(&variant, 5);
    let batch = rows.examples();
    let config = config(&variant, "cpu");
    let device = Device::default();
    let net = config.init(&device);
    let burn = BurnTrainer::new(&variant, net.clone(), &device, 1e-3, 1e-4);
    let mut ours = CpuTrainer::new(&variant, &net, &config, 1e-3, 1e-4).unwrap();
    let (burn_losses, burn_grads) = burn.gradients(&batch).unwrap();
    let burn_grads = named(&CpuTrainer::new(&variant, &burn_grads, &config, 1e-3, 0.0).unwrap());
    let (losses, grads) = ours.gradients(&batch).unwrap();
    assert!((losses.policy - burn_losses.policy).abs() <= 1e-5 * (1.0 + burn_losses.policy));
    // A gradient that cancels to zero (the plain-move code bias: the softmax's gradient sums
    // to zero over the moves) is float noise in both backends, whose size varies with
    // burn-flex's threading: it must be noise in ours too, and is not compared digit by digit.
    let floor = gradient_floor(&burn_grads);
    let noise = |v: &Vec<f32>| v.iter().fold(0.0f32, |m, x| m.max(x.abs())) < floor;
    let (grads, burn_grads): (Named, Named) = grads
        .into_iter()
        .zip(burn_grads)
        .filter(|((name, ours), (_, theirs))| {
            if noise(theirs) {
                assert!(
                    noise(ours),
                    "{name}: burn's gradient cancels to noise, ours does not"
                );
                false
            } else {
                true
            }
        })
        .unzip();
    let (worst, name) = worst_difference(&grads, &burn_grads, floor);
    // Four blocks deep, a bias's gradient (a sum over every square of the batch that mostly
    // cancels) keeps about two and a half digits in either backend.
    assert!(
        worst < 5e-3,
        "gradient of {name} differs from burn's by {worst:.2e} of its size"
    );
}

#[test]
fn checkpoints_load_everywhere_and_the_optimizer_resumes_exactly() {
    let variant = Variant::dai_dai();
    let rows = Rows::new(&variant, 4);
    let batch = rows.examples();
    let config = config(&variant, "b2c16");
    let dir = std::env::temp_dir().join(format!("tengu-cpu-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let weights = dir.join("step1.safetensors");
    let state = dir.join("optimizer.bin");
    let mut trainer = Backend::Burn
        .trainer(&variant, &config, None, 1e-3, 1e-4)
        .unwrap();
    trainer.step(&batch).unwrap();
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: variant.id().into(),
        config: config.clone(),
        step: 1,
        parent: None,
    };
    trainer.save(&meta, &weights).unwrap();
    trainer.save_optimizer(&state).unwrap();

    // burn reads the weights back exactly, and every built-in evaluator loads them.
    let (net, read) = checkpoint::load(&weights, variant.id(), &Device::default()).unwrap();
    assert_eq!(read, meta);
    let mut reloaded = CpuTrainer::new(&variant, &net, &config, 1e-3, 1e-4).unwrap();
    let before = trainer.losses(&batch).unwrap();
    let after = reloaded.losses(&batch).unwrap();
    assert_eq!(before.policy, after.policy);
    assert_eq!(before.of_head(HeadId::Value), after.of_head(HeadId::Value));
    for backend in [Backend::Burn, Backend::BurnFlex] {
        let (mut eval, _) = backend.load_evaluator(&weights, &variant).unwrap();
        let out = common::agreement::evaluate(eval.as_mut(), &rows.positions).unwrap();
        assert_eq!(out.len(), rows.positions.len(), "{backend}");
    }

    // With the saved moments the next step is the same as the uninterrupted trainer's.
    reloaded.load_optimizer(&state).unwrap();
    let mut resumed = Backend::Burn
        .trainer(&variant, &config, Some(&weights), 1e-3, 1e-4)
        .unwrap();
    resumed.load_optimizer(&state).unwrap();
    trainer.step(&batch).unwrap();
    resumed.step(&batch).unwrap();
    let (a, b) = (dir.join("a.safetensors"), dir.join("b.safetensors"));
    trainer.save(&meta, &a).unwrap();
    resumed.save(&meta, &b).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    // A state of another format or architecture is refused by name, changing nothing.
    let other = dir.join("other.bin");
    std::fs::write(&other, b"burnpack something").unwrap();
    let e = reloaded.load_optimizer(&other).unwrap_err().to_string();
    assert!(
        e.contains("another format") && e.contains("other.bin"),
        "{e}"
    );
    let bigger_config = NetConfig::preset("b3c16", config.planes, config.size).unwrap();
    let mut bigger = CpuTrainer::new(
        &variant,
        &bigger_config.init(&Device::default()),
        &bigger_config,
        1e-3,
        0.0,
    )
    .unwrap();
    let e = bigger.load_optimizer(&state).unwrap_err().to_string();
    assert!(e.contains("parameters"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpoint_and_optimizer_state_from_before_the_judge_load_with_a_zero_correction() {
    let variant = Variant::dai_dai();
    let rows = Rows::new(&variant, 4);
    let batch = rows.examples();
    let config = config(&variant, "b2c16");
    let dir = std::env::temp_dir().join(format!("tengu-before-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut trainer = CpuTrainer::new(
        &variant,
        &config.init(&Device::default()),
        &config,
        1e-3,
        0.0,
    )
    .unwrap();
    trainer.step(&batch).unwrap();
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: variant.id().into(),
        config: config.clone(),
        step: 1,
        parent: None,
    };
    // The file an older tengu wrote: every tensor but the residual head's.
    let old: Vec<_> = trainer
        .tensors()
        .into_iter()
        .filter(|(name, _, _)| !name.starts_with("residual."))
        .collect();
    assert_eq!(old.len() + 2, trainer.tensors().len());
    let path = dir.join("old.safetensors");
    checkpoint::write_safetensors(&path, &meta, &old).unwrap();
    for backend in [Backend::Burn, Backend::BurnFlex] {
        let (mut eval, _) = backend.load_evaluator(&path, &variant).unwrap();
        let moves = rows.positions[0].legal_move_list();
        let input = tengu_model::EvalInput {
            position: &rows.positions[0],
            moves: &moves,
            repetitions: 0,
        };
        assert_eq!(
            eval.evaluate(&[input]).unwrap()[0].residual,
            0.0,
            "{backend}"
        );
    }
    // A layer other than a later head is still required.
    let missing_value: Vec<_> = old
        .iter()
        .filter(|(name, _, _)| !name.starts_with("value_fc2."))
        .cloned()
        .collect();
    let broken = dir.join("broken.safetensors");
    checkpoint::write_safetensors(&broken, &meta, &missing_value).unwrap();
    let e = checkpoint::load(&broken, variant.id(), &Device::default()).unwrap_err();
    assert!(e.to_string().contains("value_fc2"), "{e}");

    // The optimizer state of the older network: its moments load, the new head's start at
    // zero, and training goes on.
    let mut resumed = CpuTrainer::from_checkpoint(&variant, &path, 1e-3, 0.0).unwrap();
    let state = dir.join("optimizer.bin");
    trainer.save_optimizer(&state).unwrap();
    // Rewrite the file without a layer's two entries (magic, step count, parameter count,
    // then per parameter: name length, name, value count, both moments).
    let bytes = std::fs::read(&state).unwrap();
    let without = |layer: &str| {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        let mut out = bytes[..24].to_vec();
        out.extend_from_slice(&(u64_at(24) as u64 - 2).to_le_bytes());
        let mut at = 32;
        while at < bytes.len() {
            let name_len = u64_at(at);
            let name = std::str::from_utf8(&bytes[at + 8..at + 8 + name_len]).unwrap();
            let end = at + 8 + name_len + 8 + 8 * u64_at(at + 8 + name_len);
            if !name.starts_with(&format!("{layer}.")) {
                out.extend_from_slice(&bytes[at..end]);
            }
            at = end;
        }
        out
    };
    let old_state = without("residual");
    assert_eq!(
        old_state.len(),
        bytes.len() - 2 * 16 - "residual.weight".len() - "residual.bias".len() - 8 * (16 + 1)
    );
    // A state without a layer that is not a later head is refused, naming it, and the
    // moments stay as they were.
    let broken_state = dir.join("broken-optimizer.bin");
    std::fs::write(&broken_state, without("value_fc2")).unwrap();
    let (before, after) = (dir.join("before.bin"), dir.join("after.bin"));
    resumed.save_optimizer(&before).unwrap();
    let e = resumed
        .load_optimizer(&broken_state)
        .unwrap_err()
        .to_string();
    assert!(e.contains("value_fc2"), "{e}");
    resumed.save_optimizer(&after).unwrap();
    assert_eq!(
        std::fs::read(&before).unwrap(),
        std::fs::read(&after).unwrap()
    );
    std::fs::write(&state, &old_state).unwrap();
    resumed.load_optimizer(&state).unwrap();
    let losses = resumed.step(&batch).unwrap();
    assert!(
        losses.of_head(HeadId::Residual).is_finite() && losses.of_head(HeadId::Residual) > 0.0,
        "{losses:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
