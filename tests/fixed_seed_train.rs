//! The trainer's fixed-seed regression run (issue #42): `tengu train --seed 42` for
//! [`STEPS`] steps on a frozen run kept in `tests/data/fixed-seed-train/` (the tiny Dai Dai
//! network's step-0 checkpoint and the shards of 8 self-play games, half their rows
//! labelled by a depth-1 teacher so that the judge's head trains too) logs the losses kept
//! in `expected.txt` there. A reorganisation of the trainer that changes what it computes
//! fails it; a change meant to alter training writes the new losses with
//! `TENGU_BLESS=1 cargo test --test fixed_seed_train` and says why in its commit.
//!
//! The fixture was made once (`tengu train --max-steps 0` with its `config.toml`, then
//! `tengu selfplay --games 8 --seed 7`); self-play runs on the clock, so it is kept rather
//! than made again. Losses are compared to a relative 1e-5: the same code gives the same
//! bits on one machine (`trainer_kill` checks that), and the tolerance only lets another
//! CPU's summation order through.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_dir, p, tengu};
use tengu_model::desc::HeadId;
use tengu_trainer::records::LossRecord;

/// Steps of the run: enough that the optimiser's state, the warm-up and every head's
/// gradient have shaped the losses.
const STEPS: u64 = 30;

/// Relative difference under which two losses are the same.
const TOLERANCE: f64 = 1e-5;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixed-seed-train")
}

/// One line of the loss log as `expected.txt` keeps it: `step=N` then `name=value` for
/// the learning rate, the policy and every head's loss (`none` where the batch had no
/// target for it), and the held-out losses where the line has them.
fn line_of(r: &LossRecord) -> String {
    let value = |v: Option<f64>| v.map_or("none".to_string(), |v| v.to_string());
    let mut out = format!(
        "step={} learning_rate={} policy={}",
        r.step,
        r.learning_rate,
        value(r.policy_loss)
    );
    for head in HeadId::ALL {
        let name = head.head().loss_name;
        out += &format!(" {name}={}", value(r.heads.step(head)));
    }
    if let Some(rows) = r.heldout_rows {
        out += &format!(
            " heldout_rows={rows} heldout_policy={}",
            value(r.heldout_policy_loss)
        );
        for head in HeadId::ALL {
            let name = head.head().loss_name;
            out += &format!(" heldout_{name}={}", value(r.heads.heldout(head)));
        }
    }
    out
}

/// The differences between an expected and a logged line: names that differ, or values
/// further apart than [`TOLERANCE`].
fn differences(expected: &str, found: &str) -> Vec<String> {
    let fields = |line: &str| -> Vec<(String, String)> {
        line.split_whitespace()
            .map(|f| {
                let (k, v) = f.split_once('=').unwrap_or((f, ""));
                (k.to_string(), v.to_string())
            })
            .collect()
    };
    let (e, f) = (fields(expected), fields(found));
    let names = |x: &[(String, String)]| x.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    if names(&e) != names(&f) {
        return vec![format!(
            "fields differ: expected {expected:?}, found {found:?}"
        )];
    }
    e.iter()
        .zip(&f)
        .filter(
            |((_, a), (_, b))| match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(a), Ok(b)) => (a - b).abs() > TOLERANCE * a.abs().max(b.abs()).max(1e-12),
                _ => a != b,
            },
        )
        .map(|((k, a), (_, b))| format!("{k}: expected {a}, found {b}"))
        .collect()
}

#[test]
fn the_fixed_seed_run_logs_the_kept_losses() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    // Only the step-0 checkpoint, the shards and the configuration: a fresh trainer.
    copy_dir(&fixture(), &run);
    let copied_expectation = run.join("expected.txt");
    if copied_expectation.exists() {
        std::fs::remove_file(copied_expectation).unwrap();
    }
    let steps = STEPS.to_string();
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&run),
        "--max-steps",
        &steps,
        "--seed",
        "42",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let store = tengu_store::RunStore::open(&p(&run)).unwrap();
    let logged: Vec<String> = tengu_trainer::log::read_records(&store)
        .unwrap()
        .iter()
        .map(line_of)
        .collect();
    assert_eq!(logged.len() as u64, STEPS, "one line a step");

    let kept = fixture().join("expected.txt");
    if std::env::var_os("TENGU_BLESS").is_some() {
        std::fs::write(&kept, logged.join("\n") + "\n").unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&kept).unwrap();
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(expected.len(), logged.len(), "lines of {}", kept.display());
    let problems: Vec<String> = expected
        .iter()
        .zip(&logged)
        .flat_map(|(e, f)| differences(e, f))
        .collect();
    assert!(
        problems.is_empty(),
        "the fixed-seed run's losses changed (TENGU_BLESS=1 keeps the new ones):\n{}",
        problems.join("\n")
    );
}

/// The comparison itself: equal lines pass, a loss moved past the tolerance, a missing
/// field and a changed `none` are each reported.
#[test]
fn differences_are_found_and_named() {
    let line = "step=1 learning_rate=0.001 policy=4.5 value=none";
    assert!(differences(line, line).is_empty());
    assert!(differences(
        line,
        "step=1 learning_rate=0.001 policy=4.500000001 value=none"
    )
    .is_empty());
    let moved = differences(line, "step=1 learning_rate=0.001 policy=4.6 value=none");
    assert_eq!(moved, ["policy: expected 4.5, found 4.6"]);
    assert_eq!(
        differences(line, "step=1 learning_rate=0.001 policy=4.5 value=1.0"),
        ["value: expected none, found 1.0"]
    );
    assert_eq!(
        differences(line, "step=1 learning_rate=0.001 policy=4.5").len(),
        1
    );
}
