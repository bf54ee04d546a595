//! The worker plays with the newest checkpoint of its run directory.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tengu_model::checkpoint::CheckpointMeta;
use tengu_model::desc::NetConfig;
use tengu_model::{Backend, Encoder, ENCODER_VERSION};
use tengu_rules::Variant;
use tengu_search::SearchConfig;
use tengu_selfplay::worker::{self, WorkerOptions};
use tengu_selfplay::SelfplayConfig;
use tengu_store::RunStore;

fn store(run: &std::path::Path) -> RunStore {
    RunStore::open(&run.display().to_string()).unwrap()
}

/// Headers of the run's shards, oldest first.
fn headers(run: &std::path::Path) -> Vec<tengu_shard::ShardHeader> {
    let s = store(run);
    tengu_shard::list_run(&s)
        .unwrap()
        .iter()
        .map(|e| tengu_shard::fetch(&s, &e.key).unwrap().0)
        .collect()
}

/// Publishes `trainer`'s weights as the run's checkpoint `step` (a manifest commits it).
fn publish(run: &std::path::Path, trainer: &dyn tengu_model::Trainer, meta: &CheckpointMeta) {
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("w.safetensors");
    trainer.save(meta, &file).unwrap();
    tengu_store::checkpoint::publish_file(&store(run), meta.step, &file).unwrap();
}

fn options(run: &std::path::Path, games: u64) -> WorkerOptions {
    WorkerOptions {
        run: store(run),
        variant: Variant::dai_dai(),
        backend: Backend::Burn,
        search: SearchConfig {
            visits: 4,
            ..SearchConfig::default()
        },
        selfplay: SelfplayConfig {
            games_in_flight: 2,
            cheap_visits: 2,
            max_plies: 12,
            rows_per_shard: 1000,
            ..SelfplayConfig::default()
        },
        seed: 5,
        max_games: Some(games),
        stop: Arc::new(AtomicBool::new(false)),
    }
}

#[test]
fn plays_uniform_before_the_first_checkpoint_then_the_newest_one() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path();
    let first = worker::run(&options(run, 2), &mut |_| {}).unwrap();
    assert_eq!(first.games, 2);
    let shards = headers(run);
    assert_eq!(shards.len(), 1);
    assert_eq!(shards[0].model, "uniform");

    let variant = Variant::dai_dai();
    let enc = Encoder::new(&variant);
    let config = NetConfig::preset("tiny", enc.planes(), enc.size()).unwrap();
    for step in [10u64, 20] {
        let meta = CheckpointMeta {
            encoder_version: ENCODER_VERSION,
            game: "dai-dai".into(),
            config: config.clone(),
            step,
            parent: None,
        };
        let fresh = Backend::Burn
            .trainer(&variant, &config, None, 1e-3, 0.0)
            .unwrap();
        publish(run, fresh.as_ref(), &meta);
    }
    // Weights without a manifest (a trainer killed mid-publication) are never used.
    std::fs::write(
        run.join(tengu_store::layout::weights_key(30)),
        b"not committed",
    )
    .unwrap();
    let second = worker::run(&options(run, 2), &mut |_| {}).unwrap();
    assert_eq!(second.model, tengu_store::layout::weights_name(20));
    let models: Vec<String> = headers(run).into_iter().map(|h| h.model).collect();
    assert!(
        models.contains(&"model-000000020.safetensors".to_string()),
        "{models:?}"
    );
}

#[test]
fn a_checkpoint_published_mid_run_is_used_for_new_games_without_draining() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path();
    let variant = Variant::dai_dai();
    let enc = Encoder::new(&variant);
    let config = NetConfig::preset("tiny", enc.planes(), enc.size()).unwrap();
    let mut opts = options(run, 8);
    opts.selfplay.games_in_flight = 3;
    opts.selfplay.checkpoint_poll_seconds = 0.0;
    opts.selfplay.rows_per_shard = 1;
    let mut published = false;
    let mut in_flight_when_published = 0;
    let done = worker::run(&opts, &mut |p| {
        if !published && p.games >= 1 {
            let meta = CheckpointMeta {
                encoder_version: ENCODER_VERSION,
                game: "dai-dai".into(),
                config: config.clone(),
                step: 7,
                parent: None,
            };
            let fresh = Backend::Burn
                .trainer(&variant, &config, None, 1e-3, 0.0)
                .unwrap();
            publish(run, fresh.as_ref(), &meta);
            published = true;
            in_flight_when_published = p.games;
            // Past the worker's shortest polling interval (0.1 s).
            std::thread::sleep(std::time::Duration::from_millis(150));
        }
    })
    .unwrap();
    assert_eq!(done.games, 8);
    assert!(in_flight_when_published < 8);
    let mut by_model = std::collections::BTreeMap::new();
    for h in headers(run) {
        *by_model.entry(h.model).or_insert(0) += h.games;
    }
    // Games begun before the checkpoint finished with the uniform evaluator, later ones used it.
    assert!(
        by_model.get("uniform").is_some_and(|&g| g >= 1),
        "{by_model:?}"
    );
    assert!(
        by_model
            .get("model-000000007.safetensors")
            .is_some_and(|&g| g >= 1),
        "{by_model:?}"
    );
    assert_eq!(by_model.values().sum::<u32>(), 8);
}
