//! Helpers shared by the command-line integration tests (each test binary includes this
//! module with `mod common;` and uses what it needs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `tengu` with `args`: (success, standard output, standard error).
pub fn tengu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(args)
        .output()
        .expect("tengu runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A path as an argument.
pub fn p(x: &Path) -> String {
    x.display().to_string()
}

/// `tengu train --run RUN --config CONFIG --max-steps 0 --quiet`: a new run with its
/// untrained step-0 checkpoint. (success, standard output, standard error).
pub fn train_step_zero(run: &Path, config: &Path) -> (bool, String, String) {
    tengu(&[
        "train",
        "--run",
        &p(run),
        "--config",
        &p(config),
        "--max-steps",
        "0",
        "--quiet",
    ])
}

/// A new run `dir/run` of the tiny Dai Dai network with its untrained step-0 checkpoint,
/// made by `tengu train --max-steps 0` from `dir/tiny.toml`; `extra` is appended to that
/// configuration (e.g. a `[search]` table). Returns the run directory.
pub fn tiny_run(dir: &Path, extra: &str) -> PathBuf {
    let run = dir.join("run");
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        format!("game = \"dai-dai\"\n[network]\npreset = \"tiny\"\n{extra}"),
    )
    .unwrap();
    let (ok, _, err) = train_step_zero(&run, &config);
    assert!(ok, "{err}");
    run
}

/// The step-0 checkpoint of a run made by [`tiny_run`].
pub fn step_zero(run: &Path) -> PathBuf {
    run.join("models/model-000000000.safetensors")
}

/// Copies the folder `from` with everything under it to `to` (made if missing).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
