//! A game position: board, side to move and the "previous move was a pass" bit (§5.5, §7.4).

use std::fmt;
use std::sync::Arc;

use crate::attack::can_capture_on;
use crate::board::Board;
use crate::board::WHITE_TO_MOVE_KEY as WHITE_KEY;
use crate::check::in_check;
use crate::legal::Legality;
use crate::movegen::{piece_moves, pseudo_legal};
use crate::types::{Color, Move, Square};
use crate::variant::{cell_code, cell_color, Variant, EMPTY, F_ROYAL};

/// A piece on the board: owner and piece type (an index into [`Variant::piece_types`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub ty: usize,
}

/// What [`Position::play`] needs to take a move back.
#[derive(Copy, Clone, Debug)]
pub struct Undo {
    moved: u8,
    captured: [(Square, u8); 3],
    captured_len: u8,
    after_pass: bool,
}

/// A position of one variant. Cheap to clone (about 1.5 KB plus an `Arc`).
///
/// ```
/// use tengu_rules::{Color, Position, Variant};
/// let mut pos = Position::initial(Variant::maka_dai_dai());
/// let m = pos.legal_move_list()[0];
/// let undo = pos.play(m);
/// assert_eq!(pos.side_to_move(), Color::White);
/// pos.unplay(m, undo);
/// assert_eq!(pos, Position::initial(Variant::maka_dai_dai()));
/// ```
#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    pub(crate) board: Board,
    side: Color,
    after_pass: bool,
}

impl Position {
    /// The initial position of `variant` (Black to move).
    ///
    /// ```
    /// use tengu_rules::{Color, Position, Variant};
    /// let pos = Position::initial(Variant::dai_dai());
    /// assert_eq!(pos.side_to_move(), Color::Black);
    /// assert_eq!(pos.squares_of(Color::White).count(), 96);
    /// ```
    pub fn initial(variant: Arc<Variant>) -> Position {
        let mut board = Board::empty(&variant);
        let size = variant.size();
        for &(col, row, kind) in &variant.spec().black_setup {
            let ty = variant
                .type_index(kind, false)
                .expect("setup kinds have unpromoted types") as u8;
            board.put(&variant, Square::new(col, row), cell_code(ty, Color::Black));
            board.put(
                &variant,
                Square::new(size - 1 - col, size - 1 - row),
                cell_code(ty, Color::White),
            );
        }
        Position {
            variant,
            board,
            side: Color::Black,
            after_pass: false,
        }
    }

    /// A position with no pieces (for building positions piece by piece; not playable as is).
    pub fn empty(variant: Arc<Variant>, side: Color, after_pass: bool) -> Position {
        let board = Board::empty(&variant);
        Position {
            variant,
            board,
            side,
            after_pass,
        }
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Board side in squares.
    pub fn size(&self) -> usize {
        self.variant.size()
    }

    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whether the previous move was a pass (the side to move may not pass, §7.4 (c)).
    pub fn after_pass(&self) -> bool {
        self.after_pass
    }

    pub fn piece_at(&self, s: Square) -> Option<Piece> {
        let c = self.board.get(s);
        if c == EMPTY || c == crate::variant::OFF {
            return None;
        }
        Some(Piece {
            color: cell_color(c),
            ty: self.variant.info[c as usize].ty as usize,
        })
    }

    /// Puts a piece on an empty square (position building; the caller validates the result).
    pub fn put(&mut self, s: Square, piece: Piece) {
        self.board
            .put(&self.variant, s, cell_code(piece.ty as u8, piece.color));
    }

    /// Every occupied square of `color`, in board reading order.
    pub fn squares_of(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        self.board.occupied[color.index()].iter()
    }

    /// Squares of `color`'s royal pieces.
    pub fn royals(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        self.board.royals(color)
    }

    /// Zobrist key of the repetition key of §5.5: board contents and side to move (not the
    /// pass bit). Updated incrementally by [`Position::play`].
    pub fn key(&self) -> u64 {
        self.board.hash
            ^ if self.side == Color::White {
                WHITE_KEY
            } else {
                0
            }
    }

    /// The key recomputed from scratch (for tests of the incremental update).
    pub fn recompute_key(&self) -> u64 {
        self.board.recompute_hash()
            ^ if self.side == Color::White {
                WHITE_KEY
            } else {
                0
            }
    }

    /// Whether the side to move is in check (§5.3).
    pub fn in_check(&self) -> bool {
        in_check(&self.variant, &self.board, self.side)
    }

    /// Whether `color` is in check, whoever is to move.
    pub fn is_in_check(&self, color: Color) -> bool {
        in_check(&self.variant, &self.board, color)
    }

    /// Whether the pass rule (option `PASS`, §7.4 (c)) lets the side to move pass here, if
    /// one of its lion-type pieces can (check and the piece's neighbours aside).
    pub fn pass_allowed(&self) -> bool {
        self.variant.rules().pass.allows_pass(self.after_pass)
    }

    /// Appends the pseudo-legal moves of the side to move (§5.2) to `out`.
    pub fn pseudo_legal_moves(&self, out: &mut Vec<Move>) {
        let allow_pass = self.pass_allowed();
        pseudo_legal(
            &self.variant,
            &self.board,
            self.side,
            allow_pass,
            &mut |m| out.push(m),
        );
    }

    /// Pseudo-legal moves of `color` other than passes, as if it were to move: the mobility
    /// of either side (a classic evaluation's term), without allocating.
    pub fn mobility(&self, color: Color) -> u32 {
        let mut n = 0;
        pseudo_legal(&self.variant, &self.board, color, false, &mut |m| {
            n += !m.is_pass() as u32;
        });
        n
    }

    /// Replaces the contents of `out` with the legal moves (§5.3), grouped by origin square in
    /// board reading order. `out` keeps its capacity, so a reused vector never allocates.
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        let v = &*self.variant;
        let legality = Legality::new(v, &self.board, self.side);
        let allow_pass = self.pass_allowed();
        pseudo_legal(v, &self.board, self.side, allow_pass, &mut |m| {
            if legality.is_legal(v, &self.board, self.side, m) {
                out.push(m)
            }
        });
    }

    /// The legal moves in a new vector (RULES.md Appendix B: 59 from Dai Dai Shogi's start).
    ///
    /// ```
    /// use tengu_rules::{Position, Variant};
    /// let moves = Position::initial(Variant::dai_dai()).legal_move_list();
    /// assert_eq!(moves.len(), 59);
    /// ```
    pub fn legal_move_list(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(256);
        self.legal_moves(&mut out);
        out
    }

    /// Number of legal moves (perft's bulk count at the last ply).
    pub fn count_legal_moves(&self) -> u64 {
        let v = &*self.variant;
        let legality = Legality::new(v, &self.board, self.side);
        let allow_pass = self.pass_allowed();
        let mut n = 0;
        pseudo_legal(v, &self.board, self.side, allow_pass, &mut |m| {
            n += legality.is_legal(v, &self.board, self.side, m) as u64;
        });
        n
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let v = &*self.variant;
        let legality = Legality::new(v, &self.board, self.side);
        let allow_pass = self.pass_allowed();
        for from in self.board.occupied[self.side.index()].iter() {
            let mut found = false;
            piece_moves(v, &self.board, from, allow_pass, &mut |m| {
                found = found || legality.is_legal(v, &self.board, self.side, m);
            });
            if found {
                return true;
            }
        }
        false
    }

    /// Whether `m` is a legal move here (for moves from untrusted sources).
    pub fn is_legal(&self, m: Move) -> bool {
        let mut found = false;
        if self.board.get(m.from()) == EMPTY || self.board.get(m.from()) == crate::variant::OFF {
            return false;
        }
        if cell_color(self.board.get(m.from())) != self.side {
            return false;
        }
        piece_moves(
            &self.variant,
            &self.board,
            m.from(),
            self.pass_allowed(),
            &mut |g| found |= g == m,
        );
        found
            && Legality::new(&self.variant, &self.board, self.side).is_legal(
                &self.variant,
                &self.board,
                self.side,
                m,
            )
    }

    /// Plays a move produced by this position's move generator. Playing anything else is a
    /// logic error (checked in debug builds).
    #[inline]
    pub fn play(&mut self, m: Move) -> Undo {
        let mut undo = Undo {
            moved: 0,
            captured: [(Square::new(0, 0), 0); 3],
            captured_len: 0,
            after_pass: self.after_pass,
        };
        if !m.is_pass() {
            let v = &*self.variant;
            undo.moved = self.board.take(m.from());
            debug_assert_eq!(cell_color(undo.moved), self.side);
            if m.captures_to() {
                undo.captured[0] = (m.to(), self.board.take(m.to()));
                undo.captured_len = 1;
            }
            for s in m.side_captures() {
                undo.captured[undo.captured_len as usize] = (s, self.board.take(s));
                undo.captured_len += 1;
            }
            self.board.put(v, m.to(), m.result_cell());
        }
        self.side = self.side.opposite();
        self.after_pass = m.is_pass();
        undo
    }

    /// Hands the turn to the other side without moving anything (a null move: not a move
    /// of the game, for searches that ask what the mover would threaten if it moved again).
    /// Calling it twice restores the position.
    pub fn flip_side_to_move(&mut self) {
        self.side = self.side.opposite();
    }

    /// Takes back `m`, which must be the last move played, with the [`Undo`] it returned.
    #[inline]
    pub fn unplay(&mut self, m: Move, undo: Undo) {
        self.side = self.side.opposite();
        self.after_pass = undo.after_pass;
        if m.is_pass() {
            return;
        }
        let v = &*self.variant;
        self.board.take(m.to());
        for &(s, cell) in &undo.captured[..undo.captured_len as usize] {
            self.board.put(v, s, cell);
        }
        self.board.put(v, m.from(), undo.moved);
    }

    /// Whether `by` has a pseudo-legal move capturing on `s` (the Emperor's protected-piece
    /// rule of §6.4 included), whoever is to move and whatever stands on `s`: for a piece of
    /// `by` on `s` this says whether it is defended. The encoder's attack planes use it.
    pub fn attacks(&self, by: Color, s: Square) -> bool {
        can_capture_on(&self.variant, &self.board, by, s)
    }

    /// Whether a royal piece of `color` stands on `s`.
    pub fn is_royal_at(&self, s: Square) -> bool {
        let c = self.board.get(s);
        c != EMPTY && self.variant.info[c as usize].flags & F_ROYAL != 0
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.variant.id() == other.variant.id()
            && self.variant.rule_set_hash() == other.variant.rule_set_hash()
            && self.side == other.side
            && self.after_pass == other.after_pass
            && self.board.cells == other.board.cells
    }
}

impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}
