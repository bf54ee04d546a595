//! The module graph inside each crate, read from the source text as `crate_graph.rs` reads
//! the crates from the `Cargo.toml` files: no circle of imports between the modules (files)
//! of any workspace crate or of the binary.
//!
//! An arrow A -> B is a path in A's code (comments and string literals left out) that names
//! module B: `crate::b::..`, `super::..`, `self::..`, or a child module by its bare name, in
//! a `use` line or inline; a name that the crate root imports or re-exports
//! (`crate::Name` beside `pub use b::Name` in lib.rs) counts as B. The crate root (lib.rs,
//! main.rs) is the crate's face, no node: its `mod` and `use` lines declare, they import
//! nothing. A test module inside a file belongs to its file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Arrows that close a circle known on the day this test came, as (from, to) files. The test
/// leaves them out; an entry that no longer closes a circle fails the test, so it is removed
/// when the circle is.
const KNOWN_CIRCLES: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------------------
// Tokens: identifiers, `::` and single punctuation; comments, strings, characters,
// lifetimes and numbers leave nothing.

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

fn tokens(source: &str) -> Vec<Tok> {
    let c: Vec<char> = source.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(&c, i + 1);
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                // A character literal with an escape: past the escaped character, up to the
                // closing quote.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime or a label.
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (c[i].is_alphanumeric()
                    || c[i] == '_'
                    || c[i] == '.' && at(i + 1).is_ascii_digit())
            {
                i += 1;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let mut hashes = 0;
            while at(i + hashes) == '#' {
                hashes += 1;
            }
            let raw_string = matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"';
            match (word.as_str(), at(i)) {
                _ if raw_string => {
                    // A raw string `r#"..."#`: up to the quote followed by as many `#`.
                    i += hashes + 1;
                    while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#')) {
                        i += 1;
                    }
                    i += 1 + hashes;
                }
                ("r", '#') => {
                    // A raw identifier `r#name`.
                    i += 1;
                    let start = i;
                    while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                        i += 1;
                    }
                    out.push(Tok::Ident(c[start..i].iter().collect()));
                }
                ("b" | "c", '"') => i = skip_string(&c, i + 1),
                ("b", '\'') => {
                    i += 1;
                    if at(i) == '\\' {
                        i += 1;
                    }
                    i += 1;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                }
                _ => out.push(Tok::Ident(word)),
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// The index after the string whose opening quote precedes `i`.
fn skip_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() {
        match c[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

// ---------------------------------------------------------------------------------------
// One file read: the child modules it declares, and the paths it names.

/// A path as written, and the inline modules (`mod tests { .. }`) it stands in.
#[derive(Clone, Debug)]
struct Named {
    inline: Vec<String>,
    path: Vec<String>,
    /// A `use` line's leaf (a bare first segment there is relative to the module).
    in_use: bool,
}

#[derive(Debug, Default)]
struct FileRead {
    /// `mod name;` at the file's top level.
    children: Vec<String>,
    named: Vec<Named>,
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

fn read_file(source: &str) -> FileRead {
    let t = tokens(source);
    let mut read = FileRead::default();
    let mut depth = 0usize;
    // Inline modules open around the current token: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    // A `#[path = ".."]` module is a file from outside the crate's folders (the fuzz targets
    // compile `rules/tests/reference/`): no module of this crate's graph.
    let mut path_attribute = false;
    let mut i = 0;
    while i < t.len() {
        if t[i] == Tok::Ident("path".into()) && i > 0 && t[i - 1] == Tok::Punct('[') {
            path_attribute = true;
        }
        match &t[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(t.get(i + 1)) {
                    match t.get(i + 2) {
                        Some(Tok::Punct(';')) if inline.is_empty() && !path_attribute => {
                            read.children.push(name.into())
                        }
                        Some(Tok::Punct('{')) => {
                            inline.push((name.into(), depth + 1));
                        }
                        _ => {}
                    }
                    path_attribute = false;
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" => {
                let mut j = i + 1;
                if t.get(j) == Some(&Tok::Sep) {
                    j += 1;
                }
                let mut leaves = Vec::new();
                j = use_tree(&t, j, &mut Vec::new(), &mut leaves);
                while j < t.len() && t[j] != Tok::Punct(';') {
                    j += 1;
                }
                let names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
                for path in leaves {
                    read.named.push(Named {
                        inline: names.clone(),
                        path,
                        in_use: true,
                    });
                }
                i = j;
                continue;
            }
            Tok::Ident(first)
                if (i == 0 || t[i - 1] != Tok::Sep) && t.get(i + 1) == Some(&Tok::Sep) =>
            {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while t.get(j) == Some(&Tok::Sep) {
                    match ident(t.get(j + 1)) {
                        Some(s) => path.push(s.into()),
                        None => break,
                    }
                    j += 2;
                }
                read.named.push(Named {
                    inline: inline.iter().map(|(n, _)| n.clone()).collect(),
                    path,
                    in_use: false,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    read
}

/// Reads the use tree at `i` under `prefix` into `leaves` (`a::{b, c::*}` gives `[a, b]` and
/// `[a, c]`; `self` in a group is the group's prefix); returns the index after it.
fn use_tree(
    t: &[Tok],
    mut i: usize,
    prefix: &mut Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) -> usize {
    let base = prefix.len();
    loop {
        match t.get(i) {
            Some(Tok::Ident(s)) => {
                i += 1;
                if t.get(i) == Some(&Tok::Sep) {
                    prefix.push(s.clone());
                    i += 1;
                    continue;
                }
                if s != "self" {
                    prefix.push(s.clone());
                }
                leaves.push(prefix.clone());
                if ident(t.get(i)) == Some("as") {
                    i += 2;
                }
            }
            Some(Tok::Punct('*')) => {
                leaves.push(prefix.clone());
                i += 1;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                while let Some(tok) = t.get(i) {
                    match tok {
                        Tok::Punct('}') => {
                            i += 1;
                            break;
                        }
                        Tok::Punct(',') => i += 1,
                        _ => {
                            let next = use_tree(t, i, prefix, leaves);
                            i = next.max(i + 1);
                        }
                    }
                }
            }
            _ => {}
        }
        break;
    }
    prefix.truncate(base);
    i
}

// ---------------------------------------------------------------------------------------
// A crate's modules and the arrows between them.

/// The arrows between a crate's files: (from, to) -> the names `from` takes from `to` (the
/// path after the module's, or the module's own name).
#[derive(Debug, Default)]
struct Graph {
    files: BTreeSet<String>,
    arrows: BTreeMap<(String, String), BTreeSet<String>>,
}

/// A module: its file and what the file says.
struct Module {
    file: String,
    read: FileRead,
}

/// The module graph of the crate whose root file is `root` (`search/src/lib.rs`); `read`
/// gives a file's text by its path from the repository root (`None`: no such file).
fn module_graph(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Graph {
    let text = |file: &str| read(file).unwrap_or_else(|| panic!("{file}: cannot read it"));
    let root_read = read_file(&text(root));
    let root_dir = root.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    // Module path -> its file; children are found in `dir/name.rs` or `dir/name/mod.rs`.
    let mut modules: BTreeMap<Vec<String>, Module> = BTreeMap::new();
    let mut queue: Vec<(Vec<String>, String, Vec<String>)> =
        vec![(Vec::new(), root_dir, root_read.children.clone())];
    while let Some((path, dir, children)) = queue.pop() {
        for name in children {
            let file = [format!("{dir}/{name}.rs"), format!("{dir}/{name}/mod.rs")]
                .into_iter()
                .find(|f| read(f).is_some())
                .unwrap_or_else(|| panic!("{dir}: `mod {name};` has no file"));
            let child_read = read_file(&text(&file));
            let mut child = path.clone();
            child.push(name.clone());
            queue.push((
                child.clone(),
                format!("{dir}/{name}"),
                child_read.children.clone(),
            ));
            modules.insert(
                child,
                Module {
                    file,
                    read: child_read,
                },
            );
        }
    }
    // What the root imports or re-exports, by the name it gives: `pub use store::Entry` makes
    // `crate::Entry` a name of `store`.
    let mut root_names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for named in root_read.named.iter().filter(|n| n.in_use) {
        if let Some(absolute) = absolute(named, &[], &root_read.children) {
            if let Some(last) = absolute.last() {
                root_names.insert(last.clone(), absolute);
            }
        }
    }
    let mut graph = Graph::default();
    for (path, module) in &modules {
        graph.files.insert(module.file.clone());
        for named in &module.read.named {
            let Some(absolute) = absolute(named, path, &module.read.children) else {
                continue;
            };
            let Some((target, names)) = target(&absolute, &modules, &root_names, 0) else {
                continue;
            };
            let to = &modules[&target].file;
            if *to != module.file {
                graph
                    .arrows
                    .entry((module.file.clone(), to.clone()))
                    .or_default()
                    .insert(names);
            }
        }
    }
    graph
}

/// The path from the crate root that `named` (in the module `module`, whose child modules
/// are `children`) starts with; `None` for a path outside the crate (`std::`, `tengu_rules::`,
/// a type's `Self::`).
fn absolute(named: &Named, module: &[String], children: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.iter().chain(&named.inline).cloned().collect();
    let path = &named.path;
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => {
            base.extend_from_slice(&path[1..]);
            Some(base)
        }
        "super" => {
            let up = path.iter().take_while(|s| *s == "super").count();
            base.truncate(base.len().checked_sub(up)?);
            base.extend_from_slice(&path[up..]);
            Some(base)
        }
        _ if named.inline.is_empty() && children.contains(first) => {
            base.extend_from_slice(path);
            Some(base)
        }
        _ => None,
    }
}

/// The module that `absolute` names (its longest prefix that is a module, or a name the
/// root imports), and the rest of the path as the name taken; `None` for the root itself.
fn target(
    absolute: &[String],
    modules: &BTreeMap<Vec<String>, Module>,
    root_names: &BTreeMap<String, Vec<String>>,
    depth: usize,
) -> Option<(Vec<String>, String)> {
    if let Some(k) = (1..=absolute.len())
        .rev()
        .find(|&k| modules.contains_key(&absolute[..k]))
    {
        let rest = &absolute[k..];
        let names = if rest.is_empty() {
            absolute[k - 1].clone()
        } else {
            rest.join("::")
        };
        return Some((absolute[..k].to_vec(), names));
    }
    let imported = root_names.get(absolute.first()?)?;
    if depth > 4 {
        return None;
    }
    let mut through: Vec<String> = imported.clone();
    through.extend_from_slice(&absolute[1..]);
    target(&through, modules, root_names, depth + 1)
}

// ---------------------------------------------------------------------------------------
// Circles: the strongly connected components of more than one file.

fn circles(graph: &Graph) -> Vec<BTreeSet<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in graph.arrows.keys() {
        next.entry(from).or_default().push(to);
    }
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(f) = stack.pop() {
            for &t in next.get(f).into_iter().flatten() {
                if seen.insert(t.to_string()) {
                    stack.push(t);
                }
            }
        }
        seen
    };
    // Files each reaches; a circle is the files that reach a file and that it reaches.
    let reaches: BTreeMap<&str, BTreeSet<String>> =
        graph.files.iter().map(|f| (f.as_str(), reach(f))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (&file, reached) in &reaches {
        if !reached.contains(file) || out.iter().any(|c| c.contains(file)) {
            continue;
        }
        let circle: BTreeSet<String> = reached
            .iter()
            .filter(|other| reaches[other.as_str()].contains(file))
            .cloned()
            .collect();
        out.push(circle);
    }
    out
}

/// One circle as text: a loop through it (`a -> b -> a`), then every arrow inside it with
/// the names taken.
fn describe(graph: &Graph, circle: &BTreeSet<String>) -> String {
    let inside = |(from, to): &(String, String)| circle.contains(from) && circle.contains(to);
    // The shortest way back to the first file, breadth first.
    let first = circle.iter().next().expect("a file");
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut frontier = vec![first.as_str()];
    'search: while !frontier.is_empty() {
        let mut further = Vec::new();
        for f in frontier {
            for (from, to) in graph.arrows.keys().filter(|a| inside(a) && a.0 == f) {
                if !came_from.contains_key(to.as_str()) {
                    came_from.insert(to, from);
                    if to == first {
                        break 'search;
                    }
                    further.push(to.as_str());
                }
            }
        }
        frontier = further;
    }
    let mut lap = vec![first.as_str()];
    let mut at = came_from[first.as_str()];
    while at != first {
        lap.push(at);
        at = came_from[at];
    }
    lap.push(first);
    lap.reverse();
    let mut text = format!("circle of {} files: {}\n", circle.len(), lap.join(" -> "));
    for (arrow, names) in graph.arrows.iter().filter(|(a, _)| inside(a)) {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        text += &format!("  {} -> {}: {}\n", arrow.0, arrow.1, names.join(", "));
    }
    text
}

// ---------------------------------------------------------------------------------------
// The workspace.

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_repository_file(file: &str) -> Option<String> {
    std::fs::read_to_string(repository().join(file)).ok()
}

/// The root file of every workspace member and of the binary.
fn crate_roots() -> Vec<String> {
    let text = read_repository_file("Cargo.toml").expect("Cargo.toml");
    let workspace: toml::Table = text.parse().expect("Cargo.toml parses");
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("workspace members");
    let mut roots: Vec<String> = members
        .iter()
        .map(|m| format!("{}/src/lib.rs", m.as_str().expect("a member's directory")))
        .collect();
    roots.push("src/lib.rs".into());
    assert!(roots.len() >= 12, "members: {members:?}");
    roots
}

/// Every `.rs` file under `dir`, its path from the repository root.
fn rust_files(dir: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_string()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(repository().join(&d)).expect(&d) {
            let name = entry.expect(&d).file_name().to_string_lossy().into_owned();
            let path = format!("{d}/{name}");
            if repository().join(&path).is_dir() {
                stack.push(path);
            } else if name.ends_with(".rs") {
                out.insert(path);
            }
        }
    }
    out
}

#[test]
fn no_crate_has_an_import_circle_between_its_modules() {
    let known: BTreeSet<(String, String)> = KNOWN_CIRCLES
        .iter()
        .map(|&(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut found = String::new();
    let mut known_seen = BTreeSet::new();
    for root in crate_roots() {
        let mut graph = module_graph(&root, &read_repository_file);
        for circle in circles(&graph) {
            for arrow in known
                .iter()
                .filter(|(a, b)| circle.contains(a) && circle.contains(b))
            {
                if graph.arrows.contains_key(arrow) {
                    known_seen.insert(arrow.clone());
                }
            }
        }
        graph.arrows.retain(|arrow, _| !known.contains(arrow));
        for circle in circles(&graph) {
            found += &format!("{root}: {}", describe(&graph, &circle));
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other (put what both need in a module below them):\n{found}"
    );
    let stale: Vec<_> = known.difference(&known_seen).collect();
    assert!(
        stale.is_empty(),
        "KNOWN_CIRCLES lists arrows that close no circle any more: remove them: {stale:?}"
    );
}

#[test]
fn every_file_of_every_crate_is_read() {
    for root in crate_roots() {
        let graph = module_graph(&root, &read_repository_file);
        let src = root.rsplit_once('/').expect("a directory").0;
        let mut unread = rust_files(src);
        unread.remove(&root);
        // The binary's root beside the library's: it only calls the library.
        unread.remove(&format!("{src}/main.rs"));
        for file in &graph.files {
            unread.remove(file);
        }
        assert!(
            unread.is_empty(),
            "{root}: files no `mod` line reaches, so the module graph does not see them: {unread:?}"
        );
    }
}

#[test]
fn a_circle_is_found_through_every_kind_of_path_and_printed() {
    let files: BTreeMap<&str, &str> = BTreeMap::from([
        (
            "c/src/lib.rs",
            "mod a;\npub mod b;\nmod c;\nmod d;\npub use d::Thing;\n",
        ),
        (
            "c/src/a.rs",
            "use crate::{b::{self, B}};\n// crate::c::C\nconst S: &str = \"crate::c::C\";\n\
             const Q: char = '\"'; fn g<'a>(x: &'a str) {}\n",
        ),
        ("c/src/b.rs", "pub struct B;\nfn f() { super::a::g(); }\n"),
        (
            "c/src/c.rs",
            "fn h() -> crate::Thing { todo!() }\n\
             #[cfg(test)]\nmod tests {\n    use super::super::d::*;\n}\n",
        ),
        (
            "c/src/d.rs",
            "pub struct Thing;\nfn own() -> self::Thing { Thing }\n",
        ),
    ]);
    let graph = module_graph("c/src/lib.rs", &|f| files.get(f).map(|s| s.to_string()));
    let arrows: BTreeSet<(&str, &str)> = graph
        .arrows
        .keys()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        arrows,
        BTreeSet::from([
            ("c/src/a.rs", "c/src/b.rs"),
            ("c/src/b.rs", "c/src/a.rs"),
            ("c/src/c.rs", "c/src/d.rs"),
        ])
    );
    let found = circles(&graph);
    assert_eq!(found.len(), 1);
    let text = describe(&graph, &found[0]);
    assert!(
        text.starts_with("circle of 2 files: c/src/a.rs -> c/src/b.rs -> c/src/a.rs\n"),
        "{text}"
    );
    assert!(text.contains("  c/src/b.rs -> c/src/a.rs: g\n"), "{text}");
    assert!(
        text.contains("  c/src/a.rs -> c/src/b.rs: B, b\n"),
        "{text}"
    );
}
