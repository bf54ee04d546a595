//! Fixed piece values derived from the rules alone: a piece's moves from the centre of an
//! empty board (its mobility), so long-range and lion-type pieces are worth more than
//! steppers. Used by material adjudication, the baseline players, the material targets and
//! the encoder's material planes; never hand-tuned.

use crate::{Color, Piece, Position, Square, Variant};
use std::sync::Arc;

/// Value of a royal piece (its loss ends the game; kept out of material sums).
pub const ROYAL_VALUE: f32 = 1000.0;

/// Value of each piece type of `variant` (indexed like [`Variant::piece_types`]):
/// `1 + moves / 8` from the centre of an empty board, [`ROYAL_VALUE`] for royals.
pub fn piece_values(variant: &Arc<Variant>) -> Vec<f32> {
    let n = variant.size();
    let centre = Square::new(n / 2, n / 2);
    let mut moves = Vec::new();
    variant
        .piece_types()
        .iter()
        .enumerate()
        .map(|(ty, t)| {
            if variant.kinds()[t.kind].royal {
                return ROYAL_VALUE;
            }
            let mut pos = Position::empty(variant.clone(), Color::Black, false);
            pos.put(
                centre,
                Piece {
                    color: Color::Black,
                    ty,
                },
            );
            moves.clear();
            pos.pseudo_legal_moves(&mut moves);
            1.0 + moves.iter().filter(|m| !m.is_pass()).count() as f32 / 8.0
        })
        .collect()
}

/// Material of each side ([`Color::index`]), royals excluded.
pub fn material(pos: &Position, values: &[f32]) -> [f32; 2] {
    let mut m = [0.0; 2];
    for c in Color::ALL {
        for s in pos.squares_of(c) {
            if let Some(p) = pos.piece_at(s) {
                if values[p.ty] < ROYAL_VALUE {
                    m[c.index()] += values[p.ty];
                }
            }
        }
    }
    m
}
