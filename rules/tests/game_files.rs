//! The game description files: the built-in ones match RULES.md's counts, and broken ones
//! are rejected with the file, the key and the problem.

use std::collections::{BTreeMap, BTreeSet};

use tengu_rules::{Color, Position, Variant};

fn setup_counts(v: &Variant) -> BTreeMap<String, usize> {
    let pos = Position::initial(std::sync::Arc::new(
        Variant::from_toml("x", &std::fs::read_to_string(path(v.id())).unwrap()).unwrap(),
    ));
    let mut counts = BTreeMap::new();
    for s in pos.squares_of(Color::Black) {
        let p = pos.piece_at(s).unwrap();
        *counts
            .entry(v.kinds()[v.piece_types()[p.ty].kind].code.clone())
            .or_insert(0) += 1;
    }
    counts
}

fn path(id: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../configs/games/{id}.toml"))
}

#[test]
fn dai_dai_matches_rules_md() {
    let v = Variant::dai_dai();
    assert_eq!(v.size(), 17);
    let counts = setup_counts(&v);
    assert_eq!(counts.values().sum::<usize>(), 96);
    assert_eq!(counts.len(), 64);
    assert_eq!(counts["P"], 17);
    assert_eq!(v.kinds().len(), 68, "64 setup kinds + FF GE MW WS");
    assert_eq!(
        v.kinds().iter().filter(|k| k.promotes_to.is_some()).count(),
        21
    );
    let royal: Vec<&str> = v
        .kinds()
        .iter()
        .filter(|k| k.royal)
        .map(|k| k.code.as_str())
        .collect();
    assert_eq!(royal, ["K"]);
    // White's army is Black's rotated by 180 degrees.
    let pos = Position::initial(v.clone());
    for s in pos.squares_of(Color::Black) {
        let rotated = tengu_rules::Square::new(16 - s.col(), 16 - s.row());
        let (b, w) = (pos.piece_at(s).unwrap(), pos.piece_at(rotated).unwrap());
        assert_eq!((b.ty, w.color), (w.ty, Color::White));
    }
}

#[test]
fn maka_dai_dai_matches_rules_md() {
    let v = Variant::maka_dai_dai();
    assert_eq!(v.size(), 19);
    let counts = setup_counts(&v);
    assert_eq!(counts.values().sum::<usize>(), 96);
    assert_eq!(counts.len(), 50);
    assert_eq!(counts["P"], 19);
    assert_eq!(v.kinds().len(), 76);
    let to_gold = v
        .kinds()
        .iter()
        .filter(|k| k.promotes_to.is_some_and(|p| v.kinds()[p].code == "G"))
        .count();
    let promoting = v.kinds().iter().filter(|k| k.promotes_to.is_some()).count();
    assert_eq!((to_gold, promoting - to_gold), (21, 26));
    let royal: BTreeSet<&str> = v
        .kinds()
        .iter()
        .filter(|k| k.royal)
        .map(|k| k.code.as_str())
        .collect();
    assert_eq!(royal, BTreeSet::from(["K", "EM", "PR"]));
    let contagious: BTreeSet<&str> = v
        .kinds()
        .iter()
        .filter(|k| k.contagion.is_some())
        .map(|k| k.code.as_str())
        .collect();
    assert_eq!(contagious, BTreeSet::from(["DV", "TK", "DS", "BS"]));
}

fn broken(replace: &str, with: &str) -> String {
    let text = std::fs::read_to_string(path("dai-dai")).unwrap();
    // Match at the start of a line, so that the schema comments are not what changes.
    let at = format!("\n{replace}");
    assert!(text.contains(&at), "{replace:?} not in the file");
    let text = text.replacen(&at, &format!("\n{with}"), 1);
    match Variant::from_toml("configs/games/dai-dai.toml", &text) {
        Ok(_) => panic!("replacing {replace:?} by {with:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn broken_files_are_rejected_with_file_key_and_problem() {
    let e = broken("size = 17", "size = 17\nsides = 2");
    assert!(
        e.starts_with("configs/games/dai-dai.toml: ") && e.contains("sides"),
        "{e}"
    );
    let e = broken("range = \"1 1 1 1 1 1 1 1\"", "range = \"1 1 1 1 1 1 1 x\"");
    assert!(
        e.contains("piece[0] (K).range") && e.contains("\"x\""),
        "{e}"
    );
    let e = broken("promotes_to = \"FF\"", "promotes_to = \"XX\"");
    assert!(e.contains("promotes_to") && e.contains("XX"), "{e}");
    let e = broken("hook = \"orthogonal\"", "hook = \"sideways\"");
    assert!(e.contains("(HM).hook") && e.contains("sideways"), "{e}");
    let e = broken("lion = true", "lion = 1");
    assert!(e.contains("configs/games/dai-dai.toml"), "{e}");
    let e = broken("    \"q: L LO", "    \"q: L XY");
    assert!(e.contains("setup.black") && e.contains("XY"), "{e}");
    let e = broken("promotion = \"mandatory\"", "promotion = \"never\"");
    assert!(e.contains("rules.promotion") && e.contains("never"), "{e}");
}

#[test]
fn files_on_disk_are_the_embedded_ones() {
    for id in ["dai-dai", "maka-dai-dai"] {
        let file = path(id);
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: cannot read: {e}", file.display()));
        let v = Variant::from_toml(&file.display().to_string(), &text).unwrap();
        assert_eq!(v.spec(), Variant::builtin(id).unwrap().spec());
    }
}

/// ARCHITECTURE.md: the rules crate does no I/O beyond parsing the text it is given (callers
/// read files); the built-in games are embedded at build time.
#[test]
fn the_rules_crate_reads_no_files() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let file = entry.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if [
                "std::fs",
                "std::io",
                "std::path",
                "File::",
                "read_to_string",
                "std::env",
            ]
            .iter()
            .any(|api| line.contains(api))
            {
                offenders.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "file I/O in the rules crate:\n{}",
        offenders.join("\n")
    );
}
