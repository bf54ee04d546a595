//! Players, the top of the search crate: uniformly random, greedy (best immediate material
//! gain), classical alpha-beta ([`AlphaBeta`]: material and mobility, iterative deepening),
//! the raw policy and MCTS with a network ([`search`]). One interface for the arena, the
//! XBoard engine and terminal play: `choose` plays with the player's own budget, `think`
//! within the caller's [`Limits`], stoppable and with a report ([`Thought`]). Alpha-beta
//! and MCTS live below; their players hold a budget and a seed around them.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::{EvalError, Evaluator};
use tengu_rules::values::piece_values;
use tengu_rules::{Game, Move, Position, Variant};

use crate::alphabeta::{AlphaBeta, NoMove};
use crate::config::SearchConfig;
use crate::exchange::gain;
use crate::limits::{Limits, Stop};
use crate::search::{search, SearchRequest};
use crate::thought::Thought;

/// Why a player offers no move.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error(transparent)]
    NoMove(#[from] NoMove),
    /// The player's network failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("the evaluator returned nothing")]
    NoEvaluation,
    /// The search found no move to search: the game is over (or every move is excluded).
    #[error("the game is over (or every move is excluded)")]
    NothingToSearch,
}

/// Something that picks a move in a game that is not over.
pub trait Player: Send {
    fn name(&self) -> String;

    /// A move with the player's own budget (the arena's way).
    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError>;

    /// A move within `limits` (open limits: the player's own budget), returning early
    /// when `stop` is set; `info` hears about progress (each finished iteration).
    /// Players without a search ignore the budget; excluded moves are never returned.
    fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, PlayerError> {
        let _ = (stop, info);
        let best = self.choose(game)?;
        if !limits.exclude.contains(&best) {
            return Ok(Thought::just(best));
        }
        game.legal_move_list()
            .into_iter()
            .find(|m| !limits.exclude.contains(m))
            .map(Thought::just)
            .ok_or(PlayerError::NoMove(NoMove::AllExcluded))
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

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        let moves = game.legal_move_list();
        if moves.is_empty() {
            return Err(PlayerError::NoMove(NoMove::NoLegalMove));
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

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
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
            return Err(PlayerError::NoMove(NoMove::NoLegalMove));
        }
        Ok(top[self.rng.gen_range(0..top.len())])
    }
}

/// Alpha-beta on material plus a small mobility term ([`AlphaBeta`]), deepening until
/// `budget`.
pub struct AlphaBetaPlayer {
    search: AlphaBeta,
    budget: Duration,
    max_depth: u32,
    rng: SmallRng,
}

impl AlphaBetaPlayer {
    pub fn new(
        variant: &Arc<Variant>,
        budget: Duration,
        max_depth: u32,
        seed: u64,
    ) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            search: AlphaBeta::new(piece_values(variant)),
            budget,
            max_depth,
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// The same player with contempt (see [`AlphaBeta::with_contempt`]).
    pub fn with_contempt(mut self, contempt: f32) -> AlphaBetaPlayer {
        self.search = self.search.with_contempt(contempt);
        self
    }

    /// See [`AlphaBeta::fixed_depth_value`].
    pub fn fixed_depth_value(&self, pos: &Position, depth: u32) -> (f32, u64) {
        self.search.fixed_depth_value(pos, depth)
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> String {
        let contempt = match self.search.contempt() {
            Some(c) => format!(",contempt {c:.2}"),
            None => String::new(),
        };
        format!(
            "alphabeta({}ms,depth<={}{contempt})",
            self.budget.as_millis(),
            self.max_depth
        )
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        let limits = Limits {
            time: Some(self.budget),
            depth: Some(self.max_depth),
            ..Limits::default()
        };
        Ok(self.think(game, &limits, &Stop::new(), &mut |_| {})?.best)
    }

    /// [`AlphaBeta::deepen`]; no time and no depth limit (open limits, or visits only): the
    /// player's budget.
    fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &Stop,
        info: &mut dyn FnMut(&Thought),
    ) -> Result<Thought, PlayerError> {
        let mut limits = limits.clone();
        if limits.time.is_none() && limits.depth.is_none() {
            limits.time = Some(self.budget);
        }
        Ok(self
            .search
            .deepen(game, &limits, stop, &mut self.rng, info)?)
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

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        let pos = game.position();
        let moves = game.legal_move_list();
        if moves.is_empty() {
            return Err(PlayerError::NoMove(NoMove::NoLegalMove));
        }
        let input = tengu_model::EvalInput {
            position: pos,
            moves: &moves,
            repetitions: game.repetitions().saturating_sub(1),
        };
        let out = self.evaluator.evaluate(&[input])?;
        let policy = &out.first().ok_or(PlayerError::NoEvaluation)?.policy;
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

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
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
    ) -> Result<Thought, PlayerError> {
        self.seed = self.seed.wrapping_add(1);
        let mut limits = limits.clone();
        if limits.visits.is_none() && limits.time.is_none() {
            limits.visits = Some(self.visits);
        }
        let request = SearchRequest {
            game,
            config: &self.search,
            limits: &limits,
            stop,
            max_plies: u32::MAX,
            seed: self.seed,
        };
        search(&request, self.evaluator.as_mut(), info)?.ok_or(PlayerError::NothingToSearch)
    }
}
