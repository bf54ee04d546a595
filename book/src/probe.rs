//! Probing a book: the book moves of a position with their values, and picking one.

use rand::Rng;
use serde::Serialize;
use tengu_rules::{Game, Move, Position};

use crate::book::Book;
use crate::graph::Wdl;

/// One book move of a probed position.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    /// Backed-up value after the move, from the prober's (the mover's) view.
    pub value: Wdl,
    /// Lower confidence bound of the expected score: `score - error_factor * err`.
    pub lcb: f32,
    /// Visits of the search at the position the move leads to.
    pub visits: u32,
    /// The network's prior of the move.
    pub prior: f32,
    /// Index of the position the move leads to.
    pub child: u32,
}

/// How [`Book::pick`] chooses among book moves.
#[derive(Clone, Debug, PartialEq)]
pub struct PickOptions {
    /// No book move once the game is this many plies long.
    pub max_ply: u32,
    /// Only moves whose resulting position was searched with at least this many visits.
    pub min_visits: u32,
    /// Only moves whose expected score is at most this far below the best move's (in
    /// [0, 1] score units; 0.015 is dlshogi's 1.5%).
    pub max_drop: f32,
    /// Sampling temperature in score units: weights `exp((lcb - best lcb) / temperature)`;
    /// 0 always picks the move with the best lower confidence bound.
    pub temperature: f32,
}

impl Default for PickOptions {
    fn default() -> PickOptions {
        PickOptions {
            max_ply: 16,
            min_visits: 1,
            max_drop: 0.015,
            temperature: 0.0,
        }
    }
}

/// The probe of one position, for printing.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    pub key: String,
    pub ply: u32,
    pub side_to_move: String,
    pub value: WdlOut,
    pub visits: u32,
    pub moves: Vec<ProbeMove>,
    /// The best move not in the book and its search's value.
    pub other: Option<ProbeOther>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProbeMove {
    #[serde(rename = "move")]
    pub mv: String,
    pub visits: u32,
    pub prior: f32,
    pub value: WdlOut,
    /// The principal line from the position, the move first.
    pub line: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProbeOther {
    pub best: String,
    pub prior: f32,
    pub visits: u32,
    pub value: WdlOut,
}

/// W/D/L with the expected score and its error, rounded for output.
#[derive(Copy, Clone, Debug, Serialize)]
pub struct WdlOut {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
    pub score: f32,
    pub err: f32,
}

impl From<Wdl> for WdlOut {
    fn from(w: Wdl) -> WdlOut {
        let r = |x: f32| (x * 1000.0).round() / 1000.0;
        WdlOut {
            win: r(w.win),
            draw: r(w.draw),
            loss: r(w.loss),
            score: r(w.score()),
            err: r(w.err),
        }
    }
}

impl Book {
    /// The book moves at `pos` (every one, best lower confidence bound first); empty when
    /// the position is not in the book.
    pub fn moves_at(&self, pos: &Position) -> Vec<Candidate> {
        self.find(pos).map_or_else(Vec::new, |id| self.moves_of(id))
    }

    /// The book moves of node `id`, best lower confidence bound first.
    pub fn moves_of(&self, id: u32) -> Vec<Candidate> {
        let ef = self.header.costs.error_factor;
        let mut out: Vec<Candidate> = self
            .node(id)
            .edges
            .iter()
            .map(|e| {
                let value = self.value(e.child).flip();
                Candidate {
                    mv: e.mv,
                    value,
                    lcb: value.score() - ef * value.err,
                    visits: self.node(e.child).visits(),
                    prior: e.prior,
                    child: e.child,
                }
            })
            .collect();
        out.sort_by(|a, b| b.lcb.total_cmp(&a.lcb).then(b.prior.total_cmp(&a.prior)));
        out
    }

    /// The book moves `pick` chooses from in `game`: within `max_ply`, with enough visits,
    /// and within `max_drop` of the best expected score; best lower confidence bound first.
    pub fn candidates(&self, game: &Game, options: &PickOptions) -> Vec<Candidate> {
        if game.len() as u32 >= options.max_ply || game.outcome().is_some() {
            return Vec::new();
        }
        let mut moves = self.moves_at(game.position());
        moves.retain(|c| c.visits >= options.min_visits);
        let best = moves
            .iter()
            .map(|c| c.value.score())
            .fold(f32::NEG_INFINITY, f32::max);
        moves.retain(|c| c.value.score() >= best - options.max_drop);
        moves
    }

    /// A book move for `game`, or `None` when out of book.
    pub fn pick<R: Rng>(&self, game: &Game, rng: &mut R, options: &PickOptions) -> Option<Move> {
        let moves = self.candidates(game, options);
        let first = moves.first()?;
        if options.temperature <= 0.0 {
            return Some(first.mv);
        }
        let weights: Vec<f64> = moves
            .iter()
            .map(|c| (((c.lcb - first.lcb) / options.temperature) as f64).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut x = rng.gen::<f64>() * total;
        for (c, w) in moves.iter().zip(&weights) {
            if x < *w {
                return Some(c.mv);
            }
            x -= w;
        }
        moves.last().map(|c| c.mv)
    }

    /// The probe report of `pos`, or `None` when it is not in the book.
    pub fn probe(&self, pos: &Position) -> Option<ProbeReport> {
        let id = self.find(pos)?;
        let node = self.node(id);
        let moves = self
            .moves_of(id)
            .into_iter()
            .map(|c| {
                let mut line = vec![pos.move_text(c.mv)];
                let mut p = pos.clone();
                p.play(c.mv);
                for m in self.line(c.child, 8) {
                    line.push(p.move_text(m));
                    p.play(m);
                }
                ProbeMove {
                    mv: pos.move_text(c.mv),
                    visits: c.visits,
                    prior: c.prior,
                    value: c.value.into(),
                    line,
                }
            })
            .collect();
        Some(ProbeReport {
            key: node.key.hex(),
            ply: node.ply,
            side_to_move: node.side.to_string(),
            value: self.value(id).into(),
            visits: node.visits(),
            moves,
            other: self.other_of(id, pos),
        })
    }

    /// The search over the moves not in the book at node `id` (whose position is `pos`).
    pub fn other_of(&self, id: u32, pos: &Position) -> Option<ProbeOther> {
        self.node(id).own.as_ref().map(|o| ProbeOther {
            best: pos.move_text(o.best),
            prior: o.best_prior,
            visits: o.visits,
            value: o.wdl().into(),
        })
    }
}
