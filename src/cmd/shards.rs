//! `tengu shards inspect`: headers, row counts and validity of replay shards.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::json;
use tengu_shard::{Row, ShardError, ShardHeader};
use tengu_store::layout;

use crate::args::{ShardsArgs, ShardsInspectArgs, ShardsWhat};
use crate::output::outln;

pub fn run(args: ShardsArgs) -> Result<()> {
    match args.what {
        ShardsWhat::Inspect(a) => inspect(a),
    }
}

/// Where the shards to inspect are.
enum Source {
    /// Shard files (a file given, or the shards of a plain directory).
    Files(Vec<PathBuf>),
    /// The shards of a run (a run directory or an object-store URL), by key.
    Run(tengu_store::RunStore, Vec<tengu_store::Entry>),
}

/// The shards to inspect: the file given, the shards of a directory, or the shards of a run
/// (a run directory's `shards/`, or a run URL such as `s3://bucket/runs/x`).
fn source(text: &str) -> Result<Source> {
    let path = Path::new(text);
    let is_url = text.contains("://");
    if !is_url && !path.exists() {
        bail!("{text}: no such file or directory");
    }
    if !is_url && !path.is_dir() {
        return Ok(Source::Files(vec![path.to_path_buf()]));
    }
    if !is_url && !path.join(layout::SHARDS).is_dir() {
        let here = tengu_shard::list(path)?;
        if here.is_empty() {
            bail!(
                "{text}: no shards (*.{}) here, and no {}/ (not a run directory)",
                layout::SHARD_EXTENSION,
                layout::SHARDS
            );
        }
        return Ok(Source::Files(here));
    }
    let store = crate::cmd::open_run(text)?;
    let shards = tengu_shard::list_run(&store)?;
    if shards.is_empty() {
        bail!(
            "run {text}: no shards (*.{}) in {}/ yet",
            layout::SHARD_EXTENSION,
            layout::SHARDS
        );
    }
    Ok(Source::Run(store, shards))
}

/// Reads one shard when called.
type Reader<'a> = Box<dyn Fn() -> Result<(ShardHeader, Vec<Row>), ShardError> + 'a>;

fn inspect(args: ShardsInspectArgs) -> Result<()> {
    let source = source(&args.path)?;
    let (run_name, items): (Option<String>, Vec<(String, Reader)>) = match &source {
        Source::Files(files) => (
            None,
            files
                .iter()
                .map(|f| {
                    let read: Reader = Box::new(move || tengu_shard::read(f));
                    (f.display().to_string(), read)
                })
                .collect(),
        ),
        Source::Run(store, entries) => (
            Some(store.display()),
            entries
                .iter()
                .map(|e| {
                    let read: Reader = Box::new(move || tengu_shard::fetch(store, &e.key));
                    (store.address_of(&e.key), read)
                })
                .collect(),
        ),
    };
    if let (Some(run), false) = (&run_name, args.json) {
        outln!("run {run}: {} shards in {}/", items.len(), layout::SHARDS)?;
    }
    let (mut good, mut bad, mut rows_total) = (0, 0, 0u64);
    for (shown, read) in &items {
        match read() {
            Ok((h, rows)) => {
                good += 1;
                rows_total += rows.len() as u64;
                let full = rows.iter().filter(|r| r.full_search).count();
                if args.json {
                    outln!(
                        "{}",
                        json!({"run": run_name, "path": shown, "valid": true, "format_version": tengu_shard::FORMAT_VERSION,
                            "encoder_version": h.encoder_version, "game": h.game, "model": h.model, "rows": h.rows,
                            "full_search_rows": full, "games": h.games, "created_unix": h.created_unix, "writer": h.writer})
                    )?;
                } else {
                    outln!(
                        "{}: ok, {} rows ({} full searches), {} games, game {}, model {}, encoder v{}, written by {} at {}",
                        shown, h.rows, full, h.games, h.game, h.model, h.encoder_version, h.writer, h.created_unix
                    )?;
                }
            }
            Err(e) => {
                bad += 1;
                if args.json {
                    outln!(
                        "{}",
                        json!({"run": run_name, "path": shown, "valid": false, "error": e.to_string()})
                    )?;
                } else {
                    outln!("{shown}: INVALID: {e}")?;
                }
            }
        }
    }
    if !args.json {
        outln!("{good} valid shards with {rows_total} rows, {bad} invalid")?;
    }
    if bad > 0 {
        bail!("{bad} invalid shard(s)");
    }
    Ok(())
}
