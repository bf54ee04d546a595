//! The text doors of the rules: positions (tengu's text and QBoard's FEN), moves in every
//! notation, game records, openings files, rule sets and game descriptions.

use std::sync::Arc;

use tengu_engine::fen::{parse_position, QboardCodes};
use tengu_rules::openings::{format_opening, parse_openings};
use tengu_rules::ruleset::GAMES;
use tengu_rules::{Game, Move, Position, Record, RuleSet, Variant};

use super::input::{choice, text};

/// Position text: a position that parses is written back to the same text, its key is the
/// recomputed key, its moves generate, and each of its first moves played and taken back
/// restores it.
pub fn position(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(pos) = Position::parse(text) {
        check_position(&pos);
    }
    // `setboard` reads tengu's text or QBoard's FEN, in either game.
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        if let Ok(pos) = parse_position(text, &variant) {
            check_position(&pos);
            if let Ok(codes) = QboardCodes::for_variant(pos.variant()) {
                let fen = codes.to_fen(&pos);
                let again = codes
                    .parse_fen(&fen)
                    .unwrap_or_else(|e| panic!("FEN {fen:?} of {pos} refused: {e}"));
                assert_eq!(again.to_string(), pos.to_string(), "FEN {fen:?}");
            }
        }
    }
}

/// What must hold of every position a door accepted.
fn check_position(pos: &Position) {
    let text = pos.to_string();
    let again = Position::parse_for(pos.variant().clone(), &text)
        .unwrap_or_else(|e| panic!("{text:?} (written from a parsed position) refused: {e}"));
    assert_eq!(again.to_string(), text, "position text round trip");
    assert_eq!(pos.key(), pos.recompute_key(), "{text}: incremental key");
    let moves = pos.legal_move_list();
    for &m in moves.iter().take(8) {
        let mut after = pos.clone();
        let undo = after.play(m);
        assert_eq!(
            after.key(),
            after.recompute_key(),
            "{text}: key after {}",
            pos.move_text(m)
        );
        after.unplay(m, undo);
        assert_eq!(
            after.to_string(),
            text,
            "{text}: unplay of {}",
            pos.move_text(m)
        );
        assert_eq!(after.key(), pos.key(), "{text}: key after unplay");
    }
}

/// A position reached by `plies` plies of a walk chosen by `seed` from the initial position
/// of `variant` (stops early where the game ends).
pub(super) fn walk(variant: Arc<Variant>, plies: usize, seed: usize) -> Game {
    let mut game = Game::new(Position::initial(variant));
    let mut moves = Vec::new();
    for ply in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        game.position().legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let m = moves[(seed.wrapping_mul(31).wrapping_add(ply * 7919)) % moves.len()];
        game.play_unchecked(m);
    }
    game
}

/// Move text: the first byte picks a position (the game and a walk of up to 63 plies), the
/// rest is read as a move by each notation's parser. A move accepted is legal there and its
/// text in each notation reads back to it.
pub fn moves(data: &[u8]) {
    let Some((pick, rest)) = choice(data) else {
        return;
    };
    let Some(text) = text(rest) else { return };
    let variant = if pick & 0x80 == 0 {
        Variant::dai_dai()
    } else {
        Variant::maka_dai_dai()
    };
    let game = walk(variant, (pick & 0x3f) as usize, pick as usize);
    let pos = game.position();
    // Only whether each notation reads a legal move matters here; the errors' words are
    // the parsers' own tests.
    let parsed: [(&str, Option<Move>); 3] = [
        ("§12.3", pos.parse_move(text).ok()),
        ("XBoard", tengu_engine::notation::parse_move(pos, text).ok()),
        (
            "terminal",
            tengu_engine::terminal::parse_human_move(pos, text).ok(),
        ),
    ];
    for (notation, m) in parsed {
        let Some(m) = m else { continue };
        assert!(
            pos.is_legal(m),
            "{pos}: {notation} {text:?} read as an illegal move"
        );
        check_move_texts(pos, m);
    }
}

/// Each notation's text of the legal move `m` reads back to `m`.
pub(super) fn check_move_texts(pos: &Position, m: Move) {
    let own = pos.move_text(m);
    assert_eq!(pos.parse_move(&own).ok(), Some(m), "{pos}: §12.3 {own:?}");
    // XBoard writes every pass as `@@@@` (the protocol's null move), read back as the first
    // piece's pass: with two pieces that may pass, another move of the same effect.
    let xboard = tengu_engine::notation::move_text(m, pos.size());
    let read = tengu_engine::notation::parse_move(pos, &xboard)
        .unwrap_or_else(|e| panic!("{pos}: XBoard {xboard:?} of {own} refused: {e}"));
    assert_eq!(
        after(pos, read),
        after(pos, m),
        "{pos}: XBoard {xboard:?} of {own}"
    );
    let hodges = pos.hodges(m);
    assert_eq!(
        tengu_engine::terminal::parse_human_move(pos, &hodges).ok(),
        Some(m),
        "{pos}: Hodges {hodges:?} of {own}"
    );
}

/// The position after the legal move `m`, as text.
fn after(pos: &Position, m: Move) -> String {
    let mut next = pos.clone();
    next.play(m);
    next.to_string()
}

/// A game record: one that parses is written back to text that parses to the same text.
pub fn record(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(record) = Record::parse(text) else {
        return;
    };
    let written = record.to_string();
    let again = Record::parse(&written)
        .unwrap_or_else(|e| panic!("record written from a parsed one refused: {e}\n{written}"));
    assert_eq!(again.to_string(), written, "record round trip");
    let _ = record.result_mismatch();
}

/// An openings file of the game the first byte picks: each opening written back as a line
/// reads to the same moves.
pub fn openings(data: &[u8]) {
    let Some((pick, rest)) = choice(data) else {
        return;
    };
    let Some(text) = text(rest) else { return };
    let variant = if pick & 1 == 0 {
        Variant::dai_dai()
    } else {
        Variant::maka_dai_dai()
    };
    let Ok(openings) = parse_openings(&variant, text) else {
        return;
    };
    for opening in openings {
        let line = format_opening(&variant, &opening.moves, Some("again"));
        let again = parse_openings(&variant, &line)
            .unwrap_or_else(|e| panic!("opening line {line:?} refused: {e}"));
        assert_eq!(again.len(), 1, "{line:?}");
        assert_eq!(again[0].moves, opening.moves, "{line:?}");
    }
}

/// Rule sets and game descriptions, by the first byte: a rule-set TOML table of either game,
/// a canonical rule-set key (`dai-dai:LD=TSA`), or a whole game description (the format of
/// `configs/games/*.toml`). A rule set read is written back to its canonical key, which
/// reads to the same rule set, and builds its game or says why not.
pub fn rule_set(data: &[u8]) {
    let Some((pick, rest)) = choice(data) else {
        return;
    };
    let Some(text) = text(rest) else { return };
    let rules = match pick % 3 {
        0 => RuleSet::from_toml(GAMES[(pick as usize / 3) % GAMES.len()], text),
        1 => RuleSet::parse_canonical(text),
        _ => {
            if let Ok(variant) = Variant::from_toml("fuzz.toml", text) {
                let variant = Arc::new(variant);
                let pos = Position::initial(variant);
                let _ = pos.legal_move_list();
            }
            return;
        }
    };
    let Ok(rules) = rules else { return };
    let canonical = rules.canonical();
    let again = RuleSet::parse_canonical(&canonical)
        .unwrap_or_else(|e| panic!("canonical key {canonical:?} refused: {e}"));
    assert_eq!(again, rules, "{canonical}");
    assert_eq!(again.hash(), rules.hash(), "{canonical}");
    if let Ok(variant) = Variant::with_rules(&rules) {
        let _ = Position::initial(variant).legal_move_list();
    }
}
