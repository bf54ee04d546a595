//! `tengu run`: starts the self-play workers and the trainer as processes of the same
//! binary on one run directory, restarts a crashed worker, and stops them all together.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::records::{EloRecord, SuiteRecord};
use serde::Deserialize;
use tengu_arena::report::{MatchCommand, MatchReport};
use tengu_search::players::PlayerSpec;
use tengu_store::checkpoint as published;
use tengu_store::{layout, RunStore};

/// Which trainer process `tengu run` starts (`train.engine`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrainerProcess {
    /// `tengu train` of the same binary.
    Rust,
    /// The PyTorch trainer, `python -m tengu.train`, run by this interpreter (checked with
    /// [`tengu_trainer::python::check`] before the run is written).
    Python { python: String },
}

/// What to supervise.
pub struct RunOptions {
    /// The `tengu` binary.
    pub exe: PathBuf,
    /// The trainer to start.
    pub trainer: TrainerProcess,
    pub run: PathBuf,
    pub workers: usize,
    /// The network backend of every child (`--backend`; None: the config's).
    pub backend: Option<String>,
    pub max_minutes: Option<f64>,
    pub max_steps: Option<u64>,
    /// Stop once the run's CPU ledger ([`tengu_store::cpu::total`], every session and
    /// process of the run, labels included) holds this many CPU-hours: arms of an A/B
    /// stop at equal compute however the machine was shared.
    pub max_cpu_hours: Option<f64>,
    pub stop: Arc<AtomicBool>,
    /// Game id, for the arena's matches.
    pub game: String,
    /// Periodic evaluation of new checkpoints (None: off).
    pub arena: Option<crate::config::ArenaConfig>,
    /// `train.min_rows`, which the status line says the trainer waits for.
    pub min_rows: u64,
    /// The run configuration whose `[search]` table the arena's checkpoint players use
    /// (`tengu match --search-config`).
    pub match_search_config: Option<PathBuf>,
    /// The openings file of the arena's matches (`tengu match --openings`), absolute.
    pub match_openings: Option<PathBuf>,
}

impl RunOptions {
    /// `--backend B` when the run names a backend, for every child.
    fn backend_args(&self) -> Vec<String> {
        match &self.backend {
            Some(b) => vec!["--backend".into(), b.clone()],
            None => Vec::new(),
        }
    }
}

/// What the progress view shows.
#[derive(Clone, Debug, Default)]
pub struct RunStatus {
    pub seconds: f64,
    pub games: usize,
    /// Rows in the run's shards: what the workers have written (from the shard names).
    pub rows_written: u64,
    /// Rows the trainer had read at its last step; None before its first step.
    pub rows_read: Option<u64>,
    pub step: u64,
    /// Losses of the last step; None before the first step (and the policy loss of a
    /// step whose batch had no policy target).
    pub policy_loss: Option<f64>,
    pub value_loss: Option<f64>,
    /// The newest checkpoint ("" before the first).
    pub checkpoint: String,
    pub worker_restarts: u32,
    /// Rating of the newest evaluated checkpoint relative to the first (Elo), and its name.
    pub elo: Option<(String, f64)>,
    /// `train.min_rows`: the trainer's first step waits for this many rows.
    pub min_rows: u64,
}

impl RunStatus {
    /// The status as one line of text, for a progress bar or a log: `-` for what is not
    /// known yet, and what the trainer waits for before its first step.
    pub fn line(&self) -> String {
        let or_dash = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let mut line = format!(
            "{} games, {} rows written, {} read by the trainer, step {}, policy loss {}, value loss {}, latest {}",
            self.games,
            self.rows_written,
            self.rows_read.map_or("-".to_string(), |r| r.to_string()),
            self.step,
            or_dash(self.policy_loss),
            or_dash(self.value_loss),
            if self.checkpoint.is_empty() {
                "-"
            } else {
                &self.checkpoint
            },
        );
        if let Some((n, e)) = &self.elo {
            line.push_str(&format!(", Elo {e:+.0} ({n})"));
        }
        if self.worker_restarts > 0 {
            line.push_str(&format!(", {} restarts", self.worker_restarts));
        }
        if self.rows_read.is_none() && self.rows_written < self.min_rows {
            line.push_str(&format!(
                "; trainer waiting for {} more rows (train.min_rows = {})",
                self.min_rows - self.rows_written,
                self.min_rows
            ));
        }
        line
    }
}

/// Appends one JSON line to the run's `key` (stores have no append: read, add, write; only
/// the supervisor writes these files).
fn append_jsonl(store: &RunStore, key: &str, line: &str) -> std::io::Result<()> {
    let mut text = store
        .get_text(key)
        .map_err(std::io::Error::other)?
        .unwrap_or_default();
    text.push_str(line);
    text.push('\n');
    store
        .put(key, text.into_bytes())
        .map_err(std::io::Error::other)
}

/// One queued or running evaluation of a checkpoint by `tengu run`.
struct Evaluation {
    checkpoint: String,
    step: u64,
    job: Job,
}

/// What an evaluation runs.
enum Job {
    /// A match against `opponent`, called `name` (a baseline as configured, e.g. `greedy`);
    /// `previous` names the checkpoint when the opponent is the previously evaluated one
    /// (its result chains the rating).
    Match {
        opponent: PlayerSpec,
        name: String,
        previous: Option<String>,
    },
    /// The game's tactics suite.
    Suite,
    /// The compute ladder (`tengu ladder`) over these CPU-hour targets (a rerun continues
    /// the rungs already played).
    Ladder { targets: Vec<f64> },
}

/// Ratings of checkpoints from `elo.jsonl` (chained through vs-previous matches); a
/// damaged or unknown record stops `tengu run` with its file and line before anything
/// starts (a rating chain continued from a misread file would be wrong from then on).
fn read_ratings(
    store: &RunStore,
) -> Result<
    (Vec<(String, f64)>, std::collections::BTreeSet<String>),
    tengu_trainer::records::ReadError,
> {
    let mut ratings = Vec::new();
    let mut evaluated = std::collections::BTreeSet::new();
    for r in tengu_trainer::records::read_store::<EloRecord>(store, layout::ELO_LOG)? {
        evaluated.insert(r.checkpoint.clone());
        if let Some(rating) = r.rating {
            ratings.push((r.checkpoint, rating));
        }
    }
    Ok((ratings, evaluated))
}

struct Proc {
    name: String,
    /// The program (the `tengu` binary, or the Python interpreter of the trainer).
    program: PathBuf,
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
    // SAFETY: kill(2) on the id of a child we spawned and have not yet reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
}

/// Reads the run for the progress view.
pub fn status(store: &RunStore, started: Instant) -> RunStatus {
    let names: Vec<layout::ShardName> = tengu_shard::list_run(store)
        .map(|shards| {
            shards
                .iter()
                .filter_map(|e| layout::ShardName::parse(e.name()))
                .collect()
        })
        .unwrap_or_default();
    let mut s = RunStatus {
        seconds: started.elapsed().as_secs_f64(),
        games: names.iter().map(|n| n.games as usize).sum(),
        rows_written: names.iter().map(|n| n.rows).sum(),
        ..Default::default()
    };
    if let Some(step) = published::newest(store).ok().flatten() {
        s.checkpoint = layout::weights_name(step);
        s.step = step;
    }
    // The loss log's last line, unless it is behind the newest checkpoint (a trainer that
    // wrote no log for its steps, as the PyTorch trainer's `--epochs` once did): then the
    // step is the checkpoint's, without the losses of an older step beside it.
    if let Some(r) = tengu_trainer::log::last_line(store).filter(|r| r.step >= s.step) {
        s.step = r.step;
        s.policy_loss = r.policy_loss;
        s.value_loss = r.heads.step(tengu_model::desc::HeadId::Value);
        s.rows_read = Some(r.rows_seen);
    }
    s
}

/// The last error line a child wrote to its log (`error: ...` as `main` prints it, else a
/// tracing ERROR line), to name why it stopped.
fn last_error(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("error: "))
        .or_else(|| lines.iter().rev().find(|l| l.contains("ERROR")))
        .map(|l| l.trim().to_string())
}

/// `; <the log's last error>; see <log>`.
fn see_log(log: &Path) -> String {
    match last_error(log) {
        Some(e) => format!(": {e}; see {}", log.display()),
        None => format!("; see {}", log.display()),
    }
}

/// Whether the run should stop now: a stop was requested, or `max_minutes` have passed
/// since `started`.
fn stopping(options: &RunOptions, started: Instant) -> Option<&'static str> {
    if options.stop.load(Ordering::Relaxed) {
        Some("stop requested")
    } else if options
        .max_minutes
        .is_some_and(|m| started.elapsed().as_secs_f64() >= m * 60.0)
    {
        Some("time limit reached")
    } else {
        None
    }
}

/// Waits until the run has a checkpoint (the trainer publishes step 0 as it starts), so that
/// no worker begins with the uniform evaluator: that is the fallback of a standalone `tengu
/// selfplay` without a checkpoint, and every game a worker starts keeps its evaluator to the
/// end, so a whole first batch of games would be cheap and uninformed. Returns early when a
/// stop is requested or the time limit passes (counted from `started`, the run's start);
/// fails if the trainer exits without a checkpoint (a config or backend it cannot use: a
/// restart would fail the same way).
fn wait_for_step_zero(
    options: &RunOptions,
    store: &RunStore,
    trainer: &mut Child,
    logs: &Path,
    started: Instant,
) -> std::io::Result<()> {
    let newest = || published::newest(store).map_err(std::io::Error::other);
    if newest()?.is_some() {
        return Ok(());
    }
    tracing::info!("waiting for the trainer's step-0 checkpoint before starting the workers");
    while newest()?.is_none() {
        if let Some(why) = stopping(options, started) {
            tracing::warn!("{why} before the trainer published step 0; no worker started");
            return Ok(());
        }
        if let Some(status) = trainer.try_wait()? {
            if newest()?.is_some() {
                break;
            }
            return Err(std::io::Error::other(format!(
                "the trainer exited ({status}) before publishing the step-0 checkpoint{}",
                see_log(&logs.join("trainer.log"))
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// How often the supervisor adds up the CPU ledger for `max_cpu_hours` (each process
/// rewrites its entry every few seconds).
const CPU_LIMIT_EVERY: Duration = Duration::from_secs(10);

/// The ledger's CPU-hours when they reach `limit` (None: no limit, or not yet).
fn cpu_limit_reached(store: &RunStore, limit: Option<f64>) -> Option<f64> {
    let limit = limit?;
    let hours = tengu_store::cpu::total(store) / 3600.0;
    (hours >= limit).then_some(hours)
}

/// Runs until Ctrl-C, `max_minutes`, `max_cpu_hours` or the trainer reaching `max_steps`.
/// The trainer starts first; a new run's workers start once it has published step 0
/// ([`wait_for_step_zero`]). A run whose ledger already holds `max_cpu_hours` starts
/// nothing.
pub fn run(
    options: &RunOptions,
    on_status: &mut dyn FnMut(&RunStatus),
) -> std::io::Result<RunStatus> {
    let logs = options.run.join("logs");
    std::fs::create_dir_all(&logs)?;
    let store =
        RunStore::open(&options.run.display().to_string()).map_err(std::io::Error::other)?;
    if let Some(hours) = cpu_limit_reached(&store, options.max_cpu_hours) {
        tracing::info!(
            "the run's ledger already holds {hours:.3} CPU-hours (--max-cpu-hours {}); nothing to do",
            options.max_cpu_hours.unwrap_or_default()
        );
        let s = status(&store, Instant::now());
        on_status(&s);
        return Ok(s);
    }
    let run_arg = options.run.display().to_string();
    let (trainer_program, trainer_args) = match &options.trainer {
        TrainerProcess::Rust => {
            let mut args: Vec<String> = vec![
                "train".into(),
                "--quiet".into(),
                "--run".into(),
                run_arg.clone(),
            ];
            if let Some(m) = options.max_steps {
                args.extend(["--max-steps".into(), m.to_string()]);
            }
            args.extend(options.backend_args());
            (options.exe.clone(), args)
        }
        TrainerProcess::Python { python } => (
            PathBuf::from(python),
            tengu_trainer::python::args(&run_arg, options.max_steps),
        ),
    };
    // The time limit counts from here: waiting for step 0 is part of the run.
    let started = Instant::now();
    let mut trainer = spawn(&trainer_program, &trainer_args, &logs.join("trainer.log"))?;
    tracing::info!(pid = trainer.id(), program = %trainer_program.display(), "started trainer");
    if let Err(e) = wait_for_step_zero(options, &store, &mut trainer, &logs, started) {
        terminate(&mut trainer);
        let _ = trainer.wait();
        return Err(e);
    }
    let workers = if stopping(options, started).is_some() {
        0
    } else {
        options.workers
    };
    let mut procs: Vec<Proc> = Vec::new();
    for i in 0..workers {
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
        args.extend(options.backend_args());
        let name = format!("worker-{i}");
        let child = spawn(&options.exe, &args, &logs.join(format!("{name}.log")))?;
        tracing::info!(pid = child.id(), "started {name}");
        procs.push(Proc {
            name,
            program: options.exe.clone(),
            args,
            child,
            restarts: 0,
        });
    }
    procs.push(Proc {
        name: "trainer".into(),
        program: trainer_program,
        args: trainer_args,
        child: trainer,
        restarts: 0,
    });

    let mut restarts = 0;
    let (ratings, evaluated) = read_ratings(&store).map_err(std::io::Error::other)?;
    let mut arena_state = ArenaState {
        ratings,
        evaluated,
        queue: Default::default(),
        running: None,
        ladder_targets: Vec::new(),
    };
    let mut cpu_checked = Instant::now();
    let reason = loop {
        std::thread::sleep(Duration::from_millis(500));
        if let Some(why) = stopping(options, started) {
            break why;
        }
        if cpu_checked.elapsed() >= CPU_LIMIT_EVERY {
            cpu_checked = Instant::now();
            if let Some(hours) = cpu_limit_reached(&store, options.max_cpu_hours) {
                tracing::info!("the run's ledger holds {hours:.3} CPU-hours");
                break "CPU-hour limit reached";
            }
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
                    "{} keeps failing{}",
                    p.name,
                    see_log(&logs.join(format!("{}.log", p.name)))
                )));
            }
            p.restarts += 1;
            restarts += 1;
            p.child = spawn(&p.program, &p.args, &logs.join(format!("{}.log", p.name)))?;
        }
        if trainer_done {
            break "trainer reached its step limit";
        }
        if let Some(arena) = &options.arena {
            evaluate(options, &store, arena, &mut arena_state, &logs)?;
        }
        let mut s = status(&store, started);
        s.worker_restarts = restarts;
        s.elo = arena_state.ratings.last().cloned();
        s.min_rows = options.min_rows;
        on_status(&s);
    };
    if let Some((child, _)) = arena_state.running.as_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
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
    let mut s = status(&store, started);
    s.worker_restarts = restarts;
    s.elo = arena_state.ratings.last().cloned();
    s.min_rows = options.min_rows;
    on_status(&s);
    Ok(s)
}

struct ArenaState {
    ratings: Vec<(String, f64)>,
    evaluated: std::collections::BTreeSet<String>,
    queue: std::collections::VecDeque<Evaluation>,
    running: Option<(Child, Evaluation)>,
    /// Ladder targets already sent to a ladder job.
    ladder_targets: Vec<f64>,
}

/// Queues matches for a new checkpoint, starts the next one, and records finished ones in
/// `elo.jsonl` (one line per match; `rating` chains vs-previous results from the first
/// checkpoint, rated 0).
fn evaluate(
    options: &RunOptions,
    store: &RunStore,
    arena: &crate::config::ArenaConfig,
    state: &mut ArenaState,
    logs: &Path,
) -> std::io::Result<()> {
    let checkpoints = published::committed(store).map_err(std::io::Error::other)?;
    if let Some(step) = checkpoints.last() {
        let name = layout::weights_name(*step);
        let last_rated = state
            .evaluated
            .iter()
            .filter_map(|n| layout::checkpoint_step(n))
            .max();
        if !state.evaluated.contains(&name) && due(last_rated, *step, arena.every_steps) {
            state.evaluated.insert(name.clone());
            if state.ratings.is_empty() {
                // The first checkpoint is the origin of the rating scale.
                state.ratings.push((name.clone(), 0.0));
                append_elo(store, &EloRecord::first(&name, *step))?;
            } else {
                let previous = state.ratings.last().unwrap().0.clone();
                let opponent = checkpoint_player(options, arena, &previous);
                state.queue.push_back(Evaluation {
                    checkpoint: name.clone(),
                    step: *step,
                    job: Job::Match {
                        name: opponent.to_string(),
                        opponent,
                        previous: Some(previous),
                    },
                });
            }
            for b in &arena.baselines {
                let opponent = match b.parse::<PlayerSpec>() {
                    Ok(spec) => spec,
                    Err(e) => {
                        tracing::warn!("arena.baselines: {e}; not played");
                        continue;
                    }
                };
                state.queue.push_back(Evaluation {
                    checkpoint: name.clone(),
                    step: *step,
                    job: Job::Match {
                        opponent,
                        name: b.clone(),
                        previous: None,
                    },
                });
            }
            // The tactics suite after the matches (which chain the ratings): seconds, and
            // the earliest sign of learning.
            if arena.suite && tengu_arena::suite::default_path(&options.game).exists() {
                state.queue.push_back(Evaluation {
                    checkpoint: name.clone(),
                    step: *step,
                    job: Job::Suite,
                });
            }
        }
        // Ladder rungs the run has passed by the tolerance: no later checkpoint can be
        // nearer to them. One ladder job plays every such target (it continues those
        // already played). Looked at with every checkpoint, rated or not, so that
        // `every_steps` does not delay a rung.
        if !arena.ladder_cpu_hours.is_empty() {
            let hours = tengu_store::cpu::total(store) / 3600.0;
            let passed = decided_targets(&arena.ladder_cpu_hours, arena.ladder_tolerance, hours);
            if passed.len() > state.ladder_targets.len() {
                state.ladder_targets = passed.clone();
                state.queue.retain(|e| !matches!(e.job, Job::Ladder { .. }));
                state.queue.push_back(Evaluation {
                    checkpoint: name.clone(),
                    step: *step,
                    job: Job::Ladder { targets: passed },
                });
            }
        }
    }
    if let Some((child, _)) = state.running.as_mut() {
        let Some(status) = child.try_wait()? else {
            return Ok(());
        };
        let (_, eval) = state.running.take().unwrap();
        let out = options.run.join("arena").join(format!(
            "{}-vs-{}.json",
            stem(&eval.checkpoint),
            label(&eval)
        ));
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let failed = |why: &str| {
            tracing::warn!(
                "arena match {} vs {} failed ({why}); see {}",
                eval.checkpoint,
                label(&eval),
                logs.join("arena.log").display()
            )
        };
        let parsed = serde_json::from_str::<serde_json::Value>(text.trim());
        match (&eval.job, parsed) {
            (_, _) if !status.success() => failed(&status.to_string()),
            (_, Err(e)) => failed(&format!("{}: {e}", out.display())),
            (Job::Suite, Ok(v)) => match crate::records::SuiteReport::deserialize(v) {
                Err(e) => failed(&format!("{}: not a suite report: {e}", out.display())),
                Ok(report) => {
                    let record = SuiteRecord::of_report(&eval.checkpoint, eval.step, report);
                    tracing::info!(checkpoint = %eval.checkpoint, top1 = record.top1, "tactics suite");
                    append_jsonl(
                        store,
                        layout::SUITE_LOG,
                        &tengu_trainer::records::to_line(&record),
                    )?;
                    if let Err(e) = crate::curves::write(store) {
                        tracing::warn!("cannot draw curves: {e}");
                    }
                }
            },
            (Job::Ladder { .. }, Ok(_)) => {
                // `tengu ladder` wrote ladder/ladder.json and redrew curves.svg itself.
                match crate::records::read_ladder(&out.display().to_string(), &text) {
                    Err(e) => failed(&e.to_string()),
                    Ok(report) => {
                        let newest = report.rungs.last();
                        tracing::info!(
                            rungs = report.rungs.len(),
                            cpu_hours = ?newest.map(|r| r.rung.cpu_hours),
                            elo = ?newest.map(|r| r.elo),
                            "compute ladder"
                        );
                    }
                }
            }
            (Job::Match { previous, .. }, Ok(v)) => match MatchReport::deserialize(v) {
                Err(e) => failed(&format!("{}: not a match report: {e}", out.display())),
                Ok(r) => {
                    // After a perfect (zero) score the estimate and one end of the interval
                    // are unbounded (null); the rating chain then moves by the finite end,
                    // the smallest difference the results support.
                    let elo = r.outcome.chain_elo().unwrap_or(0.0);
                    let mut line =
                        EloRecord::of_match(&eval.checkpoint, eval.step, &label(&eval), &r);
                    if let Some(prev) = previous {
                        let base = state
                            .ratings
                            .iter()
                            .rev()
                            .find(|(n, _)| n == prev)
                            .map_or(0.0, |r| r.1);
                        line.rating = Some(base + elo);
                        state.ratings.push((eval.checkpoint.clone(), base + elo));
                    }
                    tracing::info!(checkpoint = %eval.checkpoint, opponent = %label(&eval), elo, "evaluated");
                    append_elo(store, &line)?;
                    if let Err(e) = crate::curves::write(store) {
                        tracing::warn!("cannot draw curves: {e}");
                    }
                }
            },
        }
    }
    if state.running.is_none() {
        if let Some(eval) = state.queue.pop_front() {
            let dir = options.run.join("arena");
            std::fs::create_dir_all(&dir)?;
            let path = options.run.join(layout::MODELS).join(&eval.checkpoint);
            let args: Vec<std::ffi::OsString> = match &eval.job {
                Job::Suite => [
                    "suite".into(),
                    "--checkpoint".into(),
                    path.into_os_string(),
                    "--json".into(),
                    // Info: the log says what ran (each game of a match), not only failures.
                    "--log".into(),
                    "info".into(),
                ]
                .into_iter()
                .chain(options.backend_args().into_iter().map(Into::into))
                .collect(),
                Job::Match { opponent, .. } => MatchCommand {
                    a: checkpoint_player(options, arena, &eval.checkpoint),
                    b: opponent.clone(),
                    game: options.game.clone(),
                    games: arena.games,
                    max_plies: arena.max_plies,
                    material_ratio: arena.material_ratio,
                    contempt: arena.contempt,
                    log: "info".into(),
                    out: Some(dir.join(format!("{}-vs-{}", stem(&eval.checkpoint), label(&eval)))),
                    search_config: options.match_search_config.clone(),
                    openings: options.match_openings.clone(),
                    backend: options.backend.clone(),
                }
                .args(),
                Job::Ladder { targets } => {
                    let list = |v: &[String]| v.join(",");
                    let mut args: Vec<String> = vec![
                        "ladder".into(),
                        "--run".into(),
                        options.run.display().to_string(),
                        "--cpu-hours".into(),
                        list(&targets.iter().map(f64::to_string).collect::<Vec<_>>()),
                        "--tolerance".into(),
                        arena.ladder_tolerance.to_string(),
                        "--opponents".into(),
                        list(&arena.ladder_opponents),
                        "--games".into(),
                        arena.ladder_games.to_string(),
                        "--visits".into(),
                        arena.visits.to_string(),
                        "--max-plies".into(),
                        arena.max_plies.to_string(),
                        "--material-ratio".into(),
                        arena.material_ratio.to_string(),
                        "--contempt".into(),
                        arena.contempt.to_string(),
                        "--json".into(),
                        "--log".into(),
                        "info".into(),
                    ];
                    if let Some(openings) = &arena.openings {
                        args.extend(["--openings".into(), openings.display().to_string()]);
                    }
                    args.extend(options.backend_args());
                    args.into_iter().map(Into::into).collect()
                }
            };
            let out = dir.join(format!(
                "{}-vs-{}.json",
                stem(&eval.checkpoint),
                label(&eval)
            ));
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(logs.join("arena.log"))?;
            let child = std::os::unix::process::CommandExt::process_group(
                Command::new(&options.exe)
                    .args(&args)
                    .stdin(Stdio::null())
                    .stdout(std::fs::File::create(&out)?)
                    .stderr(log),
                0,
            )
            .spawn()?;
            state.running = Some((child, eval));
        }
    }
    Ok(())
}

/// The MCTS player of a checkpoint of the run (`checkpoint:RUN/models/NAME:VISITS`).
fn checkpoint_player(
    options: &RunOptions,
    arena: &crate::config::ArenaConfig,
    name: &str,
) -> PlayerSpec {
    PlayerSpec::Checkpoint {
        path: options
            .run
            .join(layout::MODELS)
            .join(name)
            .display()
            .to_string(),
        visits: arena.visits,
    }
}

fn stem(name: &str) -> String {
    name.trim_end_matches(".safetensors").to_string()
}

/// A file-name-safe label of the opponent.
fn label(eval: &Evaluation) -> String {
    match &eval.job {
        Job::Match {
            previous: Some(prev),
            ..
        } => stem(prev),
        Job::Match { name, .. } => name.replace(':', "-"),
        Job::Suite => "suite".into(),
        Job::Ladder { .. } => "ladder".into(),
    }
}

/// The ladder targets (CPU-hours) a run at `hours` has passed by the factor `tolerance`, in
/// increasing order: their rungs are settled, since any later checkpoint is further away.
/// Whether the newest checkpoint (`step`) is rated: the first one always, later ones once
/// they are `every_steps` past the newest checkpoint already rated (0: each one).
fn due(last_rated: Option<u64>, step: u64, every_steps: u64) -> bool {
    last_rated.is_none_or(|last| step >= last.saturating_add(every_steps))
}

fn decided_targets(targets: &[f64], tolerance: f64, hours: f64) -> Vec<f64> {
    let mut passed: Vec<f64> = targets
        .iter()
        .copied()
        .filter(|t| hours >= t * tolerance)
        .collect();
    passed.sort_by(f64::total_cmp);
    passed
}

fn append_elo(store: &RunStore, record: &EloRecord) -> std::io::Result<()> {
    append_jsonl(
        store,
        layout::ELO_LOG,
        &tengu_trainer::records::to_line(record),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_rated_once_it_is_every_steps_past_the_last_one_rated() {
        assert!(due(None, 0, 2000));
        assert!(due(None, 4000, 2000));
        assert!(!due(Some(0), 1800, 2000));
        assert!(due(Some(0), 2000, 2000));
        assert!(due(Some(2000), 2200, 0));
        assert!(!due(Some(4000), 2200, 2000));
    }

    #[test]
    fn a_ladder_target_is_played_once_the_run_is_past_it_by_the_tolerance() {
        let targets = [4.0, 0.25, 1.0, 0.5];
        assert!(decided_targets(&targets, 1.25, 0.3).is_empty());
        assert_eq!(decided_targets(&targets, 1.25, 0.32), vec![0.25]);
        assert_eq!(decided_targets(&targets, 1.25, 1.3), vec![0.25, 0.5, 1.0]);
        assert_eq!(
            decided_targets(&targets, 1.0, 4.0),
            vec![0.25, 0.5, 1.0, 4.0]
        );
    }

    #[test]
    fn the_status_line_shows_dashes_until_a_step_and_what_the_trainer_waits_for() {
        let waiting = RunStatus {
            games: 8,
            rows_written: 1344,
            checkpoint: layout::weights_name(0),
            min_rows: 2000,
            ..Default::default()
        };
        let line = waiting.line();
        assert!(
            line.contains("1344 rows written, - read by the trainer, step 0")
                && line.contains("policy loss -, value loss -")
                && line.ends_with("trainer waiting for 656 more rows (train.min_rows = 2000)"),
            "{line}"
        );
        let trained = RunStatus {
            rows_read: Some(2100),
            step: 20,
            policy_loss: Some(1.25),
            value_loss: Some(0.5),
            ..waiting
        };
        let line = trained.line();
        assert!(
            line.contains("2100 read by the trainer, step 20, policy loss 1.250, value loss 0.500")
                && !line.contains("waiting"),
            "{line}"
        );
    }

    #[test]
    fn the_status_shows_the_newest_checkpoints_step_when_the_loss_log_is_behind_it() {
        let store = RunStore::open("memory://supervise-tests/status").unwrap();
        let publish = |step: u64| {
            tengu_store::checkpoint::publish(
                &store,
                &tengu_store::checkpoint::Publication {
                    step,
                    weights: b"weights",
                    optimizer: None,
                    lease: 1,
                    rows_seen: 0,
                    parent: None,
                },
            )
            .unwrap()
        };
        let line = |step: u64| {
            let r = tengu_trainer::records::LossRecord {
                heads: tengu_trainer::records::HeadLosses::default()
                    .with_step(tengu_model::desc::HeadId::Value, 0.5),
                ..tengu_trainer::records::LossRecord::at(step, 0.0)
            };
            format!("{}\n", tengu_trainer::records::to_line(&r))
        };
        // Four logged steps, then a trainer that published step 10 without logging.
        store
            .put(&layout::train_log_key(0), line(4).into_bytes())
            .unwrap();
        publish(4);
        publish(10);
        let s = status(&store, Instant::now());
        assert_eq!((s.step, s.value_loss, s.rows_read), (10, None, None));
        assert_eq!(s.checkpoint, layout::weights_name(10));
        // A log that is ahead of the newest checkpoint (steps since it) gives the step.
        store
            .put(&layout::train_log_key(10), line(12).into_bytes())
            .unwrap();
        let s = status(&store, Instant::now());
        assert_eq!((s.step, s.value_loss), (12, Some(0.5)));
    }

    #[test]
    fn a_childs_last_error_is_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("trainer.log");
        std::fs::write(
            &log,
            "INFO starting\nerror: network.preset: unknown preset\n",
        )
        .unwrap();
        let text = see_log(&log);
        assert!(
            text.starts_with(": error: network.preset") && text.contains("trainer.log"),
            "{text}"
        );
        assert!(see_log(&dir.path().join("none.log")).starts_with("; see"));
    }
}
