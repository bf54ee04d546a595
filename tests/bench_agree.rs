//! `tengu bench agree`: a fresh checkpoint (step 0 of `tengu train`) evaluated by the
//! default build's two CPU backends must agree within 1e-4.

use std::process::Command;

fn tengu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(args)
        .output()
        .expect("tengu runs")
}

#[test]
fn burn_and_burn_flex_agree_on_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let run_s = run.to_str().unwrap();
    // A new run needs a config: the built-in defaults.
    let config = dir.path().join("defaults.toml");
    std::fs::write(&config, "game = \"dai-dai\"\n").unwrap();
    let out = tengu(&[
        "train",
        "--run",
        run_s,
        "--config",
        config.to_str().unwrap(),
        "--max-steps",
        "0",
        "--quiet",
        "--log",
        "warn",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ckpt = run.join("models/model-000000000.safetensors");
    let ckpt = if ckpt.exists() {
        ckpt
    } else {
        std::fs::read_dir(run.join("models"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "safetensors"))
            .expect("a step-0 checkpoint")
    };
    let out = tengu(&[
        "bench",
        "agree",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--backends",
        "burn,burn-flex",
        "--positions",
        "48",
        "--batch",
        "16",
        "--tolerance",
        "1e-4",
        "--json",
        "--log",
        "warn",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["positions"], 48);
    assert_eq!(v["within_tolerance"], true);
    let pair = &v["pairs"][0];
    assert_eq!(pair["reference"], "burn");
    assert_eq!(pair["backend"], "burn-flex");
    for key in ["policy_max_abs", "wdl_max_abs", "material_max_abs"] {
        let d = pair[key].as_f64().unwrap();
        assert!(d < 1e-4, "{key} {d}");
    }
    assert!(pair["top1_agreement"].as_f64().unwrap() > 0.9);

    // Fewer than two backends is an error, not an empty report.
    let out = tengu(&[
        "bench",
        "agree",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--backends",
        "burn",
    ]);
    assert!(!out.status.success());
}
