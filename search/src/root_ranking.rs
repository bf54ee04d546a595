//! Which root moves a search tries first: captures by prior, or every move by what it keeps
//! by exchange (piece units), and how many captures a PUCT root owes a first visit.

use tengu_rules::{Move, Position};

use crate::config::SearchConfig;
use crate::leaf::LeafTerms;
use crate::node::Node;

/// The capture edges of `node`, the most probable first (ties in move order).
pub fn captures_by_prior(node: &Node) -> Vec<usize> {
    let mut edges: Vec<usize> = (0..node.moves.len())
        .filter(|&e| node.moves[e].is_capture())
        .collect();
    edges.sort_by(|&a, &b| node.prior[b].total_cmp(&node.prior[a]));
    edges
}

/// Every edge of `node`, the highest `values` (one per edge) first, then the most probable.
pub fn ranked_moves(node: &Node, values: &[f32]) -> Vec<usize> {
    let mut edges: Vec<usize> = (0..node.moves.len()).collect();
    edges.sort_by(|&a, &b| {
        values[b]
            .total_cmp(&values[a])
            .then(node.prior[b].total_cmp(&node.prior[a]))
    });
    edges
}

/// The unvisited capture edges of `root` owed a first visit, at most `max`, in the order
/// they are taken from the back of the returned list: the most probable first, or with
/// `exchange_values` (one per edge) the captures that win the most by exchange first.
pub fn forced_capture_edges(
    root: &Node,
    max: usize,
    exchange_values: Option<&[f32]>,
) -> Vec<usize> {
    let ranked = match exchange_values {
        Some(values) => ranked_moves(root, values),
        None => captures_by_prior(root),
    };
    let mut edges: Vec<usize> = ranked
        .into_iter()
        .filter(|&e| root.moves[e].is_capture())
        .filter(|&e| root.visits[e] == 0)
        .take(max)
        .collect();
    // Taken from the back.
    edges.reverse();
    edges
}

/// How many root captures a PUCT search of `visits` visits owes a first visit:
/// `root_capture_share * visits`, rounded down.
pub fn forced_capture_count(config: &SearchConfig, visits: u32) -> usize {
    (config.root_capture_share * visits as f32) as usize
}

/// With `leaf_material = "exchange"` (or `"gain"`), what each of `moves` (at `pos`) keeps
/// by exchange: the pieces it captures minus what the opponent then wins by captures
/// (piece units; a quiet move that leaves a piece hanging scores below one that saves it),
/// so the root races the moves that win or keep material; plus `root_mobility` times the mobility
/// balance after the move (pseudo-legal moves, the mover's minus the opponent's) and
/// `root_threat` times what the mover would then win by exchange if it moved again (a null
/// move). `None` otherwise.
pub fn root_exchange_values(
    config: &SearchConfig,
    pos: &Position,
    moves: &[Move],
    terms: &LeafTerms,
) -> Option<Vec<f32>> {
    if !config.leaf_material.uses_exchange() {
        return None;
    }
    let mut work = pos.clone();
    let me = pos.side_to_move();
    let depth = config.exchange_depth.saturating_sub(1).max(1);
    let values = moves
        .iter()
        .map(|&m| {
            let taken = crate::exchange::gain(&work, &terms.values, m);
            let undo = work.play(m);
            let reply = crate::exchange::exchange_gain(&work, &terms.values, depth);
            let activity = if config.root_mobility > 0.0 {
                let balance = work.mobility(me) as f32 - work.mobility(me.opposite()) as f32;
                config.root_mobility * balance
            } else {
                0.0
            };
            let threat = if config.root_threat > 0.0 {
                work.flip_side_to_move();
                let t = crate::exchange::exchange_gain(&work, &terms.values, depth);
                work.flip_side_to_move();
                config.root_threat * t
            } else {
                0.0
            };
            work.unplay(m, undo);
            taken - reply + activity + threat
        })
        .collect();
    Some(values)
}
