//! `tengu tensorboard`: a run's scalars as a TensorBoard event file that TensorBoard's own
//! reader (scripts/tensorboard-read.sh: TensorBoard from PyPI, installed on first use into
//! a venv under ~/.cache/tengu) reads back with the run's numbers, also while following a
//! run. `TENGU_SKIP_TENSORBOARD_CHECK=1` skips the read-back on a machine that cannot
//! install TensorBoard; the export itself is always checked.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{p, tengu};
use tengu_model::desc::HeadId;
use tengu_run::records::{EloRecord, SuiteRecord};
use tengu_trainer::records::{read_lines, LossRecord, Record};

/// The run kept in the repository as the compute ladder's baseline (a real run's files).
fn baseline() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/baselines/dai-dai-cpu-2026-11-25")
}

/// Every scalar in `dir` as TensorBoard reads it: tag -> [(step, value)]; None when skipped.
fn read_back(dir: &Path) -> Option<serde_json::Map<String, serde_json::Value>> {
    if std::env::var_os("TENGU_SKIP_TENSORBOARD_CHECK").is_some_and(|v| v == "1") {
        eprintln!("TENGU_SKIP_TENSORBOARD_CHECK=1: the event file is not read back");
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/tensorboard-read.sh");
    let out = Command::new("bash").arg(script).arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "tensorboard-read.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    Some(v.as_object().unwrap().clone())
}

/// Every line of a run record file, read through its type (as the exporter reads it).
fn records<T: Record>(path: &Path) -> Vec<T> {
    let text = std::fs::read_to_string(path).unwrap();
    read_lines(&path.display().to_string(), &text).unwrap()
}

/// (step, value) of each record that has the value.
fn series<T>(records: &[T], field: impl Fn(&T) -> (u64, Option<f64>)) -> Vec<(i64, f32)> {
    records
        .iter()
        .filter_map(|r| {
            let (step, value) = field(r);
            Some((step as i64, value? as f32))
        })
        .collect()
}

fn tag(read: &serde_json::Map<String, serde_json::Value>, tag: &str) -> Vec<(i64, f32)> {
    read.get(tag)
        .unwrap_or_else(|| panic!("no {tag} in {:?}", read.keys().collect::<Vec<_>>()))
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e[0].as_i64().unwrap(), e[1].as_f64().unwrap() as f32))
        .collect()
}

#[test]
fn a_runs_scalars_read_back_in_tensorboard_with_the_runs_numbers() {
    let run = baseline();
    let dir = tempfile::tempdir().unwrap();
    let logdir = dir.path().join("tb");
    let (ok, out, err) = tengu(&["tensorboard", "--run", &p(&run), "--logdir", &p(&logdir)]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("scalars of"), "{out}");
    let file = logdir.join("events.out.tfevents.0000000000.tengu");
    assert!(file.is_file());
    // A second export rewrites the one file: TensorBoard would show a second file's events
    // twice.
    let before = std::fs::read(&file).unwrap();
    assert!(tengu(&["tensorboard", "--run", &p(&run), "--logdir", &p(&logdir)]).0);
    assert_eq!(std::fs::read_dir(&logdir).unwrap().count(), 1);
    assert_eq!(std::fs::read(&file).unwrap(), before);

    let Some(read) = read_back(&logdir) else {
        return;
    };
    let mut train: Vec<LossRecord> = Vec::new();
    let mut segments: Vec<_> = std::fs::read_dir(run.join("train"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    segments.sort();
    for s in segments {
        train.extend(records::<LossRecord>(&s));
    }
    assert_eq!(
        tag(&read, "loss/value"),
        series(&train, |r| (r.step, r.heads.step(HeadId::Value)))
    );
    assert_eq!(
        tag(&read, "heldout/value"),
        series(&train, |r| (r.step, r.heads.heldout(HeadId::Value)))
    );
    assert!(tag(&read, "heldout/value").len() >= 10);
    let elo = records::<EloRecord>(&run.join("elo.jsonl"));
    assert_eq!(
        tag(&read, "elo/chain"),
        series(&elo, |r| (r.step, r.rating))
    );
    let vs_greedy: Vec<EloRecord> = elo
        .iter()
        .filter(|r| r.opponent.as_deref() == Some("greedy"))
        .cloned()
        .collect();
    assert_eq!(
        tag(&read, "elo/vs_greedy"),
        series(&vs_greedy, |r| (
            r.step,
            r.outcome.as_ref().and_then(|o| o.elo)
        ))
    );
    let suite = records::<SuiteRecord>(&run.join("suite.jsonl"));
    assert_eq!(
        tag(&read, "suite/top1"),
        series(&suite, |r| (r.step, Some(r.top1)))
    );
    // CPU-hours rise to the run's last line (4.00 hours: the run was resumed to 4).
    let cpu = tag(&read, "run/cpu_hours");
    let last = cpu.last().unwrap().1;
    assert!((3.9..4.1).contains(&last), "{last}");
    assert!(!tag(&read, "run/games_per_hour").is_empty());
}

#[test]
fn following_a_run_appends_what_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    // A copy of the baseline's files that the test can add to.
    let run = dir.path().join("run");
    std::fs::create_dir_all(run.join("train")).unwrap();
    for name in ["config.toml", "elo.jsonl", "suite.jsonl"] {
        std::fs::copy(baseline().join(name), run.join(name)).unwrap();
    }
    std::fs::copy(
        baseline().join("train/000000000.jsonl"),
        run.join("train/000000000.jsonl"),
    )
    .unwrap();
    let logdir = dir.path().join("tb");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["tensorboard", "--run", &p(&run), "--logdir", &p(&logdir)])
        .args(["--follow", "1", "--log", "warn"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let file = logdir.join("events.out.tfevents.0000000000.tengu");
    let wait_for = |what: &str, done: &dyn Fn() -> bool| {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(60), "{what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for("the first export", &|| file.is_file());
    let first = std::fs::metadata(&file).unwrap().len();
    // The arena rates a new checkpoint: one line more in elo.jsonl.
    let mut elo = std::fs::read_to_string(run.join("elo.jsonl")).unwrap();
    let rated = EloRecord {
        rating: Some(321.5),
        ..EloRecord::first("model-000999999.safetensors", 999_999)
    };
    elo.push_str(&format!("{}\n", tengu_trainer::records::to_line(&rated)));
    std::fs::write(run.join("elo.jsonl"), elo).unwrap();
    wait_for("the new rating appended", &|| {
        std::fs::metadata(&file).unwrap().len() > first
    });
    // SIGTERM stops it cleanly.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let Some(read) = read_back(&logdir) else {
        return;
    };
    let chain = tag(&read, "elo/chain");
    assert_eq!(chain.last(), Some(&(999_999, 321.5)));
    // Nothing twice.
    let mut steps: Vec<i64> = chain.iter().map(|e| e.0).collect();
    steps.dedup();
    assert_eq!(steps.len(), chain.len());
}

#[test]
fn what_is_not_a_run_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let logdir = dir.path().join("tb");
    let (ok, _, err) = tengu(&[
        "tensorboard",
        "--run",
        &p(dir.path()),
        "--logdir",
        &p(&logdir),
    ]);
    assert!(!ok);
    assert!(
        err.contains("is not a run") && err.contains("config.toml"),
        "{err}"
    );
    assert!(!logdir.exists());
    let (ok, _, err) = tengu(&["tensorboard", "--run", "s3:/bad"]);
    assert!(!ok);
    assert!(!err.contains("panicked"), "{err}");
    let (ok, _, err) = tengu(&["tensorboard", "--run", &p(&baseline()), "--follow", "0"]);
    assert!(!ok);
    assert!(
        err.contains("--follow") && err.contains("from 1 to 86400"),
        "{err}"
    );
}
