//! Perft: the number of leaf positions of the legal-move tree, with bulk counting at the
//! last ply (the legal moves of a depth-1 node are counted, not played).

use crate::position::Position;
use crate::types::Move;

/// Leaf count at `depth` plies (depth 0 counts the position itself).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut lists: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(512)).collect();
    perft_with(pos, depth, &mut lists)
}

/// Leaf count under each legal move (`--divide`), in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_move_list();
    let mut lists: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(512)).collect();
    moves
        .into_iter()
        .map(|m| {
            let undo = pos.play(m);
            let n = perft_with(pos, depth - 1, &mut lists);
            pos.unplay(m, undo);
            (m, n)
        })
        .collect()
}

fn perft_with(pos: &mut Position, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let (list, rest) = lists.split_first_mut().expect("one move list per ply");
            pos.legal_moves(list);
            let mut total = 0;
            for &m in list.iter() {
                let undo = pos.play(m);
                total += perft_with(pos, depth - 1, rest);
                pos.unplay(m, undo);
            }
            total
        }
    }
}
