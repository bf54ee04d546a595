//! The book's frozen 128-bit position key.
//!
//! Two independent 64-bit Zobrist-style halves, each a XOR over the occupied squares of
//! splitmix64 of (square, piece type, colour) under its own seed, plus the side to move and
//! the pass flag (RULES.md: a pass changes what may follow, so it is part of the position).
//! The scheme is frozen: books store [`KEY_SCHEME`] and a book of another scheme is refused.
//! It does not depend on the rules crate's own (64-bit, pass-less) key, which may change.

use std::fmt;

use serde::{Deserialize, Serialize};
use tengu_rules::hash::splitmix64;
use tengu_rules::{Color, Position, Square};

/// Version of the key function; stored in every book header.
pub const KEY_SCHEME: u32 = 1;

const SEEDS: [u64; 2] = [0x7465_6e67_755f_626b, 0x9e6c_63d0_676a_9a99];
const SIDE_WHITE: u64 = 1 << 40;
const AFTER_PASS: u64 = 2 << 40;

/// A position's book key.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BookKey(pub u128);

fn feature(seed: u64, f: u64) -> u64 {
    splitmix64(seed ^ splitmix64(f))
}

impl BookKey {
    /// The key of `pos`.
    pub fn of(pos: &Position) -> BookKey {
        let size = pos.size();
        let mut halves = [0u64; 2];
        for (h, &seed) in halves.iter_mut().zip(&SEEDS) {
            for s in Square::all(size) {
                if let Some(p) = pos.piece_at(s) {
                    // Square in board order, piece type, colour: distinct features.
                    let square = (s.row() * size + s.col()) as u64;
                    let colour = (p.color == Color::White) as u64;
                    *h ^= feature(seed, (square << 12) | ((p.ty as u64) << 1) | colour);
                }
            }
            if pos.side_to_move() == Color::White {
                *h ^= feature(seed, SIDE_WHITE);
            }
            if pos.after_pass() {
                *h ^= feature(seed, AFTER_PASS);
            }
        }
        BookKey(((halves[0] as u128) << 64) | halves[1] as u128)
    }

    /// 32 lower-case hex digits.
    pub fn hex(self) -> String {
        format!("{:032x}", self.0)
    }

    /// Parses [`BookKey::hex`] (an optional `0x` prefix allowed).
    pub fn parse_hex(text: &str) -> Option<BookKey> {
        let t = text.trim().trim_start_matches("0x");
        (t.len() == 32)
            .then(|| u128::from_str_radix(t, 16).ok())
            .flatten()
            .map(BookKey)
    }
}

impl fmt::Debug for BookKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BookKey({})", self.hex())
    }
}

impl fmt::Display for BookKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::{Game, Variant};

    #[test]
    fn keys_separate_positions_and_agree_on_transpositions() {
        let v = Variant::dai_dai();
        let start = Position::initial(v.clone());
        let k0 = BookKey::of(&start);
        assert_eq!(BookKey::parse_hex(&k0.hex()), Some(k0));
        let moves = start.legal_move_list();
        // Distinct positions get distinct keys (two passes by different pieces give one
        // position, so positions are compared, not moves).
        let mut seen = std::collections::HashMap::new();
        for &m in &moves {
            let mut p = start.clone();
            p.play(m);
            let key = BookKey::of(&p);
            let text = p.to_string();
            assert_eq!(seen.entry(key).or_insert_with(|| text.clone()), &text);
            assert_ne!(key, k0);
        }
        assert!(seen.len() > 40);
        // Two move orders of two Black moves far apart (and one White move between)
        // meet in one key: a transposition.
        let (a, b) = (moves[0], moves[moves.len() - 1]);
        let mut g = Game::new(start.clone());
        g.play(a).unwrap();
        let c = g.position().legal_move_list()[0];
        g.play(c).unwrap();
        g.play(b).unwrap();
        let mut h = Game::new(start.clone());
        h.play(b).unwrap();
        h.play(c).unwrap();
        h.play(a).unwrap();
        assert_eq!(BookKey::of(g.position()), BookKey::of(h.position()));
        assert_ne!(BookKey::of(g.position()), k0);
    }

    #[test]
    fn the_key_function_is_frozen() {
        // Changing the scheme needs a KEY_SCHEME bump: books store keys.
        let k = BookKey::of(&Position::initial(Variant::dai_dai()));
        assert_eq!(k, BookKey::of(&Position::initial(Variant::dai_dai())));
        let m = BookKey::of(&Position::initial(Variant::maka_dai_dai()));
        assert_ne!(k, m);
        // The start of Dai Dai Shogi, as stored in books since key scheme 1.
        assert_eq!(k.hex(), "42738f5f2ad06bd273a15052475e2019");
    }
}
