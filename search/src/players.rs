//! Players: uniformly random, greedy (best immediate material gain), a classical alpha-beta
//! searcher (material and mobility, iterative deepening), the raw policy and MCTS with a
//! network. One interface for the arena, the XBoard engine and terminal play: `choose` plays
//! with the player's own budget, `think` within the caller's [`Limits`], stoppable and with
//! a report ([`Thought`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::Evaluator;
use tengu_rules::config::RepetitionRule;
use tengu_rules::values::piece_values;
use tengu_rules::{Color, Game, Move, Position, Variant};

use crate::config::SearchConfig;
use crate::exchange::gain;
use crate::search::{Limits, Stop, Thought};

/// Something that picks a move in a game that is not over.
pub trait Player: Send {
    fn name(&self) -> String;

    /// A move with the player's own budget (the arena's way).
    fn choose(&mut self, game: &Game) -> Result<Move, String>;

    /// A move within `limits` (open limits: the player's own budget), returning early
    /// when `stop` is set; `info` hears about progress (each finished iteration).
    /// Players without a search ignore the budget; excluded moves are never returned.
    fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, String> {
        let _ = (stop, info);
        let best = self.choose(game)?;
        if !limits.exclude.contains(&best) {
            return Ok(Thought::just(best));
        }
        game.legal_move_list()
            .into_iter()
            .find(|m| !limits.exclude.contains(m))
            .map(Thought::just)
            .ok_or_else(|| "every legal move is excluded".into())
    }
}

/// Bounds of the numbers in a player description ([`PlayerSpec`]).
pub const MAX_MOVE_MS: u64 = 600_000;
pub const MAX_DEPTH: u32 = 64;
pub const MAX_VISITS: u32 = 1_000_000;

/// A player as described on the command line, parsed and range-checked (the players are
/// built from it by the caller, which owns the backends): `random`, `greedy`,
/// `alphabeta[:MS[:DEPTH]]`, `checkpoint:PATH[:VISITS]` or `policy:PATH`. A checkpoint
/// named by URL (`checkpoint:s3://b/run/models/model-X.safetensors:64`) keeps its
/// `scheme://` together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    Random,
    Greedy,
    /// Time per move in milliseconds (1..=[`MAX_MOVE_MS`], default 200) and depth limit
    /// (1..=[`MAX_DEPTH`], default 4).
    AlphaBeta {
        ms: u64,
        depth: u32,
    },
    /// MCTS with root visits per move 1..=[`MAX_VISITS`] (default 64).
    Checkpoint {
        path: String,
        visits: u32,
    },
    /// The raw policy.
    Policy {
        path: String,
    },
}

/// Why a player description is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerSpecError {
    #[error("unknown player {0:?}: expected random, greedy, alphabeta[:MS[:DEPTH]], checkpoint:PATH[:VISITS] or policy:PATH")]
    Unknown(String),
    /// A number of the description outside its range (or not a number).
    #[error("{what} {text:?} must be a whole number from {min} to {max}")]
    OutOfRange {
        what: &'static str,
        text: String,
        min: u64,
        max: u64,
    },
}

/// The description again, every number spelled out (`alphabeta:200:4`,
/// `checkpoint:PATH:64`): it parses back to the same spec.
impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Greedy => write!(f, "greedy"),
            PlayerSpec::AlphaBeta { ms, depth } => write!(f, "alphabeta:{ms}:{depth}"),
            PlayerSpec::Checkpoint { path, visits } => write!(f, "checkpoint:{path}:{visits}"),
            PlayerSpec::Policy { path } => write!(f, "policy:{path}"),
        }
    }
}

impl std::str::FromStr for PlayerSpec {
    type Err = PlayerSpecError;

    fn from_str(spec: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let mut parts: Vec<&str> = spec.split(':').collect();
        if parts.len() >= 3 && parts[2].starts_with("//") {
            let end = spec.len()
                - if parts.len() >= 4 {
                    parts[parts.len() - 1].len() + 1
                } else {
                    0
                };
            let url = &spec[parts[0].len() + 1..end];
            let visits = (parts.len() >= 4).then(|| parts[parts.len() - 1]);
            parts = [parts[0], url].into_iter().chain(visits).collect();
        }
        let number = |i: usize, what: &'static str, default: u64, max: u64| {
            let Some(text) = parts.get(i) else {
                return Ok(default);
            };
            text.parse::<u64>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| PlayerSpecError::OutOfRange {
                    what,
                    text: text.to_string(),
                    min: 1,
                    max,
                })
        };
        Ok(match parts[0] {
            "random" if parts.len() == 1 => PlayerSpec::Random,
            "greedy" if parts.len() == 1 => PlayerSpec::Greedy,
            "alphabeta" if parts.len() <= 3 => PlayerSpec::AlphaBeta {
                ms: number(1, "alphabeta time per move (ms)", 200, MAX_MOVE_MS)?,
                depth: number(2, "alphabeta depth", 4, MAX_DEPTH as u64)? as u32,
            },
            "checkpoint" if (2..=3).contains(&parts.len()) && !parts[1].is_empty() => {
                PlayerSpec::Checkpoint {
                    path: parts[1].into(),
                    visits: number(2, "checkpoint visits", 64, MAX_VISITS as u64)? as u32,
                }
            }
            "policy" if parts.len() == 2 && !parts[1].is_empty() => PlayerSpec::Policy {
                path: parts[1].into(),
            },
            _ => return Err(PlayerSpecError::Unknown(spec.into())),
        })
    }
}

pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        let moves = game.legal_move_list();
        if moves.is_empty() {
            return Err("no legal move".into());
        }
        Ok(moves[self.rng.gen_range(0..moves.len())])
    }
}

/// Takes the largest immediate material gain; random among equals.
pub struct GreedyPlayer {
    values: Vec<f32>,
    rng: SmallRng,
}

impl GreedyPlayer {
    pub fn new(variant: &Arc<Variant>, seed: u64) -> GreedyPlayer {
        GreedyPlayer {
            values: piece_values(variant),
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Player for GreedyPlayer {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        let pos = game.position();
        let moves = game.legal_move_list();
        let best = moves
            .iter()
            .map(|&m| gain(pos, &self.values, m))
            .fold(f32::NEG_INFINITY, f32::max);
        let top: Vec<Move> = moves
            .into_iter()
            .filter(|&m| gain(pos, &self.values, m) >= best)
            .collect();
        if top.is_empty() {
            return Err("no legal move".into());
        }
        Ok(top[self.rng.gen_range(0..top.len())])
    }
}

/// Negamax alpha-beta on material plus a small mobility term, deepening until `budget`.
pub struct AlphaBetaPlayer {
    values: Vec<f32>,
    budget: Duration,
    max_depth: u32,
    rng: SmallRng,
    horizon: Horizon,
    /// Contempt in value units, as `search.contempt` (None: no draw score, repeats are
    /// searched on as before).
    contempt: Option<f32>,
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

impl AlphaBetaPlayer {
    pub fn new(
        variant: &Arc<Variant>,
        budget: Duration,
        max_depth: u32,
        seed: u64,
    ) -> AlphaBetaPlayer {
        AlphaBetaPlayer::with_values(piece_values(variant), budget, max_depth, seed)
    }

    /// [`AlphaBetaPlayer::new`] with the variant's piece values given.
    pub fn with_values(
        values: Vec<f32>,
        budget: Duration,
        max_depth: u32,
        seed: u64,
    ) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            values,
            budget,
            max_depth,
            rng: SmallRng::seed_from_u64(seed),
            horizon: Horizon::Static,
            contempt: None,
        }
    }

    /// The same search with contempt (value units, 0..1, as `search.contempt`): a position
    /// met again scores as a draw, worth to the player what being
    /// `MATERIAL_SCALE * atanh(contempt)` piece units behind is (the exchange count's
    /// value scale), so it does not repeat into a draw when it is not behind.
    pub fn with_contempt(mut self, contempt: f32) -> AlphaBetaPlayer {
        self.contempt = Some(contempt.clamp(0.0, 0.99));
        self
    }

    /// The contempt in piece units: what being that far behind is worth on the exchange
    /// count's value scale, `MATERIAL_SCALE * atanh(contempt)`.
    fn contempt_pieces(&self) -> Option<f32> {
        let scale = tengu_model::desc::MATERIAL_SCALE;
        self.contempt.map(|c| scale * c.atanh())
    }

    /// The same search with `horizon` counted where the depth runs out.
    pub fn with_horizon(mut self, horizon: Horizon) -> AlphaBetaPlayer {
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
        if search.nodes % 64 == 0 && search.out_of_time() {
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
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> String {
        let contempt = match self.contempt {
            Some(c) => format!(",contempt {c:.2}"),
            None => String::new(),
        };
        format!(
            "alphabeta({}ms,depth<={}{contempt})",
            self.budget.as_millis(),
            self.max_depth
        )
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        let limits = Limits {
            time: Some(self.budget),
            depth: Some(self.max_depth),
            ..Limits::default()
        };
        Ok(self.think(game, &limits, &Stop::new(), &mut |_| {})?.best)
    }

    /// Iterative deepening until `limits.depth` (default 64) or `limits.time` (default the
    /// player's budget). A deeper iteration cut short still counts for the moves it finished,
    /// which include the previous best (searched first): a move that beat it is better.
    fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, String> {
        let start = Instant::now();
        // No time and no depth limit (open limits, or visits only): the own budget.
        let time = if limits.time.is_none() && limits.depth.is_none() {
            Some(self.budget)
        } else {
            limits.time
        };
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
                "no legal move".into()
            } else {
                "every legal move is excluded".into()
            });
        }
        // Random order among equals, so repeated games differ.
        for k in (1..moves.len()).rev() {
            moves.swap(k, self.rng.gen_range(0..=k));
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

/// The raw network: the move of highest prior, one evaluation per move (no search). The
/// quickest measure of what the policy head has learnt.
pub struct PolicyPlayer {
    pub label: String,
    pub evaluator: Box<dyn Evaluator>,
}

impl Player for PolicyPlayer {
    fn name(&self) -> String {
        format!("{} (policy)", self.label)
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        let pos = game.position();
        let moves = game.legal_move_list();
        if moves.is_empty() {
            return Err("no legal move".into());
        }
        let input = tengu_model::EvalInput {
            position: pos,
            moves: &moves,
            repetitions: game.repetitions().saturating_sub(1),
        };
        let out = self
            .evaluator
            .evaluate(&[input])
            .map_err(|e| e.to_string())?;
        let policy = &out.first().ok_or("the evaluator returned nothing")?.policy;
        let best = (0..moves.len())
            .max_by(|&a, &b| policy[a].total_cmp(&policy[b]))
            .expect("a legal move");
        Ok(moves[best])
    }
}

/// MCTS with an evaluator (a checkpoint), a fixed number of visits per move.
pub struct MctsPlayer {
    pub label: String,
    pub evaluator: Box<dyn Evaluator>,
    pub search: SearchConfig,
    pub visits: u32,
    seed: u64,
}

impl MctsPlayer {
    pub fn new(
        label: String,
        evaluator: Box<dyn Evaluator>,
        search: SearchConfig,
        visits: u32,
        seed: u64,
    ) -> MctsPlayer {
        MctsPlayer {
            label,
            evaluator,
            search,
            visits,
            seed,
        }
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> String {
        if self.search.contempt > 0.0 {
            format!(
                "{} ({} visits, contempt {})",
                self.label, self.visits, self.search.contempt
            )
        } else {
            format!("{} ({} visits)", self.label, self.visits)
        }
    }

    fn choose(&mut self, game: &Game) -> Result<Move, String> {
        let limits = Limits::visits(self.visits);
        Ok(self.think(game, &limits, &Stop::new(), &mut |_| {})?.best)
    }

    /// MCTS within `limits`; open limits: the player's own visits.
    fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, String> {
        self.seed = self.seed.wrapping_add(1);
        let mut limits = limits.clone();
        if limits.visits.is_none() && limits.time.is_none() {
            limits.visits = Some(self.visits);
        }
        crate::search::search(
            game,
            self.evaluator.as_mut(),
            &self.search,
            &limits,
            stop,
            u32::MAX,
            self.seed,
            info,
        )
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the game is over (or every move is excluded)".into())
    }
}
