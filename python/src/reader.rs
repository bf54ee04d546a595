//! `ShardReader`: the rows of a run's shards as training batches, split so that every row is
//! read exactly once across `world_size` ranks x `num_workers` loader workers.
//!
//! The split: the run's shards in name order (oldest first) hold `R` rows (their names say
//! how many; a shard whose name does not is read to count them); part `p = rank *
//! num_workers + worker` of `P = world_size * num_workers` takes the global rows
//! `[R * p / P, R * (p + 1) / P)`, so the parts differ by at most one row and each reads only
//! the shards its range touches. Held-out games (`[train] holdout_every`) are then dropped
//! (`split="train"`) or kept alone (`split="held_out"`), as the Rust trainer's window does.
//!
//! Rows become targets exactly as the Rust trainer makes them
//! (`tengu_trainer::window::Example::from_row_mixed`) and planes by `tengu_model::Encoder`;
//! both run in Rust threads with the GIL released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};
use tengu_model::{PolicyIndex, ENCODER_VERSION};
use tengu_rules::Variant;
use tengu_shard::Row;
use tengu_store::RunStore;
use tengu_trainer::window::{future_values, is_held_out, Example, ValueTargetMix};

use crate::run::{open_store, RunView};
use crate::{f32_bytes, i64_bytes, CheckpointError, ShardError, ShardVersionError, StoreError};

/// A Rust shard error as the Python exception of its kind.
pub(crate) fn shard_err(e: tengu_shard::ShardError) -> PyErr {
    match e {
        tengu_shard::ShardError::Frame {
            frame: tengu_store::framed::FrameError::Version { .. },
            ..
        } => ShardVersionError::new_err(e.to_string()),
        tengu_shard::ShardError::Store(s) => StoreError::new_err(s.to_string()),
        other => ShardError::new_err(other.to_string()),
    }
}

/// One row of the part, with the shard it came from.
struct PartRow {
    shard: Arc<str>,
    /// Index of the row among all rows of the run (shard name order).
    global: u64,
    row: Row,
    /// The row's short-horizon value target (`tengu_trainer::window::future_values`).
    future_value: f32,
}

/// Reads a run's shards as numpy batches (see the module documentation for the split).
///
/// `ShardReader(run, rank=0, world_size=1, worker=0, num_workers=1, batch_size=256,
/// planes=None, split="train", shuffle_seed=None, drop_last=False, threads=0)`: `run` is a
/// run location (a directory, `file://`, `s3://`, ...) with a `config.toml` (its game,
/// network planes and `[train]` table: held-out games, the search value weight); `planes`
/// overrides the config's plane count (a checkpoint's); `threads` 0 is one per core.
/// Iterating yields dicts of numpy arrays (see `tengu.ShardReader` in Python).
#[pyclass(module = "tengu._tengu")]
pub struct ShardReader {
    variant: Arc<Variant>,
    encoder: tengu_model::Encoder,
    index: PolicyIndex,
    rows: Vec<PartRow>,
    order: Vec<u32>,
    cursor: usize,
    epoch: u64,
    batch_size: usize,
    shuffle_seed: Option<u64>,
    drop_last: bool,
    threads: usize,
    mix: ValueTargetMix,
    first_row: u64,
    end_row: u64,
    total_rows: u64,
    shards_read: usize,
}

/// A row decoded into the arrays of one batch entry.
pub(crate) struct Decoded {
    planes: Vec<f32>,
    slots: Vec<(u16, u16, u8)>,
    policy: Vec<f32>,
    targets: tengu_model::desc::RowTargets,
    full_search: bool,
}

/// Decodes one row with its short-horizon value target (`future_value`) as the Rust
/// trainer does (`Example::from_row_mixed`), planes by `encoder`; the message says what does
/// not fit the game's rules.
pub(crate) fn decode_row(
    row: &Row,
    future_value: f32,
    variant: &Arc<Variant>,
    encoder: &tengu_model::Encoder,
    index: &PolicyIndex,
    mix: ValueTargetMix,
) -> Result<Decoded, String> {
    let ex = Example::from_row_mixed(row, variant, mix, future_value).map_err(|e| e.to_string())?;
    let mut planes = vec![0.0f32; encoder.len()];
    encoder.encode(&ex.position, ex.repetitions, &mut planes);
    let slots = ex
        .moves
        .iter()
        .map(|&m| index.slot(&ex.position, m).map(|s| (s.from, s.to, s.code)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok(Decoded {
        planes,
        slots,
        policy: ex.policy,
        targets: ex.targets,
        full_search: row.full_search,
    })
}

fn decode(
    r: &PartRow,
    variant: &Arc<Variant>,
    encoder: &tengu_model::Encoder,
    index: &PolicyIndex,
    mix: ValueTargetMix,
) -> Result<Decoded, String> {
    decode_row(&r.row, r.future_value, variant, encoder, index, mix)
        .map_err(|e| format!("{} row {}: {e}", r.shard, r.global))
}

/// `decode` applied to every item on up to `threads` scoped threads, results in order.
pub(crate) fn decode_parallel<T: Sync>(
    items: &[T],
    threads: usize,
    decode: impl Fn(&T) -> Result<Decoded, String> + Sync,
) -> Result<Vec<Result<Decoded, String>>, String> {
    let threads = threads.max(1).min(items.len().max(1));
    let chunk = items.len().div_ceil(threads).max(1);
    let decode = &decode;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(decode).collect::<Vec<_>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            out.extend(
                h.join()
                    .map_err(|_| "a decoding thread panicked".to_string())?,
            );
        }
        Ok(out)
    })
}

/// A deterministic permutation of `0..n` (Fisher-Yates with SplitMix64).
fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut v: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Loads the rows of part `[first, end)` of the run's shards.
fn load_part(
    store: &RunStore,
    game: &str,
    first: u64,
    end: u64,
    holdout: Option<(u64, bool)>,
    future_value_plies: u32,
) -> Result<(Vec<PartRow>, u64, usize), PyErr> {
    let entries = tengu_shard::list_run(store).map_err(|e| StoreError::new_err(e.to_string()))?;
    let mut offset = 0u64;
    let mut out = Vec::new();
    let mut read = 0;
    let check_game = |header: &tengu_shard::ShardHeader, key: &str| -> PyResult<()> {
        if header.game != game {
            return Err(ShardError::new_err(format!(
                "{}: a {} shard, but the run's game is {game}",
                store.address_of(key),
                header.game
            )));
        }
        Ok(())
    };
    for entry in entries {
        let named = tengu_store::layout::ShardName::parse(entry.name()).map(|n| n.rows);
        let mut fetched = None;
        let rows = match named {
            Some(r) => r,
            None => {
                let (h, rows) = tengu_shard::fetch(store, &entry.key).map_err(shard_err)?;
                let n = h.rows;
                fetched = Some((h, rows));
                n
            }
        };
        let (lo, hi) = (offset, offset + rows);
        offset = hi;
        if hi <= first || lo >= end {
            continue;
        }
        let (header, shard_rows) = match fetched {
            Some(f) => f,
            None => tengu_shard::fetch(store, &entry.key).map_err(shard_err)?,
        };
        read += 1;
        check_game(&header, &entry.key)?;
        if header.rows != rows {
            return Err(ShardError::new_err(format!(
                "{}: the name says {rows} rows, the shard holds {}",
                store.address_of(&entry.key),
                header.rows
            )));
        }
        let shard: Arc<str> = Arc::from(store.address_of(&entry.key));
        let name = entry.name().to_string();
        // Whole games are in one shard: their future values come from the whole shard.
        let futures = future_values(&shard_rows, future_value_plies);
        for (i, (row, future_value)) in shard_rows.into_iter().zip(futures).enumerate() {
            let global = lo + i as u64;
            if global < first || global >= end {
                continue;
            }
            if let Some((every, want_held_out)) = holdout {
                if is_held_out(&name, row.game, every) != want_held_out {
                    continue;
                }
            }
            out.push(PartRow {
                shard: shard.clone(),
                global,
                row,
                future_value,
            });
        }
    }
    Ok((out, offset, read))
}

impl ShardReader {
    fn decode_batch(&self, picks: &[u32]) -> Result<Vec<Decoded>, String> {
        let (variant, encoder, index, w) = (&self.variant, &self.encoder, &self.index, self.mix);
        let rows = &self.rows;
        decode_parallel(picks, self.threads, |&i| {
            decode(&rows[i as usize], variant, encoder, index, w)
        })?
        .into_iter()
        .collect()
    }
}

#[pymethods]
impl ShardReader {
    #[new]
    #[pyo3(signature = (run, rank=0, world_size=1, worker=0, num_workers=1, batch_size=256, planes=None, split="train", shuffle_seed=None, drop_last=false, threads=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        run: &str,
        rank: usize,
        world_size: usize,
        worker: usize,
        num_workers: usize,
        batch_size: usize,
        planes: Option<usize>,
        split: &str,
        shuffle_seed: Option<u64>,
        drop_last: bool,
        threads: usize,
    ) -> PyResult<ShardReader> {
        if world_size == 0 || rank >= world_size {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "rank {rank} of world_size {world_size}: need 0 <= rank < world_size"
            )));
        }
        if num_workers == 0 || worker >= num_workers {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "worker {worker} of num_workers {num_workers}: need 0 <= worker < num_workers"
            )));
        }
        if batch_size == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "batch_size must be at least 1",
            ));
        }
        let want_held_out = match split {
            "train" => Some(false),
            "held_out" => Some(true),
            "all" => None,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "split {other:?}: one of \"train\", \"held_out\", \"all\""
                )))
            }
        };
        let store = open_store(run)?;
        let view = RunView::of_store(&store)?;
        let variant = crate::variant_of(&view.game)
            .map_err(|e| crate::RunConfigError::new_err(format!("{}: {e}", store.display())))?;
        let encoder = match planes {
            Some(p) => tengu_model::Encoder::for_planes(&variant, p)
                .map_err(|e| CheckpointError::new_err(e.to_string()))?,
            None => view.encoder(&variant),
        };
        let every = view.train.holdout_every;
        let holdout = want_held_out.map(|w| (every, w));
        let part = (rank * num_workers + worker) as u128;
        let parts = (world_size * num_workers) as u128;
        let game = view.game.clone();
        let plies = view.train.future_value_plies;
        // Count the rows first (names), then load this part's range.
        let loaded = py.allow_threads(|| -> PyResult<_> {
            let total = total_rows(&store)?;
            let first = (total as u128 * part / parts) as u64;
            let end = (total as u128 * (part + 1) / parts) as u64;
            let (rows, counted, read) = load_part(&store, &game, first, end, holdout, plies)?;
            Ok((rows, first, end, counted, read))
        })?;
        let (rows, first_row, end_row, total_rows, shards_read) = loaded;
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let mut reader = ShardReader {
            index: PolicyIndex::new(encoder.clone()),
            variant,
            encoder,
            order: Vec::new(),
            rows,
            cursor: 0,
            epoch: 0,
            batch_size,
            shuffle_seed,
            drop_last,
            threads,
            mix: view.train.value_target_mix(),
            first_row,
            end_row,
            total_rows,
            shards_read,
        };
        reader.reset(None);
        Ok(reader)
    }

    /// Rows of this part (after the held-out split).
    fn __len__(&self) -> usize {
        self.rows.len()
    }

    /// Batches one pass over this part yields.
    fn batches(&self) -> usize {
        if self.drop_last {
            self.rows.len() / self.batch_size
        } else {
            self.rows.len().div_ceil(self.batch_size)
        }
    }

    /// `(first, end)`: the global row range of this part, before the held-out split.
    #[getter]
    fn row_range(&self) -> (u64, u64) {
        (self.first_row, self.end_row)
    }

    /// Rows of all the run's shards.
    #[getter]
    fn total_rows(&self) -> u64 {
        self.total_rows
    }

    /// Shards this part read.
    #[getter]
    fn shards_read(&self) -> usize {
        self.shards_read
    }

    #[getter]
    fn planes(&self) -> usize {
        self.encoder.planes()
    }

    #[getter]
    fn size(&self) -> usize {
        self.encoder.size()
    }

    #[getter]
    fn game(&self) -> String {
        self.variant.id().to_string()
    }

    #[getter]
    fn encoder_version(&self) -> u32 {
        ENCODER_VERSION
    }

    /// Starts a pass over the part again: in shard order, or shuffled by `shuffle_seed` and
    /// the pass number (`epoch`, default: the next).
    #[pyo3(signature = (epoch=None))]
    fn reset(&mut self, epoch: Option<u64>) {
        if let Some(e) = epoch {
            self.epoch = e;
        }
        self.order = match self.shuffle_seed {
            Some(seed) => permutation(
                self.rows.len(),
                seed ^ self.epoch.wrapping_mul(0x2545_F491_4F6C_DD1D),
            ),
            None => (0..self.rows.len() as u32).collect(),
        };
        self.cursor = 0;
        self.epoch += 1;
    }

    /// The next batch as a dict of `(bytearray, dtype, shape)`, or `None` after the pass's
    /// last. `B` rows, `M` the most legal moves of a row in the batch:
    /// * `planes` float32 `[B, P, N, N]`;
    /// * `move_from`, `move_to` int64 `[B, M]`: squares of each legal move in the mover's
    ///   frame (`0 .. N * N`); `move_code` int64 `[B, M]` (`0 .. CODES`); padding 0;
    /// * `move_count` int64 `[B]`: legal moves of each row (the rest of `M` is padding);
    /// * `policy` float32 `[B, M]`: target probability of each legal move (all 0 for rows
    ///   that are not full searches); `policy_weight` float32 `[B]`: 1 for full searches;
    /// * per head of `tengu_model::desc::HEADS`, its target under the target's name
    ///   (`Head::target_len` values a row, float32 `[B, len]`, or class indices, uint8
    ///   `[B, groups, N * N]`; zero for a row without one) and `has_<name>` float32 `[B]`
    ///   (0: the row has none). Today:
    ///   * `wdl` float32 `[B, 3]`: win / draw / loss target of the side to move;
    ///   * `ownership` uint8 `[B, AUX_HORIZONS, N * N]`: occupancy class (0 empty, 1 the
    ///     mover's, 2 the opponent's) per square in the mover's frame;
    ///   * `material` float32 `[B, AUX_HORIZONS]`: `tanh(balance / MATERIAL_SCALE)`;
    ///   * `teacher` float32 `[B, 2]`: the judge's target, the search leaf's count on the
    ///     logit scale and the teacher's target in (-1, 1) (`RowTargets::teacher`);
    /// * `row` int64 `[B]`: each row's index among all the run's rows.
    fn next_batch<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let left = self.order.len() - self.cursor;
        if left == 0 || (self.drop_last && left < self.batch_size) {
            return Ok(None);
        }
        let take = left.min(self.batch_size);
        let picks: Vec<u32> = self.order[self.cursor..self.cursor + take].to_vec();
        self.cursor += take;
        let this = &*self;
        let decoded = py
            .allow_threads(|| this.decode_batch(&picks))
            .map_err(ShardError::new_err)?;
        let global: Vec<i64> = picks
            .iter()
            .map(|&p| self.rows[p as usize].global as i64)
            .collect();
        batch_dict(py, &decoded, &self.encoder, &global).map(Some)
    }
}

/// Rows of all the run's shards (their names' counts; a shard whose name does not say is
/// read).
fn total_rows(store: &RunStore) -> PyResult<u64> {
    let entries = tengu_shard::list_run(store).map_err(|e| StoreError::new_err(e.to_string()))?;
    let mut total = 0;
    for entry in entries {
        total += match tengu_store::layout::ShardName::parse(entry.name()) {
            Some(n) => n.rows,
            None => {
                tengu_shard::fetch(store, &entry.key)
                    .map_err(shard_err)?
                    .0
                    .rows
            }
        };
    }
    Ok(total)
}

/// The arrays of a batch of decoded rows as a dict of `(bytearray, dtype, shape)` (the
/// keys and shapes of `ShardReader.next_batch`); `rows` becomes its `row` entry.
pub(crate) fn batch_dict<'py>(
    py: Python<'py>,
    decoded: &[Decoded],
    encoder: &tengu_model::Encoder,
    rows: &[i64],
) -> PyResult<Bound<'py, PyDict>> {
    let b = decoded.len();
    let m = decoded
        .iter()
        .map(|d| d.slots.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let n = encoder.size();
    let area = n * n;
    let mut planes = Vec::with_capacity(b * encoder.len());
    let mut from = vec![0i64; b * m];
    let mut to = vec![0i64; b * m];
    let mut code = vec![0i64; b * m];
    let mut count = vec![0i64; b];
    let mut policy = vec![0.0f32; b * m];
    let mut policy_weight = vec![0.0f32; b];
    for (i, d) in decoded.iter().enumerate() {
        planes.extend_from_slice(&d.planes);
        for (j, &(f, t, c)) in d.slots.iter().enumerate() {
            from[i * m + j] = f as i64;
            to[i * m + j] = t as i64;
            code[i * m + j] = c as i64;
            policy[i * m + j] = d.policy[j];
        }
        count[i] = d.slots.len() as i64;
        policy_weight[i] = if d.full_search { 1.0 } else { 0.0 };
    }
    let p = encoder.planes();
    let dict = PyDict::new(py);
    dict.set_item(
        "planes",
        (f32_bytes(py, &planes), "float32", vec![b, p, n, n]),
    )?;
    dict.set_item("move_from", (i64_bytes(py, &from), "int64", vec![b, m]))?;
    dict.set_item("move_to", (i64_bytes(py, &to), "int64", vec![b, m]))?;
    dict.set_item("move_code", (i64_bytes(py, &code), "int64", vec![b, m]))?;
    dict.set_item("move_count", (i64_bytes(py, &count), "int64", vec![b]))?;
    dict.set_item("policy", (f32_bytes(py, &policy), "float32", vec![b, m]))?;
    dict.set_item(
        "policy_weight",
        (f32_bytes(py, &policy_weight), "float32", vec![b]),
    )?;
    // Each head's target once (heads may share one), zero where a row has none.
    let mut done = Vec::new();
    for head in tengu_model::desc::HEADS {
        let name = head.target.name();
        if done.contains(&name) {
            continue;
        }
        done.push(name);
        let len = head.target_len(area);
        let mut has = vec![0.0f32; b];
        if let tengu_model::desc::LossKind::SquareClassCrossEntropy { classes } = head.loss {
            let mut values = vec![0u8; b * len];
            for (i, d) in decoded.iter().enumerate() {
                if d.targets.has(head, area) {
                    values[i * len..(i + 1) * len].copy_from_slice(d.targets.classes(head.target));
                    has[i] = 1.0;
                }
            }
            let shape = vec![b, head.outputs / classes, area];
            dict.set_item(name, (PyByteArray::new(py, &values), "uint8", shape))?;
        } else {
            let mut values = vec![0.0f32; b * len];
            for (i, d) in decoded.iter().enumerate() {
                if d.targets.has(head, area) {
                    values[i * len..(i + 1) * len].copy_from_slice(d.targets.values(head.target));
                    has[i] = 1.0;
                }
            }
            dict.set_item(name, (f32_bytes(py, &values), "float32", vec![b, len]))?;
        }
        dict.set_item(
            format!("has_{name}"),
            (f32_bytes(py, &has), "float32", vec![b]),
        )?;
    }
    dict.set_item("row", (i64_bytes(py, rows), "int64", vec![b]))?;
    Ok(dict)
}
