//! The Python package (`python/`, issue #31) under `cargo test`: this test makes a run the
//! Rust way (a step-0 checkpoint by `tengu train`, shards by `tengu selfplay`), writes the
//! Rust reader's hash of every row's planes and targets (the trainer's
//! `Example::from_row_mixed` and the encoder) and a shard of another format version, then
//! runs `scripts/python-test.sh` (builds the wheel with maturin, runs pytest), which checks
//! the Python reader against those hashes, every row once across 2 ranks x 2 workers, DDP
//! and the round trip of a checkpoint trained in PyTorch, and `tengu run` with the PyTorch
//! trainer (`python/tests/test_run.py`: a tiny run of its own, the lease, a stop and a
//! resume). Afterwards a Rust self-play worker plays with the checkpoint Python published,
//! and the Rust trainer resumes from it with the AdamW state Python published beside it.
//!
//! `TENGU_KEEP_FIXTURES=1` keeps the fixture run (its folder is printed) for running
//! `TENGU_PY_FIXTURES=DIR scripts/python-test.sh` by hand.
//! `TENGU_SKIP_PYTHON=1` skips it on a machine that cannot install the venv (PyPI).
//!
//! Plain `pytest python/tests` (no `TENGU_PY_FIXTURES`) makes the same fixtures through the
//! ignored test [`fixtures_for_pytest`] (`python/tests/conftest.py` runs it with cargo).

mod common;

use std::path::Path;
use std::process::Command;

use common::{p, tengu};

const CONFIG: &str = r#"
game = "dai-dai"
[network]
preset = "tiny"
[search]
visits = 8
[selfplay]
games_in_flight = 4
cheap_visits = 2
max_plies = 24
rows_per_shard = 30
teacher_share = 0.5
teacher_depth = 1
[train]
batch_size = 8
holdout_every = 3
"#;

/// The Rust reader's view of every row of `run`, in shard name order:
/// `[{"row": i, "held_out": bool, "sha256": hex}]`, the hash over the planes (f32), each
/// legal move's `(from, to, code)` (i64), the policy (f32), then each head's target the row
/// has in the table's order (`desc::HEADS`: class targets as bytes, values as f32; nothing
/// for a target the row lacks, such as ownership or the judge's label), all little-endian.
fn golden(run: &Path) -> serde_json::Value {
    let store = tengu_store::RunStore::open(&p(run)).unwrap();
    let variant = tengu_rules::Variant::dai_dai();
    let encoder = tengu_model::Encoder::new(&variant);
    let index = tengu_model::PolicyIndex::new(encoder.clone());
    let train = tengu_trainer::config::TrainConfig::default();
    let mix = train.value_target_mix();
    let mut out = Vec::new();
    let mut global = 0u64;
    for entry in tengu_shard::list_run(&store).unwrap() {
        let (_, rows) = tengu_shard::fetch(&store, &entry.key).unwrap();
        let futures = tengu_trainer::window::future_values(&rows, train.future_value_plies);
        for (row, future) in rows.iter().zip(futures) {
            let ex =
                tengu_trainer::window::Example::from_row_mixed(row, &variant, mix, future).unwrap();
            let mut planes = vec![0.0f32; encoder.len()];
            encoder.encode(&ex.position, ex.repetitions, &mut planes);
            let mut bytes: Vec<u8> = planes.iter().flat_map(|x| x.to_le_bytes()).collect();
            for &m in &ex.moves {
                let s = index.slot(&ex.position, m).unwrap();
                for v in [s.from as i64, s.to as i64, s.code as i64] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
            bytes.extend(ex.policy.iter().flat_map(|x| x.to_le_bytes()));
            // Each head's target the row has, in the table's order (test_reader.py's too).
            let squares = ex.position.size() * ex.position.size();
            for head in tengu_model::desc::HEADS {
                if ex.targets.has(head, squares) {
                    bytes.extend_from_slice(ex.targets.classes(head.target));
                    bytes.extend(
                        ex.targets
                            .values(head.target)
                            .iter()
                            .flat_map(|x| x.to_le_bytes()),
                    );
                }
            }
            out.push(serde_json::json!({
                "row": global,
                "held_out": tengu_trainer::window::is_held_out(entry.name(), row.game, 3),
                "sha256": tengu_store::checkpoint::sha256_hex(&bytes),
            }));
            global += 1;
        }
    }
    serde_json::Value::Array(out)
}

/// A run whose one shard has format version 1 (an older tengu's).
fn old_version_run(dir: &Path, rows_from: &Path) -> std::path::PathBuf {
    let run = dir.join("old-run");
    std::fs::create_dir_all(run.join("shards")).unwrap();
    std::fs::write(run.join("config.toml"), CONFIG).unwrap();
    let first = tengu_shard::list(&rows_from.join("shards")).unwrap()[0].clone();
    let (header, rows) = tengu_shard::read(&first).unwrap();
    let old = tengu_store::framed::Format {
        version: 1,
        ..tengu_shard::FORMAT
    };
    std::fs::write(
        run.join("shards").join(first.file_name().unwrap()),
        old.encode(&header, &rows),
    )
    .unwrap();
    run
}

/// The file of a fixture folder that names the `tengu` binary the fixtures were made with
/// (conftest.py runs the CLI tests with it).
const BIN_FILE: &str = "tengu-bin.txt";

/// Makes the fixtures pytest reads into `fixtures`: a run (`run/`: a step-0 checkpoint, the
/// shards of 6 self-play games), the Rust reader's view of its rows (`golden.json`), a run
/// whose shard has another format version (`old-run/`) and the binary's path (`BIN_FILE`).
fn make_fixtures(fixtures: &Path) {
    let config = fixtures.join("config.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let run = fixtures.join("run");
    let (ok, _, err) = common::train_step_zero(&run, &config);
    assert!(ok, "{err}");
    let (ok, _, err) = tengu(&[
        "selfplay",
        "--run",
        &p(&run),
        "--games",
        "6",
        "--seed",
        "7",
        "--quiet",
        "--log",
        "warn",
    ]);
    assert!(ok, "{err}");
    let rows = golden(&run);
    assert!(rows.as_array().unwrap().len() >= 20, "too few rows: {rows}");
    std::fs::write(fixtures.join("golden.json"), rows.to_string()).unwrap();
    old_version_run(fixtures, &run);
    std::fs::write(fixtures.join(BIN_FILE), env!("CARGO_BIN_EXE_tengu")).unwrap();
}

/// Makes the fixtures in `$TENGU_PY_MAKE_FIXTURES` (an empty folder) for a plain `pytest
/// python/tests` (its conftest.py runs this with `cargo test --release --test python --
/// --ignored --exact fixtures_for_pytest`); not a check of its own.
#[test]
#[ignore = "makes pytest's fixtures when python/tests/conftest.py asks"]
fn fixtures_for_pytest() {
    let dir = std::env::var_os("TENGU_PY_MAKE_FIXTURES")
        .expect("TENGU_PY_MAKE_FIXTURES names the folder to make the fixtures in");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    make_fixtures(dir);
    println!("fixtures made in {}", dir.display());
}

#[test]
fn python_package_against_the_rust_side() {
    if std::env::var_os("TENGU_SKIP_PYTHON").is_some() {
        eprintln!("TENGU_SKIP_PYTHON is set: the Python package is not tested");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path();
    make_fixtures(fixtures);
    let run = fixtures.join("run");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/python-test.sh");
    let out = Command::new("bash")
        .arg(&script)
        .env("TENGU_PY_FIXTURES", fixtures)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    if !out.status.success() && std::env::var_os("TENGU_KEEP_FIXTURES").is_some() {
        eprintln!("fixtures kept in {}", fixtures.display());
        std::mem::forget(dir);
        panic!("python tests failed");
    }
    assert!(
        out.status.success(),
        "python tests failed:\n{stdout}\n{stderr}"
    );

    // pytest published a checkpoint trained in PyTorch into the run (tests/test_train.py):
    // a Rust self-play worker picks it up and plays with it.
    let store = tengu_store::RunStore::open(&p(&run)).unwrap();
    let newest = tengu_store::checkpoint::newest(&store).unwrap().unwrap();
    assert!(newest > 0, "Python published no checkpoint into the run");
    let before = tengu_shard::list_run(&store).unwrap().len();
    let (ok, _, err) = tengu(&[
        "selfplay",
        "--run",
        &p(&run),
        "--games",
        "1",
        "--seed",
        "9",
        "--quiet",
        "--log",
        "warn",
    ]);
    assert!(ok, "{err}");
    let shards = tengu_shard::list_run(&store).unwrap();
    assert!(shards.len() > before, "the worker wrote no shard");
    let name = tengu_store::layout::weights_name(newest);
    let played_with = shards
        .iter()
        .any(|e| tengu_shard::fetch(&store, &e.key).is_ok_and(|(h, _)| h.model == name));
    assert!(played_with, "no shard was played with {name}");
    // The Rust trainer resumes the PyTorch-trained run with the AdamW moments Python
    // published in the CPU trainer's format, not from zero (`--max-steps` at the newest
    // step: it resumes and stops; the fixture run has fewer rows than `min_rows`).
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&run),
        "--max-steps",
        &newest.to_string(),
        "--quiet",
        "--log",
        "info",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("resuming with its optimizer state"),
        "tengu train did not resume with the PyTorch trainer's AdamW state:\n{err}"
    );
    if std::env::var_os("TENGU_KEEP_FIXTURES").is_some() {
        eprintln!("fixtures kept in {}", fixtures.display());
        std::mem::forget(dir);
    }
}
