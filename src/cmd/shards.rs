//! `tengu shards inspect`: headers, row counts and validity of replay shards.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde_json::json;
use tengu_model::desc::HeadId;
use tengu_shard::{Row, ShardError, ShardHeader};
use tengu_store::layout;

use crate::args::{ShardsArgs, ShardsInspectArgs, ShardsLossesArgs, ShardsWhat};
use crate::output::outln;

pub fn run(args: ShardsArgs) -> Result<()> {
    match args.what {
        ShardsWhat::Inspect(a) => inspect(a),
        ShardsWhat::Losses(a) => losses(a),
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

/// The run's display name (when the source is a run) and a reader per shard, shown by
/// path or address, in name order.
fn readers(source: &Source) -> (Option<String>, Vec<(String, Reader<'_>)>) {
    match source {
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
    }
}

fn inspect(args: ShardsInspectArgs) -> Result<()> {
    let source = source(&args.path)?;
    let (run_name, items) = readers(&source);
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

/// `tengu shards losses`: every checkpoint's losses on the same rows (evenly spread over all
/// rows of the shards), the value against the game result alone, as the trainer's held-out
/// losses are. An invalid shard, or one of another game, stops the command before any
/// checkpoint is measured.
fn losses(args: ShardsLossesArgs) -> Result<()> {
    let backend: tengu_model::Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let checkpoints = args
        .checkpoint
        .iter()
        .map(|c| super::checkpoint_file(c))
        .collect::<Result<Vec<_>>>()?;
    let metas = checkpoints
        .iter()
        .map(|c| Ok(tengu_model::checkpoint::read_meta(c)?))
        .collect::<Result<Vec<_>>>()?;
    let game = metas[0].game.clone();
    if let Some((c, m)) = checkpoints.iter().zip(&metas).find(|(_, m)| m.game != game) {
        bail!(
            "{}: a {} checkpoint, but {} is one of {game}: compare checkpoints of one game",
            c.display(),
            m.game,
            checkpoints[0].display()
        );
    }
    let Some(variant) = tengu_rules::Variant::builtin(&game) else {
        bail!(
            "{}: a checkpoint of an unknown game {game:?}",
            checkpoints[0].display()
        )
    };
    let source = source(&args.path)?;
    let (_, items) = readers(&source);
    let mut rows = Vec::new();
    for (shown, read) in &items {
        let (header, shard_rows) = read().map_err(|e| anyhow::anyhow!("{e}"))?;
        if header.game != game {
            bail!(
                "{shown}: a {} shard, the checkpoints are of {game}",
                header.game
            );
        }
        rows.extend(shard_rows);
    }
    let refs: Vec<&Row> = rows.iter().collect();
    let max_rows = args.rows as usize;
    // Each checkpoint's line is printed as soon as it is measured (seconds each), so long
    // lists show progress; the header follows the first measurement, which knows the rows'
    // results (every checkpoint is measured on the same rows, so the same results).
    for (k, (checkpoint, meta)) in checkpoints.iter().zip(&metas).enumerate() {
        tracing::info!(checkpoint = %checkpoint.display(), step = meta.step, "measuring");
        // A trainer computes the losses exactly as held-out losses are computed in training;
        // its learning rate is never used.
        let trainer = backend.trainer(&variant, &meta.config, Some(checkpoint), 1e-3, 0.0)?;
        let Some(l) =
            tengu_trainer::train::losses_on_rows(trainer.as_ref(), &refs, &variant, max_rows)?
        else {
            bail!("{}: no row fits the rules of {game}", args.path);
        };
        let entropy = l.result_entropy();
        if k == 0 && !args.json {
            let [wins, draws, losses] = l.results;
            outln!(
                "{} shards, {} rows; the measured rows' results (win/draw/loss {wins}/{draws}/{losses}) have entropy {entropy:.4}: a value loss near it predicts nothing",
                items.len(),
                rows.len(),
            )?;
        }
        if args.json {
            let mut line = json!({"checkpoint": checkpoint.display().to_string(), "step": meta.step, "rows": l.rows,
                "policy_loss": l.policy, "result_entropy": entropy,
                "labelled_rows": l.rows_with(HeadId::Residual)});
            // Every head's loss (`<head>_loss`) and the measured rows with its target.
            for head in tengu_model::desc::HEADS {
                let name = head.loss_name;
                line[format!("{name}_loss")] = json!(l.head(head.id));
                line[format!("{name}_rows")] = json!(l.rows_with(head.id));
            }
            outln!("{line}")?;
        } else {
            // No measured row with a policy target (NaN): nothing to report.
            let policy = if l.policy.is_nan() {
                "- (no row with a policy target)".to_string()
            } else {
                format!("{:.4}", l.policy)
            };
            // Each head's loss; a head none of whose rows had its target (the judge's, on
            // rows without a teacher label) says so. An untrained judge's loss is the
            // exchange count's own error against the teacher.
            let heads: Vec<String> = tengu_model::desc::HEADS
                .iter()
                .map(|head| {
                    let name = head.loss_name;
                    let (loss, rows) = (l.head(head.id), l.rows_with(head.id));
                    let shown = if head.id == HeadId::Value {
                        format!("{loss:.4} (against the result)")
                    } else if rows == 0 {
                        "- (no row with its target)".to_string()
                    } else if head.averages_over_rows_with_target() && rows < l.rows {
                        format!("{loss:.5} ({rows} rows with its target)")
                    } else {
                        format!("{loss:.4}")
                    };
                    format!("{name} {shown}")
                })
                .collect();
            outln!(
                "{}: step {}, {} rows: policy {policy}, {}",
                checkpoint.display(),
                meta.step,
                l.rows,
                heads.join(", ")
            )?;
        }
    }
    Ok(())
}
