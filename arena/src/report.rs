//! The match report: the one object that `tengu match --json` prints and `tengu run`'s
//! supervisor reads back, and [`MatchCommand`], the `tengu match` invocation the supervisor
//! starts it with.
//!
//! Printed through `serde_json::Value`, the report's keys come out in alphabetical order, as
//! they did when the object was built by hand. Numbers that can be undefined or unbounded
//! (an Elo end after a perfect score) are `null`.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::elo::{elo_interval, Sprt, SprtDecision};
use crate::matches::MatchSummary;
use crate::pairs::Pentanomial;
use tengu_search::players::PlayerSpec;

/// What `tengu match --json` prints: the players, the results, Elo with its 95% interval,
/// the material share, the SPRT state and the game-pair statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// The players' names (a checkpoint player: `FILE step N`).
    pub a: String,
    pub b: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// A's mean score per game.
    pub score: f64,
    /// A's Elo difference and its 95% interval; `None` (null) where the results cannot bound
    /// it (the estimate and one end after a perfect or a zero score).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// A's mean share of the material at the end of the games, and its standard error.
    pub material_share: f64,
    pub material_share_se: f64,
    /// The SPRT's decision and log-likelihood ratio, when the match ran one (`--sprt`).
    pub sprt: Option<SprtDecision>,
    pub llr: Option<f64>,
    #[serde(flatten)]
    pub pairs: PairReport,
    /// How the games ended (checkmate, the other rule ends, resignation, adjudication,
    /// the ply cap), each end with A's results and the games' plies. Absent in reports
    /// written before it was kept.
    #[serde(default)]
    pub endings: Vec<crate::matches::EndingCount>,
}

/// Game-pair (pentanomial) statistics, as keys of a report (`tengu match --json`, each pairing
/// of `tengu tournament --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    pub pairs: u64,
    pub unpaired: u64,
    /// Pairs by A's pair score: `[LL, LD, DD + WL, WD, WW]`.
    pub pentanomial: [u64; 5],
    pub pair_score: f64,
    pub pair_score_se: f64,
    pub pair_variance: f64,
    pub per_game_variance_pairs: f64,
    /// Elo from the pairs and its 95% interval; null where unbounded.
    pub pair_elo: Option<f64>,
    pub pair_elo_low: Option<f64>,
    pub pair_elo_high: Option<f64>,
    /// Normalized Elo and its error; null where undefined.
    pub nelo: Option<f64>,
    pub nelo_error: Option<f64>,
}

/// `Some(x)` for a finite `x`: what JSON can hold.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl PairReport {
    pub fn new(p: &Pentanomial) -> PairReport {
        let interval = p.elo_interval();
        PairReport {
            pairs: p.pairs(),
            unpaired: p.unpaired,
            pentanomial: p.counts,
            pair_score: p.mean(),
            pair_score_se: p.std_error(),
            pair_variance: p.pair_variance(),
            per_game_variance_pairs: p.per_game_variance(),
            pair_elo: finite(interval.elo),
            pair_elo_low: finite(interval.low),
            pair_elo_high: finite(interval.high),
            nelo: p.nelo().and_then(finite),
            nelo_error: p.nelo_error().and_then(finite),
        }
    }
}

impl MatchReport {
    /// The report of a finished match between players named `a` and `b`; `sprt`: the SPRT
    /// settings the match ran with.
    pub fn new(a: &str, b: &str, summary: &MatchSummary, sprt: Option<&Sprt>) -> MatchReport {
        let s = &summary.score;
        let interval = elo_interval(s);
        let (material_share, material_share_se) = summary.material_share();
        MatchReport {
            a: a.to_string(),
            b: b.to_string(),
            games: s.games(),
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            score: s.mean(),
            elo: finite(interval.elo),
            elo_low: finite(interval.low),
            elo_high: finite(interval.high),
            material_share,
            material_share_se,
            sprt: summary.sprt,
            llr: sprt.and_then(|p| finite(p.llr(s))),
            pairs: PairReport::new(&summary.pairs()),
            endings: summary.endings(),
        }
    }

    /// The JSON object, keys in alphabetical order.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report serialises")
    }

    /// The Elo difference a rating chain moves by: the estimate, or after a perfect (zero)
    /// score, when the estimate and one end are unbounded, the finite end (the smallest
    /// difference the results support); `None` when neither is known.
    pub fn chain_elo(&self) -> Option<f64> {
        self.elo
            .or_else(|| self.elo_low.filter(|_| self.elo_high.is_none()))
            .or_else(|| self.elo_high.filter(|_| self.elo_low.is_none()))
    }
}

/// A `tengu match` that prints its [`MatchReport`] (`--json`), as a child process runs it:
/// `tengu run` evaluates each new checkpoint with one.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCommand {
    pub a: PlayerSpec,
    pub b: PlayerSpec,
    pub game: String,
    pub games: u64,
    pub max_plies: u32,
    /// Material ratio that wins at the ply cap (`--material-ratio`, 0: none).
    pub material_ratio: f32,
    /// The players' contempt (`--contempt`).
    pub contempt: f32,
    /// Log filter of the child (`--log`).
    pub log: String,
    /// Where the games are written (`--out`).
    pub out: Option<PathBuf>,
    /// A run configuration whose `[search]` table checkpoint players use (`--search-config`).
    pub search_config: Option<PathBuf>,
    /// Openings file (`--openings`).
    pub openings: Option<PathBuf>,
    /// Network backend (`--backend`).
    pub backend: Option<String>,
}

impl MatchCommand {
    /// The arguments after the binary: `match A B --game G --games N --max-plies M --json
    /// --log L`, then the optional flags.
    pub fn args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            "match".into(),
            self.a.to_string().into(),
            self.b.to_string().into(),
            "--game".into(),
            self.game.clone().into(),
            "--games".into(),
            self.games.to_string().into(),
            "--max-plies".into(),
            self.max_plies.to_string().into(),
            "--material-ratio".into(),
            self.material_ratio.to_string().into(),
            "--contempt".into(),
            self.contempt.to_string().into(),
            "--json".into(),
            "--log".into(),
            self.log.clone().into(),
        ];
        let mut flag = |name: &str, value: Option<OsString>| {
            if let Some(v) = value {
                args.extend([name.into(), v]);
            }
        };
        flag("--out", self.out.clone().map(Into::into));
        flag(
            "--search-config",
            self.search_config.clone().map(Into::into),
        );
        flag("--openings", self.openings.clone().map(Into::into));
        flag("--backend", self.backend.clone().map(Into::into));
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elo::Score;

    fn summary(wins: u64, draws: u64, losses: u64) -> MatchSummary {
        MatchSummary {
            score: Score {
                wins,
                draws,
                losses,
            },
            results: Vec::new(),
            sprt: None,
        }
    }

    #[test]
    fn a_report_round_trips_through_its_json_with_keys_in_order_and_nulls() {
        let report = MatchReport::new("a", "b", &summary(4, 0, 0), None);
        let text = report.to_json().to_string();
        let back: MatchReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report);
        // A perfect score: the estimate and the upper end are unbounded.
        assert!(
            text.contains(r#""elo":null"#) && text.contains(r#""elo_high":null"#),
            "{text}"
        );
        assert_eq!(back.chain_elo(), back.elo_low);
        assert!(back.chain_elo().unwrap() > 0.0);
        let json = report.to_json();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        // Printed in alphabetical order, as the hand-built object was.
        let at = |k: &str| text.find(&format!("\"{k}\":")).unwrap();
        assert!(at("a") < at("b") && at("b") < at("draws") && at("wins") > at("unpaired"));
        let every = "a b games wins draws losses score elo_low material_share material_share_se \
                     sprt llr pairs unpaired pentanomial pair_score pair_score_se pair_variance \
                     per_game_variance_pairs pair_elo pair_elo_low pair_elo_high nelo nelo_error";
        for key in every.split_whitespace() {
            assert!(keys.iter().any(|k| *k == key), "{key} missing from {text}");
        }
        let even = MatchReport::new("a", "b", &summary(2, 1, 2), None);
        assert_eq!(even.chain_elo(), Some(0.0));
    }

    #[test]
    fn a_match_command_spells_every_player_so_that_it_parses_back() {
        for text in [
            "random",
            "greedy",
            "alphabeta",
            "alphabeta:50:3",
            "checkpoint:runs/x/models/model-000000100.safetensors:32",
            "checkpoint:s3://bucket/run/models/model-000000100.safetensors:8",
            "policy:m.safetensors",
        ] {
            let spec: PlayerSpec = text.parse().unwrap();
            assert_eq!(
                spec.to_string().parse::<PlayerSpec>().unwrap(),
                spec,
                "{text}"
            );
        }
        let command = MatchCommand {
            a: "checkpoint:m/a.safetensors:16".parse().unwrap(),
            b: PlayerSpec::Greedy,
            game: "dai-dai".into(),
            games: 10,
            max_plies: 300,
            material_ratio: 1.5,
            contempt: 0.05,
            log: "info".into(),
            out: Some("arena/a-vs-greedy".into()),
            search_config: Some("run/config.toml".into()),
            openings: None,
            backend: Some("tch-cpu".into()),
        };
        let args: Vec<String> = command
            .args()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            args.join(" "),
            "match checkpoint:m/a.safetensors:16 greedy --game dai-dai --games 10 --max-plies 300 \
             --material-ratio 1.5 --contempt 0.05 --json --log info --out arena/a-vs-greedy --search-config run/config.toml --backend tch-cpu"
        );
    }
}
