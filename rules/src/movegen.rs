//! Pseudo-legal move generation (RULES.md §2, §4, §6.3, §6.4, §7.4), one piece at a time,
//! through a callback: nothing is allocated.

use crate::attack::emperor_can_capture;
use crate::board::{Board, SquareSet};
use crate::config::{PromotionRule, PromotionTrigger};
use crate::types::{Move, Square, STRIDE};
use crate::variant::{cell_code, cell_color, Variant, T_BLOCKED, T_EMPTY, T_ENEMY};

/// Every pseudo-legal move of the piece on `from`, with its promotion decided (both versions
/// of an optional promotion). `allow_pass`: whether §7.4 (c) and the pass rule allow a pass.
#[inline]
pub(crate) fn piece_moves(
    v: &Variant,
    b: &Board,
    from: Square,
    allow_pass: bool,
    sink: &mut impl FnMut(Move),
) {
    let cell = b.get(from);
    let color = cell_color(cell);
    let ms = &v.moves[cell as usize];
    let target = &v.target[color.index()];
    let mut g = PieceGen {
        v,
        b,
        from,
        cell,
        target,
        seen: SquareSet::default(),
        dedupe: ms.dedupe,
        sink,
    };

    for &(offset, range) in &ms.slides {
        let mut t = from;
        let mut left = range;
        loop {
            t = t.offset(offset);
            match target[b.get(t) as usize] {
                T_EMPTY => g.plain(t, false),
                T_ENEMY => {
                    g.plain(t, true);
                    break;
                }
                _ => break,
            }
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    for &offset in &ms.jumps {
        let t = from.offset(offset);
        match target[b.get(t) as usize] {
            T_EMPTY => g.plain(t, false),
            T_ENEMY => g.plain(t, true),
            _ => {}
        }
    }
    let mut can_pass = false;
    if ms.lion {
        can_pass |= g.lion();
    }
    for &offset in &ms.lion_dog {
        can_pass |= g.lion_dog_ray(offset, ms.lion);
    }
    if let Some(dirs) = ms.hook {
        g.hook(dirs, ms.hook_two_captures);
    }
    if ms.emperor {
        g.emperor();
    }
    if can_pass && allow_pass {
        (g.sink)(Move::new(from, from, [None, None], false).with_result(cell, false, false));
    }
}

struct PieceGen<'a, F> {
    v: &'a Variant,
    b: &'a Board,
    from: Square,
    cell: u8,
    target: &'a [u8; 256],
    /// Destinations of single-square moves already produced (pieces with several move sources).
    seen: SquareSet,
    dedupe: bool,
    sink: &'a mut F,
}

impl<F: FnMut(Move)> PieceGen<'_, F> {
    #[inline]
    fn tgt(&self, s: Square) -> u8 {
        self.target[self.b.get(s) as usize]
    }

    /// A move to `to` capturing at most the piece standing there.
    #[inline]
    fn plain(&mut self, to: Square, capture: bool) {
        if self.dedupe && !self.seen.insert_new(to) {
            return;
        }
        let m = Move::new(self.from, to, [None, None], capture);
        if capture {
            self.finish(m);
        } else {
            (self.sink)(m.with_result(self.cell, false, false));
        }
    }

    /// A lion or lion-dog move with captures besides (or instead of) the destination.
    #[inline]
    fn multi(&mut self, to: Square, side: [Option<Square>; 2], captures_to: bool) {
        self.finish(Move::new(self.from, to, side, captures_to));
    }

    /// Decides the promotion of a capturing move (§4, §6.3) and emits it.
    fn finish(&mut self, m: Move) {
        let v = self.v;
        // `PROMOTION_TRIGGER=QBOARD`: only the victim on the final square counts.
        let final_only = v.rules().promotion_trigger == PromotionTrigger::FinalSquare;
        if final_only && !m.captures_to() {
            (self.sink)(m.with_result(self.cell, false, false));
            return;
        }
        let color = cell_color(self.cell);
        let mover = &v.info[self.cell as usize];
        let mut any_promoted = false;
        let mut contagion = 0u8;
        let mut contagion_rank = 0usize;
        let to = m.to();
        let mut consider = |s: Square, b: &Board| {
            let victim = &v.info[b.get(s) as usize];
            any_promoted |= victim.promoted;
            if victim.contagion != 0 {
                // Deciding victim: the one on the destination, else the farthest (§6.3).
                let rank = if s == to {
                    usize::MAX
                } else {
                    s.distance(self.from)
                };
                if rank > contagion_rank || contagion == 0 {
                    contagion_rank = rank;
                    contagion = victim.contagion;
                }
            }
        };
        if m.captures_to() {
            consider(to, self.b);
        }
        if !final_only {
            for s in m.side_captures() {
                consider(s, self.b);
            }
        }
        if contagion != 0 && !mover.contagion_immune {
            let result = cell_code(contagion - 1, color);
            (self.sink)(m.with_result(result, result != self.cell, false));
        } else if mover.promotion != 0 {
            let optional =
                v.rules().promotion == PromotionRule::OptionalUnlessPromotedVictim && !any_promoted;
            // No second Prince (§4, v1.2): a promotion that would give the side a second
            // royal of a family it already owns is unavailable. An optional one leaves only
            // the declining move (still marked `=`); a mandatory one leaves no move at all.
            let available = !self.owns_royal_of_family(mover.promotion);
            if available {
                (self.sink)(m.with_result(mover.promotion, true, optional));
            }
            if optional {
                (self.sink)(m.with_result(self.cell, false, true));
            }
        } else {
            (self.sink)(m.with_result(self.cell, false, false));
        }
    }

    /// Whether the mover's side already owns, on another square than the mover's, a royal of
    /// the family of the piece `cell` (0 if `cell` is not royal: never).
    #[inline]
    fn owns_royal_of_family(&self, cell: u8) -> bool {
        let family = self.v.info[cell as usize].royal_family;
        family != 0
            && self.b.royals(cell_color(self.cell)).any(|s| {
                s != self.from && self.v.info[self.b.get(s) as usize].royal_family == family
            })
    }

    /// Whether an adjacent enemy lets the piece pass (`PASS=QBOARD`; by default only an
    /// empty neighbour does, §7.4 (a)). Asked only when an enemy stands next to a lion-type
    /// piece, so the default path pays nothing for it.
    #[inline]
    fn pass_beside_enemy(&self) -> bool {
        self.v.rules().pass.beside_enemy()
    }

    /// Lion power (§2.4). Returns whether a pass is possible (an adjacent square is empty,
    /// or under `PASS=QBOARD` holds an enemy).
    fn lion(&mut self) -> bool {
        let from = self.from;
        let mut can_pass = false;
        for dr in -2i16..=2 {
            for dc in -2i16..=2 {
                if dr == 0 && dc == 0 {
                    continue;
                }
                let t = from.offset(dr * STRIDE as i16 + dc);
                match self.tgt(t) {
                    T_EMPTY => {
                        can_pass |= dr.abs() <= 1 && dc.abs() <= 1;
                        self.plain(t, false)
                    }
                    T_ENEMY => {
                        can_pass |= dr.abs() <= 1 && dc.abs() <= 1 && self.pass_beside_enemy();
                        self.plain(t, true)
                    }
                    _ => {}
                }
            }
        }
        for &o1 in &KING_OFFSETS {
            let a = from.offset(o1);
            if self.tgt(a) != T_ENEMY {
                continue;
            }
            for &o2 in &KING_OFFSETS {
                let b2 = a.offset(o2);
                if b2 == from {
                    self.multi(from, [Some(a), None], false);
                    continue;
                }
                match self.tgt(b2) {
                    T_EMPTY => self.multi(b2, [Some(a), None], false),
                    T_ENEMY => self.multi(b2, [Some(a), None], true),
                    _ => {}
                }
            }
        }
        can_pass
    }

    /// Lion-dog power along one ray (§2.5 rows 1-9). Rows 4 and 6 are lion double steps, so a
    /// piece that also has lion power already made them. Returns whether S1 allows a pass
    /// (empty, or under `PASS=QBOARD` also enemy).
    fn lion_dog_ray(&mut self, offset: i16, has_lion: bool) -> bool {
        let s1 = self.from.offset(offset);
        let s2 = s1.offset(offset);
        let s3 = s2.offset(offset);
        let (t1, t2, t3) = (self.tgt(s1), self.tgt(s2), self.tgt(s3));
        if t1 != T_BLOCKED {
            self.plain(s1, t1 == T_ENEMY);
        }
        if t2 != T_BLOCKED {
            self.plain(s2, t2 == T_ENEMY);
        }
        if t3 != T_BLOCKED {
            self.plain(s3, t3 == T_ENEMY);
        }
        if t1 == T_ENEMY && !has_lion {
            self.multi(self.from, [Some(s1), None], false);
            if t2 != T_BLOCKED {
                self.multi(s2, [Some(s1), None], t2 == T_ENEMY);
            }
        }
        if t2 == T_ENEMY {
            if t1 != T_BLOCKED {
                self.multi(s1, [Some(s2), None], t1 == T_ENEMY);
            }
            if t3 != T_BLOCKED {
                self.multi(s3, [Some(s2), None], t3 == T_ENEMY);
            }
        }
        if t1 == T_ENEMY && t2 != T_BLOCKED && t3 != T_BLOCKED {
            let second = (t2 == T_ENEMY).then_some(s2);
            self.multi(s3, [Some(s1), second], t3 == T_ENEMY);
        }
        t1 == T_EMPTY || (t1 == T_ENEMY && self.pass_beside_enemy())
    }

    /// Hook moves (§2.3): slide, optionally turn 90 degrees once on an empty square; with
    /// `two_captures` (§8.2's "moves twice as a rook") also on a square where it captures,
    /// the second leg ending on an empty square or with a second capture.
    fn hook(&mut self, dirs: [i16; 4], two_captures: bool) {
        for (i, &d1) in dirs.iter().enumerate() {
            let turns = [dirs[(i + 1) % 4], dirs[(i + 3) % 4]];
            let mut x = self.from;
            loop {
                x = x.offset(d1);
                match self.tgt(x) {
                    T_EMPTY => {
                        self.plain(x, false);
                        for &d2 in &turns {
                            let mut t = x;
                            loop {
                                t = t.offset(d2);
                                match self.tgt(t) {
                                    T_EMPTY => self.plain(t, false),
                                    T_ENEMY => {
                                        self.plain(t, true);
                                        break;
                                    }
                                    _ => break,
                                }
                            }
                        }
                    }
                    T_ENEMY => {
                        self.plain(x, true);
                        if two_captures {
                            for &d2 in &turns {
                                let mut t = x;
                                loop {
                                    t = t.offset(d2);
                                    match self.tgt(t) {
                                        T_EMPTY => self.multi(t, [Some(x), None], false),
                                        T_ENEMY => {
                                            self.multi(t, [Some(x), None], true);
                                            break;
                                        }
                                        _ => break,
                                    }
                                }
                            }
                        }
                        break;
                    }
                    _ => break,
                }
            }
        }
    }

    /// The Emperor (§6.4): any square not friendly; a capture only of an unprotected piece.
    fn emperor(&mut self) {
        for &t in &self.v.squares {
            if t == self.from {
                continue;
            }
            match self.tgt(t) {
                T_EMPTY => self.plain(t, false),
                T_ENEMY if emperor_can_capture(self.v, self.b, self.from, t) => self.plain(t, true),
                _ => {}
            }
        }
    }
}

const KING_OFFSETS: [i16; 8] = [
    -(STRIDE as i16) - 1,
    -(STRIDE as i16),
    -(STRIDE as i16) + 1,
    -1,
    1,
    STRIDE as i16 - 1,
    STRIDE as i16,
    STRIDE as i16 + 1,
];

/// Every pseudo-legal move of `color`'s pieces.
pub(crate) fn pseudo_legal(
    v: &Variant,
    b: &Board,
    color: crate::types::Color,
    allow_pass: bool,
    sink: &mut impl FnMut(Move),
) {
    for from in b.occupied[color.index()].iter() {
        piece_moves(v, b, from, allow_pass, sink);
    }
}
