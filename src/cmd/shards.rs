//! `tengu shards inspect`: headers, row counts and validity of replay shards.

use anyhow::{bail, Result};
use serde_json::json;
use tengu_selfplay::shard;

use crate::args::{ShardsArgs, ShardsInspectArgs, ShardsWhat};
use crate::output::outln;

pub fn run(args: ShardsArgs) -> Result<()> {
    match args.what {
        ShardsWhat::Inspect(a) => inspect(a),
    }
}

fn inspect(args: ShardsInspectArgs) -> Result<()> {
    let files = if args.path.is_dir() {
        shard::list(&args.path)?
    } else {
        vec![args.path.clone()]
    };
    if files.is_empty() {
        bail!(
            "{}: no shards (*.{}) here",
            args.path.display(),
            shard::EXTENSION
        );
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
                        json!({"path": file.display().to_string(), "valid": true, "format_version": shard::FORMAT_VERSION,
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
                        json!({"path": file.display().to_string(), "valid": false, "error": e.to_string()})
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
