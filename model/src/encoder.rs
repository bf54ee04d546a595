//! Position -> input planes, always from the side to move's point of view.
//!
//! Layout (version [`ENCODER_VERSION`]), `T` = number of piece types of the game
//! ([`tengu_rules::Variant::piece_types`], promoted forms included), `N` = board side:
//!
//! | planes | meaning |
//! |---|---|
//! | `0 .. T` | the side to move's pieces, one plane per piece type (1.0 where it stands) |
//! | `T .. 2T` | the opponent's pieces, same order |
//! | `2T` | all 1.0 if the previous move was a pass (the mover may not pass, RULES.md §7.4) |
//! | `2T + 1` | earlier occurrences of this position (repetition key), divided by 3 |
//! | `2T + 2` | all 1.0 if the side to move is in check |
//! | `2T + 3` | all 1.0 (marks the board for zero-padded convolutions) |
//! | `2T + 4` | all 1.0 if the side to move is White |
//!
//! Each plane is `N x N`, row-major, in the mover's frame: row 0 is the rank farthest from
//! the mover (rank `a` for Black), column 0 the mover's left-most file. White's view is the
//! board rotated by 180 degrees, so both sides see their army at the bottom.

use tengu_rules::{Color, Position, Square, Variant};

/// Version of the plane layout and of the policy index; written into every checkpoint and
/// shard, and checked when they are read.
pub const ENCODER_VERSION: u32 = 1;

/// Planes after the piece planes.
const EXTRA_PLANES: usize = 5;

/// The encoder of one game.
#[derive(Clone, Debug)]
pub struct Encoder {
    size: usize,
    types: usize,
}

impl Encoder {
    pub fn new(variant: &Variant) -> Encoder {
        Encoder {
            size: variant.size(),
            types: variant.piece_types().len(),
        }
    }

    /// Board side `N`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of input planes `2T + 5`.
    pub fn planes(&self) -> usize {
        2 * self.types + EXTRA_PLANES
    }

    /// Floats per encoded position: `planes * N * N`.
    pub fn len(&self) -> usize {
        self.planes() * self.size * self.size
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of a square in the mover's frame (`0 .. N * N`, row-major).
    #[inline]
    pub fn square_index(&self, s: Square, mover: Color) -> usize {
        let (col, row) = match mover {
            Color::Black => (s.col(), s.row()),
            Color::White => (self.size - 1 - s.col(), self.size - 1 - s.row()),
        };
        row * self.size + col
    }

    /// Writes the planes of `pos` into `out` (length [`Encoder::len`]), overwriting it.
    /// `repetitions`: how often this position occurred before in the game (0 if new).
    pub fn encode(&self, pos: &Position, repetitions: u32, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            self.len(),
            "output buffer must hold planes * N * N floats"
        );
        assert_eq!(pos.size(), self.size, "position of another game");
        out.fill(0.0);
        let area = self.size * self.size;
        let mover = pos.side_to_move();
        for color in Color::ALL {
            let base = if color == mover { 0 } else { self.types };
            for s in pos.squares_of(color) {
                let piece = pos.piece_at(s).expect("occupied square");
                out[(base + piece.ty) * area + self.square_index(s, mover)] = 1.0;
            }
        }
        let extra = 2 * self.types;
        let fill = |out: &mut [f32], plane: usize, value: f32| {
            out[plane * area..(plane + 1) * area].fill(value)
        };
        if pos.after_pass() {
            fill(out, extra, 1.0);
        }
        if repetitions > 0 {
            fill(out, extra + 1, repetitions.min(3) as f32 / 3.0);
        }
        if pos.in_check() {
            fill(out, extra + 2, 1.0);
        }
        fill(out, extra + 3, 1.0);
        if mover == Color::White {
            fill(out, extra + 4, 1.0);
        }
    }
}
