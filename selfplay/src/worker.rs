//! The self-play worker: plays games with the newest checkpoint of a run directory and
//! writes shards and game records there until stopped.
//!
//! Before the run has any checkpoint the worker plays with the uniform evaluator (a random
//! warm start; its shards say `model = "uniform"`) and switches when the first checkpoint
//! appears; games already started finish with the evaluator they began with. This is for a
//! standalone `tengu selfplay`: `tengu run` publishes the step-0 checkpoint before it starts
//! any worker, so its workers never play uniform games.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tengu_model::checkpoint::CheckpointError;
use tengu_model::{Backend, EvalError, Evaluator, UniformEvaluator, ENCODER_VERSION};
use tengu_rules::Variant;
use tengu_search::SearchConfig;
use tengu_shard::{Row, ShardError, ShardHeader};

use crate::config::SelfplayConfig;
use crate::play::{FinishedGame, SelfPlay};
use tengu_store::checkpoint::{self, CheckpointCache};
use tengu_store::layout::{self, ShardName};
use tengu_store::RunStore;

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The run store refused a request that is not about a shard (listing or fetching
    /// checkpoints, putting game records).
    #[error(transparent)]
    Store(#[from] tengu_store::StoreError),
    /// The openings file (`selfplay.openings`) was refused; the message names the file
    /// and the line.
    #[error("selfplay.openings: {0}")]
    Openings(String),
    /// The `[search]` or `[selfplay]` settings were refused; the message names the key.
    #[error(transparent)]
    Config(#[from] tengu_search::config::ConfigError),
}

/// What a worker does.
pub struct WorkerOptions {
    /// The run (a directory or an object store).
    pub run: RunStore,
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
    /// Rows the judge's teacher labelled (`selfplay.teacher_share`) and the seconds it took.
    pub labels: u64,
    pub label_seconds: f64,
}

struct Output {
    game: String,
    sequence: u64,
    games: Vec<FinishedGame>,
    rows: usize,
}

impl Output {
    /// Puts the finished games into the run as one shard plus one object of their records;
    /// returns rows written.
    fn flush(&mut self, store: &RunStore, model: &str) -> Result<usize, WorkerError> {
        if self.games.is_empty() {
            return Ok(0);
        }
        let mut rows: Vec<Row> = Vec::with_capacity(self.rows);
        let mut records = String::new();
        for (g, game) in self.games.iter().enumerate() {
            // The search's value per ply beside the record (crate::live::move_values): the
            // record format (RULES.md §12.4) has no place for it.
            let values = crate::live::move_values(&game.rows, game.record.game.len());
            records.push_str(&crate::records::line_text(g, &game.record, &values));
            records.push('\n');
            rows.extend(game.rows.iter().cloned().map(|r| Row {
                game: g as u32,
                ..r
            }));
        }
        let name = ShardName {
            stem: layout::unique_stem(self.sequence),
            games: self.games.len() as u32,
            rows: rows.len() as u64,
            unix_ms: layout::unix_ms(),
        };
        self.sequence += 1;
        // Records first: a shard never refers to games that were not saved.
        store.put(&name.records_key(), records.into_bytes())?;
        let header = ShardHeader {
            encoder_version: ENCODER_VERSION,
            game: self.game.clone(),
            model: model.into(),
            rows: rows.len() as u64,
            games: self.games.len() as u32,
            created_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            writer: layout::writer_name(),
        };
        tengu_shard::put(store, &name, &header, &rows)?;
        tracing::info!(shard = %store.address_of(&name.key()), rows = rows.len(), games = self.games.len(), "wrote shard");
        self.games.clear();
        self.rows = 0;
        Ok(rows.len())
    }
}

/// The worker's view of the run's checkpoints: polls for committed steps after the one in
/// use (one listing request per poll) and loads them from the verified local cache.
struct Checkpoints {
    cache: CheckpointCache,
    step: Option<u64>,
}

impl Checkpoints {
    /// A committed checkpoint newer than the one in use, as (weights name, local file).
    fn newer(&mut self, store: &RunStore) -> Result<Option<(String, PathBuf)>, WorkerError> {
        let newest = match self.step {
            None => checkpoint::newest(store),
            Some(s) => checkpoint::committed_after(store, s).map(|v| v.last().copied()),
        }?;
        let Some(step) = newest else {
            return Ok(None);
        };
        let (path, _) = self.cache.fetch(store, step)?;
        self.step = Some(step);
        Ok(Some((layout::weights_name(step), path)))
    }
}

/// Runs until `max_games` games are finished or `stop` is set; returns the final progress.
pub fn run(
    options: &WorkerOptions,
    on_progress: &mut dyn FnMut(&WorkerProgress),
) -> Result<WorkerProgress, WorkerError> {
    options.search.validate().map_err(WorkerError::Config)?;
    options.selfplay.validate().map_err(WorkerError::Config)?;
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
    let store = &options.run;
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
    // Downloads of an object-store run: the one in use and the one before are kept.
    let mut checkpoints = Checkpoints {
        cache: CheckpointCache::new(store, 2),
        step: None,
    };
    if let Some((name, path)) = checkpoints.newer(store)? {
        let (eval, meta) = options.backend.load_evaluator(&path, &options.variant)?;
        tracing::info!(checkpoint = %name, step = meta.step, "loaded checkpoint");
        evaluators.insert(0, eval);
        model = name;
    }
    play.model = model.clone();
    play.game_limit = options.max_games;

    let mut out = Output {
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
    let mut cpu = tengu_store::cpu::CpuLedger::new(store, "worker");
    let mut live = crate::live::Publisher::new(options.selfplay.live_game_seconds);
    loop {
        cpu.record(store, false);
        if options.stop.load(Ordering::Relaxed) {
            break;
        }
        let all_started = options.max_games.is_some_and(|m| play.games_started >= m);
        if all_started && play.games_in_flight() == 0 {
            break;
        }
        if last_poll.elapsed() >= poll {
            last_poll = Instant::now();
            // A store that does not answer is not fatal: games go on with the model in use.
            let newer = checkpoints.newer(store).unwrap_or_else(|e| {
                tracing::warn!("cannot look for new checkpoints: {e}");
                None
            });
            if let Some((name, path)) = newer {
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
                progress.rows += out.flush(store, &model_of_shard)? as u64;
                progress.shards += 1;
            }
            out.rows += game.rows.len();
            out.games.push(game);
        }
        if out.rows >= options.selfplay.rows_per_shard {
            let model_of_shard = out.games[0].model.clone();
            progress.rows += out.flush(store, &model_of_shard)? as u64;
            progress.shards += 1;
        }
        live.publish(store, &play);
        progress.moves = play.stats.moves;
        progress.simulations = play.stats.simulations;
        progress.labels = play.stats.labels;
        progress.label_seconds = play.stats.label_seconds;
        progress.seconds = start.elapsed().as_secs_f64();
        progress.average_game_plies = if progress.games > 0 {
            plies_total as f64 / progress.games as f64
        } else {
            0.0
        };
        on_progress(&progress);
    }
    live.remove(store);
    // Finished games are never lost: whatever is done goes into a last shard.
    let model_of_shard = out.games.first().map_or(model, |g| g.model.clone());
    let written = out.flush(store, &model_of_shard)?;
    if written > 0 {
        progress.rows += written as u64;
        progress.shards += 1;
    }
    progress.seconds = start.elapsed().as_secs_f64();
    cpu.record(store, true);
    tengu_store::log_requests!(store, progress.seconds);
    on_progress(&progress);
    Ok(progress)
}
