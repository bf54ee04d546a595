//! Rule sets (RULES.md §8, docs/rules.md) from the command line and in files: `--option` and
//! `--rules` on perft, a run under the `japanese-revival` preset reaching its first
//! checkpoint with the rule set in the checkpoint's metadata, and a match between checkpoints
//! of two rule sets refused with a message naming both.

mod common;

use common::{p, tengu};

#[test]
fn perft_plays_the_rule_set_of_its_flags_and_refuses_unknown_names() {
    let (ok, out, err) = tengu(&[
        "perft",
        "--game",
        "maka-dai-dai",
        "--option",
        "preset=japanese-revival",
        "--depth",
        "2",
    ]);
    assert!(ok, "{err}");
    // rules/tests/data/presets.rules-perft: 6724 (the defaults: 6400).
    assert!(out.contains("6724"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tsa.toml");
    std::fs::write(&file, "preset = \"tsa\"\n").unwrap();
    let (ok, out, err) = tengu(&["perft", "--rules", &p(&file), "--depth", "2"]);
    assert!(ok && out.contains("3345"), "{out}{err}");
    let (ok, _, err) = tengu(&["perft", "--option", "OK=XYZ", "--depth", "1"]);
    assert!(!ok && err.contains("--option OK=XYZ") && err.contains("SRZ / WB2"), "{err}");
    let (ok, _, err) = tengu(&["perft", "--option", "GBD=SRZ", "--depth", "1"]);
    assert!(!ok && err.contains("refused"), "{err}");
}

#[test]
fn a_japanese_revival_checkpoint_names_its_rule_set_and_a_default_match_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, rules: &str| {
        let config = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &config,
            format!("game = \"maka-dai-dai\"\n{rules}[network]\npreset = \"tiny\"\n"),
        )
        .unwrap();
        let run = dir.path().join(name);
        let (ok, _, err) = tengu(&[
            "train", "--run", &p(&run), "--config", &p(&config), "--max-steps", "0", "--quiet",
        ]);
        assert!(ok, "{name}: {err}");
        run.join("models/model-000000000.safetensors")
    };
    let revival = make("revival", "[rules]\npreset = \"japanese-revival\"\n");
    let default = make("default", "");
    let key = "maka-dai-dai:CONTAGION_MDD=PROMOTED_ONLY,KIRIN_PHOENIX_MDD=CHU,FBR=SRZ,BB=JAPANESE_REVIVAL";
    let header = String::from_utf8_lossy(&std::fs::read(&revival).unwrap()[..4096]).to_string();
    assert!(header.contains(key), "{header}");
    let player = |c: &std::path::Path| format!("checkpoint:{}:2", p(c));
    let out = dir.path().join("match");
    for (rules, refused) in [(vec![], &revival), (vec!["--option", "preset=japanese-revival"], &default)] {
        let mut args = vec![
            "match".to_string(),
            player(&revival),
            player(&default),
            "--game".into(),
            "maka-dai-dai".into(),
            "--games".into(),
            "2".into(),
            "--max-plies".into(),
            "6".into(),
            "--out".into(),
            p(&out),
        ];
        args.extend(rules.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, _, err) = tengu(&args);
        assert!(!ok, "a match across rule sets was played");
        assert!(err.contains(&p(refused)) && err.contains(key), "{err}");
    }
    // A run's configuration cannot switch its rule set.
    std::fs::write(dir.path().join("switch.toml"), "game = \"maka-dai-dai\"\n[network]\npreset = \"tiny\"\n").unwrap();
    let (ok, _, err) = tengu(&[
        "train", "--run", &p(&dir.path().join("revival")), "--config", &p(&dir.path().join("switch.toml")), "--max-steps", "0",
    ]);
    assert!(!ok && err.contains(key) && err.contains("configures maka-dai-dai"), "{err}");
}
