//! The run's records beside the loss log, one type each: the ratings line ([`EloRecord`],
//! `elo.jsonl`) and the tactics suite line ([`SuiteRecord`], `suite.jsonl`), written by
//! `tengu run`'s supervisor, and the compute ladder's report
//! (`tengu_arena::ladder::LadderReport`, `ladder/ladder.json`, read by [`read_ladder`]);
//! their file names are in `tengu_store::layout`. They are read and written as
//! `tengu_trainer::records` reads and writes the loss log (the same versions, the same
//! refusals of a damaged line).

use serde::{Deserialize, Serialize};
use tengu_arena::ladder::{LadderReport, LADDER_REPORT_VERSION};
use tengu_arena::outcome::MatchOutcome;
use tengu_trainer::records::{unversioned, ReadError, Record, RecordError, RECORD_VERSION};

/// Seconds since 1970, the records' `unix_time`.
fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// One evaluation match of a checkpoint (`elo.jsonl`), written by `tengu run`'s supervisor:
/// against the previously evaluated checkpoint (then `rating` chains the results from the
/// first checkpoint) or a baseline (`opponent` its name). The first line of a run is the
/// first checkpoint's rating 0 alone (no match: `opponent` and the match's keys absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EloRecord {
    #[serde(default = "unversioned")]
    pub version: u32,
    /// The checkpoint's weights name (`model-<step>.safetensors`).
    pub checkpoint: String,
    pub step: u64,
    /// The chained rating of the checkpoint (Elo relative to the run's first checkpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// The opponent: a baseline's label or the previous checkpoint's stem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// The match from the checkpoint's view, its keys flat in the line; lines of version 2
    /// and before kept `games` but not the wins, draws and losses, nor the endings.
    #[serde(flatten, deserialize_with = "tengu_arena::outcome::optional")]
    pub outcome: Option<MatchOutcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_time: Option<f64>,
}

impl Record for EloRecord {
    const KIND: &'static str = "rating";
    fn version(&self) -> u32 {
        self.version
    }
}

impl EloRecord {
    /// The rating of a run's first checkpoint (0, no match).
    pub fn first(checkpoint: &str, step: u64) -> EloRecord {
        EloRecord {
            version: RECORD_VERSION,
            checkpoint: checkpoint.into(),
            step,
            rating: Some(0.0),
            opponent: None,
            outcome: None,
            unix_time: None,
        }
    }

    /// A match of `checkpoint` against `opponent`, timed now.
    pub fn of_match(
        checkpoint: &str,
        step: u64,
        opponent: &str,
        report: &tengu_arena::report::MatchReport,
    ) -> EloRecord {
        EloRecord {
            version: RECORD_VERSION,
            checkpoint: checkpoint.into(),
            step,
            rating: None,
            opponent: Some(opponent.into()),
            outcome: Some(report.outcome.clone()),
            unix_time: Some(now()),
        }
    }
}

/// One score of a checkpoint on the game's tactics suite (`suite.jsonl`), written by
/// `tengu run`'s supervisor from `tengu suite --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteRecord {
    #[serde(default = "unversioned")]
    pub version: u32,
    pub checkpoint: String,
    pub step: u64,
    /// Share of positions whose best move is the policy's first (top three) choice.
    pub top1: f64,
    pub top3: f64,
    /// Share of positions whose value has the expected sign.
    pub value_sign: f64,
    /// `top1` per category of position (capture, mate, save, ...).
    #[serde(default)]
    pub top1_by_category: std::collections::BTreeMap<String, f64>,
    pub positions: u64,
    pub unix_time: f64,
}

impl Record for SuiteRecord {
    const KIND: &'static str = "tactics suite";
    fn version(&self) -> u32 {
        self.version
    }
}

/// What `tengu suite --json` reports and the supervisor reads (the keys it keeps).
#[derive(Clone, Debug, Deserialize)]
pub struct SuiteReport {
    pub top1: f64,
    pub top3: f64,
    pub value_sign: f64,
    #[serde(default)]
    pub top1_by_category: std::collections::BTreeMap<String, f64>,
    pub positions: u64,
}

impl SuiteRecord {
    /// The line of `checkpoint`'s `report`, timed now.
    pub fn of_report(checkpoint: &str, step: u64, report: SuiteReport) -> SuiteRecord {
        SuiteRecord {
            version: RECORD_VERSION,
            checkpoint: checkpoint.into(),
            step,
            top1: report.top1,
            top3: report.top3,
            value_sign: report.value_sign,
            top1_by_category: report.top1_by_category,
            positions: report.positions,
            unix_time: now(),
        }
    }
}

/// The compute ladder's report (`ladder/ladder.json`, `tengu_arena::ladder::LadderReport`)
/// read from its text (the file `file`): refused, naming the file, when it is damaged or of
/// another version than [`tengu_arena::ladder::LADDER_REPORT_VERSION`].
pub fn read_ladder(file: &str, text: &str) -> Result<LadderReport, RecordError> {
    const KIND: &str = "compute ladder";
    let damaged = |message: String| RecordError::Damaged {
        file: file.to_string(),
        line: 1,
        kind: KIND,
        message,
    };
    // The version first, so a report of another version is named as such even when its
    // other keys changed too.
    #[derive(Deserialize)]
    struct Versioned {
        version: u32,
    }
    let Versioned { version } = serde_json::from_str(text).map_err(|e| damaged(e.to_string()))?;
    if version != LADDER_REPORT_VERSION {
        return Err(RecordError::Version {
            file: file.to_string(),
            line: 1,
            kind: KIND,
            found: version,
        });
    }
    serde_json::from_str(text).map_err(|e| damaged(e.to_string()))
}

/// The run's compute ladder report, `None` when there is none yet.
pub fn read_store_ladder(store: &tengu_store::RunStore) -> Result<Option<LadderReport>, ReadError> {
    let key = tengu_store::layout::LADDER_REPORT;
    match store.get_text(key)? {
        None => Ok(None),
        Some(text) => Ok(Some(read_ladder(&store.address_of(key), &text)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_trainer::records::{read_lines, to_line, UNVERSIONED};

    /// The first lines of the files of a run from before the records had versions
    /// (`experiments/baselines/dai-dai-cpu-2026-11-25`).
    fn baseline(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../experiments/baselines/dai-dai-cpu-2026-11-25")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        text.lines().take(5).map(|l| format!("{l}\n")).collect()
    }

    /// Each reader: an older version's file is read as that version, and a line written by
    /// this build reads back the same (damaged lines and later versions are refused by the
    /// one reader, `tengu_trainer::records::read_lines`, tested there).
    fn check<T: Record + PartialEq + std::fmt::Debug>(file: &str, old: &str) -> Vec<T> {
        let read: Vec<T> = read_lines(file, old).unwrap();
        assert_eq!(read.len(), old.lines().count());
        assert!(read.iter().all(|r| r.version() == UNVERSIONED));
        let last = old.lines().last().unwrap();
        let current: T = serde_json::from_str(&last.replacen(
            '{',
            &format!("{{\"version\":{RECORD_VERSION},"),
            1,
        ))
        .unwrap();
        assert_eq!(current.version(), RECORD_VERSION);
        let again: Vec<T> = read_lines(file, &to_line(&current)).unwrap();
        assert_eq!(again, [current]);
        read
    }

    #[test]
    fn the_ratings_read_old_lines_and_refuse_damaged_ones() {
        let old = baseline("elo.jsonl");
        let read: Vec<EloRecord> = check("elo.jsonl", &old);
        assert_eq!(read[0].rating, Some(0.0));
        assert_eq!(
            (read[0].opponent.as_ref(), read[0].outcome.as_ref()),
            (None, None)
        );
        assert_eq!(read[1].opponent.as_deref(), Some("greedy"));
        // A match line of version 1: games and score, no wins, draws and losses.
        let outcome = read[1]
            .outcome
            .as_ref()
            .expect("a match line has its outcome");
        assert_eq!(
            (outcome.games, outcome.counts, outcome.score),
            (10, None, 0.5)
        );
        assert!(
            (outcome.material_share - 0.5312).abs() < 1e-4,
            "{outcome:?}"
        );
        // A renamed key of the match is refused, not read as a line without a match.
        let renamed = old.lines().nth(1).unwrap().replace("elo_low", "elo_lo");
        let e = read_lines::<EloRecord>("elo.jsonl", &renamed).unwrap_err();
        assert!(e.to_string().contains("elo_lo"), "{e}");
        let cut = old.lines().nth(1).unwrap().replace("\"score\":0.5,", "");
        let e = read_lines::<EloRecord>("elo.jsonl", &cut).unwrap_err();
        assert!(e.to_string().contains("`score`"), "{e}");
        // A line of this version keeps the counts and the endings.
        let report = tengu_arena::report::MatchReport::new(
            "a",
            "b",
            &tengu_arena::matches::MatchSummary {
                score: tengu_arena::elo::Score {
                    wins: 1,
                    draws: 2,
                    losses: 3,
                },
                results: Vec::new(),
                sprt: None,
            },
            None,
        );
        let line = to_line(&EloRecord::of_match("m.safetensors", 5, "greedy", &report));
        assert!(line.contains(r#""wins":1,"draws":2,"losses":3"#), "{line}");
        let back: Vec<EloRecord> = read_lines("elo.jsonl", &line).unwrap();
        assert_eq!(back[0].outcome.as_ref(), Some(&report.outcome));
    }

    #[test]
    fn the_ladder_report_refuses_another_version_and_a_truncated_file() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../experiments/baselines/dai-dai-cpu-2026-11-25/ladder/ladder.json");
        let text = std::fs::read_to_string(path).unwrap();
        let report = read_ladder("ladder.json", &text).unwrap();
        assert!(!report.rungs.is_empty());
        // Written before the outcome had a type: no games key, counted from the results.
        assert!(
            !text.contains("\"games\""),
            "the baseline's report predates the key"
        );
        for m in report.rungs.iter().flat_map(|r| &r.matches) {
            let counts = m.outcome.counts.expect("a rung's match has its counts");
            assert_eq!(m.outcome.games, counts.games());
            assert!(m.outcome.games > 0 && m.capped <= m.outcome.games, "{m:?}");
        }
        let older = text.replacen("\"version\": 1", "\"version\": 0", 1);
        assert_ne!(older, text, "the baseline's report has version 1");
        let e = read_ladder("ladder.json", &older).unwrap_err();
        assert!(matches!(e, RecordError::Version { found: 0, .. }), "{e}");
        assert!(e.to_string().starts_with("ladder.json:1:"), "{e}");
        let e = read_ladder("ladder.json", &text[..text.len() / 2]).unwrap_err();
        assert!(matches!(e, RecordError::Damaged { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("ladder.json:1: not a compute ladder"),
            "{e}"
        );
    }

    #[test]
    fn the_suite_scores_read_old_lines_and_refuse_damaged_ones() {
        let old = baseline("suite.jsonl");
        let read: Vec<SuiteRecord> = check("suite.jsonl", &old);
        assert_eq!(read[0].positions, 2000);
        assert!(read[1].top1_by_category.contains_key("capture"));
    }
}
