//! `tengu train`: the trainer on a run directory.

use anyhow::Result;
use tengu_trainer::train::{self, TrainOptions};

use crate::args::TrainArgs;

pub fn run(args: TrainArgs) -> Result<()> {
    // Everything is checked before the run is opened: a refused command creates nothing.
    // --config-only runs no network: the config's backend is its workers' (a CUDA one on a
    // machine without a GPU, say), so this process checks everything else against the
    // built-in CPU backend; the config's own backend name was parsed with the config.
    let backend = if args.config_only {
        Some("burn")
    } else {
        args.backend.as_deref()
    };
    let setup = super::setup::prepare_run(
        &args.run,
        args.config.as_deref(),
        backend,
        super::setup::Role::Owner,
    )?;
    if args.config_only {
        return publish_config(&setup);
    }
    // The tch backends evaluate but do not train: refused before the run is opened.
    setup.backend.check_trainer().map_err(|e| {
        anyhow::anyhow!("{e} (to give a PyTorch-trained run its config: tengu train --config-only)")
    })?;
    // The weights a new run starts from: of this game and input planes, or refused now.
    if let Some(init) = &setup.config.network.init {
        tengu_model::backend::check_planes(std::path::Path::new(init), &setup.variant)
            .map_err(|e| anyhow::anyhow!("network.init: {e}"))?;
    }
    let store = setup.open()?;
    let (config, backend, variant) = (setup.config, setup.backend, setup.variant);
    tengu_model::encoder::set_encode_threads(config.network.encode_threads);
    let options = TrainOptions {
        config_text: args.config.is_some().then(|| config.to_run_text()),
        run: store,
        variant,
        backend,
        preset: config.network.preset.clone(),
        init: config.network.init.as_ref().map(std::path::PathBuf::from),
        tactical_planes: config.network.tactical_planes,
        material_planes: config.network.material_planes,
        train: config.train.clone(),
        seed: args.seed,
        max_steps: args.max_steps,
        stop: super::stop_flag("checkpointing the last steps")?,
    };
    tracing::info!(run = %args.run, %backend, "trainer starting");
    let bar = crate::cmd::spinner(args.quiet);
    let min_rows = config.train.min_rows;
    let done = train::run(&options, &mut |p| {
        if p.published {
            redraw_curves(&options.run);
        }
        let state = if p.waiting && p.window_rows < min_rows {
            format!(
                "waiting for {} more rows (train.min_rows = {min_rows})",
                min_rows - p.window_rows
            )
        } else if p.waiting {
            "waiting for new self-play rows (train.passes_per_row)".to_string()
        } else {
            "training".to_string()
        };
        // NaN: no step has run yet (or the batch had no policy target).
        let loss = |l: f32| {
            if l.is_nan() {
                "-".to_string()
            } else {
                format!("{l:.3}")
            }
        };
        bar.set_message(format!(
            "step {}, policy loss {}, value loss {}, {:.0} samples/s, window {} rows, {state}, latest {}",
            p.step,
            loss(p.policy_loss),
            loss(p.value_loss),
            p.samples_per_second,
            p.window_rows,
            p.last_checkpoint
        ));
        bar.tick();
    })?;
    bar.finish_and_clear();
    if done.published {
        // The last checkpoint of a clean stop.
        redraw_curves(&options.run);
    }
    tracing::info!(step = done.step, checkpoint = %done.last_checkpoint, "trainer stopped");
    Ok(())
}

/// Redraws the run's `curves.svg` (from the loss log and the run's records) after a
/// checkpoint; a failure is a warning, not a stop of the training.
fn redraw_curves(store: &tengu_store::RunStore) {
    if let Err(e) = tengu_run::curves::write(store) {
        tracing::warn!(
            "cannot draw {}: {e}",
            store.address_of(tengu_store::layout::CURVES)
        );
    }
}

/// `--config-only`: the checked config becomes the run's `config.toml`, written while this
/// process holds the run's trainer lease (so never under a running trainer's feet).
fn publish_config(setup: &super::setup::RunSetup) -> Result<()> {
    let store = setup.open()?;
    let lease =
        tengu_store::lease::Lease::acquire(&store, setup.config.train.lease_seconds, &mut |m| {
            tracing::info!("{m}")
        })?;
    store.put(
        tengu_store::layout::CONFIG,
        setup.config.to_run_text().into_bytes(),
    )?;
    lease.release();
    tracing::info!(
        config = %store.address_of(tengu_store::layout::CONFIG),
        engine = ?setup.config.train.engine,
        "published the run's config; no training (--config-only)"
    );
    Ok(())
}
