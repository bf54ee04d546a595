//! The loop end to end on a tiny scale: self-play shards -> training -> checkpoints that
//! predict held-out self-play better than the first one -> workers pick them up; and a
//! trainer stopped and started again continues from its last step. The first test runs on
//! an in-memory object store (`memory://`), the second on local directories: both go
//! through the same `RunStore`.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tengu_model::desc::HeadId;
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::SearchConfig;
use tengu_selfplay::worker::{self, WorkerOptions};
use tengu_selfplay::SelfplayConfig;
use tengu_store::checkpoint::{self as published, CheckpointCache};
use tengu_store::{layout, RunStore};
use tengu_trainer::train::{self, policy_loss, TrainOptions};
use tengu_trainer::window::Example;
use tengu_trainer::TrainConfig;

fn open(run: &str) -> RunStore {
    RunStore::open(run).unwrap()
}

/// A verified local file of checkpoint `step` of `run`.
fn checkpoint(run: &str, step: u64) -> PathBuf {
    let store = open(run);
    CheckpointCache::new(&store, 0)
        .fetch(&store, step)
        .unwrap()
        .0
}

fn committed(run: &str) -> Vec<u64> {
    published::committed(&open(run)).unwrap()
}

fn selfplay(run: &str, games: u64, seed: u64) -> worker::WorkerProgress {
    let options = WorkerOptions {
        run: open(run),
        variant: Variant::dai_dai(),
        backend: Backend::Burn,
        // No root noise: the targets then follow the step-0 network's priors through the
        // search, something a few training steps can learn (noise would be most of them).
        search: SearchConfig {
            visits: 16,
            noise_fraction: 0.0,
            ..SearchConfig::default()
        },
        selfplay: SelfplayConfig {
            games_in_flight: 8,
            cheap_visits: 4,
            full_search_share: 0.5,
            max_plies: 40,
            rows_per_shard: 200,
            ..SelfplayConfig::default()
        },
        seed,
        max_games: Some(games),
        stop: Arc::new(AtomicBool::new(false)),
    };
    worker::run(&options, &mut |_| {}).unwrap()
}

/// Trains `run` to `steps`, redrawing the curves at each checkpoint the trainer reports
/// as `tengu train` does; the checkpoints reported are those it published after step 0.
fn train_to(run: &str, steps: u64) -> train::TrainProgress {
    let before = committed(run);
    let options = TrainOptions {
        run: open(run),
        config_text: None,
        variant: Variant::dai_dai(),
        backend: Backend::Burn,
        preset: "tiny".into(),
        init: None,
        tactical_planes: true,
        material_planes: false,
        train: TrainConfig {
            batch_size: 32,
            learning_rate: 3e-3,
            warmup_steps: 10,
            min_rows: 100,
            passes_per_row: 100.0,
            steps_per_checkpoint: 50,
            poll_seconds: 0.1,
            ..TrainConfig::default()
        },
        seed: 1,
        max_steps: Some(steps),
        stop: Arc::new(AtomicBool::new(false)),
    };
    let mut reported = Vec::new();
    let mut on_publish = |p: &train::TrainProgress| {
        if p.published {
            reported.push(p.last_checkpoint.clone());
            tengu_run::curves::write(&options.run).unwrap();
        }
    };
    let done = train::run(&options, &mut on_publish).unwrap();
    on_publish(&done);
    let new: Vec<String> = committed(run)
        .into_iter()
        // A new run's step 0 is published before the first report.
        .filter(|s| *s > 0 && !before.contains(s))
        .map(layout::weights_name)
        .collect();
    assert_eq!(reported, new, "each published checkpoint is reported once");
    done
}

fn held_out_loss(checkpoint: &Path, examples: &[Example]) -> f64 {
    let (mut eval, _) = Backend::Burn
        .load_evaluator(checkpoint, &Variant::dai_dai())
        .unwrap();
    policy_loss(eval.as_mut(), examples)
        .unwrap()
        .expect("held-out rows with policy targets")
}

#[test]
fn selfplay_then_training_gives_better_checkpoints_that_workers_use() {
    let run = "memory://trainer-loop-test/runs/loop";
    // The trainer publishes its step-0 network at once; workers play with it (its priors
    // shape the searches, so the targets carry something to learn).
    assert_eq!(train_to(run, 0).step, 0);
    selfplay(run, 24, 1);
    // Hold out the games of a separate worker (another seed) with the same network.
    let holdout = "memory://trainer-loop-test/runs/holdout";
    published::publish_file(&open(holdout), 0, &checkpoint(run, 0)).unwrap();
    selfplay(holdout, 6, 99);
    let variant = Variant::dai_dai();
    let mut examples = Vec::new();
    let held = open(holdout);
    for s in tengu_shard::list_run(&held).unwrap() {
        for row in tengu_shard::fetch(&held, &s.key).unwrap().1 {
            examples.push(Example::from_row(&row, &variant).unwrap());
        }
    }

    let done = train_to(run, 150);
    assert_eq!(done.step, 150);
    assert_eq!(committed(run), [0, 50, 100, 150]);
    let first = held_out_loss(&checkpoint(run, 0), &examples);
    let last = held_out_loss(&checkpoint(run, 150), &examples);
    eprintln!("held-out policy loss: step 0 {first:.4}, step 150 {last:.4}");
    assert!(
        last < first - 0.05,
        "training lowers the held-out policy loss: {first} -> {last}"
    );

    // The worker now plays with the newest checkpoint.
    let progress = selfplay(run, 2, 3);
    assert_eq!(progress.model, layout::weights_name(150));

    // Stopped at 150 and started again: it resumes at 151, repeating and losing no step.
    train_to(run, 170);
    assert_eq!(committed(run), [0, 50, 100, 150, 170]);
    let logged: Vec<u64> = loss_log(run).iter().map(|r| r.step).collect();
    assert_eq!(logged, (1..=170).collect::<Vec<_>>());
    let meta = tengu_model::checkpoint::read_meta(&checkpoint(run, 170)).unwrap();
    assert_eq!(meta.parent.as_deref(), Some("model-000000150.safetensors"));
    // The curves are drawn as a picture beside the data (at the checkpoints reported).
    let svg = open(run).get_text("curves.svg").unwrap().unwrap();
    // Four loss rows (policy, value, ownership, material) against four x axes, each with
    // its train line; held-out lines beside them where held-out games exist.
    assert!(
        svg.starts_with("<svg")
            && svg.matches("<polyline").count() >= 16
            && svg.contains("self-play games")
            && svg.contains("CPU hours"),
        "{svg}"
    );
}

/// The run's loss log through the typed reader (a line that is not a whole record fails).
fn loss_log(run: &str) -> Vec<tengu_trainer::records::LossRecord> {
    let text = tengu_trainer::log::read(&open(run)).unwrap();
    tengu_trainer::records::read_lines(run, &text).unwrap()
}

fn losses(run: &str) -> Vec<(u64, f64, f64)> {
    loss_log(run)
        .iter()
        .map(|r| {
            (
                r.step,
                r.policy_loss.unwrap(),
                r.heads.step(HeadId::Value).unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_restarted_trainer_continues_exactly_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    let (a, b) = (&a_dir.display().to_string(), &b_dir.display().to_string());
    let (a_dir, b_dir): (&Path, &Path) = (&a_dir, &b_dir);
    // The same data and the same step-0 network for both runs.
    assert_eq!(train_to(a, 0).step, 0);
    selfplay(a, 12, 4);
    for sub in ["models", "shards"] {
        std::fs::create_dir_all(b_dir.join(sub)).unwrap();
        for entry in std::fs::read_dir(a_dir.join(sub)).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, b_dir.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    train_to(a, 40);
    train_to(b, 20);
    let manifest = published::manifest(&open(b), 20).unwrap();
    assert!(
        manifest.optimizer.is_some() && b_dir.join(layout::optimizer_key(20)).exists(),
        "optimizer state saved with the checkpoint"
    );
    train_to(b, 40);
    let (la, lb) = (losses(a), losses(b));
    assert_eq!(la.len(), 40);
    assert_eq!(lb.len(), 40);
    for (x, y) in la.iter().zip(&lb) {
        assert_eq!(x.0, y.0);
        assert!(
            (x.1 - y.1).abs() < 1e-5 && (x.2 - y.2).abs() < 1e-5,
            "step {}: {x:?} vs {y:?}",
            x.0
        );
    }
}
