//! CPU-seconds spent on a run, so runs of different settings compare at equal compute.
//!
//! Each self-play worker and trainer process keeps its own total (user + system seconds
//! since it started) in `cpu/<role>-<host>-<pid>.txt` of the run, rewritten every few
//! seconds (every minute on an object store); the run's total is the sum over those
//! objects, so restarts, resumed runs and several workers add up. Arena evaluation is not
//! counted: it measures, it does not produce training data.

use std::time::{Duration, Instant};

use crate::{layout, RunStore};

/// User + system CPU seconds of this process (all its threads) so far.
pub fn process_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// This process's entry in a run's ledger.
pub struct CpuLedger {
    key: String,
    last: Option<Instant>,
    every: Duration,
}

impl CpuLedger {
    /// `role`: `worker`, `trainer`, ...
    pub fn new(store: &RunStore, role: &str) -> CpuLedger {
        let remote = store.local_dir().is_none();
        CpuLedger {
            key: format!(
                "{}/{role}-{}-{}.txt",
                layout::CPU,
                layout::host_name(),
                std::process::id()
            ),
            last: None,
            every: Duration::from_secs(if remote { 60 } else { 5 }),
        }
    }

    /// Writes this process's CPU seconds if the last write is older than the interval (or
    /// `force`); returns whether it wrote. Errors are logged, never fatal: the ledger is a
    /// measurement.
    pub fn record(&mut self, store: &RunStore, force: bool) -> bool {
        if !force && self.last.is_some_and(|t| t.elapsed() < self.every) {
            return false;
        }
        self.last = Some(Instant::now());
        let text = format!("{:.3}\n", process_seconds());
        if let Err(e) = store.put(&self.key, text.into_bytes()) {
            tracing::warn!("cannot record CPU time: {e}");
        }
        true
    }
}

/// Total CPU seconds recorded in a run's ledger (0 when there is none).
pub fn total(store: &RunStore) -> f64 {
    let Ok(entries) = store.list(layout::CPU) else {
        return 0.0;
    };
    entries
        .iter()
        .filter(|e| e.name().ends_with(".txt"))
        .filter_map(|e| store.get_text(&e.key).ok().flatten())
        .filter_map(|t| t.trim().parse::<f64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_files_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunStore::open(&dir.path().display().to_string()).unwrap();
        assert_eq!(total(&run), 0.0);
        run.put("cpu/worker-a-1.txt", b"12.5\n".to_vec()).unwrap();
        run.put("cpu/trainer-a-2.txt", b"7.5\n".to_vec()).unwrap();
        run.put("cpu/junk.tmp", b"100\n".to_vec()).unwrap();
        assert_eq!(total(&run), 20.0);
        // Burn some CPU so this process has a measurable total, then record it.
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        assert_ne!(x, 1);
        let mut ledger = CpuLedger::new(&run, "trainer");
        assert!(ledger.record(&run, true));
        assert!(
            !ledger.record(&run, false),
            "a second write within seconds is skipped"
        );
        let own = total(&run) - 20.0;
        assert!(own > 0.0 && own <= process_seconds() + 1e-3, "own {own}");
    }
}
