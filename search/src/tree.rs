//! One root's search tree of [`Node`]s: expansion from an evaluation, backup, the descent of
//! one simulation, the move to play and the policy target, tree reuse.
//!
//! Values are in [-1, 1] from the view of the side to move at the node they belong to; an
//! edge's `value_sum` is from the view of the side to move at its parent.

use rand::Rng;
use tengu_rules::end::draw_value;
use tengu_rules::{Color, EndPolicy, Game, Move};

use crate::config::SearchConfig;
use crate::gumbel::GumbelRoot;
use crate::noise::mix_dirichlet_noise;
use crate::root_ranking::forced_capture_edges;
use crate::selection::puct_edge;

// The nodes are the tree's vocabulary: its users name them through it (`tree::NONE`).
pub use crate::node::{Node, NONE};

/// Where a simulation ended.
pub enum Leaf {
    /// A position that needs an evaluation; `path` is the (node, edge) pairs from the root,
    /// `game` is the game at the leaf.
    Evaluate {
        path: Vec<(u32, usize)>,
        game: Box<Game>,
    },
    /// The game is over at the leaf (already backed up).
    Done,
}

/// A search tree over the positions of one game; node 0 is the root.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    gumbel: Option<GumbelRoot>,
    /// Root edges still owed a first visit (captures, most probable first; see
    /// [`Tree::force_root_captures`]).
    forced: Vec<usize>,
}

/// The exact value of a finished game for the side to move (`None` while it goes on), a
/// draw (by the rules, or at the cap of `max_plies`) at 0.
pub fn terminal_value(game: &Game, max_plies: u32) -> Option<f32> {
    let policy = EndPolicy {
        max_plies,
        adjudication: None,
    };
    if !policy.search_stops(game) {
        return None;
    }
    Some(match game.outcome().and_then(|o| o.winner) {
        None => 0.0,
        Some(c) if c == game.position().side_to_move() => 1.0,
        Some(_) => -1.0,
    })
}

/// Where a simulation's new node ends the game for the search, its value for the side to
/// move there: [`terminal_value`], or a draw where `config.repetition_draw` counts a
/// position met again as one; a draw is worth [`draw_value`] to the player at the root
/// (`root`) with `config.contempt`.
fn search_end_value(
    game: &Game,
    config: &SearchConfig,
    max_plies: u32,
    root: Color,
) -> Option<f32> {
    let repeated = config.repetition_draw && game.repetitions() >= 2;
    let value = terminal_value(game, max_plies).or(repeated.then_some(0.0))?;
    // A win or a loss is worth exactly 1 or -1; only a draw is 0.
    Some(if value == 0.0 {
        draw_value(config.contempt, root, game.position().side_to_move())
    } else {
        value
    })
}

impl Tree {
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
    }

    /// The line through root edge `edge`: its move, then from its child on the most visited
    /// move of each node (ties to the later edge), at most `plies` moves. Needs an evaluated
    /// root.
    pub fn principal_variation(&self, edge: usize, plies: usize) -> Vec<Move> {
        let root = self.root().expect("an evaluated root");
        let mut pv = vec![root.moves[edge]];
        let mut node = root.child[edge];
        while node != NONE && pv.len() < plies {
            let n = &self.nodes[node as usize];
            let Some(e) = (0..n.moves.len())
                .filter(|&e| n.visits[e] > 0)
                .max_by_key(|&e| n.visits[e])
            else {
                break;
            };
            pv.push(n.moves[e]);
            node = n.child[e];
        }
        pv
    }

    /// Visits of the root (0 before its evaluation).
    pub fn root_visits(&self) -> u32 {
        self.root().map_or(0, |n| n.total)
    }

    /// Adds the node reached by `path` (the root when empty) from an evaluation; `prior`
    /// follows `moves`; `lead` (one of `moves`) takes the node's first visit (see
    /// [`Node::lead`]). Then backs `value` up the path.
    pub fn expand(
        &mut self,
        path: &[(u32, usize)],
        moves: Vec<Move>,
        prior: Vec<f32>,
        value: f32,
        terminal: bool,
        lead: Option<Move>,
    ) {
        let lead = lead.and_then(|m| moves.iter().position(|&x| x == m));
        let id = self.nodes.len() as u32;
        self.nodes
            .push(Node::new(moves, prior, value, terminal, lead));
        if let Some(&(parent, edge)) = path.last() {
            self.nodes[parent as usize].child[edge] = id;
        }
        self.backup(path, value);
    }

    /// Adds `value` (from the leaf mover's view) along `path`, flipping sides at each ply.
    fn backup(&mut self, path: &[(u32, usize)], value: f32) {
        let mut v = value;
        for &(node, edge) in path.iter().rev() {
            v = -v;
            let n = &mut self.nodes[node as usize];
            n.visits[edge] += 1;
            n.value_sum[edge] += v;
            n.total += 1;
        }
    }

    /// Starts the Gumbel schedule at the root (after the root is evaluated) for `budget`
    /// new visits; see [`GumbelRoot::new`].
    pub fn start_gumbel<R: Rng>(
        &mut self,
        config: &SearchConfig,
        budget: u32,
        exchange_values: Option<&[f32]>,
        noise: bool,
        rng: &mut R,
    ) {
        self.gumbel = Some(GumbelRoot::new(
            &self.nodes[0],
            config,
            budget,
            exchange_values,
            noise,
            rng,
        ));
    }

    /// Owes each unvisited capture at the root one visit before PUCT chooses, at most `max`
    /// of them, the most probable first. A young policy spreads a few dozen visits over
    /// hundreds of moves and rarely tries the capture that matters; once every capture has
    /// a Q, PUCT concentrates on the good ones and the policy target learns them.
    /// With `exchange_values` the captures that win the most by exchange go first.
    pub fn force_root_captures(&mut self, max: usize, exchange_values: Option<&[f32]>) {
        let Some(root) = self.nodes.first() else {
            return;
        };
        self.forced = forced_capture_edges(root, max, exchange_values);
    }

    /// Mixes Dirichlet noise into the root priors (see [`mix_dirichlet_noise`]).
    pub fn add_root_noise<R: Rng>(&mut self, config: &SearchConfig, rng: &mut R) {
        if let Some(root) = self.nodes.first_mut() {
            mix_dirichlet_noise(&mut root.prior, config, rng);
        }
    }

    /// Runs one simulation from the root of `game` (whose current position is the root):
    /// descends to a leaf, backs up a finished game at once, or returns the leaf to evaluate.
    /// The root edge comes from the Gumbel schedule, else the forced captures, else PUCT.
    pub fn simulate(&mut self, game: &Game, config: &SearchConfig, max_plies: u32) -> Leaf {
        let root = game.position().side_to_move();
        let mut game = game.clone();
        let mut path = Vec::new();
        let mut node = 0u32;
        loop {
            let n = &self.nodes[node as usize];
            if n.terminal {
                let value = n.value;
                // Count the visit at the terminal node too.
                self.nodes[node as usize].total += 1;
                self.backup(&path, value);
                return Leaf::Done;
            }
            let edge = if let (0, Some(g)) = (node, self.gumbel.as_mut()) {
                g.next_edge(&self.nodes[0])
            } else if let (0, Some(e)) = (node, self.forced.pop()) {
                e
            } else {
                puct_edge(&self.nodes[node as usize], config)
            };
            let mv = self.nodes[node as usize].moves[edge];
            game.play_unchecked(mv);
            path.push((node, edge));
            let child = self.nodes[node as usize].child[edge];
            if child == NONE {
                if let Some(value) = search_end_value(&game, config, max_plies, root) {
                    self.expand(&path, Vec::new(), Vec::new(), value, true, None);
                    return Leaf::Done;
                }
                return Leaf::Evaluate {
                    path,
                    game: Box::new(game),
                };
            }
            node = child;
        }
    }

    /// The root edge to play: with `temperature` sampled from visits^(1/T), else the most
    /// visited (ties to the higher prior); under a Gumbel root, the best remaining candidate.
    pub fn choose_move<R: Rng>(&self, temperature: Option<f32>, rng: &mut R) -> usize {
        let root = &self.nodes[0];
        if let Some(g) = &self.gumbel {
            return g.best_edge(root);
        }
        if let Some(t) = temperature {
            let weights: Vec<f64> = root
                .visits
                .iter()
                .map(|&v| (v as f64).powf(1.0 / t as f64))
                .collect();
            let total: f64 = weights.iter().sum();
            if total > 0.0 {
                let mut x = rng.gen::<f64>() * total;
                for (e, w) in weights.iter().enumerate() {
                    if x < *w {
                        return e;
                    }
                    x -= w;
                }
            }
        }
        (0..root.moves.len())
            .max_by(|&a, &b| {
                root.visits[a]
                    .cmp(&root.visits[b])
                    .then(root.prior[a].total_cmp(&root.prior[b]))
            })
            .expect("a legal move")
    }

    /// The policy target: visit shares (PUCT), or softmax(log prior + sigma(completed Q))
    /// (Gumbel). Pairs of (edge, weight), weights summing to 1, zero weights left out.
    pub fn policy_target(&self) -> Vec<(usize, f32)> {
        let root = &self.nodes[0];
        if let Some(g) = &self.gumbel {
            return g.policy_target(root);
        }
        let total: u32 = root.visits.iter().sum();
        if total == 0 {
            return root.prior.iter().copied().enumerate().collect();
        }
        root.visits
            .iter()
            .enumerate()
            .filter(|(_, &v)| v > 0)
            .map(|(e, &v)| (e, v as f32 / total as f32))
            .collect()
    }

    /// Forgets the whole tree (the next search starts from an unexpanded root).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.gumbel = None;
        self.forced.clear();
    }

    /// Keeps the subtree under root edge `edge` as the new tree (empty if never expanded or
    /// terminal).
    pub fn reuse(&mut self, edge: usize) {
        self.gumbel = None;
        self.forced.clear();
        let Some(root) = self.nodes.first() else {
            return;
        };
        let start = root.child[edge];
        // A terminal child has no moves to search from: where the game really ends no search
        // follows, and a `repetition_draw` is a draw only for the search, not for the game.
        if start == NONE || self.nodes[start as usize].terminal {
            self.nodes.clear();
            return;
        }
        let mut old = std::mem::take(&mut self.nodes);
        // Breadth-first copy with renumbering; the new root gets id 0.
        let mut map = vec![NONE; old.len()];
        let mut queue = std::collections::VecDeque::from([start]);
        map[start as usize] = 0;
        let mut order = Vec::new();
        while let Some(id) = queue.pop_front() {
            order.push(id);
            for &c in &old[id as usize].child {
                if c != NONE {
                    map[c as usize] = (order.len() + queue.len()) as u32;
                    queue.push_back(c);
                }
            }
        }
        let mut nodes = Vec::with_capacity(order.len());
        for id in order {
            let mut n = std::mem::replace(
                &mut old[id as usize],
                Node::new(Vec::new(), Vec::new(), 0.0, true, None),
            );
            for c in n.child.iter_mut() {
                if *c != NONE {
                    *c = map[*c as usize];
                }
            }
            nodes.push(n);
        }
        self.nodes = nodes;
    }
}
