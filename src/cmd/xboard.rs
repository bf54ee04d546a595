//! `tengu xboard`: the XBoard/CECP engine on stdin/stdout (protocol in `tengu-engine`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tengu_engine::xboard::{alphabeta, PlayerFactory};
use tengu_engine::{Engine, EnginePlayer, FactoryError, Settings};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::players::{MctsPlayer, Player};
use tengu_search::SearchConfig;

use crate::args::{EngineArgs, XboardArgs};

impl EngineArgs {
    /// The engine's player for a game: MCTS with `--checkpoint`, else with the network
    /// shipped for the game (`networks/`), else (or with `--alphabeta`) alpha-beta. A
    /// checkpoint or network trained under another rule set of the game plays, with a
    /// notice naming the options that differ; a game without a network plays alpha-beta with
    /// a notice; a checkpoint for another game is an error (the engine then falls back on
    /// alpha-beta and says so).
    pub fn factory(&self) -> Result<PlayerFactory> {
        let backend: Backend = self.backend.parse().map_err(anyhow::Error::msg)?;
        let search = super::CheckpointSearch::from_flags(
            self.search_config.as_deref(),
            self.material_utility,
            None,
        )?;
        // A --checkpoint is settled once; a shipped network when its game is chosen.
        let checkpoint = match &self.checkpoint {
            Some(path) => {
                let local = super::checkpoint_file(path)?;
                let settings = search.of(&local)?;
                Some((local, settings))
            }
            None => None,
        };
        let args = self.clone();
        Ok(Box::new(
            move |variant: &Arc<Variant>| -> Result<EnginePlayer, FactoryError> {
                let network = match &checkpoint {
                    Some((path, settings)) => Some((path.clone(), settings.clone(), None)),
                    None if args.alphabeta => None,
                    None => shipped(variant, &search).map_err(|e| format!("{e:#}"))?,
                };
                let Some((path, search, shipped)) = network else {
                    let player =
                        alphabeta(variant, Duration::from_millis(args.movetime), args.seed);
                    // Asked for with --alphabeta; else there is no network for the game.
                    let notice = (!args.alphabeta).then(|| {
                        let text = format!(
                            "tengu has no network for {} ({}): playing with alpha-beta",
                            variant.name(),
                            variant.id()
                        );
                        tracing::warn!("{text}");
                        text
                    });
                    return Ok(EnginePlayer { player, notice });
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
                // Trained under other rules of the game: warned in the log on loading, told
                // to the GUI's user once.
                let notice = tengu_model::checkpoint::OtherRules::of_file(&path, variant.id())
                    .ok()
                    .flatten()
                    .map(|other| format!("tengu plays with {label}: {other}"));
                let visits = args.visits.unwrap_or(search.visits);
                let player: Box<dyn Player> =
                    Box::new(MctsPlayer::new(label, eval, search, visits, args.seed));
                Ok(EnginePlayer { player, notice })
            },
        ))
    }

    pub fn settings(&self) -> Settings {
        Settings {
            default_time: Duration::from_millis(self.movetime.max(1)),
            visits: self.visits,
            ..Settings::default()
        }
    }
}

/// The network shipped for `variant` as (checkpoint file, search settings, name), if any:
/// a checkpoint whose own settings lie beside it, so `--search-config` and
/// `--material-utility` apply to it as to any checkpoint.
fn shipped(
    variant: &Variant,
    search: &super::CheckpointSearch,
) -> Result<Option<(std::path::PathBuf, SearchConfig, Option<String>)>> {
    let Some(shipped) = crate::networks::for_variant(variant)? else {
        return Ok(None);
    };
    tracing::info!("shipped network (networks/manifest.json): {}", shipped.info);
    let path = shipped.file()?;
    let settings = search.of(&path)?;
    Ok(Some((path, settings, Some(shipped.info.name))))
}

pub fn run(args: XboardArgs) -> Result<()> {
    // The starting rule set is checked before anything starts.
    let (rule_preset, rule_options) = args.rules.preset_and_options()?;
    if !args.rules.is_empty() {
        tracing::info!(
            "engine options start at Rules={rule_preset}, Rule options={}",
            rule_options.join(",")
        );
    }
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
    let settings = Settings {
        rule_preset,
        rule_options: rule_options.join(","),
        ..args.engine.settings()
    };
    let engine = Engine::new(std::io::stdout(), settings, factory);
    tengu_engine::run(std::io::BufReader::new(std::io::stdin()), engine)?;
    Ok(())
}
