//! The book graph in memory: positions (nodes) keyed by [`BookKey`], book moves (edges), each
//! node's own search over the moves not in the book, and the values and costs derived from
//! them ([`Derived`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tengu_rules::{Color, Game, Move, Position, Variant};

use crate::key::BookKey;
use crate::minimax::{self, Choice, Vertex};

/// A search of a node over the moves not (yet) in the book: KataGo's "values not in book".
#[derive(Clone, Debug, PartialEq)]
pub struct OwnSearch {
    /// Root value of the search, the node's mover's view, in [-1, 1].
    pub value: f32,
    /// The network's draw probability at the node, in [0, 1].
    pub draw: f32,
    /// Root visits.
    pub visits: u32,
    /// The search's best move: the next move to add to the book here.
    pub best: Move,
    /// The network's raw prior of `best` (over all legal moves).
    pub best_prior: f32,
}

impl OwnSearch {
    /// Standard error of `value` in [-1, 1] units: a floored binomial-style estimate from the
    /// visits (MCTS values are not independent samples; this only orders uncertainty).
    pub fn err(&self) -> f32 {
        ((1.0 - self.value * self.value).max(0.04) / (self.visits as f32 + 1.0)).sqrt()
    }

    /// The search's value as W/D/L with its error, the node's mover's view.
    pub fn wdl(&self) -> Wdl {
        Wdl::from_value(self.value, self.draw, self.err())
    }
}

/// A book move.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub mv: Move,
    /// Index of the node the move leads to.
    pub child: u32,
    /// The network's raw prior of the move at the parent.
    pub prior: f32,
}

/// A book position.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub key: BookKey,
    /// The canonical parent (the node through which this one was first reached) and the move
    /// from it; `None` for the root. Following parents gives the node's path from the start,
    /// which is replayed to verify the key.
    pub parent: Option<(u32, Move)>,
    /// Plies from the start along the canonical path.
    pub ply: u32,
    pub side: Color,
    pub edges: Vec<Edge>,
    /// The search over the moves not in the book; `None` when every legal move is in the book
    /// or the game is over here.
    pub own: Option<OwnSearch>,
    /// The exact value for the side to move when the game is over here (1, 0 or -1).
    pub terminal: Option<f32>,
}

impl Node {
    /// Whether an expansion can add a move here.
    pub fn can_expand(&self) -> bool {
        self.terminal.is_none() && self.own.is_some()
    }

    /// Root visits of the node's own search (0 without one).
    pub fn visits(&self) -> u32 {
        self.own.as_ref().map_or(0, |o| o.visits)
    }
}

/// A value with its W/D/L split, from one side's view.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wdl {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
    /// Standard error of the expected score `win + draw / 2` (in [0, 1] units).
    pub err: f32,
}

impl Wdl {
    /// From a value in [-1, 1], a draw probability and an error in value units; the draw
    /// is clipped so that win and loss stay non-negative.
    pub fn from_value(value: f32, draw: f32, err: f32) -> Wdl {
        let value = value.clamp(-1.0, 1.0);
        let draw = draw.clamp(0.0, 1.0 - value.abs());
        Wdl {
            win: (1.0 - draw + value) / 2.0,
            draw,
            loss: (1.0 - draw - value) / 2.0,
            err: err / 2.0,
        }
    }

    /// Expected score in [0, 1].
    pub fn score(&self) -> f32 {
        self.win + self.draw / 2.0
    }

    /// Value in [-1, 1].
    pub fn value(&self) -> f32 {
        self.win - self.loss
    }

    /// The same value seen by the other side.
    pub fn flip(self) -> Wdl {
        Wdl {
            win: self.loss,
            loss: self.win,
            ..self
        }
    }
}

/// Costs of KataGo's book expansion, reduced to W/D/L (see `books.md` §1 and §6.4). Values
/// are in [-1, 1] units as KataGo's win-loss; costs add along a line from the start and the
/// position with the cheapest expansion is expanded next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    /// Upper confidence bound = value + `error_factor` * err.
    pub error_factor: f32,
    /// Every move (and every expansion) costs this much: depth.
    pub per_move: f32,
    /// Per unit of UCB lost against the best option at the parent.
    pub per_ucb_loss: f32,
    /// Per cube of the UCB loss (stresses big mistakes).
    pub per_ucb_loss_cubed: f32,
    /// Per unit of -ln(prior): unlikely moves cost more.
    pub per_log_prior: f32,
    /// Expanding a node with k book moves already costs `per_expanded * k +
    /// per_expanded_squared * k^2` more: breadth.
    pub per_expanded: f32,
    pub per_expanded_squared: f32,
}

impl Default for Costs {
    /// KataGo's 7x7 defaults (genbook7jp.cfg) for the terms kept.
    fn default() -> Costs {
        Costs {
            error_factor: 1.5,
            per_move: 0.45,
            per_ucb_loss: 4.5,
            per_ucb_loss_cubed: 0.75,
            per_log_prior: 0.75,
            per_expanded: 0.25,
            per_expanded_squared: 0.05,
        }
    }
}

impl Costs {
    /// Refuses negative or non-finite costs (Dijkstra needs costs >= 0).
    pub fn validate(&self) -> Result<(), CostError> {
        let all = [
            ("error_factor", self.error_factor),
            ("per_move", self.per_move),
            ("per_ucb_loss", self.per_ucb_loss),
            ("per_ucb_loss_cubed", self.per_ucb_loss_cubed),
            ("per_log_prior", self.per_log_prior),
            ("per_expanded", self.per_expanded),
            ("per_expanded_squared", self.per_expanded_squared),
        ];
        for (name, v) in all {
            if !v.is_finite() || v < 0.0 {
                return Err(CostError { name, value: v });
            }
        }
        Ok(())
    }

    fn gap_cost(&self, best_ucb: f32, ucb: f32) -> f32 {
        let gap = (best_ucb - ucb).max(0.0);
        self.per_ucb_loss * gap + self.per_ucb_loss_cubed * gap.powi(3)
    }

    fn prior_cost(&self, prior: f32) -> f32 {
        self.per_log_prior * -prior.clamp(1e-6, 1.0).ln()
    }
}

/// A book cost that is negative or not finite.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("book cost {name} = {value}: must be finite and >= 0")]
pub struct CostError {
    /// The cost's field in [`Costs`].
    pub name: &'static str,
    pub value: f32,
}

/// Why nodes do not make a [`Graph`], or a node's path does not lead to it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("key {key} appears twice")]
    DuplicateKey { key: BookKey },
    #[error("node {node}: edge to node {child} of {nodes}")]
    EdgeOutOfRange { node: u32, child: u32, nodes: usize },
    #[error("node {node}: canonical parent {parent} is not older")]
    ParentNotOlder { node: u32, parent: u32 },
    #[error("node {node}: no parent, but only the root has none")]
    Orphan { node: u32 },
    #[error("node {node}: its path holds an illegal move")]
    IllegalPath { node: u32 },
    #[error(
        "node {node}: its path leads to key {found}, but the node has key {stored} (integrity check)"
    )]
    KeyMismatch {
        node: u32,
        found: BookKey,
        stored: BookKey,
    },
}

/// The graph of positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<Node>,
    index: HashMap<BookKey, u32>,
}

impl Graph {
    /// A graph of `nodes` (node 0 is the root). Keys must be unique and edges in range.
    pub fn from_nodes(nodes: Vec<Node>) -> Result<Graph, GraphError> {
        let mut index = HashMap::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            if index.insert(n.key, i as u32).is_some() {
                return Err(GraphError::DuplicateKey { key: n.key });
            }
            for e in &n.edges {
                if e.child as usize >= nodes.len() {
                    return Err(GraphError::EdgeOutOfRange {
                        node: i as u32,
                        child: e.child,
                        nodes: nodes.len(),
                    });
                }
            }
            if let Some((p, _)) = n.parent {
                if p as usize >= i {
                    return Err(GraphError::ParentNotOlder {
                        node: i as u32,
                        parent: p,
                    });
                }
            } else if i != 0 {
                return Err(GraphError::Orphan { node: i as u32 });
            }
        }
        Ok(Graph { nodes, index })
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn find(&self, key: BookKey) -> Option<u32> {
        self.index.get(&key).copied()
    }

    /// Adds a node; its key must be new.
    pub fn push(&mut self, node: Node) -> u32 {
        let id = self.nodes.len() as u32;
        let fresh = self.index.insert(node.key, id).is_none();
        assert!(fresh, "book key {} added twice", node.key);
        self.nodes.push(node);
        id
    }

    /// The canonical path of node `id` from the start.
    pub fn path(&self, id: u32) -> Vec<Move> {
        self.steps(id).into_iter().map(|(_, m)| m).collect()
    }

    /// The canonical path of node `id` from the start as steps: each move with the node it
    /// is played from.
    pub fn steps(&self, id: u32) -> Vec<(u32, Move)> {
        let mut steps = Vec::with_capacity(self.nodes[id as usize].ply as usize);
        let mut at = id;
        while let Some((p, m)) = self.nodes[at as usize].parent {
            steps.push((p, m));
            at = p;
        }
        steps.reverse();
        steps
    }

    /// The position of every node, by canonical parents (parents are older than children).
    pub fn positions(&self, variant: &std::sync::Arc<Variant>) -> Vec<Position> {
        let mut out: Vec<Position> = Vec::with_capacity(self.len());
        for n in &self.nodes {
            let pos = match n.parent {
                None => Position::initial(variant.clone()),
                Some((p, m)) => {
                    let mut pos = out[p as usize].clone();
                    pos.play(m);
                    pos
                }
            };
            out.push(pos);
        }
        out
    }

    /// The game of node `id`: its path replayed from the start of `variant`, the key checked.
    pub fn replay(&self, variant: &std::sync::Arc<Variant>, id: u32) -> Result<Game, GraphError> {
        let mut game = Game::new(Position::initial(variant.clone()));
        for m in self.path(id) {
            if !game.position().is_legal(m) {
                return Err(GraphError::IllegalPath { node: id });
            }
            game.play_unchecked(m);
        }
        let key = BookKey::of(game.position());
        if key != self.nodes[id as usize].key {
            return Err(GraphError::KeyMismatch {
                node: id,
                found: key,
                stored: self.nodes[id as usize].key,
            });
        }
        Ok(game)
    }
}

/// Values and costs derived from the graph (never stored: recomputed after every change).
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    /// Backed-up W/D/L of each node from its mover's view.
    pub value: Vec<Wdl>,
    /// The optimal choice at each node (an edge index, the exit, or nothing).
    pub choice: Vec<Choice>,
    /// Cheapest cost from the start to each node (infinite when unreachable).
    pub cost: Vec<f32>,
    /// Cost of expanding each node: `cost` plus the node's own expansion cost (infinite for
    /// nodes that cannot be expanded).
    pub expansion: Vec<f32>,
}

impl Derived {
    pub fn compute(graph: &Graph, costs: &Costs) -> Derived {
        let nodes = &graph.nodes;
        // Minimax in Black's view.
        let black = |n: &Node, v: f32| if n.side == Color::Black { v } else { -v };
        let vertices: Vec<Vertex> = nodes
            .iter()
            .map(|n| Vertex {
                maximiser: n.side == Color::Black,
                exit: n
                    .terminal
                    .or(n.own.as_ref().map(|o| o.value))
                    .map(|v| black(n, v)),
                succ: n.edges.iter().map(|e| e.child).collect(),
            })
            .collect();
        let solved = minimax::solve(&vertices);
        let value: Vec<Wdl> = (0..nodes.len())
            .map(|i| {
                let n = &nodes[i];
                let v = black(n, solved[i].value);
                let (draw, err) = match minimax::exit_of(&vertices, &solved, i as u32) {
                    Some(e) => {
                        let leaf = &nodes[e as usize];
                        match (&leaf.terminal, &leaf.own) {
                            (Some(t), _) => ((*t == 0.0) as u8 as f32, 0.0),
                            (None, Some(o)) => (o.draw, o.err()),
                            (None, None) => (1.0, 0.0),
                        }
                    }
                    // A line that repeats: a draw.
                    None => (1.0, 0.0),
                };
                Wdl::from_value(v, draw, err)
            })
            .collect();
        let choice = solved.iter().map(|s| s.choice).collect();
        // UCB of each option at a node, its mover's view, in value units.
        let ucb_child = |c: u32| -> f32 {
            let w = value[c as usize];
            -w.value() + costs.error_factor * 2.0 * w.err
        };
        let ucb_own = |n: &Node| -> Option<f32> {
            n.own
                .as_ref()
                .map(|o| o.value + costs.error_factor * o.err())
        };
        let best_ucb: Vec<f32> = nodes
            .iter()
            .map(|n| {
                n.edges
                    .iter()
                    .map(|e| ucb_child(e.child))
                    .chain(ucb_own(n))
                    .fold(f32::NEG_INFINITY, f32::max)
            })
            .collect();
        // Dijkstra from the root over non-negative edge costs.
        let mut cost = vec![f32::INFINITY; nodes.len()];
        if !nodes.is_empty() {
            cost[0] = 0.0;
            let mut heap = std::collections::BinaryHeap::new();
            heap.push(std::cmp::Reverse((OrdF32(0.0), 0u32)));
            while let Some(std::cmp::Reverse((OrdF32(c), u))) = heap.pop() {
                if c > cost[u as usize] {
                    continue;
                }
                let n = &nodes[u as usize];
                for e in &n.edges {
                    let step = costs.per_move
                        + costs.gap_cost(best_ucb[u as usize], ucb_child(e.child))
                        + costs.prior_cost(e.prior);
                    let next = c + step;
                    if next < cost[e.child as usize] {
                        cost[e.child as usize] = next;
                        heap.push(std::cmp::Reverse((OrdF32(next), e.child)));
                    }
                }
            }
        }
        let expansion = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| match (&n.own, n.terminal) {
                (Some(o), None) if cost[i].is_finite() => {
                    let k = n.edges.len() as f32;
                    cost[i]
                        + costs.per_move
                        + costs.gap_cost(best_ucb[i], ucb_own(n).expect("own"))
                        + costs.prior_cost(o.best_prior)
                        + costs.per_expanded * k
                        + costs.per_expanded_squared * k * k
                }
                _ => f32::INFINITY,
            })
            .collect();
        Derived {
            value,
            choice,
            cost,
            expansion,
        }
    }

    /// The node to expand next: the cheapest expansion (ties: the older node).
    pub fn next_to_expand(&self) -> Option<u32> {
        self.expansion
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_finite())
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .map(|(i, _)| i as u32)
    }

    /// The principal line from node `id` through the book (at most `max` moves).
    pub fn line(&self, graph: &Graph, id: u32, max: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut at = id;
        let mut seen = vec![at];
        while line.len() < max {
            let Choice::Edge(i) = self.choice[at as usize] else {
                break;
            };
            let e = &graph.nodes[at as usize].edges[i];
            line.push(e.mv);
            if seen.contains(&e.child) {
                break;
            }
            seen.push(e.child);
            at = e.child;
        }
        line
    }
}

/// An f32 with a total order (costs are never NaN).
#[derive(Copy, Clone, Debug, PartialEq)]
struct OrdF32(f32);

impl Eq for OrdF32 {}

impl PartialOrd for OrdF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
