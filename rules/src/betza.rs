//! The plain part of the Betza dialect of RULES.md §2.8: steps, slides and leaps, read into
//! the range vector and jump list of a piece kind (the game files' `range` and `jumps`).
//!
//! Rule options (§8.2, §8.3) give most alternative piece movements as Betza strings; this
//! module turns such a string into data once, when a rule set is applied. Multi-leg moves
//! (`a`, `m`, `c`, `p`: lion, lion-dog and hook powers) are not read here: a rule set states
//! those powers as fields, so a string that uses them is refused.
//!
//! Atoms: `W` `F` (steps), `R` `B` (slides), `K` = `WF`, `Q` = `RB`, leaps `D` `A` `H` `G`
//! and `N` (all eight knight leaps; no direction prefix). A number after `W F R B K Q`
//! limits the range (`R2`). Prefixes are owner-relative:
//! * orthogonal atoms (`W R D H`): `f b l r`, `v` = `fb`, `s` = `lr`, adding up;
//! * diagonal atoms (`F B A G`): `f b l r` select two diagonals, a pair (`fl`, `br`, ...) one;
//! * eight-way atoms (`K Q`): `f` = the three forward directions, `b` the three backward,
//!   `l`/`r` the three on that side, `v` = forward and backward, `s` = left and right.

use crate::config::{Range, UNLIMITED};

/// Movement read from a Betza string: owner-relative ranges in the order of
/// [`crate::types::DIRECTION_NAMES`] (`f fr r br b bl l fl`; 0 none, [`UNLIMITED`] unlimited)
/// and leap offsets `(forward, left)` in squares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Movement {
    pub ranges: [Range; 8],
    pub jumps: Vec<(i8, i8)>,
}

/// Owner-relative unit vectors `(forward, left)` of the eight directions, in range order.
const UNIT: [(i8, i8); 8] = [
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

const F: usize = 0;
const FR: usize = 1;
const R: usize = 2;
const BR: usize = 3;
const B: usize = 4;
const BL: usize = 5;
const L: usize = 6;
const FL: usize = 7;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Geometry {
    Orthogonal,
    Diagonal,
    Both,
}

/// Why a text is not a plain Betza string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BetzaError {
    #[error("empty Betza string")]
    Empty,
    #[error("prefix {prefix:?} at the end has no atom")]
    NoAtom { prefix: String },
    /// `digits`: the range as written after the atom.
    #[error("range {digits:?} after {atom} is not 1..18")]
    Range { atom: char, digits: String },
    #[error("N takes neither prefix nor range here (found {prefix:?}N{digits})")]
    KnightModified { prefix: String, digits: String },
    #[error(
        "{atom:?} is not a plain atom (W F K R B Q D H A G N); multi-leg moves are stated as powers"
    )]
    NotPlain { atom: char },
    #[error("a leap ({atom}) takes no range")]
    LeapRange { atom: char },
    #[error("a step ({atom}) takes no range; use a slide")]
    StepRange { atom: char },
    /// A prefix letter the atom's geometry does not take (`diagonal`: the atom moves
    /// diagonally, which takes only f b l r).
    #[error("prefix letter {letter:?} {} (in {prefix}{atom})", prefix_letters(.diagonal))]
    Prefix {
        letter: char,
        diagonal: bool,
        prefix: String,
        atom: char,
    },
}

/// What a prefix letter must be, for [`BetzaError::Prefix`].
fn prefix_letters(diagonal: &bool) -> &'static str {
    if *diagonal {
        "on a diagonal atom is not one of f b l r"
    } else {
        "is not one of f b l r v s"
    }
}

/// Reads a plain Betza string. Errors name the offending character or atom.
///
/// ```
/// use tengu_rules::betza::parse_betza;
/// let m = parse_betza("R2fF").unwrap(); // the Old Kite (RULES.md §8.2, SSZ)
/// assert_eq!(m.ranges, [2, 1, 2, 0, 2, 0, 2, 1]); // f fr r br b bl l fl
/// assert!(parse_betza("RmasR").is_err()); // multi-leg moves are not plain
/// ```
pub fn parse_betza(text: &str) -> Result<Movement, BetzaError> {
    let mut out = Movement::default();
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Err(BetzaError::Empty);
    }
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i].is_ascii_lowercase() {
            i += 1;
        }
        let prefix: String = chars[start..i].iter().collect();
        let Some(&atom) = chars.get(i) else {
            return Err(BetzaError::NoAtom { prefix });
        };
        i += 1;
        let digits_start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let digits: String = chars[digits_start..i].iter().collect();
        let limit: Option<Range> = if digits.is_empty() {
            None
        } else {
            match digits.parse::<u8>() {
                Ok(n) if (1..=18).contains(&n) => Some(n),
                _ => return Err(BetzaError::Range { atom, digits }),
            }
        };
        let (geometry, slide, leap): (Geometry, bool, u8) = match atom {
            'W' => (Geometry::Orthogonal, false, 0),
            'F' => (Geometry::Diagonal, false, 0),
            'K' => (Geometry::Both, false, 0),
            'R' => (Geometry::Orthogonal, true, 0),
            'B' => (Geometry::Diagonal, true, 0),
            'Q' => (Geometry::Both, true, 0),
            'D' => (Geometry::Orthogonal, false, 2),
            'H' => (Geometry::Orthogonal, false, 3),
            'A' => (Geometry::Diagonal, false, 2),
            'G' => (Geometry::Diagonal, false, 3),
            'N' => {
                if !prefix.is_empty() || limit.is_some() {
                    return Err(BetzaError::KnightModified { prefix, digits });
                }
                for (f, l) in [
                    (2, 1),
                    (2, -1),
                    (1, 2),
                    (1, -2),
                    (-1, 2),
                    (-1, -2),
                    (-2, 1),
                    (-2, -1),
                ] {
                    if !out.jumps.contains(&(f, l)) {
                        out.jumps.push((f, l));
                    }
                }
                continue;
            }
            c => return Err(BetzaError::NotPlain { atom: c }),
        };
        if leap != 0 && limit.is_some() {
            return Err(BetzaError::LeapRange { atom });
        }
        let dirs = directions(&prefix, geometry).map_err(|letter| BetzaError::Prefix {
            letter,
            diagonal: matches!(geometry, Geometry::Diagonal),
            prefix: prefix.clone(),
            atom,
        })?;
        for d in dirs {
            if leap != 0 {
                let (f, l) = UNIT[d];
                let j = (f * leap as i8, l * leap as i8);
                if !out.jumps.contains(&j) {
                    out.jumps.push(j);
                }
            } else {
                let range = if slide {
                    limit.unwrap_or(UNLIMITED)
                } else {
                    if limit.is_some() {
                        return Err(BetzaError::StepRange { atom });
                    }
                    1
                };
                out.ranges[d] = out.ranges[d].max(range);
            }
        }
    }
    Ok(out)
}

/// The directions a prefix selects for an atom of the given geometry; `Err` holds the
/// prefix letter the geometry does not take.
fn directions(prefix: &str, geometry: Geometry) -> Result<Vec<usize>, char> {
    let all: &[usize] = match geometry {
        Geometry::Orthogonal => &[F, R, B, L],
        Geometry::Diagonal => &[FR, BR, BL, FL],
        Geometry::Both => &[F, FR, R, BR, B, BL, L, FL],
    };
    if prefix.is_empty() {
        return Ok(all.to_vec());
    }
    let chars: Vec<char> = prefix.chars().collect();
    let mut out: Vec<usize> = Vec::new();
    let mut add = |ds: &[usize]| {
        for &d in ds {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match geometry {
            Geometry::Orthogonal => match c {
                'f' => add(&[F]),
                'b' => add(&[B]),
                'l' => add(&[L]),
                'r' => add(&[R]),
                'v' => add(&[F, B]),
                's' => add(&[L, R]),
                _ => return Err(c),
            },
            Geometry::Diagonal => {
                if matches!(c, 'f' | 'b') && matches!(next, Some('l' | 'r')) {
                    add(&[match (c, next) {
                        ('f', Some('l')) => FL,
                        ('f', _) => FR,
                        ('b', Some('l')) => BL,
                        _ => BR,
                    }]);
                    i += 2;
                    continue;
                }
                match c {
                    'f' => add(&[FL, FR]),
                    'b' => add(&[BL, BR]),
                    'l' => add(&[FL, BL]),
                    'r' => add(&[FR, BR]),
                    _ => return Err(c),
                }
            }
            Geometry::Both => match c {
                'f' => add(&[F, FL, FR]),
                'b' => add(&[B, BL, BR]),
                'l' => add(&[L, FL, BL]),
                'r' => add(&[R, FR, BR]),
                'v' => add(&[F, B]),
                's' => add(&[L, R]),
                _ => return Err(c),
            },
        }
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    const I: u8 = UNLIMITED;

    #[test]
    fn reads_the_table_strings() {
        assert_eq!(
            parse_betza("BsRvR5").unwrap().ranges,
            [5, I, I, I, 5, I, I, I]
        );
        assert_eq!(
            parse_betza("fRflBbrBbW").unwrap().ranges,
            [I, 0, 0, I, 1, 0, 0, I]
        );
        assert_eq!(
            parse_betza("Q2fQ").unwrap().ranges,
            [I, I, 2, 2, 2, 2, 2, I]
        );
        assert_eq!(
            parse_betza("fsQbQ2").unwrap().ranges,
            [I, I, I, 2, 2, 2, I, I]
        );
        assert_eq!(
            parse_betza("fQsR2bK").unwrap().ranges,
            [I, I, 2, 1, 1, 1, 2, I]
        );
        let po = parse_betza("sWfDbA").unwrap();
        assert_eq!(po.ranges, [0, 0, 1, 0, 0, 0, 1, 0]);
        assert_eq!(po.jumps, vec![(2, 0), (-2, 2), (-2, -2)]);
        assert_eq!(parse_betza("N").unwrap().jumps.len(), 8);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for bad in ["", "RmasR", "fX", "W2", "D2", "fN", "vF", "f", "R0", "xW"] {
            assert!(parse_betza(bad).is_err(), "{bad:?} was read");
        }
    }
}
