//! The run configuration (`configs/run/*.toml`): game, network, search, self-play,
//! training and arena, each section defined by the crate whose job it is (`[search]` in
//! tengu-search, `[selfplay]` in tengu-selfplay, `[train]` and `[arena]` in tengu-trainer).
//! Unknown keys are rejected; missing keys take the defaults.

use serde::{Deserialize, Serialize};
use tengu_run::ArenaConfig;
use tengu_search::SearchConfig;
use tengu_selfplay::SelfplayConfig;
use tengu_trainer::config::TrainConfig;

/// A whole run configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// `dai-dai` or `maka-dai-dai`.
    pub game: String,
    /// The rule set (RULES.md §8, docs/rules.md): an optional `preset` and options by name,
    /// e.g. `preset = "japanese-revival"`, `LEGALITY = "PSEUDO_LEGAL"`. Empty: the defaults.
    /// The run's checkpoints, shards and records carry it ([`RunConfig::game_key`]).
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub rules: toml::Table,
    pub network: NetworkConfig,
    pub search: SearchConfig,
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    pub arena: ArenaConfig,
}

/// Which network the workers and trainer use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// `burn` (CPU), `tch-cpu`, `tch-cuda`, `tch-cuda-bf16` (the last three need the `cuda` feature).
    pub backend: String,
    /// Size preset for new networks: `tiny`, `cpu`, `gpu` or `b<blocks>c<channels>`.
    pub preset: String,
    /// Whether new networks take the encoder's tactical planes (attacked squares, pieces
    /// attacked and undefended: derived from the rules); false gives the "pure" input.
    pub tactical_planes: bool,
    /// Whether new networks take the encoder's material planes (each piece's value and the
    /// material balance, from the rules-derived piece values).
    pub material_planes: bool,
    /// Threads that encode each batch of positions for the tch backends, in every worker
    /// and in the trainer (1 to 256). The encoder runs on the CPU while a GPU waits: on a
    /// 16-core H200 machine 8 workers of 2 threads kept it busiest (docs/gpu.md). The CPU
    /// backend (burn) always encodes on its worker's one core.
    pub encode_threads: usize,
    /// A checkpoint a new run's first network starts from (fine-tuning, e.g. the shipped
    /// `networks/dai-dai.safetensors`): its weights and architecture replace `preset`; it
    /// must be of the run's game and input planes, under any rule set of the game (a
    /// warning names the options that differ; where the piece types differ its input planes
    /// are mapped to the run's, docs/network.md). A run with checkpoints resumes from its
    /// own and ignores it. Relative to the directory tengu starts in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            backend: "burn".into(),
            preset: "cpu".into(),
            tactical_planes: true,
            material_planes: false,
            encode_threads: 1,
            init: None,
        }
    }
}

/// A `[network]` section that cannot be used; the message starts with the key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkConfigError {
    #[error("network.backend: {0}")]
    Backend(#[from] tengu_model::backend::UnknownBackend),
    #[error("network.preset: {0}")]
    Preset(#[from] tengu_model::desc::PresetError),
    #[error("network.encode_threads {0} must be 1 to 256")]
    EncodeThreads(usize),
}

impl NetworkConfig {
    /// Checks the backend's name, the size preset and the encoder threads.
    pub fn validate(&self) -> Result<(), NetworkConfigError> {
        self.backend.parse::<tengu_model::Backend>()?;
        tengu_model::desc::preset_shape(&self.preset)?;
        if !(1..=256).contains(&self.encode_threads) {
            return Err(NetworkConfigError::EncodeThreads(self.encode_threads));
        }
        Ok(())
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            game: "dai-dai".into(),
            rules: toml::Table::new(),
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
                let mut config =
                    RunConfig::parse(&text, &run.address_of(tengu_store::layout::CONFIG))?;
                config.keep_legacy_arena_end(&text);
                Ok(Some(config))
            }
            None => Ok(None),
        }
    }

    /// A run's saved configuration written before `[arena]` had `material_ratio` and
    /// `contempt` (every key is saved, so their absence dates it): its arena adjudicated at
    /// 1.5x and had no contempt, and a resumed run keeps measuring as it did (the defaults
    /// now play games to their end with contempt).
    fn keep_legacy_arena_end(&mut self, saved: &str) {
        let Ok(table) = saved.parse::<toml::Table>() else {
            return;
        };
        let Some(arena) = table.get("arena").and_then(|a| a.as_table()) else {
            return;
        };
        if !arena.contains_key("material_ratio") {
            self.arena.material_ratio = 1.5;
        }
        if !arena.contains_key("contempt") {
            self.arena.contempt = 0.0;
        }
    }

    /// The text written as a run's `config.toml`.
    pub fn to_run_text(&self) -> String {
        format!(
            "# Effective configuration of this run (written by tengu).\n{}",
            toml::to_string(self).expect("the configuration serialises")
        )
    }

    /// The game key of the run: the game under the `[rules]` table (`dai-dai` for the
    /// defaults, else the rule set's canonical text, `dai-dai:LO=EDO`), which its variant,
    /// checkpoints and shards carry.
    pub fn game_key(&self) -> Result<String, String> {
        if self.rules.is_empty() {
            return Ok(self.game.clone());
        }
        tengu_rules::RuleSet::from_table(&self.game, &self.rules)
            .map(|r| r.canonical())
            .map_err(|e| format!("rules: {e}"))
    }

    /// The run's variant (its game under its rule set).
    pub fn variant(&self) -> Result<std::sync::Arc<tengu_rules::Variant>, String> {
        let key = self.game_key()?;
        tengu_rules::Variant::by_key(&key).map_err(|e| format!("rules: {e}"))
    }

    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.game.as_str(), "dai-dai" | "maka-dai-dai") {
            return Err(format!(
                "game: {:?} is not dai-dai or maka-dai-dai",
                self.game
            ));
        }
        self.variant()?;
        self.network.validate().map_err(|e| e.to_string())?;
        self.search.validate().map_err(|e| e.to_string())?;
        self.selfplay.validate().map_err(|e| e.to_string())?;
        if self.arena.games == 0 || self.arena.visits == 0 {
            return Err("arena.games and arena.visits must be at least 1".into());
        }
        let a = &self.arena;
        if !(a.material_ratio == 0.0 || (a.material_ratio > 1.0 && a.material_ratio <= 100.0)) {
            return Err(format!(
                "arena.material_ratio {} must be 0 (none) or above 1 and at most 100",
                a.material_ratio
            ));
        }
        if !(0.0..=1.0).contains(&a.contempt) {
            return Err(format!("arena.contempt {} must be in [0, 1]", a.contempt));
        }
        if !(1..=100_000).contains(&a.max_plies) {
            return Err(format!(
                "arena.max_plies {} must be 1 to 100000",
                a.max_plies
            ));
        }
        if let Some(h) = a
            .ladder_cpu_hours
            .iter()
            .find(|h| !(h.is_finite() && **h >= 0.0))
        {
            return Err(format!(
                "arena.ladder_cpu_hours: {h} is not a number of hours (0: the untrained step 0)"
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
        self.train.validate().map_err(|e| e.to_string())
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
pub fn describe_net(config: &tengu_model::desc::NetConfig) -> String {
    format!(
        "b{}c{}, {} input planes",
        config.blocks, config.channels, config.planes
    )
}

impl RunConfig {
    /// The network a new run of this configuration starts with: the preset for the game's
    /// encoder with the configured planes.
    pub fn net_config(&self) -> Result<tengu_model::desc::NetConfig, String> {
        let variant = self.variant()?;
        let encoder = tengu_model::Encoder::with_planes(
            &variant,
            self.network.tactical_planes,
            self.network.material_planes,
        );
        tengu_model::desc::NetConfig::from_preset(
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
                    // Another rule set is another game: other moves, other piece types.
                    "game" => ChangeKind::Game,
                    k if k.starts_with("rules") => ChangeKind::Game,
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
    fn the_heads_loss_weights_are_train_keys_and_other_keys_are_still_refused() {
        let ok = RunConfig::parse(
            "[train]\nmaterial_weight = 0.25\nbatch_size = 8\n",
            "x.toml",
        )
        .unwrap();
        let weights = ok.train.loss_weights();
        let material = tengu_model::desc::HeadId::Material.head();
        let ownership = tengu_model::desc::HeadId::Ownership.head();
        assert_eq!(weights.of(material), 0.25);
        assert_eq!(weights.of(ownership), ownership.default_weight);
        assert_eq!(ok.train.batch_size, 8);
        // The run's own copy keeps every head's weight, and reads back the same.
        let again = RunConfig::parse(&ok.to_run_text(), "run.toml").unwrap();
        assert_eq!(again.train, ok.train);
        assert!(
            ok.to_run_text().contains("material_weight = 0.25"),
            "{}",
            ok.to_run_text()
        );
        // A misspelt key (a weight's or any other) is refused, naming it.
        for bad in [
            "materail_weight = 1.0",
            "batch_sise = 8",
            "material_weight = \"high\"",
        ] {
            let e = RunConfig::parse(&format!("[train]\n{bad}\n"), "x.toml").unwrap_err();
            let key = bad.split(' ').next().unwrap();
            assert!(e.contains("x.toml") && e.contains(key), "{bad}: {e}");
            if !bad.contains('"') {
                // Every key the table takes, the heads' weights among them.
                assert!(
                    e.contains("`batch_size`") && e.contains("`material_weight`"),
                    "{e}"
                );
            }
        }
        let e = RunConfig::parse("[train]\nresidual_weight = -1.0\n", "x.toml").unwrap_err();
        assert!(
            e.contains("train.residual_weight") && e.contains("not negative"),
            "{e}"
        );
    }

    #[test]
    fn encode_threads_are_checked_with_the_config() {
        for bad in ["0", "257"] {
            let text = format!("[network]\nencode_threads = {bad}\n");
            let e = RunConfig::parse(&text, "x.toml").unwrap_err();
            assert!(
                e.contains("x.toml")
                    && e.contains("network.encode_threads")
                    && e.contains("1 to 256"),
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

    #[test]
    fn the_trainer_engine_is_rust_python_or_refused() {
        use tengu_trainer::TrainEngine;
        let default = RunConfig::parse("", "x.toml").unwrap();
        assert_eq!(default.train.engine, TrainEngine::Rust);
        assert_eq!(default.train.python, "python3");
        let python = RunConfig::parse(
            "[train]\nengine = \"python\"\npython = \"/opt/py/bin/python\"\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(python.train.engine, TrainEngine::Python);
        assert_eq!(python.train.python, "/opt/py/bin/python");
        let e = RunConfig::parse("[train]\nengine = \"torch\"\n", "x.toml").unwrap_err();
        assert!(
            e.contains("x.toml") && e.contains("rust") && e.contains("python"),
            "{e}"
        );
        let e = RunConfig::parse("[train]\npython = \" \"\n", "x.toml").unwrap_err();
        assert!(e.contains("train.python"), "{e}");
    }

    #[test]
    fn a_run_saved_before_the_arena_end_keys_keeps_its_adjudication() {
        let read = |text: &str| {
            let mut c = RunConfig::parse(text, "x.toml").unwrap();
            c.keep_legacy_arena_end(text);
            (c.arena.max_plies, c.arena.material_ratio, c.arena.contempt)
        };
        assert_eq!(read("[arena]\nmax_plies = 300\n"), (300, 1.5, 0.0));
        assert_eq!(
            read("[arena]\nmax_plies = 300\nmaterial_ratio = 0.0\ncontempt = 0.1\n"),
            (300, 0.0, 0.1)
        );
        // No [arena] table: the defaults, games to their end with contempt.
        assert_eq!(read(""), (4000, 0.0, 0.05));
        let e = RunConfig::parse("[arena]\nmaterial_ratio = 0.5\n", "x.toml").unwrap_err();
        assert!(e.contains("arena.material_ratio"), "{e}");
    }

    #[test]
    fn the_shipped_run_configs_parse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/run");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            RunConfig::parse(&text, &path.display().to_string()).unwrap();
            seen += 1;
        }
        assert!(seen >= 2);
    }

    #[test]
    fn the_main_configs_play_games_to_their_end() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/run");
        for name in ["dai-dai-cpu", "maka-dai-dai-cpu", "dai-dai-gpu"] {
            let path = dir.join(format!("{name}.toml"));
            let text = std::fs::read_to_string(&path).unwrap();
            let c = RunConfig::parse(&text, name).unwrap();
            let s = &c.selfplay;
            assert!(
                s.max_plies >= tengu_rules::end::TO_THE_END_PLIES
                    && s.material_adjudication == 0.0
                    && s.resign_threshold >= 1.0,
                "{name}: self-play is stopped before its end"
            );
            assert!(
                c.search.repetition_draw && c.search.mate_search > 0,
                "{name}"
            );
            assert!(
                c.arena.max_plies >= tengu_rules::end::TO_THE_END_PLIES
                    && c.arena.material_ratio == 0.0
                    && c.arena.contempt > 0.0,
                "{name}: the arena adjudicates"
            );
        }
    }

    #[test]
    fn a_ladder_rung_is_zero_or_more_hours() {
        let parse = |hours: &str| {
            RunConfig::parse(
                &format!("[arena]\nladder_cpu_hours = [{hours}]\n"),
                "x.toml",
            )
        };
        let c = parse("0.0, 0.25").unwrap();
        assert_eq!(c.arena.ladder_cpu_hours, vec![0.0, 0.25]);
        let e = parse("-1.0").unwrap_err();
        assert!(e.contains("arena.ladder_cpu_hours: -1"), "{e}");
    }
}
