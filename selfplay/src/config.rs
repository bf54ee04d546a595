//! Self-play settings (TOML table `[selfplay]`; unknown keys are rejected, missing keys
//! take the defaults below).

use serde::{Deserialize, Serialize};
use tengu_rules::end::{EndPolicy, MaterialAdjudication, Resignation};
use tengu_search::config::{check, check_fraction, ConfigError};

/// How self-play games are played and recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Worker processes `tengu run` starts.
    pub workers: usize,
    /// Games in flight per worker; their leaves form one evaluator batch.
    pub games_in_flight: usize,
    /// Share of moves searched fully (playout cap randomization); the others use
    /// `cheap_visits` and do not become policy targets.
    pub full_search_share: f32,
    /// Visits of a cheap search.
    pub cheap_visits: u32,
    /// Moves before this ply are sampled with `temperature`, later ones with
    /// `final_temperature` (0: the most visited move). A final temperature above 0 keeps
    /// early networks from shuffling into draws by repetition. Plies count from the initial
    /// position, an opening's moves included (as for `max_plies`).
    pub temperature_plies: u32,
    pub temperature: f32,
    pub final_temperature: f32,
    /// Root moves that recreate a position already seen in the game (since the last
    /// capture) are left out of self-play searches, unless every move does: young networks
    /// otherwise learn to shuffle one piece back and forth, and the games end in draws by
    /// repetition that teach nothing. Matches and the engine search every move. Under
    /// `REPETITION=STRICT` those moves are illegal anyway (searches never offer them, and a
    /// side left with only such moves has no legal move), so this changes nothing there.
    pub avoid_repetition: bool,
    /// Root moves that wait are left out of self-play searches, unless every move does:
    /// passes, and a piece stepping straight back to where the mover's previous move took it
    /// from. Young networks otherwise learn that waiting is safe, and both sides wait for
    /// the ply cap. Matches and the engine search every move.
    pub avoid_waiting: bool,
    /// Resign when the search value stays below `-resign_threshold` for
    /// `resign_consecutive` of one side's moves in a row.
    pub resign_threshold: f32,
    pub resign_consecutive: u32,
    /// Share of games that never resign (they measure false resignations).
    pub no_resign_share: f32,
    /// The safety cap: a game still going at this many plies (from the initial position)
    /// ends, a draw unless `material_adjudication` gives it to a side. The default plays
    /// games to their end (`tengu_rules::end::TO_THE_END_PLIES`).
    pub max_plies: u32,
    /// Material ratio that wins (fixed piece values, royals excluded) from ply
    /// `material_adjudication_ply` on; 0 (the default): no adjudication, games are played
    /// out. Safe only at a ratio and ply where games played out show the side ahead winning
    /// (`tengu results --calibrate` on the run's games).
    pub material_adjudication: f32,
    /// The ply from which `material_adjudication` applies; 0: only at the cap (`max_plies`).
    pub material_adjudication_ply: u32,
    /// Plies ahead of the short-horizon material and occupancy targets (the other horizon
    /// is the game's end).
    pub target_horizon: u32,
    /// Rows per shard: a shard is written once finished games hold this many.
    pub rows_per_shard: usize,
    /// Seconds between looks for a newer checkpoint (between games).
    pub checkpoint_poll_seconds: f64,
    /// Seconds between two writes of the game in progress that the worker shows
    /// (`live/<host>-<pid>.json`, `tengu serve`'s Live panel): one small object replaced in
    /// place, deleted when the worker stops. 0: none.
    pub live_game_seconds: f64,
    /// Openings file (the format of `tengu match --openings`: one opening a line, moves
    /// from the initial position), read and checked once when a worker starts; a relative
    /// path is relative to the directory the worker is started in. None: no openings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openings: Option<std::path::PathBuf>,
    /// Share of games (0..=1) that start from a uniformly random opening of `openings`
    /// instead of the initial position. The opening's moves are part of the game (its
    /// record and ply count) but are not searched and give no rows.
    pub opening_share: f32,
    /// Share of games (0..=1) that start from a position of an earlier game of the same
    /// worker (Go-Exploit): a game of the archive and a ply of it uniformly at random,
    /// leaving at least `restart_min_plies` before `max_plies`. The earlier moves are part
    /// of the game (record and ply count) but give no rows, as an opening's. Shorter games
    /// from varied mid-game positions give more independent outcomes per hour.
    pub restart_share: f32,
    /// Finished games kept in the worker's archive of restart positions (the newest).
    pub restart_archive_games: usize,
    /// Plies a restarted game has at least before the ply cap.
    pub restart_min_plies: u32,
    /// Share of games (0..=1) in which one side, chosen at random, is careless: it plays a
    /// move sampled from the network's raw policy without searching (its rows train the
    /// value and auxiliary heads, never the policy). The other side's searches then meet
    /// the loose pieces and unanswered threats that a weak opponent leaves, and learn what
    /// they are worth.
    pub careless_share: f32,
    /// Share of rows (0..=1) whose position the judge's teacher labels
    /// (`tengu_search::teacher`: alpha-beta `teacher_depth` plies with the search's exchange
    /// count at its horizon), the residual head's target. The worker spends the CPU, so the
    /// run's ledger counts the labels. 0: no labels.
    pub teacher_share: f32,
    /// Plies the teacher searches full width (0..=4; about 0.1-1 s a position at 3 on
    /// Dai Dai Shogi). 0: the label is the count itself (one exchange count a row), for a
    /// judge taught by the game's future material (`train.teacher_future_weight`).
    pub teacher_depth: u32,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            workers: 1,
            games_in_flight: 64,
            full_search_share: 0.25,
            cheap_visits: 24,
            temperature_plies: 30,
            temperature: 1.0,
            final_temperature: 0.3,
            avoid_repetition: false,
            avoid_waiting: false,
            resign_threshold: 0.9,
            resign_consecutive: 6,
            no_resign_share: 0.1,
            max_plies: tengu_rules::end::TO_THE_END_PLIES,
            material_adjudication: 0.0,
            material_adjudication_ply: 0,
            target_horizon: tengu_shard::TARGET_HORIZON,
            rows_per_shard: 2000,
            checkpoint_poll_seconds: 10.0,
            live_game_seconds: 15.0,
            openings: None,
            opening_share: 0.0,
            restart_share: 0.0,
            restart_archive_games: 200,
            restart_min_plies: 20,
            careless_share: 0.0,
            teacher_share: 0.0,
            teacher_depth: 3,
        }
    }
}

impl SelfplayConfig {
    /// How self-play games stop short of the rules' end: the cap and the adjudication.
    pub fn end_policy(&self) -> EndPolicy {
        EndPolicy {
            max_plies: self.max_plies,
            adjudication: (self.material_adjudication > 1.0).then_some(MaterialAdjudication {
                ratio: self.material_adjudication,
                from_ply: match self.material_adjudication_ply {
                    0 => self.max_plies,
                    ply => ply,
                },
            }),
        }
    }

    /// When a side resigns (the games of `no_resign_share` only count it).
    pub fn resignation(&self) -> Resignation {
        Resignation {
            threshold: self.resign_threshold,
            consecutive: self.resign_consecutive,
        }
    }

    /// Checks ranges; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check(
            self.games_in_flight >= 1,
            "selfplay.games_in_flight",
            "be at least 1",
        )?;
        check_fraction("selfplay.full_search_share", self.full_search_share)?;
        check(
            self.cheap_visits >= 1,
            "selfplay.cheap_visits",
            "be at least 1",
        )?;
        check(
            self.target_horizon >= 1,
            "selfplay.target_horizon",
            "be at least 1",
        )?;
        check(
            self.temperature > 0.0,
            "selfplay.temperature",
            "be positive",
        )?;
        check(
            self.final_temperature >= 0.0,
            "selfplay.final_temperature",
            "not be negative",
        )?;
        check_fraction("selfplay.no_resign_share", self.no_resign_share)?;
        check(self.max_plies >= 1, "selfplay.max_plies", "be at least 1")?;
        check(
            self.material_adjudication == 0.0 || self.material_adjudication > 1.0,
            "selfplay.material_adjudication",
            "be 0 (off) or above 1",
        )?;
        check(
            self.material_adjudication_ply <= self.max_plies,
            "selfplay.material_adjudication_ply",
            "be at most max_plies (0: at the cap)",
        )?;
        check_fraction("selfplay.opening_share", self.opening_share)?;
        if !(self.opening_share == 0.0 || self.openings.is_some()) {
            return Err(ConfigError::Needs {
                key: "selfplay.opening_share",
                when: "above 0",
                needs: "selfplay.openings (an openings file)",
            });
        }
        check_fraction("selfplay.restart_share", self.restart_share)?;
        check(
            self.restart_share == 0.0 || self.restart_archive_games >= 1,
            "selfplay.restart_archive_games",
            "be at least 1 when restart_share is above 0",
        )?;
        check_fraction("selfplay.careless_share", self.careless_share)?;
        check_fraction("selfplay.teacher_share", self.teacher_share)?;
        check(
            (0..=4).contains(&self.teacher_depth),
            "selfplay.teacher_depth",
            "be in 0..=4",
        )?;
        check(
            self.live_game_seconds.is_finite() && self.live_game_seconds >= 0.0,
            "selfplay.live_game_seconds",
            "be 0 (off) or a positive number of seconds",
        )?;
        check(
            self.rows_per_shard >= 1,
            "selfplay.rows_per_shard",
            "be at least 1",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_policy_plays_out_by_default_and_adjudicates_only_when_asked() {
        let default = SelfplayConfig::default();
        assert_eq!(default.end_policy(), EndPolicy::TO_THE_END);
        let at_cap = SelfplayConfig {
            max_plies: 300,
            material_adjudication: 1.1,
            ..SelfplayConfig::default()
        };
        assert_eq!(
            at_cap.end_policy().adjudication,
            Some(MaterialAdjudication {
                ratio: 1.1,
                from_ply: 300
            })
        );
        let earlier = SelfplayConfig {
            material_adjudication_ply: 200,
            ..at_cap
        };
        assert_eq!(earlier.end_policy().adjudication.unwrap().from_ply, 200);
    }
}
