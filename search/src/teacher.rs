//! The judge's teacher: a search that sees further than the one it teaches.
//!
//! A search leaf counts material with the exchange search (`leaf_material = "exchange"`):
//! the balance plus what the mover wins by captures now. The teacher searches the same
//! position full width to a fixed depth with that count at its horizon, so it sees the
//! threats, forks and quiet replies that one leaf's capture search cannot. The learned
//! value is a residual on the leaf's count, taught toward the teacher's score (the way
//! Stockfish's NNUE learned from deeper searches of its classical evaluation, and
//! TreeStrap and KnightCap from their own deeper search of a material start).
//! The labels cost CPU in the process that makes them, so the run's ledger counts them.

use std::sync::Arc;

use tengu_rules::values::piece_values;
use tengu_rules::{Position, Variant};

use crate::alphabeta::{AlphaBeta, Horizon};

/// Scores beyond this many piece units (a won or lost position) are clamped to it: the
/// value's scale ([`tengu_model::desc::MATERIAL_SCALE`]) maps it to within 1e-8 of +-1.
pub const DECIDED: f32 = 100.0;

/// One position's teacher label, piece units from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// Plies the teacher searched full width.
    pub depth: u32,
    /// What one search leaf counts here: the balance plus the mover's exchange gain.
    pub base: f32,
    /// The teacher's score, clamped to +-[`DECIDED`].
    pub score: f32,
    /// Positions the teacher visited (its cost).
    pub nodes: u64,
}

/// Alpha-beta to a fixed depth with the leaves' exchange count at its horizon.
pub struct Teacher {
    search: AlphaBeta,
    depth: u32,
}

impl Teacher {
    /// A teacher searching `depth` plies with exchanges of at most `exchange_depth`
    /// captures at its horizon (the search config's `exchange_depth`, so the teacher and
    /// its student count material alike). Depth 0 is the count itself (score = base): a
    /// label that costs one exchange count and gives the trainer every row's base, for
    /// targets that come from the game instead (`train.teacher_future_weight`).
    pub fn new(variant: &Arc<Variant>, depth: u32, exchange_depth: u32) -> Teacher {
        Teacher::with_values(piece_values(variant), depth, exchange_depth)
    }

    /// [`Teacher::new`] with the variant's piece values already at hand
    /// (`tengu_rules::values::piece_values`, which costs move generations to compute).
    pub fn with_values(values: Vec<f32>, depth: u32, exchange_depth: u32) -> Teacher {
        Teacher {
            search: AlphaBeta::new(values).with_horizon(Horizon::Exchange { exchange_depth }),
            depth,
        }
    }

    /// The label of `pos`: the leaf's count and the teacher's score.
    pub fn label(&self, pos: &Position) -> Label {
        let base = self.base(pos);
        if self.depth == 0 {
            return Label {
                depth: 0,
                base,
                score: base,
                nodes: 1,
            };
        }
        let (score, nodes) = self.search.fixed_depth_value(pos, self.depth);
        Label {
            depth: self.depth,
            base,
            score: score.clamp(-DECIDED, DECIDED),
            nodes,
        }
    }

    /// What one leaf counts at `pos` (piece units, the mover's view): the teacher's
    /// horizon value, as `crate::leaf::material_term` computes it before its `tanh`.
    pub fn base(&self, pos: &Position) -> f32 {
        self.search
            .fixed_depth_value(pos, 0)
            .0
            .clamp(-DECIDED, DECIDED)
    }
}
