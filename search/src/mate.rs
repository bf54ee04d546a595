//! A forced mate by checks from the root: the side to move checks on every move, the
//! defender tries every legal reply, and a line wins when the defender is mated within the
//! given number of the attacker's moves. Why it exists: when one side is far ahead its
//! search values saturate (the material term is `tanh` of a large balance, as good as a
//! win), so the search has no reason to prefer the mate over any other move and a won
//! game shuffles on to the ply cap (a bare King on the edge survived 4,000 plies against a
//! full army). A proven mate is played at once.

use tengu_rules::config::LegalityRule;
use tengu_rules::{Color, Game, Move, Position};

/// How far and how hard to look: mates in up to `moves` of the attacker's moves, visiting
/// at most `nodes` positions (the search gives up, finding nothing, past that).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MateLimits {
    pub moves: u32,
    pub nodes: u64,
}

/// A forced mate in at most `limits.moves` of the side to move's moves, by checks only: the
/// first move of the line. `None` when there is none within the limits (or the game is
/// over). The line's end is checked against the game's own rules (a checkmate ends it with
/// the attacker's win), so rule options cannot make it a draw.
pub fn mate_by_checks(game: &Game, limits: MateLimits) -> Option<Move> {
    // Lines are followed on positions, without the game's history: under
    // `REPETITION=STRICT` a check of the line could be a forbidden repeat, and with
    // `LEGALITY=PSEUDO_LEGAL` a game ends by capturing the royal, not by mate.
    let rules = game.position().variant().rules();
    if limits.moves == 0
        || game.outcome().is_some()
        || game.strict_repetition()
        || rules.legality == LegalityRule::PseudoLegal
    {
        return None;
    }
    let mut pos = game.position().clone();
    let attacker = pos.side_to_move();
    let mut nodes = 0u64;
    for n in 1..=limits.moves {
        let mut budget = Budget {
            nodes: &mut nodes,
            limit: limits.nodes,
        };
        match attack(&mut pos, n, attacker, &mut budget) {
            Found::Mate(m) => {
                // Confirm with the game's rules: the first move must not, say, repeat into
                // a draw; the rest is a forced mate by the position's rules.
                let mut after = game.clone();
                after.play_unchecked(m);
                if after.outcome().is_some_and(|o| o.winner != Some(attacker)) {
                    return None;
                }
                return Some(m);
            }
            Found::Nothing => {}
            Found::OutOfNodes => return None,
        }
    }
    None
}

struct Budget<'a> {
    nodes: &'a mut u64,
    limit: u64,
}

impl Budget<'_> {
    fn spend(&mut self) -> bool {
        *self.nodes += 1;
        *self.nodes <= self.limit
    }
}

enum Found {
    Mate(Move),
    Nothing,
    OutOfNodes,
}

/// The attacker (to move in `pos`) mates in at most `n` of its moves by checks.
fn attack(pos: &mut Position, n: u32, attacker: Color, budget: &mut Budget) -> Found {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    // Checks first found, then tried: a mate in one among them ends the search.
    let mut checks = Vec::new();
    for &m in &moves {
        if !budget.spend() {
            return Found::OutOfNodes;
        }
        let undo = pos.play(m);
        if pos.in_check() {
            if !pos.has_legal_move() {
                pos.unplay(m, undo);
                return Found::Mate(m);
            }
            checks.push(m);
        }
        pos.unplay(m, undo);
    }
    if n <= 1 {
        return Found::Nothing;
    }
    for m in checks {
        let undo = pos.play(m);
        let defended = defend(pos, n - 1, attacker, budget);
        pos.unplay(m, undo);
        match defended {
            Some(true) => {}
            Some(false) => return Found::Mate(m),
            None => return Found::OutOfNodes,
        }
    }
    Found::Nothing
}

/// Whether the defender (to move in `pos`, in check) escapes a mate in `n` more attacker
/// moves; `None` when the budget ran out.
fn defend(pos: &mut Position, n: u32, attacker: Color, budget: &mut Budget) -> Option<bool> {
    let mut replies = Vec::new();
    pos.legal_moves(&mut replies);
    for r in replies {
        if !budget.spend() {
            return None;
        }
        let undo = pos.play(r);
        let found = attack(pos, n, attacker, budget);
        pos.unplay(r, undo);
        match found {
            Found::Mate(_) => {}
            Found::Nothing => return Some(true),
            Found::OutOfNodes => return None,
        }
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_holds_no_mate_in_one() {
        let game = Game::new(Position::initial(tengu_rules::Variant::dai_dai()));
        let limits = MateLimits {
            moves: 1,
            nodes: 100_000,
        };
        assert_eq!(mate_by_checks(&game, limits), None);
    }
}
