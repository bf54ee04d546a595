//! CPU-seconds spent on a run, so runs of different settings compare at equal compute.
//!
//! Each self-play worker and trainer process keeps its own total (user + system seconds
//! since it started) in `cpu/<role>-<host>-<pid>.txt` of the run directory, rewritten
//! atomically every few seconds; the run's total is the sum over those files, so restarts,
//! resumed runs and several workers add up. Arena evaluation is not counted: it measures,
//! it does not produce training data.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory of the ledger files.
pub fn dir(run: &Path) -> PathBuf {
    run.join("cpu")
}

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
    path: PathBuf,
    last: Option<Instant>,
    every: Duration,
}

impl CpuLedger {
    /// `role`: `worker`, `trainer`, ...
    pub fn new(run: &Path, role: &str) -> CpuLedger {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
        let host: String = host
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        CpuLedger {
            path: dir(run).join(format!("{role}-{host}-{}.txt", std::process::id())),
            last: None,
            every: Duration::from_secs(5),
        }
    }

    /// Writes this process's CPU seconds if the last write is older than a few seconds (or
    /// `force`); returns whether it wrote. Errors are logged, never fatal: the ledger is a
    /// measurement.
    pub fn record(&mut self, force: bool) -> bool {
        if !force && self.last.is_some_and(|t| t.elapsed() < self.every) {
            return false;
        }
        self.last = Some(Instant::now());
        let text = format!("{:.3}\n", process_seconds());
        let result = (|| {
            std::fs::create_dir_all(dir_of(&self.path))?;
            let tmp = self.path.with_extension("tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &self.path)
        })();
        if let Err(e) = result {
            tracing::warn!("cannot record CPU time in {}: {e}", self.path.display());
        }
        true
    }
}

fn dir_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Total CPU seconds recorded in a run's ledger (0 when there is none).
pub fn total(run: &Path) -> f64 {
    let Ok(entries) = std::fs::read_dir(dir(run)) else {
        return 0.0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| t.trim().parse::<f64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_files_add_up() {
        let run = tempfile::tempdir().unwrap();
        assert_eq!(total(run.path()), 0.0);
        std::fs::create_dir_all(dir(run.path())).unwrap();
        std::fs::write(dir(run.path()).join("worker-a-1.txt"), "12.5\n").unwrap();
        std::fs::write(dir(run.path()).join("trainer-a-2.txt"), "7.5\n").unwrap();
        std::fs::write(dir(run.path()).join("junk.tmp"), "100\n").unwrap();
        assert_eq!(total(run.path()), 20.0);
        // Burn some CPU so this process has a measurable total, then record it.
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        assert_ne!(x, 1);
        let mut ledger = CpuLedger::new(run.path(), "trainer");
        assert!(ledger.record(true));
        assert!(
            !ledger.record(false),
            "a second write within seconds is skipped"
        );
        let own = total(run.path()) - 20.0;
        assert!(own > 0.0 && own <= process_seconds() + 1e-3, "own {own}");
    }
}
