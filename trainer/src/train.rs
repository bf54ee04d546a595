//! The training loop: ingest shards, sample batches, step, publish checkpoints.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tengu_model::checkpoint::{CheckpointError, CheckpointMeta};
use tengu_model::desc::{HeadId, NetConfig, HEADS, HEAD_COUNT};
use tengu_model::{
    Backend, Encoder, EvalError, EvalInput, Evaluator, Losses, Trainer, ENCODER_VERSION,
};
use tengu_rules::Variant;
use tengu_shard::ShardError;
use tengu_store::checkpoint::{self as published, CheckpointCache, Publication};
use tengu_store::lease::Lease;
use tengu_store::{layout, RunStore, StoreError};

use crate::config::TrainConfig;
use crate::log::TrainLog;
use crate::records::{finite, HeadLosses, LossRecord, RECORD_VERSION};
use crate::window::{Example, IngestState, Window};

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("{0}")]
    Config(String),
    /// A `[train]` setting out of its range.
    #[error(transparent)]
    Settings(#[from] tengu_search::config::ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// What the trainer does.
pub struct TrainOptions {
    /// The run (a directory or an object store).
    pub run: RunStore,
    /// Written as the run's `config.toml` once the trainer holds the run's lease.
    pub config_text: Option<String>,
    pub variant: Arc<Variant>,
    pub backend: Backend,
    /// Network preset for a run without checkpoints.
    pub preset: String,
    /// The weights a run without checkpoints starts from (`network.init`: a checkpoint of
    /// the run's game and input planes, whose architecture replaces `preset`); `None`: fresh
    /// weights of `preset`.
    pub init: Option<std::path::PathBuf>,
    /// Whether a new network takes the encoder's tactical (attack) planes.
    pub tactical_planes: bool,
    /// Whether a new network takes the encoder's material planes.
    pub material_planes: bool,
    pub train: TrainConfig,
    pub seed: u64,
    /// Stop after this step (None: until `stop`).
    pub max_steps: Option<u64>,
    pub stop: Arc<AtomicBool>,
}

/// Progress after each step or wait.
#[derive(Clone, Debug, Default)]
pub struct TrainProgress {
    pub step: u64,
    /// Policy cross-entropy (nats) per row with a policy target; NaN when none had one.
    pub policy_loss: f32,
    /// WDL cross-entropy (nats) per row.
    pub value_loss: f32,
    pub samples_per_second: f64,
    pub window_rows: usize,
    pub rows_seen: u64,
    pub waiting: bool,
    pub last_checkpoint: String,
    /// Whether `last_checkpoint` was published since the last report (where `tengu train`
    /// redraws the run's curves).
    pub published: bool,
}

/// Mean cross-entropy of `eval`'s policy against the targets of the policy rows of
/// `examples` (rows without a policy target are skipped); `None` if there are none.
pub fn policy_loss(
    eval: &mut dyn Evaluator,
    examples: &[Example],
) -> Result<Option<f64>, EvalError> {
    let targets: Vec<&Example> = examples
        .iter()
        .filter(|e| e.policy.iter().any(|&w| w > 0.0))
        .collect();
    let mut total = 0.0;
    for chunk in targets.chunks(64) {
        let inputs: Vec<EvalInput> = chunk
            .iter()
            .map(|e| EvalInput {
                position: &e.position,
                moves: &e.moves,
                repetitions: e.repetitions,
            })
            .collect();
        for (out, e) in eval.evaluate(&inputs)?.iter().zip(chunk) {
            total -= e
                .policy
                .iter()
                .zip(&out.policy)
                .map(|(&t, &p)| t as f64 * (p.max(1e-12) as f64).ln())
                .sum::<f64>();
        }
    }
    Ok((!targets.is_empty()).then(|| total / targets.len() as f64))
}

fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// A local scratch directory, of this trainer alone, for the files the backends write
/// before they are published.
fn scratch_dir() -> std::path::PathBuf {
    static TRAINERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    published::cache_root().join("scratch").join(format!(
        "trainer-{}-{}",
        std::process::id(),
        TRAINERS.fetch_add(1, Ordering::Relaxed)
    ))
}

/// What every checkpoint of one trainer process is published with.
struct Publisher<'a> {
    options: &'a TrainOptions,
    config: &'a NetConfig,
    lease: &'a Lease,
    /// Local directory for the files the backend writes before they are uploaded.
    scratch: &'a std::path::Path,
}

/// Publishes the checkpoint at `step`: the loss log segment so far, what the window has
/// read, then optimizer state, weights and the manifest that commits them. Returns the
/// weights' name.
fn save(
    publisher: &Publisher,
    trainer: &dyn Trainer,
    step: u64,
    parent: Option<String>,
    window: &Window,
    log: &mut TrainLog,
) -> Result<String, TrainError> {
    let Publisher {
        options,
        config,
        lease,
        scratch,
    } = *publisher;
    let store = &options.run;
    // A trainer that lost the run to a newer one stops before it writes anything.
    lease.check(store)?;
    log.next_segment(store, step)?;
    let state = serde_json::to_vec(&window.state()).expect("ingest state serialises");
    store.put(&layout::ingest_key(step), state)?;
    std::fs::create_dir_all(scratch).map_err(io(scratch))?;
    let state_path = scratch.join("optimizer.bpk");
    let optimizer = match trainer.save_optimizer(&state_path) {
        Ok(()) => Some(std::fs::read(&state_path).map_err(io(&state_path))?),
        Err(e) => {
            tracing::warn!(
                "optimizer state not saved ({e}); a restart from step {step} resets the AdamW moments"
            );
            None
        }
    };
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: options.variant.id().into(),
        config: config.clone(),
        step,
        parent: parent.clone(),
    };
    let weights_path = scratch.join(layout::weights_name(step));
    trainer.save(&meta, &weights_path)?;
    let weights = std::fs::read(&weights_path).map_err(io(&weights_path))?;
    let _ = std::fs::remove_file(&weights_path);
    published::publish(
        store,
        &Publication {
            step,
            weights: &weights,
            optimizer: optimizer.as_deref(),
            lease: lease.generation(),
            rows_seen: window.rows_seen,
            parent,
        },
    )?;
    let name = layout::weights_name(step);
    tracing::info!(checkpoint = %name, "published checkpoint");
    Ok(name)
}

/// Losses on held-out games (never trained on).
#[derive(Copy, Clone, Debug)]
pub struct HeldOut {
    /// Policy cross-entropy per row with a policy target (NaN when none had one).
    pub policy: f64,
    /// Each head's loss (`tengu_model::desc::HEADS`' order), a mean over the measured rows
    /// with its target (NaN when none had one); the value's WDL cross-entropy is against
    /// the game result alone (no search-value mixing).
    pub heads: [f64; HEAD_COUNT],
    /// Measured rows with each head's target.
    pub rows_with_target: [usize; HEAD_COUNT],
    pub rows: usize,
    /// The measured rows' results from the mover's view: [wins, draws, losses].
    pub results: [usize; 3],
}

impl HeldOut {
    /// The loss of `head`.
    pub fn head(&self, head: HeadId) -> f64 {
        self.heads[head.index()]
    }

    /// Measured rows with `head`'s target.
    pub fn rows_with(&self, head: HeadId) -> usize {
        self.rows_with_target[head.index()]
    }

    /// Entropy (nats) of the measured rows' result shares: the value loss of a constant
    /// prediction of them, so a value loss near it has learnt nothing from the position.
    pub fn result_entropy(&self) -> f64 {
        let measured: usize = self.results.iter().sum();
        self.results
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / measured.max(1) as f64;
                -p * p.ln()
            })
            // From +0.0: one result alone gives -0.0 terms, which would print as "-0.0000".
            .fold(0.0, |sum, h| sum + h)
    }
}

/// Held-out losses of the current weights on up to `max_rows` of the newest held-out rows
/// (evenly spread over them); `None` when there are none yet.
fn held_out_losses(
    trainer: &dyn Trainer,
    window: &Window,
    options: &TrainOptions,
    max_rows: usize,
) -> Result<Option<HeldOut>, TrainError> {
    let rows: Vec<&tengu_shard::Row> = window.held_out().collect();
    losses_on_rows(trainer, &rows, &options.variant, max_rows)
}

/// The losses of `trainer`'s weights on up to `max_rows` of `rows` (evenly spread over
/// them), the value against the game result alone; rows that do not fit the game's rules
/// are skipped. `None` when no row is left.
pub fn losses_on_rows(
    trainer: &dyn Trainer,
    rows: &[&tengu_shard::Row],
    variant: &Arc<Variant>,
    max_rows: usize,
) -> Result<Option<HeldOut>, TrainError> {
    if rows.is_empty() || max_rows == 0 {
        return Ok(None);
    }
    let stride = rows.len().div_ceil(max_rows).max(1);
    let mut examples: Vec<Example> = Vec::new();
    let mut results = [0usize; 3];
    for row in rows.iter().step_by(stride) {
        if let Ok(example) = Example::from_row(row, variant) {
            results[(1 - i32::from(row.result).clamp(-1, 1)) as usize] += 1;
            examples.push(example);
        }
    }
    if examples.is_empty() {
        return Ok(None);
    }
    let (mut policy, mut targets) = (0.0f64, 0usize);
    let mut heads = [0.0f64; HEAD_COUNT];
    let mut rows_with_target = [0usize; HEAD_COUNT];
    for chunk in examples.chunks(64) {
        let batch: Vec<_> = chunk.iter().map(Example::as_train).collect();
        let l = trainer.losses(&batch)?;
        // The policy term is a mean over the chunk, rows without a target adding zero.
        let with_target = chunk
            .iter()
            .filter(|e| e.policy.iter().any(|&w| w > 0.0))
            .count();
        policy += f64::from(l.policy) * chunk.len() as f64;
        targets += with_target;
        let squares = chunk[0].position.size() * chunk[0].position.size();
        for (i, (head, loss)) in l.by_head().enumerate() {
            // A head's term is a mean over the chunk's rows, or its rows with the target.
            let with = chunk
                .iter()
                .filter(|e| e.targets.has(head, squares))
                .count();
            let weight = if head.averages_over_rows_with_target() {
                with
            } else {
                chunk.len()
            };
            heads[i] += f64::from(loss) * weight as f64;
            rows_with_target[i] += with;
        }
    }
    for ((head, loss), &with) in HEADS.iter().zip(&mut heads).zip(&rows_with_target) {
        let measured = if head.averages_over_rows_with_target() {
            with
        } else {
            examples.len()
        };
        *loss = if measured > 0 {
            *loss / measured as f64
        } else {
            f64::NAN
        };
    }
    Ok(Some(HeldOut {
        policy: if targets > 0 {
            policy / targets as f64
        } else {
            f64::NAN
        },
        heads,
        rows_with_target,
        rows: examples.len(),
        results,
    }))
}

/// Why the trainer waits before its next step (`None`: it can step).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The window has fewer rows than `train.min_rows`.
    MinRows,
    /// The next step would draw more than `train.passes_per_row` samples per row written.
    PassesPerRow,
}

/// Whether the step after `step` (0-based: the steps taken) must wait, with
/// `global_batch` rows a step (every rank's together): the rule `tengu train` and the
/// PyTorch trainer (through `tengu.RunWindow`) both follow.
pub fn wait_before(
    window: &Window,
    t: &TrainConfig,
    step: u64,
    global_batch: usize,
) -> Option<Wait> {
    // Each self-play row may be drawn about `passes_per_row` times; steps are counted
    // across restarts by the checkpoint name, rows by the shards on disk.
    let allowed = (window.rows_seen as f64 * t.passes_per_row) as u64;
    let drawn = (step + 1) * global_batch as u64;
    if window.len() < t.min_rows.max(1) {
        Some(Wait::MinRows)
    } else if drawn > allowed {
        Some(Wait::PassesPerRow)
    } else {
        None
    }
}

/// The random generator of the batch of step `step` (0-based): it depends only on the seed
/// and the step, so a restarted trainer draws the batches it would have drawn.
pub fn batch_rng(seed: u64, step: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed ^ (step + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The training loop's state between its named steps ([`Training::resume`],
/// [`Training::ingest`], [`Training::batch`], [`Training::step`],
/// [`Training::held_out`], [`Training::publish`]), which [`run`] calls in turn; the
/// PyTorch trainer (`python/tengu/train/follow.py`) follows the same sequence through the
/// Python package's `RunWindow` and `TrainLog`.
struct Training<'a> {
    options: &'a TrainOptions,
    trainer: Box<dyn Trainer>,
    config: NetConfig,
    lease: Lease,
    scratch: std::path::PathBuf,
    window: Window,
    log: TrainLog,
    /// Steps taken.
    step: u64,
    /// The newest published checkpoint's weights name.
    last: String,
    cpu: tengu_store::cpu::CpuLedger,
    /// The run's CPU seconds, re-read from the ledger when this process's entry is
    /// rewritten (every few seconds), not at every step.
    cpu_seconds: f64,
    /// When the samples/s measurement started, and at which step.
    rate_start: (Instant, u64),
}

impl<'a> Training<'a> {
    /// Resume: takes the run's trainer lease and continues from the newest committed
    /// checkpoint (its weights, optimizer state, window and loss log), or starts a new run
    /// and publishes step 0.
    fn resume(options: &'a TrainOptions) -> Result<Training<'a>, TrainError> {
        let t = &options.train;
        let store = &options.run;
        let scratch = scratch_dir();
        let lease = Lease::acquire(store, t.lease_seconds, &mut |m| tracing::info!("{m}"))?;
        tracing::info!(
            generation = lease.generation(),
            "holding the run's trainer lease"
        );
        if let Some(text) = &options.config_text {
            store.put(layout::CONFIG, text.clone().into_bytes())?;
        }
        let encoder = Encoder::with_planes(
            &options.variant,
            options.tactical_planes,
            options.material_planes,
        );
        let mut window = Window::with_holdout(
            t.window_rows,
            options.variant.id(),
            t.holdout_every,
            t.holdout_rows,
        );
        window.lookback_ms = (t.listing_lookback_seconds * 1000.0) as u64;
        window.future_value_plies = t.future_value_plies;

        let newest = published::newest(store)?;
        let (trainer, config, step, last, log) = match newest {
            Some(step) => {
                let cache = CheckpointCache::new(store, 2);
                let (path, manifest) = cache.fetch(store, step)?;
                let meta = tengu_model::checkpoint::read_meta(&path)?;
                let mut trainer = options.backend.trainer(
                    &options.variant,
                    &meta.config,
                    Some(&path),
                    t.learning_rate,
                    t.weight_decay,
                )?;
                let state = cache.fetch_optimizer(store, &manifest)?;
                match state.map(|p| trainer.load_optimizer(&p)) {
                    Some(Ok(())) => {
                        tracing::info!(step, "resuming with its optimizer state")
                    }
                    Some(Err(e)) => tracing::warn!(
                        step,
                        "resuming without optimizer state, the AdamW moments start from zero: {e}"
                    ),
                    // The PyTorch trainer before it wrote this format, or with `--optimizer
                    // sgd`, and a trainer whose save failed publish none.
                    None => tracing::warn!(
                        step,
                        "resuming without optimizer state, the AdamW moments start from zero: \
                         checkpoint {step} was published without one (by the PyTorch trainer \
                         with --optimizer sgd or from before it published AdamW state, or a \
                         trainer that could not save it)"
                    ),
                }
                match store.get_text(&layout::ingest_key(step))? {
                    Some(text) => {
                        let state: IngestState = serde_json::from_str(&text).map_err(|e| {
                            TrainError::Config(format!(
                                "{}: {e}",
                                store.address_of(&layout::ingest_key(step))
                            ))
                        })?;
                        window.resume(&state, store);
                        tracing::info!(
                            step,
                            window_rows = window.len(),
                            rows_seen = window.rows_seen,
                            "window restored"
                        );
                    }
                    None => tracing::info!(
                        step,
                        "no ingest state saved with the checkpoint: listing every shard"
                    ),
                }
                // Steps logged after the checkpoint we resume from (a killed trainer) are
                // trained again; their old lines go so the log holds each step once.
                let (log, dropped) = TrainLog::resume(store, step)?;
                if dropped > 0 {
                    tracing::info!(
                        dropped,
                        step,
                        "dropped loss log segments written after the checkpoint resumed from"
                    );
                }
                (trainer, meta.config, step, layout::weights_name(step), log)
            }
            None if options.init.is_some() => {
                let path = options.init.as_deref().expect("matched");
                let game = options.variant.id();
                let mut meta = tengu_model::checkpoint::read_meta_for(path, game)?;
                // Weights of another rule set of the game: its input planes as this run's
                // rules lay them out (the trainer loads them so, with the warning).
                if let Some(other) = tengu_model::checkpoint::OtherRules::of(path, &meta, game)? {
                    meta.config.planes = other.planes_under(meta.config.planes);
                }
                let trainer = options.backend.trainer(
                    &options.variant,
                    &meta.config,
                    Some(path),
                    t.learning_rate,
                    t.weight_decay,
                )?;
                tracing::info!(init = %path.display(), step = meta.step, "a new run starts from these weights");
                let (log, _) = TrainLog::resume(store, 0)?;
                // The first checkpoint names the file it starts from as its parent.
                let parent = path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                (trainer, meta.config, 0, parent, log)
            }
            None => {
                let config =
                    NetConfig::from_preset(&options.preset, encoder.planes(), encoder.size())
                        .map_err(|e| TrainError::Config(format!("network.preset: {e}")))?;
                let trainer = options.backend.trainer(
                    &options.variant,
                    &config,
                    None,
                    t.learning_rate,
                    t.weight_decay,
                )?;
                let (log, _) = TrainLog::resume(store, 0)?;
                (trainer, config, 0, String::new(), log)
            }
        };
        let mut training = Training {
            options,
            trainer,
            config,
            lease,
            scratch,
            window,
            log,
            step,
            last,
            cpu: tengu_store::cpu::CpuLedger::new(store, "trainer"),
            cpu_seconds: 0.0,
            rate_start: (Instant::now(), step),
        };
        if newest.is_none() {
            training.publish()?;
        }
        training.trainer.set_loss_weights(t.loss_weights());
        Ok(training)
    }

    /// Ingest: reads the shards written since the last look into the window, and this
    /// process's CPU seconds into the ledger.
    fn ingest(&mut self) -> Result<(), TrainError> {
        let store = &self.options.run;
        if self.cpu.record(store, false) {
            self.cpu_seconds = tengu_store::cpu::total(store);
        }
        self.window.ingest(store)?;
        Ok(())
    }

    /// Batch: the examples of the next step, drawn from the window ([`batch_rng`]); rows
    /// that do not decode are skipped (logged) and replaced by further draws.
    fn batch(&self) -> Vec<Example> {
        let t = &self.options.train;
        let mut rng = batch_rng(self.options.seed, self.step);
        let mut batch = Vec::with_capacity(t.batch_size);
        while batch.len() < t.batch_size {
            let (row, future_value) = self.window.sample(&mut rng).expect("window is not empty");
            match Example::from_row_mixed(
                row,
                &self.options.variant,
                t.value_target_mix(),
                future_value,
            ) {
                Ok(e) => batch.push(e),
                Err(e) => tracing::warn!("skipping row: {e}"),
            }
        }
        batch
    }

    /// Step: one optimizer step on `batch` at the schedule's learning rate; returns the
    /// losses before it and the policy loss per row with a target (the objective averages
    /// the policy term over the whole batch, rows of cheap searches adding nothing; the log
    /// reports the cross-entropy a reader expects; `None` when no row had a target).
    fn step(&mut self, batch: &[Example]) -> Result<(Losses, Option<f64>, usize), TrainError> {
        let t = &self.options.train;
        self.trainer
            .set_learning_rate(t.learning_rate_at(self.step));
        let examples: Vec<_> = batch.iter().map(Example::as_train).collect();
        let losses = self.trainer.step(&examples)?;
        let target_rows = batch
            .iter()
            .filter(|e| e.policy.iter().any(|&w| w > 0.0))
            .count();
        let row_policy_loss = (target_rows > 0)
            .then(|| f64::from(losses.policy) * batch.len() as f64 / target_rows as f64);
        self.step += 1;
        Ok((losses, row_policy_loss, target_rows))
    }

    /// Held-out: the current weights' losses on the held-out rows, at checkpoint steps.
    fn held_out(&self) -> Result<Option<HeldOut>, TrainError> {
        let t = &self.options.train;
        if !self.step.is_multiple_of(t.steps_per_checkpoint) {
            return Ok(None);
        }
        held_out_losses(
            self.trainer.as_ref(),
            &self.window,
            self.options,
            t.holdout_eval_rows,
        )
    }

    /// Publish: the loss log segment, the ingest state, optimizer state, weights and the
    /// manifest of checkpoint `self.step` (see [`save`]).
    fn publish(&mut self) -> Result<(), TrainError> {
        let publisher = Publisher {
            options: self.options,
            config: &self.config,
            lease: &self.lease,
            scratch: &self.scratch,
        };
        let parent = (!self.last.is_empty()).then(|| self.last.clone());
        self.last = save(
            &publisher,
            self.trainer.as_ref(),
            self.step,
            parent,
            &self.window,
            &mut self.log,
        )?;
        Ok(())
    }
}

/// Trains until `max_steps` or `stop`; resumes from the newest checkpoint of the run. The
/// loop runs [`Training`]'s named steps: resume, then ingest (every poll interval), batch,
/// step, held-out and the loss log line, publish (every `steps_per_checkpoint` steps and at
/// the end).
pub fn run(
    options: &TrainOptions,
    on_progress: &mut dyn FnMut(&TrainProgress),
) -> Result<TrainProgress, TrainError> {
    let t = &options.train;
    t.validate()?;
    let store = &options.run;
    let started = Instant::now();
    let mut training = Training::resume(options)?;
    // No step yet in this process: no losses to show.
    let mut progress = TrainProgress {
        step: training.step,
        policy_loss: f32::NAN,
        value_loss: f32::NAN,
        last_checkpoint: training.last.clone(),
        ..Default::default()
    };
    let poll = Duration::from_secs_f64(t.poll_seconds.max(0.05));
    // While waiting for rows a local run looks again at once; an object store is listed
    // once per poll interval, never per step.
    let wait_poll = if store.local_dir().is_some() {
        Duration::from_millis(200)
    } else {
        poll
    };
    let mut last_poll: Option<Instant> = None;
    while !options.stop.load(Ordering::Relaxed)
        && options.max_steps.is_none_or(|m| training.step < m)
    {
        if last_poll.is_none_or(|p| p.elapsed() >= poll) {
            training.ingest()?;
            last_poll = Some(Instant::now());
        } else if training.cpu.record(store, false) {
            training.cpu_seconds = tengu_store::cpu::total(store);
        }
        if wait_before(&training.window, t, training.step, t.batch_size).is_some() {
            progress.waiting = true;
            progress.published = false;
            progress.window_rows = training.window.len();
            progress.rows_seen = training.window.rows_seen;
            on_progress(&progress);
            let waited = Instant::now();
            while waited.elapsed() < wait_poll && !options.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50).min(wait_poll));
            }
            last_poll = None;
            continue;
        }
        let batch = training.batch();
        let (losses, row_policy_loss, target_rows) = training.step(&batch)?;
        let step = training.step;
        let elapsed = training.rate_start.0.elapsed().as_secs_f64();
        let samples_per_second =
            ((step - training.rate_start.1) * t.batch_size as u64) as f64 / elapsed.max(1e-9);
        if elapsed > 30.0 {
            training.rate_start = (Instant::now(), step);
        }
        progress = TrainProgress {
            step,
            policy_loss: row_policy_loss.map_or(f32::NAN, |l| l as f32),
            value_loss: losses.of_head(HeadId::Value),
            samples_per_second,
            window_rows: training.window.len(),
            rows_seen: training.window.rows_seen,
            waiting: false,
            last_checkpoint: training.last.clone(),
            published: false,
        };
        let held_out = training.held_out()?;
        let squares = batch
            .first()
            .map_or(0, |e| e.position.size() * e.position.size());
        let mut heads = HeadLosses::default();
        for (i, (head, loss)) in losses.by_head().enumerate() {
            // Null for a head none of whose rows had its target (the judge's, unlabelled).
            let with = batch.iter().any(|e| e.targets.has(head, squares));
            heads.step[i] = with.then(|| f64::from(loss)).and_then(finite);
            heads.heldout[i] = held_out.and_then(|h| finite(h.heads[i]));
        }
        let record = LossRecord {
            version: RECORD_VERSION,
            step,
            policy_loss: row_policy_loss.and_then(finite),
            policy_target_rows: target_rows as u64,
            learning_rate: t.learning_rate_at(step - 1),
            samples_per_second,
            window_rows: training.window.len() as u64,
            rows_seen: training.window.rows_seen,
            games_seen: training.window.games_seen,
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            cpu_seconds: training.cpu_seconds,
            heldout_policy_loss: held_out.and_then(|h| finite(h.policy)),
            heldout_rows: held_out.map(|h| h.rows as u64),
            heads,
        };
        training.log.push(store, &record)?;
        if step % t.steps_per_checkpoint == 0 {
            training.publish()?;
            progress.last_checkpoint = training.last.clone();
            progress.published = true;
        }
        on_progress(&progress);
    }
    training.cpu.record(store, true);
    // The returned progress reports only a publish the last report did not.
    progress.published = false;
    // A last checkpoint so no step is lost on a clean stop.
    if layout::weights_name(training.step) != training.last {
        training.publish()?;
        progress.last_checkpoint = training.last.clone();
        progress.published = true;
    }
    training.log.flush(store)?;
    tengu_store::log_requests!(store, started.elapsed().as_secs_f64());
    let _ = std::fs::remove_dir_all(&training.scratch);
    training.lease.release();
    Ok(progress)
}
