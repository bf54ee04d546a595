use std::fmt::Write;

use crate::args::ShowArgs;
use crate::output::{out, outln};
use anyhow::{bail, Context, Result};
use tengu_rules::{Position, Record};

pub fn run(args: ShowArgs) -> Result<()> {
    match (&args.record, &args.position) {
        (Some(_), Some(_)) => bail!("give either --record or --position, not both"),
        (Some(path), None) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let record = Record::parse(&text)
                .with_context(|| format!("{} is not a valid game record", path.display()))?;
            let variant = record.game.start().variant();
            if let Some(game) = args.game.as_deref().filter(|g| *g != variant.id()) {
                bail!(
                    "--game {game}, but {} is a {} record ({}); leave --game out or give {}",
                    path.display(),
                    variant.name(),
                    variant.id(),
                    variant.id()
                );
            }
            let mismatch = record.result_mismatch();
            if let Some(m) = &mismatch {
                tracing::warn!("{}: {m}", path.display());
            }
            for (k, v) in &record.tags {
                outln!("{k}: {v}")?;
            }
            let mut pos = record.game.start().clone();
            let mut line = String::new();
            for (i, m) in record.game.moves().enumerate() {
                if i % 2 == 0 {
                    let _ = write!(line, "{}. ", i / 2 + 1);
                }
                let _ = write!(line, "{} ", pos.hodges(m));
                pos.play(m);
            }
            if !line.is_empty() {
                outln!("{}", line.trim_end())?;
            }
            if let Some(m) = &mismatch {
                outln!("Warning: {m}")?;
            }
            out!("{}", board_text(record.game.position()))?;
            qboard_fen(args.qboard_fen, record.game.position())?;
        }
        (None, _) => {
            let pos = crate::args::PositionArgs {
                game: args.game.clone(),
                position: args.position,
                rules: Default::default(),
            }
            .resolve()?;
            out!("{}", board_text(&pos))?;
            qboard_fen(args.qboard_fen, &pos)?;
        }
    }
    Ok(())
}

/// With `wanted`, the position's QBoard FEN on a line of its own.
fn qboard_fen(wanted: bool, pos: &Position) -> Result<()> {
    if wanted {
        let codes = tengu_engine::fen::QboardCodes::for_variant(pos.variant())
            .map_err(anyhow::Error::msg)?;
        outln!("{}", codes.to_fen(pos))?;
    }
    Ok(())
}

/// A board diagram (the one `tengu_rules::diagram` draws for every front end).
pub use tengu_rules::diagram::diagram as board_text;
