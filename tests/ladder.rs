//! `tengu ladder` on a hand-made run: checkpoints published at known CPU-hours (the loss
//! log's `cpu_seconds`), rungs chosen by CPU-hours, matches against a fixed opponent and
//! the rung before, the report as JSON / SVG and a row in `curves.svg`.

use std::path::Path;

mod common;
use common::{p, tengu, tiny_run};

/// A tiny run with checkpoints at steps 100, 200, 300 and 400 published at 0.2, 0.5, 1.1
/// and 1.6 CPU-hours (copies of an untrained step 0).
fn hand_made_run(dir: &Path) -> std::path::PathBuf {
    let run = tiny_run(dir, "");
    let store = tengu_store::RunStore::open(&p(&run)).unwrap();
    let weights = run.join("models/model-000000000.safetensors");
    let mut log = String::new();
    for (step, hours) in [(100u64, 0.2f64), (200, 0.5), (300, 1.1), (400, 1.6)] {
        tengu_store::checkpoint::publish_file(&store, step, &weights).unwrap();
        log.push_str(&format!(
            // Every key a trainer writes (the loss log's type refuses a line without them).
            "{{\"step\":{step},\"cpu_seconds\":{},\"games_seen\":{},\"value_loss\":0.5,\"heldout_value_loss\":0.9,\"policy_loss\":3.0,\"unix_time\":{},\"policy_target_rows\":64,\"ownership_loss\":null,\"material_loss\":null,\"learning_rate\":0.001,\"samples_per_second\":100.0,\"window_rows\":1000,\"rows_seen\":{}}}\n",
            hours * 3600.0,
            step / 10,
            1.0e9 + step as f64,
            step * 64
        ));
    }
    std::fs::create_dir_all(run.join("train")).unwrap();
    std::fs::write(run.join("train/000000100.jsonl"), log).unwrap();
    run
}

#[test]
fn ladder_rates_the_checkpoints_nearest_to_each_cpu_hour_target() {
    let dir = tempfile::tempdir().unwrap();
    let run = hand_made_run(dir.path());
    let run_text = p(&run);
    let args = [
        "ladder",
        "--run",
        &run_text,
        "--cpu-hours",
        "0.25,1,8",
        "--opponents",
        "random",
        "--games",
        "2",
        "--visits",
        "2",
        "--max-plies",
        "6",
        "--json",
    ];
    let (ok, out, err) = tengu(&args);
    assert!(ok, "{err}");
    // Read through the report's type, as serve and the curves read ladder.json.
    let report = tengu_run::records::read_ladder("tengu ladder --json", &out).unwrap();
    let rungs = &report.rungs;
    // 0.25 -> step 100 (0.2 h), 1 -> step 300 (1.1 h); nothing near 8 CPU-hours yet.
    let steps: Vec<u64> = rungs.iter().map(|r| r.rung.step).collect();
    assert_eq!(steps, vec![100, 300], "{out}");
    assert_eq!(rungs[0].rung.target_hours, 0.25);
    assert_eq!(rungs[1].heldout_value_loss, Some(0.9));
    assert_eq!(rungs[1].games_seen, Some(30));
    // The first rung plays the fixed opponent; the second also the rung before it.
    let opponents = |r: &tengu_arena::ladder::RungReport| -> Vec<String> {
        r.matches.iter().map(|m| m.opponent.clone()).collect()
    };
    assert_eq!(opponents(&rungs[0]), vec!["random"]);
    assert_eq!(
        opponents(&rungs[1]),
        vec!["random", "step 100 (0.20 CPU-h)"]
    );
    for r in rungs {
        for m in &r.matches {
            assert_eq!(m.outcome.counts.map(|s| s.games()), Some(2), "{m:?}");
            assert_eq!(m.outcome.games, 2, "{m:?}");
        }
        assert!(r.elo_low <= r.elo && r.elo <= r.elo_high, "{r:?}");
    }
    assert_eq!(report.opponent_elo[0], 0.0);
    assert_eq!(
        report.version,
        tengu_arena::ladder::LADDER_REPORT_VERSION,
        "ladder.json says its version"
    );
    let text = std::fs::read_to_string(run.join("ladder/ladder.txt")).unwrap();
    assert!(
        text.contains("value loss: training 0.500, held-out 0.900; 30 games seen"),
        "{text}"
    );
    for name in ["ladder.json", "ladder.txt", "ladder.svg"] {
        assert!(run.join("ladder").join(name).exists(), "{name}");
    }
    let svg = std::fs::read_to_string(run.join("ladder/ladder.svg")).unwrap();
    assert!(
        svg.contains("CPU-hours (log scale)") && svg.contains("step 300") && svg.contains(">+0<"),
        "{svg}"
    );
    let curves = std::fs::read_to_string(run.join("curves.svg")).unwrap();
    assert!(
        curves.contains("compute ladder"),
        "curves.svg has no ladder row"
    );

    // A rerun continues: every match is complete, so no game is played again.
    let (ok, again, err) = tengu(&args);
    assert!(ok, "{err}");
    assert_eq!(
        tengu_run::records::read_ladder("tengu ladder --json", &again)
            .unwrap()
            .rungs,
        report.rungs
    );
    let results =
        std::fs::read_to_string(run.join("ladder/step-100-vs-random/results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2);

    // A ladder sent elsewhere (another cap) writes its report there and leaves the run's alone.
    let report_before = std::fs::read(run.join("ladder/ladder.json")).unwrap();
    let elsewhere = dir.path().join("longer-cap");
    let elsewhere_text = p(&elsewhere);
    let mut other = args.to_vec();
    let cap = other.len() - 2;
    other[cap] = "8";
    other.extend(["--out", elsewhere_text.as_str()]);
    let (ok, _, err) = tengu(&other);
    assert!(ok, "{err}");
    let other_file = elsewhere.join("ladder.json");
    let other_report = tengu_run::records::read_ladder(
        &p(&other_file),
        &std::fs::read_to_string(&other_file).unwrap(),
    )
    .unwrap();
    assert_eq!(other_report.max_plies, 8);
    assert_eq!(
        std::fs::read(run.join("ladder/ladder.json")).unwrap(),
        report_before,
        "the run's own ladder report was replaced"
    );
}

#[test]
fn ladder_says_how_far_the_run_has_got_when_no_target_is_near() {
    let dir = tempfile::tempdir().unwrap();
    let run = hand_made_run(dir.path());
    let (ok, _, err) = tengu(&[
        "ladder",
        "--run",
        &p(&run),
        "--cpu-hours",
        "8",
        "--opponents",
        "random",
    ]);
    assert!(!ok);
    assert!(err.contains("1.60 CPU-hours"), "{err}");
    assert!(
        !run.join("ladder").exists(),
        "a failed ladder leaves nothing behind"
    );
    let (ok, _, err) = tengu(&["ladder", "--run", &p(&run), "--cpu-hours", "0,-1"]);
    assert!(!ok && err.contains("--cpu-hours"), "{err}");
    let (ok, _, err) = tengu(&["ladder", "--run", &p(&run), "--opponents", "grandmaster"]);
    assert!(!ok && err.contains("grandmaster"), "{err}");
    // The numbers are range-checked, and the ply cap must leave room after the opening.
    let (ok, _, err) = tengu(&["ladder", "--run", &p(&run), "--games", "0"]);
    assert!(
        !ok && err.contains("--games") && err.contains("from 1 to 10000"),
        "{err}"
    );
    let (ok, _, err) = tengu(&["ladder", "--run", &p(&run), "--max-plies", "4"]);
    assert!(
        !ok && err.contains("--max-plies 4 must be more than --opening-plies"),
        "{err}"
    );
    assert!(
        !run.join("ladder").exists(),
        "a refused ladder leaves nothing behind"
    );
}
