//! `tengu train`: the trainer on a run directory.

use anyhow::Result;
use tengu_trainer::train::{self, TrainOptions};

use crate::args::TrainArgs;
use crate::cmd::selfplay::stop_flag;

pub fn run(args: TrainArgs) -> Result<()> {
    // Everything is checked before the run is opened: a refused command creates nothing.
    let setup = super::setup::prepare_run(
        &args.run,
        args.config.as_deref(),
        args.backend.as_deref(),
        super::setup::Role::Owner,
    )?;
    let store = setup.open()?;
    let (config, backend, variant) = (setup.config, setup.backend, setup.variant);
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
