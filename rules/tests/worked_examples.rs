//! RULES.md Appendix C move sets, the C8 promotion vectors and the C9 pass and repetition
//! rules, checked move by move.

mod common;

use std::collections::BTreeSet;

use common::compose;
use tengu_rules::{Color, Game, Position, Termination};

/// Legal moves from `from`, in §12.3 notation with the promotion mark removed (triples).
fn triples_from(pos: &Position, from: &str) -> BTreeSet<String> {
    pos.legal_move_list()
        .into_iter()
        .map(|m| pos.move_text(m))
        .filter(|t| t.split('>').next() == Some(from))
        .map(|t| t.trim_end_matches(['+', '=']).to_string())
        .collect()
}

fn expand(from: &str, items: &str) -> BTreeSet<String> {
    items
        .split_whitespace()
        .map(|i| format!("{from}>{i}"))
        .collect()
}

const C1: &str =
    "1,k,17/19/19/19/19/19/19/9,p,9/9,p,9/7,P,1,LN,9/19/19/19/19/19/19/19/19/17,K,1 b -";

#[test]
fn c1_lion() {
    let pos = Position::parse(C1).unwrap();
    let expected = expand(
        "10j",
        "8h 9h 10h{10h} 11h 12h 8i 9i 10i{10i} 11i 12i 8j 9j 11j 8k 9k 10k 11k 12k 8l 9l 10l 11l 12l \
         10j{10i} 10j 9h{10i} 10h{10h,10i} 11h{10i} 9i{10i} 11i{10i} 9j{10i} 11j{10i}",
    );
    assert_eq!(triples_from(&pos, "10j"), expected);
    let all = pos.legal_move_list();
    assert_eq!(
        all.iter()
            .filter(|m| pos.move_text(**m).starts_with("10j>"))
            .count(),
        42
    );
    assert_eq!(all.len(), 48);
}

#[test]
fn c1_lion_dog() {
    let pos = Position::parse(&C1.replace("LN", "LD")).unwrap();
    let expected = expand(
        "10j",
        "10i{10i} 10h{10h} 10g 10j{10i} 10h{10h,10i} 10i{10h,10i} 10g{10h} 10g{10h,10i} 11j 13j \
         9j 8j 7j 10k 10l 10m 11i 12h 13g 9i 8h 7g 11k 12l 13m 9k 8l 7m 10j",
    );
    assert_eq!(triples_from(&pos, "10j"), expected);
    assert_eq!(pos.legal_move_list().len(), 42);
}

#[test]
fn c1_furious_fiend_teaching_king_buddhist_spirit() {
    let ff = Position::parse(&C1.replace("LN", "FF")).unwrap();
    let lion = triples_from(&Position::parse(C1).unwrap(), "10j");
    let extra = expand(
        "10j",
        "10g 10g{10h} 10g{10h,10i} 10i{10h,10i} 13j 7j 10m 13g 7g 13m 7m",
    );
    let union: BTreeSet<String> = lion.union(&extra).cloned().collect();
    assert_eq!(triples_from(&ff, "10j"), union);
    assert_eq!(triples_from(&ff, "10j").len(), 43);

    let tk = Position::parse(&C1.replace("LN", "TK")).unwrap();
    assert_eq!(triples_from(&tk, "10j").len(), 65);
    for m in expand(
        "10j",
        "10h{10h} 10g 10j{10i} 10h{10h,10i} 10i{10h,10i} 10g{10h} 10g{10h,10i} 13j 10j",
    ) {
        assert!(triples_from(&tk, "10j").contains(&m), "TK lacks {m}");
    }
    let bs = Position::parse(&C1.replace("LN", "BS")).unwrap();
    assert_eq!(triples_from(&bs, "10j").len(), 74);
    for m in expand("10j", "10h{10h} 12i 12k 8i 8k 11h 9h 11l 9l 10j{10i} 10j 9h{10i} 10h{10h,10i} 11h{10i} 9i{10i} 11i{10i} 9j{10i} 11j{10i}") {
        assert!(triples_from(&bs, "10j").contains(&m), "BS lacks {m}");
    }
}

#[test]
fn c2_lion_dog_with_friendly_blockers() {
    let pos = Position::parse(
        "1,k,15/17/17/17/17/5,p,11/6,p,10/7,P,9/8,LD,1,P,p,5/17/17/17/17/17/17/17/15,K,1 b -",
    )
    .unwrap();
    let expected = expand(
        "9i",
        "11g{11g} 12f{12f} 12f{12f,11g} 8i 6i{6i} 9h 9g 9f 9j 9k 9l 10i 11i 12i 8h 7g 6f 10j 11k 12l 8j 7k 6l 9i",
    );
    assert_eq!(triples_from(&pos, "9i"), expected);
}

#[test]
fn c3_c4_hook_movers() {
    let hm =
        Position::parse("k,16/17/17/17/8,p,8/17/17/17/5,P,2,HM,8/17/17/17/17/17/17/17/K,16 b -")
            .unwrap();
    let moves = triples_from(&hm, "9i");
    assert_eq!(moves.len(), 247);
    assert!(moves.contains("9i>9e{9e}") && !moves.contains("9i>9d") && !moves.contains("9i>13i"));
    let ca = Position::parse(
        "1,k,17/19/19/19/19/19/12,p,6/7,P,11/19/9,CA,9/19/19/19/19/19/19/19/19/17,K,1 b -",
    )
    .unwrap();
    assert_eq!(triples_from(&ca, "10j").len(), 151);
    let texts: BTreeSet<String> = ca
        .legal_move_list()
        .into_iter()
        .map(|m| ca.move_text(m))
        .collect();
    assert!(texts.contains("10j>7g{7g}+") && texts.contains("10j>7g{7g}="));
    let lo = Position::parse("1,k,15/17/17/17/17/17/17/17/8,LO,8/17/17/17/17/17/17/17/15,K,1 b -")
        .unwrap();
    assert_eq!(triples_from(&lo, "9i").len(), 148);
}

#[test]
fn c5_c6_emperors() {
    let pos = Position::parse(
        "9,k,9/8,s,1,g,8/16,p,2/19/19/19/19/19/19/9,EM,9/19/19/19/19/19/19/19/19/19 b -",
    )
    .unwrap();
    let moves = triples_from(&pos, "10j");
    assert_eq!(moves.len(), 346);
    assert!(moves.contains("10j>3c{3c}"));
    for attacked in [
        "9a", "11a", "12a", "8b", "10b", "8c", "9c", "10c", "11c", "12c", "3d",
    ] {
        assert!(
            !moves.contains(&format!("10j>{attacked}")),
            "{attacked} is attacked"
        );
    }
    let mut pseudo = Vec::new();
    pos.pseudo_legal_moves(&mut pseudo);
    assert_eq!(pseudo.len(), 357);

    let pos = Position::parse(
        "19/9,g,9/9,em,9/9,p,9/19/19/19/19/19/9,EM,9/9,G,9/19/19/19/19/19/19/19/19 b -",
    )
    .unwrap();
    let all: BTreeSet<String> = pos
        .legal_move_list()
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect();
    let expected: BTreeSet<String> = [
        "10j>9j", "10j>11j", "10j>9k", "10j>11k", "10j>10l", "10k>9j", "10k>11j", "10k>9k",
        "10k>11k",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(all, expected);
    let mut pseudo = Vec::new();
    pos.pseudo_legal_moves(&mut pseudo);
    assert_eq!(
        pseudo
            .iter()
            .filter(|m| pos.move_text(**m).starts_with("10j>"))
            .count(),
        356
    );
}

#[test]
fn c7_great_elephant() {
    let pos = Position::parse(
        "1,k,15/17/17/17/17/17/8,p,8/8,p,8/8,GE,8/7,p,9/17/17/17/17/17/17/15,K,1 b -",
    )
    .unwrap();
    let expected = expand(
        "9i",
        "9h{9h} 9j 9k 9l 9m 9n 9o 9p 9q 10i 11i 12i 13i 14i 15i 16i 17i 8i 7i 6i 5i 4i 3i 2i 1i 10j{10j} \
         8j 7k 6l 5m 4n 3o 2p 1q 10h 11g 8h 7g \
         9g{9g} 9f 9i{9h} 9g{9g,9h} 9h{9g,9h} 9f{9g} 9f{9g,9h} \
         11k 12l 9i{10j} 11k{10j} 12l{10j} 9i",
    );
    assert_eq!(triples_from(&pos, "9i"), expected);
}

/// Plays `mv` in the position of `pieces` and returns the token now on `at`, checking that
/// the move exists exactly with the given marks.
fn promote(size: usize, pieces: &[&str], mv: &str, marks: &[&str], at: &str) -> Vec<String> {
    let pos = Position::parse(&compose(size, 'b', '-', pieces)).unwrap();
    let texts: BTreeSet<String> = pos
        .legal_move_list()
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect();
    let mut tokens = Vec::new();
    for mark in marks {
        let full = format!("{mv}{mark}");
        assert!(
            texts.contains(&full),
            "{full} missing; have {:?}",
            texts
                .iter()
                .filter(|t| t.starts_with(mv))
                .collect::<Vec<_>>()
        );
        let mut after = pos.clone();
        after.play_text(&full).unwrap();
        let square = tengu_rules::notation::parse_square(at, size).unwrap();
        let piece = after.piece_at(square).expect("piece on destination");
        tokens.push(tengu_rules::notation::piece_token(after.variant(), piece));
    }
    let variants = texts
        .iter()
        .filter(|t| t.trim_end_matches(['+', '=']) == mv)
        .count();
    assert_eq!(variants, marks.len(), "{mv}: expected marks {marks:?}");
    tokens
}

const MDD_KINGS: [&str; 2] = ["18s=K", "2a=k"];

fn mdd(extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = MDD_KINGS.to_vec();
    v.extend_from_slice(extra);
    v
}

#[test]
fn c8_maka_dai_dai_promotion_vectors() {
    // 1. Pawn: optional Gold on an unpromoted victim, mandatory on a promoted one.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=P", "10i=p"]),
            "10j>10i{10i}",
            &["+", "="],
            "10i"
        ),
        ["+G", "P"]
    );
    assert_eq!(
        promote(19, &mdd(&["10j=P", "10i=+g"]), "10j>10i{10i}", &[""], "10i"),
        ["+G"]
    );
    assert_eq!(
        promote(19, &mdd(&["10j=+G", "10i=p"]), "10j>10i{10i}", &[""], "10i"),
        ["+G"]
    );
    // 2. Original Gold -> Free Gold.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=G", "10i=p"]),
            "10j>10i{10i}",
            &["+", "="],
            "10i"
        ),
        ["FG", "G"]
    );
    assert_eq!(
        promote(19, &mdd(&["10j=G", "10i=fg"]), "10j>10i{10i}", &[""], "10i"),
        ["FG"]
    );
    // 3. Contagion.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=FG", "10i=dv"]),
            "10j>10i{10i}",
            &[""],
            "10i"
        ),
        ["TK"]
    );
    assert_eq!(
        promote(19, &mdd(&["10j=Q", "10i=ds"]), "10j>10i{10i}", &[""], "10i"),
        ["BS"]
    );
    assert_eq!(
        promote(19, &mdd(&["10j=Q", "10i=p"]), "10j>10i{10i}", &[""], "10i"),
        ["Q"]
    );
    // 4. King -> Emperor, never Teaching King.
    let king = |victim: &'static str| vec!["10j=K", "2a=k", victim];
    assert_eq!(
        promote(19, &king("10i=p"), "10j>10i{10i}", &["+", "="], "10i"),
        ["EM", "K"]
    );
    assert_eq!(
        promote(19, &king("10i=dv"), "10j>10i{10i}", &["+", "="], "10i"),
        ["EM", "K"]
    );
    assert_eq!(
        promote(19, &king("10i=fs"), "10j>10i{10i}", &[""], "10i"),
        ["EM"]
    );
    // 5. Drunk Elephant -> Prince; Prince and Emperor stay.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=DE", "10i=tk"]),
            "10j>10i{10i}",
            &[""],
            "10i"
        ),
        ["PR"]
    );
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=DE", "10i=p"]),
            "10j>10i{10i}",
            &["+", "="],
            "10i"
        ),
        ["PR", "DE"]
    );
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=PR", "10i=bs"]),
            "10j>10i{10i}",
            &[""],
            "10i"
        ),
        ["PR"]
    );
    assert_eq!(
        promote(
            19,
            &["10j=EM", "2a=k", "3a=g", "10i=tk"],
            "10j>10i{10i}",
            &[""],
            "10i"
        ),
        ["EM"]
    );
    // 6. Lion igui on a Deva -> Teaching King.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=LN", "10i=dv"]),
            "10j>10j{10i}",
            &[""],
            "10j"
        ),
        ["TK"]
    );
    // 7. Lion Dog captures a Pawn -> optional Gold.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=LD", "10i=p"]),
            "10j>10i{10i}",
            &["+", "="],
            "10i"
        ),
        ["+G", "LD"]
    );
    // 8. Deciding victim: the destination's, else the farthest.
    let ld = mdd(&["10j=LD", "10i=dv", "10h=ds"]);
    assert_eq!(promote(19, &ld, "10j>10g{10h,10i}", &[""], "10g"), ["BS"]);
    assert_eq!(promote(19, &ld, "10j>10i{10h,10i}", &[""], "10i"), ["TK"]);
}

#[test]
fn c8_dai_dai_promotion_vectors() {
    let dd = |extra: &[&'static str]| {
        let mut v = vec!["16q=K", "2a=k", "2b=g", "3a=g", "1b=g"];
        v.extend_from_slice(extra);
        v
    };
    assert_eq!(
        promote(17, &dd(&["9i=EBA", "9h=p"]), "9i>9h{9h}", &[""], "9h"),
        ["+LN"]
    );
    assert_eq!(
        promote(17, &dd(&["9i=+LN", "9h=p"]), "9i>9h{9h}", &[""], "9h"),
        ["+LN"]
    );
    for (mover, result) in [("LN", "FF"), ("LD", "GE"), ("CS", "+DH"), ("FD", "+DK")] {
        let pieces = dd(&[Box::leak(format!("9i={mover}").into_boxed_str()), "8h=p"]);
        assert_eq!(
            promote(17, &pieces, "9i>8h{8h}", &[""], "8h"),
            [result],
            "{mover}"
        );
    }
    assert_eq!(
        promote(17, &dd(&["9i=OK", "8h=p"]), "9i>8h{8h}", &[""], "8h"),
        ["+LO"]
    );
    for mover in ["Q", "G", "HM"] {
        let pieces = dd(&[Box::leak(format!("9i={mover}").into_boxed_str()), "9h=p"]);
        assert_eq!(promote(17, &pieces, "9i>9h{9h}", &[""], "9h"), [mover]);
    }
    assert_eq!(
        promote(17, &["9i=K", "2a=k", "9h=p"], "9i>9h{9h}", &[""], "9h"),
        ["K"]
    );
}

#[test]
fn c9_no_two_passes_in_a_row() {
    let start = compose(17, 'b', '-', &["9q=K", "9a=k", "9i=LN", "9e=ln"]);
    let mut pos = Position::parse(&start).unwrap();
    assert!(pos.legal_move_list().iter().any(|m| m.is_pass()));
    pos.play_text("9i>9i").unwrap();
    assert!(pos.after_pass());
    assert!(
        !pos.legal_move_list().iter().any(|m| m.is_pass()),
        "White may not pass after a pass"
    );
    let err = pos.parse_move("9e>9e").unwrap_err();
    assert!(err.0.contains("pass"), "{err}");
    pos.play_text("9a>8a").unwrap();
    assert!(
        pos.legal_move_list().iter().any(|m| m.is_pass()),
        "Black may pass again"
    );
}

#[test]
fn c9_fourth_occurrence_is_a_draw() {
    let start = compose(17, 'b', '-', &["9q=K", "9a=k", "1q=G", "1a=g"]);
    let mut game = Game::new(Position::parse(&start).unwrap());
    let cycle = ["1q>2q", "1a>2a", "2q>1q", "2a>1a"];
    for round in 0..3 {
        for (i, mv) in cycle.iter().enumerate() {
            assert!(
                game.outcome().is_none(),
                "ended early at round {round}, move {i}"
            );
            let m = game.position().parse_move(mv).unwrap();
            game.play(m).unwrap();
        }
    }
    let outcome = game.outcome().expect("fourth occurrence ends the game");
    assert_eq!(outcome.termination, Termination::Repetition);
    assert_eq!(outcome.winner, None);
    assert_eq!(game.repetitions(), 4);
}

#[test]
fn c9_perpetual_checker_loses() {
    // Black's rook checks on every move; White's king shuttles.
    let start = compose(17, 'b', '-', &["9q=K", "1a=k", "3b=R", "17a=p"]);
    let mut game = Game::new(Position::parse(&start).unwrap());
    let cycle = ["3b>3a", "1a>1b", "3a>3b", "1b>1a"];
    for _ in 0..3 {
        for mv in cycle {
            assert!(game.outcome().is_none());
            let m = game.position().parse_move(mv).unwrap();
            game.play(m).unwrap();
        }
    }
    let outcome = game.outcome().expect("fourth occurrence ends the game");
    assert_eq!(outcome.termination, Termination::PerpetualCheck);
    assert_eq!(outcome.winner, Some(Color::White));
}

#[test]
fn no_legal_move_loses() {
    let mate = Game::new(
        Position::parse(&compose(17, 'w', '-', &["1a=k", "3a=R", "3b=R", "9q=K"])).unwrap(),
    );
    let o = mate.outcome().unwrap();
    assert_eq!(
        (o.winner, o.termination),
        (Some(Color::Black), Termination::Checkmate)
    );
    let stalemate = Game::new(
        Position::parse(&compose(17, 'w', '-', &["1a=k", "3b=R", "2c=R", "9q=K"])).unwrap(),
    );
    let o = stalemate.outcome().unwrap();
    assert_eq!(
        (o.winner, o.termination),
        (Some(Color::Black), Termination::NoLegalMove)
    );
}

/// RULES.md v1.2 §4, "No second Prince": a side that owns a Prince cannot promote a Drunk
/// Elephant; an optional promotion leaves only the declining `=` move, a mandatory one (a
/// promoted victim) no move at all.
#[test]
fn no_second_prince() {
    let legal = |pos: &Position| -> BTreeSet<String> {
        pos.legal_move_list()
            .into_iter()
            .map(|m| pos.move_text(m))
            .collect()
    };
    let with = |m: &str, set: &BTreeSet<String>| -> Vec<String> {
        set.iter()
            .filter(|t| t.trim_end_matches(['+', '=']) == m)
            .cloned()
            .collect()
    };
    // A Prince and a Drunk Elephant: only the declining capture of an unpromoted victim.
    assert_eq!(
        promote(
            19,
            &mdd(&["10j=DE", "10i=p", "5e=PR"]),
            "10j>10i{10i}",
            &["="],
            "10i"
        ),
        ["DE"]
    );
    // ... and no capture at all of a promoted victim (the promotion would be mandatory).
    let pos =
        Position::parse(&compose(19, 'b', '-', &mdd(&["10j=DE", "10i=tk", "5e=PR"]))).unwrap();
    assert_eq!(with("10j>10i{10i}", &legal(&pos)), Vec::<String>::new());
    // Two Drunk Elephants: both may promote until one has.
    let two = compose(19, 'b', '-', &mdd(&["10j=DE", "10i=p", "4e=DE", "4d=tk"]));
    let mut pos = Position::parse(&two).unwrap();
    assert_eq!(
        with("10j>10i{10i}", &legal(&pos)),
        ["10j>10i{10i}+", "10j>10i{10i}="]
    );
    assert_eq!(with("4e>4d{4d}", &legal(&pos)), ["4e>4d{4d}"]);
    pos.play_text("4e>4d{4d}").unwrap();
    pos.play_text("2a>2b").unwrap();
    assert_eq!(with("10j>10i{10i}", &legal(&pos)), ["10j>10i{10i}="]);
    // The position of issue #11 (White to move): its Drunk Elephant on 18j may capture on
    // 18k, 19i and 19k, never promoting (White owns a Prince), declining where it may.
    let issue = "19/19/11,FTL,7/flp,17,FEA/LN,18/19/19/19/FF,LD,fbo,16/pr,de,LC,2,ca,11,OM,1/DS,LN,bs,1,PR,11,ff,hm,BS/4,K,10,ld,ln,OM,tk/15,HM,ff,BS,k/15,LN,ff,FBR,1/RV,14,RC,ca,2/19/19/19/19 w -";
    let pos = Position::parse(issue).unwrap();
    let moves = legal(&pos);
    let from_de: Vec<&String> = moves.iter().filter(|m| m.starts_with("18j>")).collect();
    assert!(from_de.iter().all(|m| !m.ends_with('+')), "{from_de:?}");
    let captures: Vec<&&String> = from_de.iter().filter(|m| m.contains('{')).collect();
    assert!(
        !captures.is_empty() && captures.iter().all(|m| m.ends_with('=')),
        "{from_de:?}"
    );
    // Every move keeps the position valid: at most one Prince a side.
    for m in pos.legal_move_list() {
        let mut after = pos.clone();
        after.play(m);
        Position::parse(&after.to_string())
            .unwrap_or_else(|e| panic!("after {}: {e}", pos.move_text(m)));
    }
}
