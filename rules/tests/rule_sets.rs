//! Rule sets (RULES.md §8): every option value plays as the reference generator reads it
//! (written by hand from the §8 tables, sharing nothing with tengu's Betza reader), each
//! differs from the default in the moves that appear or disappear, the rule-level options
//! play RULES.md's difference in both directions, and perft from the initial position under
//! each preset (`rules/tests/data/presets.rules-perft`) is what both generators count (the
//! reference's depth-3 counts take about 30 s in all).

mod common;
mod reference;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::compose;
use tengu_rules::betza::parse_betza;
use tengu_rules::perft::perft;
use tengu_rules::ruleset::{options, Effect, GAMES, PRESETS};
use tengu_rules::{Game, Position, RuleSet, Termination, Variant};

fn variant(rules: &RuleSet) -> Arc<Variant> {
    Variant::with_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}"))
}

/// The option/value pairs of a rule set, as its canonical text lists them.
fn pairs(rules: &RuleSet) -> Vec<(String, String)> {
    let canonical = rules.canonical();
    match canonical.split_once(':') {
        None => Vec::new(),
        Some((_, rest)) => rest
            .split(',')
            .map(|a| {
                let (n, v) = a.split_once('=').unwrap();
                (n.to_string(), v.to_string())
            })
            .collect(),
    }
}

fn reference_rules(rules: &RuleSet) -> &'static reference::Rules {
    let size = if rules.game() == "dai-dai" { 17 } else { 19 };
    reference::rules(size, &pairs(rules)).unwrap_or_else(|e| panic!("{rules}: {e}"))
}

fn fast_moves(rules: &RuleSet, position: &str) -> BTreeSet<String> {
    let pos = Position::parse_for(variant(rules), position)
        .unwrap_or_else(|e| panic!("{rules}: {position}: {e}"));
    pos.legal_move_list()
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect()
}

/// The legal moves under `rules`, checked against the reference generator.
fn moves(rules: &RuleSet, position: &str) -> BTreeSet<String> {
    let fast = fast_moves(rules, position);
    let reference: BTreeSet<String> = reference::legal_moves_with(reference_rules(rules), position)
        .unwrap_or_else(|e| panic!("reference: {rules}: {position}: {e}"))
        .into_iter()
        .collect();
    assert_eq!(
        fast,
        reference,
        "{rules}: {position}\n  only tengu: {:?}\n  only reference: {:?}",
        fast.difference(&reference).collect::<Vec<_>>(),
        reference.difference(&fast).collect::<Vec<_>>()
    );
    fast
}

/// Moves under `rules` that the defaults lack, and default moves that `rules` lacks.
fn difference(rules: &RuleSet, position: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let base = moves(&RuleSet::default_for(rules.game()), position);
    let changed = moves(rules, position);
    (
        changed.difference(&base).cloned().collect(),
        base.difference(&changed).cloned().collect(),
    )
}

fn set(game: &str, option: &str, value: &str) -> RuleSet {
    RuleSet::default_for(game)
        .with(option, value)
        .unwrap_or_else(|e| panic!("{option}={value}: {e}"))
}

fn texts(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_default_rule_set_is_the_game_file() {
    for game in GAMES {
        let builtin = Variant::builtin(game).unwrap();
        let spec = RuleSet::default_for(game)
            .apply(builtin.spec().clone())
            .unwrap();
        assert_eq!(&spec, builtin.spec(), "{game}");
        assert!(Arc::ptr_eq(&variant(&RuleSet::default_for(game)), &builtin));
    }
}

#[test]
fn default_readings_read_as_the_game_files_ranges_and_jumps() {
    let mut checked = 0;
    for game in GAMES {
        let v = Variant::builtin(game).unwrap();
        for option in options(game).into_iter().filter(|o| o.piece) {
            let Ok(m) = parse_betza(option.values[0].text) else {
                continue; // a multi-leg default (hook, lion, lion dog): stated as powers
            };
            let kind = &v.kinds()[v.kind_index(option.name).unwrap()];
            assert_eq!(m.ranges, kind.ranges, "{game} {}", option.name);
            let mut a = m.jumps.clone();
            let mut b = kind.jumps.clone();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{game} {}", option.name);
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} default readings checked");
}

/// A Black piece of kind `code` alone in the middle of the board with the two kings in far
/// corners (White's walled in by three Golds, so that no reading gives check) and a few White
/// Pawns in reach, one of them right in front (`adjacent_pawn` 0), diagonally in front (1) or
/// none (2): every reading's moves show in one of the three.
fn lone_piece(game: &str, code: &str, adjacent_pawn: usize) -> String {
    let v = Variant::builtin(game).unwrap();
    let kind = &v.kinds()[v.kind_index(code).unwrap()];
    // A setup kind stands unpromoted; a promoted-only kind is written without '+'.
    let token = code;
    let _ = kind;
    let (size, middle, pawns): (usize, &str, [&str; 4]) = if game == "dai-dai" {
        (
            17,
            "9i",
            [
                "9f=p",
                "12f=p",
                "6l=p",
                ["9h=p", "10h=p", "9f=p"][adjacent_pawn],
            ],
        )
    } else {
        (
            19,
            "10j",
            [
                "10g=p",
                "13g=p",
                "7m=p",
                ["10i=p", "11i=p", "10g=p"][adjacent_pawn],
            ],
        )
    };
    let piece = format!("{middle}={token}");
    let (black_king, white_king) = if game == "dai-dai" {
        ("17q=K", "1a=k")
    } else {
        ("19s=K", "1a=k")
    };
    let mut items = vec![
        piece.as_str(),
        black_king,
        white_king,
        "2a=g",
        "1b=g",
        "2b=g",
    ];
    items.extend(&pawns[..if adjacent_pawn < 2 { 4 } else { 3 }]);
    compose(size, 'b', '-', &items)
}

#[test]
fn every_piece_reading_plays_as_the_reference_reads_it() {
    let mut readings = 0;
    let mut refused = 0;
    for game in GAMES {
        for option in options(game).into_iter().filter(|o| o.piece) {
            let positions = [0, 1, 2].map(|adjacent| lone_piece(game, option.name, adjacent));
            for value in &option.values[1..] {
                if let Effect::Refused(_) = value.effect {
                    let e = RuleSet::default_for(game).with(option.name, value.name());
                    assert!(
                        e.is_err(),
                        "{game}: {}={} accepted",
                        option.name,
                        value.name()
                    );
                    refused += 1;
                    continue;
                }
                let rules = set(game, option.name, value.name());
                let changes: usize = positions
                    .iter()
                    .map(|position| {
                        let (appear, disappear) = difference(&rules, position);
                        appear.len() + disappear.len()
                    })
                    .sum();
                assert!(changes > 0, "{rules}: no move changes in {positions:?}");
                // The same reading named by its Betza string is the same rule set.
                if value.names.is_empty() || !value.text.contains(' ') {
                    assert_eq!(set(game, option.name, value.text), rules);
                }
                readings += 1;
            }
        }
    }
    assert!(readings >= 90, "{readings} readings");
    assert!(refused >= 12, "{refused} refused readings");
}

#[test]
fn old_kite_srz_trades_the_forward_diagonal_step_for_two_square_diagonals() {
    // RULES.md §8.2: OK = R2fF (SSZ, the default) or WB2 (SRZ).
    let position = compose(17, 'b', '-', &["9i=OK", "17q=K", "1a=k"]);
    let (appear, disappear) = difference(&set("dai-dai", "OK", "SRZ"), &position);
    assert_eq!(
        appear,
        texts(&["9i>11g", "9i>7g", "9i>10j", "9i>11k", "9i>8j", "9i>7k"])
    );
    assert_eq!(disappear, texts(&["9i>9g", "9i>9k", "9i>7i", "9i>11i"]));
}

#[test]
fn promotion_options_add_or_remove_the_choice_in_both_games() {
    // Dai Dai: mandatory by default; OPTIONAL_UNLESS_PROMOTED_VICTIM gives both versions.
    let dd = compose(17, 'b', '-', &["9i=NK", "9h=p", "17q=K", "1a=k"]);
    let (appear, disappear) = difference(
        &set("dai-dai", "PROMOTION_DD", "OPTIONAL_UNLESS_PROMOTED_VICTIM"),
        &dd,
    );
    assert_eq!(appear, texts(&["9i>9h{9h}+", "9i>9h{9h}="]));
    assert_eq!(disappear, texts(&["9i>9h{9h}"]));
    // Maka Dai Dai: optional by default; MANDATORY keeps only the promoting move.
    let mdd = compose(19, 'b', '-', &["10j=G", "10i=p", "19s=K", "1a=k"]);
    let (appear, disappear) = difference(&set("maka-dai-dai", "PROMOTION_MDD", "MANDATORY"), &mdd);
    assert_eq!(appear, texts(&["10j>10i{10i}"]));
    assert_eq!(disappear, texts(&["10j>10i{10i}+", "10j>10i{10i}="]));
}

/// The piece standing on `square` after `mv` under `rules`.
fn after(rules: &RuleSet, position: &str, mv: &str, square: &str) -> String {
    let mut pos = Position::parse_for(variant(rules), position).unwrap();
    pos.play_text(mv)
        .unwrap_or_else(|e| panic!("{rules}: {mv}: {e}"));
    let s = tengu_rules::notation::parse_square(square, pos.size()).unwrap();
    let piece = pos.piece_at(s).unwrap();
    tengu_rules::notation::piece_token(pos.variant(), piece)
}

#[test]
fn qboard_promotion_trigger_promotes_only_on_a_capture_on_the_final_square() {
    let mdd = set("maka-dai-dai", "PROMOTION_TRIGGER", "QBOARD");
    // A Lion next to a Pawn: igui and the capture-then-step moves lose their promotion
    // choice (both versions become one plain move); the capture on 10i keeps it.
    let position = compose(
        19,
        'b',
        '-',
        &["10j=LN", "10i=p", "19s=K", "1a=k", "2a=g", "1b=g", "2b=g"],
    );
    let (appear, disappear) = difference(&mdd, &position);
    assert!(
        appear.contains("10j>10j{10i}") && appear.contains("10j>10h{10i}"),
        "{appear:?}"
    );
    assert!(
        disappear.contains("10j>10j{10i}+") && disappear.contains("10j>10j{10i}="),
        "{disappear:?}"
    );
    for m in &appear {
        assert!(
            m.contains("{10i}") && !m.ends_with('+') && !m.ends_with('='),
            "{m}"
        );
        assert!(
            disappear.contains(&format!("{m}+")) && disappear.contains(&format!("{m}=")),
            "{m}"
        );
    }
    assert_eq!(disappear.len(), 2 * appear.len(), "{disappear:?}");
    assert!(
        !disappear.iter().any(|m| m.starts_with("10j>10i{10i}")),
        "{disappear:?}"
    );
    assert_eq!(after(&mdd, &position, "10j>10j{10i}", "10j"), "LN");
    assert_eq!(after(&mdd, &position, "10j>10i{10i}+", "10i"), "FF");
    // Dai Dai's mandatory promotion: the same move text, another result.
    let dd = compose(17, 'b', '-', &["9i=LN", "9h=p", "17q=K", "1a=k"]);
    let qboard_dd = set("dai-dai", "PROMOTION_TRIGGER", "QBOARD");
    assert_eq!(
        after(&RuleSet::default_for("dai-dai"), &dd, "9i>9i{9h}", "9i"),
        "FF"
    );
    assert_eq!(after(&qboard_dd, &dd, "9i>9i{9h}", "9i"), "LN");
    assert_eq!(after(&qboard_dd, &dd, "9i>9h{9h}", "9h"), "FF");
    moves(&qboard_dd, &dd);
    // The final victim alone decides contagion: a Deva taken on the way and a Pawn on the
    // final square make a Teaching King by default, the Lion's own optional promotion under
    // QBOARD; the Deva taken by igui makes nothing.
    let deva = compose(
        19,
        'b',
        '-',
        &[
            "10j=LN", "10i=dv", "10h=p", "19s=K", "1a=k", "2a=g", "1b=g", "2b=g",
        ],
    );
    let default = RuleSet::default_for("maka-dai-dai");
    assert_eq!(after(&default, &deva, "10j>10h{10h,10i}", "10h"), "TK");
    assert_eq!(after(&mdd, &deva, "10j>10h{10h,10i}+", "10h"), "FF");
    assert_eq!(after(&mdd, &deva, "10j>10h{10h,10i}=", "10h"), "LN");
    assert_eq!(after(&default, &deva, "10j>10j{10i}", "10j"), "TK");
    assert_eq!(after(&mdd, &deva, "10j>10j{10i}", "10j"), "LN");
    moves(&mdd, &deva);
}

#[test]
fn contagion_options_decide_what_capturing_a_deva_or_teaching_king_makes() {
    let deva = compose(19, 'b', '-', &["10j=G", "10i=dv", "19s=K", "1a=k"]);
    let tk = compose(19, 'b', '-', &["10j=G", "10i=tk", "19s=K", "1a=k"]);
    let default = RuleSet::default_for("maka-dai-dai");
    let promoted_only = set("maka-dai-dai", "CONTAGION_MDD", "PROMOTED_ONLY");
    let none = set("maka-dai-dai", "CONTAGION_MDD", "NONE");
    // Capturing a Deva: contagious by default (one move, the Gold becomes a Teaching King).
    assert_eq!(after(&default, &deva, "10j>10i{10i}", "10i"), "TK");
    // Under PROMOTED_ONLY and NONE the normal, optional promotion to Free Gold instead.
    for rules in [&promoted_only, &none] {
        assert_eq!(after(rules, &deva, "10j>10i{10i}+", "10i"), "FG");
        assert_eq!(after(rules, &deva, "10j>10i{10i}=", "10i"), "G");
        moves(rules, &deva);
    }
    // Capturing a Teaching King (promoted: no choice): contagious unless NONE.
    assert_eq!(after(&promoted_only, &tk, "10j>10i{10i}", "10i"), "TK");
    assert_eq!(after(&none, &tk, "10j>10i{10i}", "10i"), "FG");
    moves(&none, &tk);
}

#[test]
fn pseudo_legal_lets_the_king_walk_into_capture_and_royal_capture_ends_the_game() {
    // A White Rook on file 8 guards 8p: the check-aware default forbids the King's step
    // there, PSEUDO_LEGAL allows it.
    let position = compose(17, 'b', '-', &["9q=K", "8a=r", "1a=k"]);
    let rules = set("dai-dai", "LEGALITY", "PSEUDO_LEGAL");
    let (appear, disappear) = difference(&rules, &position);
    assert_eq!(appear, texts(&["9q>8p", "9q>8q"]));
    assert!(disappear.is_empty());
    let mut game = Game::new(Position::parse_for(variant(&rules), &position).unwrap());
    game.play(game.position().parse_move("9q>8q").unwrap())
        .unwrap();
    game.play(game.position().parse_move("8a>8q{8q}").unwrap())
        .unwrap();
    let outcome = game.outcome().expect("the King was captured");
    assert_eq!(outcome.termination, Termination::RoyalCaptured);
    assert_eq!(outcome.winner, Some(tengu_rules::Color::White));
    // The check-aware game never gets there.
    let check_aware = Position::parse(&position).unwrap();
    let e = check_aware.parse_move("9q>8q").unwrap_err();
    assert!(e.to_string().contains("leaves Black in check"), "{e}");
}

#[test]
fn stalemate_draw_turns_the_loss_into_a_draw() {
    // Black's lone King in the corner, its three neighbours covered by two White Rooks: no
    // legal move, not in check.
    let position = compose(17, 'b', '-', &["17q=K", "1p=r", "16a=r", "9a=k"]);
    let default = Game::new(Position::parse(&position).unwrap());
    let outcome = default.outcome().expect("no legal move");
    assert_eq!(outcome.termination, Termination::NoLegalMove);
    assert_eq!(outcome.winner, Some(tengu_rules::Color::White));
    let rules = set("dai-dai", "STALEMATE", "DRAW");
    let draw = Game::new(Position::parse_for(variant(&rules), &position).unwrap());
    assert_eq!(draw.outcome().unwrap().winner, None);
}

#[test]
fn strict_repetition_forbids_the_move_back_to_an_earlier_position() {
    let position = compose(17, 'b', '-', &["9q=K", "9a=k"]);
    for (rules, forbidden) in [
        (RuleSet::default_for("dai-dai"), false),
        (set("dai-dai", "REPETITION", "STRICT"), true),
    ] {
        let mut game = Game::new(Position::parse_for(variant(&rules), &position).unwrap());
        for mv in ["9q>9p", "9a>9b", "9p>9q"] {
            game.play(game.position().parse_move(mv).unwrap()).unwrap();
        }
        let back = game.position().parse_move("9b>9a").unwrap();
        let mut legal = Vec::new();
        game.legal_moves(&mut legal);
        assert_eq!(legal.contains(&back), !forbidden, "{rules}");
        assert_eq!(game.play(back).is_err(), forbidden, "{rules}");
    }
}

#[test]
fn strict_repetition_leaves_a_side_whose_every_move_repeats_without_a_legal_move() {
    // White's King can only step between 1a and 1b (White's Lances on files 1 and 2 are
    // blocked by each other). Black's King steps out and back; White's only move, back to
    // 1a, would recreate the start position: under STRICT White has no legal move and loses.
    let mut pieces = vec!["9q=K".to_string(), "1a=k".to_string()];
    for rank in 'a'..='q' {
        if rank >= 'c' {
            pieces.push(format!("1{rank}=l"));
        }
        pieces.push(format!("2{rank}=l"));
    }
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let position = compose(17, 'b', '-', &pieces);
    for (rules, stuck) in [
        (RuleSet::default_for("dai-dai"), false),
        (set("dai-dai", "REPETITION", "STRICT"), true),
    ] {
        let mut game = Game::new(Position::parse_for(variant(&rules), &position).unwrap());
        for mv in ["9q>9p", "1a>1b", "9p>9q"] {
            game.play(game.position().parse_move(mv).unwrap()).unwrap();
        }
        assert_eq!(game.position().legal_move_list().len(), 1, "{rules}");
        assert_eq!(game.has_legal_move(), !stuck, "{rules}");
        assert_eq!(game.legal_move_list().is_empty(), stuck, "{rules}");
        let outcome = game.outcome();
        if stuck {
            let outcome = outcome.expect("no legal move ends the game");
            assert_eq!(outcome.termination, Termination::NoLegalMove);
            assert_eq!(outcome.winner, Some(tengu_rules::Color::Black));
        } else {
            assert_eq!(outcome, None, "{rules}");
        }
    }
}

#[test]
fn no_pass_removes_the_lions_pass_and_only_it() {
    let position = compose(17, 'b', '-', &["9i=LN", "17q=K", "1a=k"]);
    let (appear, disappear) = difference(&set("dai-dai", "PASS", "NO_PASS"), &position);
    assert!(appear.is_empty());
    assert_eq!(disappear, texts(&["9i>9i"]));
}

#[test]
fn qboard_pass_may_follow_a_pass() {
    // Black's Lion right after White's pass ('p'): §7.4 (c) forbids the second pass,
    // QBoard does not.
    let position = compose(17, 'b', 'p', &["9i=LN", "17q=K", "1a=k"]);
    let (appear, disappear) = difference(&set("dai-dai", "PASS", "QBOARD"), &position);
    assert_eq!(appear, texts(&["9i>9i"]));
    assert!(disappear.is_empty(), "{disappear:?}");
    // In a game: two Lion Dogs pass in turn, three times in a row; by default the second
    // pass is refused.
    let position = compose(17, 'b', '-', &["9i=LD", "9c=ld", "17q=K", "1a=k"]);
    for (rules, refused) in [
        (RuleSet::default_for("dai-dai"), true),
        (set("dai-dai", "PASS", "QBOARD"), false),
    ] {
        let mut game = Game::new(Position::parse_for(variant(&rules), &position).unwrap());
        game.play(game.position().parse_move("9i>9i").unwrap())
            .unwrap();
        let second = game.position().parse_move("9c>9c");
        assert_eq!(second.is_err(), refused, "{rules}: {second:?}");
        if refused {
            let e = second.unwrap_err().to_string();
            assert!(e.contains("a pass may not follow a pass"), "{e}");
            continue;
        }
        game.play(second.unwrap()).unwrap();
        game.play(game.position().parse_move("9i>9i").unwrap())
            .unwrap();
        assert!(game.position().after_pass() && game.position().pass_allowed());
    }
}

/// A Black lion-type piece `code` on 9i whose eight neighbours hold Black Golds, except
/// `enemy`, which holds a White Pawn.
fn walled_in(code: &str, enemy: Option<&str>) -> String {
    let mut pieces = vec![format!("9i={code}"), "17q=K".into(), "1a=k".into()];
    for sq in ["10h", "9h", "8h", "10i", "8i", "10j", "9j", "8j"] {
        let token = if Some(sq) == enemy { "p" } else { "G" };
        pieces.push(format!("{sq}={token}"));
    }
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    compose(17, 'b', '-', &pieces)
}

#[test]
fn qboard_pass_needs_a_neighbour_that_is_not_friendly_not_an_empty_one() {
    let qboard = set("dai-dai", "PASS", "QBOARD");
    for code in ["LN", "LD", "FF"] {
        // One neighbour is an enemy, none is empty: igui in both, the pass only in QBoard.
        let (appear, disappear) = difference(&qboard, &walled_in(code, Some("9h")));
        assert_eq!(appear, texts(&["9i>9i"]), "{code}");
        assert!(disappear.is_empty(), "{code}: {disappear:?}");
        // Every neighbour friendly: no pass under either.
        let (appear, disappear) = difference(&qboard, &walled_in(code, None));
        assert!(
            appear.is_empty() && disappear.is_empty(),
            "{code}: {appear:?} {disappear:?}"
        );
    }
    // The Lion Dog's pass comes from its own rays: an enemy diagonal neighbour counts too.
    let (appear, _) = difference(&qboard, &walled_in("LD", Some("8j")));
    assert_eq!(appear, texts(&["9i>9i"]));
}

#[test]
fn lion_queen_emperor_loses_the_leaps_and_gains_lion_moves() {
    let position = compose(
        19,
        'b',
        '-',
        &["10j=EM", "10k=p", "1a=k", "2a=g", "1b=g", "2b=g"],
    );
    let (appear, disappear) = difference(&set("maka-dai-dai", "EMPEROR", "LION_QUEEN"), &position);
    // A universal leaper reaches a knight's square; a Lion + Queen too (lion jump), but not
    // a square three files and one rank away.
    assert!(disappear.contains("10j>13i"), "{disappear:?}");
    assert!(!disappear.contains("10j>12i"));
    // Lion double moves through the captured Pawn, igui and the pass appear.
    assert!(
        appear.contains("10j>10j{10k}") && appear.contains("10j>10j"),
        "{appear:?}"
    );
}

#[test]
fn chu_promotions_make_a_lion_and_a_queen() {
    let position = compose(
        19,
        'b',
        '-',
        &["10j=KR", "9i=p", "5j=PH", "3h=p", "19s=K", "1a=k"],
    );
    let default = RuleSet::default_for("maka-dai-dai");
    let chu = set("maka-dai-dai", "KIRIN_PHOENIX_MDD", "CHU");
    assert_eq!(after(&default, &position, "10j>9i{9i}+", "9i"), "GD");
    assert_eq!(after(&chu, &position, "10j>9i{9i}+", "9i"), "+LN");
    assert_eq!(after(&default, &position, "5j>3h{3h}+", "3h"), "GBD");
    assert_eq!(after(&chu, &position, "5j>3h{3h}+", "3h"), "+Q");
    moves(&chu, &position);
    let v = variant(&chu);
    assert!(v.kind_index("GD").is_none() && v.kind_index("GBD").is_none());
}

#[test]
fn a_lion_dog_that_does_not_promote_leaves_no_great_elephant() {
    let position = compose(17, 'b', '-', &["9i=LD", "9h=p", "17q=K", "1a=k"]);
    let no = set("dai-dai", "LION_DOG_PROMOTES_DD", "NO");
    assert_eq!(
        after(
            &RuleSet::default_for("dai-dai"),
            &position,
            "9i>9h{9h}",
            "9h"
        ),
        "GE"
    );
    assert_eq!(after(&no, &position, "9i>9h{9h}", "9h"), "LD");
    moves(&no, &position);
    assert!(variant(&no).kind_index("GE").is_none());
    assert!(Position::parse_for(
        variant(&no),
        &compose(17, 'b', '-', &["9i=GE", "17q=K", "1a=k"])
    )
    .is_err());
}

/// `preset; canonical; depth; nodes` lines of `rules/tests/data/presets.rules-perft`.
fn preset_cases() -> Vec<(String, String, u32, u64)> {
    let text = std::fs::read_to_string(common::data_dir().join("presets.rules-perft")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(';').map(str::trim).collect();
            assert_eq!(f.len(), 4, "{l}");
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn preset_perft_from_the_initial_positions_matches_the_data() {
    let cases = preset_cases();
    for game in GAMES {
        for preset in PRESETS {
            assert!(
                cases.iter().any(|c| c.0 == preset.name
                    && RuleSet::parse_canonical(&c.1).unwrap().game() == game),
                "no perft data for preset {} of {game}",
                preset.name
            );
        }
    }
    for (preset, canonical, depth, nodes) in cases {
        let rules = RuleSet::parse_canonical(&canonical).unwrap();
        assert_eq!(
            RuleSet::preset(rules.game(), &preset).unwrap(),
            rules,
            "preset {preset} is no longer {canonical}"
        );
        let mut pos = Position::initial(variant(&rules));
        assert_eq!(perft(&mut pos, depth), nodes, "{canonical}: perft({depth})");
        let text = pos.to_string();
        let r = reference::perft_with(reference_rules(&rules), &text, depth).unwrap();
        assert_eq!(r, nodes, "{canonical}: reference perft({depth})");
    }
}

/// Prints the data file's lines from tengu's counts (to regenerate it; the tests above check
/// them against the reference): `cargo test -p tengu-rules --test rule_sets print_preset_perft -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_preset_perft() {
    for game in GAMES {
        for preset in PRESETS {
            let rules = RuleSet::preset(game, preset.name).unwrap();
            let mut pos = Position::initial(variant(&rules));
            for depth in 1..=3 {
                println!(
                    "{}; {}; {depth}; {}",
                    preset.name,
                    rules.canonical(),
                    perft(&mut pos, depth)
                );
            }
        }
    }
}

/// Every option and value name appears in `docs/rules.md`, the user's table of names.
#[test]
fn the_docs_page_names_every_option_and_value() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
    let docs = std::fs::read_to_string(&path).expect("docs/rules.md");
    for game in GAMES {
        for option in options(game) {
            assert!(
                docs.contains(&format!("`{}`", option.name)),
                "docs/rules.md lacks {}",
                option.name
            );
            for value in option.values {
                for name in value.names {
                    assert!(
                        docs.contains(name),
                        "docs/rules.md lacks {}={name}",
                        option.name
                    );
                }
            }
        }
    }
    for preset in PRESETS {
        assert!(
            docs.contains(&format!("`{}`", preset.name)),
            "docs/rules.md lacks preset {}",
            preset.name
        );
    }
}

/// Prints the tables of docs/rules.md from the option data:
/// `cargo test -p tengu-rules --test rule_sets print_docs_tables -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_docs_tables() {
    for game in GAMES {
        println!("\n### {game}\n\n| option | values (default first) |\n|---|---|");
        for option in options(game) {
            let values: Vec<String> = option
                .values
                .iter()
                .map(|v| {
                    let names = if v.names.is_empty() {
                        format!("`{}`", v.text)
                    } else {
                        v.names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(" / ")
                    };
                    let text = if v.names.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", v.text)
                    };
                    match v.effect {
                        Effect::Refused(why) => format!("~~{names}~~{text} (refused: {why})"),
                        _ => format!("{names}{text}"),
                    }
                })
                .collect();
            println!(
                "| `{}` {} | {} |",
                option.name,
                option.doc,
                values.join("; ")
            );
        }
    }
    println!("\n### presets\n\n| preset | source | dai-dai | maka-dai-dai |\n|---|---|---|---|");
    for preset in PRESETS {
        let sets: Vec<String> = GAMES
            .iter()
            .map(|g| {
                let c = RuleSet::preset(g, preset.name).unwrap().canonical();
                match c.split_once(':') {
                    Some((_, rest)) => format!("`{}`", rest.replace(',', "`, `")),
                    None => "defaults".into(),
                }
            })
            .collect();
        println!(
            "| `{}` | {} | {} | {} |",
            preset.name, preset.doc, sets[0], sets[1]
        );
    }
}

#[test]
fn a_two_capture_hook_checks_through_the_piece_it_takes() {
    // White's Hook Mover on 9e can take Black's Pawn on 9i, turn and reach Black's King on
    // 5i: check under TWO_CAPTURES, not by default (its own Pawn on 5e closes the other way).
    let position = compose(17, 'b', '-', &["9e=hm", "5e=p", "9i=P", "5i=K", "1a=k"]);
    let two = set("dai-dai", "HM", "TWO_CAPTURES");
    let default = Position::parse(&position).unwrap();
    let twice = Position::parse_for(variant(&two), &position).unwrap();
    assert!(!default.in_check() && twice.in_check());
    assert!(reference::legal_moves_with(reference_rules(&two), &position).is_ok());
    let (appear, disappear) = difference(&two, &position);
    assert!(appear.is_empty());
    // 4i is attacked only through the Pawn (6i already by turning on the empty 6e).
    assert_eq!(disappear, texts(&["5i>4i"]));
    // And the Hook's own double captures, from White's side.
    let white = compose(
        17,
        'w',
        '-',
        &["9e=hm", "5e=p", "9i=P", "5i=G", "9q=K", "1a=k"],
    );
    let (appear, _) = difference(&two, &white);
    assert!(
        appear.contains("9e>5i{9i,5i}") && appear.contains("9e>7i{9i}"),
        "{appear:?}"
    );
}

#[test]
fn random_positions_agree_with_the_reference_under_rule_sets() {
    let sets = [
        RuleSet::preset("dai-dai", "srz")
            .unwrap()
            .with("HM", "TWO_CAPTURES")
            .unwrap(),
        RuleSet::preset("dai-dai", "tsa")
            .unwrap()
            .with("PROMOTION_DD", "OPTIONAL_UNLESS_PROMOTED_VICTIM")
            .unwrap(),
        RuleSet::preset("maka-dai-dai", "japanese-revival")
            .unwrap()
            .with("HM", "TWO_CAPTURES")
            .unwrap()
            .with("CA", "TWO_CAPTURES")
            .unwrap()
            .with("EMPEROR", "LION_QUEEN")
            .unwrap(),
        RuleSet::preset("maka-dai-dai", "tsa")
            .unwrap()
            .with("PROMOTION_MDD", "MANDATORY")
            .unwrap(),
        RuleSet::preset("dai-dai", "qboard").unwrap(),
        RuleSet::preset("maka-dai-dai", "qboard").unwrap(),
    ];
    for rules in &sets {
        let v = variant(rules);
        let mut compared = 0;
        for seed in 0..100u64 {
            let text = common::random_placement(v.clone(), 9000 + seed, 6 + (seed as usize % 40))
                .to_string();
            if Position::parse_for(v.clone(), &text).is_err() {
                continue; // e.g. the side not to move is in check under this set
            }
            moves(rules, &text);
            compared += 1;
        }
        assert!(compared >= 60, "{rules}: only {compared} positions");
    }
}
