//! `tengu run`: starts the self-play workers and the trainer as processes of the same
//! binary on one run directory, restarts a crashed worker, and stops them all together.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tengu_selfplay::run_dir;

/// What to supervise.
pub struct RunOptions {
    /// The `tengu` binary.
    pub exe: PathBuf,
    pub run: PathBuf,
    pub workers: usize,
    /// Extra arguments for every child (e.g. `--backend tch-cuda`).
    pub child_args: Vec<String>,
    pub max_minutes: Option<f64>,
    pub max_steps: Option<u64>,
    pub stop: Arc<AtomicBool>,
}

/// What the progress view shows.
#[derive(Clone, Debug, Default)]
pub struct RunStatus {
    pub seconds: f64,
    pub games: usize,
    pub step: u64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub rows_seen: u64,
    pub checkpoint: String,
    pub worker_restarts: u32,
}

struct Proc {
    name: String,
    args: Vec<String>,
    child: Child,
    restarts: u32,
}

fn spawn(exe: &Path, args: &[String], log: &Path) -> std::io::Result<Child> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    // A process group of its own: a terminal's Ctrl-C reaches only the supervisor, which
    // then stops the children once, with SIGTERM.
    std::os::unix::process::CommandExt::process_group(
        Command::new(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file),
        0,
    )
    .spawn()
}

fn terminate(child: &mut Child) {
    // SIGTERM lets workers write their finished games and the trainer its last checkpoint.
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
}

/// The last line of `train.jsonl`, if any.
fn last_train_line(run: &Path) -> Option<serde_json::Value> {
    let file = std::fs::File::open(run.join("train.jsonl")).ok()?;
    let last = std::io::BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .last()?;
    serde_json::from_str(&last).ok()
}

/// Reads the run directory for the progress view.
pub fn status(run: &Path, started: Instant) -> RunStatus {
    let games = std::fs::read_dir(run_dir::games(run)).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".record"))
        })
        .count()
    });
    let mut s = RunStatus {
        seconds: started.elapsed().as_secs_f64(),
        games,
        ..Default::default()
    };
    if let Some(v) = last_train_line(run) {
        s.step = v["step"].as_u64().unwrap_or(0);
        s.policy_loss = v["policy_loss"].as_f64().unwrap_or(f64::NAN);
        s.value_loss = v["value_loss"].as_f64().unwrap_or(f64::NAN);
        s.rows_seen = v["rows_seen"].as_u64().unwrap_or(0);
    }
    if let Ok(Some((_, path))) = run_dir::newest_checkpoint(run) {
        s.checkpoint = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
    }
    s
}

/// Runs until Ctrl-C, `max_minutes` or the trainer reaching `max_steps`.
pub fn run(
    options: &RunOptions,
    on_status: &mut dyn FnMut(&RunStatus),
) -> std::io::Result<RunStatus> {
    let logs = options.run.join("logs");
    std::fs::create_dir_all(&logs)?;
    let run_arg = options.run.display().to_string();
    let mut procs: Vec<Proc> = Vec::new();
    for i in 0..options.workers {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ i as u64;
        let mut args: Vec<String> = vec![
            "selfplay".into(),
            "--quiet".into(),
            "--run".into(),
            run_arg.clone(),
            "--seed".into(),
            seed.to_string(),
        ];
        args.extend(options.child_args.iter().cloned());
        let name = format!("worker-{i}");
        let child = spawn(&options.exe, &args, &logs.join(format!("{name}.log")))?;
        tracing::info!(pid = child.id(), "started {name}");
        procs.push(Proc {
            name,
            args,
            child,
            restarts: 0,
        });
    }
    let mut args: Vec<String> = vec!["train".into(), "--quiet".into(), "--run".into(), run_arg];
    if let Some(m) = options.max_steps {
        args.extend(["--max-steps".into(), m.to_string()]);
    }
    args.extend(options.child_args.iter().cloned());
    let trainer = spawn(&options.exe, &args, &logs.join("trainer.log"))?;
    tracing::info!(pid = trainer.id(), "started trainer");
    procs.push(Proc {
        name: "trainer".into(),
        args,
        child: trainer,
        restarts: 0,
    });

    let started = Instant::now();
    let mut restarts = 0;
    let reason = loop {
        std::thread::sleep(Duration::from_millis(500));
        if options.stop.load(Ordering::Relaxed) {
            break "stop requested";
        }
        if options
            .max_minutes
            .is_some_and(|m| started.elapsed().as_secs_f64() >= m * 60.0)
        {
            break "time limit reached";
        }
        let mut trainer_done = false;
        for p in procs.iter_mut() {
            let Some(status) = p.child.try_wait()? else {
                continue;
            };
            if p.name == "trainer" {
                if status.success() {
                    trainer_done = true;
                    continue;
                }
                tracing::error!(
                    "trainer exited with {status}; see {}",
                    logs.join("trainer.log").display()
                );
            } else {
                tracing::warn!("{} exited with {status}; restarting it", p.name);
            }
            if p.restarts >= 5 {
                tracing::error!("{} failed {} times; giving up", p.name, p.restarts);
                return Err(std::io::Error::other(format!(
                    "{} keeps failing; see {}",
                    p.name,
                    logs.display()
                )));
            }
            p.restarts += 1;
            restarts += 1;
            p.child = spawn(&options.exe, &p.args, &logs.join(format!("{}.log", p.name)))?;
        }
        if trainer_done {
            break "trainer reached its step limit";
        }
        let mut s = status(&options.run, started);
        s.worker_restarts = restarts;
        on_status(&s);
    };
    tracing::info!("{reason}; stopping workers and trainer");
    for p in procs.iter_mut() {
        if p.child.try_wait()?.is_none() {
            terminate(&mut p.child);
        }
    }
    for p in procs.iter_mut() {
        let status = p.child.wait()?;
        tracing::info!("{} stopped ({status})", p.name);
    }
    let mut s = status(&options.run, started);
    s.worker_restarts = restarts;
    on_status(&s);
    Ok(s)
}
