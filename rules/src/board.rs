//! The mailbox board: cells, per-colour bitsets and the incremental Zobrist hash.

use crate::types::{Color, Square, PADDED};
use crate::variant::{cell_color, Variant, EMPTY, F_ROYAL, F_SPECIAL, OFF};

/// Words in a bitset over the padded mailbox (625 cells -> 640 bits).
pub(crate) const WORDS: usize = PADDED.div_ceil(64);

/// A set of mailbox squares.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct SquareSet(pub [u64; WORDS]);

impl SquareSet {
    #[inline]
    pub fn insert(&mut self, s: Square) {
        self.0[s.index() / 64] |= 1 << (s.index() % 64);
    }

    #[inline]
    pub fn remove(&mut self, s: Square) {
        self.0[s.index() / 64] &= !(1 << (s.index() % 64));
    }

    #[inline]
    pub fn contains(&self, s: Square) -> bool {
        self.0[s.index() / 64] >> (s.index() % 64) & 1 != 0
    }

    /// Inserts `s`; returns false if it was already present.
    #[inline]
    pub fn insert_new(&mut self, s: Square) -> bool {
        let word = &mut self.0[s.index() / 64];
        let bit = 1 << (s.index() % 64);
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[allow(dead_code)]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Squares in ascending mailbox order (= board reading order).
    #[inline]
    pub fn iter(&self) -> SquareIter {
        SquareIter {
            words: self.0,
            word: 0,
        }
    }
}

pub(crate) struct SquareIter {
    words: [u64; WORDS],
    word: usize,
}

impl Iterator for SquareIter {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        while self.word < WORDS {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(Square::from_index(
                    self.word * 64 + w.trailing_zeros() as usize,
                ));
            }
            self.word += 1;
        }
        None
    }
}

/// Zobrist key of a piece on a square. Keys come from a fixed mixing function (splitmix64)
/// instead of a table: a table over 625 cells x 255 codes would be 1.3 MB of cache pressure.
#[inline]
pub(crate) fn piece_key(s: Square, cell: u8) -> u64 {
    crate::hash::splitmix64((s.index() as u64) << 8 | cell as u64)
}

/// Zobrist key XORed in when White is to move.
pub(crate) const WHITE_TO_MOVE_KEY: u64 = 0x6A09_E667_F3BC_C909;

/// Board contents and the derived sets kept in step with them.
#[derive(Clone)]
pub(crate) struct Board {
    pub cells: [u8; PADDED],
    /// Squares occupied by each colour.
    pub occupied: [SquareSet; 2],
    /// Squares of each colour's hooks, emperors and lion-type pieces (check detection).
    pub special: [SquareSet; 2],
    /// Squares of each colour's royal pieces.
    pub royal: [SquareSet; 2],
    /// XOR of the piece keys (side to move not included).
    pub hash: u64,
}

impl Board {
    /// An empty board of `variant`'s size (every other cell a guard).
    pub fn empty(variant: &Variant) -> Board {
        let mut cells = [OFF; PADDED];
        for s in &variant.squares {
            cells[s.index()] = EMPTY;
        }
        Board {
            cells,
            occupied: Default::default(),
            special: Default::default(),
            royal: Default::default(),
            hash: 0,
        }
    }

    #[inline]
    pub fn get(&self, s: Square) -> u8 {
        self.cells[s.index()]
    }

    /// Puts `cell` (a piece code) on the empty square `s`.
    #[inline]
    pub fn put(&mut self, variant: &Variant, s: Square, cell: u8) {
        debug_assert_eq!(self.cells[s.index()], EMPTY);
        self.cells[s.index()] = cell;
        let c = cell_color(cell).index();
        self.occupied[c].insert(s);
        let flags = variant.info[cell as usize].flags;
        if flags & F_SPECIAL != 0 {
            self.special[c].insert(s);
        }
        if flags & F_ROYAL != 0 {
            self.royal[c].insert(s);
        }
        self.hash ^= piece_key(s, cell);
    }

    /// Removes and returns the piece on the occupied square `s`.
    #[inline]
    pub fn take(&mut self, s: Square) -> u8 {
        let cell = self.cells[s.index()];
        debug_assert!(cell != EMPTY && cell != OFF);
        self.cells[s.index()] = EMPTY;
        let c = cell_color(cell).index();
        self.occupied[c].remove(s);
        self.special[c].remove(s);
        self.royal[c].remove(s);
        self.hash ^= piece_key(s, cell);
        cell
    }

    /// The hash recomputed from scratch (tests compare it with the incremental one).
    pub fn recompute_hash(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for s in self.occupied[c].iter() {
                h ^= piece_key(s, self.cells[s.index()]);
            }
        }
        h
    }

    /// Royal squares of `color`: at most two in valid positions.
    #[inline]
    pub fn royals(&self, color: Color) -> SquareIter {
        self.royal[color.index()].iter()
    }
}
