//! `tengu train`: the trainer on a run directory.

use anyhow::Result;
use tengu_trainer::train::{self, TrainOptions};

use crate::args::TrainArgs;
use crate::cmd::selfplay::stop_flag;

pub fn run(args: TrainArgs) -> Result<()> {
    let store = super::open_run(&args.run)?;
    let (config, backend, variant) =
        super::load_run(args.config.as_deref(), &store, args.backend.as_deref())?;
    if args.config.is_some() {
        // A run holds one game's shards and checkpoints.
        if let Some(previous) =
            tengu_trainer::RunConfig::of_run(&store).map_err(anyhow::Error::msg)?
        {
            if previous.game != config.game {
                anyhow::bail!(
                    "{} is a {} run; the --config file configures {}",
                    store.display(),
                    previous.game,
                    config.game
                );
            }
        }
    }
    let options = TrainOptions {
        config_text: args.config.is_some().then(|| config.to_run_text()),
        run: store,
        variant,
        backend,
        preset: config.network.preset.clone(),
        tactical_planes: config.network.tactical_planes,
        material_planes: config.network.material_planes,
        train: config.train.clone(),
        seed: args.seed,
        max_steps: args.max_steps,
        stop: stop_flag()?,
    };
    tracing::info!(run = %args.run, %backend, "trainer starting");
    let bar = crate::cmd::spinner(args.quiet);
    let done = train::run(&options, &mut |p| {
        let state = if p.waiting {
            "waiting for self-play rows"
        } else {
            "training"
        };
        bar.set_message(format!(
            "step {}, policy loss {:.3}, value loss {:.3}, {:.0} samples/s, window {} rows, {state}, latest {}",
            p.step, p.policy_loss, p.value_loss, p.samples_per_second, p.window_rows, p.last_checkpoint
        ));
        bar.tick();
    })?;
    bar.finish_and_clear();
    tracing::info!(step = done.step, checkpoint = %done.last_checkpoint, "trainer stopped");
    Ok(())
}
