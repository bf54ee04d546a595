//! `tengu book` end to end: build from a fresh checkpoint, continue, survive SIGKILL, probe,
//! export, choose openings, refuse bad input by name.

use std::path::Path;
use std::process::Command;

mod common;
use common::{p, tengu};

/// `tengu book build` of a Dai Dai book from `ckpt` into `book`.
fn build_book(ckpt: &Path, book: &Path, positions: &str, visits: &str) -> (bool, String, String) {
    tengu(&[
        "book",
        "build",
        "--checkpoint",
        &p(ckpt),
        "--game",
        "dai-dai",
        "--out",
        &p(book),
        "--positions",
        positions,
        "--visits",
        visits,
        "--quiet",
    ])
}

/// A fresh (untrained) tiny Dai Dai checkpoint.
fn checkpoint(dir: &Path) -> std::path::PathBuf {
    common::step_zero(&common::tiny_run(dir, ""))
}

/// Clicks through the HTML book in headless Chromium (`scripts/browser-test.sh`, which
/// installs Chromium from Debian and playwright-core from npm on first use). Set
/// `TENGU_SKIP_BROWSER=1` to skip it on a machine where neither can be installed.
fn browser_test(html: &Path) {
    if std::env::var_os("TENGU_SKIP_BROWSER").is_some() {
        eprintln!("TENGU_SKIP_BROWSER is set: the HTML book is not checked in a browser");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser-test.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(html)
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains(" passed, 0 failed"),
        "browser test of the HTML book failed:\n{text}"
    );
}

#[test]
fn build_continue_probe_export_and_choose_openings() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = checkpoint(dir.path());
    let book = dir.path().join("dd.tbk");
    let build = |positions: &str, visits: &str| build_book(&ckpt, &book, positions, visits);
    let (ok, out, err) = build("20", "8");
    assert!(ok && out.contains("20 positions"), "{out}{err}");
    let (ok, out, err) = build("90", "8");
    assert!(ok && out.contains("90 positions (+70)"), "{out}{err}");
    // Other settings than the book's are refused by name.
    let (ok, _, err) = build("95", "16");
    assert!(
        !ok && err.contains("visits 8") && err.contains("16"),
        "{err}"
    );
    let (ok, _, err) = tengu(&[
        "book",
        "build",
        "--checkpoint",
        &p(&ckpt),
        "--game",
        "maka-dai-dai",
        "--out",
        &p(&dir.path().join("m.tbk")),
        "--positions",
        "5",
    ]);
    assert!(!ok && err.contains("maka-dai-dai"), "{err}");

    let (ok, out, err) = tengu(&["book", "info", &p(&book), "--json"]);
    assert!(ok, "{err}");
    let info: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(info["positions"], 90);
    assert!(info["max_ply"].as_u64().unwrap() >= 3, "{info}");
    assert_eq!(info["visits"], 8);

    // Probe the start, then the first book move's position by --moves.
    let (ok, out, err) = tengu(&["book", "probe", &p(&book), "--json"]);
    assert!(ok, "{err}");
    let probe: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let first = probe["moves"][0]["move"].as_str().unwrap().to_string();
    assert!(probe["moves"].as_array().unwrap().len() >= 2, "{probe}");
    assert_eq!(probe["ply"], 0);
    let (ok, out, err) = tengu(&["book", "probe", &p(&book), "--moves", &first]);
    assert!(ok && out.contains("ply 1, White to move"), "{out}{err}");
    let (ok, _, err) = tengu(&["book", "probe", &p(&book), "--moves", "1a>1b"]);
    assert!(
        !ok && err.contains("move 1") && err.contains("1a>1b"),
        "{err}"
    );

    // Exports.
    let jsonl = dir.path().join("dd.jsonl");
    let openings = dir.path().join("all.txt");
    let html = dir.path().join("html");
    let (ok, out, err) = tengu(&[
        "book",
        "export",
        &p(&book),
        "--jsonl",
        &p(&jsonl),
        "--openings",
        &p(&openings),
        "--html",
        &p(&html),
    ]);
    assert!(ok, "{out}{err}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 90);
    assert_eq!(lines[0]["path"].as_array().unwrap().len(), 0);
    assert!(html.join("index.html").exists());
    browser_test(&html);
    let text = std::fs::read_to_string(&openings).unwrap();
    assert!(text.lines().next().unwrap().starts_with("start"));

    // Balanced openings: a tiny untrained network's values are all near 0.5.
    let chosen = dir.path().join("balanced.txt");
    let (ok, out, err) = tengu(&[
        "book",
        "openings",
        &p(&book),
        "--count",
        "4",
        "--min-ply",
        "1",
        "--max-ply",
        "6",
        "--max-gap",
        "0.5",
        "--max-draw",
        "1",
        "--max-err",
        "1",
        "--out",
        &p(&chosen),
    ]);
    assert!(ok && out.contains("openings"), "{out}{err}");
    let text = std::fs::read_to_string(&chosen).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!lines.is_empty() && lines.len() <= 4, "{text}");
    // Each line replays: probing its moves finds the position in the book.
    for line in lines {
        let moves: Vec<&str> = line.split('#').next().unwrap().split_whitespace().collect();
        let mut args = vec!["book", "probe", book.to_str().unwrap(), "--moves"];
        args.extend(moves);
        let (ok, _, err) = tengu(&args);
        assert!(ok, "{line}: {err}");
    }

    // A damaged book is refused by name.
    let mut bytes = std::fs::read(&book).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    let bad = dir.path().join("bad.tbk");
    std::fs::write(&bad, &bytes).unwrap();
    let (ok, _, err) = tengu(&["book", "probe", &p(&bad)]);
    assert!(
        !ok && err.contains("bad.tbk") && err.contains("checksum"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn a_build_killed_at_any_moment_leaves_a_readable_book_that_continues() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = checkpoint(dir.path());
    let book = dir.path().join("k.tbk");
    for round in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args([
                "book",
                "build",
                "--checkpoint",
                &p(&ckpt),
                "--game",
                "dai-dai",
                "--out",
                &p(&book),
                "--minutes",
                "5",
                "--visits",
                "4",
                "--save-every",
                "1",
                "--quiet",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill at different moments of the loop (saves happen after every expansion).
        std::thread::sleep(std::time::Duration::from_millis(1500 + 370 * round));
        unsafe {
            libc::kill(child.id() as i32, libc::SIGKILL);
        }
        child.wait().unwrap();
        let (ok, out, err) = tengu(&["book", "info", &p(&book), "--json"]);
        assert!(ok, "round {round}: {err}");
        let info: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert!(info["positions"].as_u64().unwrap() >= 1);
    }
    // Temporary files of killed writers may remain; the book itself is whole.
    let (ok, out, err) = tengu(&["book", "probe", &p(&book)]);
    assert!(ok && out.contains("ply 0"), "{out}{err}");
}

/// `[arena] openings` is checked when `tengu run` starts: a bad file stops the run at once,
/// naming the key, the file and the line.
#[test]
fn a_bad_arena_openings_file_stops_tengu_run_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("open.txt");
    std::fs::write(&openings, "start\n1a>1b\n").unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        format!(
            "game = \"dai-dai\"\n[network]\npreset = \"tiny\"\n[arena]\nopenings = {:?}\n",
            p(&openings)
        ),
    )
    .unwrap();
    let (ok, _, err) = tengu(&[
        "run",
        "--config",
        &p(&config),
        "--run",
        &p(&dir.path().join("run")),
        "--max-steps",
        "0",
        "--quiet",
    ]);
    assert!(
        !ok && err.contains("arena.openings") && err.contains("open.txt") && err.contains("line 2"),
        "{err}"
    );
}

/// Bad arguments are refused by their flag before anything is written; a book without a
/// position is never written and never read; messages speak plain words (no `2..=4`, no
/// `stopped: Time`), and a probe off the book names its moves.
#[test]
fn book_commands_refuse_bad_arguments_by_flag_and_speak_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = checkpoint(dir.path());
    let book = dir.path().join("small.tbk");
    let build = |positions: &str| build_book(&ckpt, &book, positions, "4");
    // --positions 0 is refused by name and writes nothing (it used to panic and leave a
    // 528-byte book of no position that crashed `book info` and `book export`).
    let (ok, out, err) = build("0");
    assert!(!ok && err.contains("--positions 0"), "{out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!book.exists(), "a refused build wrote a book");
    let (ok, out, err) = build("6");
    assert!(
        ok && out.contains("6 positions") && out.contains("stopped: position limit"),
        "{out}{err}"
    );

    // A zero-position book file (from an older build) is refused by every reader by name.
    let v = tengu_rules::Variant::dai_dai();
    let header = tengu_book::BookHeader::new(
        &v,
        "x".into(),
        0,
        0,
        4,
        600,
        &tengu_search::SearchConfig::default(),
        1,
    );
    let empty = dir.path().join("empty.tbk");
    std::fs::write(
        &empty,
        tengu_book::file::to_bytes(&header, &tengu_book::graph::Graph::default(), &v),
    )
    .unwrap();
    let html = dir.path().join("html");
    let (empty, html_dir) = (p(&empty), p(&html));
    for args in [
        vec!["book", "info", &empty],
        vec!["book", "probe", &empty],
        vec!["book", "openings", &empty],
        vec!["book", "export", &empty, "--html", &html_dir],
    ] {
        let (ok, out, err) = tengu(&args);
        assert!(
            !ok && err.contains("empty.tbk") && err.contains("no position"),
            "{args:?}: {out}{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!html.exists(), "a refused export wrote pages");

    // Openings: impossible filters are refused by their flags.
    let openings = |extra: &[&str]| {
        let mut args = vec!["book", "openings", book.to_str().unwrap()];
        args.extend_from_slice(extra);
        tengu(&args)
    };
    let (ok, _, err) = openings(&["--count", "0"]);
    assert!(!ok && err.contains("--count 0"), "{err}");
    let (ok, _, err) = openings(&["--min-ply", "10", "--max-ply", "2"]);
    assert!(
        !ok && err.contains("--min-ply 10") && err.contains("--max-ply 2"),
        "{err}"
    );
    assert!(!err.contains("..="), "{err}");
    // With the defaults every position of this small book is refused twice: all are
    // shallower than --min-ply 2 (the root and its first replies), and with 4 visits every
    // error is far above --max-err 0.1. The message counts both and names the flags.
    let (ok, _, err) = openings(&[]);
    assert!(
        !ok && err.contains("6 by --min-ply 2 / --max-ply 24 (plies 2 to 24)")
            && err.contains("6 by --max-err 0.1"),
        "{err}"
    );
    assert!(!err.contains("..="), "{err}");
    // With the plies and the score gap open, the error cap alone keeps every position out:
    // the message says to raise --max-err.
    let (ok, _, err) = openings(&["--min-ply", "0", "--max-gap", "0.5"]);
    assert!(
        !ok && err.contains("6 by --max-err 0.1")
            && err.contains("raise --max-err (it alone keeps out 6)"),
        "{err}"
    );
    let chosen = dir.path().join("chosen.txt");
    let (ok, out, err) = openings(&[
        "--min-ply",
        "1",
        "--max-gap",
        "0.5",
        "--max-draw",
        "1",
        "--max-err",
        "1",
        "--out",
        chosen.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("plies 1 to "), "{out}{err}");
    assert!(!out.contains("..="), "{out}");

    // A probe off the book names the moves and where the line leaves the book.
    let (ok, out, _) = tengu(&["book", "probe", &p(&book), "--json"]);
    assert!(ok);
    let probe: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let first = probe["moves"][0]["move"].as_str().unwrap().to_string();
    let start = tengu_rules::Position::initial(v.clone());
    let mut after = start.clone();
    after.play(start.parse_move(&first).unwrap());
    // A reply that the tiny book does not hold (it has 6 positions).
    let loaded = tengu_book::Book::load(&book).unwrap();
    let off = after
        .legal_move_list()
        .into_iter()
        .find(|&m| {
            let mut next = after.clone();
            next.play(m);
            loaded.find(&next).is_none()
        })
        .map(|m| after.move_text(m))
        .expect("some reply is off the book");
    let (ok, _, err) = tengu(&["book", "probe", &p(&book), "--moves", &first, &off]);
    assert!(
        !ok && err.contains(&format!("--moves {first} {off}")) && err.contains("small.tbk"),
        "{err}"
    );
    assert!(!err.contains("key"), "{err}");
}
