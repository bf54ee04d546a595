//! The record types every run file shares, and the loss log line ([`LossRecord`],
//! `train/*.jsonl`), which the trainer writes. The run's other records (ratings, tactics
//! suite, the compute ladder's report) are `tengu_run::records`; their file names are in
//! `tengu_store::layout`. Every writer and reader goes through these types, so a renamed or
//! mistyped key is an error, not a value read back as null.
//!
//! Each line carries `"version"` ([`RECORD_VERSION`]). Lines without one were written
//! before the records had types (version 1, the same keys): they are read as version 1.
//! A line of another version, a line that is not a record (a truncated write, a key of the
//! wrong type, an unknown key) is refused by [`read_lines`] with the file and the line.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tengu_model::desc::{HeadId, HEADS, HEAD_COUNT};

/// The version of the records this build writes; it reads this one and the versions before
/// it: version 1 (the keys of version 2 without `"version"`), version 2 (a rating line's
/// match without wins, draws, losses and endings).
pub const RECORD_VERSION: u32 = 3;

/// The version of a line without `"version"`: written before the records had types.
pub const UNVERSIONED: u32 = 1;

/// [`UNVERSIONED`], as the serde default of a record's `version` field.
pub fn unversioned() -> u32 {
    UNVERSIONED
}

/// A record line that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{file}:{line}: not a {kind} record: {message}")]
    Damaged {
        file: String,
        line: usize,
        kind: &'static str,
        message: String,
    },
    #[error("{file}:{line}: a {kind} record of version {found}; this build reads versions {UNVERSIONED} to {RECORD_VERSION}")]
    Version {
        file: String,
        line: usize,
        kind: &'static str,
        found: u32,
    },
}

/// A record type: its name in messages and its version field.
pub trait Record: Serialize + DeserializeOwned {
    /// What the record is, for messages (`loss log`, `rating`, `tactics suite`).
    const KIND: &'static str;
    fn version(&self) -> u32;
}

/// Every non-empty line of `text` (the file `file`) as a `T`, oldest first; the first line
/// that is damaged or of another version is refused, naming `file` and its line number.
pub fn read_lines<T: Record>(file: &str, text: &str) -> Result<Vec<T>, RecordError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: T = serde_json::from_str(line).map_err(|e| RecordError::Damaged {
            file: file.to_string(),
            line: i + 1,
            kind: T::KIND,
            message: e.to_string(),
        })?;
        let version = record.version();
        if !(UNVERSIONED..=RECORD_VERSION).contains(&version) {
            return Err(RecordError::Version {
                file: file.to_string(),
                line: i + 1,
                kind: T::KIND,
                found: version,
            });
        }
        out.push(record);
    }
    Ok(out)
}

/// One line of text of `record` (JSON, no newline).
pub fn to_line<T: Record>(record: &T) -> String {
    serde_json::to_string(record).expect("records serialise")
}

/// One training step of the loss log (`train/<step>.jsonl`), written by `tengu train` and
/// the PyTorch trainer. Losses are means over the step's batch in nats (squared error for
/// material); `None` (JSON null) where there is no value (no row with a policy target; a
/// NaN). Unknown keys are refused by [`HeadLosses`], which takes the keys the fields do
/// not (serde's `deny_unknown_fields` does not work beside a flattened field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossRecord {
    #[serde(default = "unversioned")]
    pub version: u32,
    /// The step this line reports (1-based: the steps taken).
    pub step: u64,
    /// Policy cross-entropy per row with a policy target.
    pub policy_loss: Option<f64>,
    /// Rows of the batch with a policy target.
    pub policy_target_rows: u64,
    /// The learning rate of the step.
    pub learning_rate: f64,
    pub samples_per_second: f64,
    pub window_rows: u64,
    pub rows_seen: u64,
    pub games_seen: u64,
    /// Seconds since 1970 when the line was written.
    pub unix_time: f64,
    /// CPU seconds of the whole run so far (its CPU ledger).
    pub cpu_seconds: f64,
    /// Held-out losses, at checkpoints only (policy per row with a target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heldout_policy_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heldout_rows: Option<u64>,
    /// Every head's loss on the step's batch and on the held-out rows (`value_loss`,
    /// `heldout_value_loss`, ...).
    #[serde(flatten)]
    pub heads: HeadLosses,
}

/// The losses of the heads of `tengu_model::desc::HEADS` in a loss log line: the keys
/// `<loss_name>_loss` (the step's batch; null when no row of it had the head's target, or
/// absent in a line from before the head existed) and `heldout_<loss_name>_loss` (at
/// checkpoints only). Deserialized from the keys the other fields of [`LossRecord`] do not
/// take: any other key is refused, naming it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeadLosses {
    /// On the step's batch, in `HEADS`' order.
    pub step: [Option<f64>; HEAD_COUNT],
    /// On the held-out rows, in `HEADS`' order.
    pub heldout: [Option<f64>; HEAD_COUNT],
}

impl HeadLosses {
    /// The step's loss of `head` (`None`: the line has none).
    pub fn step(&self, head: HeadId) -> Option<f64> {
        self.step[head.index()]
    }

    /// The held-out loss of `head` (`None`: the line has none).
    pub fn heldout(&self, head: HeadId) -> Option<f64> {
        self.heldout[head.index()]
    }

    /// Sets the step's (`heldout` false) or the held-out loss of `head`.
    pub fn set(&mut self, head: HeadId, heldout: bool, loss: Option<f64>) {
        let i = head.index();
        if heldout {
            self.heldout[i] = loss;
        } else {
            self.step[i] = loss;
        }
    }

    /// These losses with the step's loss of `head` set to `loss`.
    pub fn with_step(mut self, head: HeadId, loss: f64) -> HeadLosses {
        self.set(head, false, Some(loss));
        self
    }

    /// These losses with the held-out loss of `head` set to `loss`.
    pub fn with_heldout(mut self, head: HeadId, loss: f64) -> HeadLosses {
        self.set(head, true, Some(loss));
        self
    }

    /// Which slot a key of the line fills: `(held out?, head index)`.
    fn slot(key: &str) -> Option<(bool, usize)> {
        let (heldout, name) = match key.strip_prefix("heldout_") {
            Some(rest) => (true, rest),
            None => (false, key),
        };
        let head = HeadId::from_loss_name(name.strip_suffix("_loss")?)?;
        Some((heldout, head.index()))
    }
}

impl Serialize for HeadLosses {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (head, loss) in HEADS.iter().zip(&self.step) {
            map.serialize_entry(&format!("{}_loss", head.loss_name), loss)?;
        }
        for (head, loss) in HEADS.iter().zip(&self.heldout) {
            if loss.is_some() {
                map.serialize_entry(&format!("heldout_{}_loss", head.loss_name), loss)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for HeadLosses {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = HeadLosses;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a loss log line")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HeadLosses, A::Error> {
                let mut losses = HeadLosses::default();
                while let Some(key) = map.next_key::<String>()? {
                    let (heldout, index) = HeadLosses::slot(&key).ok_or_else(|| {
                        serde::de::Error::custom(format!(
                            "unknown field `{key}` (a head's loss is <head>_loss or heldout_<head>_loss, the heads {})",
                            HEADS.iter().map(|h| h.loss_name).collect::<Vec<_>>().join(", ")
                        ))
                    })?;
                    let loss: Option<f64> = map.next_value()?;
                    if heldout {
                        losses.heldout[index] = loss;
                    } else {
                        losses.step[index] = loss;
                    }
                }
                Ok(losses)
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

impl Record for LossRecord {
    const KIND: &'static str = "loss log";
    fn version(&self) -> u32 {
        self.version
    }
}

impl LossRecord {
    /// A line of step `step` written at `unix_time` with nothing measured yet (every loss
    /// null, every count 0): fill in the rest with struct update syntax.
    pub fn at(step: u64, unix_time: f64) -> LossRecord {
        LossRecord {
            version: RECORD_VERSION,
            step,
            policy_loss: None,
            policy_target_rows: 0,
            learning_rate: 0.0,
            samples_per_second: 0.0,
            window_rows: 0,
            rows_seen: 0,
            games_seen: 0,
            unix_time,
            cpu_seconds: 0.0,
            heldout_policy_loss: None,
            heldout_rows: None,
            heads: HeadLosses::default(),
        }
    }
}

/// A value as the log writes it: finite, else null.
pub fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Reads the records of `key` in `store` (none when the file is missing).
pub fn read_store<T: Record>(
    store: &tengu_store::RunStore,
    key: &str,
) -> Result<Vec<T>, ReadError> {
    let text = store.get_text(key)?.unwrap_or_default();
    Ok(read_lines(&store.address_of(key), &text)?)
}

/// A record file that cannot be read: the store failed, or a line is refused.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Store(#[from] tengu_store::StoreError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first lines of the files of a run from before the records had versions
    /// (`experiments/baselines/dai-dai-cpu-2026-11-25`).
    fn baseline(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../experiments/baselines/dai-dai-cpu-2026-11-25")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        text.lines().take(5).map(|l| format!("{l}\n")).collect()
    }

    /// Each reader: an older version's file is read, a truncated one and one of a later
    /// version are refused naming the file and line, and a written line reads back.
    fn check<T: Record + PartialEq + std::fmt::Debug>(file: &str, old: &str) -> Vec<T> {
        let read: Vec<T> = read_lines(file, old).unwrap();
        assert_eq!(read.len(), old.lines().count());
        assert!(read.iter().all(|r| r.version() == UNVERSIONED));
        let last = old.lines().last().unwrap();
        let truncated =
            format!("{}{}", old.lines().next().unwrap(), "\n") + &last[..last.len() / 2];
        let e = read_lines::<T>(file, &truncated).unwrap_err();
        assert!(matches!(e, RecordError::Damaged { line: 2, .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{file}:2: not a {}", T::KIND)),
            "{e}"
        );
        let later = last.replacen('{', "{\"version\":99,", 1);
        let e = read_lines::<T>(file, &later).unwrap_err();
        assert!(
            matches!(
                e,
                RecordError::Version {
                    found: 99,
                    line: 1,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains(&format!("{file}:1:")), "{e}");
        // Written by this build: its version, and read back the same.
        let mut current: T = serde_json::from_str(last).unwrap();
        current = serde_json::from_str(&to_line(&current).replacen(
            "\"version\":1",
            &format!("\"version\":{RECORD_VERSION}"),
            1,
        ))
        .unwrap();
        assert_eq!(current.version(), RECORD_VERSION);
        let again: Vec<T> = read_lines(file, &to_line(&current)).unwrap();
        assert_eq!(again, [current]);
        read
    }

    #[test]
    fn the_loss_log_reads_old_lines_and_refuses_damaged_ones() {
        let old = baseline("train/000000200.jsonl");
        let read: Vec<LossRecord> = check("train/000000200.jsonl", &old);
        assert_eq!(read[0].step, 201);
        assert!(read[0].heads.step(HeadId::Value).unwrap() > 0.0);
        // A renamed key is refused, not read as null.
        let renamed = old
            .lines()
            .next()
            .unwrap()
            .replace("value_loss", "value_los");
        let e = read_lines::<LossRecord>("x.jsonl", &renamed).unwrap_err();
        assert!(e.to_string().contains("value_los"), "{e}");
        // So is the loss of a head the network does not have.
        let unknown = old
            .lines()
            .next()
            .unwrap()
            .replace("\"value_loss\"", "\"heldout_mood_loss\"");
        let e = read_lines::<LossRecord>("x.jsonl", &unknown).unwrap_err();
        assert!(
            e.to_string().contains("x.jsonl:1") && e.to_string().contains("heldout_mood_loss"),
            "{e}"
        );
    }

    #[test]
    fn a_loss_log_line_names_each_heads_losses_as_before() {
        let mut record = LossRecord {
            heads: HeadLosses::default().with_step(HeadId::Value, 0.5),
            ..LossRecord::at(3, 10.0)
        };
        let line: serde_json::Value = serde_json::from_str(&to_line(&record)).unwrap();
        // Every head's step loss is a key (null without a value); held-out ones only at
        // checkpoints.
        for head in HEADS {
            assert!(
                line.get(format!("{}_loss", head.loss_name)).is_some(),
                "{line}"
            );
            assert!(
                line.get(format!("heldout_{}_loss", head.loss_name))
                    .is_none(),
                "{line}"
            );
        }
        assert_eq!(line["value_loss"], 0.5);
        assert!(line["residual_loss"].is_null());
        record.heads.set(HeadId::Residual, true, Some(0.25));
        let back: Vec<LossRecord> = read_lines("x.jsonl", &to_line(&record)).unwrap();
        assert_eq!(back[0], record);
        assert_eq!(back[0].heads.heldout(HeadId::Residual), Some(0.25));
        assert_eq!(back[0].heads.step(HeadId::Residual), None);
    }
}
