//! One game's search tree: PUCT selection, expansion from an evaluation, backup, root
//! noise, tree reuse and the Gumbel root (sequential halving).
//!
//! Values are in [-1, 1] from the view of the side to move at the node they belong to; an
//! edge's `value_sum` is from the view of the side to move at its parent.

use rand::Rng;
use tengu_rules::{Game, Move};

use crate::config::{LeafMaterial, RootSelection, SearchConfig};

pub const NONE: u32 = u32::MAX;

/// A searched position: its legal moves with priors and per-move statistics.
#[derive(Clone, Debug)]
pub struct Node {
    pub moves: Vec<Move>,
    pub prior: Vec<f32>,
    /// Node id of each move's child (`NONE` until expanded).
    pub child: Vec<u32>,
    pub visits: Vec<u32>,
    pub value_sum: Vec<f32>,
    /// Visits through this node, its own evaluation included.
    pub total: u32,
    /// The evaluation's value (or the exact value of a finished game).
    pub value: f32,
    /// Whether the game is over here (then `moves` is empty and `value` exact).
    pub terminal: bool,
    /// A move that takes this node's first visit below the root: the capture that starts
    /// the mover's best exchange (`leaf_material = "exchange"`), so the second visit of a
    /// move follows the exchange its leaf value assumed instead of a prior-chosen reply.
    pub lead: Option<usize>,
}

impl Node {
    fn new(
        moves: Vec<Move>,
        prior: Vec<f32>,
        value: f32,
        terminal: bool,
        lead: Option<usize>,
    ) -> Node {
        let n = moves.len();
        Node {
            moves,
            prior,
            child: vec![NONE; n],
            visits: vec![0; n],
            value_sum: vec![0.0; n],
            total: 1,
            value,
            terminal,
            lead,
        }
    }

    /// Mean value from this node's mover's view, its own evaluation included.
    pub fn mean_value(&self) -> f32 {
        (self.value + self.value_sum.iter().sum::<f32>()) / self.total as f32
    }

    /// Mean value of edge `e` from this node's mover's view (`None` when unvisited).
    pub fn q(&self, e: usize) -> Option<f32> {
        (self.visits[e] > 0).then(|| self.value_sum[e] / self.visits[e] as f32)
    }
}

/// The state of a Gumbel root during one search.
#[derive(Clone, Debug)]
struct GumbelRoot {
    /// Gumbel noise + log prior per move (the fixed part of the halving score).
    score: Vec<f32>,
    /// Moves still in the race.
    remaining: Vec<usize>,
    /// Visits each remaining move should reach before the next halving.
    target: u32,
    budget: u32,
    phases: u32,
    /// Min-max rescale the completed Q values before sigma (mctx's `rescale_values`).
    rescale: bool,
    /// c_scale of sigma(q) (`search.gumbel_value_scale`).
    value_scale: f32,
}

/// Where a simulation ended.
pub enum Leaf {
    /// A position that needs an evaluation; `game` is the game at the leaf.
    Evaluate {
        path: Vec<(u32, usize)>,
        game: Box<Game>,
    },
    /// The game is over at the leaf (already backed up).
    Done,
}

/// A search tree over the positions of one game.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    gumbel: Option<GumbelRoot>,
    /// Root edges still owed a first visit (captures, most probable first; see
    /// [`Tree::force_root_captures`]).
    forced: Vec<usize>,
}

/// The exact value of a finished game for the side to move (`None` while it goes on).
pub fn terminal_value(game: &Game, max_plies: u32) -> Option<f32> {
    if let Some(outcome) = game.outcome() {
        return Some(match outcome.winner {
            None => 0.0,
            Some(c) if c == game.position().side_to_move() => 1.0,
            Some(_) => -1.0,
        });
    }
    (game.len() as u32 >= max_plies).then_some(0.0)
}

impl Tree {
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
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

    /// PUCT choice among the moves of `node`.
    fn select_edge(&self, node: u32, config: &SearchConfig) -> usize {
        let n = &self.nodes[node as usize];
        if let Some(e) = n.lead.filter(|&e| n.visits[e] == 0) {
            return e;
        }
        let sqrt_total = (n.total as f32).sqrt();
        // The reduction grows with the prior mass already explored (KataGo, Lc0): a flat
        // reduction makes every unvisited move lose to a visited one whenever values are
        // near equal (as for a young network), and search collapses onto the top prior.
        let explored: f32 = (0..n.moves.len())
            .filter(|&e| n.visits[e] > 0)
            .map(|e| n.prior[e])
            .sum();
        let fpu = n.mean_value() - config.fpu_reduction * explored.sqrt();
        let mut best = (f32::NEG_INFINITY, 0);
        for e in 0..n.moves.len() {
            let q = n.q(e).unwrap_or(fpu);
            let u = config.c_puct * n.prior[e] * sqrt_total / (1.0 + n.visits[e] as f32);
            if q + u > best.0 {
                best = (q + u, e);
            }
        }
        best.1
    }

    /// The root move of the next simulation under the Gumbel schedule.
    fn gumbel_edge(&mut self) -> usize {
        let root = &self.nodes[0];
        let g = self.gumbel.as_mut().expect("gumbel root");
        loop {
            if let Some(&e) = g
                .remaining
                .iter()
                .filter(|&&e| root.visits[e] < g.target)
                .min_by_key(|&&e| root.visits[e])
            {
                return e;
            }
            if g.remaining.len() <= 1 {
                // One move left: it takes the rest of the budget.
                g.target = u32::MAX;
                continue;
            }
            // Halve by score + sigma(q), then raise the target for the next phase.
            let sq = sigma_q(root, g.rescale, g.value_scale);
            let mut ranked: Vec<usize> = g.remaining.clone();
            ranked.sort_by(|&a, &b| (g.score[b] + sq[b]).total_cmp(&(g.score[a] + sq[a])));
            ranked.truncate(ranked.len().div_ceil(2));
            g.remaining = ranked;
            let per = (g.budget / (g.phases * g.remaining.len() as u32)).max(1);
            g.target += per;
        }
    }

    /// Starts the Gumbel schedule at the root (after the root is evaluated).
    /// `exchange_values` (per root edge, see [`root_exchange_values`]) chooses half the
    /// candidates. Without `noise` the candidates are the most
    /// probable moves and the race is decided by log prior + sigma(Q) alone (deterministic
    /// play): the noise explores in self-play, but raced captures, which did not win the
    /// noise draw, would start a race against the draw's winners several units behind.
    pub fn start_gumbel<R: Rng>(
        &mut self,
        config: &SearchConfig,
        budget: u32,
        exchange_values: Option<&[f32]>,
        noise: bool,
        rng: &mut R,
    ) {
        let root = &self.nodes[0];
        let score: Vec<f32> = root
            .prior
            .iter()
            .map(|&p| p.max(1e-12).ln() + if noise { gumbel_noise(rng) } else { 0.0 })
            .collect();
        // With exchange values (`leaf_material = "exchange"`), half the candidates are the
        // moves that win or keep the most material by exchange (a saving move, a winning
        // capture), the most probable among equals. Else, with forced root captures, the
        // most probable captures race: Gumbel-top-k over a young, flat prior rarely samples
        // the capture that matters, as PUCT rarely visits it.
        let k = config.gumbel_moves as usize;
        let mut order: Vec<usize> = Vec::with_capacity(k);
        if let Some(values) = exchange_values {
            order.extend(ranked_moves(root, values).into_iter().take(k / 2));
        } else if config.root_capture_share > 0.0 {
            order.extend(captures_by_prior(root).into_iter().take(k / 2));
        }
        let mut rest: Vec<usize> = (0..root.moves.len())
            .filter(|e| !order.contains(e))
            .collect();
        rest.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
        rest.truncate(k.saturating_sub(order.len()));
        order.extend(rest);
        let m = order.len().max(1) as u32;
        let phases = (32 - (m - 1).leading_zeros()).max(1);
        let per = (budget / (phases * m)).max(1);
        let already = order.iter().map(|&e| root.visits[e]).min().unwrap_or(0);
        self.gumbel = Some(GumbelRoot {
            score,
            remaining: order,
            target: already + per,
            budget,
            phases,
            rescale: config.gumbel_rescale,
            value_scale: config.gumbel_value_scale,
        });
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
        let ranked = match exchange_values {
            Some(values) => ranked_moves(root, values),
            None => captures_by_prior(root),
        };
        let mut edges: Vec<usize> = ranked
            .into_iter()
            .filter(|&e| root.moves[e].is_capture())
            .filter(|&e| root.visits[e] == 0)
            .take(max)
            .collect();
        // Taken from the back.
        edges.reverse();
        self.forced = edges;
    }

    /// Runs one simulation from the root of `game` (whose current position is the root):
    /// descends to a leaf, backs up a finished game at once, or returns the leaf to evaluate.
    pub fn simulate(&mut self, game: &Game, config: &SearchConfig, max_plies: u32) -> Leaf {
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
            let edge = if node == 0 && self.gumbel.is_some() {
                self.gumbel_edge()
            } else if let (0, Some(e)) = (node, self.forced.pop()) {
                e
            } else {
                self.select_edge(node, config)
            };
            let mv = self.nodes[node as usize].moves[edge];
            game.play_unchecked(mv);
            path.push((node, edge));
            let child = self.nodes[node as usize].child[edge];
            if child == NONE {
                if let Some(value) = terminal_value(&game, max_plies) {
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

    /// Mixes Dirichlet noise into the root priors (`alpha = total_alpha / moves`).
    pub fn add_root_noise<R: Rng>(&mut self, config: &SearchConfig, rng: &mut R) {
        let Some(root) = self.nodes.first_mut() else {
            return;
        };
        let k = root.moves.len();
        if k < 2 || config.noise_fraction == 0.0 {
            return;
        }
        let alpha = config.dirichlet_total_alpha / k as f32;
        let noise: Vec<f32> = (0..k).map(|_| gamma_sample(alpha, rng)).collect();
        let sum: f32 = noise.iter().sum();
        if sum <= 0.0 || !sum.is_finite() {
            return;
        }
        for (p, n) in root.prior.iter_mut().zip(&noise) {
            *p = (1.0 - config.noise_fraction) * *p + config.noise_fraction * n / sum;
        }
    }

    /// The move to play: with `temperature` sampled from visits^(1/T), else the most visited;
    /// under a Gumbel root, the best remaining candidate.
    pub fn choose_move<R: Rng>(&self, temperature: Option<f32>, rng: &mut R) -> usize {
        let root = &self.nodes[0];
        if let Some(g) = &self.gumbel {
            let sq = sigma_q(root, g.rescale, g.value_scale);
            return *g
                .remaining
                .iter()
                .max_by(|&&a, &&b| (g.score[a] + sq[a]).total_cmp(&(g.score[b] + sq[b])))
                .expect("a legal move");
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
            let sq = sigma_q(root, g.rescale, g.value_scale);
            let mut logits: Vec<f32> = (0..root.moves.len())
                .map(|e| root.prior[e].max(1e-12).ln() + sq[e])
                .collect();
            tengu_model::evaluator::softmax_in_place(&mut logits);
            return logits
                .into_iter()
                .enumerate()
                .filter(|(_, w)| *w > 1e-6)
                .collect();
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

    /// Keeps the subtree under root edge `edge` as the new tree (empty if never expanded).
    pub fn reuse(&mut self, edge: usize) {
        self.gumbel = None;
        self.forced.clear();
        let Some(root) = self.nodes.first() else {
            return;
        };
        let start = root.child[edge];
        if start == NONE {
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

/// sigma(completed Q) of every root edge: Q of a visited move, the root's mean value for an
/// unvisited one (mctx's mixed value, simplified); with `rescale` min-max normalised to
/// [0, 1] over the root's moves first (mctx's default), so a young network's tiny spread of
/// values still moves the policy; then times [`sigma_scale`].
fn sigma_q(root: &Node, rescale: bool, value_scale: f32) -> Vec<f32> {
    let v_mix = root.mean_value();
    let mut q: Vec<f32> = (0..root.moves.len())
        .map(|e| root.q(e).unwrap_or(v_mix))
        .collect();
    if rescale {
        let lo = q.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let span = (hi - lo).max(1e-6);
        for x in q.iter_mut() {
            *x = (*x - lo) / span;
        }
    }
    let sigma = sigma_scale(root, value_scale);
    q.iter().map(|x| sigma * x).collect()
}

/// The capture edges of `node`, the most probable first (ties in move order).
fn captures_by_prior(node: &Node) -> Vec<usize> {
    let mut edges: Vec<usize> = (0..node.moves.len())
        .filter(|&e| node.moves[e].is_capture())
        .collect();
    edges.sort_by(|&a, &b| node.prior[b].total_cmp(&node.prior[a]));
    edges
}

/// Every edge of `node`, the highest `values` first, then the most probable.
fn ranked_moves(node: &Node, values: &[f32]) -> Vec<usize> {
    let mut edges: Vec<usize> = (0..node.moves.len()).collect();
    edges.sort_by(|&a, &b| {
        values[b]
            .total_cmp(&values[a])
            .then(node.prior[b].total_cmp(&node.prior[a]))
    });
    edges
}

/// With `leaf_material = "exchange"`, what each of `moves` (at `pos`) keeps by exchange:
/// the pieces it captures minus what the opponent then wins by captures (piece units; a
/// quiet move that leaves a piece hanging scores below one that saves it), so the root
/// races the moves that win or keep material; plus `root_mobility` times the mobility
/// balance after the move (pseudo-legal moves, the mover's minus the opponent's) and
/// `root_threat` times what the mover would then win by exchange if it moved again (a null
/// move). `None` otherwise.
pub fn root_exchange_values(
    config: &SearchConfig,
    pos: &tengu_rules::Position,
    moves: &[Move],
    terms: &LeafTerms,
) -> Option<Vec<f32>> {
    if config.leaf_material != LeafMaterial::Exchange {
        return None;
    }
    let mut work = pos.clone();
    let me = pos.side_to_move();
    let depth = config.exchange_depth.saturating_sub(1).max(1);
    let values = moves
        .iter()
        .map(|&m| {
            let taken = crate::exchange::gain(&work, &terms.values, m);
            let undo = work.play(m);
            let reply = crate::exchange::exchange_gain(&work, &terms.values, depth);
            let activity = if config.root_mobility > 0.0 {
                let balance = work.mobility(me) as f32 - work.mobility(me.opposite()) as f32;
                config.root_mobility * balance
            } else {
                0.0
            };
            let threat = if config.root_threat > 0.0 {
                work.flip_side_to_move();
                let t = crate::exchange::exchange_gain(&work, &terms.values, depth);
                work.flip_side_to_move();
                config.root_threat * t
            } else {
                0.0
            };
            work.unplay(m, undo);
            taken - reply + activity + threat
        })
        .collect();
    Some(values)
}

/// Scale of sigma(q) = (50 + max visits) * `value_scale` * q (the Gumbel MuZero paper's
/// c_visit = 50 and c_scale = 0.1).
fn sigma_scale(root: &Node, value_scale: f32) -> f32 {
    let max_visits = root.visits.iter().copied().max().unwrap_or(0) as f32;
    (50.0 + max_visits) * value_scale
}

fn gumbel_noise<R: Rng>(rng: &mut R) -> f32 {
    let u: f32 = rng.gen_range(1e-7f32..1.0);
    -(-u.ln()).ln()
}

/// A Gamma(alpha, 1) sample (Marsaglia and Tsang; boosted for alpha < 1).
fn gamma_sample<R: Rng>(alpha: f32, rng: &mut R) -> f32 {
    if alpha < 1.0 {
        let u: f32 = rng.gen_range(1e-7f32..1.0);
        return gamma_sample(alpha + 1.0, rng) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f32 = rng.gen_range(1e-7f32..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

fn standard_normal<R: Rng>(rng: &mut R) -> f32 {
    let u1: f32 = rng.gen_range(1e-7f32..1.0);
    let u2: f32 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

/// The value a leaf backs up: `value_utility` times win - loss, plus `material_utility`
/// times the material head's prediction (KataGo adds its score estimate to the utility the
/// same way), plus `mobility_utility` times ln(`legal_moves` / `initial_moves`) (the leaf
/// mover's legal moves against those of the game's initial position), kept in [-1, 1].
pub fn utility(
    out: &tengu_model::Evaluation,
    config: &SearchConfig,
    legal_moves: usize,
    initial_moves: usize,
) -> f32 {
    utility_with_material(out, out.material, config, legal_moves, initial_moves)
}

/// [`utility`] with `material` (tanh-scaled, the leaf mover's view) in place of the head's.
fn utility_with_material(
    out: &tengu_model::Evaluation,
    material: f32,
    config: &SearchConfig,
    legal_moves: usize,
    initial_moves: usize,
) -> f32 {
    let mut u = config.value_utility * out.value() + config.material_utility * material;
    if config.mobility_utility > 0.0 {
        let ratio = legal_moves.max(1) as f32 / initial_moves.max(1) as f32;
        u += config.mobility_utility * ratio.ln();
    }
    u.clamp(-1.0, 1.0)
}

/// What the leaf utility needs of a variant beyond the position: the initial position's
/// legal moves (the mobility reference) and the piece values (exchange material).
#[derive(Clone, Debug)]
pub struct LeafTerms {
    pub initial_moves: usize,
    pub values: Vec<f32>,
}

impl LeafTerms {
    pub fn new(variant: &std::sync::Arc<tengu_rules::Variant>) -> LeafTerms {
        LeafTerms {
            initial_moves: initial_moves(variant),
            values: tengu_rules::values::piece_values(variant),
        }
    }
}

/// The material term of a leaf at `pos` under `config.leaf_material`: the material head's
/// prediction, or `tanh((balance + exchange gain) / MATERIAL_SCALE)` for the leaf's mover.
pub fn leaf_material(
    out: &tengu_model::Evaluation,
    config: &SearchConfig,
    pos: &tengu_rules::Position,
    terms: &LeafTerms,
) -> f32 {
    material_and_lead(out, config, pos, terms).0
}

/// [`leaf_material`], and with exchanges the capture that starts the mover's best exchange
/// (a node's [`Node::lead`]), both from one capture search.
fn material_and_lead(
    out: &tengu_model::Evaluation,
    config: &SearchConfig,
    pos: &tengu_rules::Position,
    terms: &LeafTerms,
) -> (f32, Option<Move>) {
    match config.leaf_material {
        LeafMaterial::Head => (out.material, None),
        LeafMaterial::Exchange => {
            let me = pos.side_to_move();
            let m = tengu_rules::values::material(pos, &terms.values);
            let best = crate::exchange::best_capture(pos, &terms.values, config.exchange_depth);
            let balance =
                m[me.index()] - m[me.opposite().index()] + best.map_or(0.0, |(_, won)| won);
            (
                (balance / tengu_model::net::MATERIAL_SCALE).tanh(),
                best.map(|(mv, _)| mv),
            )
        }
    }
}

/// [`utility`] of a leaf at `pos` (with `legal_moves` legal moves; its material term from
/// [`leaf_material`]), plus `mobility_balance` times ln(the mover's pseudo-legal moves / the
/// opponent's), kept in [-1, 1]. The balance costs two move generations, so only when its
/// weight is set.
pub fn leaf_utility(
    out: &tengu_model::Evaluation,
    config: &SearchConfig,
    pos: &tengu_rules::Position,
    legal_moves: usize,
    terms: &LeafTerms,
) -> f32 {
    leaf_evaluation(out, config, pos, legal_moves, terms).0
}

/// [`leaf_utility`], and with `leaf_material = "exchange"` the move that takes the node's
/// first visit ([`Node::lead`]): the capture that starts the mover's best exchange, if one
/// wins material (found by the same search as the material term).
pub fn leaf_evaluation(
    out: &tengu_model::Evaluation,
    config: &SearchConfig,
    pos: &tengu_rules::Position,
    legal_moves: usize,
    terms: &LeafTerms,
) -> (f32, Option<Move>) {
    let (material, lead) = if config.material_utility == 0.0 {
        (0.0, None)
    } else {
        material_and_lead(out, config, pos, terms)
    };
    let u = utility_with_material(out, material, config, legal_moves, terms.initial_moves);
    if config.mobility_balance == 0.0 {
        return (u, lead);
    }
    let me = pos.side_to_move();
    let ratio = pos.mobility(me).max(1) as f32 / pos.mobility(me.opposite()).max(1) as f32;
    (
        (u + config.mobility_balance * ratio.ln()).clamp(-1.0, 1.0),
        lead,
    )
}

/// Legal moves of `variant`'s initial position: the reference of the mobility utility.
pub fn initial_moves(variant: &std::sync::Arc<tengu_rules::Variant>) -> usize {
    tengu_rules::Position::initial(variant.clone())
        .legal_move_list()
        .len()
}

/// How many root captures a PUCT search of `visits` new visits owes a first visit.
pub fn forced_captures(config: &SearchConfig, visits: u32) -> usize {
    (config.root_capture_share * visits as f32) as usize
}

/// Whether the config asks for a Gumbel root.
pub fn uses_gumbel(config: &SearchConfig) -> bool {
    config.root == RootSelection::Gumbel
}
