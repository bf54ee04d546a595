//! [`RunStore`]: a blocking facade over an async `object_store`, rooted at a run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures_util::TryStreamExt;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::error::StoreError;
use crate::location::{connect, Location};

/// An object of a run: its key relative to the run (`shards/x.shard`) and size in bytes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub key: String,
    pub size: u64,
}

impl Entry {
    /// The last component of the key (`x.shard`).
    pub fn name(&self) -> &str {
        self.key.rsplit('/').next().unwrap_or(&self.key)
    }
}

/// Requests sent so far, by kind (to measure what a run costs on a metered store).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RequestCounts {
    pub put: u64,
    pub get: u64,
    pub list: u64,
    pub delete: u64,
}

#[derive(Default)]
struct Counters {
    put: AtomicU64,
    get: AtomicU64,
    list: AtomicU64,
    delete: AtomicU64,
}

/// A run's storage. Keys are relative to the run, `/`-separated (`models/model-000000100.json`).
///
/// All calls block (a current-thread tokio runtime drives the async store underneath);
/// tengu's workers and trainer are synchronous loops, and a store call is rare next to
/// the search and training work between calls.
pub struct RunStore {
    location: Location,
    store: Arc<dyn ObjectStore>,
    prefix: ObjPath,
    runtime: tokio::runtime::Runtime,
    counters: Arc<Counters>,
}

impl RunStore {
    /// Opens a run location (a path, `file://`, `s3://`, `gs://`, `az://`, `memory://`); a
    /// local directory is created. Credentials and endpoints come from the environment.
    pub fn open(location: &str) -> Result<RunStore, StoreError> {
        RunStore::at(Location::parse(location)?)
    }

    pub fn at(location: Location) -> Result<RunStore, StoreError> {
        let (store, prefix) = connect(&location)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Location {
                location: location.display(),
                problem: format!("cannot start the I/O runtime: {e}"),
            })?;
        Ok(RunStore {
            location,
            store,
            prefix,
            runtime,
            counters: Arc::default(),
        })
    }

    /// Another handle on the same run (its own runtime, for another thread).
    pub fn reopen(&self) -> Result<RunStore, StoreError> {
        RunStore::at(self.location.clone())
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The location as the user wrote it (for messages and for child processes).
    pub fn display(&self) -> String {
        self.location.display()
    }

    /// The directory of a local run, `None` for object stores.
    pub fn local_dir(&self) -> Option<&Path> {
        match &self.location {
            Location::Local(p) => Some(p),
            Location::Url(_) => None,
        }
    }

    /// What names `key` for a user or another process: the local path, or the URL.
    pub fn address_of(&self, key: &str) -> String {
        match &self.location {
            Location::Local(p) => p.join(key).display().to_string(),
            Location::Url(u) => format!("{u}/{key}"),
        }
    }

    /// Local file of `key` in a local run.
    pub fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.local_dir().map(|d| d.join(key))
    }

    /// Requests sent through this handle so far.
    pub fn requests(&self) -> RequestCounts {
        let c = &self.counters;
        RequestCounts {
            put: c.put.load(Ordering::Relaxed),
            get: c.get.load(Ordering::Relaxed),
            list: c.list.load(Ordering::Relaxed),
            delete: c.delete.load(Ordering::Relaxed),
        }
    }

    fn path(&self, key: &str) -> Result<ObjPath, StoreError> {
        let bad = |problem: &str| StoreError::Invalid {
            location: self.display(),
            key: key.into(),
            problem: problem.into(),
        };
        if key.is_empty()
            || key.starts_with('/')
            || key
                .split('/')
                .any(|p| p.is_empty() || p == "." || p == "..")
        {
            return Err(bad("not a relative key"));
        }
        let mut path = self.prefix.clone();
        for part in key.split('/') {
            path = path.clone().join(part);
        }
        Ok(path)
    }

    fn request(&self, key: &str) -> impl Fn(object_store::Error) -> StoreError + '_ {
        let key = key.to_string();
        move |source| StoreError::Request {
            location: self.display(),
            key: key.clone(),
            source,
        }
    }

    /// Writes `bytes` under `key`, replacing what was there (atomic: readers see the old or
    /// the new object, never a part). Only for objects with a single writer.
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = self.path(key)?;
        self.counters.put.fetch_add(1, Ordering::Relaxed);
        self.runtime
            .block_on(self.store.put(&path, PutPayload::from(bytes)))
            .map(|_| ())
            .map_err(self.request(key))
    }

    /// Writes `bytes` under `key` only if nothing is there (put-if-absent); `false` when
    /// the key exists already. Works on local directories (hard link) and S3-compatible
    /// stores (`If-None-Match: *`).
    pub fn create(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        let path = self.path(key)?;
        self.counters.put.fetch_add(1, Ordering::Relaxed);
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        match self
            .runtime
            .block_on(self.store.put_opts(&path, PutPayload::from(bytes), opts))
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(false),
            Err(e) => Err(self.request(key)(e)),
        }
    }

    /// The bytes of `key`, `None` if there is no such object.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key)?;
        self.counters.get.fetch_add(1, Ordering::Relaxed);
        let result = self.runtime.block_on(async {
            let got = self.store.get(&path).await?;
            got.bytes().await
        });
        match result {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.request(key)(e)),
        }
    }

    /// Like [`RunStore::get`], as UTF-8 text.
    pub fn get_text(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.get(key)?
            .map(|b| {
                String::from_utf8(b).map_err(|_| StoreError::Invalid {
                    location: self.display(),
                    key: key.into(),
                    problem: "not UTF-8 text".into(),
                })
            })
            .transpose()
    }

    /// Whether `key` exists.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let path = self.path(key)?;
        self.counters.get.fetch_add(1, Ordering::Relaxed);
        match self.runtime.block_on(self.store.head(&path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.request(key)(e)),
        }
    }

    /// Objects under `dir` (`shards`, `models`; not recursive into deeper names is not
    /// guaranteed: keys are flat within a run's directories), sorted by key. Hidden names
    /// (a leading dot: temporaries of older tengu versions and of other tools) are skipped.
    pub fn list(&self, dir: &str) -> Result<Vec<Entry>, StoreError> {
        self.list_from(dir, None)
    }

    /// Objects under `dir` whose key sorts after `dir/after` (S3 `start-after`), sorted:
    /// a poll for new objects costs one request per 1,000 new keys, not per key in `dir`.
    pub fn list_after(&self, dir: &str, after: &str) -> Result<Vec<Entry>, StoreError> {
        self.list_from(dir, Some(after))
    }

    fn list_from(&self, dir: &str, after: Option<&str>) -> Result<Vec<Entry>, StoreError> {
        let prefix = self.path(dir)?;
        let offset = after
            .map(|a| self.path(&format!("{dir}/{a}")))
            .transpose()?;
        self.counters.list.fetch_add(1, Ordering::Relaxed);
        let metas: Vec<object_store::ObjectMeta> = self
            .runtime
            .block_on(async {
                match &offset {
                    Some(o) => {
                        self.store
                            .list_with_offset(Some(&prefix), o)
                            .try_collect()
                            .await
                    }
                    None => self.store.list(Some(&prefix)).try_collect().await,
                }
            })
            .map_err(self.request(dir))?;
        let base = self.prefix.as_ref();
        let mut out: Vec<Entry> = metas
            .into_iter()
            .filter_map(|m| {
                let full = m.location.as_ref();
                let key = if base.is_empty() {
                    full
                } else {
                    full.strip_prefix(base)?.strip_prefix('/')?
                };
                let name = key.rsplit('/').next().unwrap_or(key);
                (!name.starts_with('.')).then(|| Entry {
                    key: key.to_string(),
                    size: m.size,
                })
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// Deletes `key` (no error if it is gone already).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key)?;
        self.counters.delete.fetch_add(1, Ordering::Relaxed);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.request(key)(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stores() -> Vec<(RunStore, Option<tempfile::TempDir>)> {
        let dir = tempfile::tempdir().unwrap();
        let local = RunStore::open(&dir.path().join("run").display().to_string()).unwrap();
        let memory = RunStore::open("memory://store-tests/runs/a").unwrap();
        vec![(local, Some(dir)), (memory, None)]
    }

    #[test]
    fn put_get_list_create_delete() {
        for (s, _dir) in stores() {
            assert_eq!(s.get("shards/a.shard").unwrap(), None);
            assert!(s.list("shards").unwrap().is_empty());
            for name in ["b", "a", "c", "d"] {
                s.put(&format!("shards/{name}.shard"), name.as_bytes().to_vec())
                    .unwrap();
            }
            s.put("models/m.json", b"{}".to_vec()).unwrap();
            assert_eq!(s.get("shards/a.shard").unwrap().unwrap(), b"a");
            let names: Vec<String> = s
                .list("shards")
                .unwrap()
                .iter()
                .map(|e| e.name().to_string())
                .collect();
            assert_eq!(names, ["a.shard", "b.shard", "c.shard", "d.shard"]);
            let after: Vec<String> = s
                .list_after("shards", "b.shard")
                .unwrap()
                .iter()
                .map(|e| e.key.clone())
                .collect();
            assert_eq!(
                after,
                ["shards/c.shard", "shards/d.shard"],
                "{}",
                s.display()
            );
            assert!(s.create("trainer/lease-1", b"x".to_vec()).unwrap());
            assert!(!s.create("trainer/lease-1", b"y".to_vec()).unwrap());
            assert_eq!(s.get_text("trainer/lease-1").unwrap().unwrap(), "x");
            s.delete("shards/a.shard").unwrap();
            s.delete("shards/a.shard").unwrap();
            assert_eq!(s.list("shards").unwrap().len(), 3);
            assert!(s.requests().put >= 7);
            assert!(s.path("../x").is_err() && s.path("a//b").is_err() && s.path("").is_err());
        }
    }

    #[test]
    fn memory_stores_with_one_name_are_shared() {
        let a = RunStore::open("memory://shared-name/r").unwrap();
        let b = RunStore::open("memory://shared-name/r").unwrap();
        a.put("x", b"1".to_vec()).unwrap();
        assert_eq!(b.get("x").unwrap().unwrap(), b"1");
        let other = RunStore::open("memory://shared-name/other").unwrap();
        assert_eq!(other.get("x").unwrap(), None);
    }
}
