//! `tengu selfplay`: a self-play worker on a run directory.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{Context, Result};
use tengu_selfplay::worker::{self, WorkerOptions};

use crate::args::SelfplayArgs;

/// Ctrl-C and SIGTERM set the returned flag (the second Ctrl-C exits at once); the first
/// says that the worker writes its finished games.
pub fn stop_flag() -> Result<Arc<AtomicBool>> {
    super::stop_flag("writing finished games")
}

/// A worker on an object-store run without `--config` plays the run's own configuration,
/// which the trainer publishes when it starts: wait for it rather than play the defaults.
fn wait_for_config(store: &tengu_store::RunStore) -> Result<()> {
    let mut said = false;
    while !store.exists(tengu_store::layout::CONFIG)? {
        if !said {
            tracing::info!(
                "waiting for {} (the trainer publishes it; or give --config)",
                store.address_of(tengu_store::layout::CONFIG)
            );
            said = true;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    Ok(())
}

pub fn run(args: SelfplayArgs) -> Result<()> {
    let location = tengu_store::Location::parse(&args.run)?;
    if args.config.is_none() && matches!(location, tengu_store::Location::Url(_)) {
        // A backend this machine lacks is named before the wait, not after it.
        if let Some(name) = args.backend.as_deref() {
            let backend: tengu_model::Backend = name.parse().map_err(anyhow::Error::msg)?;
            backend
                .check()
                .with_context(|| format!("--backend {name}"))?;
        }
        // Opening an object store creates nothing.
        wait_for_config(&tengu_store::RunStore::at(location)?)?;
    }
    // Everything is checked before the run is opened: a refused command creates nothing.
    let setup = super::setup::prepare_run(
        &args.run,
        args.config.as_deref(),
        args.backend.as_deref(),
        super::setup::Role::Worker,
    )?;
    let store = setup.open()?;
    let (config, backend, variant) = (setup.config, setup.backend, setup.variant);
    tengu_model::encoder::set_encode_threads(config.network.encode_threads);
    let seed = args.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        t ^ ((std::process::id() as u64) << 32)
    });
    let options = WorkerOptions {
        run: store,
        variant,
        backend,
        search: config.search.clone(),
        selfplay: config.selfplay.clone(),
        seed,
        max_games: args.games,
        stop: stop_flag()?,
    };
    tracing::info!(run = %args.run, game = %config.game, %backend, seed, "self-play worker starting");
    let bar = crate::cmd::spinner(args.quiet);
    let mut last_games = u64::MAX;
    let summary = worker::run(&options, &mut |p| {
        let positions_per_second = p.moves as f64 / p.seconds.max(1e-9);
        let labels = if p.labels > 0 {
            format!(
                ", {} teacher labels ({:.0}% of the time)",
                p.labels,
                100.0 * p.label_seconds / p.seconds.max(1e-9)
            )
        } else {
            String::new()
        };
        bar.set_message(format!(
            "{} games, {} positions ({:.1}/s), avg {:.0} plies, {} shards{labels}, model {}",
            p.games, p.moves, positions_per_second, p.average_game_plies, p.shards, p.model
        ));
        bar.tick();
        if p.games != last_games && args.quiet {
            tracing::debug!(games = p.games, positions = p.moves, "progress");
        }
        last_games = p.games;
    })?;
    bar.finish_and_clear();
    tracing::info!(
        games = summary.games,
        rows = summary.rows,
        shards = summary.shards,
        positions_per_second = summary.moves as f64 / summary.seconds.max(1e-9),
        false_resignations = summary.false_resignations,
        resignation_checks = summary.resignation_checks,
        teacher_labels = summary.labels,
        teacher_seconds = format!("{:.1}", summary.label_seconds),
        "self-play worker stopped"
    );
    Ok(())
}
