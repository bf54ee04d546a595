//! Self-play workers as processes: killed mid-write they leave no partial shard, two on
//! one run directory write disjoint readable shards, SIGTERM stops them cleanly.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A fast configuration: tiny searches, short games, a shard every few games.
const CONFIG: &str = r#"
game = "dai-dai"
[search]
visits = 8
[selfplay]
games_in_flight = 4
cheap_visits = 2
max_plies = 30
rows_per_shard = 40
checkpoint_poll_seconds = 0.5
"#;

fn start_worker(run: &Path, config: &Path, seed: u64) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args([
            "selfplay",
            "--quiet",
            "--log",
            "warn",
            "--seed",
            &seed.to_string(),
            "--run",
        ])
        .arg(run)
        .arg("--config")
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tengu starts")
}

fn signal(child: &Child, sig: &str) {
    let number = match sig {
        "-KILL" => libc::SIGKILL,
        "-TERM" => libc::SIGTERM,
        other => panic!("unknown signal {other}"),
    };
    // SAFETY: kill(2) on the id of a child this test spawned and has not reaped.
    let ok = unsafe { libc::kill(child.id() as libc::pid_t, number) } == 0;
    assert!(ok, "kill {sig}");
}

fn visible_shards(run: &Path) -> Vec<std::path::PathBuf> {
    tengu_shard::list(&run.join("shards")).unwrap()
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    (dir, config)
}

#[test]
fn a_worker_killed_at_any_moment_leaves_only_whole_shards() {
    let (dir, config) = setup();
    let run = dir.path().join("run");
    for (round, ms) in [350u64, 800, 1300, 2100, 500].into_iter().enumerate() {
        let mut child = start_worker(&run, &config, round as u64);
        std::thread::sleep(Duration::from_millis(ms));
        signal(&child, "-KILL");
        child.wait().unwrap();
    }
    let shards = visible_shards(&run);
    assert!(
        !shards.is_empty(),
        "some shards were written before the kills"
    );
    for s in &shards {
        tengu_shard::read(s).unwrap_or_else(|e| panic!("{e}"));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["shards", "inspect"])
        .arg(run.join("shards"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn two_workers_share_a_run_directory_and_stop_on_sigterm() {
    let (dir, config) = setup();
    let run = dir.path().join("run");
    let mut a = start_worker(&run, &config, 1);
    let mut b = start_worker(&run, &config, 2);
    std::thread::sleep(Duration::from_secs(6));
    signal(&a, "-TERM");
    signal(&b, "-TERM");
    for child in [&mut a, &mut b] {
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(
            status.success(),
            "worker exits cleanly on SIGTERM: {status} {err}"
        );
    }
    let shards = visible_shards(&run);
    let mut writers = std::collections::BTreeSet::new();
    let mut rows = 0;
    for s in &shards {
        let (h, r) = tengu_shard::read(s).unwrap();
        writers.insert(h.writer);
        rows += r.len();
        // Each shard's games have their records in one object beside it.
        let name = s.file_name().unwrap().to_string_lossy().into_owned();
        let parsed = tengu_store::layout::ShardName::parse(&name).expect("counts in the name");
        assert_eq!((parsed.games, parsed.rows), (h.games, r.len() as u64));
        let bundle = std::fs::read_to_string(run.join(parsed.records_key())).unwrap();
        let games: Vec<u64> = bundle
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                tengu_rules::Record::parse(v["record"].as_str().unwrap()).unwrap();
                v["game"].as_u64().unwrap()
            })
            .collect();
        assert_eq!(games, (0..u64::from(h.games)).collect::<Vec<_>>());
    }
    assert_eq!(writers.len(), 2, "both workers wrote shards: {writers:?}");
    assert!(rows > 0);
    // No temporaries are left by a clean stop.
    let hidden = std::fs::read_dir(run.join("shards"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(hidden, 0);
}

#[test]
fn a_bad_config_key_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[search]\nvisitz = 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["selfplay", "--games", "1", "--run"])
        .arg(dir.path().join("run"))
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.toml") && err.contains("visitz"), "{err}");
}
