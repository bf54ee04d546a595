//! The documentation stays inside the repository and agrees with the data (issue #54).
//!
//! - Every relative link of `README.md`, `docs/**/*.md` and `experiments/**/*.md` (markdown `[text](path)`,
//!   `![alt](path)`, reference definitions `[id]: path` and HTML `<img src="path">`) names a
//!   file or folder inside the repository that git does not ignore (so a clone has it), and
//!   an anchor (`path.md#heading`, `#heading`) names a heading of that page, spelt as GitHub
//!   spells heading anchors. Links with a scheme (`https:`, `mailto:`, ...) and links inside
//!   code spans and fenced code blocks are not checked.
//! - The rules pages list every piece kind of `configs/games/*.toml` with its range vector.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One link as written: the line it is on and its target.
#[derive(Debug)]
struct Link {
    line: usize,
    target: String,
}

/// The lines of a markdown text outside fenced code blocks, with code spans blanked out.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && trimmed.trim_start_matches(c).trim().is_empty() {
                    fence = None;
                }
                continue;
            }
            None => {
                if let Some(c) = ['`', '~'].into_iter().find(|&c| run(c) >= 3) {
                    fence = Some((c, run(c)));
                    continue;
                }
            }
        }
        out.push((i + 1, blank_code_spans(line)));
    }
    out
}

/// The line with every code span (a run of n backticks up to the next run of exactly n)
/// replaced by one space; an unclosed run is kept as it is.
fn blank_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.push(' ');
                i = end;
            }
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// The links of a markdown text.
fn links(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    for (line, prose) in prose_lines(text) {
        // Inline links and images: `](target)` or `](target "title")`, `](<target>)`.
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            if let Some(target) = inline_target(after) {
                out.push(Link { line, target });
            }
            rest = after;
        }
        // Reference definitions: `[id]: target`.
        let trimmed = prose.trim_start();
        if trimmed.starts_with('[') {
            if let Some(end) = trimmed.find("]:") {
                if !trimmed[1..end].contains(']') {
                    if let Some(target) = trimmed[end + 2..].split_whitespace().next() {
                        out.push(Link {
                            line,
                            target: target.trim_matches(|c| c == '<' || c == '>').to_string(),
                        });
                    }
                }
            }
        }
        // HTML images: `<img ... src="target" ...>`.
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("<img") {
            let tag = &rest[at..];
            let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
            if let Some(src) = tag.find("src=") {
                let value = &tag[src + 4..];
                if let Some(quote) = value.chars().next().filter(|&c| c == '"' || c == '\'') {
                    if let Some(end) = value[1..].find(quote) {
                        out.push(Link {
                            line,
                            target: value[1..1 + end].to_string(),
                        });
                    }
                }
            }
            rest = &rest[at + 4..];
        }
    }
    out
}

/// The target of an inline link from just after its `](`: up to the matching `)`, without a
/// title; `None` if the parenthesis never closes on the line.
fn inline_target(after: &str) -> Option<String> {
    if let Some(inner) = after.strip_prefix('<') {
        return inner.find('>').map(|end| inner[..end].to_string());
    }
    let mut depth = 0usize;
    for (i, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                let inside = after[..i].trim();
                return Some(inside.split_whitespace().next().unwrap_or("").to_string());
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn has_scheme(target: &str) -> bool {
    match target.find(':') {
        Some(colon) => {
            let scheme = &target[..colon];
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !target[..colon].contains('/')
        }
        None => false,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `path` relative to the repository root, resolved lexically; `None` if it leaves the root.
fn resolve(from_dir: &Path, path: &str) -> Option<PathBuf> {
    let joined = if let Some(abs) = path.strip_prefix('/') {
        PathBuf::from(abs)
    } else {
        from_dir.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// GitHub's anchor of a heading: lower case, inline markup dropped, every character but
/// letters, digits, spaces, `-` and `_` removed, spaces turned into `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    // Keep a link's text, drop its target.
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        text.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        rest = match after.find(')') {
            Some(end) => &after[end + 1..],
            None => "",
        };
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown page's headings (`-1`, `-2`, ... after repeats), and of any
/// `id="..."` / `name="..."` it sets in HTML.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fence: Option<(char, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        if let Some((c, n)) = fence {
            if run(c) >= n && trimmed.trim_start_matches(c).trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(c) = ['`', '~'].into_iter().find(|&c| run(c) >= 3) {
            fence = Some((c, run(c)));
            continue;
        }
        let level = run('#');
        if (1..=6).contains(&level) && trimmed[level..].starts_with(' ') {
            let heading = trimmed[level..].trim().trim_end_matches('#').trim();
            let base = slug(&heading.replace('`', ""));
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            });
            *n += 1;
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                let value = &rest[at + attr.len()..];
                if let Some(end) = value.find('"') {
                    out.insert(value[..end].to_string());
                }
                rest = &rest[at + attr.len()..];
            }
        }
    }
    out
}

/// The repository's files that a clone has or that git would add (tracked, or untracked and
/// not ignored), relative to the root; `None` without git.
fn git_files(root: &Path) -> Option<BTreeSet<PathBuf>> {
    let out = std::process::Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        out.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .collect(),
    )
}

/// The broken links of the markdown files `pages` (paths relative to `root`), one message each.
fn broken_links(root: &Path, pages: &[PathBuf], known: Option<&BTreeSet<PathBuf>>) -> Vec<String> {
    let mut problems = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        let dir = page.parent().unwrap_or(Path::new(""));
        for link in links(&text) {
            let at = format!("{}:{}: ({})", page.display(), link.line, link.target);
            let target = link.target.as_str();
            if target.is_empty() {
                problems.push(format!("{at}: empty link"));
                continue;
            }
            if has_scheme(target) {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target, None),
            };
            let resolved = if path.is_empty() {
                page.clone()
            } else {
                match resolve(dir, &percent_decode(path)) {
                    Some(p) => p,
                    None => {
                        problems.push(format!("{at}: leaves the repository"));
                        continue;
                    }
                }
            };
            let full = root.join(&resolved);
            if !full.exists() {
                problems.push(format!("{at}: {} does not exist", resolved.display()));
                continue;
            }
            if let Some(known) = known {
                let in_git = if full.is_dir() {
                    resolved.as_os_str().is_empty()
                        || known.iter().any(|f| f.starts_with(&resolved))
                } else {
                    known.contains(&resolved)
                };
                if !in_git {
                    problems.push(format!(
                        "{at}: {} is ignored by git, so a clone does not have it",
                        resolved.display()
                    ));
                    continue;
                }
            }
            if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
                if full.is_file() && resolved.extension().is_some_and(|e| e == "md") {
                    let text = std::fs::read_to_string(&full).unwrap();
                    if !anchors(&text).contains(&percent_decode(anchor)) {
                        problems.push(format!(
                            "{at}: {} has no heading #{anchor}",
                            resolved.display()
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// `README.md`, every `docs/**/*.md` and every `experiments/**/*.md`, relative to the root.
fn pages(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let rel = dir.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                walk(root, &rel, out);
            } else if rel.extension().is_some_and(|x| x == "md") {
                out.push(rel);
            }
        }
    }
    let mut out = vec![PathBuf::from("README.md")];
    walk(root, Path::new("docs"), &mut out);
    walk(root, Path::new("experiments"), &mut out);
    out
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves_inside_the_repository() {
    let root = root();
    let pages = pages(&root);
    assert!(pages.len() > 20, "found only {pages:?}");
    let known = git_files(&root);
    let problems = broken_links(&root, &pages, known.as_ref());
    assert!(
        problems.is_empty(),
        "{} broken link(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_checker_finds_broken_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs/sub")).unwrap();
    std::fs::write(
        root.join("docs/sub/there.md"),
        "# A heading, with `code`\n\ntext\n",
    )
    .unwrap();
    std::fs::write(root.join("docs/pic.png"), "png").unwrap();
    std::fs::write(
        root.join("README.md"),
        "# Top\n\
         [fine](docs/sub/there.md) [anchor](docs/sub/there.md#a-heading-with-code) [self](#top)\n\
         ![pic](docs/pic.png) <img src=\"docs/pic.png\" width=\"10\"> [web](https://example.com/x)\n\
         `[in code](nowhere.md)` [folder](docs/sub/)\n\
         ```\n[in a block](nowhere.md)\n```\n\
         [gone](docs/missing.md)\n\
         [outside](../elsewhere/RULES.md)\n\
         [bad anchor](docs/sub/there.md#no-such-heading)\n\
         <img src=\"docs/missing.png\">\n\
         [ref]: docs/also-missing.md\n",
    )
    .unwrap();
    let problems = broken_links(root, &[PathBuf::from("README.md")], None);
    let expected = [
        "README.md:8: (docs/missing.md): docs/missing.md does not exist",
        "README.md:9: (../elsewhere/RULES.md): leaves the repository",
        "README.md:10: (docs/sub/there.md#no-such-heading): docs/sub/there.md has no heading #no-such-heading",
        "README.md:11: (docs/missing.png): docs/missing.png does not exist",
        "README.md:12: (docs/also-missing.md): docs/also-missing.md does not exist",
    ];
    assert_eq!(problems, expected);
    // A file git ignores is missing from a clone.
    let known: BTreeSet<PathBuf> = ["docs/sub/there.md", "README.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let problems = broken_links(root, &[PathBuf::from("README.md")], Some(&known));
    assert!(
        problems
            .iter()
            .any(|p| p.contains("(docs/pic.png): docs/pic.png is ignored by git")),
        "{problems:?}"
    );
}

#[test]
fn heading_anchors_are_spelt_as_github_spells_them() {
    let text = "# §1 The board, the squares\n## `qboard`: QBoard's readings\n## Twice\n## Twice\n\
                ```\n# not a heading\n```\n### CPU inference: tengu's own kernels (issue #17)\n";
    let got = anchors(text);
    for a in [
        "1-the-board-the-squares",
        "qboard-qboards-readings",
        "twice",
        "twice-1",
        "cpu-inference-tengus-own-kernels-issue-17",
    ] {
        assert!(got.contains(a), "{a} not in {got:?}");
    }
    assert!(!got.contains("not-a-heading"));
}

/// The `code` and `range` of each `[[piece]]` of a game file.
fn piece_ranges(config: &str) -> Vec<(String, String)> {
    let value = |block: &str, key: &str| {
        block.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
        })
    };
    config
        .split("\n[[piece]]\n")
        .skip(1)
        .map(|block| {
            let block = block.split("\n[").next().unwrap();
            (
                value(block, "code").unwrap(),
                value(block, "range").unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_rules_pages_list_every_piece_kind_with_its_range() {
    let root = root();
    for (game, kinds) in [("dai-dai", 68), ("maka-dai-dai", 76)] {
        let config =
            std::fs::read_to_string(root.join(format!("configs/games/{game}.toml"))).unwrap();
        let page = std::fs::read_to_string(root.join(format!("docs/rules/{game}.md"))).unwrap();
        let pieces = piece_ranges(&config);
        assert_eq!(pieces.len(), kinds, "configs/games/{game}.toml");
        for (code, range) in pieces {
            let row = page
                .lines()
                .find(|l| l.starts_with(&format!("| `{code}` ")))
                .unwrap_or_else(|| panic!("docs/rules/{game}.md has no row for {code}"));
            assert!(
                row.contains(&format!("`{range}`")),
                "docs/rules/{game}.md: {code}'s row does not give its range `{range}` from configs/games/{game}.toml:\n{row}"
            );
        }
    }
}

/// The README stays a short guide with the two set-up commands near its top, and CI runs
/// exactly its test command.
#[test]
fn the_readme_is_short_and_ci_runs_its_test_command() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() < 150, "README.md has {} lines", lines.len());
    let run = "bash scripts/cargo.sh run --release -- run --config configs/run/dai-dai-cpu.toml";
    let test = "bash scripts/test.sh";
    for command in [run, test] {
        let at = lines.iter().position(|l| l.trim() == command);
        assert!(
            at.is_some_and(|i| i < 40),
            "README.md: `{command}` is not among its first 40 lines (at {at:?})"
        );
    }
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap();
    assert_eq!(
        last, test,
        ".ci/run does not end with the README's test command"
    );
    // The test command checks formatting and lints before it runs every test.
    let script = std::fs::read_to_string(root.join("scripts/test.sh")).unwrap();
    for step in [
        "cargo.sh fmt --all --check",
        "cargo.sh clippy --workspace --all-targets --quiet -- -D warnings",
        "cargo.sh test --workspace",
    ] {
        assert!(
            script.contains(step),
            "scripts/test.sh does not run `{step}`"
        );
    }
}
