//! Exactly one trainer per run, with put-if-absent only (works on local directories too).
//!
//! A trainer takes generation `g + 1` by creating `trainer/lease-<g+1>.json`; creation fails
//! if a rival took it first. While it runs it rewrites `trainer/heartbeat-<g>.json` with a
//! growing counter. A newcomer that finds the newest lease not released watches that
//! counter for up to the lease time: if it moves, a trainer is alive and the newcomer exits
//! with a message naming it; if it stands still, the holder is dead (killed, its machine
//! gone) and the newcomer takes over. No clocks are compared. Before publishing, a holder
//! checks that no newer generation exists ([`Lease::check`]), so a trainer that lost its
//! lease (paused, partitioned) stops instead of overwriting its successor's work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::store::RunStore;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaseRecord {
    pub generation: u64,
    pub host: String,
    pub pid: u32,
    pub started_unix: f64,
    /// Seconds without a heartbeat after which the lease may be taken over.
    pub lease_seconds: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Heartbeat {
    beat: u64,
    released: bool,
}

fn lease_key(generation: u64) -> String {
    format!("{}/lease-{generation:06}.json", crate::layout::TRAINER)
}

fn heartbeat_key(generation: u64) -> String {
    format!("{}/heartbeat-{generation:06}.json", crate::layout::TRAINER)
}

/// Generations of the leases taken on this run, oldest first.
pub fn generations(store: &RunStore) -> Result<Vec<u64>, StoreError> {
    let mut g: Vec<u64> = store
        .list(crate::layout::TRAINER)?
        .iter()
        .filter_map(|e| {
            e.name()
                .strip_prefix("lease-")?
                .strip_suffix(".json")?
                .parse()
                .ok()
        })
        .collect();
    g.sort_unstable();
    Ok(g)
}

/// What a reader (`tengu serve`) sees of a run's newest trainer lease, without taking it.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The lease record; `None` when it is unreadable (being written, damaged).
    pub record: Option<LeaseRecord>,
    pub generation: u64,
    /// The heartbeat counter (grows while the holder lives); `None` before the first beat.
    pub beat: Option<u64>,
    /// Whether the holder released the lease (stopped cleanly).
    pub released: bool,
}

/// The newest trainer lease of a run and its heartbeat; `None` when no trainer ever ran.
/// Read-only: a viewer compares `beat` between two looks to tell a live trainer.
pub fn observe(store: &RunStore) -> Result<Option<Observed>, StoreError> {
    let Some(generation) = generations(store)?.last().copied() else {
        return Ok(None);
    };
    let record = store
        .get_text(&lease_key(generation))?
        .and_then(|t| serde_json::from_str(&t).ok());
    let heartbeat = read_heartbeat(store, generation)?;
    Ok(Some(Observed {
        record,
        generation,
        beat: heartbeat.as_ref().map(|h| h.beat),
        released: heartbeat.is_some_and(|h| h.released),
    }))
}

fn read_heartbeat(store: &RunStore, generation: u64) -> Result<Option<Heartbeat>, StoreError> {
    Ok(store
        .get_text(&heartbeat_key(generation))?
        .and_then(|t| serde_json::from_str(&t).ok()))
}

/// A held lease; the heartbeat thread runs until [`Lease::release`] or drop.
pub struct Lease {
    record: LeaseRecord,
    stop: Arc<AtomicBool>,
    beats: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Takes the run's trainer lease, waiting up to `lease_seconds` to learn whether the
    /// previous holder is alive (`on_wait` hears why it waits). A live holder, or a rival
    /// that took the same generation, is a [`StoreError::Conflict`] naming it.
    pub fn acquire(
        store: &RunStore,
        lease_seconds: f64,
        on_wait: &mut dyn FnMut(&str),
    ) -> Result<Lease, StoreError> {
        let ttl = Duration::from_secs_f64(lease_seconds.max(0.5));
        let previous = generations(store)?.last().copied();
        if let Some(g) = previous {
            let holder: Option<LeaseRecord> = store
                .get_text(&lease_key(g))?
                .and_then(|t| serde_json::from_str(&t).ok());
            let who = holder.as_ref().map_or_else(
                || format!("lease generation {g}"),
                |h| {
                    format!(
                        "a trainer on {} (pid {}, lease generation {g})",
                        h.host, h.pid
                    )
                },
            );
            let first = read_heartbeat(store, g)?;
            if !first.as_ref().is_some_and(|h| h.released) {
                on_wait(&format!(
                    "{who} held this run; waiting up to {:.0} s for its heartbeat to show whether it is alive",
                    ttl.as_secs_f64()
                ));
                let start = Instant::now();
                let poll = (ttl / 10).clamp(Duration::from_millis(50), Duration::from_secs(1));
                loop {
                    std::thread::sleep(poll);
                    let now = read_heartbeat(store, g)?;
                    if now.as_ref().is_some_and(|h| h.released) {
                        break;
                    }
                    if now != first {
                        return Err(StoreError::Conflict(format!(
                            "{}: {who} is training this run (its heartbeat is moving); a run has exactly one trainer: stop that one first",
                            store.display()
                        )));
                    }
                    if start.elapsed() >= ttl {
                        on_wait(&format!(
                            "no heartbeat from {who} for {:.0} s: taking over",
                            ttl.as_secs_f64()
                        ));
                        break;
                    }
                }
            }
        }
        let generation = previous.map_or(1, |g| g + 1);
        let record = LeaseRecord {
            generation,
            host: crate::layout::host_name(),
            pid: std::process::id(),
            started_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            lease_seconds: ttl.as_secs_f64(),
        };
        // The first heartbeat goes before the lease, so a rival never sees a lease without one.
        let beat = |n: u64, released: bool| {
            serde_json::to_vec(&Heartbeat { beat: n, released }).expect("heartbeat serialises")
        };
        store.put(&heartbeat_key(generation), beat(0, false))?;
        let text = serde_json::to_vec_pretty(&record).expect("lease serialises");
        if !store.create(&lease_key(generation), text)? {
            return Err(StoreError::Conflict(format!(
                "{}: another trainer took lease generation {generation} at the same moment; a run has exactly one trainer",
                store.display()
            )));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let beats = {
            let stop = stop.clone();
            let store = store.reopen()?;
            let every = ttl / 5;
            std::thread::Builder::new()
                .name("lease-heartbeat".into())
                .spawn(move || {
                    let mut n = 0;
                    let mut last = Instant::now();
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(20).min(every));
                        if last.elapsed() < every {
                            continue;
                        }
                        last = Instant::now();
                        n += 1;
                        if let Err(e) = store.put(&heartbeat_key(generation), beat(n, false)) {
                            tracing::warn!("trainer heartbeat not written: {e}");
                        }
                    }
                    if let Err(e) = store.put(&heartbeat_key(generation), beat(n + 1, true)) {
                        tracing::warn!("trainer lease not released: {e}");
                    }
                })
                .map_err(|e| StoreError::Conflict(format!("cannot start the heartbeat: {e}")))?
        };
        Ok(Lease {
            record,
            stop,
            beats: Some(beats),
        })
    }

    pub fn generation(&self) -> u64 {
        self.record.generation
    }

    /// `Err(Conflict)` if a newer trainer has taken the run over.
    pub fn check(&self, store: &RunStore) -> Result<(), StoreError> {
        match generations(store)?.last() {
            Some(&g) if g > self.record.generation => Err(StoreError::Conflict(format!(
                "{}: a newer trainer took the run over (lease generation {g}, ours {}); stopping",
                store.display(),
                self.record.generation
            ))),
            _ => Ok(()),
        }
    }

    /// Stops the heartbeat and marks the lease released, so the next trainer starts at once.
    pub fn release(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.beats.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_holder_refuses_a_second_trainer_and_a_dead_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::open(&dir.path().display().to_string()).unwrap();
        assert_eq!(observe(&store).unwrap(), None);
        let first = Lease::acquire(&store, 0.5, &mut |_| {}).unwrap();
        assert_eq!(first.generation(), 1);
        let seen = observe(&store).unwrap().unwrap();
        assert_eq!((seen.generation, seen.released), (1, false));
        assert_eq!(seen.record.unwrap().pid, std::process::id());
        assert!(seen.beat.is_some());
        let err = Lease::acquire(&store, 0.5, &mut |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("exactly one trainer"), "{err}");
        first.check(&store).unwrap();
        // Released: the next one starts at once.
        first.release();
        assert!(observe(&store).unwrap().unwrap().released);
        let t = Instant::now();
        let second = Lease::acquire(&store, 5.0, &mut |_| {}).unwrap();
        assert!(t.elapsed() < Duration::from_secs(2));
        assert_eq!(second.generation(), 2);
        // A holder that stops beating without releasing (killed): taken over after the
        // lease time, and the old holder is fenced.
        second.stop.store(true, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(100));
        store
            .put(
                &heartbeat_key(2),
                serde_json::to_vec(&Heartbeat {
                    beat: 99,
                    released: false,
                })
                .unwrap(),
            )
            .unwrap();
        let mut waited = Vec::new();
        let third = Lease::acquire(&store, 0.5, &mut |m| waited.push(m.to_string())).unwrap();
        assert_eq!(third.generation(), 3);
        assert!(
            waited.iter().any(|m| m.contains("taking over")),
            "{waited:?}"
        );
        let fenced = second.check(&store).unwrap_err().to_string();
        assert!(fenced.contains("newer trainer"), "{fenced}");
    }
}
