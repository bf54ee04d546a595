//! `tengu serve` as a user runs it: on a small run made by `tengu run`, with the kept run's
//! compute ladder and Elo records, a resumed trainer session and damaged game files added,
//! the page in headless Chromium shows the ladder, the loss log's numbers in readable
//! curves, replays a self-play game to the position `tengu show` gives for its record with
//! the search's values from one side's view, shows what damaged files still hold, a
//! checkpoint published meanwhile without a reload and a self-play worker's game in progress
//! updating as it goes (scripts/browser-test.sh --serve, which lists every check;
//! `TENGU_SKIP_BROWSER=1` skips the browser part).
//! And a location that is not a run is said in the log and on the page, never a crash.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{copy_dir, p, tengu};
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
checkpoint_poll_seconds = 0.5
live_game_seconds = 0.5
[train]
batch_size = 16
min_rows = 100
steps_per_checkpoint = 10
poll_seconds = 0.5
"#;

/// `tengu serve RUN` on a free port: the child and its address (from its first line).
fn serve(run: &Path, stderr: &Path) -> (Child, String) {
    serve_with(run, stderr, &[])
}

/// [`serve`] with more flags.
fn serve_with(run: &Path, stderr: &Path, extra: &[&str]) -> (Child, String) {
    serve_runs(&[run], stderr, extra)
}

/// `tengu serve RUN RUN...` with more flags: the child and its address.
fn serve_runs(runs: &[&Path], stderr: &Path, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .arg("serve")
        .args(runs.iter().map(|r| p(r)))
        .args(["--addr", "127.0.0.1:0", "--poll", "0.5"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(stderr).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (child, addr)
}

/// The body of GET `path` from `addr`.
fn get(addr: &str, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn stop(mut child: Child) {
    // SIGTERM: serve stops cleanly.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("tengu serve did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The board rows of `tengu show --record`'s diagram: one token or `.` per square.
fn show_board(record: &Path) -> Vec<Vec<String>> {
    let (ok, out, err) = tengu(&["show", "--record", &p(record)]);
    assert!(ok, "{err}");
    out.lines()
        .filter(|l| {
            let t = l.trim_start();
            l.starts_with("  ")
                && t.len() > 2
                && t.as_bytes()[0].is_ascii_lowercase()
                && t.as_bytes()[1] == b' '
        })
        .map(|l| l.split_whitespace().skip(1).map(str::to_string).collect())
        .collect()
}

#[test]
fn the_page_shows_the_runs_numbers_replays_a_game_and_follows_new_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), CONFIG).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args([
            "run",
            "--config",
            "tiny.toml",
            "--max-steps",
            "10",
            "--quiet",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = dir.path().join("runs/tiny");

    // What the page must show: the loss log's last value loss ...
    let mut segments: Vec<_> = std::fs::read_dir(run.join("train"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    segments.sort();
    // Read through the loss log's type, as serve reads it.
    let log: Vec<tengu_trainer::records::LossRecord> = segments
        .iter()
        .flat_map(|s| {
            let text = std::fs::read_to_string(s).unwrap();
            tengu_trainer::records::read_lines(&s.display().to_string(), &text).unwrap()
        })
        .collect();
    let losses: Vec<f64> = log
        .iter()
        .filter_map(|r| r.heads.step(HeadId::Value))
        .collect();
    let last_line = log.last().expect("a loss log");
    assert!(!losses.is_empty(), "no value loss in the loss log");
    // A second trainer session three hours later (the run stopped and resumed): 30 steps,
    // enough to be smoothed, with held-out losses.
    let (last_step, last_time) = (last_line.step, last_line.unix_time);
    let resumed: Vec<tengu_trainer::records::LossRecord> = (1..=30u64)
        .map(|i| {
            // The last line the trainer wrote, moved on.
            let mut line = last_line.clone();
            line.step = last_step + i;
            line.unix_time = last_time + 3.0 * 3600.0 + 10.0 * i as f64;
            line.heads
                .set(HeadId::Value, false, Some(0.5 + 0.01 * (i % 5) as f64));
            line.policy_loss = Some(3.0);
            line.heads.set(HeadId::Value, true, Some(0.9));
            line
        })
        .collect();
    let value_loss = resumed.last().unwrap().heads.step(HeadId::Value).unwrap();
    let segment = run.join(tengu_store::layout::train_log_key(last_step + 1));
    std::fs::write(
        &segment,
        resumed
            .iter()
            .map(|l| format!("{}\n", tengu_trainer::records::to_line(l)))
            .collect::<String>(),
    )
    .unwrap();
    // The kept run's compute ladder (its report, chart, 810 game records) and Elo records.
    let baseline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/baselines/dai-dai-cpu-2026-11-25");
    copy_dir(&baseline.join("ladder"), &run.join("ladder"));
    std::fs::copy(baseline.join("elo.jsonl"), run.join("elo.jsonl")).unwrap();
    // One line of the tactics suite: a chart of one point, whose ticks must still differ.
    let suite = std::fs::read_to_string(baseline.join("suite.jsonl")).unwrap();
    std::fs::write(
        run.join("suite.jsonl"),
        format!("{}\n", suite.lines().next().unwrap()),
    )
    .unwrap();
    let ladder_file = baseline.join("ladder/ladder.json");
    let ladder = tengu_run::records::read_ladder(
        &ladder_file.display().to_string(),
        &std::fs::read_to_string(&ladder_file).unwrap(),
    )
    .unwrap();
    let ladder_games = count_files(&run.join("ladder"), ".record");
    // ... and the final board of the newest self-play game, as tengu show draws it.
    let mut records: Vec<_> = std::fs::read_dir(run.join("games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".records"))
        .collect();
    records.sort();
    let newest = records.last().expect("game records");
    let first_line = std::fs::read_to_string(run.join("games").join(newest)).unwrap();
    let line: serde_json::Value = serde_json::from_str(first_line.lines().next().unwrap()).unwrap();
    let record = dir.path().join("game.record");
    std::fs::write(&record, line["record"].as_str().unwrap()).unwrap();
    let board = show_board(&record);
    assert_eq!(board.len(), 17, "{board:?}");
    // The search's value of its last move, beside the record.
    let last_value = line["values"]
        .as_array()
        .and_then(|v| v.last())
        .and_then(|v| v.as_f64())
        .unwrap_or_else(|| panic!("no value of the last move in {line}"));
    // Values are the mover's; the page shows Black's view.
    let parsed = tengu_rules::Record::parse(line["record"].as_str().unwrap()).unwrap();
    let first_mover_black = parsed.game.start().side_to_move() == tengu_rules::Color::Black;
    let last_mover_black = first_mover_black == (parsed.game.len() % 2 == 1);
    let last_black_value = if last_mover_black {
        last_value
    } else {
        -last_value
    };
    // Damaged game files: one with a torn last line after two intact games, one with
    // nothing intact (names that sort newest).
    let all_lines: Vec<String> = records
        .iter()
        .flat_map(|r| {
            std::fs::read_to_string(run.join("games").join(r))
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(all_lines.len() >= 2, "two games to copy: {all_lines:?}");
    let damaged = "games/9999999999999-test-1-00000.records";
    let torn = format!("{}\n{}\n{{\"game\": 9, \"rec", all_lines[0], all_lines[1]);
    std::fs::write(run.join(damaged), torn).unwrap();
    let unreadable = "games/9999999999998-test-1-00000.records";
    std::fs::write(run.join(unreadable), "{\"game\": 0, \"record\": \"[Game").unwrap();
    // `tengu run` stopped its worker, which took its game in progress away.
    let live_dir = run.join("live");
    assert!(
        !live_dir.exists() || std::fs::read_dir(&live_dir).unwrap().next().is_none(),
        "a stopped worker left its game in progress"
    );

    let (server, addr) = serve(&run, &dir.path().join("serve.log"));
    let now = get(&addr, "/api/now");
    assert!(now.contains("\"problem\":null"), "{now}");

    if std::env::var_os("TENGU_SKIP_BROWSER").is_some() {
        eprintln!("TENGU_SKIP_BROWSER is set: the page is not checked in a browser");
        stop(server);
        return;
    }
    let marker = dir.path().join("ready-for-a-checkpoint");
    let expect = serde_json::json!({
        "loss": {"tag": "loss/value", "value": value_loss, "sessions": 2},
        "game": {"key": format!("games/{newest}"), "index": 0, "board": board, "last_value": last_value,
                 "last_black_value": last_black_value},
        "ladder": {"rungs": ladder.rungs.len(), "first_elo": ladder.rungs[0].elo,
                   "games": ladder_games},
        "damaged": {"key": damaged, "games": 2, "line": 3},
        "unreadable": unreadable,
        "live": true,
        "publish": {"step": 1000, "marker": p(&marker)},
    });
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    // A worker playing on: its game in progress must show and move on the page.
    let worker = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["selfplay", "--run", &p(&run), "--quiet", "--seed", "5"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("worker.log")).unwrap())
        .spawn()
        .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser-test.sh");
    let browser = Command::new("bash")
        .arg(&script)
        .args(["--serve", &format!("http://{addr}/"), &p(&expect_file)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // When the page has checked the run as it is, a new checkpoint is published.
    let t = Instant::now();
    while !marker.exists() && t.elapsed() < Duration::from_secs(240) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if marker.exists() {
        let store = tengu_store::RunStore::open(&p(&run)).unwrap();
        tengu_store::checkpoint::publish_file(&store, 1000, &common::step_zero(&run)).unwrap();
    }
    let out = browser.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    stop(worker);
    stop(server);
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    let worker_log = std::fs::read_to_string(dir.path().join("worker.log")).unwrap();
    assert!(
        std::fs::read_dir(&live_dir).map_or(true, |mut d| d.next().is_none()),
        "the worker stopped by SIGTERM left its game in progress:\n{worker_log}"
    );
    assert!(
        out.status.success() && text.contains(" passed, 0 failed"),
        "browser test of tengu serve failed:\n{text}\nserve's log:\n{log}"
    );
    assert!(!log.contains("panicked"), "{log}");
    eprintln!("{text}");
}

/// The kept run served as it is (read-only): said to be archived with the loss log's counts
/// and a grey dot, every ladder folder shown (those with a report by rung, the others by
/// match), the matches in step order with the rung's own results, the ladders' ratings in
/// the checkpoint table, a 300-ply game's moves scrolling beside the board, every
/// chart's tick labels readable, and a link to that game at ply 40 opening it there and
/// analysed on request (scripts/browser-test.sh --serve).
#[test]
fn an_archived_run_says_so_and_shows_every_ladder_in_step_order() {
    if std::env::var_os("TENGU_SKIP_BROWSER").is_some() {
        eprintln!("TENGU_SKIP_BROWSER is set: the page is not checked in a browser");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/baselines/dai-dai-cpu-2026-11-25");
    // The loss log's last count of games.
    let mut logs: Vec<_> = std::fs::read_dir(run.join("train"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    logs.sort();
    let last = std::fs::read_to_string(logs.last().unwrap()).unwrap();
    let line: serde_json::Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    let games_seen = line["games_seen"].as_u64().unwrap();
    // Every ladder folder: its report's rungs, else its matches.
    let mut ladders = Vec::new();
    let mut rated = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("ladder") && run.join(n).is_dir())
        .collect();
    names.sort();
    for name in &names {
        let report = run.join(name).join("ladder.json");
        if report.exists() {
            let r = tengu_run::records::read_ladder(
                &report.display().to_string(),
                &std::fs::read_to_string(&report).unwrap(),
            )
            .unwrap();
            rated.extend(
                r.rungs
                    .iter()
                    .map(|rung| serde_json::json!([rung.rung.step, name])),
            );
            ladders.push(serde_json::json!({"dir": name, "rungs": r.rungs.len()}));
        } else {
            let matches = std::fs::read_dir(run.join(name))
                .unwrap()
                .filter(|e| e.as_ref().unwrap().path().join("results.jsonl").exists())
                .count();
            ladders.push(serde_json::json!({"dir": name, "matches": matches}));
        }
    }
    assert!(ladders.len() >= 4, "{ladders:?}");
    // What the rung did in one match, and a game of it near the ply cap.
    let matched = "step-12597-vs-alphabeta_600000_2";
    let results =
        std::fs::read_to_string(run.join("ladder").join(matched).join("results.jsonl")).unwrap();
    let (mut w, mut d, mut l, mut long) = (0, 0, 0, None);
    for r in results.lines() {
        let r: serde_json::Value = serde_json::from_str(r).unwrap();
        match r["result"].as_i64().unwrap() {
            1 => w += 1,
            -1 => l += 1,
            _ => d += 1,
        }
        if r["plies"].as_u64().unwrap() >= 250 && long.is_none() {
            long = Some(r["index"].as_u64().unwrap());
        }
    }
    let long = long.expect("a game of 250 plies or more");
    let expect = serde_json::json!({
        "archived": {"games_seen": games_seen},
        "charts": true,
        "ladders": ladders,
        "summary": {"match": format!("ladder / {matched}"), "text": format!("step-12597: +{w} ={d} \u{2212}{l}")},
        "rated": rated,
        "long_game": format!("ladder/{matched}/games/game-{long:05}.record"),
        "link": {"key": format!("ladder/{matched}/games/game-{long:05}.record"), "ply": 40, "visits": 8},
    });
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    let log_file = dir.path().join("serve.log");
    let (server, addr) = serve(&run, &log_file);
    let shot = dir.path().join("analysis.png");
    browse(
        "--serve",
        server,
        &addr,
        &expect_file,
        ("LINK_SHOT", &shot),
        &log_file,
        "the archived run",
    );
    if let Ok(shot) = std::env::var("TENGU_ANALYSIS_SHOT") {
        std::fs::copy(dir.path().join("analysis.png"), shot).unwrap();
    }
}

/// The compare page over the kept run and the directory of the A/B arms (`experiments/cpu-runs/`, two
/// runs): every run listed in a colour of its own, drawn in the curves on both x axes with
/// hover values, the kept run's ladders on the ladder chart, a run left out and back
/// (scripts/browser-test.sh --serve with `compare`). `TENGU_COMPARE_SHOT=FILE` keeps the
/// screenshot (docs/serve-compare.png).
#[test]
fn the_compare_page_overlays_the_curves_and_ladders_of_several_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kept = root.join("experiments/baselines/dai-dai-cpu-2026-11-25");
    let arms = root.join("experiments/cpu-runs");
    let mut names = vec!["dai-dai-cpu-2026-11-25".to_string()];
    let mut arm_names: Vec<String> = std::fs::read_dir(&arms)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().join("config.toml").is_file())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    arm_names.sort();
    assert!(arm_names.len() >= 2, "{arm_names:?}");
    names.extend(arm_names);
    let dir = tempfile::tempdir().unwrap();
    let log_file = dir.path().join("serve.log");
    let (server, addr) = serve_runs(&[&kept, &arms], &log_file, &[]);
    let compare = get(&addr, "/api/compare");
    for name in &names {
        assert!(
            compare.contains(&format!("\"name\":\"{name}\"")),
            "{name}: {compare}"
        );
    }
    if std::env::var_os("TENGU_SKIP_BROWSER").is_some() {
        eprintln!("TENGU_SKIP_BROWSER is set: the compare page is not checked in a browser");
        stop(server);
        return;
    }
    let expect = serde_json::json!({"compare": {"runs": names, "ladder_runs": ["dai-dai-cpu-2026-11-25"], "axis": "cpu"}});
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    let shot = dir.path().join("compare.png");
    browse(
        "--serve",
        server,
        &addr,
        &expect_file,
        ("COMPARE_SHOT", &shot),
        &log_file,
        "the compare page",
    );
    if let Ok(keep) = std::env::var("TENGU_COMPARE_SHOT") {
        std::fs::copy(shot, keep).unwrap();
    }
}

/// `scripts/browser-test.sh MODE http://ADDR/ EXPECT` with `env` set (a screenshot's
/// variable and file), then `server` stopped: the script must pass and serve's log (at
/// `log_file`) must not say it panicked; `what` names the page in a failure. The script's
/// output is printed.
fn browse(
    mode: &str,
    server: Child,
    addr: &str,
    expect: &Path,
    env: (&str, &Path),
    log_file: &Path,
    what: &str,
) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser-test.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args([mode, &format!("http://{addr}/"), &p(expect)])
        .env(env.0, env.1)
        .output()
        .unwrap();
    stop(server);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(log_file).unwrap();
    assert!(
        out.status.success() && text.contains(" passed, 0 failed"),
        "browser test of {what} failed:\n{text}\nserve's log:\n{log}"
    );
    assert!(!log.contains("panicked"), "{log}");
    eprintln!("{text}");
}

/// Files under `dir` whose names end with `suffix`.
fn count_files(dir: &Path, suffix: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            if e.file_type().unwrap().is_dir() {
                count_files(&e.path(), suffix)
            } else {
                usize::from(e.file_name().to_string_lossy().ends_with(suffix))
            }
        })
        .sum()
}

#[test]
fn a_location_that_is_not_a_run_is_said_in_the_log_and_on_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-run-here");
    let (server, addr) = serve(&missing, &dir.path().join("serve.log"));
    let now = get(&addr, "/api/now");
    assert!(now.contains("does not exist"), "{now}");
    let page = get(&addr, "/");
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("<title>tengu serve</title>"),
        "{page}"
    );
    stop(server);
    let log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert!(
        log.contains("does not exist") && log.contains("no-run-here"),
        "{log}"
    );
    assert!(!missing.exists(), "serve created the run directory");
    // A location that cannot be one is refused at once, by name.
    let (ok, _, err) = tengu(&["serve", "foo://x"]);
    assert!(!ok && err.contains("unknown scheme \"foo\""), "{err}");
}

/// The step-0 checkpoint of a new tiny-network run of `game` under `dir`.
fn tiny_checkpoint(dir: &Path, game: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        format!("game = \"{game}\"\n[network]\npreset = \"tiny\"\n"),
    )
    .unwrap();
    let run = dir.join("run");
    let (ok, _, err) = common::train_step_zero(&run, &config);
    assert!(ok, "{err}");
    common::step_zero(&run)
}

/// The play page in headless Chromium (scripts/browser-test.sh --play, which lists every
/// check): a short game of Dai Dai Shogi against the run's tiny checkpoint and one of Maka
/// Dai Dai Shogi against a tiny checkpoint given with --checkpoint, each from a composed
/// position, by clicks: a lion's double move square by square, a take-back, a promotion
/// declined and one taken, analysis arrows with visits and values, resigned; a third game
/// from a line of a book given with --book; then the records saved in --play-dir are read
/// by `tengu show`.
#[test]
fn the_play_page_plays_a_short_game_of_each_game_by_clicks() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "");
    let maka = tiny_checkpoint(&dir.path().join("maka"), "maka-dai-dai");
    let played = dir.path().join("played");
    let log_file = dir.path().join("serve.log");
    // A small book of the run's network: its lines are starting positions.
    let book = dir.path().join("small.tbk");
    let (ok, _, err) = tengu(&[
        "book",
        "build",
        "--checkpoint",
        &p(&common::step_zero(&run)),
        "--game",
        "dai-dai",
        "--out",
        &p(&book),
        "--positions",
        "6",
        "--visits",
        "4",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let (server, addr) = serve_with(
        &run,
        &log_file,
        &[
            "--checkpoint",
            &p(&maka),
            "--play-dir",
            &p(&played),
            "--book",
            &p(&book),
        ],
    );
    let setup = get(&addr, "/api/play/setup");
    assert!(
        setup.contains(r#""id":"run:0""#) && setup.contains(r#""id":"file:1""#),
        "{setup}"
    );
    if std::env::var_os("TENGU_SKIP_BROWSER").is_some() {
        eprintln!("TENGU_SKIP_BROWSER is set: the play page is not checked in a browser");
        stop(server);
        return;
    }
    // Black's Lion beside a White Pawn it can take and go on from; in Maka Dai Dai a Rook
    // too, whose capture may promote.
    let dai_dai = "9,k,7/17/17/17/17/17/17/17/9,p,7/8,LN,8/17/17/17/17/17/17/8,K,8 b -";
    let maka_dai_dai =
        "9,k,9/19/19/19/19/19/19/19/10,p,8/9,LN,9/19/14,p,4/19/19/19/19/19/19/9,K,4,R,4 b -";
    let expect = serde_json::json!({"games": [
        {"game": "dai-dai", "opponent": "run:0", "visits": 2, "position": dai_dai,
         "hover": {"square": "9j", "name": "Lion"},
         "steps": [{"move": "9j>8h{8i}", "double": true, "takeback": true}, {"move": "9q>9p"}],
         "analysis": {"visits": 16}},
        {"game": "maka-dai-dai", "opponent": "file:1", "visits": 2, "position": maka_dai_dai,
         "hover": {"square": "10j", "name": "Lion"},
         "steps": [{"move": "10j>9h{9i}", "double": true, "promotion": "="}, {"promotion": "+"}],
         "analysis": {"visits": 16}, "shot": true},
        {"game": "dai-dai", "opponent": "run:0", "visits": 2, "opening": true},
    ]});
    let expect_file = dir.path().join("expect.json");
    std::fs::write(&expect_file, expect.to_string()).unwrap();
    let shot = dir.path().join("play.png");
    browse(
        "--play",
        server,
        &addr,
        &expect_file,
        ("SHOTS", &shot),
        &log_file,
        "the play page",
    );
    // Each game was saved as a record that tengu show reads, ending in the resignation.
    let mut records: Vec<_> = std::fs::read_dir(&played)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    records.sort();
    assert_eq!(records.len(), 3, "{records:?}");
    let texts: Vec<String> = records
        .iter()
        .map(|r| std::fs::read_to_string(r).unwrap())
        .collect();
    for (record, text) in records.iter().zip(&texts) {
        assert!(
            text.contains("[Result \"0-1\"]") && text.contains("[Termination \"resignation\"]"),
            "{text}"
        );
        let (ok, out, err) = tengu(&["show", "--record", &p(record)]);
        assert!(ok && out.contains("resignation"), "{out}{err}");
    }
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Dai Dai Shogi") && t.contains(" 9j>8h{8i} ")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("Maka Dai Dai Shogi")
            && t.contains(" 10j>9h{9i}= ")
            && t.contains("}+")),
        "{texts:?}"
    );
    if let Ok(shot) = std::env::var("TENGU_PLAY_SHOT") {
        std::fs::copy(dir.path().join("play.png"), shot).unwrap();
    }
}
