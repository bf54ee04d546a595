//! The policy index: a bijection between the legal moves of a position and policy slots.
//!
//! A slot is `(from, to, code)`: `from` and `to` are square indices in the mover's frame
//! (`0 .. N * N`, see [`crate::encoder::Encoder::square_index`]), so the network's
//! from-square x to-square (bilinear) head scores the move, and `code` (`0 .. CODES`)
//! separates the few moves that share `(from, to)`:
//!
//! * `code / 2` is the capture pattern: the captured squares other than the destination,
//!   as offsets from `from` in the mover's frame: 0 = none; 1..=24 = one square of the 5x5
//!   area around `from` (lion double steps, igui, lion-dog rows 4 and 6-8); 25..=32 = the
//!   first two squares of one of the 8 rays (lion-dog row 9 with two enemies before S3);
//! * `code % 2` is 1 for a declined optional promotion (the `=` move of RULES.md §12.3).
//!
//! Whether the destination itself is captured is not part of the slot: it follows from the
//! position. A pass is `(from, from, 0)`, igui `(from, from, pattern of the victim)`.
//! The flat id of a slot is `(from * N * N + to) * CODES + code`.
//!
//! One reading has captures the table has no pattern for: a hook mover that may also capture
//! on the square where it turns (`HM`, `CA` = `TWO_CAPTURES`, RULES.md §8.2, §8.3), which
//! can lie anywhere on the board. Such a move takes the pattern of no side capture, so it
//! shares the slot (and the prior) of the move along the same path that does not capture
//! on the turn, where there is one: an explicit fallback, the one place the index is not
//! a bijection ([`PolicyIndex::slot`]).

use tengu_rules::{Color, Move, Position, Square};

use crate::desc::CODES;
use crate::encoder::Encoder;

/// A policy slot in the mover's frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PolicySlot {
    pub from: u16,
    pub to: u16,
    pub code: u8,
}

/// The policy index of one game.
#[derive(Clone, Debug)]
pub struct PolicyIndex {
    encoder: Encoder,
}

/// A move the index cannot represent (a capture pattern outside the table).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {0} has a capture pattern the policy index does not cover")]
pub struct Unindexable(pub String);

const RAYS: [(i32, i32); 8] = [
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

impl PolicyIndex {
    pub fn new(encoder: Encoder) -> PolicyIndex {
        PolicyIndex { encoder }
    }

    /// Number of flat slot ids: `N^4 * CODES`.
    pub fn slots(&self) -> usize {
        let area = self.encoder.size() * self.encoder.size();
        area * area * CODES
    }

    /// Offset `(dcol, drow)` from `a` to `b` in the mover's frame.
    fn offset(&self, a: Square, b: Square, mover: Color) -> (i32, i32) {
        let n = self.encoder.size();
        let ia = self.encoder.square_index(a, mover) as i32;
        let ib = self.encoder.square_index(b, mover) as i32;
        (ib % n as i32 - ia % n as i32, ib / n as i32 - ia / n as i32)
    }

    /// The slot of a legal move of `pos`. A move whose side captures the table has no
    /// pattern for (a `TWO_CAPTURES` hook's capture on its turn, far from the origin) takes
    /// the pattern of no side capture (the module's fallback); [`Unindexable`] is left for
    /// a capture set of no reading (more than two side captures, or two not on one ray).
    pub fn slot(&self, pos: &Position, m: Move) -> Result<PolicySlot, Unindexable> {
        let mover = pos.side_to_move();
        let side: Vec<(i32, i32)> = m
            .side_captures()
            .map(|s| self.offset(m.from(), s, mover))
            .collect();
        let pattern = match side.as_slice() {
            [] => Some(0),
            [(dc, dr)] if dc.abs() <= 2 && dr.abs() <= 2 => {
                let k = (dr + 2) * 5 + (dc + 2); // 0..25, 12 is the centre
                Some(1 + if k > 12 { k - 1 } else { k } as usize)
            }
            // A capture on a hook's turn, beyond the 5x5 area: the fallback.
            [_] => Some(0),
            [a, b] => {
                let (near, far) = if a.0.abs().max(a.1.abs()) <= b.0.abs().max(b.1.abs()) {
                    (a, b)
                } else {
                    (b, a)
                };
                RAYS.iter()
                    .position(|&(dc, dr)| *near == (dc, dr) && *far == (2 * dc, 2 * dr))
                    .map(|r| 25 + r)
            }
            _ => None,
        };
        let Some(pattern) = pattern else {
            return Err(Unindexable(pos.move_text(m)));
        };
        let declined = (m.promotion_optional() && !m.promotes()) as usize;
        Ok(PolicySlot {
            from: self.encoder.square_index(m.from(), mover) as u16,
            to: self.encoder.square_index(m.to(), mover) as u16,
            code: (2 * pattern + declined) as u8,
        })
    }

    /// Flat id of a slot.
    pub fn id(&self, slot: PolicySlot) -> u32 {
        let area = (self.encoder.size() * self.encoder.size()) as u32;
        (slot.from as u32 * area + slot.to as u32) * CODES as u32 + slot.code as u32
    }

    /// The slot of a flat id.
    pub fn slot_of_id(&self, id: u32) -> PolicySlot {
        let area = (self.encoder.size() * self.encoder.size()) as u32;
        let code = id % CODES as u32;
        let pair = id / CODES as u32;
        PolicySlot {
            from: (pair / area) as u16,
            to: (pair % area) as u16,
            code: code as u8,
        }
    }

    /// The legal move of `pos` in `slot`, if there is one.
    pub fn move_of(&self, pos: &Position, slot: PolicySlot) -> Option<Move> {
        pos.legal_move_list()
            .into_iter()
            .find(|&m| self.slot(pos, m).ok() == Some(slot))
    }
}
