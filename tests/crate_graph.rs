//! The crate graph, read from the `Cargo.toml` files: only selfplay and the binary depend on
//! tengu-selfplay, only the binary and the Python package on tengu-run (not the trainer it
//! supervises), the engine and the book builder depend on tengu-search, the side-by-side
//! crates import none of each other, and `docs/crates.md` lists what the files say.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A package: its directory (`search`, or `src` for the binary) and the tengu crates it
/// depends on, per dependency table.
struct Crate {
    dir: String,
    name: String,
    /// `dependencies`, `dev-dependencies`, `build-dependencies` (also under `target.*`) ->
    /// the tengu packages named there.
    tables: BTreeMap<String, BTreeSet<String>>,
}

impl Crate {
    fn normal(&self) -> BTreeSet<String> {
        self.tables.get("dependencies").cloned().unwrap_or_default()
    }

    fn any(&self) -> BTreeSet<String> {
        self.tables.values().flatten().cloned().collect()
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_toml(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse::<toml::Table>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tengu_deps(table: Option<&toml::Value>) -> BTreeSet<String> {
    table
        .and_then(|t| t.as_table())
        .map(|t| {
            t.keys()
                .filter(|k| k.starts_with("tengu"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn package(dir: &str, manifest: &toml::Table) -> Crate {
    let name = manifest["package"]["name"].as_str().unwrap().to_string();
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables = BTreeMap::new();
    for kind in kinds {
        tables.insert(kind.to_string(), tengu_deps(manifest.get(kind)));
    }
    if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
        for (cfg, t) in targets {
            for kind in kinds {
                tables.insert(format!("target.{cfg}.{kind}"), tengu_deps(t.get(kind)));
            }
        }
    }
    Crate {
        dir: dir.to_string(),
        name,
        tables,
    }
}

/// Every workspace member, and the binary (`src`) last.
fn crates() -> Vec<Crate> {
    let workspace = read_toml(&root().join("Cargo.toml"));
    let members = workspace["workspace"]["members"].as_array().unwrap();
    let mut out: Vec<Crate> = members
        .iter()
        .map(|m| {
            let dir = m.as_str().unwrap();
            package(dir, &read_toml(&root().join(dir).join("Cargo.toml")))
        })
        .collect();
    out.push(package("src", &workspace));
    assert!(out.len() >= 11, "members: {members:?}");
    out
}

fn by_dir<'a>(crates: &'a [Crate], dir: &str) -> &'a Crate {
    crates
        .iter()
        .find(|c| c.dir == dir)
        .unwrap_or_else(|| panic!("no crate {dir}/ in the workspace"))
}

#[test]
fn only_selfplay_and_the_binary_depend_on_selfplay() {
    let crates = crates();
    assert_eq!(by_dir(&crates, "selfplay").name, "tengu-selfplay");
    for c in &crates {
        if c.dir == "selfplay" || c.dir == "src" {
            continue;
        }
        for (table, deps) in &c.tables {
            assert!(
                !deps.contains("tengu-selfplay"),
                "{}/Cargo.toml [{table}] depends on tengu-selfplay: only selfplay and the binary may",
                c.dir
            );
        }
    }
}

#[test]
fn only_the_binary_and_the_python_package_depend_on_the_run() {
    let crates = crates();
    assert_eq!(by_dir(&crates, "run").name, "tengu-run");
    assert!(
        by_dir(&crates, "run").normal().contains("tengu-trainer"),
        "run/Cargo.toml [dependencies] lacks tengu-trainer: the run is built on the trainer"
    );
    for c in &crates {
        if ["run", "src", "python"].contains(&c.dir.as_str()) {
            continue;
        }
        for (table, deps) in &c.tables {
            assert!(
                !deps.contains("tengu-run"),
                "{}/Cargo.toml [{table}] depends on tengu-run: only the binary and the Python package may (the trainer is below the run)",
                c.dir
            );
        }
    }
}

#[test]
fn the_engine_and_the_book_depend_on_search() {
    let crates = crates();
    for dir in ["engine", "book"] {
        assert!(
            by_dir(&crates, dir).normal().contains("tengu-search"),
            "{dir}/Cargo.toml [dependencies] lacks tengu-search"
        );
    }
}

#[test]
fn the_side_by_side_crates_import_none_of_each_other() {
    let crates = crates();
    let side = ["selfplay", "arena", "book", "engine"];
    let names: Vec<&str> = side
        .iter()
        .map(|d| by_dir(&crates, d).name.as_str())
        .collect();
    for dir in side {
        let c = by_dir(&crates, dir);
        for other in &names {
            assert!(
                *other == c.name || !c.any().contains(*other),
                "{dir}/Cargo.toml depends on {other}: selfplay, arena, book and engine meet in search and store"
            );
        }
    }
}

#[test]
fn docs_crates_md_lists_what_the_cargo_files_say() {
    let crates = crates();
    let doc_path = root().join("docs/crates.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    // Rows `| `dir/` | `package` | deps or none | job |`.
    let mut rows = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let dir = cells[1].trim_matches('`').trim_end_matches('/').to_string();
        let name = cells[2].trim_matches('`').to_string();
        let deps: BTreeSet<String> = if cells[3] == "none" {
            BTreeSet::new()
        } else {
            cells[3]
                .split(',')
                .map(|d| format!("tengu-{}", d.trim()))
                .collect()
        };
        assert!(
            rows.insert(dir.clone(), (name, deps)).is_none(),
            "docs/crates.md lists {dir}/ twice"
        );
    }
    let dirs: BTreeSet<&String> = crates.iter().map(|c| &c.dir).collect();
    assert_eq!(
        rows.keys().collect::<BTreeSet<_>>(),
        dirs,
        "docs/crates.md's table and the workspace list other crates"
    );
    for c in &crates {
        let (name, deps) = &rows[&c.dir];
        assert_eq!(name, &c.name, "docs/crates.md: the package of {}/", c.dir);
        assert_eq!(
            deps,
            &c.normal(),
            "docs/crates.md: the tengu dependencies of {}/ ({}/Cargo.toml [dependencies])",
            c.dir,
            c.dir
        );
    }
}
