//! The Gumbel root (Danihelka et al. 2022): sampled candidates raced by sequential halving,
//! the final choice and the completed-Q policy target.
//!
//! Scores are in log-prior units: log prior (+ Gumbel noise) + sigma(completed Q).

use rand::Rng;

use crate::config::SearchConfig;
use crate::node::Node;
use crate::noise::gumbel_noise;
use crate::root_ranking::{captures_by_prior, ranked_moves};

/// The state of a Gumbel root during one search.
#[derive(Clone, Debug)]
pub struct GumbelRoot {
    /// Gumbel noise + log prior per root edge (the fixed part of the halving score).
    score: Vec<f32>,
    /// Edges still in the race.
    remaining: Vec<usize>,
    /// Visits each remaining edge should reach before the next halving.
    target: u32,
    /// New visits the schedule shares out over its phases.
    budget: u32,
    phases: u32,
    /// Min-max rescale the completed Q values before sigma (mctx's `rescale_values`).
    rescale: bool,
    /// c_scale of sigma(q) (`search.gumbel_value_scale`).
    value_scale: f32,
}

impl GumbelRoot {
    /// The schedule of an evaluated `root` for `budget` new visits. `exchange_values` (per
    /// root edge, see [`crate::root_ranking::root_exchange_values`]) chooses half the
    /// candidates. Without `noise` the candidates are the most probable moves and the race
    /// is decided by log prior + sigma(Q) alone (deterministic play): the noise explores in
    /// self-play, but raced captures, which did not win the noise draw, would start a race
    /// against the draw's winners several units behind.
    pub fn new<R: Rng>(
        root: &Node,
        config: &SearchConfig,
        budget: u32,
        exchange_values: Option<&[f32]>,
        noise: bool,
        rng: &mut R,
    ) -> GumbelRoot {
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
        GumbelRoot {
            score,
            remaining: order,
            target: already + per,
            budget,
            phases,
            rescale: config.gumbel_rescale,
            value_scale: config.gumbel_value_scale,
        }
    }

    /// The root edge of the next simulation: the least visited remaining candidate below
    /// the phase's target; when every one has reached it, the better half (by score +
    /// sigma(Q)) goes on and the target rises.
    pub fn next_edge(&mut self, root: &Node) -> usize {
        loop {
            if let Some(&e) = self
                .remaining
                .iter()
                .filter(|&&e| root.visits[e] < self.target)
                .min_by_key(|&&e| root.visits[e])
            {
                return e;
            }
            if self.remaining.len() <= 1 {
                // One move left: it takes the rest of the budget.
                self.target = u32::MAX;
                continue;
            }
            // Halve by score + sigma(q), then raise the target for the next phase.
            let sq = sigma_q(root, self.rescale, self.value_scale);
            let mut ranked: Vec<usize> = self.remaining.clone();
            ranked.sort_by(|&a, &b| (self.score[b] + sq[b]).total_cmp(&(self.score[a] + sq[a])));
            ranked.truncate(ranked.len().div_ceil(2));
            self.remaining = ranked;
            let per = (self.budget / (self.phases * self.remaining.len() as u32)).max(1);
            self.target += per;
        }
    }

    /// The move to play: the remaining candidate with the best score + sigma(Q).
    pub fn best_edge(&self, root: &Node) -> usize {
        let sq = sigma_q(root, self.rescale, self.value_scale);
        *self
            .remaining
            .iter()
            .max_by(|&&a, &&b| (self.score[a] + sq[a]).total_cmp(&(self.score[b] + sq[b])))
            .expect("a legal move")
    }

    /// The policy target: softmax(log prior + sigma(completed Q)) over every root edge, as
    /// (edge, weight) pairs with weights summing to 1, those below 1e-6 left out.
    pub fn policy_target(&self, root: &Node) -> Vec<(usize, f32)> {
        let sq = sigma_q(root, self.rescale, self.value_scale);
        let mut logits: Vec<f32> = (0..root.moves.len())
            .map(|e| root.prior[e].max(1e-12).ln() + sq[e])
            .collect();
        tengu_model::evaluator::softmax_in_place(&mut logits);
        logits
            .into_iter()
            .enumerate()
            .filter(|(_, w)| *w > 1e-6)
            .collect()
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

/// Scale of sigma(q) = (50 + max visits) * `value_scale` * q (the Gumbel MuZero paper's
/// c_visit = 50 and c_scale = 0.1).
fn sigma_scale(root: &Node, value_scale: f32) -> f32 {
    let max_visits = root.visits.iter().copied().max().unwrap_or(0) as f32;
    (50.0 + max_visits) * value_scale
}
