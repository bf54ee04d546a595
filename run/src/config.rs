//! The periodic evaluation of new checkpoints by `tengu run` (`[arena]`): the run
//! supervisor's section of the run configuration, which the `tengu` binary's `config.rs`
//! reads. Unknown keys are rejected; missing keys take the defaults.

use serde::{Deserialize, Serialize};

/// Periodic evaluation of new checkpoints by `tengu run` (`[arena]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArenaConfig {
    /// Evaluate each new checkpoint (against the previously evaluated one and the baselines).
    pub enabled: bool,
    /// Games per match (paired openings).
    pub games: u64,
    /// Rate the newest checkpoint only once it is at least this many training steps past
    /// the last one rated (0: each new checkpoint). Games played to their end cost minutes
    /// each, and a checkpoint every few CPU-minutes would otherwise keep the arena busy
    /// with one queue that only grows.
    pub every_steps: u64,
    /// MCTS visits per move of checkpoint players.
    pub visits: u32,
    /// Fixed opponents besides the previous checkpoint: `random`, `greedy`,
    /// `alphabeta[:MS[:DEPTH]]`.
    pub baselines: Vec<String>,
    /// The safety cap of the arena's and the ladder's games (`tengu match --max-plies`):
    /// games are played to their end and one still going here stops, drawn unless
    /// `material_ratio` gives it to a side.
    pub max_plies: u32,
    /// Material ratio that wins at the cap (`tengu match --material-ratio`); 0: none.
    pub material_ratio: f32,
    /// The players' contempt (`tengu match --contempt`).
    pub contempt: f32,
    /// Also score each new checkpoint on the game's tactics suite (`suite.jsonl`).
    pub suite: bool,
    /// Openings file for the matches (`tengu match --openings`, e.g. balanced openings from
    /// `tengu book openings`); None: a few random plies per pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openings: Option<std::path::PathBuf>,
    /// The compute ladder as the run goes on (`tengu ladder`): a rung for each of these
    /// CPU-hours of self-play + training, played once the run is past it by the factor
    /// `ladder_tolerance` (so no later checkpoint can be nearer). Empty: no ladder.
    pub ladder_cpu_hours: Vec<f64>,
    /// The ladder's fixed opponents (players of `tengu match`; the first is its 0).
    pub ladder_opponents: Vec<String>,
    /// Games per ladder match (paired openings).
    pub ladder_games: u64,
    /// How far (a factor of CPU-hours) a checkpoint may be from a target to be its rung.
    pub ladder_tolerance: f64,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            enabled: true,
            games: 10,
            every_steps: 0,
            visits: 32,
            baselines: vec!["greedy".into()],
            max_plies: tengu_rules::end::TO_THE_END_PLIES,
            material_ratio: 0.0,
            contempt: tengu_rules::end::MATCH_CONTEMPT,
            suite: true,
            openings: None,
            ladder_cpu_hours: Vec::new(),
            ladder_opponents: vec![
                "greedy".into(),
                "alphabeta:600000:2".into(),
                "alphabeta:600000:3".into(),
            ],
            ladder_games: 30,
            ladder_tolerance: 1.25,
        }
    }
}
