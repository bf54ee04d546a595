//! Moves a GUI relayed wrongly. QBoard passes a multi-leg move (`m8n7,n7o6,o6p5`) on to the
//! other engine without its promotion mark (its double- and triple-move relay has no
//! promotion argument), and sends a person's lion double move before it asks about
//! promotion. Where promotion is optional (Maka Dai Dai Shogi) the receiving engine reads
//! the move unpromoted while the GUI and the mover have it promoted (or the other way
//! round), and their boards differ from then on, silently, until a move legal in one view
//! only arrives, often a hundred plies later. tengu cannot see what the GUI dropped; it
//! can name the likely cause when such a move is refused: [`promotion_split`]. The refusal
//! comes from either engine: from the one that read the move unpromoted when the mover
//! then moves the promoted piece, or (in QBoard engine games, the usual case) from the
//! mover when the other engine plays on from its unpromoted reading.

use tengu_rules::{Game, Move, Position};

use crate::notation::{move_path, move_text, parse_move};

/// Earlier moves tried as the cause of a refusal (newest first): each try replays the game.
const SPLITS_TRIED: usize = 8;

/// An earlier multi-leg move whose other promotion choice makes a refused move legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The ply of the earlier move (1 = the game's first move).
    pub ply: usize,
    /// The earlier move as this engine read it (XBoard text, `+` when it promoted).
    pub read: String,
    /// Whether the other choice (the one that makes the refused move legal) promotes.
    pub other_promotes: bool,
}

impl Split {
    /// The explanation that follows the refusal's reason: what differs, why, what to do.
    /// No parentheses: it goes inside `Illegal move (...)`. QBoard only ever drops a mark,
    /// so when this engine has the move promoted it made the move itself (the GUI shows it
    /// so too) and the other engine is the one that read it otherwise.
    pub fn explain(&self) -> String {
        if self.other_promotes {
            format!(
                "it would be legal had the multi-step move {} at ply {} promoted: this engine \
                 read it without promotion; QBoard passes multi-step moves on without their \
                 promotion mark, so the GUI's board and this engine's have differed since ply \
                 {}. Set the position up again, or play engine games with tengu match",
                self.read, self.ply, self.ply
            )
        } else {
            format!(
                "it would be legal had the multi-step move {} at ply {} not promoted: this \
                 engine made it promoted, as the GUI shows it, but QBoard passes multi-step \
                 moves on without their promotion mark, so the other engine read it \
                 unpromoted and has played on a board that differs from the GUI's since ply \
                 {}. Start a new game, or play engine games with tengu match",
                self.read, self.ply, self.ply
            )
        }
    }
}

/// A move of this engine as QBoard passes it on to the other engine: its text without the
/// promotion mark when it has more than one leg (QBoard reassembles the `move` lines of
/// the legs and keeps no mark).
pub fn as_relayed(m: Move, size: usize) -> String {
    let text = move_text(m, size);
    if move_path(m).len() > 2 {
        text.trim_end_matches(['+', '=']).to_string()
    } else {
        text
    }
}

/// Whether `m` is a multi-leg move with a promote / decline choice: the kind of move whose
/// promotion QBoard's relay drops.
pub fn ambiguous_in_relay(m: Move) -> bool {
    m.promotion_optional() && move_path(m).len() > 2
}

/// For a move `text` that is illegal after `game`: the newest earlier multi-leg move with a
/// promotion choice whose other choice, the later moves replayed as the other engine read
/// them, makes `text` legal. `relayed` holds each move of the game as its text reached the
/// other side: a received move as it came, this engine's own as [`as_relayed`] (the
/// texts, not this engine's reading of them: a capture this engine reads as a mandatory
/// promotion may have been none for the other engine). `None` when no such move exists
/// (then the refusal has another cause).
pub fn promotion_split(game: &Game, relayed: &[String], text: &str) -> Option<Split> {
    let size = game.position().size();
    let moves: Vec<Move> = game.moves().collect();
    // The earlier moves with a promotion choice and their other choice.
    let mut candidates: Vec<(usize, Move)> = Vec::new();
    let mut pos: Position = game.start().clone();
    for (i, &m) in moves.iter().enumerate() {
        if ambiguous_in_relay(m) {
            let path = move_path(m);
            let other = pos
                .legal_move_list()
                .iter()
                .copied()
                .find(|o| o.promotes() != m.promotes() && move_path(*o) == path);
            if let Some(other) = other {
                candidates.push((i, other));
            }
        }
        pos.play(m);
    }
    candidates
        .into_iter()
        .rev()
        .take(SPLITS_TRIED)
        .find(|&(i, other)| replays_to_legal(game, &moves, relayed, i, other, text))
        .map(|(i, other)| Split {
            ply: i + 1,
            read: move_text(moves[i], size),
            other_promotes: other.promotes(),
        })
}

/// Whether `text` is legal after the game with move `i` replaced by `other` and every later
/// move replayed from its relayed text (with the other promotion mark where the text alone
/// no longer fits, as a GUI that dropped it would have it).
fn replays_to_legal(
    game: &Game,
    moves: &[Move],
    relayed: &[String],
    i: usize,
    other: Move,
    text: &str,
) -> bool {
    let size = game.position().size();
    let mut alt = Game::new(game.start().clone());
    for &m in &moves[..i] {
        alt.play_unchecked(m);
    }
    if alt.play(other).is_err() {
        return false;
    }
    for (j, &m) in moves.iter().enumerate().skip(i + 1) {
        if alt.outcome().is_some() {
            return false;
        }
        let written = relayed
            .get(j)
            .cloned()
            .unwrap_or_else(|| as_relayed(m, size));
        let toggled = match written.strip_suffix(['+', '=']) {
            Some(bare) => bare.to_string(),
            None => format!("{written}+"),
        };
        let Some(m) = [written, toggled]
            .iter()
            .find_map(|t| parse_move(alt.position(), t).ok())
        else {
            return false;
        };
        alt.play_unchecked(m);
    }
    alt.outcome().is_none() && parse_move(alt.position(), text).is_ok()
}
