//! Differential fuzzing of the move generator: positions made from the bytes (a walk of
//! legal moves the bytes choose, or pieces the bytes place) under every rule preset of both
//! games, each compared with the deliberately simple reference generator of
//! `rules/tests/reference/` (written from RULES.md alone, sharing no code with tengu): the
//! same legal move set, the same check status and position after a move (under the default
//! rules, where the reference plays moves), every move played and taken back restoring the
//! position and its key, and some moves' texts in every notation reading back.

use std::collections::BTreeSet;
use std::sync::Arc;

use tengu_rules::ruleset::{GAMES, PRESETS};
use tengu_rules::{Color, Game, Piece, Position, RuleSet, Variant};

/// The reference generator, compiled here from the test folder of `tengu-rules` (it is no
/// part of any library: it exists to check one).
#[allow(dead_code, clippy::all)]
#[path = "../../rules/tests/reference/mod.rs"]
mod reference;

/// Every (game, preset) pair the presets define, in a fixed order.
fn rule_sets() -> &'static [RuleSet] {
    static SETS: std::sync::OnceLock<Vec<RuleSet>> = std::sync::OnceLock::new();
    SETS.get_or_init(|| {
        GAMES
            .iter()
            .flat_map(|game| {
                PRESETS
                    .iter()
                    .filter_map(|p| RuleSet::preset(game, p.name).ok())
            })
            .collect()
    })
}

/// The option/value pairs of a rule set, as its canonical text lists them.
fn pairs(rules: &RuleSet) -> Vec<(String, String)> {
    let canonical = rules.canonical();
    match canonical.split_once(':') {
        None => Vec::new(),
        Some((_, rest)) => rest
            .split(',')
            .filter_map(|a| a.split_once('='))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
    }
}

/// Bytes: the rule set (first byte), how the position is made (second byte: even, a walk of
/// legal moves, one byte choosing each; odd, pieces placed, two bytes each, on an empty
/// board with both Kings), then the choices.
pub fn movegen_diff(data: &[u8]) {
    let [set, mode, rest @ ..] = data else { return };
    let sets = rule_sets();
    let rules = &sets[*set as usize % sets.len()];
    let Ok(variant) = Variant::with_rules(rules) else {
        panic!("preset {rules} does not build its game")
    };
    let pos = if mode % 2 == 0 {
        walked(variant, rest)
    } else {
        match placed(variant, *mode, rest) {
            Some(pos) => pos,
            None => return,
        }
    };
    compare(rules, &pos, data);
}

/// The position after the legal moves the bytes choose (up to 400 plies).
fn walked(variant: Arc<Variant>, choices: &[u8]) -> Position {
    let mut game = Game::new(Position::initial(variant));
    let mut moves = Vec::new();
    for &c in choices.iter().take(400) {
        if game.outcome().is_some() {
            break;
        }
        game.position().legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        game.play_unchecked(moves[c as usize % moves.len()]);
    }
    game.position().clone()
}

/// A position of pieces the bytes place (square, then piece type with its colour in the top
/// bit) beside a King of each side, or `None` when the rules refuse it.
fn placed(variant: Arc<Variant>, mode: u8, bytes: &[u8]) -> Option<Position> {
    let size = variant.size();
    let squares: Vec<_> = tengu_rules::Square::all(size).collect();
    let side = if mode & 2 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let mut pos = Position::empty(variant.clone(), side, mode & 4 != 0);
    let types = variant.piece_types();
    let king =
        (0..types.len()).find(|&t| variant.kinds()[types[t].kind].royal && !types[t].promoted)?;
    pos.put(
        squares[squares.len() - 1 - size / 2],
        Piece {
            color: Color::Black,
            ty: king,
        },
    );
    pos.put(
        squares[size / 2],
        Piece {
            color: Color::White,
            ty: king,
        },
    );
    for pair in bytes.chunks_exact(2).take(120) {
        let square = squares[(pair[0] as usize * 7) % squares.len()];
        let color = if pair[1] & 0x80 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let ty = (pair[1] & 0x7f) as usize % types.len();
        if pos.piece_at(square).is_none() {
            pos.put(square, Piece { color, ty });
        }
    }
    // Through the text door: the same validation a user's position gets.
    Position::parse_for(variant, &pos.to_string()).ok()
}

/// The fast generator against the reference on `pos`; `data` picks the moves checked further.
fn compare(rules: &RuleSet, pos: &Position, data: &[u8]) {
    let text = pos.to_string();
    let size = pos.size();
    let reference_rules = reference::rules(size, &pairs(rules))
        .unwrap_or_else(|e| panic!("the reference cannot read {rules}: {e}"));
    let reference: BTreeSet<String> = reference::legal_moves_with(reference_rules, &text)
        .unwrap_or_else(|e| panic!("the reference refuses {text} ({rules}): {e}"))
        .into_iter()
        .collect();
    let moves = pos.legal_move_list();
    let fast: BTreeSet<String> = moves.iter().map(|&m| pos.move_text(m)).collect();
    if fast != reference {
        let only_fast: Vec<_> = fast.difference(&reference).collect();
        let only_reference: Vec<_> = reference.difference(&fast).collect();
        panic!("{rules}: {text}\n  only fast: {only_fast:?}\n  only reference: {only_reference:?}");
    }
    assert_eq!(moves.len(), fast.len(), "{rules}: {text}: a move twice");
    for &m in &moves {
        let mut after = pos.clone();
        let undo = after.play(m);
        assert_eq!(
            after.key(),
            after.recompute_key(),
            "{rules}: {text}: key after {}",
            pos.move_text(m)
        );
        after.unplay(m, undo);
        assert_eq!(
            after.to_string(),
            text,
            "{rules}: {text}: unplay {}",
            pos.move_text(m)
        );
        assert_eq!(
            after.key(),
            pos.key(),
            "{rules}: {text}: key after unplay {}",
            pos.move_text(m)
        );
    }
    if moves.is_empty() {
        return;
    }
    let picks = data
        .iter()
        .rev()
        .take(3)
        .map(|&b| moves[b as usize % moves.len()]);
    for m in picks {
        super::rules::check_move_texts(pos, m);
    }
    if rules.is_default() {
        let check = reference::in_check(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(check, pos.in_check(), "{text}: in check");
        let m = moves[data[0] as usize % moves.len()];
        let mut after = pos.clone();
        after.play(m);
        let reference_after =
            reference::play(&text, &pos.move_text(m)).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            after.to_string(),
            reference_after,
            "{text}: after {}",
            pos.move_text(m)
        );
    }
}
