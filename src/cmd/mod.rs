pub mod moves;
pub mod perft;
pub mod show;

use anyhow::{bail, Context, Result};
use tengu_rules::{Position, Variant};

/// Game selection shared by the rules subcommands: `--game` or `--position`.
#[derive(clap::Args, Debug)]
pub struct PositionArgs {
    /// Game whose initial position is used: dai-dai or maka-dai-dai.
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    /// A position in RULES.md §12.2 notation (overrides --game's initial position).
    #[arg(long)]
    pub position: Option<String>,
}

impl PositionArgs {
    pub fn resolve(&self) -> Result<Position> {
        let variant = match Variant::builtin(&self.game) {
            Some(v) => v,
            None => bail!("unknown game {:?}; expected dai-dai or maka-dai-dai", self.game),
        };
        match &self.position {
            Some(text) => {
                let pos = Position::parse(text.trim()).context("invalid --position")?;
                if pos.variant().id() != variant.id() && self.game != "dai-dai" {
                    bail!("--position is a {} position, but --game is {}", pos.variant().name(), self.game);
                }
                Ok(pos)
            }
            None => Ok(Position::initial(variant)),
        }
    }
}
