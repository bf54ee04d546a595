//! Capture exchanges: what a move takes, and the material the side to move can win by
//! captures alone (a capture-only quiescence search with stand-pat), the exact tactics a
//! leaf's material term can use instead of the material head's guess.

use tengu_rules::{Move, Position};

/// Value of the pieces `m` captures in `pos` (piece units; 0 for a quiet move).
pub fn gain(pos: &Position, values: &[f32], m: Move) -> f32 {
    m.captures()
        .filter_map(|s| pos.piece_at(s))
        .map(|p| values[p.ty])
        .sum()
}

/// Nodes one [`exchange_gain`] may visit: bounds the cost of a leaf in crowded positions
/// (the search stops capturing, as if standing pat, once they are spent).
pub const EXCHANGE_NODES: u32 = 256;

/// Material (piece units, >= 0) the side to move of `pos` wins by a sequence of at most
/// `depth` captures, both sides free to stop capturing when that is better (stand-pat),
/// each side answering with its best capture; at most [`EXCHANGE_NODES`] positions.
pub fn exchange_gain(pos: &Position, values: &[f32], depth: u32) -> f32 {
    best_capture(pos, values, depth).map_or(0.0, |(_, won)| won)
}

/// The capture that starts the side to move's best exchange at `pos` and what the
/// exchange wins (piece units, > 0), searched as [`exchange_gain`] describes; `None` when
/// no capture wins material (or `depth` is 0).
pub fn best_capture(pos: &Position, values: &[f32], depth: u32) -> Option<(Move, f32)> {
    if depth == 0 {
        return None;
    }
    let mut work = pos.clone();
    let mut moves = Vec::with_capacity(256);
    captures_by_gain(&work, values, &mut moves);
    let mut buffers = vec![Vec::with_capacity(256); depth as usize - 1];
    // This position is the first of the budget.
    let mut nodes = EXCHANGE_NODES - 1;
    let mut best: Option<(Move, f32)> = None;
    for m in moves {
        let taken = gain(&work, values, m);
        let alpha = best.map_or(0.0, |b| b.1);
        // The reply is worth >= 0 to the opponent, so no capture from here on beats alpha.
        if taken <= alpha {
            break;
        }
        let undo = work.play(m);
        let reply = capture_search(
            &mut work,
            values,
            &mut buffers,
            f32::NEG_INFINITY,
            taken - alpha,
            &mut nodes,
        );
        work.unplay(m, undo);
        if taken - reply > alpha {
            best = Some((m, taken - reply));
        }
    }
    best
}

/// Replaces `moves` with the legal captures at `pos`, the most valuable haul first.
fn captures_by_gain(pos: &Position, values: &[f32], moves: &mut Vec<Move>) {
    pos.legal_moves(moves);
    moves.retain(|m| m.is_capture());
    moves.sort_by(|&a, &b| gain(pos, values, b).total_cmp(&gain(pos, values, a)));
}

/// Negamax over captures with a (alpha, beta) window on the mover's gain; `buffers` holds
/// one move list per remaining ply (its length is the depth left).
fn capture_search(
    pos: &mut Position,
    values: &[f32],
    buffers: &mut [Vec<Move>],
    mut alpha: f32,
    beta: f32,
    nodes: &mut u32,
) -> f32 {
    // Standing pat is worth 0.
    alpha = alpha.max(0.0);
    let Some((moves, deeper)) = buffers.split_first_mut() else {
        return alpha;
    };
    if alpha >= beta || *nodes == 0 {
        return alpha;
    }
    *nodes -= 1;
    captures_by_gain(pos, values, moves);
    for i in 0..moves.len() {
        let m = moves[i];
        let taken = gain(pos, values, m);
        // The reply is worth >= 0 to the opponent, so no capture from here on beats alpha.
        if taken <= alpha {
            break;
        }
        let undo = pos.play(m);
        let reply = capture_search(pos, values, deeper, taken - beta, taken - alpha, nodes);
        pos.unplay(m, undo);
        alpha = alpha.max(taken - reply);
        if alpha >= beta {
            break;
        }
    }
    alpha
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_capture_gains_nothing() {
        let variant = tengu_rules::Variant::dai_dai();
        let values = tengu_rules::values::piece_values(&variant);
        let pos = Position::initial(variant);
        assert_eq!(exchange_gain(&pos, &values, 4), 0.0);
        assert_eq!(best_capture(&pos, &values, 4), None);
    }
}
