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
    /// The engine's player for a game: MCTS with the checkpoint, or alpha-beta without one.
    /// A checkpoint for another game is an error (the engine then falls back on alpha-beta).
    pub fn factory(&self) -> Result<PlayerFactory> {
        let backend: Option<Backend> = match &self.checkpoint {
            Some(_) => Some(self.backend.parse().map_err(anyhow::Error::msg)?),
            None => None,
        };
        let mut args = self.clone();
        let mut search = SearchConfig::default();
        if let Some(path) = &args.checkpoint {
            let local = super::checkpoint_file(path)?;
            search = super::CheckpointSearch::from_flags(
                args.search_config.as_deref(),
                args.material_utility,
            )?
            .of(&local)?;
            args.checkpoint = Some(local);
        }
        Ok(Box::new(
            move |variant: &Arc<Variant>| -> Result<Box<dyn Player>, String> {
                let (Some(path), Some(backend)) = (&args.checkpoint, backend) else {
                    return Ok(alphabeta(
                        variant,
                        Duration::from_millis(args.movetime),
                        args.seed,
                    ));
                };
                let (eval, meta) = backend.load_evaluator(path, variant).map_err(|e| {
                    format!(
                        "cannot play {} with {}: {e}",
                        variant.name(),
                        path.display()
                    )
                })?;
                let label = format!(
                    "{} step {}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    meta.step
                );
                tracing::info!("playing {} with {label}", variant.name());
                let visits = args.visits.unwrap_or(search.visits);
                Ok(Box::new(MctsPlayer::new(
                    label,
                    eval,
                    search.clone(),
                    visits,
                    args.seed,
                )))
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
