//! A game in progress: the position, the moves played, repetition (RULES.md §5.5) and the
//! end of the game (§5.4).

use std::collections::HashMap;

use crate::config::{LegalityRule, RepetitionRule, StalemateRule};
use crate::position::Position;
use crate::types::{Color, Move};

/// Why [`Game::play`] refused a move (`text`: the move in the position's notation).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefused {
    #[error("the game is over")]
    GameOver,
    #[error("{text} is not a legal move here")]
    Illegal { text: String },
    #[error("{text} recreates an earlier position, which REPETITION=STRICT forbids")]
    StrictRepetition { text: String },
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// The side to move had no legal move while in check.
    Checkmate,
    /// The side to move had no legal move while not in check (a loss by default, §5.3).
    NoLegalMove,
    /// The fourth occurrence of a position (§5.5).
    Repetition,
    /// The fourth occurrence of a position during which one side checked on every move.
    PerpetualCheck,
    /// The side to move has no royal piece left (`LEGALITY=PSEUDO_LEGAL` only, §5.4).
    RoyalCaptured,
}

impl Termination {
    /// Every termination, in the order reports list them.
    pub const ALL: [Termination; 5] = [
        Termination::Checkmate,
        Termination::NoLegalMove,
        Termination::Repetition,
        Termination::PerpetualCheck,
        Termination::RoyalCaptured,
    ];

    /// Text used in game records (`[Termination "..."]`).
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::NoLegalMove => "no legal move",
            Termination::Repetition => "repetition",
            Termination::PerpetualCheck => "perpetual check",
            Termination::RoyalCaptured => "royal captured",
        }
    }

    pub fn parse(text: &str) -> Option<Termination> {
        Termination::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub termination: Termination,
}

impl Outcome {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_text(&self) -> &'static str {
        result_text(self.winner)
    }
}

/// A game record's `Result` for `winner` (`None`: a draw): `1-0`, `0-1` or `1/2-1/2`.
pub fn result_text(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::Black) => "1-0",
        Some(Color::White) => "0-1",
        None => "1/2-1/2",
    }
}

#[derive(Clone, Debug)]
struct Ply {
    mv: Move,
    /// Key of the position after the move.
    key: u64,
    /// Whether the move left the opponent in check.
    gave_check: bool,
    /// Whether the move captured (earlier positions cannot recur).
    capture: bool,
}

/// A game from a start position, with its history.
///
/// ```
/// use tengu_rules::{Game, Position, Variant};
/// let mut game = Game::new(Position::initial(Variant::dai_dai()));
/// let first = game.position().parse_move("9l>9k").unwrap(); // a Black Pawn steps forward
/// game.play(first).unwrap();
/// assert_eq!(game.len(), 1);
/// assert!(game.play(first).is_err()); // not a move of White's position
/// assert!(game.outcome().is_none());
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    plies: Vec<Ply>,
    /// Occurrences of each key since the last capture, the start position included.
    counts: HashMap<u64, u32>,
    outcome: Option<Outcome>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let mut counts = HashMap::new();
        counts.insert(start.key(), 1);
        let mut game = Game {
            position: start.clone(),
            start,
            plies: Vec::new(),
            counts,
            outcome: None,
        };
        game.outcome = game.no_move_outcome();
        game
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played, in order; walkable from either end.
    pub fn moves(&self) -> impl DoubleEndedIterator<Item = Move> + ExactSizeIterator + '_ {
        self.plies.iter().map(|p| p.mv)
    }

    pub fn len(&self) -> usize {
        self.plies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// How often the current position's key has occurred (since the last capture).
    pub fn repetitions(&self) -> u32 {
        self.counts.get(&self.position.key()).copied().unwrap_or(0)
    }

    /// For each of `moves` (legal moves of the current position): whether it recreates a
    /// position that already occurred since the last capture (a capture never does).
    pub fn repeating_moves(&self, moves: &[Move]) -> Vec<bool> {
        let mut pos = self.position.clone();
        moves
            .iter()
            .map(|&m| {
                if m.is_capture() {
                    return false;
                }
                let undo = pos.play(m);
                let seen = self.counts.contains_key(&pos.key());
                pos.unplay(m, undo);
                seen
            })
            .collect()
    }

    /// Whether a position with `key` occurred in this game since the last capture (the
    /// current one included): the positions a move may not recreate under
    /// `REPETITION=STRICT`. A search that plays on from this game without a `Game` (the
    /// classical alpha-beta) checks the positions it reaches against these and its own path.
    pub fn occurred(&self, key: u64) -> bool {
        self.counts.contains_key(&key)
    }

    /// Whether the rule set forbids moves that recreate an earlier position
    /// (`REPETITION=STRICT`): then [`Game::legal_moves`] is narrower than the position's.
    pub fn strict_repetition(&self) -> bool {
        self.position.variant().rules().repetition == RepetitionRule::Strict
    }

    /// Replaces `out` with the legal moves of the current position in this game: the
    /// position's legal moves, less those that recreate an earlier position under
    /// `REPETITION=STRICT` (a second pass in a row among them). Empty once the game is over.
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        self.position.legal_moves(out);
        if self.strict_repetition() {
            let repeats = self.repeating_moves(out);
            let mut flags = repeats.into_iter();
            out.retain(|_| !flags.next().unwrap_or(false));
        }
    }

    /// The legal moves of the current position in this game in a new vector (see
    /// [`Game::legal_moves`]): what a player or a search may choose from.
    pub fn legal_move_list(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(256);
        self.legal_moves(&mut out);
        out
    }

    /// Whether the side to move has a legal move in this game: a legal move of the position
    /// that, under `REPETITION=STRICT`, is a capture or reaches a position not seen since
    /// the last capture (stops at the first one found).
    pub fn has_legal_move(&self) -> bool {
        if !self.strict_repetition() {
            return self.position.has_legal_move();
        }
        let mut moves = Vec::new();
        self.position.legal_moves(&mut moves);
        let mut pos = self.position.clone();
        moves.iter().any(|&m| {
            if m.is_capture() {
                return true;
            }
            let undo = pos.play(m);
            let fresh = !self.counts.contains_key(&pos.key());
            pos.unplay(m, undo);
            fresh
        })
    }

    /// Plays a legal move of the current position (checked) and updates the result.
    pub fn play(&mut self, m: Move) -> Result<(), MoveRefused> {
        if self.outcome.is_some() {
            return Err(MoveRefused::GameOver);
        }
        if !self.position.is_legal(m) {
            return Err(MoveRefused::Illegal {
                text: self.position.move_text(m),
            });
        }
        if self.strict_repetition() && self.repeating_moves(&[m])[0] {
            return Err(MoveRefused::StrictRepetition {
                text: self.position.move_text(m),
            });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a move known to be legal (from this position's move generator).
    pub fn play_unchecked(&mut self, m: Move) {
        let capture = m.is_capture();
        self.position.play(m);
        if capture {
            self.counts.clear();
        }
        let key = self.position.key();
        let gave_check = self.position.in_check();
        self.plies.push(Ply {
            mv: m,
            key,
            gave_check,
            capture,
        });
        let count = self.counts.entry(key).or_insert(0);
        *count += 1;
        self.outcome = if *count >= 4 {
            Some(self.repetition_outcome(key))
        } else {
            self.no_move_outcome()
        };
    }

    /// The result of the 4th occurrence of `key`, the position just reached (§5.5).
    fn repetition_outcome(&self, key: u64) -> Outcome {
        // Find the ply index after which the first of the four occurrences stood.
        let mut seen = 0;
        let mut first = None;
        for i in (0..self.plies.len()).rev() {
            if self.plies[i].key == key {
                seen += 1;
                if seen == 4 {
                    first = Some(i + 1);
                    break;
                }
            }
            if self.plies[i].capture {
                break;
            }
        }
        // Fewer than four after the last capture in the move list: the start position is one.
        let first = first.unwrap_or(0);
        let span = &self.plies[first..];
        let mover_at = |i: usize| -> Color {
            // plies[k] was made by the side to move at ply k from the start.
            let start_side = self.start.side_to_move();
            if (first + i).is_multiple_of(2) {
                start_side
            } else {
                start_side.opposite()
            }
        };
        let mut all_checks = [true, true];
        let mut any_moves = [false, false];
        for (i, ply) in span.iter().enumerate() {
            let c = mover_at(i).index();
            any_moves[c] = true;
            all_checks[c] &= ply.gave_check;
        }
        let perpetual = [any_moves[0] && all_checks[0], any_moves[1] && all_checks[1]];
        let winner = match perpetual {
            [true, false] => Some(Color::White),
            [false, true] => Some(Color::Black),
            _ => None,
        };
        Outcome {
            winner,
            termination: if winner.is_some() {
                Termination::PerpetualCheck
            } else {
                Termination::Repetition
            },
        }
    }

    fn no_move_outcome(&self) -> Option<Outcome> {
        let side = self.position.side_to_move();
        let rules = self.position.variant().rules();
        if rules.legality == LegalityRule::PseudoLegal
            && self.position.royals(side).next().is_none()
        {
            return Some(Outcome {
                winner: Some(side.opposite()),
                termination: Termination::RoyalCaptured,
            });
        }
        if self.has_legal_move() {
            return None;
        }
        let in_check = self.position.in_check();
        let winner = match self.position.variant().rules().stalemate {
            StalemateRule::Draw if !in_check => None,
            _ => Some(side.opposite()),
        };
        Some(Outcome {
            winner,
            termination: if in_check {
                Termination::Checkmate
            } else {
                Termination::NoLegalMove
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    /// A quiet move of the side to move whose reverse step is legal right after it.
    fn reversible(pos: &Position) -> (Move, Move) {
        for m in pos.legal_move_list() {
            if m.is_capture() || m.is_pass() {
                continue;
            }
            let mut after = pos.clone();
            after.play(m);
            after.play(
                after
                    .legal_move_list()
                    .into_iter()
                    .find(|r| !r.is_capture() && !r.is_pass())
                    .expect("a reply"),
            );
            let back = after
                .legal_move_list()
                .into_iter()
                .find(|b| b.from() == m.to() && b.to() == m.from() && !b.is_capture());
            if let Some(back) = back {
                return (m, back);
            }
        }
        panic!("no reversible move");
    }

    #[test]
    fn repeating_moves_flags_exactly_the_moves_back_to_a_seen_position() {
        let mut game = Game::new(Position::initial(Variant::dai_dai()));
        let (black_out, black_back) = reversible(game.position());
        game.play(black_out).unwrap();
        let (white_out, white_back) = reversible(game.position());
        game.play(white_out).unwrap();
        // Black steps back: a new position (White's piece is still out).
        let moves = game.position().legal_move_list();
        assert!(!game.repeating_moves(&moves).contains(&true));
        game.play(black_back).unwrap();
        // White's step back recreates the start position, and nothing else repeats.
        let moves = game.position().legal_move_list();
        let flags = game.repeating_moves(&moves);
        let flagged: Vec<Move> = moves
            .iter()
            .zip(&flags)
            .filter(|(_, &f)| f)
            .map(|(&m, _)| m)
            .collect();
        assert_eq!(flagged, vec![white_back]);
        game.play(white_back).unwrap();
        assert_eq!(game.repetitions(), 2);
    }
}
