//! Training settings (`[train]`): the trainer's section of the run configuration, which the
//! `tengu` binary's `config.rs` reads. Unknown keys are rejected; missing keys take the
//! defaults.

use serde::{Deserialize, Serialize};
use tengu_model::desc::HEADS;
use tengu_model::LossWeights;
use tengu_search::config::{check, check_fraction, ConfigError};

/// Training settings (`[train]`). Unknown keys are refused by [`HeadWeights`], which takes
/// the keys the fields do not (serde's `deny_unknown_fields` does not work beside a
/// flattened field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    /// Weight of the short-horizon value target: the search's root value
    /// `future_value_plies` plies later in the same game (or the result where the game ends
    /// sooner), for every row (KataGo's TD-style targets). The result keeps
    /// `1 - search_value_weight - future_value_weight`. 0: off.
    pub future_value_weight: f32,
    pub future_value_plies: u32,
    /// Share of the game's result in the judge's target (`(1 - w - f) tanh(teacher score /
    /// MATERIAL_SCALE) + w * result + f * future material`, the result +1 / 0 / -1 for the
    /// mover); 0: the teacher alone (nnue-pytorch's lambda = 1).
    pub teacher_result_weight: f32,
    /// Share `f` of the material balance `selfplay.target_horizon` plies later in the same
    /// game, `tanh(balance / MATERIAL_SCALE)` for the row's mover, in the judge's target: a
    /// dense target the game gives for free (KataGo's short-term targets). With
    /// `selfplay.teacher_depth = 0` (labels that cost one exchange count) and 1 here the
    /// judge learns where the material went instead of what a deeper search says.
    pub teacher_future_weight: f32,
    /// Seconds without a heartbeat after which another trainer may take the run over (a
    /// restarted trainer waits at most this long for a killed one's lease).
    pub lease_seconds: f64,
    /// How far back (seconds, by the shard names' clocks) each look for new shards reaches
    /// before the newest shard seen: covers clock differences between machines.
    pub listing_lookback_seconds: f64,
    /// The trainer `tengu run` starts: `rust` (`tengu train`) or `python` (the PyTorch
    /// trainer of the `tengu` Python package, `PYTHON -m tengu.train`; see
    /// [`crate::python`]). Either holds the run's trainer lease, so only one publishes.
    pub engine: TrainEngine,
    /// The interpreter of the `python` engine: a command on `PATH` or a path (the
    /// environment variable `TENGU_PYTHON` overrides it on a machine).
    pub python: String,
    /// The heads' loss weights, one `[train]` key each (`tengu_model::desc::HEADS`'
    /// `weight_key`): future occupancy per square (`ownership_weight`), future material
    /// balance (`material_weight`), the judge's residual toward the teacher's score on rows
    /// with a teacher label (`residual_weight`; `selfplay.teacher_share`). 0 switches a
    /// head's training off.
    #[serde(flatten)]
    pub head_weights: HeadWeights,
}

/// The `[train]` keys of the heads' loss weights, every head's key present (its default
/// when the file leaves it out). Deserialized from the keys the other fields of
/// [`TrainConfig`] do not take: any other key is refused, naming it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeadWeights(LossWeights);

impl HeadWeights {
    /// Every `[train]` key with its weight, in `HEADS`' order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f32)> + '_ {
        HEADS
            .iter()
            .filter_map(|h| Some((h.weight_key?, self.0.of(h))))
    }
}

impl Serialize for HeadWeights {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for HeadWeights {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = HeadWeights;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the [train] table")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HeadWeights, A::Error> {
                let mut weights = HeadWeights::default();
                while let Some(key) = map.next_key::<String>()? {
                    if !tengu_model::desc::weight_keys().contains(&key.as_str()) {
                        // serde's own message for an unknown field, which a flattened
                        // field does not give: every key the table takes.
                        let known = serde_json::to_value(TrainConfig::default())
                            .ok()
                            .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
                            .unwrap_or_else(Vec::new);
                        let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
                        return Err(serde::de::Error::custom(format!(
                            "unknown field `{key}` in [train], expected one of {}",
                            known.join(", ")
                        )));
                    }
                    // Read as any value first, so that a wrong type names its key (a
                    // flattened field's own errors do not).
                    let value: serde_json::Value = map.next_value()?;
                    let weight = value.as_f64().ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "train.{key} must be a number, not {value}"
                        ))
                    })?;
                    weights
                        .0
                        .set(&key, weight as f32)
                        .map_err(serde::de::Error::custom)?;
                }
                Ok(weights)
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// Which implementation trains a run under `tengu run` (`train.engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainEngine {
    /// `tengu train`: burn on CPU, tch on one GPU.
    #[default]
    Rust,
    /// `python -m tengu.train`: PyTorch (one process; several GPUs through `torchrun`, see
    /// the deploy examples).
    Python,
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
            future_value_weight: 0.0,
            future_value_plies: 8,
            teacher_result_weight: 0.0,
            teacher_future_weight: 0.0,
            lease_seconds: 30.0,
            listing_lookback_seconds: 600.0,
            engine: TrainEngine::Rust,
            python: "python3".into(),
            head_weights: HeadWeights::default(),
        }
    }
}

impl TrainConfig {
    /// Shares of the value target besides the game result.
    pub fn value_target_mix(&self) -> crate::window::ValueTargetMix {
        crate::window::ValueTargetMix {
            search: self.search_value_weight,
            future: self.future_value_weight,
            teacher_result: self.teacher_result_weight,
            teacher_future: self.teacher_future_weight,
        }
    }

    /// The heads' loss weights.
    pub fn loss_weights(&self) -> tengu_model::LossWeights {
        self.head_weights.0
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        check(self.batch_size >= 1, "train.batch_size", "be at least 1")?;
        check(
            self.learning_rate > 0.0,
            "train.learning_rate",
            "be positive",
        )?;
        check(
            self.weight_decay >= 0.0,
            "train.weight_decay",
            "not be negative",
        )?;
        check(self.window_rows >= 1, "train.window_rows", "be at least 1")?;
        check(
            self.passes_per_row > 0.0,
            "train.passes_per_row",
            "be positive",
        )?;
        for (key, weight) in self.head_weights.iter() {
            if !(weight >= 0.0 && weight.is_finite()) {
                return Err(ConfigError::OutOfRange {
                    key: format!("train.{key}").into(),
                    rule: "be a finite number, not negative",
                });
            }
        }
        check_fraction("train.teacher_result_weight", self.teacher_result_weight)?;
        check_fraction("train.teacher_future_weight", self.teacher_future_weight)?;
        check(
            self.teacher_result_weight + self.teacher_future_weight <= 1.0,
            "train.teacher_result_weight + train.teacher_future_weight",
            "be at most 1 (the teacher's score has the rest)",
        )?;
        check_fraction("train.search_value_weight", self.search_value_weight)?;
        check_fraction("train.future_value_weight", self.future_value_weight)?;
        check(
            self.search_value_weight + self.future_value_weight <= 1.0,
            "train.search_value_weight + train.future_value_weight",
            "be at most 1 (the game result has the rest)",
        )?;
        check(
            self.future_value_plies >= 1,
            "train.future_value_plies",
            "be at least 1",
        )?;
        check(
            self.lease_seconds >= 1.0 && self.listing_lookback_seconds >= 0.0,
            "train.lease_seconds",
            "be at least 1 and train.listing_lookback_seconds not negative",
        )?;
        check(
            !self.python.trim().is_empty(),
            "train.python",
            "name a Python interpreter (a command or a path)",
        )?;
        check(
            self.steps_per_checkpoint >= 1,
            "train.steps_per_checkpoint",
            "be at least 1",
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
