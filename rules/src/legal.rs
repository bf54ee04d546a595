//! Legal moves (RULES.md §5.3): pseudo-legal moves that do not leave the mover in check.
//!
//! Most moves cannot change whether the mover is in check, and are accepted without playing
//! them: when the mover has one royal, is not in check and the opponent has no Emperor, a
//! move is decided by the slow test (play it on a copy, look for check) only if it moves a
//! royal, makes one, captures off its destination (lion-type moves can open lines), or starts
//! on a square that may be shielding the royal from a ranging or hook attack.

use crate::attack::{can_capture_on, non_emperor_attacks_with, Vacated};
use crate::board::{Board, SquareSet};
use crate::check::in_check;
use crate::config::LegalityRule;
use crate::movegen::pseudo_legal;
use crate::types::{Color, Move, Square};
use crate::variant::{abs_offset, cell_color, Variant, EMPTY, F_EMPEROR, F_HOOK, F_ROYAL, OFF};

/// What the legality filter of one position needs, computed once per position.
pub(crate) struct Legality {
    pub in_check: bool,
    /// Every move must be tested by playing it.
    slow_all: bool,
    /// Origins whose moves must be tested by playing them.
    shields: SquareSet,
    /// The mover's only royal (fast path only).
    royal: Square,
    /// When that royal is an Emperor (hundreds of moves): the empty squares the opponent
    /// could capture on once the Emperor has left its square.
    emperor_unsafe: Option<SquareSet>,
    /// `LEGALITY=PSEUDO_LEGAL` (§5.3's fast mode): what the slow test answers instead of
    /// playing the move: every move is legal, none once the mover's last royal is gone.
    pseudo_legal: Option<bool>,
}

/// A square that is never a move's origin (outside the mailbox).
const NOWHERE: Square = Square::from_index(u16::MAX as usize);

impl Legality {
    pub fn new(v: &Variant, b: &Board, side: Color) -> Legality {
        if v.rules().legality == LegalityRule::PseudoLegal {
            // Resolved once per position: the default mode's fast path is untouched.
            let royal_lost = b.royals(side).next().is_none();
            return Legality {
                in_check: in_check(v, b, side),
                slow_all: royal_lost,
                shields: SquareSet::default(),
                royal: NOWHERE,
                emperor_unsafe: None,
                pseudo_legal: Some(!royal_lost),
            };
        }
        let opp = side.opposite();
        let mut royals = b.royals(side);
        let royal = royals.next();
        let single = royal.is_some() && royals.next().is_none();
        let enemy_emperor = b.special[opp.index()]
            .iter()
            .any(|s| v.info[b.get(s) as usize].flags & F_EMPEROR != 0);
        let Some(royal) = royal.filter(|_| single && !enemy_emperor) else {
            return Legality {
                in_check: in_check(v, b, side),
                slow_all: true,
                shields: SquareSet::default(),
                royal: Square::new(0, 0),
                emperor_unsafe: None,
                pseudo_legal: None,
            };
        };
        if can_capture_on(v, b, opp, royal) {
            return Legality {
                in_check: true,
                slow_all: true,
                shields: SquareSet::default(),
                royal,
                emperor_unsafe: None,
                pseudo_legal: None,
            };
        }
        let enemy_hooks: SquareSet = {
            let mut set = SquareSet::default();
            for s in b.special[opp.index()].iter() {
                if v.info[b.get(s) as usize].flags & F_HOOK != 0 {
                    set.insert(s);
                }
            }
            set
        };
        // A hook that captures twice (a rule option) turns on any piece of ours: a move onto
        // its ray can open a line to the royal, so every move is tested by playing it.
        if enemy_hooks
            .iter()
            .any(|h| v.moves[b.get(h) as usize].hook_two_captures)
        {
            return Legality {
                in_check: false,
                slow_all: true,
                shields: SquareSet::default(),
                royal,
                emperor_unsafe: None,
                pseudo_legal: None,
            };
        }
        let mut shields = SquareSet::default();
        for d in 0..8 {
            let step = abs_offset(d);
            let (first, distance) = first_piece(b, royal, step);
            let c = b.get(first);
            if c == OFF || cell_color(c) != side {
                continue;
            }
            if !enemy_hooks.is_empty() {
                shields.insert(first);
                continue;
            }
            let (second, far) = first_piece(b, first, step);
            let c2 = b.get(second);
            // The attacker moves towards the royal: direction d reversed.
            if c2 != OFF
                && cell_color(c2) == opp
                && v.info[c2 as usize].attack_range[(d + 4) % 8] as usize >= distance + far
            {
                shields.insert(first);
            }
        }
        for h in enemy_hooks.iter() {
            if let Some(dirs) = v.moves[b.get(h) as usize].hook {
                for step in dirs {
                    let (first, _) = first_piece(b, h, step);
                    let c = b.get(first);
                    if c != OFF && cell_color(c) == side {
                        shields.insert(first);
                    }
                }
            }
        }
        let emperor_unsafe = (v.info[b.get(royal) as usize].flags & F_EMPEROR != 0).then(|| {
            // Every destination of the opponent's moves with the Emperor gone: with no enemy
            // Emperor, a square is attacked exactly when some enemy move can end there.
            let mut without = b.clone();
            without.take(royal);
            let mut unsafe_squares = SquareSet::default();
            pseudo_legal(v, &without, opp, false, &mut |m| {
                unsafe_squares.insert(m.to())
            });
            unsafe_squares
        });
        Legality {
            in_check: false,
            slow_all: false,
            shields,
            royal,
            emperor_unsafe,
            pseudo_legal: None,
        }
    }

    /// Whether the pseudo-legal move `m` of `side` is legal.
    #[inline]
    pub fn is_legal(&self, v: &Variant, b: &Board, side: Color, m: Move) -> bool {
        if !self.slow_all && !m.has_side_captures() {
            if m.from() == self.royal {
                // The only royal moves (and perhaps becomes an Emperor): is its new square
                // attacked once its old one is empty? The opponent has no Emperor here.
                if v.info[m.result_cell() as usize].flags & F_ROYAL != 0 {
                    if let Some(unsafe_squares) = &self.emperor_unsafe {
                        if !m.is_capture() {
                            return !unsafe_squares.contains(m.to());
                        }
                    }
                    return !non_emperor_attacks_with(
                        v,
                        b,
                        side.opposite(),
                        m.to(),
                        Vacated::one(m.from()),
                    );
                }
            } else if !self.shields.contains(m.from())
                && v.info[m.result_cell() as usize].flags & F_ROYAL == 0
            {
                return true;
            }
        }
        if let Some(legal) = self.pseudo_legal {
            return legal;
        }
        if m.is_pass() {
            return !self.in_check;
        }
        let mut after = b.clone();
        apply(v, &mut after, m);
        !in_check(v, &after, side)
    }
}

/// The first occupied or guard cell from `s` along `step`, and its distance.
#[inline]
fn first_piece(b: &Board, s: Square, step: i16) -> (Square, usize) {
    let mut t = s;
    let mut n = 0;
    loop {
        t = t.offset(step);
        n += 1;
        if b.get(t) != EMPTY {
            return (t, n);
        }
    }
}

/// Plays `m` on a bare board (no side to move): captures, then the moving piece's new form.
pub(crate) fn apply(v: &Variant, b: &mut Board, m: Move) {
    if m.is_pass() {
        return;
    }
    b.take(m.from());
    for s in m.captures() {
        b.take(s);
    }
    b.put(v, m.to(), m.result_cell());
}
