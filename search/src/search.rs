//! MCTS of one position under a budget ([`search`], asked by a [`SearchRequest`]): time
//! control, a stop flag and root move exclusion, which the XBoard engine, terminal play,
//! the arena players and the opening-book builder share; and the searches of a fixed
//! number of visits that read the tree (`search_game`: a policy target, `search_excluding`:
//! the book builder's).
//!
//! It runs the one driver ([`crate::driver`]) with one search: self-play runs the same
//! driver with a search per game in flight, their leaves evaluated in one batch.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tengu_model::{EvalError, EvalInput, Evaluation, Evaluator};
use tengu_rules::{Game, Move};

use crate::config::SearchConfig;
use crate::driver::{evaluate_pending, Descent, RootPlan, Search};
use crate::leaf::LeafTerms;
use crate::limits::{Limits, Stop};
use crate::mate::mate_by_checks;
use crate::thought::Thought;
use crate::tree::{terminal_value, Tree};

/// [`Thought::score`] of a forced mate found by the mate search (`search.mate_search`).
pub const MATE_SCORE: i32 = 100_000;

/// lc0's mapping of a value in [-1, 1] to centipawns.
pub fn value_to_centipawns(value: f32) -> i32 {
    let v = value.clamp(-0.999, 0.999);
    (111.714 * (1.562_069 * v).tan()).round() as i32
}

/// The inverse of [`value_to_centipawns`]: a [`Thought::score`] as a value in [-1, 1] from
/// the same side's view; a mate score (at least [`MATE_SCORE`] in size) is ±1. Alpha-beta's
/// material scores come out on the same curve (a lead of 100 is about 0.47).
pub fn centipawns_to_value(score: i32) -> f32 {
    if score.abs() >= MATE_SCORE {
        return score.signum() as f32;
    }
    ((score as f32 / 111.714).atan() / 1.562_069).clamp(-1.0, 1.0)
}

/// One position to search with MCTS and how ([`search`]).
#[derive(Clone, Copy, Debug)]
pub struct SearchRequest<'a> {
    /// The game whose current position is searched (its history counts for repetitions).
    pub game: &'a Game,
    pub config: &'a SearchConfig,
    /// What the search may spend, and the root moves it must not play.
    pub limits: &'a Limits,
    /// Ends the search early when another thread sets it.
    pub stop: &'a Stop,
    /// The ply count at which a game is a draw for the search (`u32::MAX`: none).
    pub max_plies: u32,
    /// Seeds the search's random choices.
    pub seed: u64,
}

/// Searches the current position of `request.game` with MCTS, one evaluation at a time,
/// within `request.limits`: until `limits.visits` root visits (or `config.visits` when
/// neither visits nor time is given), until `limits.time` has passed, or until `stop` is
/// set, whichever comes first; at least the root is evaluated. Root moves in
/// `limits.exclude` are removed before the search. `info` hears about progress about twice
/// a second.
///
/// `Ok(None)` when the game is over or every legal move is excluded.
pub fn search(
    request: &SearchRequest<'_>,
    eval: &mut dyn Evaluator,
    info: &mut dyn FnMut(&Thought),
) -> Result<Option<Thought>, EvalError> {
    let start = Instant::now();
    let SearchRequest {
        game,
        config,
        limits,
        ..
    } = *request;
    if let Some(m) = config
        .mate_limits()
        .and_then(|mate| mate_by_checks(game, mate))
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
    let found = search_tree(request, eval, &mut |tree, rng| {
        info(&thought(tree, rng, start))
    })?;
    Ok(found.map(|mut found| {
        let t = thought(&found.tree, &mut found.rng, start);
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
    let request = SearchRequest {
        game,
        config,
        limits: &Limits::visits(visits),
        stop: &Stop::new(),
        max_plies,
        seed,
    };
    let Some(RootSearch { tree, mut rng, .. }) = search_tree(&request, eval, &mut |_, _| {})?
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

/// The tree of a search under `request` (see [`search`]); `progress` is called about twice
/// a second. `None` when the game is over or every legal move is excluded.
fn search_tree(
    request: &SearchRequest<'_>,
    eval: &mut dyn Evaluator,
    progress: &mut dyn FnMut(&Tree, &mut SmallRng),
) -> Result<Option<RootSearch>, EvalError> {
    let SearchRequest {
        game,
        config,
        limits,
        stop,
        max_plies,
        seed,
    } = *request;
    let mut rng = SmallRng::seed_from_u64(seed);
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
    search.expand_pending(raw.clone(), config, &terms, &mut exclude, &mut rng);
    let mut last_info = start;
    while search.tree.root_visits() < visits {
        if stop.is_set() || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if search.descend(game, config, max_plies) == Descent::Pending {
            let out = evaluate_pending(&[(0, &search)], &mut evaluate)?.remove(0);
            search.expand_pending(out, config, &terms, &mut exclude, &mut rng);
        }
        if last_info.elapsed() >= Duration::from_millis(500) {
            last_info = Instant::now();
            progress(&search.tree, &mut rng);
        }
    }
    Ok(Some(RootSearch {
        tree: search.tree,
        raw,
        legal,
        rng,
    }))
}

/// A finished search tree with the network's raw evaluation of the root over every legal
/// move (exclusions ignored), and the search's random numbers where it left them.
struct RootSearch {
    tree: Tree,
    raw: Evaluation,
    legal: Vec<Move>,
    rng: SmallRng,
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
    let limits = Limits {
        exclude: exclude.to_vec(),
        ..Limits::visits(visits)
    };
    let request = SearchRequest {
        game,
        config,
        limits: &limits,
        stop: &Stop::new(),
        max_plies,
        seed,
    };
    let Some(mut found) = search_tree(&request, eval, &mut |_, _| {})? else {
        return Ok(None);
    };
    let root = found.tree.root().expect("root");
    Ok(Some(ExcludingSearch {
        best: root.moves[found.tree.choose_move(None, &mut found.rng)],
        value: root.mean_value(),
        draw: found.raw.wdl[1],
        visits: root.total,
        legal: found.legal.into_iter().zip(found.raw.policy).collect(),
    }))
}

/// The report of a tree: the chosen move, the root value, the most visited line.
fn thought(tree: &Tree, rng: &mut SmallRng, start: Instant) -> Thought {
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
    use crate::limits::StopReason;
    use tengu_model::UniformEvaluator;
    use tengu_rules::{Position, Variant};

    #[test]
    fn centipawns_map_back_to_the_value_they_came_from() {
        for v in [-0.9f32, -0.5, -0.1, 0.0, 0.2, 0.6, 0.95] {
            let back = centipawns_to_value(value_to_centipawns(v));
            assert!((back - v).abs() < 0.01, "{v} -> {back}");
        }
        assert_eq!(centipawns_to_value(MATE_SCORE + 3), 1.0);
        assert_eq!(centipawns_to_value(-MATE_SCORE), -1.0);
        assert!((centipawns_to_value(100) - 0.47).abs() < 0.01);
    }

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
            &SearchRequest {
                game: &g,
                config: &config,
                limits: &limits,
                stop: &Stop::new(),
                max_plies: u32::MAX,
                seed: 1,
            },
            &mut eval,
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
            &SearchRequest {
                game: &g,
                config: &config,
                limits: &limits,
                stop: &Stop::new(),
                max_plies: u32::MAX,
                seed: 1,
            },
            &mut eval,
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
            &SearchRequest {
                game: &g,
                config: &SearchConfig::default(),
                limits: &Limits::default(),
                stop: &stop,
                max_plies: u32::MAX,
                seed: 1,
            },
            &mut UniformEvaluator,
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
            &SearchRequest {
                game: &g,
                config: &SearchConfig::default(),
                limits: &limits,
                stop: &Stop::new(),
                max_plies: u32::MAX,
                seed: 1,
            },
            &mut UniformEvaluator,
            &mut |_| {},
        )
        .unwrap()
        .unwrap();
        assert!(t.nodes > 1);
        assert!(!t.pv.is_empty());
    }
}
