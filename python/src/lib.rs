//! `tengu._tengu`: the native module of the Python package `tengu` (see `python/tengu/`).
//!
//! Everything here wraps the Rust crates; nothing is implemented twice:
//! * [`board`]: `Board` over `tengu_rules::Game` (positions, moves, records, perft, SVG);
//! * [`encode`]: `Encoder` over `tengu_model::Encoder` and `PolicyIndex`;
//! * [`reader`]: `ShardReader` over `tengu_shard` and `tengu_store` (every row of a run
//!   exactly once across ranks x loader workers), targets from `tengu_trainer::window`;
//! * [`run`]: run configs, checkpoints (`tengu_model::checkpoint`), the trainer lease and
//!   checkpoint publication (`tengu_store`), the Rust evaluator;
//! * [`window`]: `RunWindow`, `TrainLog`, `CpuLedger`: a run followed as the Rust trainer
//!   follows it (`tengu_trainer::window`, `log`; `tengu_run::curves`; `tengu_store::cpu`).
//!
//! Errors become Python exceptions of the classes below, each naming its cause; no input
//! makes the interpreter crash (a Rust panic would surface as `pyo3.PanicException`).

use pyo3::prelude::*;

mod board;
mod encode;
mod reader;
mod run;
mod svg;
mod window;

pyo3::create_exception!(
    _tengu,
    TenguError,
    pyo3::exceptions::PyException,
    "Base class of tengu's errors."
);
pyo3::create_exception!(
    _tengu,
    PositionError,
    TenguError,
    "A position text or QBoard FEN that cannot be parsed, or an unknown game."
);
pyo3::create_exception!(
    _tengu,
    MoveError,
    TenguError,
    "A move that cannot be parsed or is not legal in the position."
);
pyo3::create_exception!(
    _tengu,
    RecordError,
    TenguError,
    "A game record (RULES.md section 12.4) that cannot be read."
);
pyo3::create_exception!(
    _tengu,
    ShardError,
    TenguError,
    "A replay shard that cannot be read (missing, corrupt, another game)."
);
pyo3::create_exception!(
    _tengu,
    ShardVersionError,
    ShardError,
    "A replay shard of another format version."
);
pyo3::create_exception!(
    _tengu,
    RunConfigError,
    TenguError,
    "A run without a config, or a config that cannot be used."
);
pyo3::create_exception!(
    _tengu,
    CheckpointError,
    TenguError,
    "A checkpoint that cannot be used (another game, encoder or network)."
);
pyo3::create_exception!(
    _tengu,
    StoreError,
    TenguError,
    "A run location that cannot be read or written, or a lease held by another trainer."
);

#[pymodule]
fn _tengu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TenguError", py.get_type::<TenguError>())?;
    m.add("PositionError", py.get_type::<PositionError>())?;
    m.add("MoveError", py.get_type::<MoveError>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    m.add("ShardError", py.get_type::<ShardError>())?;
    m.add("ShardVersionError", py.get_type::<ShardVersionError>())?;
    m.add("RunConfigError", py.get_type::<RunConfigError>())?;
    m.add("CheckpointError", py.get_type::<CheckpointError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("ENCODER_VERSION", tengu_model::ENCODER_VERSION)?;
    m.add("SHARD_FORMAT_VERSION", tengu_shard::FORMAT_VERSION)?;
    m.add("RULES_VERSION", tengu_rules::RULES_VERSION)?;
    m.add("CODES", tengu_model::desc::CODES)?;
    m.add("AUX_HORIZONS", tengu_model::desc::AUX_HORIZONS)?;
    m.add("OCCUPANCY_CLASSES", tengu_model::desc::OCCUPANCY_CLASSES)?;
    m.add("VALUE_HIDDEN", tengu_model::desc::VALUE_HIDDEN)?;
    m.add("MATERIAL_SCALE", tengu_model::desc::MATERIAL_SCALE)?;
    m.add_class::<board::Board>()?;
    m.add_class::<encode::Encoder>()?;
    m.add_class::<reader::ShardReader>()?;
    m.add_function(wrap_pyfunction!(board::read_records, m)?)?;
    m.add_function(wrap_pyfunction!(run::parameter_shapes, m)?)?;
    m.add_function(wrap_pyfunction!(run::heads, m)?)?;
    m.add_function(wrap_pyfunction!(run::net_config, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_config, m)?)?;
    m.add_function(wrap_pyfunction!(run::write_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(run::read_checkpoint_meta, m)?)?;
    m.add_function(wrap_pyfunction!(run::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(run::newest_checkpoint, m)?)?;
    m.add_function(wrap_pyfunction!(run::write_optimizer_state, m)?)?;
    m.add_function(wrap_pyfunction!(run::read_optimizer_state, m)?)?;
    m.add_function(wrap_pyfunction!(run::published_optimizer_state, m)?)?;
    m.add_class::<run::Lease>()?;
    m.add_class::<window::RunWindow>()?;
    m.add_class::<window::TrainLog>()?;
    m.add_class::<window::CpuLedger>()?;
    m.add_function(wrap_pyfunction!(window::write_curves, m)?)?;
    m.add_function(wrap_pyfunction!(window::read_loss_log, m)?)?;
    Ok(())
}

/// The game of an id (`dai-dai`, `maka-dai-dai`), or a [`PositionError`] naming the ids.
pub(crate) fn variant_of(game: &str) -> PyResult<std::sync::Arc<tengu_rules::Variant>> {
    tengu_rules::Variant::builtin(game).ok_or_else(|| {
        PositionError::new_err(format!(
            "unknown game {game:?}: the games are \"dai-dai\" and \"maka-dai-dai\""
        ))
    })
}

/// A float vector as a Python `bytearray` (native byte order), which `numpy.frombuffer`
/// views without a copy (writable, so `torch.from_numpy` takes it too).
pub(crate) fn f32_bytes<'py>(py: Python<'py>, v: &[f32]) -> Bound<'py, pyo3::types::PyByteArray> {
    // SAFETY: f32 has no padding and any byte pattern is a valid u8.
    let bytes =
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) };
    pyo3::types::PyByteArray::new(py, bytes)
}

/// An i64 vector as a Python `bytearray` (native byte order).
pub(crate) fn i64_bytes<'py>(py: Python<'py>, v: &[i64]) -> Bound<'py, pyo3::types::PyByteArray> {
    // SAFETY: i64 has no padding and any byte pattern is a valid u8.
    let bytes =
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) };
    pyo3::types::PyByteArray::new(py, bytes)
}
