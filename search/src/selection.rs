//! PUCT selection below the root: the edge a simulation follows out of a node, with the
//! first-play urgency (FPU) of unvisited moves.

use crate::config::SearchConfig;
use crate::node::Node;

/// The edge of `node` that a simulation follows: its lead while the lead is unvisited (see
/// [`Node::lead`]), else the highest Q + U, where Q is the edge's mean value in [-1, 1]
/// (the FPU value when unvisited) and U = `c_puct` * prior * sqrt(node visits) / (1 + edge
/// visits). Ties go to the first edge in move order.
pub fn puct_edge(node: &Node, config: &SearchConfig) -> usize {
    if let Some(e) = node.lead.filter(|&e| node.visits[e] == 0) {
        return e;
    }
    let sqrt_total = (node.total as f32).sqrt();
    // The reduction grows with the prior mass already explored (KataGo, Lc0): a flat
    // reduction makes every unvisited move lose to a visited one whenever values are
    // near equal (as for a young network), and search collapses onto the top prior.
    let explored: f32 = (0..node.moves.len())
        .filter(|&e| node.visits[e] > 0)
        .map(|e| node.prior[e])
        .sum();
    let fpu = node.mean_value() - config.fpu_reduction * explored.sqrt();
    let mut best = (f32::NEG_INFINITY, 0);
    for e in 0..node.moves.len() {
        let q = node.q(e).unwrap_or(fpu);
        let u = config.c_puct * node.prior[e] * sqrt_total / (1.0 + node.visits[e] as f32);
        if q + u > best.0 {
            best = (q + u, e);
        }
    }
    best.1
}
