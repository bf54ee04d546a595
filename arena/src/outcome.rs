//! A finished match summarised from one side's view, [`MatchOutcome`]: the one type that
//! the match report (`tengu match --json`), each match of a compute ladder rung
//! (`ladder.json`), each pairing of a tournament (`standings.json`) and each rating line of
//! a run (`elo.jsonl`) hold, so that their keys are spelled once.
//!
//! Its keys sit flat in the object that holds it (`#[serde(flatten)]`), as they did when each
//! of those spelled them out: `games`, `wins`, `draws`, `losses`, `score`, `elo`, `elo_low`,
//! `elo_high`, `material_share`, `material_share_se` and `endings`. Files written before the
//! type still read: a ladder's rung matches had no `games` (it is their wins, draws and
//! losses), rating lines had `games` but no wins, draws or losses, and neither had `endings`
//! before it was kept.

use serde::{Deserialize, Serialize};

use crate::elo::{elo_interval, finite, Score};
use crate::matches::{EndingCount, MatchSummary};

/// A finished match from one side's view (A, the side whose results these are).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "OutcomeKeys", into = "OutcomeKeys")]
pub struct MatchOutcome {
    /// Games finished.
    pub games: u64,
    /// A's wins, draws and losses; `None` only in rating lines (`elo.jsonl`) written before
    /// they were kept, which kept `games` and `score` alone.
    pub counts: Option<Score>,
    /// A's mean score per game, in [0, 1].
    pub score: f64,
    /// A's Elo difference and its 95% interval (Wilson, [`crate::elo`]); `None` (JSON null)
    /// where the results do not bound it: the estimate and one end after a perfect or a zero
    /// score.
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// A's mean share of both sides' material at the games' ends (0.5 even) and its
    /// standard error.
    pub material_share: f64,
    pub material_share_se: f64,
    /// How the games ended, in `GameEnd::all`'s order; empty in files written before it
    /// was kept.
    pub endings: Vec<EndingCount>,
}

impl MatchOutcome {
    /// The outcome of a finished match, from its A's view.
    pub fn new(summary: &MatchSummary) -> MatchOutcome {
        let s = summary.score;
        let interval = elo_interval(&s);
        let (material_share, material_share_se) = summary.material_share();
        MatchOutcome {
            games: s.games(),
            counts: Some(s),
            score: s.mean(),
            elo: finite(interval.elo),
            elo_low: finite(interval.low),
            elo_high: finite(interval.high),
            material_share,
            material_share_se,
            endings: summary.endings(),
        }
    }

    /// The Elo difference a rating chain moves by: the estimate, or after a perfect (zero)
    /// score, when the estimate and one end are unbounded, the finite end (the smallest
    /// difference the results support); `None` when neither is known.
    pub fn chain_elo(&self) -> Option<f64> {
        self.elo
            .or_else(|| self.elo_low.filter(|_| self.elo_high.is_none()))
            .or_else(|| self.elo_high.filter(|_| self.elo_low.is_none()))
    }

    /// `+W =D -L`, or `N games` where the counts were not kept.
    pub fn counts_text(&self) -> String {
        match self.counts {
            Some(s) => format!("+{} ={} -{}", s.wins, s.draws, s.losses),
            None => format!("{} games", self.games),
        }
    }
}

/// The keys of a [`MatchOutcome`] as they are written, and as files written before the type
/// hold them (see the module documentation). Every key may be absent here, so that
/// [`optional`] tells a record without a match from one whose match keys are damaged.
#[derive(Default, PartialEq, Serialize, Deserialize)]
struct OutcomeKeys {
    /// Absent in a ladder's rung matches written before the type.
    #[serde(default)]
    games: Option<u64>,
    /// Absent (all three) in rating lines written before the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wins: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    draws: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    losses: Option<u64>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    elo: Option<f64>,
    #[serde(default)]
    elo_low: Option<f64>,
    #[serde(default)]
    elo_high: Option<f64>,
    #[serde(default)]
    material_share: Option<f64>,
    #[serde(default)]
    material_share_se: Option<f64>,
    #[serde(default)]
    endings: Vec<EndingCount>,
}

/// Reads the keys of a match that a record may hold or leave out altogether (a run's first
/// rating line, `elo.jsonl`): `None` when none of them is there, the outcome when they make
/// one, and an error naming what is wrong when only some are (a damaged line is refused,
/// not read as a line without a match). For a field `#[serde(flatten, deserialize_with =
/// "optional")]` of type `Option<MatchOutcome>`.
pub fn optional<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<MatchOutcome>, D::Error> {
    let keys = OutcomeKeys::deserialize(deserializer)?;
    if keys == OutcomeKeys::default() {
        return Ok(None);
    }
    MatchOutcome::try_from(keys)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// Keys that do not make an outcome: a key it needs is missing, some of wins, draws and
/// losses without the others, no games count at all, or a games count other than the
/// wins, draws and losses add up to.
#[derive(Debug, thiserror::Error)]
pub enum OutcomeError {
    #[error("missing field `{0}` of a match")]
    Missing(&'static str),
    #[error("wins, draws and losses come together: only some of them are given")]
    PartialCounts,
    #[error("neither games nor wins, draws and losses are given")]
    NoGames,
    #[error("games {games}, but wins, draws and losses add up to {counted}")]
    GamesDiffer { games: u64, counted: u64 },
}

impl TryFrom<OutcomeKeys> for MatchOutcome {
    type Error = OutcomeError;

    fn try_from(keys: OutcomeKeys) -> Result<MatchOutcome, OutcomeError> {
        let counts = match (keys.wins, keys.draws, keys.losses) {
            (Some(wins), Some(draws), Some(losses)) => Some(Score {
                wins,
                draws,
                losses,
            }),
            (None, None, None) => None,
            _ => return Err(OutcomeError::PartialCounts),
        };
        let counted = counts.map(|s| s.games());
        let games = match (keys.games, counted) {
            (Some(games), Some(counted)) if games != counted => {
                return Err(OutcomeError::GamesDiffer { games, counted })
            }
            (Some(games), _) | (None, Some(games)) => games,
            (None, None) => return Err(OutcomeError::NoGames),
        };
        let needed = |value: Option<f64>, key| value.ok_or(OutcomeError::Missing(key));
        Ok(MatchOutcome {
            games,
            counts,
            score: needed(keys.score, "score")?,
            elo: keys.elo,
            elo_low: keys.elo_low,
            elo_high: keys.elo_high,
            material_share: needed(keys.material_share, "material_share")?,
            material_share_se: needed(keys.material_share_se, "material_share_se")?,
            endings: keys.endings,
        })
    }
}

impl From<MatchOutcome> for OutcomeKeys {
    fn from(o: MatchOutcome) -> OutcomeKeys {
        OutcomeKeys {
            games: Some(o.games),
            wins: o.counts.map(|s| s.wins),
            draws: o.counts.map(|s| s.draws),
            losses: o.counts.map(|s| s.losses),
            score: Some(o.score),
            elo: o.elo,
            elo_low: o.elo_low,
            elo_high: o.elo_high,
            material_share: Some(o.material_share),
            material_share_se: Some(o.material_share_se),
            endings: o.endings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(wins: u64, draws: u64, losses: u64) -> MatchOutcome {
        MatchOutcome::new(&MatchSummary {
            score: Score {
                wins,
                draws,
                losses,
            },
            results: Vec::new(),
            sprt: None,
        })
    }

    #[test]
    fn an_outcome_round_trips_with_nulls_where_elo_is_unbounded() {
        let perfect = outcome(4, 0, 0);
        let text = serde_json::to_string(&perfect).unwrap();
        for key in [
            "\"games\":4",
            "\"wins\":4",
            "\"elo\":null",
            "\"elo_high\":null",
        ] {
            assert!(text.contains(key), "{key} missing from {text}");
        }
        let back: MatchOutcome = serde_json::from_str(&text).unwrap();
        assert_eq!(back, perfect);
        assert_eq!(back.chain_elo(), back.elo_low);
        assert!(back.chain_elo().unwrap() > 0.0);
        assert_eq!(outcome(2, 1, 2).chain_elo(), Some(0.0));
    }

    #[test]
    fn older_keys_read_and_inconsistent_ones_are_refused() {
        // A ladder's rung match before the type: counts, no games.
        let rung = r#"{"wins":3,"draws":1,"losses":0,"score":0.875,"elo":338.0,"elo_low":20.0,"elo_high":null,"material_share":0.6,"material_share_se":0.01}"#;
        let read: MatchOutcome = serde_json::from_str(rung).unwrap();
        assert_eq!((read.games, read.counts_text().as_str()), (4, "+3 =1 -0"));
        assert!(read.endings.is_empty());
        // A rating line before the type: games, no counts.
        let rating = r#"{"games":10,"score":0.5,"elo":0.0,"elo_low":-58.4,"elo_high":58.4,"material_share":0.53,"material_share_se":0.005}"#;
        let read: MatchOutcome = serde_json::from_str(rating).unwrap();
        assert_eq!((read.games, read.counts), (10, None));
        assert_eq!(read.counts_text(), "10 games");
        // Written back: the counts stay absent, not zero.
        let again = serde_json::to_string(&read).unwrap();
        assert!(!again.contains("wins"), "{again}");
        for (bad, why) in [
            (rung.replace("\"draws\":1,", ""), "come together"),
            (rating.replace("\"games\":10,", ""), "neither games"),
            (rung.replace("{", "{\"games\":5,"), "add up to 4"),
            (
                rating.replace("\"score\":0.5,", ""),
                "missing field `score`",
            ),
        ] {
            let e = serde_json::from_str::<MatchOutcome>(&bad).unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
    }
}
