//! How a game ends, in one place: by a rule of the game ([`Termination`]), or by the policy
//! of whoever runs it ([`EndPolicy`]: a safety cap on plies, material adjudication,
//! resignation), and what a draw is worth to a player with contempt ([`draw_value`]).
//! Self-play, matches, `tengu results`, books and the search's terminal values all read it,
//! so a change of the measure is one change here.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::game::{Game, Termination};
use crate::position::Position;
use crate::types::Color;
use crate::values::material;

/// How a game ended. Its text ([`GameEnd::as_str`]) is the `Termination` tag of game
/// records and the `termination` of match results.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameEnd {
    /// A rule of the game ended it (checkmate, no legal move, repetition, ...).
    Rule(Termination),
    /// A side resigned (its search value stayed below the threshold).
    Resignation,
    /// Adjudicated on material: a side held [`MaterialAdjudication::ratio`] times the
    /// other's material (at or after [`MaterialAdjudication::from_ply`]).
    Adjudicated,
    /// The safety cap on plies was reached with no adjudication: a draw.
    PlyCap,
}

/// Every end that is not a rule's, for tables.
const POLICY_ENDS: [GameEnd; 3] = [GameEnd::Resignation, GameEnd::Adjudicated, GameEnd::PlyCap];

impl GameEnd {
    /// Every end, rule ends first (the order of a report's table).
    pub fn all() -> impl Iterator<Item = GameEnd> {
        Termination::ALL
            .into_iter()
            .map(GameEnd::Rule)
            .chain(POLICY_ENDS)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameEnd::Rule(t) => t.as_str(),
            GameEnd::Resignation => "resignation",
            GameEnd::Adjudicated => "adjudicated on material",
            GameEnd::PlyCap => "ply cap",
        }
    }

    pub fn parse(text: &str) -> Option<GameEnd> {
        GameEnd::all().find(|e| e.as_str() == text)
    }

    /// Whether the game stopped at the ply cap (drawn there or adjudicated): it was not
    /// played to its end.
    pub fn capped(self) -> bool {
        matches!(self, GameEnd::PlyCap | GameEnd::Adjudicated)
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that names no way a game ends.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game end {0:?}: expected one of {list}", list = GameEnd::all().map(|e| e.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnknownGameEnd(pub String);

impl std::str::FromStr for GameEnd {
    type Err = UnknownGameEnd;
    fn from_str(text: &str) -> Result<GameEnd, UnknownGameEnd> {
        GameEnd::parse(text).ok_or_else(|| UnknownGameEnd(text.to_string()))
    }
}

impl Serialize for GameEnd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for GameEnd {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameEnd, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A finished game: the winner (`None`: a draw) and how it ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    pub winner: Option<Color>,
    pub end: GameEnd,
}

impl Ending {
    /// The score of `color`: 1 won, 0 drawn, -1 lost.
    pub fn score_of(&self, color: Color) -> i8 {
        match self.winner {
            None => 0,
            Some(w) if w == color => 1,
            Some(_) => -1,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_text(&self) -> &'static str {
        crate::game::result_text(self.winner)
    }
}

/// Material adjudication: a side holding at least `ratio` times the other's material (fixed
/// piece values, royals excluded) wins, checked from ply `from_ply` on (plies from the
/// initial position). Safe only where games played out show the side ahead by that ratio
/// at that ply winning almost always (`tengu results --calibrate`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaterialAdjudication {
    pub ratio: f32,
    pub from_ply: u32,
}

/// When a game that the rules have not ended stops, and how it is scored then.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EndPolicy {
    /// The safety cap: a game still going at this many plies (from the initial position)
    /// ends, adjudicated on material if `adjudication` says so, else drawn.
    pub max_plies: u32,
    /// Material adjudication (None: only the cap stops a game, as a draw).
    pub adjudication: Option<MaterialAdjudication>,
}

/// The safety cap of games played to their end: long enough that games between trained
/// players end by the rules (they last 600-2,600 plies), not at the cap.
pub const TO_THE_END_PLIES: u32 = 4000;

/// The contempt tengu's players get in matches by default (`tengu match --contempt`, value
/// units): a draw is worth to each player what being about half a piece behind is
/// (`MATERIAL_SCALE * atanh(0.05)` = 0.5 piece units), so a side that is not behind plays on
/// instead of repeating.
pub const MATCH_CONTEMPT: f32 = 0.05;

impl EndPolicy {
    /// Games played to their end: the safety cap [`TO_THE_END_PLIES`], no adjudication.
    pub const TO_THE_END: EndPolicy = EndPolicy {
        max_plies: TO_THE_END_PLIES,
        adjudication: None,
    };

    /// A cap of `max_plies` where a side with `ratio` times the other's material wins (0 or
    /// `None`: every capped game is drawn): the adjudication of matches before games were
    /// played out.
    pub fn capped_at(max_plies: u32, ratio: Option<f32>) -> EndPolicy {
        EndPolicy {
            max_plies,
            adjudication: ratio
                .filter(|r| *r > 0.0)
                .map(|ratio| MaterialAdjudication {
                    ratio,
                    from_ply: max_plies,
                }),
        }
    }

    /// How `game` ends now, if it does: by a rule, else by adjudication (from its ply on),
    /// else at the cap. `values`: the variant's piece values
    /// ([`crate::values::piece_values`]).
    pub fn judge(&self, game: &Game, values: &[f32]) -> Option<Ending> {
        if let Some(o) = game.outcome() {
            return Some(Ending {
                winner: o.winner,
                end: GameEnd::Rule(o.termination),
            });
        }
        let plies = game.len() as u32;
        if let Some(adj) = self.adjudication {
            if plies >= adj.from_ply.min(self.max_plies) {
                if let Some(winner) = material_leader(game.position(), values, adj.ratio) {
                    return Some(Ending {
                        winner: Some(winner),
                        end: GameEnd::Adjudicated,
                    });
                }
            }
        }
        (plies >= self.max_plies).then_some(Ending {
            winner: None,
            end: GameEnd::PlyCap,
        })
    }

    /// Whether a search reaching `game` may stop there: the rules ended it, or the cap
    /// did (adjudication is the referee's, not something a search plans for).
    pub fn search_stops(&self, game: &Game) -> bool {
        game.outcome().is_some() || game.len() as u32 >= self.max_plies
    }
}

/// The side holding at least `ratio` times the other's material in `pos` (fixed piece
/// values, royals excluded), if one does (Black first when both do, at a ratio up to 1).
pub fn material_leader(pos: &Position, values: &[f32], ratio: f32) -> Option<Color> {
    let m = material(pos, values);
    Color::ALL
        .into_iter()
        .find(|c| m[c.index()] >= ratio * m[c.opposite().index()].max(1e-3))
}

/// What a draw is worth, in [-1, 1] from the view of `mover` (the side to move where the
/// draw is met), to a player on `root`'s side with `contempt`: `-contempt` for that player
/// and `+contempt` for its opponent. With contempt a player that is not behind does not
/// steer into a repetition; 0 values a draw at 0, as before.
pub fn draw_value(contempt: f32, root: Color, mover: Color) -> f32 {
    if mover == root {
        -contempt
    } else {
        contempt
    }
}

/// Resignation: a side resigns once its search value stayed below `-threshold` for
/// `consecutive` of its own moves in a row.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Resignation {
    pub threshold: f32,
    pub consecutive: u32,
}

/// One game's resignation counters ([`Resignation`]): each side's run of low values.
#[derive(Clone, Debug, Default)]
pub struct ResignWatch {
    low_streak: [u32; 2],
    /// The sides that reached the threshold in a game that does not resign.
    would_resign: [bool; 2],
}

impl ResignWatch {
    /// Records `mover`'s search value of its move; whether it resigns now.
    pub fn observe(&mut self, rule: &Resignation, mover: Color, value: f32) -> bool {
        let streak = &mut self.low_streak[mover.index()];
        if value < -rule.threshold {
            *streak += 1;
        } else {
            *streak = 0;
        }
        let resigns = *streak >= rule.consecutive;
        if resigns {
            self.would_resign[mover.index()] = true;
        }
        resigns
    }

    /// In a game that was not allowed to resign and ended with `winner`: whether a side
    /// that would have resigned went on to draw or win (a false resignation); `None` when
    /// no side reached the threshold.
    pub fn false_resignation(&self, winner: Option<Color>) -> Option<bool> {
        if !self.would_resign.contains(&true) {
            return None;
        }
        Some(
            Color::ALL
                .into_iter()
                .any(|c| self.would_resign[c.index()] && winner != Some(c.opposite())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn every_end_round_trips_through_its_text() {
        for e in GameEnd::all() {
            assert_eq!(GameEnd::parse(e.as_str()), Some(e));
            let json = serde_json_like(e);
            assert_eq!(json, e.as_str());
        }
        assert!("mate"
            .parse::<GameEnd>()
            .unwrap_err()
            .to_string()
            .contains("checkmate"));
        assert_eq!(GameEnd::parse("ply cap"), Some(GameEnd::PlyCap));
        assert!(GameEnd::PlyCap.capped() && GameEnd::Adjudicated.capped());
        assert!(!GameEnd::Resignation.capped());
        assert!(!GameEnd::Rule(Termination::Checkmate).capped());
    }

    fn serde_json_like(e: GameEnd) -> String {
        // toml is the serde format this crate already has: a string value round trips.
        #[derive(Serialize, Deserialize)]
        struct T {
            e: GameEnd,
        }
        let text = toml::to_string(&T { e }).unwrap();
        let back: T = toml::from_str(&text).unwrap();
        assert_eq!(back.e, e);
        text.trim()
            .trim_start_matches("e = ")
            .trim_matches('"')
            .to_string()
    }

    #[test]
    fn the_policy_caps_and_adjudicates_from_its_ply() {
        let variant = Variant::dai_dai();
        let values = crate::values::piece_values(&variant);
        let mut game = Game::new(Position::initial(variant));
        for _ in 0..4 {
            let m = game
                .legal_move_list()
                .into_iter()
                .find(|m| !m.is_capture())
                .unwrap();
            game.play(m).unwrap();
        }
        // Even material: no adjudication, whatever the ratio.
        let adj = |from_ply| EndPolicy {
            max_plies: 10,
            adjudication: Some(MaterialAdjudication {
                ratio: 1.01,
                from_ply,
            }),
        };
        assert_eq!(adj(2).judge(&game, &values), None);
        assert_eq!(EndPolicy::capped_at(5, None).judge(&game, &values), None);
        assert_eq!(
            EndPolicy::capped_at(4, Some(1.5)).judge(&game, &values),
            Some(Ending {
                winner: None,
                end: GameEnd::PlyCap
            })
        );
        assert_eq!(EndPolicy::capped_at(4, Some(0.0)).adjudication, None);
        assert!(EndPolicy::TO_THE_END.judge(&game, &values).is_none());
        // Any side holds at least 0.5 times the other's material: Black is found first.
        let lopsided = EndPolicy {
            max_plies: 10,
            adjudication: Some(MaterialAdjudication {
                ratio: 0.5,
                from_ply: 4,
            }),
        };
        assert_eq!(
            lopsided.judge(&game, &values),
            Some(Ending {
                winner: Some(Color::Black),
                end: GameEnd::Adjudicated
            })
        );
        let later = EndPolicy {
            adjudication: Some(MaterialAdjudication {
                ratio: 0.5,
                from_ply: 5,
            }),
            ..lopsided
        };
        assert_eq!(later.judge(&game, &values), None);
    }

    #[test]
    fn contempt_makes_a_draw_bad_for_the_player_and_good_for_its_opponent() {
        assert_eq!(draw_value(0.1, Color::Black, Color::Black), -0.1);
        assert_eq!(draw_value(0.1, Color::Black, Color::White), 0.1);
        assert_eq!(draw_value(0.0, Color::White, Color::Black), 0.0);
    }

    #[test]
    fn resignation_needs_a_run_of_low_values_and_false_ones_are_told() {
        let rule = Resignation {
            threshold: 0.9,
            consecutive: 2,
        };
        let mut watch = ResignWatch::default();
        assert!(!watch.observe(&rule, Color::Black, -0.95));
        assert!(!watch.observe(&rule, Color::Black, -0.5));
        assert!(!watch.observe(&rule, Color::Black, -0.95));
        assert_eq!(watch.false_resignation(None), None);
        assert!(watch.observe(&rule, Color::Black, -0.99));
        assert_eq!(watch.false_resignation(Some(Color::White)), Some(false));
        assert_eq!(watch.false_resignation(None), Some(true));
        assert_eq!(watch.false_resignation(Some(Color::Black)), Some(true));
    }
}
