pub mod analyze;
pub mod arena;
pub mod bench;
pub mod book;
pub mod ladder;
pub mod moves;
pub mod perft;
pub mod play;
pub mod run;
pub mod selfplay;
pub mod serve;
pub mod setup;
pub mod shards;
pub mod show;
pub mod suite;
pub mod tensorboard;
pub mod train;
pub mod xboard;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use tengu_rules::{Position, Variant};

use crate::args::PositionArgs;

/// Game selection shared by the rules subcommands: `--game`, `--position` or both (then
/// they must agree).
impl PositionArgs {
    pub fn resolve(&self) -> Result<Position> {
        // A rule set without --game is Dai Dai Shogi's, or the --position's game's.
        let game = match (&self.game, &self.position) {
            (Some(g), _) => Some(g.clone()),
            (None, Some(text)) if self.rules.rules.is_some() || !self.rules.options.is_empty() => {
                let ranks = text
                    .split_whitespace()
                    .next()
                    .map_or(0, |b| b.split('/').count());
                Some(Variant::for_size(ranks).map_or("dai-dai".into(), |v| v.id().to_string()))
            }
            (None, _) if self.rules.rules.is_some() || !self.rules.options.is_empty() => {
                Some("dai-dai".into())
            }
            (None, _) => None,
        };
        let game = game.map(|g| self.rules.game_key(&g)).transpose()?;
        let variant = match game.as_deref().map(|g| (g, Variant::builtin(g))) {
            None => None,
            Some((_, Some(v))) => Some(v),
            Some((g, None)) => bail!("unknown game {g:?}; expected dai-dai or maka-dai-dai"),
        };
        match (&self.position, variant) {
            (Some(text), variant) => {
                let default = variant.clone().unwrap_or_else(Variant::dai_dai);
                let pos = tengu_engine::fen::parse_position(text, &default)
                    .map_err(anyhow::Error::msg)
                    .context("invalid --position")?;
                if let Some(v) = variant.filter(|v| v.id() != pos.variant().id()) {
                    bail!(
                        "--position is a {} position ({}x{}), but --game is {}",
                        pos.variant().name(),
                        pos.size(),
                        pos.size(),
                        v.id()
                    );
                }
                Ok(pos)
            }
            (None, Some(v)) => Ok(Position::initial(v)),
            (None, None) => Ok(Position::initial(Variant::dai_dai())),
        }
    }
}

/// The `[search]` table of a run configuration (`--search-config`), or the defaults.
pub fn search_config(path: Option<&std::path::Path>) -> Result<tengu_search::SearchConfig> {
    Ok(match path {
        Some(path) => {
            crate::config::RunConfig::from_file(path)
                .map_err(anyhow::Error::msg)?
                .search
        }
        None => tengu_search::SearchConfig::default(),
    })
}

/// The search settings of checkpoint players.
pub enum CheckpointSearch {
    /// Every checkpoint searches with these (`--search-config`, a run's `[search]`), read
    /// from `source`.
    Fixed {
        search: tengu_search::SearchConfig,
        source: String,
    },
    /// Each checkpoint with its own: `<name>.toml` beside it (a shipped network's), else the
    /// `config.toml` of the run whose `models/` holds it, else the defaults; so a run's
    /// checkpoint searches as the run's arena measured it. `material_utility` and
    /// `contempt` override.
    Own {
        material_utility: Option<f32>,
        contempt: Option<f32>,
    },
}

impl CheckpointSearch {
    /// From the flags of a command: `--search-config` (fixed, `--material-utility` and
    /// `--contempt` applied), else each checkpoint its own.
    pub fn from_flags(
        search_config: Option<&std::path::Path>,
        material_utility: Option<f32>,
        contempt: Option<f32>,
    ) -> Result<CheckpointSearch> {
        let Some(path) = search_config else {
            return Ok(CheckpointSearch::Own {
                material_utility,
                contempt,
            });
        };
        let mut search = self::search_config(Some(path))?;
        if let Some(utility) = material_utility {
            search.material_utility = utility;
        }
        if let Some(contempt) = contempt {
            search.contempt = contempt;
        }
        Ok(CheckpointSearch::Fixed {
            search,
            source: path.display().to_string(),
        })
    }

    /// The settings `checkpoint` (a local file) searches with; logs where they came from.
    pub fn of(&self, checkpoint: &std::path::Path) -> Result<tengu_search::SearchConfig> {
        let (search, source) = match self {
            CheckpointSearch::Fixed { search, source } => (search.clone(), source.clone()),
            CheckpointSearch::Own {
                material_utility,
                contempt,
            } => {
                let (mut search, source) = own_search(checkpoint)?;
                if let Some(utility) = material_utility {
                    search.material_utility = *utility;
                }
                if let Some(contempt) = contempt {
                    search.contempt = *contempt;
                }
                (search, source)
            }
        };
        tracing::info!(checkpoint = %checkpoint.display(), search = %source, "search settings");
        Ok(search)
    }
}

impl CheckpointSearch {
    /// The contempt the players of a command share (alpha-beta's too): the fixed search's,
    /// else the override, else none.
    pub fn contempt(&self) -> f32 {
        match self {
            CheckpointSearch::Fixed { search, .. } => search.contempt,
            CheckpointSearch::Own { contempt, .. } => contempt.unwrap_or(0.0),
        }
    }
}

/// A checkpoint's own search settings and where they came from (see
/// [`CheckpointSearch::Own`]).
fn own_search(checkpoint: &std::path::Path) -> Result<(tengu_search::SearchConfig, String)> {
    let beside = checkpoint.with_extension("toml");
    let run_config = checkpoint
        .parent()
        .filter(|dir| {
            dir.file_name()
                .is_some_and(|n| n == tengu_store::layout::MODELS)
        })
        .and_then(|models| models.parent())
        .map(|run| run.join(tengu_store::layout::CONFIG));
    for path in std::iter::once(beside).chain(run_config) {
        if path.is_file() {
            return Ok((search_config(Some(&path))?, path.display().to_string()));
        }
    }
    // A checkpoint copied out of its run plays another search than it was measured with:
    // say so where the default log level shows it.
    tracing::warn!(
        checkpoint = %checkpoint.display(),
        "no search settings for the checkpoint (no {} beside it, not in a run's models/): it searches with the built-in defaults; --search-config names them",
        checkpoint.with_extension("toml").display()
    );
    Ok((
        tengu_search::SearchConfig::default(),
        "built-in defaults".into(),
    ))
}

/// A spinner with a message line for long-running commands (hidden with `--quiet`).
pub fn spinner(quiet: bool) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("valid template"),
    );
    bar
}

/// A checkpoint argument as a local file: a path, or the address of a committed checkpoint
/// of a run (`s3://bucket/runs/x/models/model-000001000.safetensors`, `file:///...`),
/// fetched once into the local cache and verified against its manifest.
pub fn checkpoint_file(path: &std::path::Path) -> Result<std::path::PathBuf> {
    let text = path.display().to_string();
    if !text.contains("://") {
        return Ok(path.to_path_buf());
    }
    let models = format!("/{}/", tengu_store::layout::MODELS);
    let (Some(at), Some(step)) = (
        text.rfind(&models),
        tengu_store::layout::checkpoint_step(&text),
    ) else {
        bail!("{text}: a checkpoint URL names RUN/models/model-<step, 9 digits>.safetensors");
    };
    let store = tengu_store::RunStore::open(&text[..at])?;
    let cache = tengu_store::checkpoint::CheckpointCache::new(&store, 0);
    let (file, _) = cache
        .fetch(&store, step)
        .with_context(|| format!("checkpoint {text}"))?;
    Ok(file)
}

/// Opens a run location (`--run`): a directory, `file://`, `s3://`, `gs://`, `az://`.
pub fn open_run(location: &str) -> Result<tengu_store::RunStore> {
    Ok(tengu_store::RunStore::open(location)?)
}

/// Ctrl-C and SIGTERM set the returned flag; the first also prints `stopping: <stopping>`
/// (what the command finishes before it exits), the second exits at once.
pub fn stop_flag(stopping: &'static str) -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        let _ = writeln!(
            std::io::stderr(),
            "stopping: {stopping} (Ctrl-C again to quit at once)"
        );
    })
    .context("cannot install the signal handler")?;
    Ok(stop)
}
