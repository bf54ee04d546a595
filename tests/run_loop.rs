//! `tengu run`, the main job, as a user runs it: workers and trainer on one run directory,
//! resumed by running it again, a killed worker restarted.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

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
checkpoint_poll_seconds = 0.5
[train]
batch_size = 16
min_rows = 100
steps_per_checkpoint = 20
poll_seconds = 0.5
[arena]
games = 2
visits = 4
baselines = ["random"]
max_plies = 30
"#;

/// Runs `tengu` in `dir`: (success, standard error).
fn tengu(args: &[&str], dir: &Path) -> (bool, String) {
    let (ok, _, err) = tengu_out(args, dir);
    (ok, err)
}

/// Like [`tengu`], with standard output as well (a pipe, not a terminal).
fn tengu_out(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn steps(run: &Path) -> Vec<u64> {
    let store = tengu_store::RunStore::open(&run.display().to_string()).unwrap();
    tengu_store::checkpoint::committed(&store).unwrap()
}

#[test]
fn run_trains_publishes_checkpoints_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), CONFIG).unwrap();
    // Not --quiet, and standard output is a pipe: plain status lines.
    let (ok, out, err) = tengu_out(
        &["run", "--config", "tiny.toml", "--max-steps", "40"],
        dir.path(),
    );
    assert!(ok, "{err}");
    // A line at each new checkpoint: before the first step the losses are unknown and the
    // trainer waits for train.min_rows; rows written by the workers are counted apart from
    // the rows the trainer read.
    let lines: Vec<&str> = out.lines().collect();
    let at = |checkpoint: &str| {
        lines
            .iter()
            .find(|l| l.contains(&format!("latest {checkpoint}")))
            .unwrap_or_else(|| panic!("no status line at {checkpoint}: {out}"))
    };
    let first = at("model-000000000.safetensors");
    assert!(
        first.contains("rows written, - read by the trainer")
            && first.contains("policy loss -, value loss -"),
        "{first}"
    );
    // Whether the workers had written train.min_rows by then depends on the machine's speed:
    // the line says what the trainer waits for exactly when they had not.
    let written: u64 = first
        .split(" rows written")
        .next()
        .and_then(|head| head.rsplit(", ").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no row count in {first}"));
    assert_eq!(
        first.contains(&format!(
            "waiting for {} more rows (train.min_rows = 100)",
            100u64.saturating_sub(written)
        )),
        written < 100,
        "{first}"
    );
    let trained = at("model-000000020.safetensors");
    assert!(
        !trained.contains("value loss -") && !trained.contains("waiting"),
        "{trained}"
    );
    assert!(
        out.contains("stopped: ") && out.contains("step 40"),
        "{out}"
    );
    // The run directory is named after the config file.
    let run = dir.path().join("runs/tiny");
    assert_eq!(steps(&run), [0, 20, 40]);
    assert!(run.join("config.toml").exists() && run.join("logs/trainer.log").exists());
    let shards = tengu_shard::list(&run.join("shards")).unwrap();
    assert!(!shards.is_empty());
    // The supervisor publishes step 0 before the workers start: no game is played with the
    // uniform evaluator (a worker's fallback when it finds no checkpoint).
    for shard in &shards {
        let header = tengu_shard::read_header(shard).unwrap();
        assert!(
            header.model.starts_with("model-"),
            "{}: played by {}",
            shard.display(),
            header.model
        );
    }
    // Again, from the saved configuration: it goes on from step 40.
    let (ok, err) = tengu(
        &["run", "--run", "runs/tiny", "--max-steps", "60", "--quiet"],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert_eq!(steps(&run), [0, 20, 40, 60]);
    let (ok, err) = tengu(&["run", "--run", "runs/none"], dir.path());
    assert!(!ok && err.contains("config.toml"), "{err}");
    assert!(
        !dir.path().join("runs/none").exists(),
        "a refused run is not created"
    );
}

/// Commands that fail name the cause and leave nothing behind: no run directory, no file.
#[test]
fn refused_commands_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("tiny.toml", CONFIG);
    write("typo.toml", &CONFIG.replace("visits = 8", "visitz = 8"));
    write("huge.toml", &CONFIG.replace("\"tiny\"", "\"huge\""));
    write("big.toml", &CONFIG.replace("\"tiny\"", "\"b1000c4096\""));
    let refused: &[(&[&str], &[&str])] = &[
        // Configs are checked whole before anything starts (presets too).
        (&["run", "--config", "typo.toml"], &["typo.toml", "visitz"]),
        (&["run", "--config", "missing.toml"], &["missing.toml"]),
        (
            &["run", "--config", "huge.toml"],
            &["network.preset", "\"huge\"", "tiny (b2c16)"],
        ),
        (
            &["run", "--config", "big.toml"],
            &["b1000c4096", "blocks 1..=40", "channels 8..=512"],
        ),
        (
            &["train", "--run", "runs/typo", "--config", "typo.toml"],
            &["visitz"],
        ),
        (
            &["selfplay", "--run", "runs/typo", "--config", "typo.toml"],
            &["visitz"],
        ),
        // A trainer needs a run or a config to start one.
        (
            &["train", "--run", "runs/fresh", "--max-steps", "0"],
            &["runs/fresh", "--config"],
        ),
        // Location schemes are checked by name.
        (
            &[
                "train",
                "--run",
                "s3:/bad",
                "--config",
                "tiny.toml",
                "--max-steps",
                "0",
            ],
            &["s3:/bad", "s3://"],
        ),
        (
            &["train", "--run", "foo://x", "--config", "tiny.toml"],
            &["\"foo\"", "s3://", "file://"],
        ),
    ];
    for (args, says) in refused {
        let (ok, err) = tengu(args, dir.path());
        assert!(!ok, "{args:?} succeeded");
        for s in *says {
            assert!(err.contains(s), "{args:?}: {s:?} not in {err}");
        }
    }
    // Backends this build lacks are named before anything starts.
    #[cfg(not(feature = "cuda"))]
    for args in [
        &["run", "--config", "tiny.toml", "--backend", "tch-cuda"][..],
        &[
            "selfplay",
            "--run",
            "runs/tiny",
            "--backend",
            "tch-cuda",
            "--games",
            "1",
        ],
        &[
            "train",
            "--run",
            "runs/tiny",
            "--config",
            "tiny.toml",
            "--backend",
            "tch-cpu",
        ],
    ] {
        let (ok, err) = tengu(args, dir.path());
        assert!(!ok && err.contains("--features cuda"), "{args:?}: {err}");
        assert!(!err.contains("architecture"), "{err}");
    }
    #[cfg(not(feature = "candle"))]
    {
        let (ok, err) = tengu(
            &["run", "--config", "tiny.toml", "--backend", "candle"],
            dir.path(),
        );
        assert!(!ok && err.contains("--features candle"), "{err}");
    }
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["big.toml", "huge.toml", "tiny.toml", "typo.toml"]);
}

/// A config the run's checkpoints cannot be loaded into is refused by name, the run's
/// config.toml untouched; search and training changes are taken and logged.
#[test]
fn a_config_change_the_checkpoints_cannot_follow_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), CONFIG).unwrap();
    std::fs::write(
        dir.path().join("cpu.toml"),
        CONFIG.replace("\"tiny\"", "\"cpu\""),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("planes.toml"),
        CONFIG.replace(
            "preset = \"tiny\"",
            "preset = \"tiny\"\nmaterial_planes = true",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("more.toml"),
        CONFIG.replace("visits = 8", "visits = 16"),
    )
    .unwrap();
    let train = |config: &str| {
        tengu(
            &[
                "train",
                "--run",
                "runs/r",
                "--config",
                config,
                "--max-steps",
                "0",
            ],
            dir.path(),
        )
    };
    let (ok, err) = train("tiny.toml");
    assert!(ok, "{err}");
    let saved = std::fs::read_to_string(dir.path().join("runs/r/config.toml")).unwrap();
    for (config, says) in [
        (
            "cpu.toml",
            ["network.preset: \"tiny\" -> \"cpu\"", "b2c16", "b4c32"],
        ),
        (
            "planes.toml",
            [
                "network.material_planes: false -> true",
                "b2c16",
                "input planes",
            ],
        ),
    ] {
        // (A time limit only so that a regression ends.)
        let (ok, err) = tengu(
            &[
                "run",
                "--run",
                "runs/r",
                "--config",
                config,
                "--max-minutes",
                "0.05",
            ],
            dir.path(),
        );
        assert!(!ok, "{config} was accepted");
        for s in says {
            assert!(err.contains(s), "{config}: {s:?} not in {err}");
        }
        let (ok, _) = train(config);
        assert!(!ok, "train took {config}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("runs/r/config.toml")).unwrap(),
            saved
        );
    }
    let (ok, err) = train("more.toml");
    assert!(ok && err.contains("search.visits: 8 -> 16"), "{err}");
    let now = std::fs::read_to_string(dir.path().join("runs/r/config.toml")).unwrap();
    assert!(now.contains("visits = 16"), "{now}");
}

/// `tengu run` of `dir`'s tiny.toml for `minutes`, its supervisor logging at info (for the
/// tests that watch the run's processes while it runs).
fn timed_run(dir: &Path, minutes: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tengu"));
    command
        .args(["run", "--config", "tiny.toml", "--max-minutes", minutes])
        .args(["--quiet", "--log", "info"])
        .current_dir(dir);
    command
}

#[test]
fn a_killed_worker_is_restarted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), CONFIG).unwrap();
    let mut child = timed_run(dir.path(), "0.15")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut log = String::new();
    let pid = loop {
        let line = lines.next().expect("supervisor output").unwrap();
        log.push_str(&line);
        log.push('\n');
        if let Some(rest) = line.split("started worker-0 pid=").nth(1) {
            let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
            break digits;
        }
    };
    std::thread::sleep(std::time::Duration::from_secs(2));
    let pid: libc::pid_t = pid.parse().unwrap();
    // SAFETY: kill(2) on the worker process the supervisor under test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    for line in lines {
        log.push_str(&line.unwrap());
        log.push('\n');
    }
    assert!(child.wait().unwrap().success(), "{log}");
    assert!(
        log.contains("worker-0 exited") && log.contains("restarting"),
        "{log}"
    );
}

/// `tengu run` of `config` in `dir` for `minutes`, with checkpoints twice as often: the
/// first self-play games use the step-0 network (not the much faster uniform evaluator), and
/// the arena's matches must fit in the time limit also on a busy machine. Returns the run.
fn arena_run(dir: &Path, config: &str, minutes: &str) -> std::path::PathBuf {
    let config = config
        .replace("min_rows = 100", "min_rows = 50")
        .replace("steps_per_checkpoint = 20", "steps_per_checkpoint = 10");
    std::fs::write(dir.join("tiny.toml"), config).unwrap();
    let (ok, err) = tengu(
        &[
            "run",
            "--config",
            "tiny.toml",
            "--max-minutes",
            minutes,
            "--quiet",
        ],
        dir,
    );
    assert!(ok, "{err}");
    dir.join("runs/tiny")
}

#[test]
fn run_evaluates_new_checkpoints_in_the_arena() {
    let dir = tempfile::tempdir().unwrap();
    // A checkpoint every 10 steps, rated every 20 at most.
    let config = CONFIG.replace("[arena]\n", "[arena]\nevery_steps = 20\n");
    let run = arena_run(dir.path(), &config, "0.4");
    // The arena's log says what it played, not only its failures.
    let arena_log = std::fs::read_to_string(run.join("logs/arena.log")).unwrap_or_default();
    assert!(
        arena_log.contains("match starting") && arena_log.contains("game finished"),
        "arena.log: {arena_log:?}"
    );
    // Read through the record's type, as serve, curves and TensorBoard read it.
    let text = std::fs::read_to_string(run.join("elo.jsonl")).unwrap();
    let lines: Vec<tengu_run::records::EloRecord> =
        tengu_trainer::records::read_lines("elo.jsonl", &text).unwrap();
    let games = |l: &tengu_run::records::EloRecord| l.outcome.as_ref().map(|o| o.games);
    assert_eq!(
        lines[0].rating,
        Some(0.0),
        "the first checkpoint is the origin"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.opponent.as_deref() == Some("random") && games(l) == Some(2)),
        "{text}"
    );
    let mut rated: Vec<u64> = lines
        .iter()
        .filter_map(|l| tengu_store::layout::checkpoint_step(&l.checkpoint))
        .collect();
    rated.dedup();
    assert!(
        rated.windows(2).all(|w| w[1] >= w[0] + 20),
        "arena.every_steps = 20 rated {rated:?}"
    );
    // Each match line carries the checkpoint's end-of-game material share.
    assert!(
        lines
            .iter()
            .filter_map(|l| l.outcome.as_ref())
            .all(|o| (0.0..=1.0).contains(&o.material_share)),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .skip(1)
            .any(|l| l.rating.is_some() && games(l) == Some(2)),
        "a vs-previous match: {text}"
    );
    // TensorBoard's event file (its format is checked in tests/tensorboard_cli.rs).
    let events = std::fs::read(run.join("tensorboard/events.out.tfevents.0000000000.tengu"))
        .expect("tengu run keeps RUN/tensorboard");
    for tag in ["loss/policy", "elo/chain", "elo/vs_random"] {
        assert!(
            events.windows(tag.len()).any(|w| w == tag.as_bytes()),
            "{tag} not in the event file"
        );
    }
    let svg = std::fs::read_to_string(run.join("curves.svg")).unwrap();
    assert!(svg.contains("Elo relative to the first checkpoint"));
    // Policy, value, ownership and material losses and Elo, each against training step,
    // hours, self-play games and CPU hours (held-out losses and the suite add more lines
    // when the run got that far).
    for axis in [
        "training step",
        "hours since the first step",
        "self-play games",
        "CPU hours (self-play + training)",
    ] {
        assert!(svg.contains(axis), "{axis}: {svg}");
    }
    assert!(svg.matches("<polyline").count() >= 5 * 4, "{svg}");
}

#[test]
fn a_run_directory_of_another_game_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("runs/shared");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("config.toml"), CONFIG).unwrap();
    let maka = CONFIG.replace("game = \"dai-dai\"", "game = \"maka-dai-dai\"");
    assert_ne!(maka, CONFIG, "the test config names its game");
    std::fs::write(dir.path().join("maka.toml"), maka).unwrap();
    let (ok, err) = tengu(
        &[
            "run",
            "--config",
            "maka.toml",
            "--run",
            "runs/shared",
            "--quiet",
        ],
        dir.path(),
    );
    assert!(!ok);
    assert!(
        err.contains("is a dai-dai run") && err.contains("maka-dai-dai"),
        "{err}"
    );
    // Nothing was started: no checkpoint, and the saved config is unchanged.
    assert!(!run.join("models").exists());
    assert_eq!(
        std::fs::read_to_string(run.join("config.toml")).unwrap(),
        CONFIG
    );
}

#[test]
fn run_plays_the_compute_ladder_as_it_passes_each_target() {
    let dir = tempfile::tempdir().unwrap();
    // A target of 0.144 CPU-seconds with a wide tolerance: any checkpoint of the first 14.4
    // CPU-seconds is its rung, settled once the run has spent them (a minute of wall time
    // leaves room on a busy machine). No other evaluation but vs-previous.
    let config = CONFIG.replace(
        "baselines = [\"random\"]",
        "baselines = []\nsuite = false\nladder_cpu_hours = [0.00004]\nladder_tolerance = 100.0\nladder_opponents = [\"random\"]\nladder_games = 2",
    );
    let run = arena_run(dir.path(), &config, "1");
    let text = std::fs::read_to_string(run.join("ladder/ladder.json")).unwrap_or_else(|e| {
        let log = std::fs::read_to_string(run.join("logs/arena.log")).unwrap_or_default();
        panic!("no ladder report ({e}); arena.log: {log}")
    });
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rungs = report["rungs"].as_array().unwrap();
    assert_eq!(rungs.len(), 1, "{text}");
    assert_eq!(rungs[0]["target_hours"], 0.00004);
    assert_eq!(rungs[0]["matches"][0]["opponent"], "random");
    let svg = std::fs::read_to_string(run.join("curves.svg")).unwrap();
    assert!(
        svg.contains("compute ladder"),
        "curves.svg has no ladder row"
    );
}

#[test]
fn a_cpu_hour_limit_stops_the_run_at_equal_compute() {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG.replace("[arena]\n", "[arena]\nenabled = false\n");
    std::fs::write(dir.path().join("tiny.toml"), config).unwrap();
    let ledger = |run: &Path| {
        let store = tengu_store::RunStore::open(&run.display().to_string()).unwrap();
        tengu_store::cpu::total(&store)
    };
    let entries = |run: &Path| std::fs::read_dir(run.join("cpu")).unwrap().count();
    // Refused before anything is written.
    let (ok, err) = tengu(
        &["run", "--config", "tiny.toml", "--max-cpu-hours", "0"],
        dir.path(),
    );
    assert!(
        !ok && err.contains("not a positive number of CPU-hours"),
        "{err}"
    );
    assert!(!dir.path().join("runs").exists());
    // 0.004 CPU-hours = 14.4 CPU-seconds; the minutes only end a regression.
    let limit = 0.004;
    let args = [
        "run",
        "--config",
        "tiny.toml",
        "--max-cpu-hours",
        "0.004",
        "--max-minutes",
        "4",
        "--quiet",
        "--log",
        "info",
    ];
    let (ok, err) = tengu(&args, dir.path());
    assert!(ok, "{err}");
    assert!(err.contains("CPU-hour limit reached"), "{err}");
    let run = dir.path().join("runs/tiny");
    let spent = ledger(&run);
    assert!(spent >= limit * 3600.0, "stopped at {spent} CPU-seconds");
    // Resumed with the same limit: the ledger already holds it, so nothing starts.
    let before = entries(&run);
    let (ok, err) = tengu(&args, dir.path());
    assert!(ok, "{err}");
    assert!(err.contains("already holds"), "{err}");
    assert_eq!(entries(&run), before, "a process was started");
    assert_eq!(ledger(&run), spent);
}

#[test]
fn the_time_limit_holds_while_waiting_for_the_trainers_step_zero() {
    // A trainer that never publishes step 0 (here an "interpreter" that passes the start's
    // check, then sleeps): --max-minutes still ends the run, and no worker starts.
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG
        .replace("[arena]\n", "[arena]\nenabled = false\n")
        .replace("[train]\n", "[train]\nengine = \"python\"\n");
    std::fs::write(dir.path().join("tiny.toml"), config).unwrap();
    let python = dir.path().join("sleeping-python");
    std::fs::write(
        &python,
        format!(
            "#!/bin/sh\nif [ \"$1\" = -c ]; then echo {}; exit 0; fi\nexec sleep 120\n",
            tengu_model::ENCODER_VERSION
        ),
    )
    .unwrap();
    std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut child = timed_run(dir.path(), "0.05")
        .env("TENGU_PYTHON", &python)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("tengu run ignored --max-minutes while it waited for step 0");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(
        err.contains("time limit reached before the trainer published step 0"),
        "{err}"
    );
    let logs = dir.path().join("runs/tiny/logs");
    assert!(!logs.join("worker-0.log").exists(), "a worker was started");
}
