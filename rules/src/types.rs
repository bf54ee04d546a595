//! Vocabulary types: colours, squares, directions and moves.
//!
//! The board is a mailbox (HaChu's habit for large shogi boards): a fixed 25 x 25 array whose
//! outer three rows and columns are guard cells, so every step, jump (at most 3 squares) and
//! ray walk stops on a guard instead of testing coordinates. Both games share the layout; a
//! 17 x 17 board simply has more guard cells on its right and bottom.

use std::fmt;

/// Width of the padded mailbox, in cells.
pub const STRIDE: usize = 25;
/// Guard cells on each side of the largest board: the longest jump is 3 squares.
pub const GUARD: usize = 3;
/// Number of cells in the padded mailbox (25 * 25).
pub const PADDED: usize = STRIDE * STRIDE;
/// Largest board side supported (Maka Dai Dai Shogi).
pub const MAX_SIZE: usize = 19;

/// The two sides. Black (sente) moves first and starts on the high-letter ranks.
///
/// ```
/// use tengu_rules::Color;
/// assert_eq!(Color::Black.opposite(), Color::White);
/// assert_eq!(Color::ALL.map(Color::index), [0, 1]);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Black, Color::White];
    pub const NUM: usize = 2;

    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub(crate) const fn from_index(i: usize) -> Color {
        if i == 0 {
            Color::Black
        } else {
            Color::White
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "Black",
            Color::White => "White",
        })
    }
}

/// A cell of the padded mailbox. Squares on the board have `col`, `row` in `0..size`, where
/// `col` 0 is the left-most column as Black sees the board (file `size`) and `row` 0 is rank `a`
/// (White's back rank). Turning a square into text needs the board size: see
/// [`Square::name`].
///
/// ```
/// use tengu_rules::Square;
/// // Dai Dai Shogi (17x17): file 17 is Black's left-most column, rank `a` White's back rank.
/// let s = Square::from_file_rank(17, 0, 17).unwrap();
/// assert_eq!(s, Square::new(0, 0));
/// assert_eq!(s.name(17).to_string(), "17a");
/// assert!(Square::from_file_rank(18, 0, 17).is_none());
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(u16);

impl Square {
    /// The square at `col`, `row` (both 0-based, within `0..MAX_SIZE`).
    #[inline]
    pub const fn new(col: usize, row: usize) -> Square {
        Square(((row + GUARD) * STRIDE + col + GUARD) as u16)
    }

    /// The square of Hodges coordinates `file` (1..=size) and rank index `rank` (0 = `a`).
    pub fn from_file_rank(file: usize, rank: usize, size: usize) -> Option<Square> {
        (file >= 1 && file <= size && rank < size).then(|| Square::new(size - file, rank))
    }

    /// 0-based column, 0 = the left-most column as Black sees the board.
    #[inline]
    pub const fn col(self) -> usize {
        self.0 as usize % STRIDE - GUARD
    }

    /// 0-based row, 0 = rank `a`.
    #[inline]
    pub const fn row(self) -> usize {
        self.0 as usize / STRIDE - GUARD
    }

    /// Hodges file number (1 = Black's right-most column).
    #[inline]
    pub const fn file(self, size: usize) -> usize {
        size - self.col()
    }

    /// Index into the padded mailbox (`0..PADDED`).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub(crate) const fn from_index(index: usize) -> Square {
        Square(index as u16)
    }

    /// The cell `delta` mailbox cells away (a guard cell if it leaves the board).
    #[inline]
    pub(crate) const fn offset(self, delta: i16) -> Square {
        Square((self.0 as i16 + delta) as u16)
    }

    /// Chebyshev (king-move) distance between two squares.
    #[inline]
    pub fn distance(self, other: Square) -> usize {
        let dc = self.col().abs_diff(other.col());
        let dr = self.row().abs_diff(other.row());
        dc.max(dr)
    }

    /// `<file><rank>` as in RULES.md §12.1, e.g. `10j`.
    pub fn name(self, size: usize) -> SquareName {
        SquareName {
            file: self.file(size) as u8,
            rank: self.row() as u8,
        }
    }

    /// Every square of a `size` x `size` board, in board reading order (rank `a` first, within
    /// a rank from file `size` down to file 1).
    pub fn all(size: usize) -> impl Iterator<Item = Square> {
        (0..size).flat_map(move |row| (0..size).map(move |col| Square::new(col, row)))
    }
}

/// Text form of a square: see [`Square::name`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SquareName {
    file: u8,
    rank: u8,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file, (b'a' + self.rank) as char)
    }
}

/// Owner-relative directions in the order of the range vectors of RULES.md (clockwise from
/// forward): f, fr, r, br, b, bl, l, fl.
pub const DIRECTION_NAMES: [&str; 8] = ["f", "fr", "r", "br", "b", "bl", "l", "fl"];

/// Mailbox offset of owner-relative direction `dir` (index into [`DIRECTION_NAMES`]) for
/// Black. Black's forward is towards rank `a` (row - 1); Black's left is towards higher file
/// numbers, i.e. lower columns. White's offsets are the negation.
pub(crate) const BLACK_DIRECTION_OFFSETS: [i16; 8] = [
    -(STRIDE as i16),     // f
    -(STRIDE as i16) + 1, // fr
    1,                    // r
    STRIDE as i16 + 1,    // br
    STRIDE as i16,        // b
    STRIDE as i16 - 1,    // bl
    -1,                   // l
    -(STRIDE as i16) - 1, // fl
];

/// Mailbox offset of the owner-relative direction `dir` for `color`.
#[inline]
pub(crate) const fn direction_offset(color: Color, dir: usize) -> i16 {
    match color {
        Color::Black => BLACK_DIRECTION_OFFSETS[dir],
        Color::White => -BLACK_DIRECTION_OFFSETS[dir],
    }
}

/// Mailbox offset of an owner-relative `(forward, left)` displacement for `color`.
#[inline]
pub(crate) const fn relative_offset(color: Color, forward: i16, left: i16) -> i16 {
    let black = -(STRIDE as i16) * forward - left;
    match color {
        Color::Black => black,
        Color::White => -black,
    }
}

/// A move: origin, destination, the squares it captures and the promotion decision, packed in
/// 64 bits. Identity follows RULES.md §2.7: (from, to, set of captured squares) plus, for a
/// move where promotion is optional, whether it promotes.
///
/// Layout: bits 0-9 `from`, 10-19 `to`, 20-29 and 30-39 up to two captured squares other than
/// `to` (0 = none; ascending), bit 40 "captures on `to`", bit 41 "promotes", bit 42 "the
/// promotion was optional", bits 48-55 the cell code the moving piece has after the move.
///
/// ```
/// use tengu_rules::{Position, Variant};
/// let pos = Position::parse("9,k,7/17/17/17/17/17/17/17/8,p,8/8,LN,8/17/17/17/17/17/17/8,K,8 b -").unwrap();
/// let igui = pos.parse_move("9j>9j{9i}").unwrap(); // the Lion takes the Pawn and stays
/// assert!(igui.is_capture() && !igui.is_pass());
/// assert_eq!(igui.to(), igui.from());
/// assert_eq!(igui.captures().map(|s| s.name(17).to_string()).collect::<Vec<_>>(), ["9i"]);
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u64);

const SQ_BITS: u32 = 10;
const SQ_MASK: u64 = (1 << SQ_BITS) - 1;
const CAPTURES_TO: u64 = 1 << 40;
const PROMOTES: u64 = 1 << 41;
const OPTIONAL: u64 = 1 << 42;
const RESULT_SHIFT: u32 = 48;

impl Move {
    /// Builds a move. `side` holds up to two captured squares other than `to`, in any order.
    #[inline]
    pub(crate) fn new(
        from: Square,
        to: Square,
        side: [Option<Square>; 2],
        captures_to: bool,
    ) -> Move {
        let (a, b) = match side {
            [Some(a), Some(b)] if b < a => (b.index() as u64, a.index() as u64),
            [Some(a), Some(b)] => (a.index() as u64, b.index() as u64),
            [Some(a), None] | [None, Some(a)] => (a.index() as u64, 0),
            [None, None] => (0, 0),
        };
        let mut bits = from.index() as u64
            | (to.index() as u64) << SQ_BITS
            | a << (2 * SQ_BITS)
            | b << (3 * SQ_BITS);
        if captures_to {
            bits |= CAPTURES_TO;
        }
        Move(bits)
    }

    #[inline]
    pub fn from(self) -> Square {
        Square::from_index((self.0 & SQ_MASK) as usize)
    }

    #[inline]
    pub fn to(self) -> Square {
        Square::from_index((self.0 >> SQ_BITS & SQ_MASK) as usize)
    }

    /// Captured squares other than the destination (lion and lion-dog moves, igui).
    #[inline]
    pub fn side_captures(self) -> impl Iterator<Item = Square> {
        let a = (self.0 >> (2 * SQ_BITS) & SQ_MASK) as usize;
        let b = (self.0 >> (3 * SQ_BITS) & SQ_MASK) as usize;
        [a, b]
            .into_iter()
            .filter(|&i| i != 0)
            .map(Square::from_index)
    }

    #[inline]
    pub(crate) fn has_side_captures(self) -> bool {
        self.0 >> (2 * SQ_BITS) & SQ_MASK != 0
    }

    /// Whether the piece on the destination is captured.
    #[inline]
    pub fn captures_to(self) -> bool {
        self.0 & CAPTURES_TO != 0
    }

    /// Every captured square, in ascending mailbox order (= board reading order).
    pub fn captures(self) -> impl Iterator<Item = Square> {
        let mut squares = [0usize; 3];
        let mut n = 0;
        for s in self.side_captures() {
            squares[n] = s.index();
            n += 1;
        }
        if self.captures_to() {
            squares[n] = self.to().index();
            n += 1;
        }
        squares[..n].sort_unstable();
        squares.into_iter().take(n).map(Square::from_index)
    }

    #[inline]
    pub fn is_capture(self) -> bool {
        self.0 & (CAPTURES_TO | SQ_MASK << (2 * SQ_BITS)) != 0
    }

    /// A pass: the piece steps out and back without capturing.
    #[inline]
    pub fn is_pass(self) -> bool {
        self.from() == self.to() && !self.is_capture()
    }

    /// Whether the moving piece changes into its promoted form (or by contagion).
    #[inline]
    pub fn promotes(self) -> bool {
        self.0 & PROMOTES != 0
    }

    /// Whether this move is one of a promote / decline pair (RULES.md §4, MDD): it is written
    /// with a `+` or `=` mark.
    #[inline]
    pub fn promotion_optional(self) -> bool {
        self.0 & OPTIONAL != 0
    }

    /// Cell code of the moving piece after the move.
    #[inline]
    pub(crate) fn result_cell(self) -> u8 {
        (self.0 >> RESULT_SHIFT) as u8
    }

    #[inline]
    pub(crate) fn with_result(self, cell: u8, promotes: bool, optional: bool) -> Move {
        let mut bits = self.0 & !(0xFF << RESULT_SHIFT) & !(PROMOTES | OPTIONAL);
        bits |= (cell as u64) << RESULT_SHIFT;
        if promotes {
            bits |= PROMOTES;
        }
        if optional {
            bits |= OPTIONAL;
        }
        Move(bits)
    }

    /// The raw 64-bit encoding (stable within one version of this crate).
    pub fn to_bits(self) -> u64 {
        self.0
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Without the board size only mailbox coordinates can be shown.
        write!(f, "Move({}>{}", self.from().index(), self.to().index())?;
        let caps: Vec<usize> = self.captures().map(Square::index).collect();
        if !caps.is_empty() {
            write!(f, "{{{caps:?}}}")?;
        }
        if self.promotion_optional() {
            f.write_str(if self.promotes() { "+" } else { "=" })?;
        } else if self.promotes() {
            f.write_str("*")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates_round_trip() {
        for size in [17, 19] {
            for sq in Square::all(size) {
                let back = Square::from_file_rank(sq.file(size), sq.row(), size).unwrap();
                assert_eq!(back, sq);
            }
        }
        assert_eq!(Square::new(0, 0).name(17).to_string(), "17a");
        assert_eq!(Square::new(16, 16).name(17).to_string(), "1q");
        assert_eq!(Square::new(18, 18).name(19).to_string(), "1s");
    }

    #[test]
    fn black_forward_goes_towards_rank_a_and_left_towards_higher_files() {
        let sq = Square::from_file_rank(10, 9, 19).unwrap(); // 10j
        let fwd = sq.offset(direction_offset(Color::Black, 0));
        assert_eq!(fwd.name(19).to_string(), "10i");
        let left = sq.offset(direction_offset(Color::Black, 6));
        assert_eq!(left.name(19).to_string(), "11j");
        let white_left = sq.offset(direction_offset(Color::White, 6));
        assert_eq!(white_left.name(19).to_string(), "9j");
        let knight = sq.offset(relative_offset(Color::Black, 2, 1));
        assert_eq!(knight.name(19).to_string(), "11h");
    }

    #[test]
    fn move_packs_and_orders_captures() {
        let a = Square::new(5, 5);
        let b = Square::new(5, 4);
        let to = Square::new(5, 3);
        let m = Move::new(Square::new(5, 6), to, [Some(a), Some(b)], true);
        let caps: Vec<Square> = m.captures().collect();
        assert_eq!(caps, vec![to, b, a]);
        assert!(m.is_capture() && !m.is_pass());
        let p = m.with_result(7, true, true);
        assert!(p.promotes() && p.promotion_optional() && p.result_cell() == 7);
        assert!(Move::new(a, a, [None, None], false).is_pass());
    }
}
