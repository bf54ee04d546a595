//! The run configuration (`configs/run/*.toml`): game, network, search, self-play and
//! training. Unknown keys are rejected; missing keys take the defaults.

use serde::{Deserialize, Serialize};
use tengu_search::SearchConfig;
use tengu_selfplay::config::{NetworkConfig, SelfplayConfig};

/// Training settings (`[train]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Rows per optimizer step.
    pub batch_size: usize,
    /// AdamW learning rate after warm-up, and weight decay.
    pub learning_rate: f64,
    pub weight_decay: f64,
    /// Steps of linear learning-rate warm-up from zero.
    pub warmup_steps: u64,
    /// Rows of the newest shards sampled from (the sliding window).
    pub window_rows: usize,
    /// Rows needed before the first step.
    pub min_rows: usize,
    /// Samples drawn per self-play row produced (KataGo trains each new row about 4 times);
    /// training waits for new shards when it is ahead.
    pub passes_per_row: f64,
    /// A checkpoint is published every this many steps.
    pub steps_per_checkpoint: u64,
    /// Seconds between looks for new shards while waiting.
    pub poll_seconds: f64,
    /// Every this many-th game (by id) is held out: never trained on, its rows measure
    /// held-out losses at each checkpoint (0: none).
    pub holdout_every: u64,
    /// Newest held-out rows kept, and how many of them each checkpoint is measured on.
    pub holdout_rows: usize,
    pub holdout_eval_rows: usize,
    /// Weight of the search's root value in the value target of full-search rows (the
    /// game result has the rest; dlshogi uses 1/3). 0: the game result alone.
    pub search_value_weight: f32,
    /// Weights of the auxiliary losses: future occupancy per square ("ownership") and
    /// future material balance (0 switches a head's training off).
    pub ownership_weight: f32,
    pub material_weight: f32,
    /// Seconds without a heartbeat after which another trainer may take the run over (a
    /// restarted trainer waits at most this long for a killed one's lease).
    pub lease_seconds: f64,
    /// How far back (seconds, by the shard names' clocks) each look for new shards reaches
    /// before the newest shard seen: covers clock differences between machines.
    pub listing_lookback_seconds: f64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 64,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            warmup_steps: 100,
            window_rows: 250_000,
            min_rows: 2_000,
            passes_per_row: 4.0,
            steps_per_checkpoint: 200,
            poll_seconds: 5.0,
            holdout_every: 20,
            holdout_rows: 4_000,
            holdout_eval_rows: 512,
            search_value_weight: 1.0 / 3.0,
            ownership_weight: 1.0,
            material_weight: 1.0,
            lease_seconds: 30.0,
            listing_lookback_seconds: 600.0,
        }
    }
}

impl TrainConfig {
    /// The auxiliary loss weights.
    pub fn loss_weights(&self) -> tengu_model::LossWeights {
        tengu_model::LossWeights {
            ownership: self.ownership_weight,
            material: self.material_weight,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        let check = |ok: bool, msg: &str| if ok { Ok(()) } else { Err(msg.to_string()) };
        check(self.batch_size >= 1, "train.batch_size must be at least 1")?;
        check(
            self.learning_rate > 0.0,
            "train.learning_rate must be positive",
        )?;
        check(
            self.weight_decay >= 0.0,
            "train.weight_decay must not be negative",
        )?;
        check(
            self.window_rows >= 1,
            "train.window_rows must be at least 1",
        )?;
        check(
            self.passes_per_row > 0.0,
            "train.passes_per_row must be positive",
        )?;
        check(
            self.ownership_weight >= 0.0 && self.material_weight >= 0.0,
            "train.ownership_weight and train.material_weight must not be negative",
        )?;
        check(
            (0.0..=1.0).contains(&self.search_value_weight),
            "train.search_value_weight must be in [0, 1]",
        )?;
        check(
            self.lease_seconds >= 1.0 && self.listing_lookback_seconds >= 0.0,
            "train.lease_seconds must be at least 1 and train.listing_lookback_seconds not negative",
        )?;
        check(
            self.steps_per_checkpoint >= 1,
            "train.steps_per_checkpoint must be at least 1",
        )
    }

    /// Learning rate at `step` (linear warm-up, then constant).
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64
        } else {
            self.learning_rate
        }
    }
}

/// A whole run configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// `dai-dai` or `maka-dai-dai`.
    pub game: String,
    pub network: NetworkConfig,
    pub search: SearchConfig,
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    pub arena: ArenaConfig,
}

/// Periodic evaluation of new checkpoints by `tengu run` (`[arena]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArenaConfig {
    /// Evaluate each new checkpoint (against the previously evaluated one and the baselines).
    pub enabled: bool,
    /// Games per match (paired openings).
    pub games: u64,
    /// MCTS visits per move of checkpoint players.
    pub visits: u32,
    /// Fixed opponents besides the previous checkpoint: `random`, `greedy`,
    /// `alphabeta[:MS[:DEPTH]]`.
    pub baselines: Vec<String>,
    /// Longer games are adjudicated on material (ratio 1.5) or drawn.
    pub max_plies: u32,
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
            visits: 32,
            baselines: vec!["greedy".into()],
            max_plies: 300,
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

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            game: "dai-dai".into(),
            network: NetworkConfig::default(),
            search: SearchConfig::default(),
            selfplay: SelfplayConfig::default(),
            train: TrainConfig::default(),
            arena: ArenaConfig::default(),
        }
    }
}

impl RunConfig {
    /// Parses and validates TOML text; `origin` (a file name) starts every message.
    pub fn parse(text: &str, origin: &str) -> Result<RunConfig, String> {
        let config: RunConfig =
            toml::from_str(text).map_err(|e| format!("{origin}: {}", e.to_string().trim_end()))?;
        config.validate().map_err(|e| format!("{origin}: {e}"))?;
        Ok(config)
    }

    /// Reads `path`, or the run's `config.toml` when `path` is `None` and the run has one,
    /// else the defaults.
    pub fn load(
        path: Option<&std::path::Path>,
        run: &tengu_store::RunStore,
    ) -> Result<RunConfig, String> {
        if let Some(p) = path {
            return RunConfig::from_file(p);
        }
        match run
            .get_text(tengu_store::layout::CONFIG)
            .map_err(|e| e.to_string())?
        {
            Some(text) => RunConfig::parse(&text, &run.address_of(tengu_store::layout::CONFIG)),
            None => Ok(RunConfig::default()),
        }
    }

    /// Reads and validates a configuration file.
    pub fn from_file(path: &std::path::Path) -> Result<RunConfig, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        RunConfig::parse(&text, &path.display().to_string())
    }

    /// The run's own `config.toml`, if it has one.
    pub fn of_run(run: &tengu_store::RunStore) -> Result<Option<RunConfig>, String> {
        match run
            .get_text(tengu_store::layout::CONFIG)
            .map_err(|e| e.to_string())?
        {
            Some(text) => {
                RunConfig::parse(&text, &run.address_of(tengu_store::layout::CONFIG)).map(Some)
            }
            None => Ok(None),
        }
    }

    /// The text written as a run's `config.toml`.
    pub fn to_run_text(&self) -> String {
        format!(
            "# Effective configuration of this run (written by tengu).\n{}",
            toml::to_string(self).expect("the configuration serialises")
        )
    }

    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.game.as_str(), "dai-dai" | "maka-dai-dai") {
            return Err(format!(
                "game: {:?} is not dai-dai or maka-dai-dai",
                self.game
            ));
        }
        self.network
            .backend
            .parse::<tengu_model::Backend>()
            .map_err(|e| format!("network.backend: {e}"))?;
        tengu_model::net::preset_shape(&self.network.preset)
            .map_err(|e| format!("network.preset: {e}"))?;
        if !(1..=256).contains(&self.network.encode_threads) {
            return Err(format!(
                "network.encode_threads {} must be 1 to 256",
                self.network.encode_threads
            ));
        }
        self.search.validate()?;
        self.selfplay.validate()?;
        if self.arena.games == 0 || self.arena.visits == 0 {
            return Err("arena.games and arena.visits must be at least 1".into());
        }
        let a = &self.arena;
        if let Some(h) = a
            .ladder_cpu_hours
            .iter()
            .find(|h| !(h.is_finite() && **h > 0.0))
        {
            return Err(format!(
                "arena.ladder_cpu_hours: {h} is not a positive number of hours"
            ));
        }
        if !(1..=10_000).contains(&a.ladder_games) {
            return Err(format!(
                "arena.ladder_games {} must be 1 to 10000",
                a.ladder_games
            ));
        }
        if !(a.ladder_tolerance.is_finite() && a.ladder_tolerance >= 1.0) {
            return Err(format!(
                "arena.ladder_tolerance {} must be at least 1 (a factor of CPU-hours)",
                a.ladder_tolerance
            ));
        }
        if !a.ladder_cpu_hours.is_empty() && a.ladder_opponents.is_empty() {
            return Err(
                "arena.ladder_opponents: a ladder needs at least one fixed opponent".into(),
            );
        }
        use tengu_search::players::PlayerSpec;
        for o in &a.ladder_opponents {
            o.parse::<PlayerSpec>()
                .map_err(|e| format!("arena.ladder_opponents: {e}"))?;
        }
        // Baselines are parsed as players too (their numbers range-checked), and must not
        // need a network.
        for b in &self.arena.baselines {
            let fixed = b
                .parse::<PlayerSpec>()
                .map_err(|e| format!("arena.baselines: {e}"))?;
            if matches!(
                fixed,
                PlayerSpec::Checkpoint { .. } | PlayerSpec::Policy { .. }
            ) {
                return Err(format!(
                    "arena.baselines: {b:?} is not random, greedy or alphabeta[:MS[:DEPTH]]"
                ));
            }
        }
        self.train.validate()
    }
}

/// What a change of a key between a run's saved configuration and a new one means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Another game: the run's shards and checkpoints are of the saved one.
    Game,
    /// Another network architecture or encoder input (preset, planes): the run's
    /// checkpoints cannot be loaded into it.
    Network,
    /// Anything else (search, self-play, training, arena, backend): the run goes on.
    Other,
}

/// One key whose value differs, as the user wrote it (`search.visits`, `8`, `16`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub key: String,
    pub saved: String,
    pub new: String,
    pub kind: ChangeKind,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} -> {}", self.key, self.saved, self.new)
    }
}

/// Every leaf of a TOML table as (dotted key, value text).
fn flatten(
    prefix: &str,
    value: &toml::Value,
    out: &mut std::collections::BTreeMap<String, String>,
) {
    match value {
        toml::Value::Table(table) => {
            for (k, v) in table {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// A network as a user compares them: `b4c32, 41 input planes`.
pub fn describe_net(config: &tengu_model::net::NetConfig) -> String {
    format!(
        "b{}c{}, {} input planes",
        config.blocks, config.channels, config.planes
    )
}

impl RunConfig {
    /// The network a new run of this configuration starts with: the preset for the game's
    /// encoder with the configured planes.
    pub fn net_config(&self) -> Result<tengu_model::net::NetConfig, String> {
        let variant = tengu_rules::Variant::builtin(&self.game)
            .ok_or_else(|| format!("game: {:?} is not dai-dai or maka-dai-dai", self.game))?;
        let encoder = tengu_model::Encoder::with_planes(
            &variant,
            self.network.tactical_planes,
            self.network.material_planes,
        );
        tengu_model::net::NetConfig::from_preset(
            &self.network.preset,
            encoder.planes(),
            encoder.size(),
        )
        .map_err(|e| format!("network.preset: {e}"))
    }

    /// The keys whose values differ from `saved` (a run's `config.toml`), sorted by key. A
    /// changed `network.preset` or planes key is a [`ChangeKind::Network`] change only when
    /// the network it gives differs (`cpu` and `b4c32` are the same network).
    pub fn changes_from(&self, saved: &RunConfig) -> Vec<Change> {
        let table = |c: &RunConfig| {
            let mut out = std::collections::BTreeMap::new();
            let value = toml::Value::try_from(c).expect("the configuration serialises");
            flatten("", &value, &mut out);
            out
        };
        let (old, new) = (table(saved), table(self));
        let same_network = match (saved.net_config(), self.net_config()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        let unset = || "(unset)".to_string();
        let keys: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        keys.into_iter()
            .filter(|k| old.get(*k) != new.get(*k))
            .map(|key| {
                let kind = match key.as_str() {
                    "game" => ChangeKind::Game,
                    "network.preset" | "network.tactical_planes" | "network.material_planes"
                        if !same_network =>
                    {
                        ChangeKind::Network
                    }
                    _ => ChangeKind::Other,
                };
                Change {
                    key: key.clone(),
                    saved: old.get(key).cloned().unwrap_or_else(unset),
                    new: new.get(key).cloned().unwrap_or_else(unset),
                    kind,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_checked_with_the_config() {
        let text = "[network]\npreset = \"huge\"\n";
        let e = RunConfig::parse(text, "x.toml").unwrap_err();
        assert!(
            e.contains("x.toml: network.preset") && e.contains("tiny"),
            "{e}"
        );
        let e = RunConfig::parse("[network]\npreset = \"b1000c4096\"\n", "x.toml").unwrap_err();
        assert!(e.contains("1..=40"), "{e}");
    }

    #[test]
    fn encode_threads_are_checked_with_the_config() {
        for bad in ["0", "257"] {
            let text = format!("[network]\nencode_threads = {bad}\n");
            let e = RunConfig::parse(&text, "x.toml").unwrap_err();
            assert!(
                e.contains("x.toml") && e.contains("network.encode_threads") && e.contains("1 to 256"),
                "{e}"
            );
        }
        let ok = RunConfig::parse("[network]\nencode_threads = 16\n", "x.toml").unwrap();
        assert_eq!(ok.network.encode_threads, 16);
        assert_eq!(RunConfig::default().network.encode_threads, 1);
    }

    #[test]
    fn changes_name_what_checkpoints_cannot_follow() {
        let saved = RunConfig::default();
        let mut new = saved.clone();
        assert!(new.changes_from(&saved).is_empty());
        // The same network under another name is no network change.
        new.network.preset = "b4c32".into();
        new.search.visits = 16;
        new.network.backend = "burn-flex".into();
        let changes = new.changes_from(&saved);
        assert!(
            changes.iter().all(|c| c.kind == ChangeKind::Other),
            "{changes:?}"
        );
        assert!(
            changes
                .iter()
                .any(|c| c.to_string() == "search.visits: 128 -> 16"),
            "{changes:?}"
        );
        new.network.preset = "tiny".into();
        new.network.material_planes = true;
        new.game = "maka-dai-dai".into();
        let kinds: Vec<(String, ChangeKind)> = new
            .changes_from(&saved)
            .into_iter()
            .map(|c| (c.key, c.kind))
            .collect();
        for (key, kind) in [
            ("game", ChangeKind::Game),
            ("network.preset", ChangeKind::Network),
            ("network.material_planes", ChangeKind::Network),
            ("search.visits", ChangeKind::Other),
        ] {
            assert!(kinds.contains(&(key.to_string(), kind)), "{key}: {kinds:?}");
        }
    }
}
