//! `tengu analyze` as a process, driven as a client drives it: queries written in one burst
//! on standard input (two in flight together, a record, a position text, a bad field, a bad
//! JSON line, a budget over the cap, a query cancelled while it searches), standard input
//! closed, the answers read until the process ends; with the tiny untrained network, so
//! the test is quick in a debug build.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

mod common;

/// A position text with a Lion Dog among pawns (docs/commands.md's example).
const LION_DOG: &str =
    "1,k,15/17/17/17/17/5,p,11/6,p,10/7,P,9/8,LD,1,P,p,5/17/17/17/17/17/17/17/15,K,1 b -";

/// Runs `tengu analyze ARGS` with `input` on standard input (then closed): the answers (one
/// JSON value a line, in order), standard error, and whether it exited with success.
fn analyze(args: &[&str], input: &str) -> (Vec<Value>, String, bool) {
    // The shipped networks are written to a cache of the test's own.
    let cache = std::env::temp_dir().join(format!("tengu-analyze-cli-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .arg("analyze")
        .args(args)
        .env("TENGU_CACHE", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tengu analyze starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect();
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        let _ = tx.send((lines, err));
    });
    let Ok((lines, err)) = rx.recv_timeout(Duration::from_secs(300)) else {
        let _ = child.kill();
        panic!("tengu analyze did not end within 300 s of the end of its input");
    };
    let ok = child.wait().unwrap().success();
    let answers = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?} is not JSON: {e}")))
        .collect();
    (answers, err, ok)
}

fn with_id<'a>(answers: &'a [Value], id: &str) -> Vec<&'a Value> {
    answers.iter().filter(|a| a["id"] == id).collect()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v} is not an array"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

/// Checks an analysis of a ply searched with `visits`: visits add up, candidates sorted,
/// the best move and the PV start with the top candidate, values in range.
fn check_searched(a: &Value, visits: u64) {
    assert_eq!(a["visits"], visits, "{a}");
    assert_eq!(a["stopped"], "visits", "{a}");
    let moves = a["moves"].as_array().unwrap();
    assert!(!moves.is_empty(), "{a}");
    let sum: u64 = moves.iter().map(|m| m["visits"].as_u64().unwrap()).sum();
    assert_eq!(
        sum,
        visits - 1,
        "the root's own evaluation is its first visit: {a}"
    );
    let counts: Vec<u64> = moves
        .iter()
        .map(|m| m["visits"].as_u64().unwrap())
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "sorted by visits: {counts:?}"
    );
    let top = moves[0]["move"].as_str().unwrap();
    assert_eq!(a["best"], top, "{a}");
    assert_eq!(strings(&a["pv"])[0], top, "{a}");
    for m in moves {
        assert_eq!(strings(&m["pv"])[0], m["move"].as_str().unwrap());
        let q = m["value"].as_f64().unwrap();
        let prior = m["prior"].as_f64().unwrap();
        assert!(
            (-1.0..=1.0).contains(&q) && (0.0..=1.0).contains(&prior),
            "{m}"
        );
    }
    let value = a["value"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&value), "{a}");
    let wdl: f64 = a["network"]["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap())
        .sum();
    assert!((wdl - 1.0).abs() < 1e-3, "{a}");
    assert!(a["legal_moves"].as_u64().unwrap() > 0);
    assert!(a["material"]["black"].as_f64().is_some() && a["exchange"]["gain"].as_f64().is_some());
}

#[test]
fn queries_in_flight_are_batched_answered_as_they_finish_cancelled_and_refused_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = common::step_zero(&common::tiny_run(dir.path(), ""));
    let record = "[Game \"Dai Dai Shogi\"]\n[Result \"*\"]\n\n1. 9l>9k 9f>9g\n";
    let queries = [
        serde_json::json!({"id": "one", "moves": ["9l>9k"], "analyze_plies": [0, 1], "visits": 24, "include_policy": true}),
        serde_json::json!({"id": "two", "moves": ["9l>9k", "9f>9g", "8l>8k"], "visits": 12}),
        serde_json::json!({"id": "rec", "record": record, "analyze_plies": "all", "visits": 4}),
        serde_json::json!({"id": "pos", "position": LION_DOG, "visits": 6}),
        serde_json::json!({"id": "bad", "moves": ["9l>9k", "9l>9k"], "visits": 4}),
        serde_json::json!({"id": "greedy", "visits": 300000}),
        serde_json::json!({"id": "typo", "vists": 10}),
        serde_json::json!({"id": "long", "visits": 200000}),
        serde_json::json!({"action": "terminate", "id": "long"}),
    ];
    let mut input: String = queries.iter().map(|q| format!("{q}\n")).collect();
    // A bad JSON line, then a blank one (ignored).
    input.push_str("{\"id\": \"broken\", \"visits\": \n\n");
    let ckpt = common::p(&checkpoint);
    let (answers, err, ok) = analyze(&["--checkpoint", &ckpt, "--max-visits", "200000"], &input);
    assert!(ok, "{err}");

    // Both plies of "one" searched, with the policy over every legal move.
    let one = with_id(&answers, "one");
    assert_eq!(one.len(), 2, "{answers:?}");
    let mut plies: Vec<u64> = one.iter().map(|a| a["ply"].as_u64().unwrap()).collect();
    plies.sort();
    assert_eq!(plies, vec![0, 1]);
    for a in &one {
        check_searched(a, 24);
        let policy = a["policy"].as_array().unwrap();
        assert_eq!(policy.len() as u64, a["legal_moves"].as_u64().unwrap());
        let total: f64 = policy.iter().map(|p| p["prior"].as_f64().unwrap()).sum();
        assert!((total - 1.0).abs() < 1e-3, "{total}");
        let side = if a["ply"] == 0 { "black" } else { "white" };
        assert_eq!(a["side_to_move"], side);
        assert_eq!(a["material"]["balance"], 0.0);
    }
    // "two" ran beside "one" (one simulation a search a step) and, with half the visits,
    // was answered first.
    let two = with_id(&answers, "two");
    assert_eq!(two.len(), 1);
    check_searched(two[0], 12);
    assert_eq!(two[0]["ply"], 3);
    assert!(two[0].get("policy").is_none());
    let at = |id: &str| answers.iter().position(|a| a["id"] == id).unwrap();
    assert!(
        at("two") < at("one"),
        "answered as they finish: {answers:?}"
    );

    // A record's every ply; a position text's legal moves are those `tengu moves` lists.
    let rec = with_id(&answers, "rec");
    assert_eq!(rec.len(), 3);
    rec.iter().for_each(|a| check_searched(a, 4));
    let pos = with_id(&answers, "pos");
    assert_eq!(pos.len(), 1);
    check_searched(pos[0], 6);
    let (listed, moves, _) = common::tengu(&["moves", "--position", LION_DOG]);
    assert!(listed);
    assert_eq!(
        pos[0]["legal_moves"].as_u64().unwrap() as usize,
        moves.lines().count()
    );
    assert!(
        pos[0]["material"]["balance"].as_f64().unwrap() > 0.0,
        "{}",
        pos[0]
    );

    // Refusals name their field; the bad JSON line has no id and no field.
    let refused = |id: &str, field: &str, words: &str| {
        let a = with_id(&answers, id);
        assert_eq!(a.len(), 1, "{id}: {answers:?}");
        assert_eq!(a[0]["field"], field, "{}", a[0]);
        let error = a[0]["error"].as_str().unwrap();
        assert!(error.contains(words), "{id}: {error}");
    };
    refused("bad", "moves", "moves[1]");
    refused("greedy", "visits", "200000");
    refused("typo", "vists", "unknown field");
    let broken: Vec<&Value> = answers.iter().filter(|a| a["id"].is_null()).collect();
    assert_eq!(broken.len(), 1, "{answers:?}");
    assert!(broken[0]["error"].as_str().unwrap().starts_with("not JSON"));
    assert!(broken[0].get("field").is_none());

    // The cancelled query: acknowledged with its unanswered ply, never analysed.
    let long = with_id(&answers, "long");
    assert_eq!(long.len(), 1, "{long:?}");
    assert_eq!(long[0]["action"], "terminate");
    assert_eq!(long[0]["terminated"][0]["plies"], serde_json::json!([0]));

    // Every line was answered: 2 + 1 + 3 + 1 analyses, 4 refusals, 1 acknowledgement.
    assert_eq!(answers.len(), 12, "{answers:?}");
    // The leaves of the queries in flight were evaluated together.
    let mean = err
        .split("mean batch ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|m| m.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no summary in the log: {err}"));
    assert!(mean > 2.0, "mean batch {mean}: {err}");
}

/// A time budget stops the search; a query under another rule set of a network's game is
/// analysed by that network (the checkpoint given, the network shipped for the other game),
/// each with one warning naming the options that differ; a record of another game than the
/// query names is refused by field; the end of input with nothing in flight ends the process
/// at once.
#[test]
fn time_budgets_other_rule_sets_and_records_of_another_game() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = common::step_zero(&common::tiny_run(dir.path(), ""));
    let record = "[Game \"Dai Dai Shogi\"]\n\n1. 9l>9k\n";
    let input = [
        serde_json::json!({"id": "timed", "max_ms": 300}),
        serde_json::json!({"id": "tsa", "options": ["preset=tsa"], "visits": 4}),
        serde_json::json!({"id": "tsa again", "options": ["preset=tsa"], "visits": 4}),
        serde_json::json!({"id": "maka", "game": "maka-dai-dai:EMPEROR=LION_QUEEN", "visits": 4}),
        serde_json::json!({"id": "other", "game": "maka-dai-dai", "record": record}),
    ]
    .iter()
    .map(|q| format!("{q}\n"))
    .collect::<String>();
    let ckpt = common::p(&checkpoint);
    let (answers, err, ok) = analyze(&["--checkpoint", &ckpt], &input);
    assert!(ok, "{err}");
    let timed = with_id(&answers, "timed");
    assert_eq!(timed.len(), 1);
    assert_eq!(timed[0]["stopped"], "time", "{}", timed[0]);
    assert!(timed[0]["visits"].as_u64().unwrap() >= 1);
    assert!(timed[0]["time_ms"].as_u64().unwrap() >= 300);
    for id in ["tsa", "tsa again", "maka"] {
        let a = with_id(&answers, id);
        assert_eq!(a.len(), 1, "{answers:?}");
        assert_eq!(a[0]["visits"], 4, "{}", a[0]);
    }
    let warnings = |part: &str| {
        err.lines()
            .filter(|l| l.contains("WARN") && l.contains(part))
            .count()
    };
    assert_eq!(
        warnings("model-000000000.safetensors was trained under the rules dai-dai"),
        1,
        "{err}"
    );
    assert_eq!(warnings("GE=TSA (not DEFAULT)"), 1, "{err}");
    assert_eq!(warnings("EMPEROR=LION_QUEEN (not DEFAULT)"), 1, "{err}");
    let other = with_id(&answers, "other");
    assert_eq!(other[0]["field"], "game", "{}", other[0]);

    let (answers, err, ok) = analyze(&["--checkpoint", &ckpt], "");
    assert!(ok && answers.is_empty(), "{err}");
}
