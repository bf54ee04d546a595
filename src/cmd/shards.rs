//! `tengu shards inspect`: headers, row counts and validity of replay shards.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::json;
use tengu_selfplay::{run_dir, shard};

use crate::args::{ShardsArgs, ShardsInspectArgs, ShardsWhat};
use crate::output::outln;

pub fn run(args: ShardsArgs) -> Result<()> {
    match args.what {
        ShardsWhat::Inspect(a) => inspect(a),
    }
}

/// The shard files to inspect: the file given, the shards of a directory, or the shards of
/// a run directory (its `shards/`; the run is returned too).
fn shard_files(path: &Path) -> Result<(Vec<PathBuf>, Option<&Path>)> {
    if !path.is_dir() {
        return Ok((vec![path.to_path_buf()], None));
    }
    let here = shard::list(path)?;
    let run_shards = run_dir::shards(path);
    if !here.is_empty() || !run_shards.is_dir() {
        if here.is_empty() {
            bail!(
                "{}: no shards (*.{}) here, and no {} (not a run directory)",
                path.display(),
                shard::EXTENSION,
                run_shards.display()
            );
        }
        return Ok((here, None));
    }
    let files = shard::list(&run_shards)?;
    if files.is_empty() {
        bail!(
            "run {}: no shards (*.{}) in {} yet",
            path.display(),
            shard::EXTENSION,
            run_shards.display()
        );
    }
    Ok((files, Some(path)))
}

fn inspect(args: ShardsInspectArgs) -> Result<()> {
    let (files, run) = shard_files(&args.path)?;
    let run_name = run.map(|r| r.display().to_string());
    if let (Some(run), false) = (run, args.json) {
        outln!(
            "run {}: {} shards in {}",
            run.display(),
            files.len(),
            run_dir::shards(run).display()
        )?;
    }
    let (mut good, mut bad, mut rows_total) = (0, 0, 0u64);
    for file in &files {
        match shard::read(file) {
            Ok((h, rows)) => {
                good += 1;
                rows_total += rows.len() as u64;
                let full = rows.iter().filter(|r| r.full_search).count();
                if args.json {
                    outln!(
                        "{}",
                        json!({"run": run_name, "path": file.display().to_string(), "valid": true, "format_version": shard::FORMAT_VERSION,
                            "encoder_version": h.encoder_version, "game": h.game, "model": h.model, "rows": h.rows,
                            "full_search_rows": full, "games": h.games, "created_unix": h.created_unix, "writer": h.writer})
                    )?;
                } else {
                    outln!(
                        "{}: ok, {} rows ({} full searches), {} games, game {}, model {}, encoder v{}, written by {} at {}",
                        file.display(), h.rows, full, h.games, h.game, h.model, h.encoder_version, h.writer, h.created_unix
                    )?;
                }
            }
            Err(e) => {
                bad += 1;
                if args.json {
                    outln!(
                        "{}",
                        json!({"run": run_name, "path": file.display().to_string(), "valid": false, "error": e.to_string()})
                    )?;
                } else {
                    outln!("{}: INVALID: {e}", file.display())?;
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
