//! Leaf evaluation: the value a new leaf backs up, in [-1, 1] from the leaf mover's view,
//! from the network's evaluation plus material and mobility terms, and the capture that
//! takes the leaf's first visit.

use std::sync::Arc;

use tengu_model::Evaluation;
use tengu_rules::{Move, Position, Variant};

use crate::config::{LeafMaterial, SearchConfig};

/// What the leaf value needs of a variant beyond the position: the initial position's
/// legal moves (the mobility reference) and the piece values (exchange material).
#[derive(Clone, Debug)]
pub struct LeafTerms {
    /// Legal moves of the variant's initial position.
    pub initial_moves: usize,
    /// Piece values (piece units) by piece type, as `tengu_rules::values::piece_values`.
    pub values: Vec<f32>,
}

impl LeafTerms {
    pub fn new(variant: &Arc<Variant>) -> LeafTerms {
        LeafTerms {
            initial_moves: initial_moves(variant),
            values: tengu_rules::values::piece_values(variant),
        }
    }
}

/// Legal moves of `variant`'s initial position: the reference of the mobility utility.
pub fn initial_moves(variant: &Arc<Variant>) -> usize {
    Position::initial(variant.clone()).legal_move_list().len()
}

/// The utility of an evaluation from the network's heads alone, in [-1, 1]: `value_utility`
/// times win - loss, plus `material_utility` times the material head's prediction (KataGo
/// adds its score estimate to the utility the same way), plus `mobility_utility` times
/// ln(`legal_moves` / `initial_moves`) (the leaf mover's legal moves against those of the
/// game's initial position), clamped.
pub fn head_utility(
    out: &Evaluation,
    config: &SearchConfig,
    legal_moves: usize,
    initial_moves: usize,
) -> f32 {
    weighted_utility(out, out.material, config, legal_moves, initial_moves)
}

/// [`head_utility`] with `material` (a material term in (-1, 1), the leaf mover's view) in
/// place of the material head's prediction; in [-1, 1].
fn weighted_utility(
    out: &Evaluation,
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

/// The material term of a leaf at `pos` under `config.leaf_material`, in (-1, 1) from the
/// leaf mover's view: the material head's prediction, `tanh((balance + exchange gain) /
/// MATERIAL_SCALE + residual_utility * residual)` (balance and gain in piece units,
/// `residual` the network's learned correction), or with `gain` `tanh((balance + gain) /
/// MATERIAL_SCALE)` minus `tanh(balance / MATERIAL_SCALE)`.
pub fn material_term(
    out: &Evaluation,
    config: &SearchConfig,
    pos: &Position,
    terms: &LeafTerms,
) -> f32 {
    material_term_and_lead(out, config, pos, terms).0
}

/// [`material_term`], and with exchanges the capture that starts the mover's best exchange
/// (a node's [`crate::node::Node::lead`]), both from one capture search.
fn material_term_and_lead(
    out: &Evaluation,
    config: &SearchConfig,
    pos: &Position,
    terms: &LeafTerms,
) -> (f32, Option<Move>) {
    match config.leaf_material {
        LeafMaterial::Head => (out.material, None),
        LeafMaterial::Teacher => {
            let teacher = crate::teacher::Teacher::with_values(
                terms.values.clone(),
                config.leaf_teacher_depth,
                config.exchange_depth,
            );
            let score = teacher.label(pos).score;
            let best = crate::exchange::best_capture(pos, &terms.values, config.exchange_depth);
            let scale = tengu_model::desc::MATERIAL_SCALE;
            ((score / scale).tanh(), best.map(|(mv, _)| mv))
        }
        LeafMaterial::Exchange | LeafMaterial::Gain => {
            let me = pos.side_to_move();
            let m = tengu_rules::values::material(pos, &terms.values);
            let best = crate::exchange::best_capture(pos, &terms.values, config.exchange_depth);
            let balance = m[me.index()] - m[me.opposite().index()];
            let scale = tengu_model::desc::MATERIAL_SCALE;
            let counted = (balance + best.map_or(0.0, |(_, won)| won)) / scale;
            let term = if config.leaf_material == LeafMaterial::Gain {
                counted.tanh() - (balance / scale).tanh()
            } else {
                // The judge: the exchange count plus the network's learned correction,
                // both on the tanh's logit scale (0 for an untrained network); with the
                // weight 0 the count alone, bit for bit.
                if config.residual_utility > 0.0 {
                    (counted + config.residual_utility * out.residual).tanh()
                } else {
                    counted.tanh()
                }
            };
            (term, best.map(|(mv, _)| mv))
        }
    }
}

/// The value a leaf at `pos` (with `legal_moves` legal moves) backs up, in [-1, 1] from its
/// mover's view: [`head_utility`] with the material term of [`material_term`], plus
/// `mobility_balance` times ln(the mover's pseudo-legal moves / the opponent's), clamped.
/// The balance costs two move generations, so only when its weight is set.
pub fn leaf_value(
    out: &Evaluation,
    config: &SearchConfig,
    pos: &Position,
    legal_moves: usize,
    terms: &LeafTerms,
) -> f32 {
    leaf_value_and_lead(out, config, pos, legal_moves, terms).0
}

/// [`leaf_value`], and with `leaf_material = "exchange"` the move that takes the node's
/// first visit ([`crate::node::Node::lead`]): the capture that starts the mover's best
/// exchange, if one wins material (found by the same search as the material term).
pub fn leaf_value_and_lead(
    out: &Evaluation,
    config: &SearchConfig,
    pos: &Position,
    legal_moves: usize,
    terms: &LeafTerms,
) -> (f32, Option<Move>) {
    let (material, lead) = if config.material_utility == 0.0 {
        (0.0, None)
    } else {
        material_term_and_lead(out, config, pos, terms)
    };
    let u = weighted_utility(out, material, config, legal_moves, terms.initial_moves);
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
