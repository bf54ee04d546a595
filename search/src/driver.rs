//! The one search driver: the search of one root ([`Search`]) advanced one simulation at a
//! time; its pending leaf (one that needs an evaluation) the caller evaluates in a batch
//! with other searches' leaves ([`evaluate_pending`]). Self-play runs one search per game
//! in flight and evaluates their leaves in one batch per step; the single-position search
//! ([`crate::search`]: engine, arena, book) is the same driver with one search.
//!
//! The steps both share live here once: queueing the root, expanding a leaf from its
//! evaluation (leaf value, the root's move filter, the node's lead), and preparing the root
//! (exchange ranking, then Gumbel schedule, or root noise and forced captures).

use rand::Rng;
use tengu_model::{EvalError, EvalInput, Evaluation};
use tengu_rules::{Game, Move, Position};

use crate::config::{RootSelection, SearchConfig};
use crate::leaf::{leaf_value_and_lead, LeafTerms};
use crate::root_ranking::{forced_capture_count, root_exchange_values};
use crate::tree::{Leaf, Tree};

/// How a search spends its root: its visits and its noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootPlan {
    /// Root visits the search is planned for, a reused tree's included: the Gumbel schedule
    /// shares out those not yet made (at least 1). When the search stops is the caller's
    /// choice (a time limit may run past this).
    pub visits: u32,
    /// Gumbel noise on the Gumbel root's candidates (self-play's exploration); without it
    /// play is deterministic.
    pub gumbel_noise: bool,
    /// Dirichlet noise in the priors of a PUCT root (self-play's full searches).
    pub dirichlet_noise: bool,
    /// PUCT roots: the share `root_capture_share` of forced captures is of all `visits`
    /// (the single-position search, whose root evaluation counts among them) instead of
    /// the visits not yet made (self-play). Both habits are kept as they were when the two
    /// drivers merged, so neither's play changed.
    pub captures_of_all_visits: bool,
}

/// A leaf that needs an evaluation.
#[derive(Clone, Debug)]
struct PendingLeaf {
    /// (node, edge) pairs from the root; empty for the root itself.
    path: Vec<(u32, usize)>,
    /// The game at the leaf.
    game: Box<Game>,
    /// The leaf's legal moves, the order its evaluation's policy follows.
    moves: Vec<Move>,
}

/// Whether a simulation left a leaf to evaluate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Descent {
    /// A leaf waits for its evaluation ([`Search::pending_input`]).
    Pending,
    /// The simulation ended in a finished game and is backed up.
    Backed,
}

/// The search of one root: its tree, the plan of the current move's search, and the
/// pending leaf (waiting for its evaluation).
#[derive(Clone, Debug)]
pub struct Search {
    pub tree: Tree,
    plan: RootPlan,
    /// Whether the root of this move's search is prepared (see [`Search::prepare_root`]).
    prepared: bool,
    pending: Option<PendingLeaf>,
    /// Shuffle each new node's moves (self-play; see [`Search::expand_pending`]).
    shuffle_moves: bool,
}

/// A root move filter: drops moves (and their priors, renormalising them) from the root's
/// legal moves before it is expanded; it sees the game at the root.
pub type RootMoves<'a> = dyn FnMut(&Game, &mut Vec<Move>, &mut Vec<f32>) + 'a;

impl Search {
    /// An empty search; `shuffle_moves` puts every new node's moves in a random order.
    pub fn new(plan: RootPlan, shuffle_moves: bool) -> Search {
        Search {
            tree: Tree::default(),
            plan,
            prepared: false,
            pending: None,
            shuffle_moves,
        }
    }

    /// Starts the next move's search under `plan` on the tree as it is (reused or empty):
    /// its root is prepared afresh.
    pub fn replan(&mut self, plan: RootPlan) {
        self.plan = plan;
        self.prepared = false;
    }

    /// Root visits the current search is planned for.
    pub fn planned_visits(&self) -> u32 {
        self.plan.visits
    }

    /// Whether a leaf waits for its evaluation.
    pub fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The legal moves of the pending leaf, in the order its policy must follow.
    pub fn pending_moves(&self) -> Option<&[Move]> {
        self.pending.as_ref().map(|p| p.moves.as_slice())
    }

    /// The evaluator's input for the pending leaf.
    pub fn pending_input(&self) -> Option<EvalInput<'_>> {
        self.pending.as_ref().map(|p| EvalInput {
            position: p.game.position(),
            moves: &p.moves,
            repetitions: p.game.repetitions().saturating_sub(1),
        })
    }

    /// Queues the root, the current position of `game`, for its evaluation over every
    /// legal move of the game (the tree must be empty). The game's legal moves, not the
    /// position's: under `REPETITION=STRICT` a move back to an earlier position is illegal
    /// ([`Game::legal_moves`]).
    pub fn queue_root(&mut self, game: &Game) {
        debug_assert!(self.tree.is_empty());
        let moves = game.legal_move_list();
        self.pending = Some(PendingLeaf {
            path: Vec::new(),
            game: Box::new(game.clone()),
            moves,
        });
    }

    /// Runs one simulation from the root of `game` (whose current position is the root;
    /// the tree must hold it): a leaf to evaluate waits, a finished game is backed up. The
    /// leaf's moves are those of the game at the leaf (the game's history and the path from
    /// the root), so under `REPETITION=STRICT` no node offers a move back to a position of
    /// its game or path.
    pub fn descend(&mut self, game: &Game, config: &SearchConfig, max_plies: u32) -> Descent {
        match self.tree.simulate(game, config, max_plies) {
            Leaf::Evaluate { path, game } => {
                let moves = game.legal_move_list();
                self.pending = Some(PendingLeaf { path, game, moves });
                Descent::Pending
            }
            Leaf::Done => Descent::Backed,
        }
    }

    /// Adds the pending leaf to the tree from its evaluation `out` (policy over
    /// [`Search::pending_moves`]) and backs up its value ([`leaf_value_and_lead`], from all
    /// its legal moves). At the root, `root_moves` filters the moves first, the node gets
    /// no lead (the plan decides the root's first visits) and the root is prepared.
    pub fn expand_pending<R: Rng>(
        &mut self,
        out: Evaluation,
        config: &SearchConfig,
        terms: &LeafTerms,
        root_moves: &mut RootMoves<'_>,
        rng: &mut R,
    ) {
        let PendingLeaf {
            path,
            game,
            mut moves,
        } = self.pending.take().expect("a pending leaf");
        let (value, lead) = leaf_value_and_lead(&out, config, game.position(), moves.len(), terms);
        let mut policy = out.policy;
        if path.is_empty() {
            root_moves(&game, &mut moves, &mut policy);
        }
        if self.shuffle_moves {
            // A random move order breaks PUCT's ties at random: with the near-uniform priors
            // of young networks, ties otherwise always go to the first generated move, and
            // self-play games shuffle one piece back and forth into a draw by repetition.
            for k in (1..moves.len()).rev() {
                let j = rng.gen_range(0..=k);
                moves.swap(k, j);
                policy.swap(k, j);
            }
        }
        let lead = lead.filter(|_| !path.is_empty());
        self.tree.expand(&path, moves, policy, value, false, lead);
        if path.is_empty() {
            self.prepare_root(game.position(), config, terms, rng);
        }
    }

    /// Plans the evaluated root at `root` once per move's search (a no-op before the root
    /// is evaluated or once done): with exchange material the root moves are ranked by
    /// exchange value; a Gumbel root starts its schedule over the visits not yet made; a
    /// PUCT root takes its Dirichlet noise and owes its captures first visits.
    pub fn prepare_root<R: Rng>(
        &mut self,
        root: &Position,
        config: &SearchConfig,
        terms: &LeafTerms,
        rng: &mut R,
    ) {
        if self.prepared || self.tree.is_empty() {
            return;
        }
        self.prepared = true;
        let ranks = self
            .tree
            .root()
            .and_then(|r| root_exchange_values(config, root, &r.moves, terms));
        let new_visits = self.plan.visits.saturating_sub(self.tree.root_visits());
        if config.root == RootSelection::Gumbel {
            self.tree.start_gumbel(
                config,
                new_visits.max(1),
                ranks.as_deref(),
                self.plan.gumbel_noise,
                rng,
            );
        } else {
            if self.plan.dirichlet_noise {
                self.tree.add_root_noise(config, rng);
            }
            let capture_visits = if self.plan.captures_of_all_visits {
                self.plan.visits
            } else {
                new_visits
            };
            self.tree.force_root_captures(
                forced_capture_count(config, capture_visits),
                ranks.as_deref(),
            );
        }
    }
}

/// Evaluates the pending leaves of `searches`, each given with its group (self-play's
/// model generation): one call of `evaluate(group, inputs)` per group, groups in ascending
/// order, each batch in the order of `searches`. Returns one evaluation per search, in the
/// order of `searches`; every search must have one.
pub fn evaluate_pending(
    searches: &[(usize, &Search)],
    evaluate: &mut dyn FnMut(usize, &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError>,
) -> Result<Vec<Evaluation>, EvalError> {
    let mut groups: Vec<usize> = searches.iter().map(|&(g, _)| g).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut outputs: Vec<Option<Evaluation>> = vec![None; searches.len()];
    for group in groups {
        let members: Vec<usize> = (0..searches.len())
            .filter(|&k| searches[k].0 == group)
            .collect();
        let inputs: Vec<EvalInput> = members
            .iter()
            .map(|&k| searches[k].1.pending_input().expect("a pending leaf"))
            .collect();
        for (&k, out) in members.iter().zip(evaluate(group, &inputs)?) {
            outputs[k] = Some(out);
        }
    }
    Ok(outputs
        .into_iter()
        .map(|o| o.expect("every leaf evaluated"))
        .collect())
}
