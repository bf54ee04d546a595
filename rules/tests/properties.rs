//! Property tests: make/unmake, the incremental key, legality, text round trips and parser
//! robustness, over positions from random play and random placement of both games.

mod common;

use proptest::prelude::*;
use tengu_rules::{Color, Move, Position, Record, Variant};

fn variant(big: bool) -> std::sync::Arc<Variant> {
    if big {
        Variant::maka_dai_dai()
    } else {
        Variant::dai_dai()
    }
}

/// Every invariant that must hold in one position.
fn check_position(pos: &Position) {
    let text = pos.to_string();
    assert_eq!(
        Position::parse(&text).as_ref(),
        Ok(pos),
        "print/parse round trip"
    );
    assert_eq!(pos.key(), pos.recompute_key(), "incremental key of {text}");

    // Legal moves = pseudo-legal moves that do not leave the mover in check, computed the
    // slow way (play every move, test for check).
    let mover = pos.side_to_move();
    let legal = pos.legal_move_list();
    let mut pseudo = Vec::new();
    pos.pseudo_legal_moves(&mut pseudo);
    let mut work = pos.clone();
    let mut slow: Vec<Move> = Vec::new();
    for &m in &pseudo {
        let undo = work.play(m);
        assert_eq!(
            work.key(),
            work.recompute_key(),
            "key after {}",
            pos.move_text(m)
        );
        if !work.is_in_check(mover) {
            slow.push(m);
        }
        work.unplay(m, undo);
        assert_eq!(
            &work,
            pos,
            "unplay of {} restores the position",
            pos.move_text(m)
        );
        assert_eq!(
            work.key(),
            pos.key(),
            "unplay of {} restores the key",
            pos.move_text(m)
        );
    }
    let mut fast = legal.clone();
    fast.sort();
    slow.sort();
    assert_eq!(
        fast, slow,
        "fast legality filter differs from play-and-test in {text}"
    );
    let mut dedup = fast.clone();
    dedup.dedup();
    assert_eq!(dedup.len(), fast.len(), "duplicate moves in {text}");
    assert_eq!(pos.count_legal_moves(), legal.len() as u64);
    assert_eq!(pos.has_legal_move(), !legal.is_empty());

    for &m in &legal {
        let t = pos.move_text(m);
        assert_eq!(pos.parse_move(&t), Ok(m), "move text round trip of {t}");
        assert!(pos.is_legal(m));
        let h = pos.hodges(m);
        assert!(!h.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_play_positions_are_consistent(seed in any::<u64>(), big in any::<bool>()) {
        for pos in common::random_walk(variant(big), seed, 160, 8) {
            check_position(&pos);
        }
    }

    #[test]
    fn random_placements_are_consistent(seed in any::<u64>(), big in any::<bool>(), pieces in 2usize..60) {
        let pos = common::random_placement(variant(big), seed, pieces);
        check_position(&pos);
        // And a few random plies from there.
        let mut pos = pos;
        let mut moves = Vec::new();
        for k in 0..6u64 {
            pos.legal_moves(&mut moves);
            if moves.is_empty() { break; }
            let m = moves[((seed >> (k * 8)) as usize) % moves.len()];
            pos.play(m);
            check_position(&pos);
        }
    }

    #[test]
    fn position_parser_never_panics(text in ".{0,300}") {
        let _ = Position::parse(&text);
    }

    #[test]
    fn mutated_positions_never_panic(seed in any::<u64>(), big in any::<bool>(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let pos = common::random_placement(variant(big), seed, 20);
        let mut bytes = pos.to_string().into_bytes();
        for (at, byte) in edits {
            let i = at % bytes.len();
            bytes[i] = b"0123456789,/+ bwp-kKlnLNqQx"[byte as usize % 27];
        }
        let text = String::from_utf8_lossy(&bytes).to_string();
        if let Ok(p) = Position::parse(&text) {
            // Whatever parses prints back canonically and re-parses to the same position.
            prop_assert_eq!(Position::parse(&p.to_string()).unwrap(), p);
        }
    }

    #[test]
    fn move_parser_never_panics(text in "[0-9a-s>{},+=]{0,30}", seed in any::<u64>()) {
        let pos = common::random_placement(Variant::dai_dai(), seed, 10);
        let _ = pos.parse_move(&text);
    }

    #[test]
    fn record_parser_never_panics(text in "(\\[[A-Za-z]{0,6} \"[^\"]{0,20}\"\\]\n){0,4}\n?([0-9]{1,2}\\. [0-9a-q>{},]{0,12} ?){0,4}") {
        let _ = Record::parse(&text);
    }

    #[test]
    fn records_round_trip(seed in any::<u64>(), big in any::<bool>()) {
        let positions = common::random_walk(variant(big), seed, 0, 1);
        let start = positions[0].clone();
        let mut game = tengu_rules::Game::new(start);
        let mut moves = Vec::new();
        let mut s = seed;
        for _ in 0..40 {
            if game.outcome().is_some() { break; }
            game.position().legal_moves(&mut moves);
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            game.play_unchecked(moves[(s >> 33) as usize % moves.len()]);
        }
        let record = Record::new(game, &[("Black", "tengu"), ("White", "random")]);
        let text = record.to_string();
        let parsed = Record::parse(&text).unwrap();
        prop_assert_eq!(parsed.to_string(), text);
        prop_assert_eq!(parsed.game.moves().collect::<Vec<_>>(), record.game.moves().collect::<Vec<_>>());
    }
}

#[test]
fn records_with_a_start_position_round_trip() {
    let start = common::random_placement(Variant::maka_dai_dai(), 7, 30);
    let mut game = tengu_rules::Game::new(start);
    for _ in 0..10 {
        if game.outcome().is_some() {
            break;
        }
        let m = game.position().legal_move_list()[0];
        game.play_unchecked(m);
    }
    let record = Record::new(game, &[]);
    let text = record.to_string();
    assert!(text.contains("[Start \""));
    assert_eq!(Record::parse(&text).unwrap().to_string(), text);
}

#[test]
fn sides_are_mirror_images() {
    // White's move count in the mirrored initial position equals Black's.
    for v in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let black = Position::initial(v);
        let text = black.to_string().replace(" b -", " w -");
        let white = Position::parse(&text).unwrap();
        assert_eq!(white.side_to_move(), Color::White);
        assert_eq!(white.legal_move_list().len(), black.legal_move_list().len());
    }
}

#[test]
fn a_null_move_hands_the_turn_over_and_back() {
    // The initial position with White to move has as many moves as Black's, by symmetry.
    let mut pos = Position::initial(Variant::dai_dai());
    let key = pos.key();
    let black_moves = pos.legal_move_list().len();
    pos.flip_side_to_move();
    assert_eq!(pos.side_to_move(), Color::White);
    assert_ne!(pos.key(), key, "the side to move is part of the key");
    assert_eq!(pos.key(), pos.recompute_key());
    assert_eq!(pos.legal_move_list().len(), black_moves);
    pos.flip_side_to_move();
    assert_eq!(pos.side_to_move(), Color::Black);
    assert_eq!(pos.key(), key);
}
