//! The networks the play page offers, as opponents and for analysis: the run's committed
//! checkpoints (newest first), the `--checkpoint`s of the command line, then the networks
//! shipped with tengu (`networks/`). Each plays every rule set of its game.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use serde_json::{json, Value};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::limits::Limits;
use tengu_search::players::{Player, PlayerSpec};
use tengu_store::{layout, Location};

use super::super::view::Readable;
use super::error::PlayError;

/// Visits a move of a network opponent when the request names none (`tengu match`'s
/// default for a checkpoint player).
pub const DEFAULT_VISITS: u32 = 64;

/// A network the page may name by its `id`.
#[derive(Clone, Debug)]
pub struct Network {
    /// `run:<step>`, `file:<n>` (the n-th `--checkpoint`, from 1) or `shipped:<name>`.
    pub id: String,
    pub label: String,
    /// The game it plays (`dai-dai`, `maka-dai-dai`), under any of its rule sets.
    pub game: String,
    source: Source,
}

#[derive(Clone, Debug)]
enum Source {
    /// A committed checkpoint of the run: its weights' key.
    Run(String),
    File(PathBuf),
    /// The network shipped for the game (chosen for the playing rules when it loads).
    Shipped,
}

/// The `--checkpoint`s, read once at the start.
pub struct Given {
    files: Vec<(PathBuf, String, u64)>,
}

impl Given {
    /// Reads each checkpoint's game and step; one that cannot be read is an error.
    pub fn read(paths: &[PathBuf]) -> anyhow::Result<Given> {
        let mut files = Vec::new();
        for path in paths {
            let local = crate::cmd::checkpoint_file(path)?;
            let meta = tengu_model::checkpoint::read_meta(&local)
                .with_context(|| format!("--checkpoint {}", path.display()))?;
            files.push((
                local,
                tengu_model::checkpoint::game_of(&meta.game),
                meta.step,
            ));
        }
        Ok(Given { files })
    }
}

/// The networks offered now.
pub fn offered(readable: &Readable, location: &Location, given: &Given) -> Vec<Network> {
    let mut out = Vec::new();
    if let Some(game) = &readable.game {
        let mut steps: Vec<u64> = readable
            .checkpoints
            .iter()
            .filter_map(|key| {
                layout::checkpoint_step(key).filter(|&s| layout::weights_key(s) == *key)
            })
            .collect();
        steps.sort_unstable_by(|a, b| b.cmp(a));
        let run = location.display();
        for step in steps {
            out.push(Network {
                id: format!("run:{step}"),
                label: format!("{run} step {step}"),
                game: tengu_model::checkpoint::game_of(game),
                source: Source::Run(layout::weights_key(step)),
            });
        }
    }
    for (i, (path, game, step)) in given.files.iter().enumerate() {
        out.push(Network {
            id: format!("file:{}", i + 1),
            label: format!(
                "{} step {step}",
                path.file_name().unwrap_or_default().to_string_lossy()
            ),
            game: game.clone(),
            source: Source::File(path.clone()),
        });
    }
    match crate::networks::manifest() {
        Ok(manifest) => out.extend(manifest.networks.iter().map(|n| Network {
            id: format!("shipped:{}", n.name),
            label: format!("shipped {} step {}", n.name, n.step),
            game: n.game.clone(),
            source: Source::Shipped,
        })),
        Err(e) => tracing::warn!("play: no shipped networks offered: {e:#}"),
    }
    out
}

/// The network an analysis of `variant` uses when the request names none: the first
/// offered that plays its game.
pub fn default_for(offered: Vec<Network>, variant: &Variant) -> Option<Network> {
    offered.into_iter().find(|n| n.game == variant.game())
}

impl Network {
    pub fn json(&self) -> Value {
        json!({"id": self.id, "label": self.label, "game": self.game})
    }

    /// Refuses (naming `field`) a network of another game than `variant`'s.
    pub fn check_game(&self, variant: &Variant, field: &'static str) -> Result<(), PlayError> {
        if self.game == variant.game() {
            return Ok(());
        }
        Err(PlayError::field(
            field,
            format!(
                "{} plays {}, the game is {}",
                self.label,
                self.game,
                variant.game()
            ),
        ))
    }

    /// The checkpoint as a local file (a run on an object store: fetched into the cache
    /// once); `None` for a shipped network, which its game's loader finds.
    pub fn local_file(&self, location: &Location) -> anyhow::Result<Option<PathBuf>> {
        Ok(match &self.source {
            Source::Run(key) => Some(match location {
                Location::Local(dir) => dir.join(key),
                Location::Url(url) => crate::cmd::checkpoint_file(Path::new(&format!(
                    "{}/{key}",
                    url.trim_end_matches('/')
                )))?,
            }),
            Source::File(path) => Some(path.clone()),
            Source::Shipped => None,
        })
    }
}

/// Who the page plays against.
pub enum Opponent {
    /// Alpha-beta to `depth` plies, at most `ms` a move.
    AlphaBeta { depth: u32, ms: u64 },
    /// MCTS with `network`, `visits` a move, or for `ms` a move, or whichever ends first
    /// when both are given (neither: [`DEFAULT_VISITS`]).
    Network {
        network: Network,
        visits: Option<u32>,
        ms: Option<u64>,
    },
}

/// A player, what the page calls it and the limits of each of its moves.
pub struct Built {
    pub player: Box<dyn Player>,
    pub label: String,
    pub limits: Limits,
}

impl Opponent {
    /// The player (a network loads here: call it off the async threads) and what the page
    /// calls it. Built as `tengu match` builds its players.
    pub fn player(
        self,
        variant: &Arc<Variant>,
        backend: Backend,
        location: &Location,
        seed: u64,
    ) -> Result<Built, PlayError> {
        let search = crate::cmd::CheckpointSearch::from_flags(None, None, None)
            .map_err(|e| PlayError::Unavailable(format!("{e:#}")))?;
        let (spec, label, limits) = match self {
            Opponent::AlphaBeta { depth, ms } => (
                PlayerSpec::AlphaBeta { ms, depth },
                format!("alpha-beta depth {depth} (at most {} a move)", seconds(ms)),
                Limits::default(),
            ),
            Opponent::Network {
                network,
                visits,
                ms,
            } => {
                let unavailable =
                    |e: anyhow::Error| PlayError::Unavailable(format!("{}: {e:#}", network.label));
                let path = match network.local_file(location).map_err(unavailable)? {
                    Some(path) => path,
                    None => crate::networks::for_variant(variant)
                        .and_then(|s| s.context("no network is shipped for the game")?.file())
                        .map_err(unavailable)?,
                };
                // Without a time the player's own visits apply; with one, the move's
                // limits say the time and the visits asked for, if any.
                let budget = match (visits, ms) {
                    (visits, None) => format!("{} visits", visits.unwrap_or(DEFAULT_VISITS)),
                    (None, Some(ms)) => seconds(ms),
                    (Some(visits), Some(ms)) => format!("{visits} visits or {}", seconds(ms)),
                };
                (
                    PlayerSpec::Checkpoint {
                        path: path.display().to_string(),
                        visits: visits.unwrap_or(DEFAULT_VISITS),
                    },
                    format!("{} at {budget} a move", network.label),
                    Limits {
                        time: ms.map(Duration::from_millis),
                        visits: ms.and(visits),
                        ..Limits::default()
                    },
                )
            }
        };
        let player = crate::cmd::arena::player(&spec, variant, backend, &search, seed)
            .map_err(|e| PlayError::Unavailable(format!("cannot play {label}: {e:#}")))?;
        Ok(Built {
            player,
            label,
            limits,
        })
    }
}

/// Milliseconds as the page says them: `0.3 s`, `20 s`.
fn seconds(ms: u64) -> String {
    format!("{} s", Duration::from_millis(ms).as_secs_f64())
}
