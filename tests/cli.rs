//! The `tengu` binary's rules subcommands, run as a user would.

use std::process::Command;

mod common;
use common::tengu;

#[test]
fn perft_json_reports_nodes_depth_and_speed() {
    let (ok, out, err) = tengu(&["perft", "--game", "dai-dai", "--depth", "2", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["nodes"], 3459);
    assert_eq!(v["depth"], 2);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["nodes_per_second"].as_f64().is_some());
    let (ok, out, _) = tengu(&["perft", "--game", "maka-dai-dai", "--depth", "1"]);
    assert!(ok && out.contains("nodes 80"), "{out}");
}

#[test]
fn perft_divide_lists_every_move() {
    let (ok, out, err) = tengu(&["perft", "--game", "dai-dai", "--depth", "2", "--divide"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(": ")).collect();
    assert_eq!(lines.len(), 59);
    let total: u64 = lines
        .iter()
        .map(|l| l.rsplit(": ").next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 3459);
    // After Black's lion passes, White may not pass: 57 replies (RULES.md Appendix B).
    assert!(lines.contains(&"15p>15p: 57"), "{out}");
}

#[test]
fn moves_prints_sorted_coordinate_moves() {
    let pos = "1,k,15/17/17/17/17/5,p,11/6,p,10/7,P,9/8,LD,1,P,p,5/17/17/17/17/17/17/17/15,K,1 b -";
    let (ok, out, err) = tengu(&["moves", "--position", pos]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 31);
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert!(lines.contains(&"9i>12f{12f,11g}"));
    assert!(lines.contains(&"9i>9i"));
}

#[test]
fn show_prints_a_board_for_positions_and_records() {
    let (ok, out, err) = tengu(&["show", "--game", "maka-dai-dai"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Black to move") && out.contains(" 19") && out.contains("  s "),
        "{out}"
    );
    let dir = std::env::temp_dir().join(format!("tengu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("game.txt");
    std::fs::write(
        &record,
        "[Game \"Dai Dai Shogi\"]\n[Result \"*\"]\n\n1. 12k>12g{12g} 6g>6k{6k}\n",
    )
    .unwrap();
    let (ok, out, err) = tengu(&["show", "--record", record.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        out.contains("HDx12g") && out.contains("Black to move"),
        "{out}"
    );
    std::fs::write(&record, "[Game \"Dai Dai Shogi\"]\n\n1. 12k>12f\n").unwrap();
    let (ok, _, err) = tengu(&["show", "--record", record.to_str().unwrap()]);
    assert!(
        !ok && err.contains("ply 1") && err.contains("12k>12f"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_gets_a_message_not_a_panic() {
    let (ok, _, err) = tengu(&["perft", "--game", "chess", "--depth", "1"]);
    assert!(!ok && err.contains("unknown game \"chess\""), "{err}");
    let (ok, _, err) = tengu(&["moves", "--position", "17/17 b -"]);
    assert!(!ok && err.contains("2 ranks"), "{err}");
    let (ok, _, err) = tengu(&[
        "moves",
        "--position",
        "k,16/17/17/17/17/17/17/17/17/17/17/17/17/17/17/17/K,16 x -",
    ]);
    assert!(!ok && err.contains("side field"), "{err}");
    let (ok, _, err) = tengu(&[
        "moves",
        "--position",
        "k,16/17/17/17/17/17/17/17/17/17/17/17/17/17/17/17/K,ZZ,15 b -",
    ]);
    assert!(!ok && err.contains("ZZ"), "{err}");
    assert!(!err.contains("panicked"));
}

/// `tengu bench serve` on fewer checkpoints than its ten arena games each need (it once
/// subtracted past zero), with a synthetic `elo.jsonl` the run's reader accepts (else the
/// curves endpoint measured an empty answer).
#[test]
fn bench_serve_runs_on_a_small_synthetic_run_with_its_curves() {
    let (ok, out, err) = tengu(&[
        "bench",
        "serve",
        "--checkpoints",
        "3",
        "--shards",
        "5",
        "--requests",
        "3",
        "--viewers",
        "2",
        "--seconds",
        "1",
        "--json",
    ]);
    assert!(ok, "{err}");
    assert!(!err.contains("cannot be read"), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let curves = v["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == "/api/curves")
        .unwrap_or_else(|| panic!("no /api/curves row: {out}"));
    assert!(curves["bytes"].as_u64().unwrap() > 1000, "{curves}");
}

#[test]
fn bench_nn_reports_json_per_backend_and_preset() {
    let (ok, out, err) = tengu(&[
        "bench",
        "nn",
        "--presets",
        "tiny",
        "--batches",
        "1,3",
        "--train-batch",
        "2",
        "--seconds",
        "0.05",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["game"], "dai-dai");
    assert!(v["encoder_positions_per_second"].as_f64().unwrap() > 0.0);
    let row = &v["presets"][0];
    assert_eq!(row["backend"], "burn");
    assert_eq!(row["forward"].as_array().unwrap().len(), 2);
    assert!(row["forward"][1]["positions_per_second"].as_f64().unwrap() > 0.0);
    assert!(row["train_samples_per_second"].as_f64().unwrap() > 0.0);

    let (ok, _, err) = tengu(&[
        "bench",
        "nn",
        "--backends",
        "gpu-please",
        "--seconds",
        "0.01",
    ]);
    assert!(
        !ok && err.contains("unknown backend \"gpu-please\""),
        "{err}"
    );
    let (ok, _, err) = tengu(&["bench", "nn", "--presets", "b4", "--seconds", "0.01"]);
    assert!(!ok && err.contains("unknown preset"), "{err}");
}

#[test]
fn match_reports_score_elo_and_sprt_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let out_arg = out.to_string_lossy().into_owned();
    let (ok, stdout, err) = tengu(&[
        "match",
        "greedy",
        "random",
        "--games",
        "4",
        "--sprt",
        "0,100,0.05,0.05",
        "--out",
        &out_arg,
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["games"], 4);
    assert!(v["score"].as_f64().unwrap() > 0.5);
    // A clean sweep leaves the estimate and the upper end unbounded (null), never 2400.
    let low = v["elo_low"].as_f64().unwrap();
    assert!(
        v["elo"]
            .as_f64()
            .map_or(v["elo_high"].is_null(), |e| low <= e),
        "{v}"
    );
    assert!(v["llr"].as_f64().is_some());
    assert_eq!(std::fs::read_dir(out.join("games")).unwrap().count(), 4);
    let (ok, _, err) = tengu(&["match", "greedy", "grandmaster"]);
    assert!(!ok && err.contains("grandmaster"), "{err}");
    let (ok, _, err) = tengu(&["match", "greedy", "random", "--sprt", "0,50"]);
    assert!(!ok && err.contains("--sprt"), "{err}");
}

/// A few hundred small shards in a run directory's `shards/` (enough JSON lines to overflow
/// a pipe's buffer).
fn run_with_shards(count: usize) -> tempfile::TempDir {
    use tengu_shard::{Row, ShardHeader};
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    let header = ShardHeader {
        encoder_version: 1,
        game: "dai-dai".into(),
        model: "model-000000000.safetensors".into(),
        rows: 1,
        games: 1,
        created_unix: 0,
        writer: "test".into(),
    };
    let row = Row {
        position: "k,16/17/17/17/17/17/17/17/17/17/17/17/17/17/17/17/K,16 b -".into(),
        repetitions: 0,
        policy: vec![("1q>1p".into(), 1.0)],
        result: 0,
        search_value: 0.0,
        full_search: true,
        game: 0,
        ply: 0,
        game_plies: 1,
        material_future: [0.0; 2],
        occupancy_future: Vec::new(),
        teacher: None,
    };
    for i in 0..count {
        tengu_shard::write(
            &shards.join(format!("{i:05}.{}", tengu_shard::EXTENSION)),
            &header,
            std::slice::from_ref(&row),
        )
        .unwrap();
    }
    dir
}

#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    use std::io::BufRead;
    // `tengu shards inspect --json DIR | head -1`: read one line, then close the pipe.
    let run = run_with_shards(400);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["shards", "inspect", "--json"])
        .arg(run.path().join("shards"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("\"valid\":true"), "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(err.is_empty(), "{err}");
    // The same for a command that prints a long list.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args([
            "perft",
            "--game",
            "maka-dai-dai",
            "--depth",
            "2",
            "--divide",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("panicked"), "{err}");
}

#[test]
fn shards_inspect_reads_a_run_directory() {
    let run = run_with_shards(3);
    let path = run.path().to_string_lossy().into_owned();
    let (ok, out, err) = tengu(&["shards", "inspect", &path]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with(&format!("run {path}: 3 shards in ")),
        "{out}"
    );
    assert!(
        out.contains("3 valid shards with 3 rows, 0 invalid"),
        "{out}"
    );
    let (ok, out, err) = tengu(&["shards", "inspect", "--json", &path]);
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines
            .iter()
            .all(|l| l["run"] == path.as_str() && l["valid"] == true),
        "{out}"
    );
    // A directory that is neither: the message says what was looked for.
    let empty = tempfile::tempdir().unwrap();
    let (ok, _, err) = tengu(&["shards", "inspect", &empty.path().to_string_lossy()]);
    assert!(
        !ok && err.contains("no shards") && err.contains("not a run directory"),
        "{err}"
    );
}

#[test]
fn a_missing_checkpoint_is_reported_once() {
    let (ok, _, err) = tengu(&["match", "checkpoint:/missing/model.safetensors", "greedy"]);
    let cause = std::io::Error::from(std::io::ErrorKind::NotFound).to_string();
    assert!(!ok && err.contains("/missing/model.safetensors"), "{err}");
    assert_eq!(
        err.matches("No such file or directory").count(),
        1,
        "{err} ({cause})"
    );
}

#[test]
fn game_and_position_must_agree() {
    let mdd = "9,k,9/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/9,K,9 b -";
    let (ok, out, err) = tengu(&["moves", "--position", mdd]);
    assert!(ok && out.lines().count() == 5, "{out}{err}");
    let (ok, _, err) = tengu(&["moves", "--game", "maka-dai-dai", "--position", mdd]);
    assert!(ok, "{err}");
    let (ok, _, err) = tengu(&["moves", "--game", "dai-dai", "--position", mdd]);
    assert!(
        !ok && err.contains("Maka Dai Dai Shogi position") && err.contains("--game is dai-dai"),
        "{err}"
    );
    let (ok, _, err) = tengu(&[
        "perft",
        "--game",
        "dai-dai",
        "--position",
        mdd,
        "--depth",
        "1",
    ]);
    assert!(!ok && err.contains("--game is dai-dai"), "{err}");
    let (ok, out, _) = tengu(&["show", "--game", "dai-dai", "--position", mdd]);
    assert!(!ok, "{out}");
    // Without --position, --game still picks the initial position (default dai-dai).
    let (ok, out, _) = tengu(&["perft", "--depth", "1"]);
    assert!(ok && out.contains("nodes 59"), "{out}");
}

#[test]
fn version_names_the_rules() {
    let (ok, out, _) = tengu(&["--version"]);
    assert!(
        ok && out.contains(&format!("RULES.md v{}", tengu_rules::RULES_VERSION)),
        "{out}"
    );
}

/// `tengu suite make` builds a suite, `tengu suite` scores a checkpoint on it, and the
/// `policy:PATH` player plays a match with the same checkpoint.
#[test]
fn suite_make_score_and_the_policy_player() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "");
    let p = |x: &std::path::Path| x.display().to_string();
    let checkpoint = common::step_zero(&run);
    assert!(checkpoint.exists());
    let suite = dir.path().join("small.jsonl");
    let (ok, out, err) = tengu(&[
        "suite",
        "make",
        "--game",
        "dai-dai",
        "--count",
        "6",
        "--seed",
        "3",
        "--out",
        &p(&suite),
    ]);
    assert!(ok && out.contains("6 positions"), "{out}{err}");
    let (ok, out, err) = tengu(&[
        "suite",
        "--checkpoint",
        &p(&checkpoint),
        "--suite",
        &p(&suite),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["positions"], 6);
    for key in ["top1", "top3", "value_sign"] {
        let x = v[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    assert!(v["top3"].as_f64() >= v["top1"].as_f64());
    // The search as a run configures it scores the suite too; a wrong key is named.
    let search_config = dir.path().join("search.toml");
    std::fs::write(
        &search_config,
        "game = \"dai-dai\"\n[search]\nroot_capture_share = 0.5\nmaterial_utility = 0.5\n",
    )
    .unwrap();
    let (ok, out, err) = tengu(&[
        "suite",
        "--checkpoint",
        &p(&checkpoint),
        "--suite",
        &p(&suite),
        "--visits",
        "4",
        "--search-config",
        &p(&search_config),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["positions"], 6);
    std::fs::write(&search_config, "[search]\nroot_capture_shares = 0.5\n").unwrap();
    let (ok, _, err) = tengu(&[
        "suite",
        "--checkpoint",
        &p(&checkpoint),
        "--suite",
        &p(&suite),
        "--visits",
        "4",
        "--search-config",
        &p(&search_config),
    ]);
    assert!(!ok && err.contains("root_capture_shares"), "{err}");
    // A suite of the other game is refused by name.
    let (ok, _, err) = tengu(&[
        "suite",
        "make",
        "--game",
        "maka-dai-dai",
        "--count",
        "2",
        "--out",
        &p(&dir.path().join("maka.jsonl")),
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = tengu(&[
        "suite",
        "--checkpoint",
        &p(&checkpoint),
        "--suite",
        &p(&dir.path().join("maka.jsonl")),
    ]);
    assert!(!ok && err.contains("maka-dai-dai suite"), "{err}");
    let (ok, out, err) = tengu(&[
        "match",
        &format!("policy:{}", p(&checkpoint)),
        "random",
        "--games",
        "2",
        "--max-plies",
        "16",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["games"], 2);
    assert!(v["a"].as_str().unwrap().contains("(policy)"), "{out}");
}

#[test]
fn show_writes_and_positions_read_qboard_fens() {
    for game in ["dai-dai", "maka-dai-dai"] {
        let (ok, out, err) = tengu(&["show", "--game", game, "--qboard-fen"]);
        assert!(ok, "{err}");
        let fen = out.lines().last().unwrap();
        assert!(fen.ends_with(" w 1") && !fen.contains(','), "{fen}");
        // The FEN is a position for every command that takes one.
        let (ok, from_fen, err) = tengu(&["moves", "--position", fen]);
        assert!(ok, "{err}");
        let (_, from_start, _) = tengu(&["moves", "--game", game]);
        assert_eq!(from_fen, from_start);
    }
    let (ok, _, err) = tengu(&["show", "--position", "lj't!g~/17 w"]);
    assert!(
        !ok && err.contains("QBoard FEN: the board has 2 ranks"),
        "{err}"
    );
}

#[test]
fn match_from_an_openings_file_reports_game_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "# two openings\nstart\n9l>9k 9f>9g # ply 2\n").unwrap();
    let book_arg = book.to_string_lossy().into_owned();
    let base = [
        "match",
        "random",
        "greedy",
        "--max-plies",
        "16",
        "--openings",
        &book_arg,
    ];
    let (ok, out, err) = tengu(&[&base[..], &["--games", "4", "--json"]].concat());
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["games"], 4);
    assert_eq!(
        (v["pairs"].as_u64(), v["unpaired"].as_u64()),
        (Some(2), Some(0)),
        "{v}"
    );
    let counts: Vec<u64> = v["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counts.len(), 5);
    assert_eq!(counts.iter().sum::<u64>(), 2, "{v}");
    assert!(v["pair_score"].as_f64().is_some() && v["pair_variance"].as_f64().is_some());
    // The text report has the pair line beside the W/D/L score.
    let (ok, out, err) = tengu(&[&base[..], &["--games", "2"]].concat());
    assert!(ok, "{err}");
    assert!(out.contains("pairs 1: LL "), "{out}");
    // A bad move is refused by its line number and token, before any game.
    std::fs::write(&book, "start\n\n9l>9k 9z>9a # bad rank\n").unwrap();
    let (ok, _, err) = tengu(&base);
    assert!(
        !ok && err.contains("line 3: ply 2: move \"9z>9a\""),
        "{err}"
    );
    // An openings file gives every pair's start: --opening-plies is refused beside it.
    let (ok, _, err) = tengu(&[&base[..], &["--opening-plies", "2"]].concat());
    assert!(!ok && err.contains("--opening-plies"), "{err}");
}

#[test]
fn a_tournament_numbers_repeated_players_and_shows_rating_intervals() {
    let (ok, out, err) = tengu(&[
        "tournament",
        "greedy",
        "greedy",
        "random",
        "--games",
        "2",
        "--max-plies",
        "12",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("greedy#1") && out.contains("greedy#2"),
        "{out}"
    );
    assert!(
        out.contains("95% interval") && out.contains("anchor"),
        "{out}"
    );
    // Every player but the first has an interval `low .. high` in the standings; the
    // endings per pairing follow them (their ply spans also read `a .. b`).
    let (standings, endings) = out
        .split_once("how the games ended")
        .unwrap_or_else(|| panic!("no endings per pairing: {out}"));
    assert_eq!(standings.matches(" .. ").count(), 2, "{out}");
    assert_eq!(
        endings.matches(" vs ").count(),
        3,
        "one line per pairing: {out}"
    );
    let (ok, out, err) = tengu(&[
        "tournament",
        "greedy",
        "random",
        "--games",
        "2",
        "--max-plies",
        "12",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for p in v["players"].as_array().unwrap() {
        let (low, elo, high) = (
            p["elo_low"].as_f64().unwrap(),
            p["elo"].as_f64().unwrap(),
            p["elo_high"].as_f64().unwrap(),
        );
        assert!(low <= elo && elo <= high, "{v}");
    }
}

/// Every numeric flag of match, tournament, suite and bench (and the numbers of player
/// specs) is checked before anything runs; the message names the flag and the range.
#[test]
fn numbers_out_of_range_are_refused_with_the_flag_and_the_range() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["match", "greedy", "checkpoint:x.safetensors:99999999999999"],
            &["checkpoint visits", "from 1 to 1000000"],
        ),
        (
            &["match", "greedy", "checkpoint:x.safetensors:0"],
            &["checkpoint visits", "from 1 to 1000000"],
        ),
        (
            &["match", "alphabeta:0", "greedy"],
            &["time per move", "from 1 to 600000"],
        ),
        (
            &["tournament", "greedy", "alphabeta:50:99"],
            &["alphabeta depth", "from 1 to 64"],
        ),
        (
            &["match", "greedy", "random", "--games", "0"],
            &["--games", "from 1 to 1000000"],
        ),
        (
            &["match", "greedy", "random", "--max-plies", "0"],
            &["--max-plies", "from 1 to 100000"],
        ),
        (
            &["match", "greedy", "random", "--max-plies", "4"],
            &["--max-plies 4 must be more than --opening-plies"],
        ),
        (
            &["match", "greedy", "random", "--material-ratio", "nan"],
            &[
                "--material-ratio",
                "0 (off) or a number above 1 and at most 100",
            ],
        ),
        (
            &["match", "greedy", "random", "--material-ratio", "1"],
            &["--material-ratio", "above 1"],
        ),
        (
            &["match", "greedy", "random", "--threads", "0"],
            &["--threads", "from 1 to 256"],
        ),
        (
            &["match", "greedy", "random", "--material-utility", "2"],
            &["--material-utility", "from 0 to 1"],
        ),
        (
            &["match", "greedy", "random", "--sprt", "0,inf,0.05,0.05"],
            &["--sprt", "2000"],
        ),
        (
            &["tournament", "greedy", "random", "--games", "0"],
            &["--games"],
        ),
        (
            &["bench", "nn", "--batches", "1,0"],
            &["--batches", "from 1 to 4096"],
        ),
        (
            &["bench", "nn", "--train-batch", "0"],
            &["--train-batch", "from 1 to 4096"],
        ),
        (
            &["bench", "nn", "--seconds", "0"],
            &["--seconds", "above 0 and at most 3600"],
        ),
        (
            &["bench", "search", "--visits", "0"],
            &["--visits", "from 1 to 1000000"],
        ),
        (
            &["bench", "search", "--games", "0"],
            &["--games", "from 1 to 4096"],
        ),
        (
            &["bench", "search", "--seconds=-1"],
            &["--seconds", "above 0"],
        ),
        (
            &["bench", "agree", "--checkpoint", "x", "--batch", "0"],
            &["--batch", "from 1 to 4096"],
        ),
        (
            &["bench", "agree", "--checkpoint", "x", "--positions", "0"],
            &["--positions"],
        ),
        (
            &["bench", "agree", "--checkpoint", "x", "--tolerance", "nan"],
            &["--tolerance"],
        ),
        (
            &["bench", "book", "--checkpoint", "x", "--visits", "0"],
            &["--visits"],
        ),
        (
            &["bench", "book", "--checkpoint", "x", "--positions", "1"],
            &["--positions", "from 2 to 1000000"],
        ),
        (
            &["bench", "store", "--shards", "0"],
            &["--shards", "from 1 to 100000"],
        ),
        (
            &["bench", "store", "--rows-per-shard", "0"],
            &["--rows-per-shard"],
        ),
        (
            &["bench", "store", "--machine-rows-per-hour", "0"],
            &["--machine-rows-per-hour"],
        ),
        (
            &["suite", "--checkpoint", "x", "--visits", "2000000"],
            &["--visits", "from 0 to 1000000"],
        ),
        (
            &["suite", "--checkpoint", "x", "--limit", "0"],
            &["--limit"],
        ),
        (
            &["suite", "--checkpoint", "x", "--root-capture-share", "1.5"],
            &["--root-capture-share"],
        ),
        (
            &[
                "suite", "make", "--game", "dai-dai", "--out", "x", "--count", "0",
            ],
            &["--count"],
        ),
    ];
    for (args, wanted) in cases {
        let (ok, _, err) = tengu(args);
        assert!(!ok, "{args:?} was accepted");
        for w in *wanted {
            assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            !err.contains("..="),
            "Rust's range syntax in a message: {err}"
        );
    }
}

#[test]
fn the_material_share_hint_follows_the_ratio() {
    let hint = |ratio: &str| {
        let (ok, out, err) = tengu(&[
            "match",
            "greedy",
            "random",
            "--games",
            "2",
            "--max-plies",
            "8",
            "--material-ratio",
            ratio,
        ]);
        assert!(ok, "{err}");
        out
    };
    // A side with r times the other's material holds r / (1 + r) of it.
    assert!(hint("3").contains("0.750 the 3x ratio"), "{}", hint("3"));
    assert!(
        hint("1.5").contains("0.600 the 1.5x ratio"),
        "{}",
        hint("1.5")
    );
    let off = hint("0");
    assert!(
        off.contains("no material adjudication") && !off.contains("1.5x"),
        "{off}"
    );
}

#[test]
fn log_filters_that_cannot_be_read_are_refused() {
    let run = |filter: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args(["--log", filter, "perft", "--depth", "1"])
            .env_remove("RUST_LOG")
            .output()
            .expect("tengu runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for bad in ["verbose", "bogus=[[[", ""] {
        let (ok, err) = run(bad);
        assert!(!ok, "--log {bad:?} was accepted");
        assert!(
            err.contains("--log") && err.contains("TARGET=LEVEL") && !err.contains("panicked"),
            "{bad:?}: {err}"
        );
    }
    assert!(run("verbose").1.contains("\"verbose\" is not a level"));
    for good in ["warn", "info,tengu_trainer=debug"] {
        let (ok, err) = run(good);
        assert!(ok, "--log {good:?}: {err}");
    }
}

/// The trainer speaks for itself when stopped: its own words on SIGTERM, and its store
/// requests logged under its own target (not a self-play worker's).
#[test]
fn a_stopped_trainer_says_what_it_does_in_its_own_words() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tiny.toml"),
        "game = \"dai-dai\"\n[network]\npreset = \"tiny\"\n[train]\nmin_rows = 100\npoll_seconds = 0.1\n",
    )
    .unwrap();
    let run = dir.path().join("run");
    let child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["train", "--quiet", "--config", "tiny.toml", "--run"])
        .arg(&run)
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Step 0 is published at the start; then the trainer waits for self-play rows.
    let start = Instant::now();
    while !run.join("models/model-000000000.safetensors").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no step-0 checkpoint"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on the id of a child this test spawned and has not reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("stopping: checkpointing the last steps"),
        "{err}"
    );
    assert!(!err.contains("writing finished games"), "{err}");
    let requests = err
        .lines()
        .find(|l| l.contains("store requests"))
        .unwrap_or_else(|| panic!("no store requests line: {err}"));
    assert!(
        requests.contains("tengu_trainer") && !requests.contains("tengu_selfplay"),
        "{requests}"
    );
}

#[test]
fn help_lists_every_bench_and_describes_every_flag() {
    let help = |args: &[&str]| {
        let (ok, out, err) = tengu(args);
        assert!(ok, "{err}");
        out
    };
    let top = help(&["--help"]);
    let bench = top
        .lines()
        .find(|l| l.trim_start().starts_with("bench"))
        .unwrap();
    for name in ["nn", "search", "agree", "book", "store"] {
        assert!(bench.contains(name), "{name} missing: {bench}");
    }
    let play = help(&["play", "--help"]);
    assert!(!play.contains("GUI"), "play is a terminal game: {play}");
    assert!(play.contains("Thinking time per move"), "{play}");
    // Every flag of these commands says what it is for: a flag line ends in its
    // description, or the description follows on the next line.
    for args in [
        &["bench", "search", "--help"][..],
        &["bench", "store", "--help"],
        &["bench", "nn", "--help"],
        &["match", "--help"],
        &["tournament", "--help"],
        &["suite", "--help"],
        &["suite", "make", "--help"],
    ] {
        let text = help(args);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let flag = line.trim_start();
            if !flag.starts_with("--")
                || flag.starts_with("--help")
                || flag.starts_with("--version")
            {
                continue;
            }
            // A default value (`[default: x]`) alone is no description.
            let text_line = |t: &str| {
                let t = t.trim();
                !t.is_empty() && !t.starts_with('-') && !t.starts_with('[')
            };
            let described = flag.split_once("  ").is_some_and(|(_, d)| text_line(d))
                || lines.get(i + 1).is_some_and(|next| text_line(next));
            assert!(described, "{args:?}: {line:?} has no description:\n{text}");
        }
    }
}

#[test]
fn a_network_preset_over_the_size_limit_says_the_limit() {
    let (ok, _, err) = tengu(&[
        "bench",
        "nn",
        "--presets",
        "b1000c4096",
        "--seconds",
        "0.01",
    ]);
    assert!(!ok && err.contains("--presets"), "{err}");
    assert!(
        err.contains("size limit") && err.contains("1..=40") && err.contains("8..=512"),
        "{err}"
    );
    assert!(!err.contains("unknown preset"), "{err}");
    let (ok, _, err) = tengu(&["bench", "search", "--preset", "b99c8", "--seconds", "0.01"]);
    assert!(
        !ok && err.contains("--preset") && err.contains("size limit"),
        "{err}"
    );
}

/// A checkpoint player searches with its own run's settings unless `--search-config`
/// names others (so `match checkpoint:RUN/models/...` plays as that run's arena measured).
#[test]
fn match_checkpoints_search_with_their_own_runs_settings() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "[search]\nroot = \"gumbel\"\n");
    let config = dir.path().join("tiny.toml");
    let player = format!(
        "checkpoint:{}:2",
        run.join("models/model-000000000.safetensors").display()
    );
    let args = [
        "--log",
        "info",
        "match",
        &player,
        "random",
        "--games",
        "2",
        "--max-plies",
        "6",
    ];
    let (ok, _, err) = tengu(&args);
    assert!(ok, "{err}");
    let own = run.join("config.toml").display().to_string();
    assert!(
        err.contains("search settings") && err.contains(&own),
        "{err}"
    );
    let (ok, _, err) = tengu(&[&args[..], &["--search-config", config.to_str().unwrap()]].concat());
    assert!(ok, "{err}");
    assert!(
        !err.contains(&own),
        "--search-config chooses the settings: {err}"
    );
}

#[test]
fn shards_losses_measures_checkpoints_on_the_same_rows() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shard = root.join("shard/tests/data/before.shard");
    let network = root.join("networks/dai-dai.safetensors");
    let (shard, network) = (common::p(&shard), common::p(&network));
    let (ok, out, err) = tengu(&[
        "shards",
        "losses",
        &shard,
        "--checkpoint",
        &network,
        "--checkpoint",
        &network,
        "--json",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    let value = lines[0]["value_loss"].as_f64().unwrap();
    assert!(value.is_finite() && value > 0.0, "{out}");
    assert_eq!(lines[0]["rows"], 4);
    // The fixture's one game is a draw: every row's result is the same.
    assert_eq!(lines[0]["result_entropy"].as_f64(), Some(0.0));
    // The same weights on the same rows: the same losses.
    assert_eq!(lines[0]["value_loss"], lines[1]["value_loss"]);
    assert_eq!(lines[0]["material_loss"], lines[1]["material_loss"]);

    // As text: the rows' header once, then a line for each checkpoint.
    let (ok, out, err) = tengu(&[
        "shards",
        "losses",
        &shard,
        "--checkpoint",
        &network,
        "--checkpoint",
        &network,
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("1 shards, 4 rows") && lines[0].contains("entropy 0.0000"),
        "{out}"
    );
    // The fixture's rows carry no policy target: said so, not "NaN".
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.contains("4 rows: policy - (no row with a policy target), value")),
        "{out}"
    );

    // Bad input names its cause and fails.
    let (ok, _, err) = tengu(&["shards", "losses", "no/such/dir", "--checkpoint", &network]);
    assert!(!ok && err.contains("no/such/dir"), "{err}");
    let (ok, _, err) = tengu(&["shards", "losses", &shard, "--checkpoint", &shard]);
    assert!(!ok && err.contains("before.shard"), "{err}");
}

#[test]
fn network_init_starts_a_new_run_from_a_checkpoints_weights() {
    use common::{p, step_zero, tiny_run};
    use tengu_model::Backend;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a")).unwrap();
    let source = tiny_run(&dir.path().join("a"), "");
    let init = step_zero(&source);
    // Another preset: the init's architecture replaces it.
    let config = dir.path().join("b.toml");
    std::fs::write(
        &config,
        format!(
            "game = \"dai-dai\"\n[network]\npreset = \"cpu\"\ninit = \"{}\"\n",
            p(&init)
        ),
    )
    .unwrap();
    let run = dir.path().join("b");
    let (ok, _, err) = common::train_step_zero(&run, &config);
    assert!(ok, "{err}");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.join("models/model-000000000.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        manifest["parent"], "model-000000000.safetensors",
        "{manifest}"
    );
    // The same function as the checkpoint it started from.
    let variant = tengu_rules::Variant::dai_dai();
    let pos = tengu_rules::Position::initial(variant.clone());
    let moves = pos.legal_move_list();
    let input = tengu_model::EvalInput {
        position: &pos,
        moves: &moves,
        repetitions: 0,
    };
    let evaluate = |path: &std::path::Path| {
        let (mut eval, meta) = Backend::Burn.load_evaluator(path, &variant).unwrap();
        (eval.evaluate(&[input]).unwrap(), meta.config)
    };
    assert_eq!(evaluate(&step_zero(&run)), evaluate(&init));

    // A checkpoint of another game, or no file: refused before the run is written.
    for (bad, why) in [
        ("networks/maka-dai-dai.safetensors", "maka-dai-dai"),
        ("no/such/file.safetensors", "no/such/file.safetensors"),
    ] {
        let config = dir.path().join("bad.toml");
        std::fs::write(
            &config,
            format!("game = \"dai-dai\"\n[network]\ninit = \"{bad}\"\n"),
        )
        .unwrap();
        let run = dir.path().join("bad-run");
        let (ok, _, err) = common::train_step_zero(&run, &config);
        assert!(
            !ok && err.contains("network.init") && err.contains(why),
            "{err}"
        );
        assert!(!run.exists(), "a refused command wrote {}", run.display());
    }
}

#[test]
fn config_only_publishes_a_pytorch_runs_config_without_training() {
    use common::p;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("gpu-run");
    let gpu = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/run/dai-dai-gpu.toml");
    // Training it here is refused (a CUDA backend, the PyTorch engine), and says what to do.
    let (ok, _, err) = common::train_step_zero(&run, &gpu);
    assert!(!ok && !run.exists(), "{err}");
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&run),
        "--config",
        &p(&gpu),
        "--config-only",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let published = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(
        published.contains("engine = \"python\"") && published.contains("tch-cuda"),
        "{published}"
    );
    assert!(!run.join("models").exists(), "--config-only trained");
    // A bad config is refused and writes nothing.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "game = \"dai-dai\"\n[train]\nbatch_sise = 3\n").unwrap();
    let other = dir.path().join("other-run");
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&other),
        "--config",
        &p(&bad),
        "--config-only",
        "--quiet",
    ]);
    assert!(
        !ok && err.contains("batch_sise") && !other.exists(),
        "{err}"
    );
}

/// A checkpoint outside any run's `models/` with no `<name>.toml` beside it plays with the
/// built-in search, and says so at warning level (a copied rung once played that way
/// unnoticed); with its run's settings beside it, it plays those, silently.
#[test]
fn a_checkpoint_without_its_settings_says_it_plays_the_built_in_search() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "");
    let lone = dir.path().join("lone.safetensors");
    std::fs::copy(common::step_zero(&run), &lone).unwrap();
    let play = || {
        tengu(&[
            "match",
            &format!("checkpoint:{}:2", lone.display()),
            "random",
            "--games",
            "2",
            "--max-plies",
            "8",
            "--log",
            "warn",
        ])
    };
    let (ok, _, err) = play();
    assert!(ok, "{err}");
    assert!(
        err.contains("WARN") && err.contains("built-in defaults"),
        "{err}"
    );
    std::fs::copy(run.join("config.toml"), dir.path().join("lone.toml")).unwrap();
    let (ok, _, err) = play();
    assert!(ok, "{err}");
    assert!(!err.contains("built-in defaults"), "{err}");
}

/// `tengu play` shows the game, not the loading: no INFO lines before its instructions
/// (`--log info` brings them back), its help names a move legal in the position, and its
/// board writes each piece as Hodges notation does.
#[test]
fn terminal_play_starts_with_its_instructions() {
    use std::io::Write;
    let run = |extra: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args(["play", "--visits", "1"])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (out, err) = run(&[]);
    assert!(out.starts_with("You play Black"), "{out}");
    assert!(out.contains("here e.g. `"), "{out}");
    // The board names pieces as the moves do: the Blue Dragon is BD (vBD: White's), as in
    // Hodges notation, not BDR as in position text.
    assert!(
        out.contains(" BD ") && out.contains(" vBD") && out.contains("Hodges notation"),
        "{out}"
    );
    assert!(!err.contains("INFO"), "{err}");
    let (_, err) = run(&["--log", "info"]);
    assert!(err.contains("INFO"), "{err}");
}
