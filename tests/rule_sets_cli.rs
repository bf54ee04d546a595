//! Rule sets (RULES.md §8, docs/rules.md) from the command line and in files: `--option` and
//! `--rules` on perft, a run under the `japanese-revival` preset reaching its first
//! checkpoint with the rule set in the checkpoint's metadata, and checkpoints playing every
//! rule set of their game with one warning naming the options that differ, a checkpoint of
//! the other game refused by name.

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
    // QBoard's own counts (shared/research/qboard.md §4), under --option and --game keys.
    for (game, nodes) in [("dai-dai", "3463"), ("maka-dai-dai", "6084")] {
        let (ok, out, err) = tengu(&[
            "perft",
            "--game",
            game,
            "--option",
            "preset=qboard",
            "--depth",
            "2",
        ]);
        assert!(ok && out.contains(nodes), "{game}: {out}{err}");
    }
    let (ok, _, err) = tengu(&["perft", "--option", "OK=XYZ", "--depth", "1"]);
    assert!(
        !ok && err.contains("--option OK=XYZ") && err.contains("SRZ / WB2"),
        "{err}"
    );
    let (ok, _, err) = tengu(&["perft", "--option", "GBD=SRZ", "--depth", "1"]);
    assert!(!ok && err.contains("refused"), "{err}");
}

#[test]
fn a_japanese_revival_checkpoint_names_its_rule_set_and_plays_the_default_rules_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, rules: &str| {
        let config = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &config,
            format!("game = \"maka-dai-dai\"\n{rules}[network]\npreset = \"tiny\"\n"),
        )
        .unwrap();
        let run = dir.path().join(name);
        let (ok, _, err) = common::train_step_zero(&run, &config);
        assert!(ok, "{name}: {err}");
        run.join("models/model-000000000.safetensors")
    };
    let revival = make("revival", "[rules]\npreset = \"japanese-revival\"\n");
    let default = make("default", "");
    let key = "maka-dai-dai:CONTAGION_MDD=PROMOTED_ONLY,KIRIN_PHOENIX_MDD=CHU,FBR=SRZ,BB=JAPANESE_REVIVAL";
    let header = String::from_utf8_lossy(&std::fs::read(&revival).unwrap()[..4096]).to_string();
    assert!(header.contains(key), "{header}");
    let player = |c: &std::path::Path| format!("checkpoint:{}:2", p(c));
    // A match between the two plays under either rule set: the checkpoint of the other set
    // warns once, naming the options that differ and how its piece planes are read.
    let revival_text = "CONTAGION_MDD=PROMOTED_ONLY (not DEFAULT), KIRIN_PHOENIX_MDD=CHU (not DEFAULT), FBR=SRZ (not DEFAULT), BB=JAPANESE_REVIVAL (not DEFAULT)";
    let default_text = "CONTAGION_MDD=DEFAULT (not PROMOTED_ONLY), KIRIN_PHOENIX_MDD=DEFAULT (not CHU), FBR=DEFAULT (not SRZ), BB=DEFAULT (not JAPANESE_REVIVAL)";
    for (i, (rules, other, differ, planes)) in [
        (vec![], &revival, default_text, "it does not see +GD, +GBD"),
        (
            vec!["--option", "preset=japanese-revival"],
            &default,
            revival_text,
            "it reads +LN as LN, +Q as Q",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.path().join(format!("match-{i}"));
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
        assert!(ok, "{err}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("WARN")).collect();
        assert_eq!(warnings.len(), 1, "{err}");
        let name = other.file_name().unwrap().to_string_lossy();
        let trained = format!("{name} was trained under the rules");
        for part in [trained.as_str(), differ, planes] {
            assert!(warnings[0].contains(part), "{part}: {err}");
        }
        assert!(out.join("results.jsonl").exists());
    }
    // A run's configuration cannot switch its rule set.
    std::fs::write(
        dir.path().join("switch.toml"),
        "game = \"maka-dai-dai\"\n[network]\npreset = \"tiny\"\n",
    )
    .unwrap();
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&dir.path().join("revival")),
        "--config",
        &p(&dir.path().join("switch.toml")),
        "--max-steps",
        "0",
    ]);
    assert!(
        !ok && err.contains(key) && err.contains("configures maka-dai-dai"),
        "{err}"
    );
}

/// The Dai Dai rule set the tests below choose by flags, and its key.
const LO_EDO: &str = "dai-dai:LO=EDO";

#[test]
fn book_build_plays_any_rule_set_of_its_checkpoints_game_and_refuses_a_bad_option() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "[rules]\nLO = \"EDO\"\n");
    let checkpoint = common::step_zero(&run);
    let book = dir.path().join("edo.book");
    let build = |book: &std::path::Path, rules: &[&str]| {
        let mut args = vec![
            "book",
            "build",
            "--checkpoint",
            &p(&checkpoint),
            "--game",
            "dai-dai",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        args.extend(rules.iter().map(|s| s.to_string()));
        args.extend(
            [
                "--out",
                &p(book),
                "--positions",
                "2",
                "--visits",
                "2",
                "--quiet",
            ]
            .map(String::from),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        tengu(&args)
    };
    let (ok, _, err) = build(&book, &["--option", "LO=EDO"]);
    assert!(ok, "{err}");
    let (ok, out, err) = tengu(&["book", "info", &p(&book), "--json"]);
    assert!(
        ok && out.contains(&format!("\"game\":\"{LO_EDO}\"")),
        "{out}{err}"
    );
    // The same from a rules file.
    let file = dir.path().join("edo.toml");
    std::fs::write(&file, "LO = \"EDO\"\n").unwrap();
    let (ok, _, err) = build(&dir.path().join("file.book"), &["--rules", &p(&file)]);
    assert!(ok, "{err}");
    // Under the default rules the checkpoint plays too, with a warning naming the option;
    // the book is of the default rules.
    let default_book = dir.path().join("default.book");
    let (ok, _, err) = build(&default_book, &[]);
    assert!(ok && err.contains(&format!("trained under the rules {LO_EDO} and plays under dai-dai; they differ in LO=DEFAULT (not EDO)")), "{err}");
    let (ok, out, err) = tengu(&["book", "info", &p(&default_book), "--json"]);
    assert!(ok && out.contains("\"game\":\"dai-dai\""), "{out}{err}");
    // A bad option is refused by name, and writes no book.
    let refused = dir.path().join("refused.book");
    let (ok, _, err) = build(&refused, &["--option", "LO=NOWHERE"]);
    assert!(!ok && err.contains("--option LO=NOWHERE"), "{err}");
    assert!(
        !refused.exists(),
        "a refused build wrote {}",
        refused.display()
    );
}

#[test]
fn suite_make_labels_under_the_rule_set_of_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("edo.jsonl");
    let make = |out: &std::path::Path, option: &str| {
        tengu(&[
            "suite",
            "make",
            "--game",
            "dai-dai",
            "--option",
            option,
            "--count",
            "2",
            "--out",
            &p(out),
        ])
    };
    let (ok, out, err) = make(&suite, "LO=EDO");
    assert!(ok, "{out}{err}");
    let header = std::fs::read_to_string(&suite).unwrap();
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .contains(&format!("\"game\":\"{LO_EDO}\"")),
        "{header}"
    );
    let refused = dir.path().join("refused.jsonl");
    let (ok, _, err) = make(&refused, "LO");
    assert!(
        !ok && err.contains("--option LO") && err.contains("NAME=VALUE"),
        "{err}"
    );
    assert!(!refused.exists());
}

#[test]
fn bench_measures_under_the_rule_set_of_its_flags() {
    let (ok, out, err) = tengu(&[
        "bench",
        "teacher",
        "--option",
        "LO=EDO",
        "--positions",
        "1",
        "--depths",
        "1",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["game"], LO_EDO);
    // A refused set stops the bench before it writes anything to its run location.
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("store");
    let (ok, _, err) = tengu(&[
        "bench",
        "store",
        "--run",
        &p(&run),
        "--option",
        "OK=XYZ",
        "--shards",
        "1",
    ]);
    assert!(
        !ok && err.contains("--option OK=XYZ") && err.contains("valid values"),
        "{err}"
    );
    assert!(!run.exists());
}

/// `tengu xboard --alphabeta` with `args`, fed `protover 2` then `quit`: (success, stdout,
/// stderr).
fn xboard(args: &[&str]) -> (bool, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["xboard", "--alphabeta"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The engine may have refused its flags and gone already: a broken pipe is no error.
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(b"xboard\nprotover 2\nquit\n");
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn xboard_starts_its_engine_options_at_the_rule_set_of_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tsa.toml");
    std::fs::write(&file, "preset = \"tsa\"\nLEGALITY = \"PSEUDO_LEGAL\"\n").unwrap();
    let (ok, out, err) = xboard(&["--rules", &p(&file), "--option", "REPETITION=STRICT"]);
    assert!(ok, "{err}");
    assert!(out.contains("*tsa /// japanese-revival"), "{out}");
    assert!(
        out.contains(
            "feature option=\"Rule options -string LEGALITY=PSEUDO_LEGAL,REPETITION=STRICT\""
        ),
        "{out}"
    );
    // An option of one game only is accepted (it applies when that game is chosen); one
    // that applies to no game is refused before the engine starts.
    let (ok, out, err) = xboard(&["--option", "KIRIN_PHOENIX_MDD=CHU"]);
    assert!(
        ok && out.contains("-string KIRIN_PHOENIX_MDD=CHU"),
        "{out}{err}"
    );
    // The qboard preset, for QBoard's Rules combo (docs/rules.md).
    let (ok, out, err) = xboard(&["--option", "preset=qboard"]);
    assert!(
        ok && out.contains("japanese-revival /// *qboard"),
        "{out}{err}"
    );
    let (ok, out, err) = xboard(&["--option", "OK=XYZ"]);
    assert!(!ok && !out.contains("feature"), "{out}");
    assert!(
        err.contains("applies to no game") && err.contains("--option OK=XYZ"),
        "{err}"
    );
}

/// `tengu match` plays the shipped Dai Dai network under the `tsa` preset (it was trained
/// under the default rules) with one warning naming the options that differ, and refuses
/// the Maka Dai Dai network for Dai Dai Shogi by name.
#[test]
fn a_match_plays_a_checkpoint_under_another_rule_set_and_refuses_the_other_game() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let network = |name: &str| p(&root.join(format!("networks/{name}.safetensors")));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tsa");
    let (ok, stdout, err) = tengu(&[
        "match",
        &format!("checkpoint:{}:4", network("dai-dai")),
        "greedy",
        "--option",
        "preset=tsa",
        "--games",
        "2",
        "--max-plies",
        "12",
        "--out",
        &p(&out),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["games"], 2, "{v}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains(
            "dai-dai.safetensors was trained under the rules dai-dai and plays under \
             dai-dai:GE=TSA,FF=TSA,LD=TSA,NK=SRZ; they differ in GE=TSA (not DEFAULT), \
             FF=TSA (not DEFAULT), LD=TSA (not DEFAULT), NK=SRZ (not DEFAULT)"
        ),
        "{err}"
    );
    // The games are records of the tsa rule set.
    let record = std::fs::read_dir(out.join("games"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let text = std::fs::read_to_string(record.path()).unwrap();
    assert!(text.contains("GE=TSA"), "{text}");

    let (ok, _, err) = tengu(&[
        "match",
        &format!("checkpoint:{}:4", network("maka-dai-dai")),
        "greedy",
        "--option",
        "preset=tsa",
        "--games",
        "2",
    ]);
    assert!(!ok, "the other game's checkpoint played");
    assert!(
        err.contains("maka-dai-dai.safetensors: a checkpoint of maka-dai-dai (maka-dai-dai), but the game is dai-dai (dai-dai:GE=TSA"),
        "{err}"
    );
}

/// A run under the `sz` preset (no Great Elephant: one piece type less) starts from the
/// shipped Dai Dai network, trained under the default rules: one warning names the options
/// that differ, and its first checkpoint is of the run's rule set and input layout (it loads
/// under the run's rules with no warning).
#[test]
fn network_init_takes_a_network_of_another_rule_set_of_the_game() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sz.toml");
    let init = p(&root.join("networks/dai-dai.safetensors"));
    std::fs::write(
        &config,
        format!("game = \"dai-dai\"\n[rules]\npreset = \"sz\"\n[network]\ninit = \"{init}\"\n"),
    )
    .unwrap();
    let run = dir.path().join("sz");
    let (ok, _, err) = tengu(&[
        "train",
        "--run",
        &p(&run),
        "--config",
        &p(&config),
        "--max-steps",
        "0",
    ]);
    assert!(ok, "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("dai-dai.safetensors was trained under the rules dai-dai")
            && warnings[0].contains("LION_DOG_PROMOTES_DD=NO (not DEFAULT)"),
        "{err}"
    );
    let key = tengu_rules::RuleSet::preset("dai-dai", "sz")
        .unwrap()
        .canonical();
    let variant = tengu_rules::Variant::by_key(&key).unwrap();
    let first = run.join("models/model-000000000.safetensors");
    let meta = tengu_model::checkpoint::read_meta(&first).unwrap();
    assert_eq!(meta.game, key);
    let shipped =
        tengu_model::checkpoint::read_meta(&root.join("networks/dai-dai.safetensors")).unwrap();
    assert_eq!(meta.config.planes, shipped.config.planes - 2);
    assert!(tengu_model::checkpoint::OtherRules::of_file(&first, &key)
        .unwrap()
        .is_none());
    tengu_model::backend::check_planes(&first, &variant).unwrap();
}
