//! Search under a budget: what one move may cost ([`Limits`]: time, visits, depth, excluded
//! root moves), how another thread stops a search ([`Stop`]), what a search reports
//! ([`Thought`]), and MCTS of one position with time control and root move exclusion
//! ([`search`]), which the XBoard engine, terminal play, the arena players and the
//! opening-book builder share.
//!
//! It runs the one driver ([`crate::driver`]) with one search: self-play runs the same
//! driver with a search per game in flight, their leaves evaluated in one batch.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use tengu_model::{EvalError, EvalInput, Evaluator};
use tengu_rules::{Game, Move};

use crate::config::SearchConfig;
use crate::driver::{evaluate_pending, Descent, RootPlan, Search};
use crate::leaf::LeafTerms;
use crate::tree::{terminal_value, Tree};

/// What a search may spend on one move. Every field caps the search; `None` leaves that
/// side open (with nothing set, a player uses its own default budget).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Wall-clock time for the whole move: the search returns by then.
    pub time: Option<Duration>,
    /// Root visits (MCTS; alpha-beta ignores it).
    pub visits: Option<u32>,
    /// Plies of full-width search (alpha-beta; MCTS ignores it).
    pub depth: Option<u32>,
    /// Root moves the search must not play (a book builder's "second best", or moves a
    /// caller has ruled out).
    pub exclude: Vec<Move>,
}

impl Limits {
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }

    pub fn visits(visits: u32) -> Limits {
        Limits {
            visits: Some(visits),
            ..Limits::default()
        }
    }

    /// Whether nothing caps the search (it runs until stopped, or to its own defaults).
    pub fn is_open(&self) -> bool {
        self.time.is_none() && self.visits.is_none() && self.depth.is_none()
    }
}

/// Why a running search was asked to end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Return the best move found so far (XBoard `?`).
    MoveNow,
    /// Return at once; the caller discards the result (a command that ends the search).
    Abort,
}

/// A flag another thread sets to end a search early; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicU8>);

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks the search to end. An `Abort` is never downgraded to `MoveNow`.
    pub fn request(&self, reason: StopReason) {
        let code = match reason {
            StopReason::MoveNow => 1,
            StopReason::Abort => 2,
        };
        self.0.fetch_max(code, Ordering::SeqCst);
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    pub fn reason(&self) -> Option<StopReason> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            1 => Some(StopReason::MoveNow),
            _ => Some(StopReason::Abort),
        }
    }

    pub fn clear(&self) {
        self.0.store(0, Ordering::SeqCst);
    }
}

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

/// [`Thought::score`] of a forced mate found by the mate search (`search.mate_search`).
pub const MATE_SCORE: i32 = 100_000;

/// lc0's mapping of a value in [-1, 1] to centipawns.
pub fn value_to_centipawns(value: f32) -> i32 {
    let v = value.clamp(-0.999, 0.999);
    (111.714 * (1.562_069 * v).tan()).round() as i32
}

/// Searches the current position of `game` with MCTS, one evaluation at a time, within
/// `limits`: until `limits.visits` root visits (or `config.visits` when neither visits nor
/// time is given), until `limits.time` has passed, or until `stop` is set, whichever comes
/// first; at least the root is evaluated. Root moves in `limits.exclude` are removed
/// before the search. `info` hears about progress about twice a second.
///
/// `Ok(None)` when the game is over or every legal move is excluded.
#[allow(clippy::too_many_arguments)]
pub fn search(
    game: &Game,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    limits: &Limits,
    stop: &Stop,
    max_plies: u32,
    seed: u64,
    info: &mut dyn FnMut(&Thought),
) -> Result<Option<Thought>, EvalError> {
    let start = Instant::now();
    if let Some(m) = config
        .mate_limits()
        .and_then(|mate| crate::mate::mate_by_checks(game, mate))
        .filter(|m| !limits.exclude.contains(m))
    {
        let t = Thought {
            best: m,
            score: MATE_SCORE,
            depth: 1,
            nodes: 0,
            elapsed: start.elapsed(),
            pv: vec![m],
        };
        info(&t);
        return Ok(Some(t));
    }
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let tree = search_tree(
        game,
        eval,
        config,
        limits,
        stop,
        max_plies,
        &mut rng,
        &mut |tree, rng| info(&thought(tree, rng, start)),
    )?;
    Ok(tree.map(|found| {
        let t = thought(&found.tree, &mut rng, start);
        info(&t);
        t
    }))
}

/// The result of searching one position for self-play style use (a policy target).
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move chosen (most visits; best Gumbel candidate under a Gumbel root).
    pub best: Move,
    /// Root value from the side to move's view.
    pub value: f32,
    /// Moves with their policy-target weights.
    pub policy: Vec<(Move, f32)>,
    pub visits: u32,
}

/// Searches the current position of `game` with `visits` root visits (no noise), one
/// evaluation at a time. `None` if the game is over.
pub fn search_game(
    game: &Game,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    visits: u32,
    max_plies: u32,
    seed: u64,
) -> Result<Option<SearchResult>, EvalError> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let Some(RootSearch { tree, .. }) =
        search_visits(game, eval, config, visits, &[], max_plies, &mut rng)?
    else {
        return Ok(None);
    };
    let root = tree.root().expect("root");
    let best = root.moves[tree.choose_move(None, &mut rng)];
    let policy = tree
        .policy_target()
        .into_iter()
        .map(|(e, w)| (root.moves[e], w))
        .collect();
    Ok(Some(SearchResult {
        best,
        value: root.mean_value(),
        policy,
        visits: root.total,
    }))
}

/// The tree of a search of `game` under `limits` (see [`search`]); `progress` is called
/// about twice a second. `None` when the game is over or every legal move is excluded.
#[allow(clippy::too_many_arguments)]
fn search_tree(
    game: &Game,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    limits: &Limits,
    stop: &Stop,
    max_plies: u32,
    rng: &mut rand::rngs::SmallRng,
    progress: &mut dyn FnMut(&Tree, &mut rand::rngs::SmallRng),
) -> Result<Option<RootSearch>, EvalError> {
    let start = Instant::now();
    if terminal_value(game, max_plies).is_some() {
        return Ok(None);
    }
    let visits = match (limits.visits, limits.time) {
        (Some(v), _) => v.max(1),
        (None, Some(_)) => u32::MAX,
        (None, None) => config.visits.max(1),
    };
    let deadline = limits.time.map(|t| start + t);
    let mut evaluate = |_: usize, inputs: &[EvalInput<'_>]| eval.evaluate(inputs);
    // A time-limited search plans its root (Gumbel phases, forced captures) for the
    // configured visits. Play outside self-play is deterministic: no noise (see
    // GumbelRoot::new), no shuffled moves.
    let plan = RootPlan {
        visits: limits.visits.unwrap_or(config.visits),
        gumbel_noise: false,
        dirichlet_noise: false,
        captures_of_all_visits: true,
    };
    let mut search = Search::new(plan, false);
    search.queue_root(game);
    let legal = search.pending_moves().expect("the queued root").to_vec();
    // The root is evaluated on every legal move (the caller may want the raw priors), then
    // the excluded moves are dropped and the rest renormalised: the same distribution as
    // evaluating the remaining moves alone, since the policy is a softmax over the given moves.
    let raw = evaluate_pending(&[(0, &search)], &mut evaluate)?.remove(0);
    if legal.iter().all(|m| limits.exclude.contains(m)) {
        return Ok(None);
    }
    let terms = LeafTerms::new(game.position().variant());
    let mut exclude = |_: &Game, moves: &mut Vec<Move>, prior: &mut Vec<f32>| {
        let (kept, mut kept_prior): (Vec<Move>, Vec<f32>) = moves
            .iter()
            .zip(prior.iter())
            .filter(|(m, _)| !limits.exclude.contains(m))
            .map(|(&m, &p)| (m, p))
            .unzip();
        let sum: f32 = kept_prior.iter().sum();
        if sum > 0.0 && sum.is_finite() {
            kept_prior.iter_mut().for_each(|p| *p /= sum);
        }
        *moves = kept;
        *prior = kept_prior;
    };
    search.expand_pending(raw.clone(), config, &terms, &mut exclude, rng);
    let mut last_info = start;
    while search.tree.root_visits() < visits {
        if stop.is_set() || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if search.descend(game, config, max_plies) == Descent::Pending {
            let out = evaluate_pending(&[(0, &search)], &mut evaluate)?.remove(0);
            search.expand_pending(out, config, &terms, &mut exclude, rng);
        }
        if last_info.elapsed() >= Duration::from_millis(500) {
            last_info = Instant::now();
            progress(&search.tree, rng);
        }
    }
    let tree = search.tree;
    Ok(Some(RootSearch { tree, raw, legal }))
}

/// A search of `visits` root visits without `exclude`, no time limit, no progress reports.
fn search_visits(
    game: &Game,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    visits: u32,
    exclude: &[Move],
    max_plies: u32,
    rng: &mut rand::rngs::SmallRng,
) -> Result<Option<RootSearch>, EvalError> {
    let limits = Limits {
        exclude: exclude.to_vec(),
        ..Limits::visits(visits)
    };
    search_tree(
        game,
        eval,
        config,
        &limits,
        &Stop::new(),
        max_plies,
        rng,
        &mut |_, _| {},
    )
}

/// A finished search tree with the network's raw evaluation of the root over every legal
/// move (exclusions ignored).
struct RootSearch {
    tree: Tree,
    raw: tengu_model::Evaluation,
    legal: Vec<Move>,
}

/// What the opening-book builder needs from a search of one position with some root moves
/// excluded (those already in the book).
#[derive(Clone, Debug, PartialEq)]
pub struct ExcludingSearch {
    /// The most visited move among those not excluded.
    pub best: Move,
    /// Root value of the search over the remaining moves (the mean of its visits), from
    /// the side to move's view, in [-1, 1].
    pub value: f32,
    /// The network's draw probability at the root, in [0, 1].
    pub draw: f32,
    /// Root visits of the search.
    pub visits: u32,
    /// Every legal move with the network's raw prior over all legal moves (summing to 1).
    pub legal: Vec<(Move, f32)>,
}

/// Searches the current position of `game` with `visits` root visits, root moves in
/// `exclude` removed, deterministically for a given `seed` and evaluator. `None` when the
/// game is over or every legal move is excluded.
pub fn search_excluding(
    game: &Game,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    visits: u32,
    exclude: &[Move],
    max_plies: u32,
    seed: u64,
) -> Result<Option<ExcludingSearch>, EvalError> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let Some(found) = search_visits(game, eval, config, visits, exclude, max_plies, &mut rng)?
    else {
        return Ok(None);
    };
    let root = found.tree.root().expect("root");
    Ok(Some(ExcludingSearch {
        best: root.moves[found.tree.choose_move(None, &mut rng)],
        value: root.mean_value(),
        draw: found.raw.wdl[1],
        visits: root.total,
        legal: found.legal.into_iter().zip(found.raw.policy).collect(),
    }))
}

/// The report of a tree: the chosen move, the root value, the most visited line.
fn thought(tree: &Tree, rng: &mut rand::rngs::SmallRng, start: Instant) -> Thought {
    let root = tree.root().expect("an evaluated root");
    let best_edge = tree.choose_move(None, rng);
    let pv = tree.principal_variation(best_edge, 32);
    Thought {
        best: root.moves[best_edge],
        score: value_to_centipawns(root.mean_value()),
        depth: pv.len() as u32,
        nodes: root.total as u64,
        elapsed: start.elapsed(),
        pv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_model::UniformEvaluator;
    use tengu_rules::{Position, Variant};

    fn game() -> Game {
        Game::new(Position::initial(Variant::dai_dai()))
    }

    #[test]
    fn visits_cap_and_exclusion() {
        let g = game();
        let mut eval = UniformEvaluator;
        let config = SearchConfig::default();
        let all = g.position().legal_move_list();
        let limits = Limits {
            visits: Some(40),
            exclude: all[1..].to_vec(),
            ..Limits::default()
        };
        let t = search(
            &g,
            &mut eval,
            &config,
            &limits,
            &Stop::new(),
            u32::MAX,
            1,
            &mut |_| {},
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.best, all[0], "only one root move is left");
        assert_eq!(t.nodes, 40);
        let limits = Limits {
            exclude: all.clone(),
            ..Limits::visits(10)
        };
        let none = search(
            &g,
            &mut eval,
            &config,
            &limits,
            &Stop::new(),
            u32::MAX,
            1,
            &mut |_| {},
        );
        assert!(none.unwrap().is_none(), "every move excluded");
    }

    #[test]
    fn a_set_stop_returns_after_the_root() {
        let g = game();
        let stop = Stop::new();
        stop.request(StopReason::MoveNow);
        stop.request(StopReason::MoveNow);
        assert_eq!(stop.reason(), Some(StopReason::MoveNow));
        let t = search(
            &g,
            &mut UniformEvaluator,
            &SearchConfig::default(),
            &Limits::default(),
            &stop,
            u32::MAX,
            1,
            &mut |_| {},
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.nodes, 1);
        assert!(g.position().is_legal(t.best));
        stop.request(StopReason::Abort);
        stop.request(StopReason::MoveNow);
        assert_eq!(stop.reason(), Some(StopReason::Abort));
    }

    #[test]
    fn a_time_limit_ends_an_unbounded_search() {
        let g = game();
        let limits = Limits::time(Duration::from_millis(100));
        let t = search(
            &g,
            &mut UniformEvaluator,
            &SearchConfig::default(),
            &limits,
            &Stop::new(),
            u32::MAX,
            1,
            &mut |_| {},
        )
        .unwrap()
        .unwrap();
        assert!(t.nodes > 1);
        assert!(!t.pv.is_empty());
    }
}
