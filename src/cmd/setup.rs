//! What `tengu run`, `tengu train` and `tengu selfplay` check before they change anything:
//! the run location, the configuration (a `--config` file or the run's own), that a new
//! configuration is one the run's checkpoints can follow, the openings files, and that the
//! backend runs in this build on this machine. A command that fails here has created and
//! written nothing.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_store::{Location, RunStore};

use crate::config::{describe_net, ChangeKind, RunConfig};

/// How a command treats the run's saved configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// `tengu run` and `tengu train`: they create or resume the run and write its
    /// `config.toml`, so a run without one needs `--config`, and a `--config` whose network
    /// the run's checkpoints cannot be loaded into is refused.
    Owner,
    /// `tengu selfplay`: plays the run's configuration (or `--config`, or the defaults)
    /// with whatever network the checkpoints hold; only another game is refused.
    Worker,
}

/// A run, checked and not yet opened.
pub struct RunSetup {
    pub location: Location,
    pub config: RunConfig,
    pub backend: Backend,
    pub variant: Arc<Variant>,
}

impl RunSetup {
    /// Opens the run's store (a local directory is created now, after every check).
    pub fn open(&self) -> Result<RunStore> {
        Ok(RunStore::at(self.location.clone())?)
    }
}

/// The run's saved configuration and whether it has a committed checkpoint, read without
/// creating anything (a local directory that does not exist has neither).
fn saved(location: &Location) -> Result<(Option<RunConfig>, bool)> {
    if let Location::Local(dir) = location {
        if !dir.exists() {
            return Ok((None, false));
        }
        if !dir.is_dir() {
            bail!("--run {}: not a directory", dir.display());
        }
    }
    let store = RunStore::at(location.clone())?;
    let config = RunConfig::of_run(&store).map_err(anyhow::Error::msg)?;
    let checkpoint = tengu_store::checkpoint::newest(&store)?.is_some();
    Ok((config, checkpoint))
}

/// Checks everything a run process needs before it starts: see the module documentation.
/// `file` is `--config`, `backend` is `--backend`.
pub fn prepare_run(
    location: &str,
    file: Option<&Path>,
    backend: Option<&str>,
    role: Role,
) -> Result<RunSetup> {
    let location = Location::parse(location)?;
    let from_file = file
        .map(RunConfig::from_file)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let (saved, has_checkpoint) = saved(&location)?;
    if role == Role::Owner && from_file.is_none() && saved.is_none() {
        bail!(
            "{} is not a run (it has no {}); give --config FILE to start a new run there",
            location.display(),
            tengu_store::layout::CONFIG
        );
    }
    if let (Some(new), Some(saved), Some(file)) = (&from_file, &saved, file) {
        check_change(&location, file, new, saved, has_checkpoint, role)?;
    }
    let config = from_file.or(saved).unwrap_or_default();
    let variant = config.variant().map_err(anyhow::Error::msg)?;
    let (name, origin) = match backend {
        Some(b) => (b, "--backend"),
        None => (config.network.backend.as_str(), "network.backend"),
    };
    let backend: Backend = name.parse().map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
    backend
        .check()
        .with_context(|| format!("{origin} {name}"))?;
    // Openings files are read once here, so a bad file stops the command at once instead
    // of every worker or arena match.
    if let Some(path) = &config.selfplay.openings {
        tengu_selfplay::openings::read_openings(path, &variant)
            .map_err(|e| anyhow::anyhow!("selfplay.openings: {e}"))?;
    }
    if let Some(path) = config
        .arena
        .openings
        .as_ref()
        .filter(|_| config.arena.enabled)
    {
        tengu_selfplay::openings::read_openings(path, &variant)
            .map_err(|e| anyhow::anyhow!("arena.openings: {e}"))?;
    }
    Ok(RunSetup {
        location,
        config,
        backend,
        variant,
    })
}

/// Refuses a `--config` that the run cannot follow (another game; for the run's owner,
/// another network once there are checkpoints) and logs the changes it can follow.
fn check_change(
    location: &Location,
    file: &Path,
    new: &RunConfig,
    saved: &RunConfig,
    has_checkpoint: bool,
    role: Role,
) -> Result<()> {
    let changes = new.changes_from(saved);
    let run = location.display();
    let file = file.display();
    let (saved_key, new_key) = (
        saved.game_key().map_err(anyhow::Error::msg)?,
        new.game_key().map_err(anyhow::Error::msg)?,
    );
    if saved_key != new_key {
        bail!(
            "{run} is a {saved_key} run; {file} configures {new_key}: a run holds one game's (and rule set's) shards and checkpoints, choose another --run",
        );
    }
    let network: Vec<String> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Network)
        .map(ToString::to_string)
        .collect();
    if role == Role::Owner && has_checkpoint && !network.is_empty() {
        let shown = |c: &RunConfig| c.net_config().map_or_else(|e| e, |n| describe_net(&n));
        bail!(
            "{run}'s checkpoints cannot follow {file}: its network is {} where {file} asks for {} ({}); \
             resume without --config, or start a new run with another --run",
            shown(saved),
            shown(new),
            network.join(", ")
        );
    }
    if !changes.is_empty() {
        let list: Vec<String> = changes.iter().map(ToString::to_string).collect();
        tracing::info!("{file} changes {run}'s configuration: {}", list.join(", "));
    }
    Ok(())
}
