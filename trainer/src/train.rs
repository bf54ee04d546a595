//! The training loop: ingest shards, sample batches, step, publish checkpoints.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tengu_model::checkpoint::{CheckpointError, CheckpointMeta};
use tengu_model::net::NetConfig;
use tengu_model::{Backend, Encoder, EvalError, EvalInput, Evaluator, Trainer, ENCODER_VERSION};
use tengu_rules::Variant;
use tengu_selfplay::run_dir;
use tengu_selfplay::shard::ShardError;

use crate::config::TrainConfig;
use crate::window::{Example, Window};

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
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// What the trainer does.
pub struct TrainOptions {
    pub run: PathBuf,
    pub variant: Arc<Variant>,
    pub backend: Backend,
    /// Network preset for a run without checkpoints.
    pub preset: String,
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

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Where the optimizer state of the checkpoint at `step` is kept.
pub fn optimizer_path(run: &Path, step: u64) -> PathBuf {
    run_dir::models(run).join(format!("optimizer-{step:09}.bpk"))
}

fn save(
    trainer: &dyn Trainer,
    options: &TrainOptions,
    config: &NetConfig,
    step: u64,
    parent: Option<String>,
) -> Result<String, TrainError> {
    let name = run_dir::checkpoint_name(step);
    // The optimizer state first: a checkpoint on disk always has its state beside it.
    let state = optimizer_path(&options.run, step);
    if let Err(e) = trainer.save_optimizer(&state) {
        tracing::warn!(
            "optimizer state not saved ({e}); a restart from step {step} resets the AdamW moments"
        );
    }
    let meta = CheckpointMeta {
        encoder_version: ENCODER_VERSION,
        game: options.variant.id().into(),
        config: config.clone(),
        step,
        parent,
    };
    trainer.save(&meta, &run_dir::models(&options.run).join(&name))?;
    tracing::info!(checkpoint = %name, "published checkpoint");
    Ok(name)
}

/// Keeps the lines of the loss log `path` (JSON lines with a `step`) up to `step`; lines
/// after it, and a torn last line, are removed (atomically: temporary file, rename).
/// Returns how many lines went.
fn trim_log(path: &Path, step: u64) -> std::io::Result<usize> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut kept = String::with_capacity(text.len());
    let mut dropped = 0;
    for line in text.lines() {
        let line_step = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v["step"].as_u64());
        match line_step {
            Some(s) if s <= step => {
                kept.push_str(line);
                kept.push('\n');
            }
            _ => dropped += 1,
        }
    }
    if dropped > 0 {
        let tmp = path.with_extension("jsonl.tmp");
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(kept.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
    }
    Ok(dropped)
}

/// Losses on held-out games (never trained on).
#[derive(Copy, Clone, Debug)]
pub struct HeldOut {
    /// Policy cross-entropy per row with a policy target (NaN when none had one).
    pub policy: f64,
    /// WDL cross-entropy against the game result alone (no search-value mixing), per row.
    pub value: f64,
    /// Ownership cross-entropy per square and horizon, material squared error.
    pub ownership: f64,
    pub material: f64,
    pub rows: usize,
}

/// Held-out losses of the current weights on up to `max_rows` of the newest held-out rows
/// (evenly spread over them); `None` when there are none yet.
fn held_out_losses(
    trainer: &dyn Trainer,
    window: &Window,
    options: &TrainOptions,
    max_rows: usize,
) -> Result<Option<HeldOut>, TrainError> {
    let rows: Vec<&tengu_selfplay::shard::Row> = window.held_out().collect();
    if rows.is_empty() || max_rows == 0 {
        return Ok(None);
    }
    let stride = rows.len().div_ceil(max_rows).max(1);
    let examples: Vec<Example> = rows
        .iter()
        .step_by(stride)
        .filter_map(|r| Example::from_row(r, &options.variant).ok())
        .collect();
    let (mut policy, mut value, mut targets) = (0.0f64, 0.0f64, 0usize);
    let (mut ownership, mut material) = (0.0f64, 0.0f64);
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
        value += f64::from(l.value) * chunk.len() as f64;
        ownership += f64::from(l.ownership) * chunk.len() as f64;
        material += f64::from(l.material) * chunk.len() as f64;
    }
    let rows = examples.len().max(1) as f64;
    Ok(Some(HeldOut {
        policy: if targets > 0 {
            policy / targets as f64
        } else {
            f64::NAN
        },
        value: value / rows,
        ownership: ownership / rows,
        material: material / rows,
        rows: examples.len(),
    }))
}

/// Trains until `max_steps` or `stop`; resumes from the newest checkpoint of the run.
pub fn run(
    options: &TrainOptions,
    on_progress: &mut dyn FnMut(&TrainProgress),
) -> Result<TrainProgress, TrainError> {
    let t = &options.train;
    t.validate().map_err(TrainError::Config)?;
    let models = run_dir::models(&options.run);
    std::fs::create_dir_all(&models).map_err(io(&models))?;
    let encoder = Encoder::with_planes(
        &options.variant,
        options.tactical_planes,
        options.material_planes,
    );

    // Resume from the newest checkpoint, or start (and publish) step 0.
    let newest = run_dir::newest_checkpoint(&options.run).map_err(io(&models))?;
    let (mut trainer, config, mut step, mut last) = match newest {
        Some((step, path)) => {
            let meta = tengu_model::checkpoint::read_meta(&path)?;
            let mut trainer = options.backend.trainer(
                &options.variant,
                &meta.config,
                Some(&path),
                t.learning_rate,
                t.weight_decay,
            )?;
            let state = optimizer_path(&options.run, step);
            match trainer.load_optimizer(&state) {
                Ok(()) => {
                    tracing::info!(checkpoint = %path.display(), step, "resuming with its optimizer state")
                }
                Err(e) => {
                    tracing::warn!(checkpoint = %path.display(), step, "resuming without optimizer state: {e}")
                }
            }
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            (trainer, meta.config, step, name)
        }
        None => {
            let Some(config) = NetConfig::preset(&options.preset, encoder.planes(), encoder.size())
            else {
                return Err(TrainError::Config(format!(
                    "network.preset: unknown preset {:?}",
                    options.preset
                )));
            };
            let trainer = options.backend.trainer(
                &options.variant,
                &config,
                None,
                t.learning_rate,
                t.weight_decay,
            )?;
            let name = save(trainer.as_ref(), options, &config, 0, None)?;
            (trainer, config, 0, name)
        }
    };

    trainer.set_loss_weights(t.loss_weights());
    let log_path = options.run.join("train.jsonl");
    // Steps logged after the checkpoint we resume from (a killed trainer) are trained
    // again; their old lines go so the log holds each step once.
    let dropped = trim_log(&log_path, step).map_err(io(&log_path))?;
    if dropped > 0 {
        tracing::info!(
            dropped,
            step,
            "dropped loss lines logged after the checkpoint resumed from"
        );
    }
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(io(&log_path))?;
    let mut window = Window::with_holdout(
        t.window_rows,
        options.variant.id(),
        t.holdout_every,
        t.holdout_rows,
    );
    let mut cpu = tengu_selfplay::cpu::CpuLedger::new(&options.run, "trainer");
    // The run's CPU seconds, re-read from the ledger when this process's entry is rewritten
    // (every few seconds), not at every step.
    let mut cpu_seconds = 0.0;
    let mut progress = TrainProgress {
        step,
        last_checkpoint: last.clone(),
        ..Default::default()
    };
    let poll = Duration::from_secs_f64(t.poll_seconds.max(0.05));
    let shards_dir = run_dir::shards(&options.run);
    let mut last_poll: Option<Instant> = None;
    let mut rate_start = (Instant::now(), step);
    while !options.stop.load(Ordering::Relaxed) && options.max_steps.map_or(true, |m| step < m) {
        if cpu.record(false) {
            cpu_seconds = tengu_selfplay::cpu::total(&options.run);
        }
        if last_poll.map_or(true, |p| p.elapsed() >= poll) {
            window.ingest(&shards_dir)?;
            last_poll = Some(Instant::now());
        }
        // Each self-play row may be drawn about `passes_per_row` times; steps are counted
        // across restarts by the checkpoint name, rows by the shards on disk.
        let allowed = (window.rows_seen as f64 * t.passes_per_row) as u64;
        let drawn = (step + 1) * t.batch_size as u64;
        if window.len() < t.min_rows.max(1) || drawn > allowed {
            progress.waiting = true;
            progress.window_rows = window.len();
            progress.rows_seen = window.rows_seen;
            on_progress(&progress);
            std::thread::sleep(poll.min(Duration::from_millis(200)));
            last_poll = None;
            continue;
        }
        progress.waiting = false;
        // Each step's sample depends only on the seed and the step, so a restarted trainer
        // draws the batches it would have drawn.
        let mut rng =
            SmallRng::seed_from_u64(options.seed ^ (step + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut batch = Vec::with_capacity(t.batch_size);
        while batch.len() < t.batch_size {
            let row = window.sample(&mut rng).expect("window is not empty");
            match Example::from_row_mixed(row, &options.variant, t.search_value_weight) {
                Ok(e) => batch.push(e),
                Err(e) => tracing::warn!("skipping row: {e}"),
            }
        }
        trainer.set_learning_rate(t.learning_rate_at(step));
        let examples: Vec<_> = batch.iter().map(Example::as_train).collect();
        let losses = trainer.step(&examples)?;
        // The objective averages the policy term over the whole batch (rows of cheap
        // searches have no target and add nothing); the log reports it per target row,
        // the cross-entropy a reader expects (None when the batch had no target row).
        let target_rows = batch
            .iter()
            .filter(|e| e.policy.iter().any(|&w| w > 0.0))
            .count();
        let row_policy_loss = (target_rows > 0)
            .then(|| f64::from(losses.policy) * batch.len() as f64 / target_rows as f64);
        step += 1;
        let elapsed = rate_start.0.elapsed().as_secs_f64();
        let samples_per_second =
            ((step - rate_start.1) * t.batch_size as u64) as f64 / elapsed.max(1e-9);
        if elapsed > 30.0 {
            rate_start = (Instant::now(), step);
        }
        progress = TrainProgress {
            step,
            policy_loss: row_policy_loss.map_or(f32::NAN, |l| l as f32),
            value_loss: losses.value,
            samples_per_second,
            window_rows: window.len(),
            rows_seen: window.rows_seen,
            waiting: false,
            last_checkpoint: last.clone(),
        };
        let held_out = if step % t.steps_per_checkpoint == 0 {
            held_out_losses(trainer.as_ref(), &window, options, t.holdout_eval_rows)?
        } else {
            None
        };
        let mut line = serde_json::json!({
            "step": step,
            "policy_loss": row_policy_loss,
            "policy_target_rows": target_rows,
            "value_loss": losses.value,
            "ownership_loss": losses.ownership,
            "material_loss": losses.material,
            "learning_rate": t.learning_rate_at(step - 1),
            "samples_per_second": samples_per_second,
            "window_rows": window.len(),
            "rows_seen": window.rows_seen,
            "games_seen": window.games_seen,
            "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
            "cpu_seconds": cpu_seconds,
        });
        if let Some(h) = held_out {
            line["heldout_policy_loss"] = serde_json::json!(h.policy);
            line["heldout_value_loss"] = serde_json::json!(h.value);
            line["heldout_ownership_loss"] = serde_json::json!(h.ownership);
            line["heldout_material_loss"] = serde_json::json!(h.material);
            line["heldout_rows"] = serde_json::json!(h.rows);
        }
        writeln!(log, "{line}").map_err(io(&log_path))?;
        if step % t.steps_per_checkpoint == 0 {
            last = save(trainer.as_ref(), options, &config, step, Some(last))?;
            progress.last_checkpoint = last.clone();
            if let Err(e) = crate::curves::write(&options.run) {
                tracing::warn!(
                    "cannot draw {}: {e}",
                    options.run.join("curves.svg").display()
                );
            }
        }
        on_progress(&progress);
    }
    cpu.record(true);
    // A last checkpoint so no step is lost on a clean stop.
    if run_dir::checkpoint_name(step) != last {
        last = save(trainer.as_ref(), options, &config, step, Some(last))?;
        progress.last_checkpoint = last;
    }
    Ok(progress)
}
