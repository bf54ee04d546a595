//! Balanced arena openings chosen from a book: positions whose backed-up expected score is
//! close to 0.5 with a low draw probability, spread over plies, without near-duplicates
//! (the chess testing practice summarised in `books.md` §4 and §6.7).

use tengu_rules::{Position, Square};

use crate::book::Book;
use crate::export::{path_texts, positions};

/// Which positions qualify as arena openings.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningFilter {
    /// Openings wanted (fewer when not enough qualify).
    pub count: usize,
    /// Plies of the opening line, inclusive.
    pub min_ply: u32,
    pub max_ply: u32,
    /// Largest distance of the expected score from 0.5.
    pub max_gap: f32,
    /// Largest draw probability.
    pub max_draw: f32,
    /// Largest standard error of the expected score.
    pub max_err: f32,
    /// Fewest visits of the position's own search.
    pub min_visits: u32,
    /// Two openings must differ on at least this many squares.
    pub min_difference: usize,
}

impl Default for OpeningFilter {
    fn default() -> OpeningFilter {
        OpeningFilter {
            count: 50,
            min_ply: 2,
            max_ply: 24,
            max_gap: 0.05,
            max_draw: 0.5,
            max_err: 0.1,
            min_visits: 1,
            min_difference: 2,
        }
    }
}

/// A chosen opening.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    pub node: u32,
    pub ply: u32,
    /// The moves from the start (§12.3).
    pub path: Vec<String>,
    pub score: f32,
    pub draw: f32,
}

fn difference(a: &Position, b: &Position) -> usize {
    Square::all(a.size())
        .filter(|&s| a.piece_at(s) != b.piece_at(s))
        .count()
        + (a.side_to_move() != b.side_to_move()) as usize
}

/// Chooses openings: the qualifying positions of each ply ordered by closeness to 0.5 (then
/// draw probability), taken round-robin over the plies so that every ply in range is used,
/// skipping any that differ from an opening already chosen on fewer than
/// `min_difference` squares.
pub fn balanced_openings(book: &Book, filter: &OpeningFilter) -> Vec<Chosen> {
    let positions = positions(book);
    let mut by_ply: std::collections::BTreeMap<u32, Vec<(u32, f32, f32)>> = Default::default();
    for (i, n) in book.graph.nodes.iter().enumerate() {
        let v = book.value(i as u32);
        let ok = n.terminal.is_none()
            && (filter.min_ply..=filter.max_ply).contains(&n.ply)
            && (v.score() - 0.5).abs() <= filter.max_gap
            && v.draw <= filter.max_draw
            && v.err <= filter.max_err
            && n.own
                .as_ref()
                .is_some_and(|o| o.visits >= filter.min_visits);
        if ok {
            by_ply
                .entry(n.ply)
                .or_default()
                .push((i as u32, (v.score() - 0.5).abs(), v.draw));
        }
    }
    for list in by_ply.values_mut() {
        list.sort_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then(a.2.total_cmp(&b.2))
                .then(a.0.cmp(&b.0))
        });
        list.reverse(); // popped from the back
    }
    let mut chosen: Vec<Chosen> = Vec::new();
    while chosen.len() < filter.count && by_ply.values().any(|l| !l.is_empty()) {
        for list in by_ply.values_mut() {
            if chosen.len() >= filter.count {
                break;
            }
            while let Some((id, _, _)) = list.pop() {
                let pos = &positions[id as usize];
                let near = chosen
                    .iter()
                    .any(|c| difference(&positions[c.node as usize], pos) < filter.min_difference);
                if near {
                    continue;
                }
                let v = book.value(id);
                chosen.push(Chosen {
                    node: id,
                    ply: book.node(id).ply,
                    path: path_texts(book, &positions, id),
                    score: v.score(),
                    draw: v.draw,
                });
                break;
            }
        }
    }
    chosen
}
