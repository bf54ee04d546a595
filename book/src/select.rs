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

/// Why an [`OpeningFilter`] cannot choose anything, whatever the book.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FilterError {
    #[error("count 0: at least one opening must be wanted")]
    ZeroCount,
    #[error("min ply {min} is above max ply {max}: no ply is in the range")]
    PlyRange { min: u32, max: u32 },
    #[error("{field} {value}: must be a number >= 0")]
    Negative { field: &'static str, value: f32 },
}

/// The tests of an [`OpeningFilter`], in the order they are reported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Test {
    /// The game is over at the position.
    Finished,
    /// The ply is outside `min_ply..=max_ply`.
    Plies,
    /// The expected score is further than `max_gap` from 0.5.
    Gap,
    /// The draw probability is above `max_draw`.
    Draw,
    /// The standard error is above `max_err`.
    Err,
    /// No search of its own with `min_visits` visits.
    Visits,
}

impl Test {
    pub const ALL: [Test; 6] = [
        Test::Finished,
        Test::Plies,
        Test::Gap,
        Test::Draw,
        Test::Err,
        Test::Visits,
    ];
}

/// How many positions each test of a filter turns away: `rejected[t]` counts every position
/// failing test `t` (a position can fail several), `only[t]` those failing `t` alone (the
/// ones that loosening `t` would admit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rejections {
    pub positions: usize,
    pub qualify: usize,
    pub rejected: [usize; 6],
    pub only: [usize; 6],
}

impl Rejections {
    pub fn rejected(&self, t: Test) -> usize {
        self.rejected[t as usize]
    }

    pub fn only(&self, t: Test) -> usize {
        self.only[t as usize]
    }

    /// The test to loosen first: the one that alone keeps out the most positions, else the
    /// one that keeps out the most (the finished games cannot be loosened). `None` when no
    /// loosenable test rejects anything.
    pub fn loosen_first(&self) -> Option<Test> {
        let loosenable = Test::ALL.into_iter().filter(|&t| t != Test::Finished);
        let best = |count: &dyn Fn(Test) -> usize| {
            loosenable
                .clone()
                .filter(|&t| count(t) > 0)
                .max_by_key(|&t| (count(t), std::cmp::Reverse(t as usize)))
        };
        best(&|t| self.only(t)).or_else(|| best(&|t| self.rejected(t)))
    }
}

impl OpeningFilter {
    /// Refuses a filter that can choose nothing in any book: no opening wanted, an empty
    /// ply range, a negative or non-numeric bound.
    pub fn validate(&self) -> Result<(), FilterError> {
        if self.count == 0 {
            return Err(FilterError::ZeroCount);
        }
        if self.min_ply > self.max_ply {
            return Err(FilterError::PlyRange {
                min: self.min_ply,
                max: self.max_ply,
            });
        }
        for (field, value) in [
            ("max_gap", self.max_gap),
            ("max_draw", self.max_draw),
            ("max_err", self.max_err),
        ] {
            if !(value >= 0.0) {
                return Err(FilterError::Negative { field, value });
            }
        }
        Ok(())
    }

    /// The tests node `id` fails.
    fn failures(&self, book: &Book, id: u32) -> [bool; 6] {
        let n = book.node(id);
        let v = book.value(id);
        let mut failed = [false; 6];
        failed[Test::Finished as usize] = n.terminal.is_some();
        failed[Test::Plies as usize] = !(self.min_ply..=self.max_ply).contains(&n.ply);
        failed[Test::Gap as usize] = !((v.score() - 0.5).abs() <= self.max_gap);
        failed[Test::Draw as usize] = !(v.draw <= self.max_draw);
        failed[Test::Err as usize] = !(v.err <= self.max_err);
        failed[Test::Visits as usize] = n.own.as_ref().is_none_or(|o| o.visits < self.min_visits);
        failed
    }
}

/// How many of the book's positions each test of `filter` turns away.
pub fn rejections(book: &Book, filter: &OpeningFilter) -> Rejections {
    let mut r = Rejections {
        positions: book.len(),
        ..Rejections::default()
    };
    for id in 0..book.len() as u32 {
        let failed = filter.failures(book, id);
        let count = failed.iter().filter(|&&f| f).count();
        if count == 0 {
            r.qualify += 1;
        }
        for (t, &f) in failed.iter().enumerate() {
            if f {
                r.rejected[t] += 1;
                if count == 1 {
                    r.only[t] += 1;
                }
            }
        }
    }
    r
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
        if !filter.failures(book, i as u32).contains(&true) {
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
