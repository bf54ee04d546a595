//! Checkpoints published without rename: weights (and optimizer state) first, then a small
//! manifest written once (put-if-absent). The manifest is the commit record: readers
//! consider only steps with one and verify the weights' size and SHA-256 against it, so a
//! trainer killed between the two writes leaves nothing a worker would load.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::atomic::write_atomic;
/// Where a verification fails; defined beside [`crate::StoreError`], which carries it.
pub use crate::error::ObjectMismatch;
use crate::error::StoreError;
use crate::layout;
use crate::store::RunStore;

/// Version of the manifest format.
pub const MANIFEST_VERSION: u32 = 1;

/// An object a manifest vouches for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    pub key: String,
    pub size: u64,
    /// Lower-case hex SHA-256 of the bytes.
    pub sha256: String,
}

impl ObjectRef {
    pub fn of(key: &str, bytes: &[u8]) -> ObjectRef {
        ObjectRef {
            key: key.into(),
            size: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        }
    }

    /// `Ok` when `bytes` are the object this names.
    pub fn verify(&self, bytes: &[u8]) -> Result<(), ObjectMismatch> {
        if bytes.len() as u64 != self.size {
            return Err(ObjectMismatch::Size {
                key: self.key.clone(),
                found: bytes.len() as u64,
                expected: self.size,
            });
        }
        let found = sha256_hex(bytes);
        if found != self.sha256 {
            return Err(ObjectMismatch::Digest {
                key: self.key.clone(),
                found,
                expected: self.sha256.clone(),
            });
        }
        Ok(())
    }
}

/// The commit record of a checkpoint (`models/model-<step>.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub version: u32,
    pub step: u64,
    pub weights: ObjectRef,
    pub optimizer: Option<ObjectRef>,
    /// Generation of the trainer lease that published it.
    pub lease: u64,
    /// Replay rows the trainer had seen when it published.
    pub rows_seen: u64,
    /// Weights name of the checkpoint this one was trained from.
    pub parent: Option<String>,
    pub unix_time: f64,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a publisher knows besides the bytes.
pub struct Publication<'a> {
    pub step: u64,
    pub weights: &'a [u8],
    pub optimizer: Option<&'a [u8]>,
    pub lease: u64,
    pub rows_seen: u64,
    pub parent: Option<String>,
}

/// Publishes a checkpoint: optimizer state, weights, then the manifest (put-if-absent).
/// A manifest already there for this step means another trainer committed it:
/// [`StoreError::Conflict`].
pub fn publish(store: &RunStore, p: &Publication) -> Result<Manifest, StoreError> {
    let committed_already = || {
        StoreError::Conflict(format!(
            "{}: checkpoint step {} is committed already (by another trainer of this run?)",
            store.display(),
            p.step
        ))
    };
    // Checked first so a trainer that should not be publishing does not overwrite committed
    // weights; the manifest's put-if-absent below settles a race, and readers verify hashes.
    if store.exists(&layout::manifest_key(p.step))? {
        return Err(committed_already());
    }
    let optimizer = match p.optimizer {
        Some(bytes) => {
            let key = layout::optimizer_key(p.step);
            store.put(&key, bytes.to_vec())?;
            Some(ObjectRef::of(&key, bytes))
        }
        None => None,
    };
    let weights_key = layout::weights_key(p.step);
    // Overwrite, not create: weights without a manifest are leftovers of a trainer that died
    // before committing, and no reader ever loads them.
    store.put(&weights_key, p.weights.to_vec())?;
    let manifest = Manifest {
        version: MANIFEST_VERSION,
        step: p.step,
        weights: ObjectRef::of(&weights_key, p.weights),
        optimizer,
        lease: p.lease,
        rows_seen: p.rows_seen,
        parent: p.parent.clone(),
        unix_time: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
    };
    let text = serde_json::to_string_pretty(&manifest).expect("manifest serialises");
    if !store.create(&layout::manifest_key(p.step), text.into_bytes())? {
        return Err(committed_already());
    }
    Ok(manifest)
}

/// Publishes a weights file made elsewhere as the run's checkpoint `step` (tests, seeding a
/// run with a network trained before); no optimizer state, lease generation 0.
pub fn publish_file(store: &RunStore, step: u64, path: &Path) -> Result<Manifest, StoreError> {
    let weights = std::fs::read(path).map_err(|e| StoreError::Invalid {
        location: store.display(),
        key: layout::weights_key(step),
        problem: format!("cannot read {}: {e}", path.display()),
    })?;
    publish(
        store,
        &Publication {
            step,
            weights: &weights,
            optimizer: None,
            lease: 0,
            rows_seen: 0,
            parent: None,
        },
    )
}

/// Steps of the committed checkpoints (those with a manifest), oldest first.
pub fn committed(store: &RunStore) -> Result<Vec<u64>, StoreError> {
    Ok(steps_of(store.list(layout::MODELS)?))
}

/// Committed steps after `step` (one listing request per 1,000 new keys).
pub fn committed_after(store: &RunStore, step: u64) -> Result<Vec<u64>, StoreError> {
    let after = format!("model-{step:09}.json");
    Ok(steps_of(store.list_after(layout::MODELS, &after)?))
}

fn steps_of(entries: Vec<crate::Entry>) -> Vec<u64> {
    let mut steps: Vec<u64> = entries
        .iter()
        .filter(|e| e.name().ends_with(".json"))
        .filter_map(|e| layout::checkpoint_step(e.name()))
        .collect();
    steps.sort_unstable();
    steps.dedup();
    steps
}

/// The newest committed step, if any.
pub fn newest(store: &RunStore) -> Result<Option<u64>, StoreError> {
    Ok(committed(store)?.pop())
}

/// The manifest of committed step `step`.
pub fn manifest(store: &RunStore, step: u64) -> Result<Manifest, StoreError> {
    let key = layout::manifest_key(step);
    let invalid = |problem: String| StoreError::Invalid {
        location: store.display(),
        key: key.clone(),
        problem,
    };
    let text = store
        .get_text(&key)?
        .ok_or_else(|| invalid("no such checkpoint manifest".into()))?;
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| invalid(format!("not a checkpoint manifest: {e}")))?;
    if m.version != MANIFEST_VERSION {
        return Err(invalid(format!(
            "manifest version {}, this build reads {MANIFEST_VERSION}",
            m.version
        )));
    }
    if m.step != step {
        return Err(invalid(format!(
            "manifest of step {} under step {step}",
            m.step
        )));
    }
    Ok(m)
}

/// Verified local copies of a run's checkpoints: for a local run the file itself (checked
/// in place), otherwise a download into `$XDG_CACHE_HOME/tengu/checkpoints/<run>/`. Names are
/// immutable, so a cached file never needs invalidating.
pub struct CheckpointCache {
    dir: PathBuf,
    /// Downloaded checkpoints kept (the newest); 0 keeps all.
    keep: usize,
}

/// The cache root: `$TENGU_CACHE`, else `$XDG_CACHE_HOME/tengu`, else `~/.cache/tengu`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("TENGU_CACHE") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("tengu")
}

impl CheckpointCache {
    /// The cache of `store`'s run, keeping the newest `keep` downloads (0: all).
    pub fn new(store: &RunStore, keep: usize) -> CheckpointCache {
        let id = format!(
            "{:016x}",
            u64::from_str_radix(&sha256_hex(store.display().as_bytes())[..16], 16).unwrap_or(0)
        );
        CheckpointCache {
            dir: cache_root().join("checkpoints").join(id),
            keep,
        }
    }

    /// A verified local file of committed checkpoint `step`, with its manifest.
    pub fn fetch(&self, store: &RunStore, step: u64) -> Result<(PathBuf, Manifest), StoreError> {
        let m = manifest(store, step)?;
        let invalid = |problem: String| StoreError::Invalid {
            location: store.display(),
            key: m.weights.key.clone(),
            problem,
        };
        let mismatch = |source| StoreError::Mismatch {
            location: store.display(),
            source,
        };
        if let Some(path) = store.local_path(&m.weights.key) {
            let bytes = std::fs::read(&path).map_err(|e| invalid(e.to_string()))?;
            m.weights.verify(&bytes).map_err(mismatch)?;
            return Ok((path, m));
        }
        let path = self.dir.join(layout::weights_name(step));
        if let Ok(bytes) = std::fs::read(&path) {
            if m.weights.verify(&bytes).is_ok() {
                return Ok((path, m));
            }
        }
        let bytes = store
            .get(&m.weights.key)?
            .ok_or_else(|| invalid("the manifest names weights that are not there".into()))?;
        m.weights.verify(&bytes).map_err(mismatch)?;
        std::fs::create_dir_all(&self.dir)
            .and_then(|_| write_atomic(&path, &bytes))
            .map_err(|e| invalid(format!("cache {}: {e}", path.display())))?;
        self.prune(&path);
        Ok((path, m))
    }

    /// The optimizer state of `manifest` as a local file, if it has one.
    pub fn fetch_optimizer(
        &self,
        store: &RunStore,
        manifest: &Manifest,
    ) -> Result<Option<PathBuf>, StoreError> {
        let Some(r) = &manifest.optimizer else {
            return Ok(None);
        };
        let invalid = |problem: String| StoreError::Invalid {
            location: store.display(),
            key: r.key.clone(),
            problem,
        };
        let mismatch = |source| StoreError::Mismatch {
            location: store.display(),
            source,
        };
        let bytes = match store.local_path(&r.key) {
            Some(p) => std::fs::read(&p).map_err(|e| invalid(e.to_string()))?,
            None => store
                .get(&r.key)?
                .ok_or_else(|| invalid("missing".into()))?,
        };
        r.verify(&bytes).map_err(mismatch)?;
        if let Some(p) = store.local_path(&r.key) {
            return Ok(Some(p));
        }
        let path = self.dir.join(format!("optimizer-{:09}.bpk", manifest.step));
        std::fs::create_dir_all(&self.dir)
            .and_then(|_| write_atomic(&path, &bytes))
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Some(path))
    }

    /// Removes downloads beyond the newest `keep` (never `current`).
    fn prune(&self, current: &Path) {
        if self.keep == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
            .collect();
        files.sort();
        let excess = files.len().saturating_sub(self.keep);
        for old in files.into_iter().take(excess) {
            if old != current {
                let _ = std::fs::remove_file(old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publish_step(store: &RunStore, step: u64, weights: &[u8]) -> Result<Manifest, StoreError> {
        publish(
            store,
            &Publication {
                step,
                weights,
                optimizer: Some(b"adam"),
                lease: 1,
                rows_seen: 10 * step,
                parent: None,
            },
        )
    }

    #[test]
    fn only_manifested_checkpoints_count_and_are_verified() {
        let cache_dir = tempfile::tempdir().unwrap();
        std::env::set_var("TENGU_CACHE", cache_dir.path());
        let dir = tempfile::tempdir().unwrap();
        let local = RunStore::open(&dir.path().display().to_string()).unwrap();
        let memory = RunStore::open("memory://checkpoint-tests/run").unwrap();
        for store in [local, memory] {
            publish_step(&store, 0, b"w0").unwrap();
            publish_step(&store, 100, b"w100").unwrap();
            // Weights of a trainer that died before its manifest: invisible.
            store
                .put(&layout::weights_key(200), b"partial".to_vec())
                .unwrap();
            assert_eq!(committed(&store).unwrap(), [0, 100]);
            assert_eq!(committed_after(&store, 0).unwrap(), [100]);
            assert_eq!(newest(&store).unwrap(), Some(100));
            let err = publish_step(&store, 100, b"other").unwrap_err();
            assert!(err.to_string().contains("committed already"), "{err}");
            let cache = CheckpointCache::new(&store, 2);
            let (path, m) = cache.fetch(&store, 100).unwrap();
            assert_eq!(m.rows_seen, 1000);
            assert_eq!(std::fs::read(&path).unwrap(), b"w100");
            assert!(cache.fetch_optimizer(&store, &m).unwrap().is_some());
            // Weights that do not match their manifest are refused by name.
            store
                .put(&layout::weights_key(100), b"w10X".to_vec())
                .unwrap();
            if store.local_dir().is_some() {
                let err = cache.fetch(&store, 100).unwrap_err().to_string();
                assert!(err.contains("SHA-256"), "{err}");
            } else {
                // The cached copy was verified when it was downloaded; a fresh cache is not
                // fooled by the changed object.
                std::fs::remove_dir_all(cache_dir.path().join("checkpoints")).unwrap();
                let err = cache.fetch(&store, 100).unwrap_err().to_string();
                assert!(err.contains("SHA-256"), "{err}");
            }
        }
    }
}
