//! `tengu play`: a game against tengu in the terminal.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use tengu_rules::{Color, Position};
use tengu_search::limits::Limits;

use crate::args::PlayArgs;

pub fn run(args: PlayArgs) -> Result<()> {
    let human = match args.color.as_str() {
        "black" | "b" | "sente" => Color::Black,
        "white" | "w" | "gote" => Color::White,
        other => bail!("--color {other:?}: expected black (moves first) or white"),
    };
    let variant = args.rules.variant(&args.game)?;
    let start = match &args.position {
        Some(text) if text.split('/').count() == variant.size() => {
            Position::parse_for(variant, text.trim()).context("invalid --position")?
        }
        Some(text) => Position::parse(text.trim()).context("invalid --position")?,
        None => Position::initial(variant),
    };
    let mut factory = args.engine.factory()?;
    // Its notice (a network of other rules, none at all) is in the log already.
    let mut player = factory(start.variant()).map_err(anyhow::Error::msg)?.player;
    let limits = Limits {
        time: (args.engine.visits.is_none())
            .then(|| Duration::from_millis(args.engine.movetime.max(1))),
        visits: args.engine.visits,
        ..Limits::default()
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    tengu_engine::terminal::play(
        stdin.lock(),
        &mut stdout,
        start,
        human,
        player.as_mut(),
        &limits,
        // The board names pieces as the moves do (Hodges), not as position text does.
        &tengu_rules::diagram::hodges_diagram,
    )?;
    Ok(())
}
