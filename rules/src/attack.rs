//! "Can side Y capture on square s?" (RULES.md §5.3, §6.4, §11); check detection builds on
//! it (`check`), as does the Emperor's move generation (`movegen`).
//!
//! Attacks are found backwards from the target square: unblockable captures (jumps, the lion's
//! 5x5 area, the lion dog's three squares per ray) through per-offset cell masks, ranging
//! captures by walking the 8 rays out of the target, hook captures through the two possible
//! turning squares, and Emperor captures by the recursive protection rule of §6.4.

use crate::board::Board;
use crate::types::{Color, Square, STRIDE};
use crate::variant::{abs_offset, cell_color, Variant, EMPTY, F_EMPEROR, F_HOOK, OFF};

/// Squares to read as empty although the board has a piece there: the origin of a move being
/// tested, so that attacks can be checked without copying the board.
#[derive(Copy, Clone)]
pub(crate) struct Vacated([Square; 2]);

impl Vacated {
    pub const NONE: Vacated = Vacated([NOWHERE, NOWHERE]);

    pub fn one(s: Square) -> Vacated {
        Vacated([s, NOWHERE])
    }

    pub fn two(a: Square, b: Square) -> Vacated {
        Vacated([a, b])
    }

    #[inline]
    fn cell(self, b: &Board, s: Square) -> u8 {
        if s == self.0[0] || s == self.0[1] {
            EMPTY
        } else {
            b.get(s)
        }
    }
}

/// A square index outside the mailbox: never equal to a real cell.
const NOWHERE: Square = Square::from_index(u16::MAX as usize);

/// Whether a piece of `by` other than an Emperor has a pseudo-legal move capturing on `s`.
/// `s` may hold anything; only the geometry and the blockers matter.
pub(crate) fn non_emperor_attacks(v: &Variant, b: &Board, by: Color, s: Square) -> bool {
    non_emperor_attacks_with(v, b, by, s, Vacated::NONE)
}

/// [`non_emperor_attacks`] with the `vacated` squares read as empty.
pub(crate) fn non_emperor_attacks_with(
    v: &Variant,
    b: &Board,
    by: Color,
    s: Square,
    vacated: Vacated,
) -> bool {
    for (offset, mask) in &v.reverse_leaps[by.index()] {
        let c = vacated.cell(b, s.offset(-offset)) as usize;
        if mask[c / 64] >> (c % 64) & 1 != 0 {
            return true;
        }
    }
    for d in 0..8 {
        let step = -abs_offset(d);
        let mut t = s;
        let mut distance = 1u8;
        loop {
            t = t.offset(step);
            let c = vacated.cell(b, t);
            if c == EMPTY {
                distance = distance.saturating_add(1);
                continue;
            }
            if c != OFF && cell_color(c) == by && v.info[c as usize].attack_range[d] >= distance {
                return true;
            }
            break;
        }
    }
    for h in b.special[by.index()].iter() {
        let cell = vacated.cell(b, h);
        if cell != EMPTY
            && v.info[cell as usize].flags & F_HOOK != 0
            && hook_reaches_by_turning(v, b, h, s, vacated)
        {
            return true;
        }
    }
    false
}

/// Whether `by` has any pseudo-legal move capturing on `s` (§6.4's "able to capture").
pub(crate) fn can_capture_on(v: &Variant, b: &Board, by: Color, s: Square) -> bool {
    if non_emperor_attacks(v, b, by, s) {
        return true;
    }
    b.special[by.index()].iter().any(|e| {
        v.info[b.get(e) as usize].flags & F_EMPEROR != 0 && emperor_can_capture(v, b, e, s)
    })
}

/// Whether the Emperor on `e` may capture the enemy piece on `s`: only if that piece is not
/// protected (RULES.md §6.4, including the rule for a protecting enemy Emperor).
pub(crate) fn emperor_can_capture(v: &Variant, b: &Board, e: Square, s: Square) -> bool {
    let mover = cell_color(b.get(e));
    let defender = mover.opposite();
    // P': the Emperor has left e and stands on s (what stands on s does not matter for
    // attacks on s).
    if non_emperor_attacks_with(v, b, defender, s, Vacated::one(e)) {
        return false;
    }
    for e2 in b.special[defender.index()].iter() {
        if e2 == s || v.info[b.get(e2) as usize].flags & F_EMPEROR == 0 {
            continue;
        }
        // P'': the defending Emperor recaptures on s; it counts if nothing can take it there.
        if !non_emperor_attacks_with(v, b, mover, s, Vacated::two(e, e2)) {
            return false;
        }
    }
    true
}

/// Whether the hook piece on `h` reaches `s` by turning once on an empty square (the straight
/// part of a hook move is found by the ray walk).
fn hook_reaches_by_turning(v: &Variant, b: &Board, h: Square, s: Square, vacated: Vacated) -> bool {
    let size = v.size() as i32;
    let (hc, hr, sc, sr) = (
        h.col() as i32,
        h.row() as i32,
        s.col() as i32,
        s.row() as i32,
    );
    let hook_cell = vacated.cell(b, h);
    let diagonal = v.moves[hook_cell as usize]
        .hook
        .is_some_and(|dirs| dirs[0].abs() != STRIDE as i16 && dirs[0].abs() != 1);
    // A two-capture hook also turns on a square holding a piece of the other side.
    let turns_on_capture = v.moves[hook_cell as usize].hook_two_captures;
    let hook_color = cell_color(hook_cell);
    let mut turns = [(0i32, 0i32); 2];
    let count;
    if diagonal {
        // Intersections of a diagonal through h with the other diagonal through s.
        let (hd, hs, sd, ss) = (hc - hr, hc + hr, sc - sr, sc + sr);
        if (hd - sd) % 2 != 0 {
            return false;
        }
        turns[0] = ((hd + ss) / 2, (ss - hd) / 2);
        turns[1] = ((sd + hs) / 2, (hs - sd) / 2);
        count = 2;
    } else {
        turns[0] = (hc, sr);
        turns[1] = (sc, hr);
        count = 2;
    }
    for &(c, r) in &turns[..count] {
        if c < 0 || r < 0 || c >= size || r >= size {
            continue;
        }
        let x = Square::new(c as usize, r as usize);
        let cx = vacated.cell(b, x);
        if x == h
            || x == s
            || (cx != EMPTY && !(turns_on_capture && cx != OFF && cell_color(cx) != hook_color))
        {
            continue;
        }
        if line_clear(b, h, x, vacated) && line_clear(b, x, s, vacated) {
            return true;
        }
    }
    false
}

/// Whether every square strictly between `a` and `c` (on one line) is empty.
fn line_clear(b: &Board, a: Square, c: Square, vacated: Vacated) -> bool {
    let dc = (c.col() as i16 - a.col() as i16).signum();
    let dr = (c.row() as i16 - a.row() as i16).signum();
    let step = dr * STRIDE as i16 + dc;
    let mut t = a.offset(step);
    while t != c {
        if vacated.cell(b, t) != EMPTY {
            return false;
        }
        t = t.offset(step);
    }
    true
}
