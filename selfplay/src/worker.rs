//! The self-play worker: plays games with the newest checkpoint of a run directory and
//! writes shards and game records there until stopped.
//!
//! Before the run has any checkpoint the worker plays with the uniform evaluator (a random
//! warm start; its shards say `model = "uniform"`) and switches when the first checkpoint
//! appears; games already started finish with the evaluator they began with. This is for a
//! standalone `tengu selfplay`: `tengu run` publishes the step-0 checkpoint before it starts
//! any worker, so its workers never play uniform games.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tengu_model::checkpoint::CheckpointError;
use tengu_model::{Backend, EvalError, Evaluator, UniformEvaluator, ENCODER_VERSION};
use tengu_rules::Variant;

use crate::config::{SearchConfig, SelfplayConfig};
use crate::play::{FinishedGame, SelfPlay};
use crate::run_dir;
use crate::shard::{self, Row, ShardError, ShardHeader};

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The openings file (`selfplay.openings`) was refused; the message names the file
    /// and the line.
    #[error("selfplay.openings: {0}")]
    Openings(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WorkerError + '_ {
    move |source| WorkerError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What a worker does.
pub struct WorkerOptions {
    pub run: PathBuf,
    pub variant: Arc<Variant>,
    pub backend: Backend,
    pub search: SearchConfig,
    pub selfplay: SelfplayConfig,
    pub seed: u64,
    /// Stop after this many finished games (None: until `stop`).
    pub max_games: Option<u64>,
    /// Set from a signal handler: finish writing what is done, then return.
    pub stop: Arc<AtomicBool>,
}

/// Progress, reported after every step.
#[derive(Clone, Debug, Default)]
pub struct WorkerProgress {
    pub games: u64,
    pub rows: u64,
    pub shards: u64,
    pub moves: u64,
    pub simulations: u64,
    pub seconds: f64,
    pub average_game_plies: f64,
    pub model: String,
    pub false_resignations: u64,
    pub resignation_checks: u64,
}

struct Output {
    run: PathBuf,
    game: String,
    sequence: u64,
    games: Vec<FinishedGame>,
    rows: usize,
}

impl Output {
    /// Writes the finished games as one shard plus their records; returns rows written.
    fn flush(&mut self, model: &str) -> Result<usize, WorkerError> {
        if self.games.is_empty() {
            return Ok(0);
        }
        let stem = run_dir::unique_stem(self.sequence);
        self.sequence += 1;
        let games_dir = run_dir::games(&self.run);
        std::fs::create_dir_all(&games_dir).map_err(io(&games_dir))?;
        // Records first: a shard never refers to games that were not saved.
        let mut rows: Vec<Row> = Vec::with_capacity(self.rows);
        for (g, game) in self.games.iter().enumerate() {
            let path = games_dir.join(format!("{stem}-{g:03}.record"));
            let tmp = games_dir.join(format!(".{stem}-{g:03}.record.tmp"));
            std::fs::write(&tmp, game.record.to_string()).map_err(io(&tmp))?;
            std::fs::rename(&tmp, &path).map_err(io(&path))?;
            rows.extend(game.rows.iter().cloned().map(|r| Row {
                game: g as u32,
                ..r
            }));
        }
        let header = ShardHeader {
            encoder_version: ENCODER_VERSION,
            game: self.game.clone(),
            model: model.into(),
            rows: rows.len() as u64,
            games: self.games.len() as u32,
            created_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            writer: format!("{}-{}", run_dir::host_name(), std::process::id()),
        };
        let path = run_dir::shards(&self.run).join(format!("{stem}.{}", shard::EXTENSION));
        shard::write(&path, &header, &rows)?;
        tracing::info!(shard = %path.display(), rows = rows.len(), games = self.games.len(), "wrote shard");
        self.games.clear();
        self.rows = 0;
        Ok(rows.len())
    }
}

/// Loads the newest checkpoint if it differs from `current`; `None` if there is none.
fn newest_model(options: &WorkerOptions) -> Result<Option<(String, PathBuf)>, WorkerError> {
    let newest =
        run_dir::newest_checkpoint(&options.run).map_err(io(&run_dir::models(&options.run)))?;
    Ok(newest.map(|(_, path)| {
        (
            path.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            path,
        )
    }))
}

/// Runs until `max_games` games are finished or `stop` is set; returns the final progress.
pub fn run(
    options: &WorkerOptions,
    on_progress: &mut dyn FnMut(&WorkerProgress),
) -> Result<WorkerProgress, WorkerError> {
    options
        .search
        .validate()
        .map_err(|e| WorkerError::Eval(EvalError::Backend(e)))?;
    options
        .selfplay
        .validate()
        .map_err(|e| WorkerError::Eval(EvalError::Backend(e)))?;
    // The openings file is read and checked once, before anything else is loaded.
    let openings = match &options.selfplay.openings {
        Some(path) => {
            let openings = crate::openings::read_openings(path, &options.variant)
                .map_err(|e| WorkerError::Openings(e.to_string()))?;
            tracing::info!(file = %path.display(), openings = openings.len(), share = options.selfplay.opening_share, "openings loaded");
            Some((path, openings))
        }
        None => None,
    };
    let shards_dir = run_dir::shards(&options.run);
    std::fs::create_dir_all(&shards_dir).map_err(io(&shards_dir))?;

    let mut play = SelfPlay::new(
        options.variant.clone(),
        options.search.clone(),
        options.selfplay.clone(),
        options.seed,
    );
    if let Some((path, openings)) = openings {
        play.set_openings(openings)
            .map_err(|e| WorkerError::Openings(format!("{}: {e}", path.display())))?;
    }
    // Evaluators by model generation: new games use the newest; games in flight keep the
    // one they started with, and an old evaluator is dropped once its last game ends.
    let mut evaluators: BTreeMap<usize, Box<dyn Evaluator>> = BTreeMap::new();
    evaluators.insert(0, Box::new(UniformEvaluator));
    let mut model = "uniform".to_string();
    if let Some((name, path)) = newest_model(options)? {
        let (eval, meta) = options.backend.load_evaluator(&path, &options.variant)?;
        tracing::info!(checkpoint = %name, step = meta.step, "loaded checkpoint");
        evaluators.insert(0, eval);
        model = name;
    }
    play.model = model.clone();
    play.game_limit = options.max_games;

    let mut out = Output {
        run: options.run.clone(),
        game: options.variant.id().into(),
        sequence: 0,
        games: Vec::new(),
        rows: 0,
    };
    let mut progress = WorkerProgress {
        model: model.clone(),
        ..Default::default()
    };
    let mut plies_total = 0u64;
    let start = Instant::now();
    let mut last_poll = Instant::now();
    let poll = Duration::from_secs_f64(options.selfplay.checkpoint_poll_seconds.max(0.1));
    let mut cpu = crate::cpu::CpuLedger::new(&options.run, "worker");
    loop {
        cpu.record(false);
        if options.stop.load(Ordering::Relaxed) {
            break;
        }
        let all_started = options.max_games.is_some_and(|m| play.games_started >= m);
        if all_started && play.games_in_flight() == 0 {
            break;
        }
        if last_poll.elapsed() >= poll {
            last_poll = Instant::now();
            if let Some((name, path)) = newest_model(options)? {
                if name != model {
                    match options.backend.load_evaluator(&path, &options.variant) {
                        Ok((eval, meta)) => {
                            play.generation += 1;
                            evaluators.insert(play.generation, eval);
                            tracing::info!(checkpoint = %name, step = meta.step, "new games use the newer checkpoint");
                            model = name;
                            play.model = model.clone();
                            progress.model = model.clone();
                        }
                        Err(e) => {
                            tracing::warn!("cannot load {}: {e}; keeping {model}", path.display())
                        }
                    }
                }
            }
        }
        play.step_by_generation(&mut |generation, inputs| {
            evaluators
                .get_mut(&generation)
                .expect("an evaluator for every generation in use")
                .evaluate(inputs)
        })?;
        let in_use = play.generations_in_use();
        evaluators.retain(|g, _| *g == play.generation || in_use.contains(g));
        for game in play.take_finished() {
            progress.games += 1;
            plies_total += game.plies as u64;
            if let Some(f) = game.false_resignation {
                progress.resignation_checks += 1;
                progress.false_resignations += f as u64;
            }
            // A shard holds the games of one model.
            if out.games.first().is_some_and(|g| g.model != game.model) {
                let model_of_shard = out.games[0].model.clone();
                progress.rows += out.flush(&model_of_shard)? as u64;
                progress.shards += 1;
            }
            out.rows += game.rows.len();
            out.games.push(game);
        }
        if out.rows >= options.selfplay.rows_per_shard {
            let model_of_shard = out.games[0].model.clone();
            progress.rows += out.flush(&model_of_shard)? as u64;
            progress.shards += 1;
        }
        progress.moves = play.stats.moves;
        progress.simulations = play.stats.simulations;
        progress.seconds = start.elapsed().as_secs_f64();
        progress.average_game_plies = if progress.games > 0 {
            plies_total as f64 / progress.games as f64
        } else {
            0.0
        };
        on_progress(&progress);
    }
    // Finished games are never lost: whatever is done goes into a last shard.
    let model_of_shard = out.games.first().map_or(model, |g| g.model.clone());
    let written = out.flush(&model_of_shard)?;
    if written > 0 {
        progress.rows += written as u64;
        progress.shards += 1;
    }
    progress.seconds = start.elapsed().as_secs_f64();
    cpu.record(true);
    on_progress(&progress);
    Ok(progress)
}
