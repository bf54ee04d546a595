//! One run, many processes that share nothing but the run location: three self-play workers
//! and a trainer started independently, as on separate machines. Checked on a shared
//! directory (`file://`) and on a real S3-compatible server (SeaweedFS, installed and
//! started by `scripts/s3-server.sh`; `TENGU_SKIP_S3=1` skips that one):
//! - a second trainer is refused while the first is alive;
//! - workers wait for the run's configuration, pick up the trainer's checkpoints;
//! - a worker killed with SIGKILL and restarted, the trainer killed and restarted (it takes
//!   over the lease once the dead one's heartbeat stops and resumes from its last commit);
//! - at the end nothing is lost or read twice: the trainer's row count equals the rows of
//!   every shard in the store, its window holds shards of every worker, every training
//!   step is logged once.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tengu_store::checkpoint as published;
use tengu_store::{layout, RunStore};

const CONFIG: &str = r#"
game = "dai-dai"
[network]
preset = "tiny"
[search]
visits = 8
[selfplay]
games_in_flight = 4
cheap_visits = 2
max_plies = 30
rows_per_shard = 60
checkpoint_poll_seconds = 0.5
[train]
batch_size = 16
warmup_steps = 5
min_rows = 60
passes_per_row = 50.0
steps_per_checkpoint = 10
poll_seconds = 0.3
holdout_every = 0
lease_seconds = 2.0
listing_lookback_seconds = 60.0
"#;

struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn tengu(args: &[&str], env: &[(String, String)], log: &Path) -> Child {
    let file = std::fs::File::create(log).unwrap();
    Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(args)
        .args(["--quiet", "--log", "info"])
        .envs(env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .expect("tengu starts")
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on a child this test spawned and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Writers (host-pid) of the run's shards and the rows of each shard by its name.
fn shards(store: &RunStore) -> Vec<(String, u64)> {
    tengu_shard::list_run(store)
        .unwrap()
        .iter()
        .map(|e| {
            let name = layout::ShardName::parse(e.name()).expect("counts in the name");
            (e.key.clone(), name.rows)
        })
        .collect()
}

/// The `-<pid>-<sequence>` part of a shard key's stem, as `pid`.
fn writer_pid(key: &str) -> u32 {
    let name = layout::ShardName::parse(key).unwrap();
    let parts: Vec<&str> = name.stem.rsplitn(3, '-').collect();
    parts[1].parse().unwrap()
}

fn log_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn scenario(location: &str, env: &[(String, String)], logs: &Path) {
    let config = logs.join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let config = config.display().to_string();
    let store = RunStore::open(location).unwrap();
    let mut procs = Procs(Vec::new());

    let worker_args = |seed: &str| -> Vec<String> {
        ["selfplay", "--run", location, "--seed", seed]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let start_worker = |i: usize, round: usize| {
        let args = worker_args(&(10 * round + i).to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        tengu(&args, env, &logs.join(format!("worker-{i}-{round}.log")))
    };
    // The trainer publishes the configuration into the run; workers read it from there.
    let trainer = tengu(
        &["train", "--run", location, "--config", &config],
        env,
        &logs.join("trainer-1.log"),
    );
    procs.0.push(trainer);
    wait_for("the step-0 checkpoint", Duration::from_secs(120), || {
        published::newest(&store).unwrap().is_some()
    });
    for i in 0..3 {
        procs.0.push(start_worker(i, 0));
    }

    // A second trainer is refused by name while the first is alive.
    let second = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["train", "--run", location, "--quiet"])
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "a second trainer must not run");
    assert!(said.contains("exactly one trainer"), "{said}");

    // Training goes on with shards of all three workers.
    wait_for(
        "checkpoint 20 and shards of three workers",
        Duration::from_secs(300),
        || {
            let writers: std::collections::BTreeSet<u32> =
                shards(&store).iter().map(|(k, _)| writer_pid(k)).collect();
            published::newest(&store).unwrap().unwrap_or(0) >= 20 && writers.len() >= 3
        },
    );

    // Worker 0 killed mid-game and restarted; the trainer killed and restarted.
    signal(&procs.0[1], libc::SIGKILL);
    procs.0[1].wait().unwrap();
    procs.0[1] = start_worker(0, 1);
    signal(&procs.0[0], libc::SIGKILL);
    procs.0[0].wait().unwrap();
    let killed_at = published::newest(&store).unwrap().unwrap();
    procs.0[0] = tengu(
        &["train", "--run", location],
        env,
        &logs.join("trainer-2.log"),
    );
    wait_for(
        "two checkpoints after the trainer's restart",
        Duration::from_secs(300),
        || published::newest(&store).unwrap().unwrap_or(0) >= killed_at + 20,
    );
    let restarted = log_text(&logs.join("trainer-2.log"));
    assert!(restarted.contains("taking over"), "{restarted}");
    assert!(restarted.contains("window restored"), "{restarted}");

    // Workers stop first (SIGTERM: their finished games go into last shards); the trainer
    // reads those, then stops with a last checkpoint.
    for w in &mut procs.0[1..] {
        signal(w, libc::SIGTERM);
    }
    for w in &mut procs.0[1..] {
        assert!(
            w.wait().unwrap().success(),
            "workers stop cleanly on SIGTERM"
        );
    }
    let all: Vec<(String, u64)> = shards(&store);
    let total: u64 = all.iter().map(|(_, r)| r).sum();
    std::thread::sleep(Duration::from_secs(2));
    signal(&procs.0[0], libc::SIGTERM);
    assert!(
        procs.0[0].wait().unwrap().success(),
        "{}",
        log_text(&logs.join("trainer-2.log"))
    );

    let last = published::newest(&store).unwrap().unwrap();
    let state: tengu_trainer::window::IngestState =
        serde_json::from_str(&store.get_text(&layout::ingest_key(last)).unwrap().unwrap()).unwrap();
    assert_eq!(
        state.rows_seen, total,
        "every row of every shard counted exactly once across the trainer's restart"
    );
    let window: Vec<String> = state.window.clone();
    assert_eq!(window.len(), all.len(), "the window holds every shard");
    let writers: std::collections::BTreeSet<u32> = window.iter().map(|k| writer_pid(k)).collect();
    assert_eq!(
        writers.len(),
        4,
        "three workers and the restarted one: {writers:?}"
    );

    // Workers played with the trainer's checkpoints, the restarted one too.
    let mut newer_models = 0;
    for (key, _) in &all {
        let (header, _) = tengu_shard::fetch(&store, key).unwrap();
        if header.model != layout::weights_name(0) && header.model != "uniform" {
            newer_models += 1;
        }
        assert_ne!(
            header.model, "uniform",
            "no worker played before the step-0 network"
        );
    }
    assert!(newer_models > 0, "workers picked up trained checkpoints");

    // Each training step once in the loss log.
    let log = tengu_trainer::log::read(&store).unwrap();
    let steps: Vec<u64> =
        tengu_trainer::records::read_lines::<tengu_trainer::records::LossRecord>("loss log", &log)
            .unwrap()
            .iter()
            .map(|r| r.step)
            .collect();
    assert_eq!(steps, (1..=last).collect::<Vec<_>>());
    // Records of every shard's games are there.
    for (key, _) in &all {
        let name = layout::ShardName::parse(key).unwrap();
        assert!(store.exists(&name.records_key()).unwrap(), "{key}");
    }
    drop(procs);
}

#[test]
fn a_shared_directory_run_with_independent_processes() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let cache = dir.path().join("cache").display().to_string();
    let location = format!("file://{}", dir.path().join("run").display());
    scenario(&location, &[("TENGU_CACHE".into(), cache)], &logs);
}

/// The S3 server of this test (stopped on drop).
struct Server {
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(repo().join("scripts/s3-server.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn an_s3_run_on_a_real_object_store() {
    if std::env::var("TENGU_SKIP_S3").is_ok_and(|v| v == "1") {
        eprintln!("TENGU_SKIP_S3=1: the S3 end-to-end test is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Server {
        dir: dir.path().join("s3"),
    };
    std::fs::create_dir_all(&server.dir).unwrap();
    let out = Command::new("bash")
        .arg(repo().join("scripts/s3-server.sh"))
        .arg("start")
        .arg(&server.dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/s3-server.sh start: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut env: Vec<(String, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.strip_prefix("export ")?.split_once('=')?;
            Some((
                k.to_string(),
                v.trim_matches(|c| c == '\'' || c == '"').to_string(),
            ))
        })
        .collect();
    assert!(env.iter().any(|(k, _)| k == "AWS_ENDPOINT"), "{env:?}");
    for (k, v) in &env {
        std::env::set_var(k, v);
    }
    env.push((
        "TENGU_CACHE".into(),
        dir.path().join("cache").display().to_string(),
    ));
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let location = format!("s3://tengu/runs/e2e-{}", std::process::id());
    scenario(&location, &env, &logs);
    // The shards of the run are readable through `tengu shards inspect` on the URL.
    let inspect = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["shards", "inspect", &location])
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        inspect.status.success() && text.contains(" 0 invalid"),
        "{text}"
    );
    drop(server);
}
