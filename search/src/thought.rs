//! What a search reports on one position ([`Thought`]): its move, score, effort and
//! principal variation, as every player's `think` returns it.

use std::time::Duration;

use tengu_rules::Move;

/// A search's report on one position: its move, score, effort and principal variation.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    pub best: Move,
    /// Score from the side to move's view in centipawn-like units (alpha-beta: material
    /// times 100; MCTS: the root value mapped as lc0 does, 0 = even).
    pub score: i32,
    /// Completed depth (alpha-beta), or the length of the principal variation (MCTS).
    pub depth: u32,
    /// Nodes searched (alpha-beta) or root visits (MCTS).
    pub nodes: u64,
    pub elapsed: Duration,
    /// The expected line, `best` first.
    pub pv: Vec<Move>,
}

impl Thought {
    /// A move without a search behind it.
    pub fn just(best: Move) -> Thought {
        Thought {
            best,
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: vec![best],
        }
    }
}
