//! The layout of a run directory, shared by workers, the trainer and the arena:
//!
//! ```text
//! runs/NAME/config.toml                         the effective run configuration
//! runs/NAME/models/model-<step, 9 digits>.safetensors   checkpoints (newest = largest step)
//! runs/NAME/shards/<stamp>-<host>-<pid>-<seq>.shard     replay shards
//! runs/NAME/games/<shard stem>-<game>.record            game records of those shards
//! ```
//! Names starting with a dot are temporaries being written; every reader skips them.

use std::path::{Path, PathBuf};

pub fn models(run: &Path) -> PathBuf {
    run.join("models")
}

pub fn shards(run: &Path) -> PathBuf {
    run.join("shards")
}

pub fn games(run: &Path) -> PathBuf {
    run.join("games")
}

/// File name of the checkpoint after `step` training steps.
pub fn checkpoint_name(step: u64) -> String {
    format!("model-{step:09}.safetensors")
}

/// The step number in a checkpoint file name.
pub fn checkpoint_step(name: &str) -> Option<u64> {
    name.strip_prefix("model-")?
        .strip_suffix(".safetensors")?
        .parse()
        .ok()
}

/// Checkpoints of a run, oldest first, as (step, path). A missing directory has none.
pub fn checkpoints(run: &Path) -> std::io::Result<Vec<(u64, PathBuf)>> {
    let dir = models(run);
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(step) = checkpoint_step(&name) {
            out.push((step, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The newest checkpoint of a run, if any.
pub fn newest_checkpoint(run: &Path) -> std::io::Result<Option<(u64, PathBuf)>> {
    Ok(checkpoints(run)?.pop())
}

/// A name stem unique across workers and machines: milliseconds since the epoch, host,
/// process id and a per-process sequence number.
pub fn unique_stem(sequence: u64) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!(
        "{ms:013}-{}-{}-{sequence:05}",
        host_name(),
        std::process::id()
    )
}

/// This machine's name (letters, digits and dashes only), or `host`.
pub fn host_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_default();
    let clean: String = raw
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if clean.is_empty() {
        "host".into()
    } else {
        clean
    }
}
