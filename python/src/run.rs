//! Runs, checkpoints and publication: what a Python trainer needs to take part in a run
//! like the Rust trainer (the run's config, the one naming table of the weights, the
//! safetensors checkpoint with its metadata, the trainer lease and the manifest), and the
//! Rust evaluator (to check a checkpoint trained in Python).

use std::path::Path;

use pyo3::prelude::*;
use serde::Deserialize;
use tengu_model::checkpoint::CheckpointMeta;
use tengu_model::desc::NetConfig;
use tengu_model::{Backend, EvalInput};
use tengu_rules::Variant;
use tengu_store::RunStore;
use tengu_trainer::config::TrainConfig;

use crate::board::Board;
use crate::{variant_of, CheckpointError, RunConfigError, StoreError};

/// Opens a run location (a directory, `file://`, `s3://`, `gs://`, `az://`, `memory://`).
pub(crate) fn open_store(run: &str) -> PyResult<RunStore> {
    RunStore::open(run).map_err(|e| StoreError::new_err(e.to_string()))
}

/// The parts of a run's `config.toml` a Python trainer and reader need: the game, the
/// network's preset and planes, and the whole `[train]` table (the Rust trainer's
/// `TrainConfig`, unknown keys refused, then validated). The other sections belong to the
/// workers and are not read here (the `tengu` binary checks them).
#[derive(Deserialize)]
#[serde(default)]
pub(crate) struct RunView {
    pub game: String,
    pub network: NetworkView,
    pub train: TrainConfig,
}

#[derive(Deserialize)]
#[serde(default)]
pub(crate) struct NetworkView {
    pub preset: String,
    pub tactical_planes: bool,
    pub material_planes: bool,
    /// `network.init`: the checkpoint a new run starts from.
    pub init: Option<String>,
}

impl Default for RunView {
    fn default() -> Self {
        RunView {
            game: "dai-dai".into(),
            network: NetworkView::default(),
            train: TrainConfig::default(),
        }
    }
}

impl Default for NetworkView {
    /// The `tengu` binary's defaults (`src/config.rs`).
    fn default() -> Self {
        NetworkView {
            preset: "cpu".into(),
            tactical_planes: true,
            material_planes: false,
            init: None,
        }
    }
}

impl RunView {
    /// Parses and validates a config text; `origin` names it in errors.
    pub(crate) fn parse(text: &str, origin: &str) -> PyResult<RunView> {
        let view: RunView =
            toml::from_str(text).map_err(|e| RunConfigError::new_err(format!("{origin}: {e}")))?;
        view.train
            .validate()
            .map_err(|e| RunConfigError::new_err(format!("{origin}: {e}")))?;
        variant_of(&view.game)
            .map_err(|e| RunConfigError::new_err(format!("{origin}: game: {e}")))?;
        Ok(view)
    }

    /// The run's config; a run without one is a `RunConfigError`.
    pub(crate) fn of_store(store: &RunStore) -> PyResult<RunView> {
        let key = tengu_store::layout::CONFIG;
        let text = store
            .get_text(key)
            .map_err(|e| StoreError::new_err(e.to_string()))?
            .ok_or_else(|| {
                RunConfigError::new_err(format!(
                    "{}: the run has no {key} (a run gets one from `tengu run --config` or `tengu train --config`)",
                    store.display()
                ))
            })?;
        RunView::parse(&text, &store.address_of(key))
    }

    pub(crate) fn encoder(&self, variant: &Variant) -> tengu_model::Encoder {
        tengu_model::Encoder::with_planes(
            variant,
            self.network.tactical_planes,
            self.network.material_planes,
        )
    }

    /// The network a new run of this config starts with.
    pub(crate) fn net_config(&self) -> PyResult<NetConfig> {
        let variant = variant_of(&self.game)?;
        let e = self.encoder(&variant);
        NetConfig::from_preset(&self.network.preset, e.planes(), e.size())
            .map_err(|e| RunConfigError::new_err(format!("network.preset: {e}")))
    }
}

fn config_json(c: &NetConfig) -> serde_json::Value {
    serde_json::json!({
        "planes": c.planes, "size": c.size, "blocks": c.blocks, "channels": c.channels,
        "head_dim": c.head_dim, "value_channels": c.value_channels,
    })
}

/// A network config from the Python dict's fields.
fn config_of(
    planes: usize,
    size: usize,
    blocks: usize,
    channels: usize,
    head_dim: usize,
    value_channels: usize,
) -> NetConfig {
    NetConfig::new(planes, size, blocks, channels)
        .with_head_dim(head_dim)
        .with_value_channels(value_channels)
}

/// The run's config as JSON: `game`, `network` (preset and planes flags), `net` (the
/// architecture a new network of the run has), `train` (every `[train]` key, defaults
/// filled in). `RunConfigError` for a run without a config or a config that cannot be used.
#[pyfunction]
pub fn run_config(py: Python<'_>, run: &str) -> PyResult<String> {
    let store = open_store(run)?;
    let view = py.allow_threads(|| RunView::of_store(&store))?;
    let net = view.net_config()?;
    let train = serde_json::to_value(&view.train).expect("TrainConfig serialises");
    Ok(serde_json::json!({
        "game": view.game,
        "network": {
            "preset": view.network.preset,
            "tactical_planes": view.network.tactical_planes,
            "material_planes": view.network.material_planes,
            "init": view.network.init,
        },
        "net": config_json(&net),
        "train": train,
    })
    .to_string())
}

/// The architecture of preset `preset` for `game` with the encoder layout of the flags, as
/// JSON (`planes`, `size`, `blocks`, `channels`, `head_dim`, `value_channels`).
#[pyfunction]
#[pyo3(signature = (game, preset, tactical=true, material=false))]
pub fn net_config(game: &str, preset: &str, tactical: bool, material: bool) -> PyResult<String> {
    let variant = variant_of(game)?;
    let e = tengu_model::Encoder::with_planes(&variant, tactical, material);
    let c = NetConfig::from_preset(preset, e.planes(), e.size())
        .map_err(|e| CheckpointError::new_err(format!("preset {preset:?}: {e}")))?;
    Ok(config_json(&c).to_string())
}

/// The naming table of the weights (`tengu_model::desc::parameter_shapes`): `(name, shape)`
/// in order; convolution weights `[out, in, k, k]`, linear weights `[in, out]` (burn's
/// layout, which every backend reads).
#[pyfunction]
pub fn parameter_shapes(
    planes: usize,
    size: usize,
    blocks: usize,
    channels: usize,
    head_dim: usize,
    value_channels: usize,
) -> Vec<(String, Vec<i64>)> {
    tengu_model::desc::parameter_shapes(&config_of(
        planes,
        size,
        blocks,
        channels,
        head_dim,
        value_channels,
    ))
}

/// The trained heads besides the policy (`tengu_model::desc::HEADS`, the table the Rust
/// CPU trainer reads), as JSON text: a list of `{"layer", "loss_name", "input"
/// ("value_hidden" | "squares" | "squares_summed"), "outputs", "activation" ("identity" | "tanh"), "loss"
/// ("softmax_cross_entropy" | "square_class_cross_entropy" | "squared_error" |
/// "residual_squared_error"), "classes"
/// (the square heads' classes, else null), "target" (the batch key), "weight_key" (a
/// `[train]` key, or null for weight 1), "default_weight" (its weight where `[train]` lacks
/// the key), "averages_over_rows_with_target" (its loss is a mean over the rows that have
/// its target, else over every row), "init" ("default" | "zero")}` in the table's order.
#[pyfunction]
pub fn heads() -> String {
    use tengu_model::desc::{Activation, HeadInit, HeadInput, LossKind, HEADS};
    let rows: Vec<serde_json::Value> = HEADS
        .iter()
        .map(|h| {
            let (loss, classes) = match h.loss {
                LossKind::SoftmaxCrossEntropy => ("softmax_cross_entropy", None),
                LossKind::SquareClassCrossEntropy { classes } => {
                    ("square_class_cross_entropy", Some(classes))
                }
                LossKind::SquaredError => ("squared_error", None),
                LossKind::ResidualSquaredError => ("residual_squared_error", None),
            };
            serde_json::json!({
                "layer": h.layer,
                "loss_name": h.loss_name,
                "input": match h.input {
                    HeadInput::ValueHidden => "value_hidden",
                    HeadInput::Squares => "squares",
                    HeadInput::SquaresSummed => "squares_summed",
                },
                "outputs": h.outputs,
                "activation": match h.activation {
                    Activation::Identity => "identity",
                    Activation::Tanh => "tanh",
                },
                "loss": loss,
                "classes": classes,
                "target": h.target.name(),
                "weight_key": h.weight_key,
                "default_weight": h.default_weight,
                "averages_over_rows_with_target": h.averages_over_rows_with_target(),
                "init": match h.init {
                    HeadInit::Default => "default",
                    HeadInit::Zero => "zero",
                },
            })
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

/// Writes a checkpoint (safetensors with tengu's metadata, atomically) that the Rust
/// evaluators load: `net` the architecture JSON of `net_config`, `tensors` a list of
/// `(name, float32 bytes)` in any order. Every name of the naming table must be there
/// with its shape's element count, and no other: else `CheckpointError` naming it.
#[pyfunction]
#[pyo3(signature = (path, game, net, step, tensors, parent=None))]
pub fn write_checkpoint(
    py: Python<'_>,
    path: &str,
    game: &str,
    net: &str,
    step: u64,
    tensors: Vec<(String, Vec<u8>)>,
    parent: Option<String>,
) -> PyResult<()> {
    variant_of(game)?;
    let config = parse_net(net)?;
    let table = tengu_model::desc::parameter_shapes(&config);
    let mut given: std::collections::HashMap<String, Vec<u8>> = std::collections::HashMap::new();
    for (name, bytes) in tensors {
        if given.insert(name.clone(), bytes).is_some() {
            return Err(CheckpointError::new_err(format!(
                "{path}: tensor {name:?} given twice"
            )));
        }
    }
    let mut out = Vec::with_capacity(table.len());
    for (name, shape) in &table {
        let bytes = given.remove(name).ok_or_else(|| {
            CheckpointError::new_err(format!(
                "{path}: tensor {name:?} (shape {shape:?}) is missing"
            ))
        })?;
        let elements: i64 = shape.iter().product();
        if bytes.len() != 4 * elements as usize {
            return Err(CheckpointError::new_err(format!(
                "{path}: tensor {name:?} has {} float32 values, its shape {shape:?} needs {elements}",
                bytes.len() / 4
            )));
        }
        let data: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.push((name.clone(), shape.clone(), data));
    }
    if let Some(extra) = given.keys().min() {
        return Err(CheckpointError::new_err(format!(
            "{path}: tensor {extra:?} is not in the naming table of this network"
        )));
    }
    let meta = CheckpointMeta {
        encoder_version: tengu_model::ENCODER_VERSION,
        game: game.to_string(),
        config,
        step,
        parent,
    };
    py.allow_threads(|| tengu_model::checkpoint::write_safetensors(Path::new(path), &meta, &out))
        .map_err(|e| CheckpointError::new_err(e.to_string()))
}

/// Writes an AdamW state in the CPU trainer's file format
/// (`tengu_model::cpu_train::write_adamw_state`), so that `tengu train` resumes a run the
/// PyTorch trainer trained with its moments: `steps` the AdamW steps taken, `moments` a list
/// of `(name, first moments, second moments)` (float32 bytes, the parameter's checkpoint
/// layout) in the naming table's order.
#[pyfunction]
pub fn write_optimizer_state(
    py: Python<'_>,
    path: &str,
    steps: u64,
    moments: Vec<(String, Vec<u8>, Vec<u8>)>,
) -> PyResult<()> {
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let moments: Vec<(String, Vec<f32>, Vec<f32>)> = moments
        .iter()
        .map(|(name, m1, m2)| (name.clone(), floats(m1), floats(m2)))
        .collect();
    py.allow_threads(|| {
        let params = moments
            .iter()
            .map(|(name, m1, m2)| (name.as_str(), &m1[..], &m2[..]));
        tengu_model::cpu_train::write_adamw_state(Path::new(path), steps, params)
    })
    .map_err(|e| CheckpointError::new_err(e.to_string()))
}

/// Reads an AdamW state file of either trainer: `(steps, [(name, first moments, second
/// moments)])`, the moments float32 bytes in the checkpoint layout of each parameter.
#[pyfunction]
pub fn read_optimizer_state<'py>(
    py: Python<'py>,
    path: &str,
) -> PyResult<(
    u64,
    Vec<(
        String,
        Bound<'py, pyo3::types::PyByteArray>,
        Bound<'py, pyo3::types::PyByteArray>,
    )>,
)> {
    let state = py
        .allow_threads(|| tengu_model::cpu_train::read_adamw_state(Path::new(path)))
        .map_err(|e| CheckpointError::new_err(e.to_string()))?;
    let params = state
        .params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                crate::f32_bytes(py, &p.moment_1),
                crate::f32_bytes(py, &p.moment_2),
            )
        })
        .collect();
    Ok((state.steps, params))
}

/// The local path of the optimizer state published with checkpoint `step` of the run
/// (verified against its manifest; downloaded into tengu's cache from an object store), or
/// `None` when the checkpoint was published without one.
#[pyfunction]
pub fn published_optimizer_state(py: Python<'_>, run: &str, step: u64) -> PyResult<Option<String>> {
    let store = open_store(run)?;
    py.allow_threads(|| {
        let err = |e: tengu_store::StoreError| StoreError::new_err(e.to_string());
        let cache = tengu_store::checkpoint::CheckpointCache::new(&store, 4);
        let (_, manifest) = cache.fetch(&store, step).map_err(err)?;
        let path = cache.fetch_optimizer(&store, &manifest).map_err(err)?;
        Ok(path.map(|p| p.display().to_string()))
    })
}

fn parse_net(net: &str) -> PyResult<NetConfig> {
    let v: serde_json::Value = serde_json::from_str(net)
        .map_err(|e| CheckpointError::new_err(format!("network config {net:?}: {e}")))?;
    let field = |k: &str| -> PyResult<usize> {
        v.get(k)
            .and_then(|x| x.as_u64())
            .map(|x| x as usize)
            .ok_or_else(|| CheckpointError::new_err(format!("network config: no integer {k:?}")))
    };
    Ok(config_of(
        field("planes")?,
        field("size")?,
        field("blocks")?,
        field("channels")?,
        field("head_dim")?,
        field("value_channels")?,
    ))
}

/// A checkpoint's metadata as JSON (`encoder_version`, `game`, `step`, `parent`, `net`),
/// refusing one of another game (when `game` is given) or encoder version.
#[pyfunction]
#[pyo3(signature = (path, game=None))]
pub fn read_checkpoint_meta(path: &str, game: Option<&str>) -> PyResult<String> {
    let p = Path::new(path);
    let meta = match game {
        Some(g) => tengu_model::checkpoint::read_meta_for(p, g),
        None => tengu_model::checkpoint::read_meta(p),
    }
    .map_err(|e| CheckpointError::new_err(e.to_string()))?;
    Ok(serde_json::json!({
        "encoder_version": meta.encoder_version, "game": meta.game, "step": meta.step,
        "parent": meta.parent, "net": config_json(&meta.config),
    })
    .to_string())
}

/// The policy (probability of each legal move, in `Board.legal_moves()` order), WDL and
/// material of `boards` by the Rust evaluator `backend` (default `burn`: tengu's CPU
/// kernels) over checkpoint `path`, computed with the GIL released.
#[pyfunction]
#[pyo3(signature = (path, boards, backend="burn"))]
pub fn evaluate(
    py: Python<'_>,
    path: &str,
    boards: Vec<PyRef<'_, Board>>,
    backend: &str,
) -> PyResult<Vec<(Vec<f32>, [f32; 3], f32)>> {
    let backend: Backend = backend
        .parse()
        .map_err(|e: tengu_model::backend::UnknownBackend| {
            CheckpointError::new_err(e.to_string())
        })?;
    let Some(first) = boards.first() else {
        return Ok(Vec::new());
    };
    let variant = first.position().variant().clone();
    let inputs: Vec<(tengu_rules::Position, u32)> = boards
        .iter()
        .map(|b| (b.position().clone(), b.repetitions()))
        .collect();
    if let Some(b) = boards
        .iter()
        .find(|b| b.position().variant().id() != variant.id())
    {
        return Err(CheckpointError::new_err(format!(
            "boards of two games ({} and {}) in one evaluation",
            variant.id(),
            b.position().variant().id()
        )));
    }
    py.allow_threads(move || {
        let (mut eval, _) = backend
            .load_evaluator(Path::new(path), &variant)
            .map_err(|e| CheckpointError::new_err(e.to_string()))?;
        let moves: Vec<Vec<tengu_rules::Move>> =
            inputs.iter().map(|(p, _)| p.legal_move_list()).collect();
        let batch: Vec<EvalInput<'_>> = inputs
            .iter()
            .zip(&moves)
            .map(|((position, repetitions), moves)| EvalInput {
                position,
                moves,
                repetitions: *repetitions,
            })
            .collect();
        let out = eval
            .evaluate(&batch)
            .map_err(|e| CheckpointError::new_err(format!("{path}: {e}")))?;
        Ok(out
            .into_iter()
            .map(|e| (e.policy, e.wdl, e.material))
            .collect())
    })
}

/// The run's newest committed checkpoint as `(step, local path, manifest JSON)` (verified
/// against its manifest's hash; downloaded into tengu's cache from an object store), or
/// `None` before the first.
#[pyfunction]
pub fn newest_checkpoint(py: Python<'_>, run: &str) -> PyResult<Option<(u64, String, String)>> {
    let store = open_store(run)?;
    py.allow_threads(|| {
        let err = |e: tengu_store::StoreError| StoreError::new_err(e.to_string());
        let Some(step) = tengu_store::checkpoint::newest(&store).map_err(err)? else {
            return Ok(None);
        };
        let cache = tengu_store::checkpoint::CheckpointCache::new(&store, 4);
        let (path, manifest) = cache.fetch(&store, step).map_err(err)?;
        let manifest = serde_json::to_string(&manifest).expect("manifest serialises");
        Ok(Some((step, path.display().to_string(), manifest)))
    })
}

/// The trainer lease of a run (`tengu_store::lease`): exactly one trainer, Rust or Python,
/// publishes into a run. `Lease(run, lease_seconds=30.0)` waits up to `lease_seconds` for a
/// previous holder's heartbeat to stop, and is a `StoreError` while another trainer's
/// heartbeat moves. A background thread keeps the heartbeat going until `release()`.
#[pyclass(module = "tengu._tengu")]
pub struct Lease {
    store: RunStore,
    lease: Option<tengu_store::lease::Lease>,
}

#[pymethods]
impl Lease {
    #[new]
    #[pyo3(signature = (run, lease_seconds=30.0))]
    fn new(py: Python<'_>, run: &str, lease_seconds: f64) -> PyResult<Lease> {
        let store = open_store(run)?;
        let lease = py
            .allow_threads(|| {
                tengu_store::lease::Lease::acquire(&store, lease_seconds, &mut |_| {})
            })
            .map_err(|e| StoreError::new_err(e.to_string()))?;
        Ok(Lease {
            store,
            lease: Some(lease),
        })
    }

    /// The lease's generation (written into the manifests it publishes).
    #[getter]
    fn generation(&self) -> PyResult<u64> {
        Ok(self.held()?.generation())
    }

    /// `StoreError` when another trainer has taken the run over.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        let lease = self.held()?;
        py.allow_threads(|| lease.check(&self.store))
            .map_err(|e| StoreError::new_err(e.to_string()))
    }

    /// Publishes the checkpoint file `weights` (from `write_checkpoint`) as the run's step
    /// `step`: the lease is checked, then optimizer state (a file, optional), weights and
    /// the manifest with their SHA-256 hashes are put (the manifest last, put-if-absent, so
    /// workers never see a half-published checkpoint). Returns the manifest as JSON.
    #[pyo3(signature = (step, weights, optimizer=None, rows_seen=0, parent=None))]
    fn publish(
        &self,
        py: Python<'_>,
        step: u64,
        weights: &str,
        optimizer: Option<&str>,
        rows_seen: u64,
        parent: Option<String>,
    ) -> PyResult<String> {
        let lease = self.held()?;
        py.allow_threads(|| {
            let read = |p: &str| {
                std::fs::read(p)
                    .map_err(|e| CheckpointError::new_err(format!("{p}: cannot read: {e}")))
            };
            let weights = read(weights)?;
            let optimizer = optimizer.map(read).transpose()?;
            lease
                .check(&self.store)
                .map_err(|e| StoreError::new_err(e.to_string()))?;
            let manifest = tengu_store::checkpoint::publish(
                &self.store,
                &tengu_store::checkpoint::Publication {
                    step,
                    weights: &weights,
                    optimizer: optimizer.as_deref(),
                    lease: lease.generation(),
                    rows_seen,
                    parent,
                },
            )
            .map_err(|e| StoreError::new_err(e.to_string()))?;
            Ok(serde_json::to_string(&manifest).expect("manifest serialises"))
        })
    }

    /// Gives the run up (another trainer may take it at once).
    fn release(&mut self) {
        if let Some(l) = self.lease.take() {
            l.release();
        }
    }
}

impl Lease {
    fn held(&self) -> PyResult<&tengu_store::lease::Lease> {
        self.lease
            .as_ref()
            .ok_or_else(|| StoreError::new_err("the lease was released"))
    }
}
