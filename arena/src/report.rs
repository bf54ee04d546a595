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

use crate::elo::{finite, Sprt, SprtDecision};
use crate::matches::MatchSummary;
use crate::outcome::MatchOutcome;
use crate::pairs::PairReport;
use tengu_search::players::PlayerSpec;

/// What `tengu match --json` prints: the players, A's [`MatchOutcome`] (results, Elo with
/// its 95% interval, the material share, how the games ended), the SPRT state and the
/// game-pair statistics, all as keys of one object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// The players' names (a checkpoint player: `FILE step N`).
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub outcome: MatchOutcome,
    /// The SPRT's decision and log-likelihood ratio, when the match ran one (`--sprt`).
    pub sprt: Option<SprtDecision>,
    pub llr: Option<f64>,
    #[serde(flatten)]
    pub pairs: PairReport,
}

impl MatchReport {
    /// The report of a finished match between players named `a` and `b`; `sprt`: the SPRT
    /// settings the match ran with.
    pub fn new(a: &str, b: &str, summary: &MatchSummary, sprt: Option<&Sprt>) -> MatchReport {
        MatchReport {
            a: a.to_string(),
            b: b.to_string(),
            outcome: MatchOutcome::new(summary),
            sprt: summary.sprt,
            llr: sprt.and_then(|p| finite(p.llr(&summary.score))),
            pairs: PairReport::new(&summary.pairs()),
        }
    }

    /// The JSON object, keys in alphabetical order.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a report serialises")
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
        // The keys of a report written before the outcome had a type still read.
        let old = r#"{"a":"x","b":"y","draws":1,"elo":0.0,"elo_high":100.0,"elo_low":-100.0,"games":4,"llr":null,"losses":1,"material_share":0.5,"material_share_se":0.01,"nelo":null,"nelo_error":null,"pair_elo":null,"pair_elo_high":null,"pair_elo_low":null,"pair_score":0.5,"pair_score_se":0.0,"pair_variance":0.0,"pairs":2,"pentanomial":[0,0,2,0,0],"per_game_variance_pairs":0.0,"score":0.5,"sprt":null,"unpaired":0,"wins":2}"#;
        let read: MatchReport = serde_json::from_str(old).unwrap();
        assert_eq!(read.outcome.counts_text(), "+2 =1 -1");
        assert!(read.outcome.endings.is_empty());
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
