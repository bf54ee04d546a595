//! `tengu train`: the trainer on a run directory.

use anyhow::{bail, Result};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_trainer::train::{self, TrainOptions};
use tengu_trainer::RunConfig;

use crate::args::TrainArgs;
use crate::cmd::selfplay::stop_flag;

pub fn run(args: TrainArgs) -> Result<()> {
    let config = RunConfig::load(args.config.as_deref(), &args.run).map_err(anyhow::Error::msg)?;
    let backend: Backend = args
        .backend
        .as_deref()
        .unwrap_or(&config.network.backend)
        .parse()
        .map_err(anyhow::Error::msg)?;
    let Some(variant) = Variant::builtin(&config.game) else {
        bail!("unknown game {:?}", config.game)
    };
    let options = TrainOptions {
        run: args.run.clone(),
        variant,
        backend,
        preset: config.network.preset.clone(),
        train: config.train.clone(),
        seed: args.seed,
        max_steps: args.max_steps,
        stop: stop_flag()?,
    };
    tracing::info!(run = %args.run.display(), %backend, "trainer starting");
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
