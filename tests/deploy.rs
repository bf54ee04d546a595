//! The deployment examples (deploy/: Kubernetes manifests, Slurm scripts, their READMEs)
//! pass `scripts/check-deploy.sh`: Kubernetes schemas in strict mode, offline; sbatch
//! options; every tengu subcommand and flag they use exists in this binary. The first run
//! installs kubernetes-validate from PyPI into a venv under ~/.cache/tengu (about 20 s);
//! later runs take about a second. `TENGU_SKIP_DEPLOY_CHECK=1` skips these tests on a
//! machine that cannot install it.

mod common;

use common::copy_dir;
use std::path::Path;
use std::process::Command;

fn skipped() -> bool {
    if std::env::var_os("TENGU_SKIP_DEPLOY_CHECK").is_some_and(|v| v == "1") {
        eprintln!("TENGU_SKIP_DEPLOY_CHECK=1: the deployment examples are not checked");
        return true;
    }
    false
}

/// Runs the check on `dir` (default: the repository's deploy/); returns success and
/// stdout + stderr.
fn check(dir: Option<&Path>, tengu: bool) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("scripts/check-deploy.sh"));
    if let Some(dir) = dir {
        cmd.arg(dir);
    }
    if tengu {
        cmd.env("TENGU_BIN", env!("CARGO_BIN_EXE_tengu"));
    } else {
        cmd.env_remove("TENGU_BIN");
    }
    let out = cmd.output().expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Replaces `old` (which must occur) with `new` in `file`.
fn break_file(file: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(old), "{} has no {old:?}", file.display());
    std::fs::write(file, text.replacen(old, new, 1)).unwrap();
}

#[test]
fn deployment_examples_pass_the_check() {
    if skipped() {
        return;
    }
    let (ok, text) = check(None, true);
    assert!(ok, "scripts/check-deploy.sh failed on deploy/:\n{text}");
    assert!(text.contains("check-deploy: ok:"), "{text}");
    assert!(text.contains("tengu invocations checked"), "{text}");
}

/// The check is not vacuous: a misspelt manifest field, an unknown #SBATCH option and a
/// tengu flag that does not exist each fail it, naming the file.
#[test]
fn the_check_fails_on_broken_examples() {
    if skipped() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let deploy = tmp.path().join("deploy");
    copy_dir(&root.join("deploy"), &deploy);

    // A misspelt field: only the strict schema catches it (kubectl would drop it, with a
    // warning at best, and run 1 replica).
    let manifest = deploy.join("k8s/selfplay-deployment.yaml");
    break_file(&manifest, "\n  replicas:", "\n  replica:");
    let (ok, text) = check(Some(&deploy), false);
    assert!(!ok, "a misspelt field passed the check:\n{text}");
    assert!(
        text.contains("selfplay-deployment.yaml") && text.contains("'replica' was unexpected"),
        "the failure does not name the file and the field:\n{text}"
    );

    break_file(
        &deploy.join("slurm/selfplay.sbatch"),
        "#SBATCH --gres=",
        "#SBATCH --gre=",
    );
    break_file(
        &deploy.join("slurm/train.sbatch"),
        " --quiet &",
        " --quiett &",
    );
    let (ok, text) = check(Some(&deploy), true);
    assert!(!ok, "broken examples passed the check:\n{text}");
    for expected in [
        "selfplay-deployment.yaml",
        "selfplay.sbatch:",
        "sbatch has no option --gre",
        "train.sbatch:",
        "`tengu train` has no flag --quiett",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
}
