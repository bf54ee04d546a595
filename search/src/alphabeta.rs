//! Classical alpha-beta ([`AlphaBeta`]): negamax on piece values with a horizon count
//! (material plus mobility, or a search leaf's exchange count), iterative deepening within
//! [`Limits`], contempt, and `REPETITION=STRICT`'s rule that no move returns to an earlier
//! position. The alpha-beta player plays with it; the judge's teacher searches with it to
//! a fixed depth, so it sits below leaf evaluation.

use std::time::Instant;

use rand::Rng;
use tengu_rules::config::RepetitionRule;
use tengu_rules::{Color, Game, Move, Position};

use crate::exchange::gain;
use crate::limits::{Limits, Stop};
use crate::thought::Thought;

/// Negamax alpha-beta over piece values (piece units by piece type, as
/// `tengu_rules::values::piece_values`), counting its [`Horizon`] where the depth runs out.
#[derive(Clone, Debug)]
pub struct AlphaBeta {
    values: Vec<f32>,
    horizon: Horizon,
    /// Contempt in value units, as `search.contempt` (None: no draw score, repeats are
    /// searched on as before).
    contempt: Option<f32>,
}

/// Why a search has no move to offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoMove {
    #[error("no legal move")]
    NoLegalMove,
    #[error("every legal move is excluded")]
    AllExcluded,
}

/// What alpha-beta counts where its depth runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Horizon {
    /// Material (each piece's value, royals at most 100) plus 0.01 a legal move: the
    /// fixed-depth yardstick of the ladder, which must not change.
    Static,
    /// The exchange count a search leaf uses (`leaf_material = "exchange"`): the material
    /// balance (royals excluded) plus what the mover wins by at most `exchange_depth`
    /// captures ([`crate::exchange::exchange_gain`]). A search to depth `d` with it sees
    /// `d` plies further than one leaf's count: the judge's teacher ([`crate::teacher`]).
    Exchange { exchange_depth: u32 },
}

/// Value of a lost position (no legal move) for its mover, before the depth bonus that
/// prefers the longer defence: lower than any material balance.
pub const LOST: f32 = -10_000.0;

struct OutOfTime;

/// The clock and counters of one alpha-beta search, and what it needs to judge repeats.
struct AbSearch<'a> {
    deadline: Option<Instant>,
    stop: &'a Stop,
    nodes: u64,
    /// `REPETITION=STRICT`: a move back to a position of the game (since its last capture)
    /// or of the search path is illegal, so no node searches one.
    strict: bool,
    /// The game searched from (its positions count as earlier ones under `strict`).
    game: Option<&'a Game>,
    /// Keys of the positions on the search path below the root, the current one last.
    path: Vec<u64>,
    /// With contempt (piece units): a position met again (on the path or earlier in the
    /// game) is a draw, worth `-contempt` to the side to move at the root (`root`).
    draw: Option<(f32, Color)>,
}

impl<'a> AbSearch<'a> {
    /// A search of `pos` (from `game` when given) until `deadline` or `stop`.
    fn new(
        pos: &Position,
        game: Option<&'a Game>,
        deadline: Option<Instant>,
        stop: &'a Stop,
    ) -> AbSearch<'a> {
        AbSearch {
            deadline,
            stop,
            nodes: 0,
            strict: pos.variant().rules().repetition == RepetitionRule::Strict,
            game,
            // Without a game the root is the only earlier position.
            path: if game.is_none() {
                vec![pos.key()]
            } else {
                Vec::new()
            },
            draw: None,
        }
    }

    /// The draw score of `pos` for its mover when the player has contempt and `pos` (the
    /// last position of the path) was met before, on the path or in the game.
    fn repeated_draw(&self, pos: &Position) -> Option<f32> {
        let (contempt, root) = self.draw?;
        let key = pos.key();
        let earlier = &self.path[..self.path.len().saturating_sub(1)];
        (earlier.contains(&key) || self.game.is_some_and(|g| g.occurred(key)))
            .then(|| tengu_rules::end::draw_value(contempt, root, pos.side_to_move()))
    }

    fn out_of_time(&self) -> bool {
        self.stop.is_set() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Drops from `moves` (legal moves of `pos`) those that recreate an earlier position
    /// under `REPETITION=STRICT` (a capture never does); otherwise keeps them all.
    fn drop_repeats(&self, pos: &mut Position, moves: &mut Vec<Move>) {
        if !self.strict {
            return;
        }
        moves.retain(|&m| {
            if m.is_capture() {
                return true;
            }
            let undo = pos.play(m);
            let key = pos.key();
            pos.unplay(m, undo);
            !(self.path.contains(&key) || self.game.is_some_and(|g| g.occurred(key)))
        });
    }
}

impl AlphaBeta {
    /// A search over `values` with the [`Horizon::Static`] count and no contempt.
    pub fn new(values: Vec<f32>) -> AlphaBeta {
        AlphaBeta {
            values,
            horizon: Horizon::Static,
            contempt: None,
        }
    }

    /// The same search with contempt (value units, 0..1, as `search.contempt`): a position
    /// met again scores as a draw, worth to the player what being
    /// `MATERIAL_SCALE * atanh(contempt)` piece units behind is (the exchange count's
    /// value scale), so it does not repeat into a draw when it is not behind.
    pub fn with_contempt(mut self, contempt: f32) -> AlphaBeta {
        self.contempt = Some(contempt.clamp(0.0, 0.99));
        self
    }

    /// The contempt in piece units: what being that far behind is worth on the exchange
    /// count's value scale, `MATERIAL_SCALE * atanh(contempt)`.
    fn contempt_pieces(&self) -> Option<f32> {
        let scale = tengu_model::desc::MATERIAL_SCALE;
        self.contempt.map(|c| scale * c.atanh())
    }

    /// The contempt (value units) set by [`AlphaBeta::with_contempt`].
    pub fn contempt(&self) -> Option<f32> {
        self.contempt
    }

    /// The same search with `horizon` counted where the depth runs out.
    pub fn with_horizon(mut self, horizon: Horizon) -> AlphaBeta {
        self.horizon = horizon;
        self
    }

    /// The value (piece units, the mover's view) of `pos` searched full width to `depth`
    /// plies, with the player's horizon, no clock; and the positions visited. A lost
    /// position is worth about [`LOST`].
    pub fn fixed_depth_value(&self, pos: &Position, depth: u32) -> (f32, u64) {
        let stop = Stop::new();
        let mut search = AbSearch::new(pos, None, None, &stop);
        let mut work = pos.clone();
        let mut pv = Vec::new();
        let value = self
            .negamax(
                &mut work,
                depth,
                f32::NEG_INFINITY,
                f32::INFINITY,
                &mut search,
                &mut pv,
            )
            .unwrap_or_else(|OutOfTime| unreachable!("no deadline and an unset stop"));
        (value, search.nodes)
    }

    /// The horizon's value of `pos` (with `moves` legal moves) for its mover.
    fn evaluate(&self, pos: &Position, moves: usize) -> f32 {
        match self.horizon {
            Horizon::Static => self.static_value(pos, moves),
            Horizon::Exchange { exchange_depth } => {
                let me = pos.side_to_move();
                let m = tengu_rules::values::material(pos, &self.values);
                m[me.index()] - m[me.opposite().index()]
                    + crate::exchange::exchange_gain(pos, &self.values, exchange_depth)
            }
        }
    }

    /// Material of the side to move minus the opponent's, plus 0.01 per legal move.
    fn static_value(&self, pos: &Position, moves: usize) -> f32 {
        let me = pos.side_to_move();
        let mut material = 0.0;
        for color in [me, me.opposite()] {
            let sign = if color == me { 1.0 } else { -1.0 };
            for s in pos.squares_of(color) {
                if let Some(p) = pos.piece_at(s) {
                    material += sign * self.values[p.ty].min(100.0);
                }
            }
        }
        material + 0.01 * moves as f32
    }

    /// The value of `pos` for its mover, and its principal variation in `pv`.
    fn negamax(
        &self,
        pos: &mut Position,
        depth: u32,
        mut alpha: f32,
        beta: f32,
        search: &mut AbSearch,
        pv: &mut Vec<Move>,
    ) -> Result<f32, OutOfTime> {
        pv.clear();
        search.nodes += 1;
        if search.nodes.is_multiple_of(64) && search.out_of_time() {
            return Err(OutOfTime);
        }
        if let Some(draw) = search.repeated_draw(pos) {
            return Ok(draw);
        }
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        search.drop_repeats(pos, &mut moves);
        if moves.is_empty() {
            return Ok(LOST - depth as f32); // no legal move loses (RULES.md §5.3)
        }
        if depth == 0 {
            return Ok(self.evaluate(pos, moves.len()));
        }
        // Captures of the most valuable pieces first.
        moves.sort_by(|&a, &b| gain(pos, &self.values, b).total_cmp(&gain(pos, &self.values, a)));
        let mut best = f32::NEG_INFINITY;
        let mut line = Vec::new();
        for m in moves {
            let undo = pos.play(m);
            search.path.push(pos.key());
            let v = self.negamax(pos, depth - 1, -beta, -alpha, search, &mut line);
            search.path.pop();
            pos.unplay(m, undo);
            let v = -v?;
            if v > best {
                best = v;
                pv.clear();
                pv.push(m);
                pv.extend_from_slice(&line);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// Iterative deepening of the current position of `game` until `limits.depth` (default
    /// 64) or `limits.time` (none: no clock), returning early when `stop` is set; `info`
    /// hears each finished iteration. Moves in `limits.exclude` are never searched; `rng`
    /// orders the root moves at random, so that equal moves differ from game to game. A
    /// deeper iteration cut short still counts for the moves it finished, which include the
    /// previous best (searched first): a move that beat it is better.
    pub fn deepen<R: Rng>(
        &self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        rng: &mut R,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, NoMove> {
        let start = Instant::now();
        let time = limits.time;
        let mut search = AbSearch::new(game.position(), Some(game), time.map(|t| start + t), stop);
        search.draw = self
            .contempt_pieces()
            .map(|c| (c, game.position().side_to_move()));
        let max_depth = limits.depth.unwrap_or(64).max(1);
        let mut pos = game.position().clone();
        let mut moves = game.legal_move_list();
        moves.retain(|m| !limits.exclude.contains(m));
        if moves.is_empty() {
            return Err(if limits.exclude.is_empty() {
                NoMove::NoLegalMove
            } else {
                NoMove::AllExcluded
            });
        }
        // Random order among equals, so repeated games differ.
        for k in (1..moves.len()).rev() {
            moves.swap(k, rng.gen_range(0..=k));
        }
        let mut best = Thought::just(moves[0]);
        let mut line = Vec::new();
        for depth in 1..=max_depth {
            let mut scored: Vec<(f32, Move, Vec<Move>)> = Vec::with_capacity(moves.len());
            let mut alpha = f32::NEG_INFINITY;
            let mut complete = true;
            for &m in &moves {
                let undo = pos.play(m);
                search.path.push(pos.key());
                let v = self.negamax(
                    &mut pos,
                    depth - 1,
                    f32::NEG_INFINITY,
                    -alpha,
                    &mut search,
                    &mut line,
                );
                search.path.pop();
                pos.unplay(m, undo);
                match v {
                    Ok(v) => {
                        alpha = alpha.max(-v);
                        scored.push((-v, m, line.clone()));
                    }
                    Err(OutOfTime) => {
                        complete = false;
                        break;
                    }
                }
            }
            // Stable sort: among equal scores the earlier (previous best first) stays first.
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            if let Some((score, m, rest)) = scored.first() {
                if complete || *m != best.best || depth == 1 {
                    let mut pv = vec![*m];
                    pv.extend_from_slice(rest);
                    best = Thought {
                        best: *m,
                        score: (score * 100.0).clamp(-100_000.0, 100_000.0).round() as i32,
                        depth: if complete { depth } else { depth - 1 },
                        nodes: search.nodes,
                        elapsed: start.elapsed(),
                        pv,
                    };
                }
            }
            if !complete {
                break;
            }
            info(&best);
            // Search the best move first next time.
            let searched: Vec<Move> = scored.into_iter().map(|(_, m, _)| m).collect();
            moves = searched;
            // A won or lost position needs no deeper look; nor does a single legal move.
            if best.score.abs() >= 900_000 || moves.len() == 1 {
                break;
            }
            // The next iteration costs many times this one: do not start what cannot end.
            if let Some(t) = time {
                if start.elapsed() * 4 > t {
                    break;
                }
            }
        }
        best.nodes = search.nodes;
        best.elapsed = start.elapsed();
        Ok(best)
    }
}
