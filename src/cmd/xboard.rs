//! `tengu xboard`: the XBoard/CECP engine on stdin/stdout (protocol in `tengu-engine`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tengu_engine::xboard::{alphabeta, PlayerFactory};
use tengu_engine::{Engine, Settings};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::players::{MctsPlayer, Player};
use tengu_search::SearchConfig;

use crate::args::{EngineArgs, XboardArgs};

impl EngineArgs {
    /// The engine's player for a game: MCTS with `--checkpoint`, else with the network
    /// shipped for the game (`networks/`), else (or with `--alphabeta`) alpha-beta. A
    /// checkpoint for another game is an error (the engine then falls back on alpha-beta).
    pub fn factory(&self) -> Result<PlayerFactory> {
        let backend: Backend = self.backend.parse().map_err(anyhow::Error::msg)?;
        let mut args = self.clone();
        // With --checkpoint, its search is settled once; shipped networks are per game.
        let mut checkpoint_search = None;
        if let Some(path) = &args.checkpoint {
            let local = super::checkpoint_file(path)?;
            checkpoint_search = Some(
                super::CheckpointSearch::from_flags(
                    args.search_config.as_deref(),
                    args.material_utility,
                )?
                .of(&local)?,
            );
            args.checkpoint = Some(local);
        }
        Ok(Box::new(
            move |variant: &Arc<Variant>| -> Result<Box<dyn Player>, String> {
                let network = match (&args.checkpoint, &checkpoint_search) {
                    (Some(path), Some(search)) => Some((path.clone(), search.clone(), None)),
                    _ if args.alphabeta => None,
                    _ => args.shipped(variant).map_err(|e| format!("{e:#}"))?,
                };
                let Some((path, search, shipped)) = network else {
                    return Ok(alphabeta(
                        variant,
                        Duration::from_millis(args.movetime),
                        args.seed,
                    ));
                };
                let (eval, meta) = backend.load_evaluator(&path, variant).map_err(|e| {
                    format!(
                        "cannot play {} with {}: {e}",
                        variant.name(),
                        path.display()
                    )
                })?;
                let label = match shipped {
                    Some(name) => format!("shipped network {name} step {}", meta.step),
                    None => format!(
                        "{} step {}",
                        path.file_name().unwrap_or_default().to_string_lossy(),
                        meta.step
                    ),
                };
                tracing::info!("playing {} with {label}", variant.name());
                let visits = args.visits.unwrap_or(search.visits);
                Ok(Box::new(MctsPlayer::new(
                    label,
                    eval,
                    search,
                    visits,
                    args.seed,
                )))
            },
        ))
    }

    /// The network shipped for `variant` as (weights file, search settings, name), if any.
    /// `--search-config` and `--material-utility` apply to it as to a checkpoint.
    fn shipped(
        &self,
        variant: &Variant,
    ) -> Result<Option<(std::path::PathBuf, SearchConfig, Option<String>)>> {
        let Some(shipped) = crate::networks::for_game(variant.id())? else {
            tracing::info!(
                "no network is shipped for {}: playing with alpha-beta",
                variant.name()
            );
            return Ok(None);
        };
        let mut search = match &self.search_config {
            Some(path) => super::search_config(Some(path))?,
            None => shipped.search()?,
        };
        if let Some(utility) = self.material_utility {
            search.material_utility = utility;
        }
        let name = shipped.info.name.clone();
        tracing::info!("shipped network (networks/manifest.json): {}", shipped.info);
        Ok(Some((shipped.file()?, search, Some(name))))
    }

    pub fn settings(&self) -> Settings {
        Settings {
            default_time: Duration::from_millis(self.movetime.max(1)),
            visits: self.visits,
            ..Settings::default()
        }
    }
}

pub fn run(args: XboardArgs) -> Result<()> {
    let factory = args.engine.factory()?;
    if let Some(path) = args
        .engine
        .checkpoint
        .as_ref()
        .filter(|p| !p.display().to_string().contains("://"))
    {
        // Fail early on a checkpoint that cannot be read at all.
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    }
    let engine = Engine::new(std::io::stdout(), args.engine.settings(), factory);
    tengu_engine::run(std::io::BufReader::new(std::io::stdin()), engine)?;
    Ok(())
}
