//! Check detection (RULES.md §5.3): whether a side's royal pieces can all be captured by one
//! pseudo-legal move. One royal is a question for `attack`; several need the moves of the
//! pieces that could take them together (`movegen`), so this module stands above both.

use crate::attack::can_capture_on;
use crate::board::Board;
use crate::movegen::piece_moves;
use crate::types::{Color, Square};
use crate::variant::{Variant, F_LIONISH};

/// Whether `color` is in check (RULES.md §5.3): the opponent has a pseudo-legal move whose
/// captured set contains all of `color`'s royal pieces.
pub(crate) fn in_check(v: &Variant, b: &Board, color: Color) -> bool {
    // Valid positions have at most two royals (§12.2), but the test is exact for any number:
    // no move captures more than three pieces (§2.5), so four or more can never be taken.
    let mut royals = [Square::new(0, 0); 3];
    let mut count = 0;
    for s in b.royals(color) {
        if count == royals.len() {
            return false;
        }
        royals[count] = s;
        count += 1;
    }
    let royals = &royals[..count];
    match royals {
        [] => return false,
        [only] => return can_capture_on(v, b, color.opposite(), *only),
        _ => {}
    }
    // Several royals: only a lion-type move (from at most three squares away) or a hook that
    // captures twice can take them all at once.
    let by = color.opposite();
    for p in b.special[by.index()].iter() {
        let cell = b.get(p);
        // Lion-type pieces within reach, and hooks that capture twice.
        let lionish = v.info[cell as usize].flags & F_LIONISH != 0
            && royals.iter().all(|&r| p.distance(r) <= 3);
        if !lionish && !v.moves[cell as usize].hook_two_captures {
            continue;
        }
        let mut found = false;
        piece_moves(v, b, p, false, &mut |m| {
            found = found || royals.iter().all(|&r| m.captures().any(|c| c == r));
        });
        if found {
            return true;
        }
    }
    false
}
