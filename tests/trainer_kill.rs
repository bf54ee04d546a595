//! A trainer killed (SIGKILL) between checkpoints and started again resumes from its last
//! checkpoint and optimizer state: its loss log holds every step once, equal to the log of
//! a trainer that was never interrupted.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tengu_model::desc::HeadId;

const CONFIG: &str = r#"
game = "dai-dai"
[network]
preset = "tiny"
[search]
visits = 8
[selfplay]
games_in_flight = 8
cheap_visits = 2
max_plies = 40
rows_per_shard = 100
[train]
batch_size = 16
learning_rate = 0.003
warmup_steps = 10
min_rows = 100
passes_per_row = 100.0
steps_per_checkpoint = 20
poll_seconds = 0.1
# The killed trainer's successor takes over after a second without its heartbeat.
lease_seconds = 1.0
"#;

fn tengu(args: &[&str], dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tengu {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// (step, policy loss, value loss) of every line of the run's loss log (`train/*.jsonl`); a
/// batch without policy targets logs no policy loss (0 here).
fn losses(run: &Path) -> Vec<(u64, f64, f64)> {
    let mut segments: Vec<_> = std::fs::read_dir(run.join("train"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    segments.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|x| x == "jsonl"));
    segments.sort();
    segments
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect::<String>()
        .lines()
        // A line cut by the kill is not a record; every whole line must be one.
        .filter(|l| l.ends_with('}'))
        .map(|l| {
            let r: tengu_trainer::records::LossRecord = serde_json::from_str(l).unwrap();
            (
                r.step,
                r.policy_loss.unwrap_or(0.0),
                r.heads.step(HeadId::Value).unwrap(),
            )
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn a_killed_trainer_resumes_without_repeating_or_losing_steps() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), CONFIG).unwrap();
    let config = ["--config", "tiny.toml"];
    // Both runs start from the same step-0 network and the same shards.
    tengu(
        &[&["train", "--run", "a", "--max-steps", "0"][..], &config].concat(),
        dir.path(),
    );
    tengu(
        &[
            &["selfplay", "--run", "a", "--games", "12", "--seed", "3"][..],
            &config,
        ]
        .concat(),
        dir.path(),
    );
    for sub in ["models", "shards"] {
        copy_dir(
            &dir.path().join("a").join(sub),
            &dir.path().join("b").join(sub),
        );
    }
    tengu(
        &[&["train", "--run", "a", "--max-steps", "60"][..], &config].concat(),
        dir.path(),
    );

    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["train", "--run", "b", "--max-steps", "60", "--quiet"])
        .args(config)
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run_b = dir.path().join("b");
    let started = Instant::now();
    // Kill it once it has logged steps past its step-20 checkpoint.
    let killed_after = loop {
        let logged = losses(&run_b).last().map_or(0, |l| l.0);
        if logged >= 25 {
            break logged;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "trainer b stalled"
        );
        assert!(child.try_wait().unwrap().is_none(), "trainer b ended early");
        std::thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: kill(2) on the trainer process this test started.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) },
        0
    );
    child.wait().unwrap();
    let store = tengu_store::RunStore::open(&run_b.display().to_string()).unwrap();
    let newest = tengu_store::checkpoint::newest(&store).unwrap().unwrap();
    assert!(newest <= killed_after);
    if newest == killed_after {
        eprintln!("note: the kill fell on a checkpoint (step {newest}); nothing to redo");
    }

    tengu(
        &[&["train", "--run", "b", "--max-steps", "60"][..], &config].concat(),
        dir.path(),
    );
    let (la, lb) = (losses(&dir.path().join("a")), losses(&run_b));
    let steps: Vec<u64> = lb.iter().map(|l| l.0).collect();
    assert_eq!(steps, (1..=60).collect::<Vec<_>>(), "each step logged once");
    assert_eq!(la.len(), 60);
    for (x, y) in la.iter().zip(&lb) {
        assert!(
            (x.1 - y.1).abs() < 1e-5 && (x.2 - y.2).abs() < 1e-5,
            "step {}: uninterrupted {x:?}, killed at {killed_after} and resumed {y:?}",
            x.0
        );
    }
}
