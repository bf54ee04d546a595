//! The loss log of a run: JSON lines, one per training step, in segments
//! `train/<step:09>.jsonl` holding the steps after checkpoint `<step>`. Only the trainer
//! writes it; a segment is rewritten whole (stores have no append) every few seconds and
//! when its checkpoint is published, so a long run never rewrites its whole history.

use std::time::{Duration, Instant};

use tengu_store::{layout, RunStore, StoreError};

use crate::records::{read_lines, to_line, LossRecord, ReadError};

pub struct TrainLog {
    /// The checkpoint step the current segment follows.
    segment: u64,
    text: String,
    dirty: bool,
    last_flush: Instant,
    every: Duration,
}

impl TrainLog {
    /// Continues the log of a run resumed from checkpoint `step`: segments after it (steps
    /// trained by a trainer that died before its next checkpoint) are removed, since those
    /// steps are trained again. Returns the log and how many segments went.
    pub fn resume(store: &RunStore, step: u64) -> Result<(TrainLog, usize), StoreError> {
        let mut dropped = 0;
        for e in store.list(layout::TRAIN_LOG)? {
            let segment = e
                .name()
                .strip_suffix(".jsonl")
                .and_then(|s| s.parse::<u64>().ok());
            if segment.is_some_and(|s| s >= step) {
                store.delete(&e.key)?;
                dropped += 1;
            }
        }
        let every = Duration::from_secs(if store.local_dir().is_some() { 2 } else { 30 });
        Ok((
            TrainLog {
                segment: step,
                text: String::new(),
                dirty: false,
                last_flush: Instant::now(),
                every,
            },
            dropped,
        ))
    }

    /// Adds one step's record; the segment is written every few seconds.
    pub fn push(&mut self, store: &RunStore, record: &LossRecord) -> Result<(), StoreError> {
        self.text.push_str(&to_line(record));
        self.text.push('\n');
        self.dirty = true;
        if self.last_flush.elapsed() >= self.every {
            self.flush(store)?;
        }
        Ok(())
    }

    /// Writes the current segment if it changed.
    pub fn flush(&mut self, store: &RunStore) -> Result<(), StoreError> {
        if self.dirty {
            store.put(
                &layout::train_log_key(self.segment),
                self.text.clone().into_bytes(),
            )?;
            self.dirty = false;
        }
        self.last_flush = Instant::now();
        Ok(())
    }

    /// Writes the current segment and starts the one after checkpoint `step`.
    pub fn next_segment(&mut self, store: &RunStore, step: u64) -> Result<(), StoreError> {
        self.flush(store)?;
        self.segment = step;
        self.text.clear();
        Ok(())
    }
}

/// The whole loss log of a run, oldest step first ("" when there is none).
pub fn read(store: &RunStore) -> Result<String, StoreError> {
    let mut text = String::new();
    for e in store.list(layout::TRAIN_LOG)? {
        if e.name().ends_with(".jsonl") {
            text.push_str(&store.get_text(&e.key)?.unwrap_or_default());
        }
    }
    Ok(text)
}

/// The whole loss log of a run as records, oldest step first; a damaged line or one of
/// another version is refused, naming its segment and line.
pub fn read_records(store: &RunStore) -> Result<Vec<LossRecord>, ReadError> {
    let mut records = Vec::new();
    for e in store.list(layout::TRAIN_LOG)? {
        if e.name().ends_with(".jsonl") {
            let text = store.get_text(&e.key)?.unwrap_or_default();
            records.extend(read_lines::<LossRecord>(&store.address_of(&e.key), &text)?);
        }
    }
    Ok(records)
}

/// The last line of the loss log (`None` when there is none, or it cannot be read).
pub fn last_line(store: &RunStore) -> Option<LossRecord> {
    let entries = store.list(layout::TRAIN_LOG).ok()?;
    for e in entries.iter().rev() {
        let text = store.get_text(&e.key).ok()??;
        if let Some(line) = text.lines().rev().find(|l| !l.trim().is_empty()) {
            return read_lines::<LossRecord>(&store.address_of(&e.key), line)
                .ok()?
                .pop();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_model::desc::HeadId;

    #[test]
    fn segments_follow_checkpoints_and_a_resume_drops_the_steps_trained_again() {
        let store = RunStore::open("memory://train-log-tests/run").unwrap();
        let (mut log, dropped) = TrainLog::resume(&store, 0).unwrap();
        assert_eq!(dropped, 0);
        let record = |step: u64| LossRecord {
            heads: crate::records::HeadLosses::default().with_step(HeadId::Value, 0.5),
            ..LossRecord::at(step, 0.0)
        };
        for step in 1..=5u64 {
            log.push(&store, &record(step)).unwrap();
            if step == 3 {
                log.next_segment(&store, 3).unwrap();
            }
        }
        log.flush(&store).unwrap();
        let steps = |store: &RunStore| -> Vec<u64> {
            read_records(store)
                .unwrap()
                .iter()
                .map(|r| r.step)
                .collect()
        };
        assert_eq!(steps(&store), [1, 2, 3, 4, 5]);
        assert_eq!(last_line(&store).unwrap().step, 5);
        // Resumed from checkpoint 3: steps 4 and 5 are trained again.
        let (_, dropped) = TrainLog::resume(&store, 3).unwrap();
        assert_eq!(dropped, 1);
        assert_eq!(steps(&store), [1, 2, 3]);
        // A damaged segment is refused by name and line.
        store
            .put(&layout::train_log_key(3), b"{\"step\": 4, \"polic".to_vec())
            .unwrap();
        let e = read_records(&store).unwrap_err().to_string();
        assert!(
            e.contains("000000003.jsonl:1: not a loss log record"),
            "{e}"
        );
    }
}
