//! `RunWindow`: a run followed the way the Rust trainer follows it
//! (`tengu_trainer::train::run`), for the PyTorch trainer: the sliding window of the newest
//! rows (`tengu_trainer::window::Window`: incremental listing, held-out games kept apart,
//! the ingest state saved with each checkpoint), batches drawn as the Rust trainer draws
//! them, the loss log (`tengu_trainer::log::TrainLog`), `curves.svg` (`tengu_run::curves`)
//! and the CPU ledger. Nothing here is a second implementation: each method calls the Rust
//! trainer's or the run's code.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tengu_model::PolicyIndex;
use tengu_rules::Variant;
use tengu_store::{layout, RunStore};
use tengu_trainer::window::{IngestState, ValueTargetMix, Window};

use crate::reader::{batch_dict, decode_parallel, decode_row, Decoded};
use crate::run::{open_store, RunView};
use crate::{CheckpointError, RunConfigError, ShardError, StoreError};

fn store_err(e: impl std::fmt::Display) -> PyErr {
    StoreError::new_err(e.to_string())
}

/// The run's sliding window of rows (`[train] window_rows`, `holdout_every`,
/// `holdout_rows`, `listing_lookback_seconds`, `future_value_plies` of its `config.toml`).
///
/// `RunWindow(run, planes=None, threads=0)`: `planes` is a checkpoint's plane count (else
/// the config's), `threads` the decoding threads (0: one per core).
#[pyclass(module = "tengu._tengu")]
pub struct RunWindow {
    store: RunStore,
    window: Window,
    variant: Arc<Variant>,
    encoder: tengu_model::Encoder,
    index: PolicyIndex,
    mix: ValueTargetMix,
    threads: usize,
    /// The run's `[train]` settings (the waiting rule and the learning-rate schedule).
    train: tengu_trainer::TrainConfig,
}

/// The heads' loss weights with `weights` (by `[train]` key) set; a key no head has is a
/// `ValueError` naming it and the heads' keys.
fn loss_weights(
    weights: Option<std::collections::HashMap<String, f32>>,
) -> PyResult<tengu_model::LossWeights> {
    let weights = weights.unwrap_or_default();
    tengu_model::LossWeights::with(weights.iter().map(|(k, &w)| (k.as_str(), w)))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

#[pymethods]
impl RunWindow {
    #[new]
    #[pyo3(signature = (run, planes=None, threads=0))]
    fn new(
        py: Python<'_>,
        run: &str,
        planes: Option<usize>,
        threads: usize,
    ) -> PyResult<RunWindow> {
        let store = open_store(run)?;
        let view = py.allow_threads(|| RunView::of_store(&store))?;
        let variant = crate::variant_of(&view.game)
            .map_err(|e| RunConfigError::new_err(format!("{}: {e}", store.display())))?;
        let encoder = match planes {
            Some(p) => tengu_model::Encoder::for_planes(&variant, p)
                .map_err(|e| CheckpointError::new_err(e.to_string()))?,
            None => view.encoder(&variant),
        };
        let t = &view.train;
        let mut window =
            Window::with_holdout(t.window_rows, variant.id(), t.holdout_every, t.holdout_rows);
        window.lookback_ms = (t.listing_lookback_seconds * 1000.0) as u64;
        window.future_value_plies = t.future_value_plies;
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        Ok(RunWindow {
            store,
            window,
            index: PolicyIndex::new(encoder.clone()),
            variant,
            encoder,
            mix: view.train.value_target_mix(),
            threads,
            train: view.train.clone(),
        })
    }

    /// Looks for new shards and reads those that belong in the window (the first look
    /// lists the whole run); returns the rows added. Damaged shards are skipped (once).
    fn ingest(&mut self, py: Python<'_>) -> PyResult<usize> {
        let (window, store) = (&mut self.window, &self.store);
        py.allow_threads(|| window.ingest(store)).map_err(store_err)
    }

    /// Why the step after `step` (the steps taken) must wait with `global_batch` rows a
    /// step (every rank's together): `"min_rows"` (the window is smaller than
    /// `[train] min_rows`), `"passes_per_row"` (the step would draw more than
    /// `passes_per_row` samples per row written), or `None`: `tengu train`'s rule
    /// (`tengu_trainer::train::wait_before`).
    fn wait_before(&self, step: u64, global_batch: usize) -> Option<&'static str> {
        use tengu_trainer::train::{wait_before, Wait};
        wait_before(&self.window, &self.train, step, global_batch).map(|w| match w {
            Wait::MinRows => "min_rows",
            Wait::PassesPerRow => "passes_per_row",
        })
    }

    /// The learning rate of step `step` (0-based): `tengu train`'s schedule
    /// (`TrainConfig::learning_rate_at`: a linear warm-up, then constant).
    fn learning_rate(&self, step: u64) -> f64 {
        self.train.learning_rate_at(step)
    }

    /// Rows in the window now (held-out rows excluded).
    fn __len__(&self) -> usize {
        self.window.len()
    }

    /// Rows of every shard seen since the run began (the `passes_per_row` throttle counts
    /// against them); kept across restarts by the ingest state.
    #[getter]
    fn rows_seen(&self) -> u64 {
        self.window.rows_seen
    }

    #[getter]
    fn games_seen(&self) -> u64 {
        self.window.games_seen
    }

    /// Held-out rows kept (at most `[train] holdout_rows`).
    #[getter]
    fn held_out_rows(&self) -> usize {
        self.window.held_out().len()
    }

    /// Restores the ingest state saved with checkpoint `step` (`trainer/ingest-<step>.json`)
    /// and reads the window's shards again; `False` when that checkpoint has none (the next
    /// `ingest` then lists the whole run).
    fn resume(&mut self, py: Python<'_>, step: u64) -> PyResult<bool> {
        let (window, store) = (&mut self.window, &self.store);
        py.allow_threads(|| {
            let key = layout::ingest_key(step);
            let Some(text) = store.get_text(&key).map_err(store_err)? else {
                return Ok(false);
            };
            let state: IngestState = serde_json::from_str(&text)
                .map_err(|e| StoreError::new_err(format!("{}: {e}", store.address_of(&key))))?;
            window.resume(&state, store);
            Ok(true)
        })
    }

    /// Writes what the window has read as the ingest state of checkpoint `step` (before
    /// the checkpoint is published, as the Rust trainer does).
    fn save_state(&self, py: Python<'_>, step: u64) -> PyResult<()> {
        let state = serde_json::to_vec(&self.window.state()).expect("ingest state serialises");
        py.allow_threads(|| self.store.put(&layout::ingest_key(step), state))
            .map_err(store_err)
    }

    /// The batch of step `step` (0-based: the step about to be taken), drawn as the Rust
    /// trainer draws it: a `SmallRng` seeded by `seed` and the step, uniform over the
    /// window, `batch_size * world_size` rows, of which rank `rank` takes the `rank`-th
    /// `batch_size` (so the ranks together see the Rust trainer's batch of that size). A row
    /// that does not decode is replaced by the draws that follow. A dict of
    /// `(bytearray, dtype, shape)` as `ShardReader.next_batch` (`row`: the row's index in
    /// the window), or `None` while the window is empty.
    #[pyo3(signature = (step, batch_size, seed=0, rank=0, world_size=1))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        step: u64,
        batch_size: usize,
        seed: u64,
        rank: usize,
        world_size: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        if batch_size == 0 || world_size == 0 || rank >= world_size {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "batch_size {batch_size}, rank {rank} of world_size {world_size}: need batch_size >= 1 and 0 <= rank < world_size"
            )));
        }
        if self.window.is_empty() {
            return Ok(None);
        }
        let total = self.window.len();
        let parts = Parts {
            window: &self.window,
            variant: &self.variant,
            encoder: &self.encoder,
            index: &self.index,
            mix: self.mix,
        };
        let display = self.store.display().to_string();
        let decoded = py.allow_threads(|| -> Result<(Vec<Decoded>, Vec<i64>), String> {
            let mut rng = tengu_trainer::train::batch_rng(seed, step);
            // The Rust trainer's draws, by index (`Window::sample` draws `gen_range(0..len)`).
            let mut draw = || {
                use rand::Rng;
                rng.gen_range(0..total)
            };
            let mine: Vec<usize> = (0..batch_size * world_size)
                .map(|_| draw())
                .skip(rank * batch_size)
                .take(batch_size)
                .collect();
            let (mut out, mut ids) = (
                Vec::with_capacity(batch_size),
                Vec::with_capacity(batch_size),
            );
            let mut picks = mine;
            // Rows that fail are replaced by further draws; a window of nothing but bad
            // rows is an error, not an endless loop.
            for _ in 0..100 {
                let results = decode_parallel(&picks, self.threads, |&k| decode_at(&parts, k))?;
                for (k, r) in picks.iter().zip(results) {
                    // A row that fails is skipped, as the Rust trainer does (it logs it).
                    if let Ok(d) = r {
                        out.push(d);
                        ids.push(*k as i64);
                    }
                }
                if out.len() == batch_size {
                    return Ok((out, ids));
                }
                picks = (0..batch_size - out.len()).map(|_| draw()).collect();
            }
            Err(format!(
                "{display}: no {batch_size} rows of the window could be decoded"
            ))
        });
        let (decoded, ids) = decoded.map_err(ShardError::new_err)?;
        batch_dict(py, &decoded, &self.encoder, &ids).map(Some)
    }

    /// Up to `max_rows` of the newest held-out rows, evenly spread over them (as the Rust
    /// trainer's held-out losses pick them), with the game result alone as the value
    /// target; rows that do not decode are left out. One dict as `sample` gives (`row`:
    /// the index among the held-out rows), or `None` when there are none.
    fn held_out<'py>(
        &self,
        py: Python<'py>,
        max_rows: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let rows: Vec<&tengu_shard::Row> = self.window.held_out().collect();
        if rows.is_empty() || max_rows == 0 {
            return Ok(None);
        }
        let stride = rows.len().div_ceil(max_rows).max(1);
        let picked: Vec<(usize, &tengu_shard::Row)> =
            rows.iter().copied().enumerate().step_by(stride).collect();
        let (variant, encoder, index) = (&self.variant, &self.encoder, &self.index);
        let results = py
            .allow_threads(|| {
                decode_parallel(&picked, self.threads, |(_, r)| {
                    decode_row(r, 0.0, variant, encoder, index, ValueTargetMix::default())
                })
            })
            .map_err(ShardError::new_err)?;
        let (mut decoded, mut ids) = (Vec::new(), Vec::new());
        for ((i, _), r) in picked.iter().zip(results) {
            if let Ok(d) = r {
                decoded.push(d);
                ids.push(*i as i64);
            }
        }
        if decoded.is_empty() {
            return Ok(None);
        }
        batch_dict(py, &decoded, &self.encoder, &ids).map(Some)
    }

    /// The CPU kernels' trainer (`tengu train`'s) on the window's rows `rows` (the `row`
    /// ids of a `sample`), starting from checkpoint `checkpoint`: the losses of those rows
    /// and the gradient of the objective (the policy loss plus each head's loss times its
    /// weight: `weights` by `[train]` key, e.g. `{"material_weight": 0.3}`, the heads'
    /// defaults for the rest) for every weight, no step. A dict
    /// `{"losses": {name: float}, "gradients": {name: (bytearray, "float32", shape)}}`,
    /// names and layouts those of a checkpoint (linear weights `[in, out]`). For comparing
    /// the PyTorch trainer's step with the Rust one on the same batch.
    #[pyo3(signature = (checkpoint, rows, weights=None))]
    fn cpu_gradients<'py>(
        &self,
        py: Python<'py>,
        checkpoint: &str,
        rows: Vec<usize>,
        weights: Option<std::collections::HashMap<String, f32>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let weights = loss_weights(weights)?;
        let path = std::path::Path::new(checkpoint);
        let variant = self.variant.clone();
        let result = py.allow_threads(|| -> Result<_, String> {
            let examples = self.examples(&rows)?;
            let mut trainer =
                tengu_model::cpu_train::CpuTrainer::from_checkpoint(&variant, path, 0.0, 0.0)
                    .map_err(|e| e.to_string())?;
            trainer.weights = weights;
            let batch: Vec<_> = examples.iter().map(|e| e.as_train()).collect();
            trainer.gradients(&batch).map_err(|e| e.to_string())
        });
        let (losses, gradients) = result.map_err(CheckpointError::new_err)?;
        let out = PyDict::new(py);
        let l = PyDict::new(py);
        l.set_item("policy", losses.policy)?;
        for head in tengu_model::desc::HEADS {
            l.set_item(head.loss_name, losses.of_head(head.id))?;
        }
        out.set_item("losses", l)?;
        let shapes: std::collections::HashMap<String, Vec<i64>> =
            tengu_model::desc::parameter_shapes(&trainer_config(checkpoint)?)
                .into_iter()
                .collect();
        let g = PyDict::new(py);
        for (name, values) in gradients {
            let shape = shapes
                .get(&name)
                .cloned()
                .unwrap_or_else(|| vec![values.len() as i64]);
            g.set_item(&name, (crate::f32_bytes(py, &values), "float32", shape))?;
        }
        out.set_item("gradients", g)?;
        Ok(out)
    }

    /// One AdamW step of the CPU kernels' trainer (`tengu train`'s) on the window's rows
    /// `rows`, from checkpoint `checkpoint` and, when given, the optimizer state file
    /// `optimizer_state` (else zero moments, step 0): the weights after the step as
    /// `{name: (bytearray, "float32", shape)}`, names and layouts those of a checkpoint. For
    /// checking that a state the PyTorch trainer wrote resumes as torch would go on.
    #[pyo3(signature = (checkpoint, rows, learning_rate, weight_decay, optimizer_state=None, weights=None))]
    #[allow(clippy::too_many_arguments)] // the Python method's keyword arguments
    fn cpu_step<'py>(
        &self,
        py: Python<'py>,
        checkpoint: &str,
        rows: Vec<usize>,
        learning_rate: f64,
        weight_decay: f32,
        optimizer_state: Option<&str>,
        weights: Option<std::collections::HashMap<String, f32>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let weights = loss_weights(weights)?;
        let path = std::path::Path::new(checkpoint);
        let variant = self.variant.clone();
        let tensors = py.allow_threads(|| -> Result<_, String> {
            let examples = self.examples(&rows)?;
            let mut trainer = tengu_model::cpu_train::CpuTrainer::from_checkpoint(
                &variant,
                path,
                learning_rate,
                weight_decay,
            )
            .map_err(|e| e.to_string())?;
            if let Some(state) = optimizer_state {
                trainer
                    .load_optimizer(std::path::Path::new(state))
                    .map_err(|e| e.to_string())?;
            }
            trainer.weights = weights;
            let batch: Vec<_> = examples.iter().map(|e| e.as_train()).collect();
            trainer.step(&batch).map_err(|e| e.to_string())?;
            Ok(trainer.tensors())
        });
        let out = PyDict::new(py);
        for (name, shape, values) in tensors.map_err(CheckpointError::new_err)? {
            out.set_item(&name, (crate::f32_bytes(py, &values), "float32", shape))?;
        }
        Ok(out)
    }
}

impl RunWindow {
    /// The window's rows `rows` decoded for training with the run's value-target mix (the
    /// CPU kernels' side of the comparisons with the PyTorch trainer).
    fn examples(&self, rows: &[usize]) -> Result<Vec<tengu_trainer::window::Example>, String> {
        rows.iter()
            .map(|&k| {
                let (row, future) = self
                    .window
                    .row_at(k)
                    .ok_or_else(|| format!("row {k} is not in the window"))?;
                tengu_trainer::window::Example::from_row_mixed(row, &self.variant, self.mix, future)
                    .map_err(|e| e.to_string())
            })
            .collect()
    }
}

/// The architecture of a checkpoint file.
fn trainer_config(checkpoint: &str) -> PyResult<tengu_model::desc::NetConfig> {
    tengu_model::checkpoint::read_meta(std::path::Path::new(checkpoint))
        .map(|m| m.config)
        .map_err(|e| CheckpointError::new_err(e.to_string()))
}

/// What decoding a window row needs (shared by the decoding threads).
struct Parts<'a> {
    window: &'a Window,
    variant: &'a Arc<Variant>,
    encoder: &'a tengu_model::Encoder,
    index: &'a PolicyIndex,
    mix: ValueTargetMix,
}

/// Decodes the window's `k`-th row (oldest first) with its future value.
fn decode_at(p: &Parts<'_>, k: usize) -> Result<Decoded, String> {
    let (row, future) = p
        .window
        .row_at(k)
        .ok_or_else(|| format!("row {k} is not in the window"))?;
    decode_row(row, future, p.variant, p.encoder, p.index, p.mix)
}

/// The run's loss log (`train/<step>.jsonl`, `tengu_trainer::log::TrainLog`): the lines
/// of the steps after checkpoint `step`. `TrainLog(run, step)` continues the log of a run
/// resumed from checkpoint `step`, removing the segments written after it (steps trained
/// again); `dropped` says how many went.
#[pyclass(module = "tengu._tengu")]
pub struct TrainLog {
    store: RunStore,
    log: tengu_trainer::log::TrainLog,
    #[pyo3(get)]
    dropped: usize,
}

#[pymethods]
impl TrainLog {
    #[new]
    fn new(py: Python<'_>, run: &str, step: u64) -> PyResult<TrainLog> {
        let store = open_store(run)?;
        let (log, dropped) = py
            .allow_threads(|| tengu_trainer::log::TrainLog::resume(&store, step))
            .map_err(store_err)?;
        Ok(TrainLog {
            store,
            log,
            dropped,
        })
    }

    /// Adds one step's line (a JSON object as text, the keys of the Rust trainer's
    /// `tengu_trainer::records::LossRecord`; `version` is this build's when left out): an
    /// unknown key or a value of the wrong type is a `ValueError`. The segment is written
    /// every few seconds.
    fn push(&mut self, py: Python<'_>, line: &str) -> PyResult<()> {
        use tengu_trainer::records::{LossRecord, RECORD_VERSION};
        let bad =
            |e: String| pyo3::exceptions::PyValueError::new_err(format!("a loss log line: {e}"));
        let mut value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let Some(object) = value.as_object_mut() else {
            return Err(bad("not a JSON object".into()));
        };
        object.entry("version").or_insert(RECORD_VERSION.into());
        let record: LossRecord = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
        let (log, store) = (&mut self.log, &self.store);
        py.allow_threads(|| log.push(store, &record))
            .map_err(store_err)
    }

    /// Writes the current segment if it changed.
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let (log, store) = (&mut self.log, &self.store);
        py.allow_threads(|| log.flush(store)).map_err(store_err)
    }

    /// Writes the current segment and starts the one after checkpoint `step`.
    fn next_segment(&mut self, py: Python<'_>, step: u64) -> PyResult<()> {
        let (log, store) = (&mut self.log, &self.store);
        py.allow_threads(|| log.next_segment(store, step))
            .map_err(store_err)
    }
}

/// The run's whole loss log, oldest step first, read through the Rust trainer's record type
/// (`tengu_trainer::records::LossRecord`) and returned as a JSON list of its lines; a
/// damaged line or one of another version is a `StoreError` naming its segment and line.
#[pyfunction]
pub fn read_loss_log(py: Python<'_>, run: &str) -> PyResult<String> {
    let store = open_store(run)?;
    let records = py
        .allow_threads(|| tengu_trainer::log::read_records(&store))
        .map_err(store_err)?;
    serde_json::to_string(&records).map_err(store_err)
}

/// Draws the run's `curves.svg` from its loss log, ratings and suite results
/// (`tengu_run::curves::write`).
#[pyfunction]
pub fn write_curves(py: Python<'_>, run: &str) -> PyResult<()> {
    let store = open_store(run)?;
    py.allow_threads(|| tengu_run::curves::write(&store))
        .map_err(store_err)
}

/// This process's entry in the run's CPU ledger (`cpu/<role>-<host>-<pid>.txt`,
/// `tengu_store::cpu::CpuLedger`), which the compute ladder and the curves count.
#[pyclass(module = "tengu._tengu")]
pub struct CpuLedger {
    store: RunStore,
    ledger: tengu_store::cpu::CpuLedger,
}

#[pymethods]
impl CpuLedger {
    #[new]
    #[pyo3(signature = (run, role="trainer"))]
    fn new(run: &str, role: &str) -> PyResult<CpuLedger> {
        let store = open_store(run)?;
        let ledger = tengu_store::cpu::CpuLedger::new(&store, role);
        Ok(CpuLedger { store, ledger })
    }

    /// Writes this process's CPU seconds if the last write is older than the interval (or
    /// `force`); returns whether it wrote.
    #[pyo3(signature = (force=false))]
    fn record(&mut self, py: Python<'_>, force: bool) -> bool {
        let (ledger, store) = (&mut self.ledger, &self.store);
        py.allow_threads(|| ledger.record(store, force))
    }

    /// The run's CPU seconds over every process of its ledger.
    fn total(&self, py: Python<'_>) -> f64 {
        py.allow_threads(|| tengu_store::cpu::total(&self.store))
    }
}
