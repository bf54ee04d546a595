//! `tengu results`: the games of earlier `tengu match --out` folders pooled into one report,
//! scored again at another material ratio, and the folders it refuses.

mod common;
use common::{p, tengu};

/// A short match of `greedy` against `b` with `seed`, kept in `dir`; its JSON report.
fn play(dir: &std::path::Path, seed: u64, b: &str) -> serde_json::Value {
    play_as(dir, seed, "greedy", b)
}

/// A short match of `a` against `b` with `seed`, kept in `dir`; its JSON report.
fn play_as(dir: &std::path::Path, seed: u64, a: &str, b: &str) -> serde_json::Value {
    let seed = seed.to_string();
    let (ok, out, err) = tengu(&[
        "match",
        a,
        b,
        "--games",
        "6",
        "--max-plies",
        "30",
        "--material-ratio",
        "1.5",
        "--seed",
        &seed,
        "--out",
        &p(dir),
        "--json",
        "--log",
        "warn",
    ]);
    assert!(ok, "{err}");
    serde_json::from_str(out.trim()).unwrap()
}

fn results(args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["results"];
    all.extend_from_slice(args);
    tengu(&all)
}

#[test]
fn pooled_matches_add_up_and_a_ratio_scores_capped_games_again() {
    let dir = tempfile::tempdir().unwrap();
    let (s1, s2) = (dir.path().join("s1"), dir.path().join("s2"));
    let reports = [play(&s1, 1, "random"), play(&s2, 2, "random")];

    let (ok, out, err) = results(&[&p(&s1), &p(&s2), "--json"]);
    assert!(ok, "{err}");
    let pooled: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let sum = |key: &str| {
        reports
            .iter()
            .map(|r| r[key].as_u64().unwrap())
            .sum::<u64>()
    };
    for key in ["games", "wins", "draws", "losses", "pairs", "unpaired"] {
        assert_eq!(pooled[key].as_u64().unwrap(), sum(key), "{key}: {pooled}");
    }
    for k in 0..5 {
        let bin = |r: &serde_json::Value| r["pentanomial"][k].as_u64().unwrap();
        assert_eq!(
            bin(&pooled),
            reports.iter().map(bin).sum::<u64>(),
            "{pooled}"
        );
    }
    assert_eq!(pooled["a"], reports[0]["a"]);
    // One folder alone is its match's report again.
    let (ok, out, _) = results(&[&p(&s1), "--json"]);
    assert!(ok);
    let alone: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for key in [
        "wins",
        "draws",
        "losses",
        "score",
        "pair_score",
        "material_share",
    ] {
        assert_eq!(alone[key], reports[0][key], "{key}");
    }

    // Scored again at the ratio the matches were played at: the same results. With no
    // adjudication, every game at the cap is a draw.
    let (ok, again, err) = results(&[&p(&s1), &p(&s2), "--json", "--material-ratio", "1.5"]);
    assert!(ok, "{err}");
    let again: serde_json::Value = serde_json::from_str(again.trim()).unwrap();
    for key in ["wins", "draws", "losses"] {
        assert_eq!(again[key], pooled[key], "{key}");
    }
    // Every game, from the folders' own lines: a capped game scored again is a win for the
    // side whose material share reaches r / (1 + r), else a draw.
    let lines: Vec<serde_json::Value> = [&s1, &s2]
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f.join("results.jsonl")).unwrap();
            text.lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let capped = |g: &serde_json::Value| {
        g["termination"] == "ply cap" || g["termination"] == "adjudicated on material"
    };
    assert!(
        lines.iter().any(capped),
        "30 plies end some games at the cap"
    );
    let expect = |ratio: f64| {
        let mut wins_losses = (0u64, 0u64);
        for g in &lines {
            let result = if capped(g) {
                let share = g["material_share"].as_f64().unwrap();
                match ratio {
                    r if r > 0.0 && share >= r / (1.0 + r) => 1,
                    r if r > 0.0 && share <= 1.0 / (1.0 + r) => -1,
                    _ => 0,
                }
            } else {
                g["result"].as_i64().unwrap()
            };
            match result {
                1 => wins_losses.0 += 1,
                -1 => wins_losses.1 += 1,
                _ => {}
            }
        }
        wins_losses
    };
    for (flag, ratio) in [("0", 0.0), ("1.2", 1.2f32 as f64), ("3", 3.0)] {
        let (ok, out, err) = results(&[&p(&s1), &p(&s2), "--json", "--material-ratio", flag]);
        assert!(ok, "{err}");
        let r: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let got = (r["wins"].as_u64().unwrap(), r["losses"].as_u64().unwrap());
        assert_eq!(got, expect(ratio), "--material-ratio {flag}");
    }

    // The text report says what it pooled.
    let (ok, text, err) = results(&[&p(&s1), &p(&s2), "--material-ratio", "1.2"]);
    assert!(ok, "{err}");
    assert!(
        text.contains("2 folder(s), 12 games") && text.contains("scored again at 1.2x"),
        "{text}"
    );
    assert!(
        text.contains("Elo difference") && text.contains("pairs"),
        "{text}"
    );
}

#[test]
fn folders_that_do_not_pool_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (s1, same, other) = (
        dir.path().join("s1"),
        dir.path().join("s1-again"),
        dir.path().join("other"),
    );
    play(&s1, 1, "random");
    play(&same, 1, "random");
    play(&other, 2, "greedy");
    let (ok, _, err) = results(&[&p(&s1), &p(&same)]);
    assert!(
        !ok && err.contains("played the same openings") && err.contains("s1-again"),
        "{err}"
    );
    let (ok, _, err) = results(&[&p(&s1), &p(&other)]);
    assert!(
        !ok && err.contains("same two players") && err.contains("other"),
        "{err}"
    );
    let missing = dir.path().join("missing");
    let (ok, _, err) = results(&[&p(&missing)]);
    assert!(!ok && err.contains("missing/results.jsonl"), "{err}");
    // A damaged line is named by file and line.
    let text = std::fs::read_to_string(s1.join("results.jsonl")).unwrap();
    std::fs::write(
        s1.join("results.jsonl"),
        format!("{text}{{\"index\": 7, \"a\"\n"),
    )
    .unwrap();
    let (ok, _, err) = results(&[&p(&s1)]);
    let line = text.lines().count() + 1;
    assert!(
        !ok && err.contains(&format!("results.jsonl:{line}")),
        "{err}"
    );
    let (ok, _, err) = results(&[&p(&s1), "--material-ratio", "0.9"]);
    assert!(!ok && err.contains("above 1"), "{err}");
}

#[test]
fn two_arms_compare_game_by_game_on_the_same_openings() {
    let dir = tempfile::tempdir().unwrap();
    let arm = |name: &str, a: &str| {
        [1, 2].map(|seed| {
            let folder = dir.path().join(format!("{name}-s{seed}"));
            play_as(&folder, seed, a, "random");
            folder
        })
    };
    let (on, off) = (arm("on", "greedy"), arm("off", "random"));
    let (ok, out, err) = results(&[
        &p(&on[0]),
        &p(&on[1]),
        "--against",
        &p(&off[0]),
        &p(&off[1]),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["a"]["games"], 12);
    assert_eq!(v["b"]["games"], 12);
    // The paired difference from the folders' own lines, game k against game k.
    let scores = |folder: &std::path::Path| -> Vec<f64> {
        let text = std::fs::read_to_string(folder.join("results.jsonl")).unwrap();
        let mut games: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        games.sort_by_key(|g| g["index"].as_u64().unwrap());
        games
            .iter()
            .map(|g| (g["result"].as_f64().unwrap() + 1.0) / 2.0)
            .collect()
    };
    let diffs: Vec<f64> = (0..2)
        .flat_map(|i| {
            let (a, b) = (scores(&on[i]), scores(&off[i]));
            a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>()
        })
        .collect();
    let mean = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let paired = &v["paired"];
    assert_eq!(paired["score_per_game"]["n"], 12);
    assert_eq!(paired["score_per_pair"]["n"], 6);
    assert!(
        (paired["score_per_game"]["mean"].as_f64().unwrap() - mean).abs() < 1e-12,
        "{paired}"
    );
    assert!(
        (paired["score_per_pair"]["mean"].as_f64().unwrap() - mean).abs() < 1e-12,
        "{paired}"
    );

    let (ok, text, err) = results(&[
        &p(&on[0]),
        &p(&on[1]),
        "--against",
        &p(&off[0]),
        &p(&off[1]),
    ]);
    assert!(ok, "{err}");
    assert!(
        text.contains("A minus B on the same openings: score per game"),
        "{text}"
    );
    // The second arm's folders in another seed order did not play the same openings.
    let (ok, _, err) = results(&[
        &p(&on[0]),
        &p(&on[1]),
        "--against",
        &p(&off[1]),
        &p(&off[0]),
    ]);
    assert!(
        !ok && err.contains("did not play the same openings"),
        "{err}"
    );
    let (ok, _, err) = results(&[&p(&on[0]), &p(&on[1]), "--against", &p(&off[0])]);
    assert!(!ok && err.contains("one folder each per seed"), "{err}");
}

/// A game played out to mate from a composed corner (Black's Rooks mate White's King on
/// 1a at ply 4), as self-play keeps it: one `*.records` line with the search value of each
/// ply from its mover's view. Black's values say it is lost on each of its three moves.
fn mated_in_the_corner(dir: &std::path::Path) {
    use tengu_rules::{Game, Position, Record, Termination};
    let start = Position::parse(&corner_position()).unwrap();
    let mut game = Game::new(start);
    for text in ["17q>16q", "1a>1b", "16q>17q", "1b>1a", "3o>1o"] {
        let m = game.position().parse_move(text).unwrap();
        game.play(m).unwrap();
    }
    let outcome = game.outcome().expect("mate");
    assert_eq!(outcome.termination, Termination::Checkmate);
    let record = Record::new(game, &[]).to_string();
    let values = [-0.95, 0.9, -0.95, 0.9, -0.95];
    let line = serde_json::json!({"game": 0, "record": record, "values": values});
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(dir.join("games/0.records"), format!("{line}\n")).unwrap();
}

/// White's King on 1a, Black's Rooks on 2p and 3o and King on 17q; Black to move.
fn corner_position() -> String {
    // Ranks a (top) to q; files 17 (left) to 1 (right).
    let mut ranks = vec!["17".to_string(); 17];
    ranks[0] = "16,k".into();
    ranks[14] = "14,R,2".into();
    ranks[15] = "15,R,1".into();
    ranks[16] = "K,16".into();
    format!("{} b -", ranks.join("/"))
}

#[test]
fn calibration_replays_resignation_on_self_play_values() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    mated_in_the_corner(&run);
    let (ok, out, err) = results(&[
        "--calibrate",
        &p(&run),
        "--resign-thresholds",
        "0.9,0.99",
        "--resign-moves",
        "3",
        "--json",
    ]);
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let cells = report["resignation"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{report}");
    // Black's three low values would have resigned the game Black went on to win.
    let at_09 = &cells[0];
    assert_eq!(at_09["threshold"].as_f64().unwrap() as f32, 0.9);
    assert_eq!(
        (
            at_09["games"].as_u64(),
            at_09["resigned"].as_u64(),
            at_09["false_resignations"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{report}"
    );
    assert_eq!(cells[1]["resigned"].as_u64(), Some(0), "{report}");
    // The text names the table.
    let (ok, out, err) = results(&["--calibrate", &p(&run)]);
    assert!(ok, "{err}");
    assert!(out.contains("resignation replayed"), "{out}");
    // A damaged line (a values list that is not one, a torn line) hides no other game of
    // its file: it is left out and named; a file with no intact game leaves none.
    let line = std::fs::read_to_string(run.join("games/0.records")).unwrap();
    let bad = line.replace("\"values\":[", "\"values\":[\"x\",");
    let torn = &line[..line.len() / 2];
    std::fs::write(run.join("games/0.records"), format!("{bad}{torn}\n{line}")).unwrap();
    let (ok, out, err) = results(&["--calibrate", &p(&run), "--json"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("line 1: \"values\"") && err.contains("left out"),
        "{err}"
    );
    assert!(err.contains("line 2: not a JSON line"), "{err}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(report["records"].as_u64(), Some(1), "{report}");
    std::fs::write(run.join("games/0.records"), bad).unwrap();
    let (ok, _, err) = results(&["--calibrate", &p(&run)]);
    assert!(!ok);
    assert!(err.contains("line 1") && err.contains("values"), "{err}");
}
