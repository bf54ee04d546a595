//! A searched position of the tree: its legal moves with priors and per-move statistics,
//! at the bottom of the search, where selection, the Gumbel root and root ranking read it.
//!
//! Values are in [-1, 1] from the view of the side to move at the node they belong to; an
//! edge's `value_sum` is from the view of the side to move at its parent.

use tengu_rules::Move;

/// The child id of an edge not yet expanded.
pub const NONE: u32 = u32::MAX;

/// A searched position: its legal moves with priors and per-move statistics.
#[derive(Clone, Debug)]
pub struct Node {
    pub moves: Vec<Move>,
    /// One probability per move.
    pub prior: Vec<f32>,
    /// Node id of each move's child (`NONE` until expanded).
    pub child: Vec<u32>,
    pub visits: Vec<u32>,
    pub value_sum: Vec<f32>,
    /// Visits through this node, its own evaluation included.
    pub total: u32,
    /// The evaluation's value (or the exact value of a finished game).
    pub value: f32,
    /// Whether the game is over here (then `moves` is empty and `value` exact).
    pub terminal: bool,
    /// A move that takes this node's first visit below the root: the capture that starts
    /// the mover's best exchange (`leaf_material = "exchange"`), so the second visit of a
    /// move follows the exchange its leaf value assumed instead of a prior-chosen reply.
    pub lead: Option<usize>,
}

impl Node {
    /// A node first visited with `value`; every edge unexpanded and unvisited.
    pub(crate) fn new(
        moves: Vec<Move>,
        prior: Vec<f32>,
        value: f32,
        terminal: bool,
        lead: Option<usize>,
    ) -> Node {
        let n = moves.len();
        Node {
            moves,
            prior,
            child: vec![NONE; n],
            visits: vec![0; n],
            value_sum: vec![0.0; n],
            total: 1,
            value,
            terminal,
            lead,
        }
    }

    /// Mean value from this node's mover's view, its own evaluation included.
    pub fn mean_value(&self) -> f32 {
        (self.value + self.value_sum.iter().sum::<f32>()) / self.total as f32
    }

    /// Mean value of edge `e` from this node's mover's view (`None` when unvisited).
    pub fn q(&self, e: usize) -> Option<f32> {
        (self.visits[e] > 0).then(|| self.value_sum[e] / self.visits[e] as f32)
    }
}
