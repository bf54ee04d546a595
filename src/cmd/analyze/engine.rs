//! The analysis engine's scheduler: every analysed ply of every query in flight is a search
//! of the one search driver (`tengu_search::driver`), advanced a simulation at a time; the
//! pending leaves of all searches of one network are evaluated in one batch per step, as
//! self-play evaluates its games' leaves. Each search is the single-position search of
//! `tengu match` and `tengu play` (`tengu_search::search`): no noise, no shuffled moves,
//! forced captures of all its visits, the same root filter.
//!
//! Searches beyond `max_searches` wait their turn in query order. A query is answered ply
//! by ply as its searches finish; a terminated query's searches are dropped between steps.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tengu_model::{EvalInput, Evaluation, Evaluator};
use tengu_rules::{Game, Move, Variant};
use tengu_search::driver::{evaluate_pending, Descent, RootPlan, Search};
use tengu_search::leaf::LeafTerms;
use tengu_search::tree::terminal_value;
use tengu_search::SearchConfig;

use super::answer::{Analysis, ErrorReply, Reply, Setting, StopCause, Terminated, TerminatedQuery};
use super::query::{Query, QueryError, QueryId};

/// The search's ply cap: none, as the players of `tengu match` search.
const MAX_PLIES: u32 = u32::MAX;

/// Simulations one search may run in one step without needing an evaluation (ones that end
/// in finished games); past that it yields to the others.
const SIMULATIONS_A_STEP: u32 = 1_000;

/// A network the engine analyses one game with.
pub struct Net {
    /// What the log calls it (`dai-dai.safetensors step 1200`).
    pub label: String,
    /// The game key it plays (its positions' `Variant::id`).
    pub game: String,
    pub evaluator: Box<dyn Evaluator>,
    pub search: SearchConfig,
    /// The variant's leaf terms (mobility reference, piece values).
    pub terms: LeafTerms,
}

/// Finds (and loads once) the network of a game: the error says why there is none.
pub type NetLoader = Box<dyn FnMut(&Arc<Variant>) -> Result<Net, String>>;

/// The networks loaded so far, one per game key.
pub struct Networks {
    nets: Vec<Net>,
    load: NetLoader,
}

impl Networks {
    pub fn new(load: NetLoader) -> Networks {
        Networks {
            nets: Vec::new(),
            load,
        }
    }

    /// Loads `variant`'s network now (a command's own checkpoints, before any query).
    pub fn preload(&mut self, variant: &Arc<Variant>) -> Result<(), String> {
        self.index(variant).map(|_| ())
    }

    /// The index of `variant`'s network, loaded on first use.
    fn index(&mut self, variant: &Arc<Variant>) -> Result<usize, String> {
        if let Some(i) = self.nets.iter().position(|n| n.game == variant.id()) {
            return Ok(i);
        }
        let net = (self.load)(variant)?;
        tracing::info!(game = variant.id(), network = %net.label, "network loaded");
        self.nets.push(net);
        Ok(self.nets.len() - 1)
    }
}

/// A query's settings shared by its plies' searches.
struct Spec {
    query: Query,
    net: usize,
    /// Root visits each search stops at (`u32::MAX`: time alone stops it).
    visits: u32,
    /// Root visits each search's root is planned for (Gumbel phases, forced captures).
    planned: u32,
    seed: u64,
}

/// One ply's search.
struct Job {
    spec: Arc<Spec>,
    ply: u32,
    /// The game at the ply; its current position is the root.
    game: Game,
    search: Search,
    started: Instant,
    deadline: Option<Instant>,
    rng: SmallRng,
    /// The network's evaluation of the root over `legal`, once made.
    raw: Option<(Evaluation, Vec<Move>)>,
}

/// Where a search stands after [`Job::advance`].
enum Progress {
    /// A leaf waits for its evaluation.
    Pending,
    /// Still running, nothing to evaluate this step.
    Working,
    Done(StopCause),
}

impl Job {
    fn start(spec: Arc<Spec>, ply: u32) -> Job {
        let game = spec.query.game_at(ply);
        let plan = RootPlan {
            visits: spec.planned,
            gumbel_noise: false,
            dirichlet_noise: false,
            captures_of_all_visits: true,
        };
        let started = Instant::now();
        Job {
            deadline: spec.query.budget.time.map(|t| started + t),
            rng: SmallRng::seed_from_u64(spec.seed),
            spec,
            ply,
            game,
            search: Search::new(plan, false),
            started,
            raw: None,
        }
    }

    /// Runs simulations until a leaf waits for its evaluation or the search is done.
    fn advance(&mut self, search: &SearchConfig) -> Progress {
        if self.search.has_pending() {
            return Progress::Pending;
        }
        if self.search.tree.is_empty() {
            self.search.queue_root(&self.game);
            return Progress::Pending;
        }
        for _ in 0..SIMULATIONS_A_STEP {
            if self.search.tree.root_visits() >= self.spec.visits {
                return Progress::Done(StopCause::Visits);
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Progress::Done(StopCause::Time);
            }
            if self.search.descend(&self.game, search, MAX_PLIES) == Descent::Pending {
                return Progress::Pending;
            }
        }
        Progress::Working
    }

    /// Backs up the pending leaf's evaluation.
    fn expand(&mut self, out: Evaluation, net: &Net) {
        if self.search.tree.is_empty() {
            let legal = self.search.pending_moves().unwrap_or_default().to_vec();
            self.raw = Some((out.clone(), legal));
        }
        self.search.expand_pending(
            out,
            &net.search,
            &net.terms,
            &mut renormalise,
            &mut self.rng,
        );
    }

    /// The answer of a finished search.
    fn analysis(&mut self, net: &Net, stopped: StopCause) -> Analysis {
        let (raw, legal) = self.raw.as_ref().expect("an evaluated root");
        let best = self.search.tree.choose_move(None, &mut self.rng);
        let setting = Setting {
            id: &self.spec.query.id,
            ply: self.ply,
            game: &self.game,
            values: &net.terms.values,
            exchange_depth: net.search.exchange_depth,
        };
        setting.searched(
            &self.search.tree,
            raw,
            legal,
            best,
            &self.spec.query.report,
            stopped,
            self.started.elapsed().as_millis() as u64,
        )
    }
}

/// The root move filter of the single-position search with nothing excluded: every move
/// kept, the priors renormalised (as `tengu_search::search` does), so an analysis searches
/// the very tree `tengu match`'s players do.
#[allow(clippy::ptr_arg)] // the search's root-filter signature, which may drop moves
fn renormalise(_: &Game, _: &mut Vec<Move>, prior: &mut Vec<f32>) {
    let sum: f32 = prior.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        prior.iter_mut().for_each(|p| *p /= sum);
    }
}

/// What the engine has done, for the log.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Plies analysed (searches finished).
    pub analysed: u64,
    /// Positions evaluated by a network.
    pub evaluations: u64,
    /// Calls of a network (batches).
    pub batches: u64,
    /// Seconds spent in the networks.
    pub network_seconds: f64,
}

/// The analysis engine: the queries in flight and the networks.
pub struct Engine {
    nets: Networks,
    waiting: VecDeque<(Arc<Spec>, u32)>,
    running: Vec<Job>,
    max_searches: usize,
    default_seed: u64,
    pub stats: Stats,
}

impl Engine {
    /// An engine running at most `max_searches` searches at once (the largest batch);
    /// queries without a `seed` search with `default_seed`.
    pub fn new(nets: Networks, max_searches: usize, default_seed: u64) -> Engine {
        Engine {
            nets,
            waiting: VecDeque::new(),
            running: Vec::new(),
            max_searches: max_searches.max(1),
            default_seed,
            stats: Stats::default(),
        }
    }

    /// Whether no search runs or waits.
    pub fn is_idle(&self) -> bool {
        self.running.is_empty() && self.waiting.is_empty()
    }

    fn in_flight(&self, id: &QueryId) -> bool {
        self.running.iter().any(|j| j.spec.query.id == *id)
            || self.waiting.iter().any(|(s, _)| s.query.id == *id)
    }

    /// Takes a query: its plies where the game is over are answered at once (in the
    /// returned replies), the others wait for their searches. An id still in flight, or a
    /// game without a network, is refused.
    pub fn submit(&mut self, query: Query) -> Vec<Reply> {
        let id = query.id.clone();
        if self.in_flight(&id) {
            let e = QueryError::Busy { id: id.0.clone() };
            return vec![Reply::Error(ErrorReply::refused(Some(&id), &e))];
        }
        let net = match self.nets.index(query.variant()) {
            Ok(i) => i,
            Err(problem) => {
                let e = QueryError::Invalid {
                    field: "game",
                    problem,
                };
                return vec![Reply::Error(ErrorReply::refused(Some(&id), &e))];
            }
        };
        let search = &self.nets.nets[net].search;
        let budget = query.budget;
        let visits = match (budget.visits, budget.time) {
            (Some(v), _) => v,
            (None, Some(_)) => u32::MAX,
            (None, None) => search.visits.max(1),
        };
        let spec = Arc::new(Spec {
            net,
            visits,
            planned: budget.visits.unwrap_or(search.visits),
            seed: query.seed.unwrap_or(self.default_seed),
            query,
        });
        tracing::debug!(
            id = %spec.query.id,
            plies = spec.query.plies.len(),
            visits = spec.visits,
            "query taken"
        );
        let mut replies = Vec::new();
        for &ply in &spec.query.plies {
            let game = spec.query.game_at(ply);
            if let Some(value) = terminal_value(&game, MAX_PLIES) {
                let terms = &self.nets.nets[net].terms;
                let setting = Setting {
                    id: &spec.query.id,
                    ply,
                    game: &game,
                    values: &terms.values,
                    exchange_depth: self.nets.nets[net].search.exchange_depth,
                };
                replies.push(Reply::Analysis(Box::new(setting.game_over(value))));
                self.stats.analysed += 1;
            } else {
                self.waiting.push_back((spec.clone(), ply));
            }
        }
        replies
    }

    /// Drops the searches of query `id` (all queries with `None`): the acknowledgement
    /// names the plies that will not be answered.
    pub fn terminate(&mut self, id: Option<&QueryId>) -> Terminated {
        let hit = |q: &QueryId| id.is_none_or(|id| id == q);
        let mut dropped: Vec<(QueryId, u32)> = Vec::new();
        self.running.retain(|j| {
            let keep = !hit(&j.spec.query.id);
            if !keep {
                dropped.push((j.spec.query.id.clone(), j.ply));
            }
            keep
        });
        self.waiting.retain(|(s, ply)| {
            let keep = !hit(&s.query.id);
            if !keep {
                dropped.push((s.query.id.clone(), *ply));
            }
            keep
        });
        let mut terminated: Vec<TerminatedQuery> = Vec::new();
        for (q, ply) in dropped {
            match terminated.iter_mut().find(|t| t.id == q.0) {
                Some(t) => t.plies.push(ply),
                None => terminated.push(TerminatedQuery {
                    id: q.0,
                    plies: vec![ply],
                }),
            }
        }
        terminated.iter_mut().for_each(|t| t.plies.sort_unstable());
        Terminated {
            id: id.map(|i| i.0.clone()),
            action: if id.is_some() {
                "terminate"
            } else {
                "terminate_all"
            },
            terminated,
        }
    }

    /// One step: waiting searches start while there is room, every running search runs
    /// until it needs an evaluation (finished ones are answered), then each network
    /// evaluates its searches' leaves in one batch. Returns the answers of the searches that
    /// finished (and of those whose evaluation failed).
    pub fn step(&mut self) -> Vec<Reply> {
        while self.running.len() < self.max_searches {
            let Some((spec, ply)) = self.waiting.pop_front() else {
                break;
            };
            self.running.push(Job::start(spec, ply));
        }
        let mut replies = Vec::new();
        let mut k = 0;
        while k < self.running.len() {
            let job = &mut self.running[k];
            let net = &self.nets.nets[job.spec.net];
            match job.advance(&net.search) {
                Progress::Done(stopped) => {
                    let mut job = self.running.remove(k);
                    let analysis = job.analysis(net, stopped);
                    tracing::debug!(
                        id = %analysis.id,
                        ply = analysis.ply,
                        visits = analysis.visits,
                        ms = analysis.time_ms,
                        "ply analysed"
                    );
                    self.stats.analysed += 1;
                    replies.push(Reply::Analysis(Box::new(analysis)));
                }
                Progress::Pending | Progress::Working => k += 1,
            }
        }
        for n in 0..self.nets.nets.len() {
            self.evaluate(n, &mut replies);
        }
        replies
    }

    /// Evaluates the pending leaves of network `n`'s searches in one batch and backs them
    /// up; if the network fails, those searches end with an error answer.
    fn evaluate(&mut self, n: usize, replies: &mut Vec<Reply>) {
        let members: Vec<usize> = (0..self.running.len())
            .filter(|&k| self.running[k].spec.net == n && self.running[k].search.has_pending())
            .collect();
        if members.is_empty() {
            return;
        }
        let net = &mut self.nets.nets[n];
        let leaves: Vec<(usize, &Search)> = members
            .iter()
            .map(|&k| (0, &self.running[k].search))
            .collect();
        let start = Instant::now();
        let evaluator = &mut net.evaluator;
        let result = evaluate_pending(&leaves, &mut |_, inputs: &[EvalInput<'_>]| {
            evaluator.evaluate(inputs)
        });
        drop(leaves);
        self.stats.network_seconds += start.elapsed().as_secs_f64();
        self.stats.batches += 1;
        self.stats.evaluations += members.len() as u64;
        match result {
            Ok(outputs) => {
                for (&k, out) in members.iter().zip(outputs) {
                    self.running[k].expand(out, net);
                }
            }
            Err(e) => {
                tracing::error!(network = %net.label, "evaluation failed: {e}");
                for &k in members.iter().rev() {
                    let job = self.running.remove(k);
                    replies.push(Reply::Error(ErrorReply {
                        id: Some(job.spec.query.id.0.clone()),
                        ply: Some(job.ply),
                        error: format!("the network {} failed: {e}", net.label),
                        field: None,
                    }));
                }
            }
        }
    }
}

/// How long the engine has run and what it did, for the log at its end.
pub fn summary(stats: &Stats, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    format!(
        "{} plies analysed, {} positions evaluated in {} batches (mean batch {:.1}), {:.0} positions/s, {:.0}% of the time in the network",
        stats.analysed,
        stats.evaluations,
        stats.batches,
        stats.evaluations as f64 / stats.batches.max(1) as f64,
        stats.evaluations as f64 / seconds,
        100.0 * stats.network_seconds / seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::analyze::query::{parse_line, request, Caps, Request};
    use tengu_model::UniformEvaluator;

    fn engine(max_searches: usize) -> Engine {
        let nets = Networks::new(Box::new(|variant: &Arc<Variant>| {
            if variant.id() != "dai-dai" {
                return Err(format!("no network for {}", variant.id()));
            }
            Ok(Net {
                label: "uniform".into(),
                game: variant.id().into(),
                evaluator: Box::new(UniformEvaluator),
                search: SearchConfig::default(),
                terms: LeafTerms::new(variant),
            })
        }));
        Engine::new(nets, max_searches, 1)
    }

    fn query(line: &str) -> Query {
        let caps = Caps {
            visits: 10_000,
            time: Duration::from_secs(60),
            plies: 100,
        };
        match request(&parse_line(line).unwrap(), &caps).unwrap() {
            Request::Analyze(q) => *q,
            other => panic!("{other:?}"),
        }
    }

    fn run(engine: &mut Engine) -> Vec<Reply> {
        let mut replies = Vec::new();
        while !engine.is_idle() {
            replies.extend(engine.step());
        }
        replies
    }

    fn analyses(replies: &[Reply]) -> Vec<&Analysis> {
        replies
            .iter()
            .filter_map(|r| match r {
                Reply::Analysis(a) => Some(a.as_ref()),
                _ => None,
            })
            .collect()
    }

    /// Batched searches are the single-position search of `tengu match`: same visits, same
    /// root value, same move.
    #[test]
    fn batched_searches_equal_the_single_position_search() {
        let mut e = engine(8);
        let q = query(r#"{"id":"a","moves":["9l>9k","9f>9g"],"analyze_plies":"all","visits":40}"#);
        let games: Vec<Game> = q.plies.iter().map(|&p| q.game_at(p)).collect();
        assert!(e.submit(q).is_empty());
        let replies = run(&mut e);
        let found = analyses(&replies);
        assert_eq!(found.len(), 3);
        for (a, game) in found.iter().zip(&games) {
            let alone = tengu_search::search::search_game(
                game,
                &mut UniformEvaluator,
                &SearchConfig::default(),
                40,
                MAX_PLIES,
                1,
            )
            .unwrap()
            .unwrap();
            assert_eq!(a.visits, 40);
            assert_eq!(a.moves.iter().map(|m| m.visits).sum::<u32>(), 39);
            assert_eq!(
                a.best.as_deref(),
                Some(game.position().move_text(alone.best).as_str())
            );
            assert!(
                (a.value - alone.value).abs() < 1e-6,
                "{} {}",
                a.value,
                alone.value
            );
            assert_eq!(a.pv[0], a.moves[0].mv);
            assert_eq!(a.moves[0].pv[0], a.moves[0].mv);
        }
        assert_eq!(e.stats.analysed, 3);
        assert!(
            e.stats.evaluations as f64 / e.stats.batches as f64 > 2.0,
            "{:?}",
            e.stats
        );
    }

    #[test]
    fn terminate_drops_the_plies_not_answered() {
        let mut e = engine(1);
        e.submit(query(
            r#"{"id":"a","moves":["9l>9k"],"analyze_plies":"all","visits":30}"#,
        ));
        e.submit(query(r#"{"id":"b","visits":5}"#));
        let busy = e.submit(query(r#"{"id":"a","visits":5}"#));
        assert!(matches!(&busy[..], [Reply::Error(r)] if r.field.as_deref() == Some("id")));
        e.step();
        let t = e.terminate(Some(&QueryId("a".into())));
        assert_eq!(t.terminated.len(), 1);
        assert_eq!(t.terminated[0].plies, vec![0, 1]);
        let replies = run(&mut e);
        let ids: Vec<&str> = analyses(&replies).iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, vec!["b"]);
        let none = e.terminate(None);
        assert!(none.terminated.is_empty());
    }

    #[test]
    fn a_game_without_a_network_is_refused_and_a_time_budget_evaluates_the_root() {
        let mut e = engine(4);
        let r = e.submit(query(r#"{"id":"m","game":"maka-dai-dai"}"#));
        assert!(matches!(&r[..], [Reply::Error(r)] if r.field.as_deref() == Some("game")));
        let r = e.submit(query(r#"{"id":"t","max_ms":1}"#));
        assert!(r.is_empty());
        let replies = run(&mut e);
        let a = analyses(&replies);
        assert_eq!(a.len(), 1);
        assert!(a[0].visits >= 1);
    }
}
