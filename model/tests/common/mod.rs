//! Training rows shared by the network tests, and the agreement checks of the evaluators.

pub mod agreement;

use tengu_model::desc::{RowTargets, TrainExample};
use tengu_rules::{Move, Position};

/// A one-hot policy target per position: move `(13 * i) % moves` of position `i`.
pub fn one_hot_targets(moves: &[Vec<Move>]) -> Vec<Vec<f32>> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (0..m.len())
                .map(|j| if j == (i * 13) % m.len() { 1.0 } else { 0.0 })
                .collect()
        })
        .collect()
}

/// The heads' targets of `count` rows, won and lost in turn (no ownership targets; most
/// rows with a teacher label).
pub fn row_targets(count: usize) -> Vec<RowTargets> {
    (0..count)
        .map(|i| RowTargets {
            wdl: if i % 2 == 0 {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            },
            ownership: Vec::new(),
            material: if i % 2 == 0 {
                [0.5, 0.25]
            } else {
                [-0.5, -0.25]
            },
            teacher: (i % 3 != 2).then_some([0.1 * i as f32 - 0.2, 0.3 - 0.2 * i as f32]),
            // The targets of heads added later.
            ..RowTargets::default()
        })
        .collect()
}

/// Training examples of those rows with the heads' targets `rows` ([`row_targets`]).
pub fn examples<'a>(
    ps: &'a [Position],
    moves: &'a [Vec<Move>],
    targets: &'a [Vec<f32>],
    rows: &'a [RowTargets],
) -> Vec<TrainExample<'a>> {
    (0..ps.len())
        .map(|i| TrainExample {
            position: &ps[i],
            repetitions: 0,
            moves: &moves[i],
            policy: &targets[i],
            targets: &rows[i],
        })
        .collect()
}
