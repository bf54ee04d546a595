//! The worker plays with the newest checkpoint of its run directory.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tengu_model::checkpoint::CheckpointMeta;
use tengu_model::net::NetConfig;
use tengu_model::{Backend, Encoder, ENCODER_VERSION};
use tengu_rules::Variant;
use tengu_selfplay::worker::{self, WorkerOptions};
use tengu_selfplay::{run_dir, shard, SearchConfig, SelfplayConfig};

fn options(run: &std::path::Path, games: u64) -> WorkerOptions {
    WorkerOptions {
        run: run.to_path_buf(),
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
    let shards = shard::list(&run_dir::shards(run)).unwrap();
    assert_eq!(shards.len(), 1);
    assert_eq!(shard::read_header(&shards[0]).unwrap().model, "uniform");

    let variant = Variant::dai_dai();
    let enc = Encoder::new(&variant);
    let config = NetConfig::preset("tiny", enc.planes(), enc.size()).unwrap();
    std::fs::create_dir_all(run_dir::models(run)).unwrap();
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
        fresh
            .save(
                &meta,
                &run_dir::models(run).join(run_dir::checkpoint_name(step)),
            )
            .unwrap();
    }
    let second = worker::run(&options(run, 2), &mut |_| {}).unwrap();
    assert_eq!(second.model, run_dir::checkpoint_name(20));
    let models: Vec<String> = shard::list(&run_dir::shards(run))
        .unwrap()
        .iter()
        .map(|s| shard::read_header(s).unwrap().model)
        .collect();
    assert!(
        models.contains(&"model-000000020.safetensors".to_string()),
        "{models:?}"
    );
}
