//! `tengu run`: the whole training loop on one machine.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tengu_run::supervise::{self, RunOptions, TrainerProcess};

use crate::args::RunArgs;
use crate::cmd::selfplay::stop_flag;
use crate::output::outln;

/// How often `tengu run` prints a status line when its output is not a terminal.
const STATUS_EVERY: Duration = Duration::from_secs(30);

pub fn run(args: RunArgs) -> Result<()> {
    let run = match (&args.run, &args.config) {
        (Some(r), _) => r.clone(),
        (None, Some(c)) => std::path::Path::new("runs").join(c.file_stem().unwrap_or_default()),
        (None, None) => bail!("give --config FILE (a new run) or --run DIR (resume a run)"),
    };
    if run.display().to_string().contains("://")
        && !run.display().to_string().starts_with("file://")
    {
        bail!(
            "tengu run runs every process on this machine and needs a directory, not {}; on an object store start `tengu train --run URL` once and `tengu selfplay --run URL` on each machine (docs/distributed.md)",
            run.display()
        );
    }
    let run = match run.display().to_string().strip_prefix("file://") {
        Some(path) => std::path::PathBuf::from(path),
        None => run,
    };
    // Everything is checked before anything is created or written: a refused command
    // leaves no run directory behind and the run's config.toml as it was.
    let setup = crate::cmd::setup::prepare_run(
        &run.display().to_string(),
        args.config.as_deref(),
        args.backend.as_deref(),
        crate::cmd::setup::Role::Owner,
    )?;
    let config = setup.config.clone();
    let trainer = match config.train.engine {
        tengu_trainer::TrainEngine::Rust => {
            // `tengu train` trains on the CPU kernels; a tch backend's run trains with
            // PyTorch (refused here, before the run is written).
            setup
                .backend
                .check_trainer()
                .context("train.engine = \"rust\"")?;
            TrainerProcess::Rust
        }
        tengu_trainer::TrainEngine::Python => {
            // Checked before the run is written: a missing interpreter or package leaves
            // the run as it was.
            let python = tengu_trainer::python::interpreter(&config.train.python);
            tengu_trainer::python::check(&python)?;
            tracing::info!(%python, "the PyTorch trainer trains this run (train.engine = \"python\")");
            TrainerProcess::Python { python }
        }
    };
    let store = setup.open()?;
    // The effective configuration, which every process of the run reads.
    store
        .put(
            tengu_store::layout::CONFIG,
            config.to_run_text().into_bytes(),
        )
        .with_context(|| {
            format!(
                "cannot write {}",
                store.address_of(tengu_store::layout::CONFIG)
            )
        })?;
    let mut match_openings = None;
    if let Some(path) = config
        .arena
        .openings
        .as_ref()
        .filter(|_| config.arena.enabled)
    {
        // Checked by prepare_run; the matches run in the run directory's children.
        let absolute = std::fs::canonicalize(path)
            .with_context(|| format!("arena.openings: {}", path.display()))?;
        tracing::info!("arena matches open from {}", absolute.display());
        match_openings = Some(absolute);
    }
    let options = RunOptions {
        exe: std::env::current_exe().context("cannot find the tengu binary")?,
        trainer,
        run: run.clone(),
        workers: config.selfplay.workers,
        backend: args.backend.clone(),
        max_minutes: args.max_minutes,
        max_steps: args.max_steps,
        max_cpu_hours: args.max_cpu_hours,
        stop: stop_flag()?,
        game: config.game_key().map_err(anyhow::Error::msg)?,
        arena: config.arena.enabled.then(|| config.arena.clone()),
        match_search_config: Some(run.join("config.toml")),
        match_openings,
        min_rows: config.train.min_rows as u64,
    };
    tracing::info!(run = %run.display(), game = %config.game, workers = options.workers, "run starting (logs in {}/logs)", run.display());
    // On a terminal a spinner line; otherwise (a log file, a pipe) a plain status line on
    // standard output every STATUS_EVERY and at each new checkpoint.
    let plain = !args.quiet && !std::io::stdout().is_terminal();
    let bar = crate::cmd::spinner(args.quiet || plain);
    let mut printed: Option<(Instant, String)> = None;
    // TensorBoard's event file in RUN/tensorboard (`tensorboard --logdir runs/`), brought up
    // to date every STATUS_EVERY; a failure is logged, never stops the run.
    let board_dir = run.join(super::tensorboard::LOGDIR);
    let mut board: Option<(Instant, Option<super::tensorboard::Export>)> = None;
    let done = supervise::run(&options, &mut |s| {
        if board
            .as_ref()
            .is_none_or(|(at, _)| at.elapsed() >= STATUS_EVERY)
        {
            let export = match board.take().and_then(|(_, export)| export) {
                Some(mut export) => match export.update(&store) {
                    Ok(_) => Some(export),
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "TensorBoard event file not updated");
                        Some(export)
                    }
                },
                None => match super::tensorboard::Export::start(&store, &board_dir) {
                    Ok(export) => Some(export),
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "TensorBoard event file not written");
                        None
                    }
                },
            };
            board = Some((Instant::now(), export));
        }
        if plain {
            let due = printed.as_ref().is_none_or(|(at, checkpoint)| {
                at.elapsed() >= STATUS_EVERY || *checkpoint != s.checkpoint
            });
            if due {
                // A closed output pipe must not stop the supervisor: its children need it.
                let _ = outln!("{}", s.line());
                printed = Some((Instant::now(), s.checkpoint.clone()));
            }
        } else {
            bar.set_message(s.line());
            bar.tick();
        }
    })?;
    bar.finish_and_clear();
    // The last steps and matches too.
    if let Some((_, Some(mut export))) = board {
        if let Err(e) = export.update(&store) {
            tracing::warn!(error = %format!("{e:#}"), "TensorBoard event file not updated");
        }
    }
    if plain {
        let _ = outln!("stopped: {}", done.line());
    }
    tracing::info!(games = done.games, step = done.step, checkpoint = %done.checkpoint, "run stopped");
    Ok(())
}
