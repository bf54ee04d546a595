//! Elo and SPRT against known values; baseline players ranked as they must be; an
//! interrupted match continues.

use std::time::Duration;

use tengu_arena::elo::{elo_from_score, elo_interval, score_from_elo, Score, Sprt, SprtDecision};
use tengu_arena::matches::{self, MatchOptions};
use tengu_rules::{EndPolicy, GameEnd, Variant};
use tengu_search::players::{AlphaBetaPlayer, GreedyPlayer, RandomPlayer};

#[test]
fn elo_matches_known_values() {
    assert!(elo_from_score(0.5).abs() < 1e-9);
    assert!((elo_from_score(0.75) - 190.8485).abs() < 1e-3);
    assert!((elo_from_score(0.64) - 99.951).abs() < 1e-3);
    assert!((elo_from_score(0.25) + 190.8485).abs() < 1e-3);
    for elo in [-300.0, -35.0, 0.0, 12.5, 400.0] {
        assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-6);
    }
    // +60 =20 -20: mean 0.7, per-game variance 0.16; Wilson 95% score interval with the
    // variance of a 20% draw share 0.61531 .. 0.76989, so Elo 81.59 .. 209.80.
    let s = Score {
        wins: 60,
        draws: 20,
        losses: 20,
    };
    assert!((s.mean() - 0.7).abs() < 1e-12 && (s.variance() - 0.16).abs() < 1e-12);
    let e = elo_interval(&s);
    assert!(
        (e.low - 81.594).abs() < 0.01
            && (e.elo - 147.191).abs() < 0.01
            && (e.high - 209.798).abs() < 0.01,
        "{e:?}"
    );
    assert_eq!(e.to_string(), "+147.2 (95% interval +81.6 .. +209.8)");
}

fn score(wins: u64, draws: u64, losses: u64) -> Score {
    Score {
        wins,
        draws,
        losses,
    }
}

#[test]
fn a_perfect_score_has_a_finite_lower_bound_and_no_upper_one() {
    // 20-0: the Wilson lower end is n / (n + z^2) = 0.83887, Elo +286.61; no upper end.
    let e = elo_interval(&score(20, 0, 0));
    assert!((e.low - 286.614).abs() < 0.01, "{e:?}");
    assert!(e.high == f64::INFINITY && e.elo == f64::INFINITY, "{e:?}");
    assert_eq!(e.to_string(), ">= +286.6 (95% interval, no upper bound)");
    let (low, elo, high) = e.to_json();
    assert!((low.as_f64().unwrap() - 286.614).abs() < 0.01);
    assert!(elo.is_null() && high.is_null());
    // More games, a higher bound.
    assert!(elo_interval(&score(100, 0, 0)).low > e.low + 200.0);
}

#[test]
fn a_zero_score_has_a_finite_upper_bound_and_no_lower_one() {
    let e = elo_interval(&score(0, 0, 20));
    assert!((e.high + 286.614).abs() < 0.01, "{e:?}");
    assert!(
        e.low == f64::NEG_INFINITY && e.elo == f64::NEG_INFINITY,
        "{e:?}"
    );
    assert_eq!(e.to_string(), "<= -286.6 (95% interval, no lower bound)");
    let (low, elo, high) = e.to_json();
    assert!(low.is_null() && elo.is_null());
    assert!((high.as_f64().unwrap() + 286.614).abs() < 0.01);
}

#[test]
fn an_even_score_has_a_symmetric_interval() {
    // 10-10: score 0.5, Wilson 0.29930 .. 0.70070, Elo -147.77 .. +147.77.
    let e = elo_interval(&score(10, 0, 10));
    assert!(e.elo.abs() < 1e-9, "{e:?}");
    assert!(
        (e.high - 147.772).abs() < 0.01 && (e.low + e.high).abs() < 1e-6,
        "{e:?}"
    );
    assert_eq!(e.to_string(), "+0.0 (95% interval -147.8 .. +147.8)");
    // Twenty draws are an even score too, known more precisely than ten wins and ten
    // losses, but not exactly: -31.3 .. +31.3.
    let d = elo_interval(&score(0, 20, 0));
    assert!(
        d.elo.abs() < 1e-9 && (d.high - 31.269).abs() < 0.01 && (d.low + d.high).abs() < 1e-6,
        "{d:?}"
    );
    // No games: nothing is known.
    assert_eq!(
        elo_interval(&Score::default()).to_string(),
        "unknown (no games)"
    );
}

#[test]
fn sprt_bounds_llr_and_decisions() {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let (lo, hi) = sprt.bounds();
    assert!((lo + 2.944439).abs() < 1e-5 && (hi - 2.944439).abs() < 1e-5);
    let s = Score {
        wins: 60,
        draws: 20,
        losses: 20,
    };
    assert!((sprt.llr(&s) - 7.33696).abs() < 1e-4, "{}", sprt.llr(&s));
    assert_eq!(sprt.decide(&s), SprtDecision::AcceptH1);
    assert_eq!(
        sprt.decide(&Score {
            wins: 20,
            draws: 20,
            losses: 60
        }),
        SprtDecision::AcceptH0
    );
    assert_eq!(
        sprt.decide(&Score {
            wins: 3,
            draws: 2,
            losses: 3
        }),
        SprtDecision::Continue
    );
}

fn options(games: u64, out: Option<std::path::PathBuf>) -> MatchOptions {
    MatchOptions {
        variant: Variant::dai_dai(),
        games,
        opening_plies: 4,
        openings: None,
        end: EndPolicy::capped_at(300, Some(1.5)),
        seed: 3,
        out,
        sprt: None,
    }
}

#[test]
fn greedy_is_far_ahead_of_random() {
    let variant = Variant::dai_dai();
    let mut greedy = GreedyPlayer::new(&variant, 1);
    let mut random = RandomPlayer::new(2);
    let summary =
        matches::run(&mut greedy, &mut random, &options(10, None), &mut |_, _| {}).unwrap();
    let s = summary.score;
    assert!(s.mean() >= 0.9, "{s:?}");
    // The end-of-game material share agrees with the adjudications.
    for r in &summary.results {
        if r.termination == GameEnd::Adjudicated {
            let won = r.result == 1;
            assert_eq!(r.material_share >= 0.6, won, "{r:?}");
            assert_eq!(r.material_share <= 0.4, !won, "{r:?}");
        }
    }
    let (share, se) = summary.material_share();
    assert!(
        share > 0.6 && se < 0.1,
        "greedy's material share {share} +- {se}"
    );
}

#[test]
fn alpha_beta_beats_greedy() {
    let variant = Variant::dai_dai();
    // Depth 2 without a time limit, so the result does not depend on the machine's speed.
    let mut ab = AlphaBetaPlayer::new(&variant, Duration::from_secs(600), 2, 1);
    let mut greedy = GreedyPlayer::new(&variant, 2);
    let opts = MatchOptions {
        end: EndPolicy::capped_at(400, Some(1.5)),
        ..options(2, None)
    };
    let s = matches::run(&mut ab, &mut greedy, &opts, &mut |_, _| {})
        .unwrap()
        .score;
    assert!(s.mean() >= 0.75, "{s:?}");
}

#[test]
fn an_interrupted_match_continues() {
    let dir = tempfile::tempdir().unwrap();
    let variant = Variant::dai_dai();
    let out = Some(dir.path().to_path_buf());
    let (mut a, mut b) = (GreedyPlayer::new(&variant, 1), RandomPlayer::new(2));
    let first = matches::run(&mut a, &mut b, &options(4, out.clone()), &mut |_, _| {}).unwrap();
    assert_eq!(first.results.len(), 4);
    let mut new_games = 0;
    let second = matches::run(&mut a, &mut b, &options(6, out.clone()), &mut |_, _| {
        new_games += 1
    })
    .unwrap();
    assert_eq!(new_games, 2, "only the missing games are played");
    assert_eq!(second.score.games(), 6);
    let lines = std::fs::read_to_string(dir.path().join("results.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 6);
    let records = std::fs::read_dir(dir.path().join("games")).unwrap().count();
    assert_eq!(records, 6);
    for entry in std::fs::read_dir(dir.path().join("games")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        tengu_rules::Record::parse(&text).unwrap();
    }
}

#[test]
fn parallel_games_play_every_index_once() {
    let dir = tempfile::tempdir().unwrap();
    let variant = Variant::dai_dai();
    let mut pairs: Vec<(GreedyPlayer, RandomPlayer)> = (0..3)
        .map(|k| (GreedyPlayer::new(&variant, k), RandomPlayer::new(100 + k)))
        .collect();
    let refs: Vec<(
        &mut dyn tengu_search::players::Player,
        &mut dyn tengu_search::players::Player,
    )> = pairs.iter_mut().map(|(a, b)| (a as _, b as _)).collect();
    let summary = matches::run_parallel(
        refs,
        &options(12, Some(dir.path().to_path_buf())),
        &mut |_, _| {},
    )
    .unwrap();
    let indices: Vec<u64> = summary.results.iter().map(|r| r.index).collect();
    assert_eq!(indices, (0..12).collect::<Vec<_>>());
    assert_eq!(summary.score.games(), 12);
    assert!(summary.score.mean() >= 0.9, "{:?}", summary.score);
    assert_eq!(
        std::fs::read_dir(dir.path().join("games")).unwrap().count(),
        12
    );
}

#[test]
fn pairs_start_from_the_openings_of_a_file_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let variant = Variant::dai_dai();
    let text = "# two openings\nstart\n9l>9k 9f>9g 13l>13k # ply 3\n";
    let openings = tengu_rules::parse_openings(&variant, text).unwrap();
    let opts = MatchOptions {
        end: EndPolicy::capped_at(12, Some(1.5)),
        openings: Some(std::sync::Arc::new(openings.clone())),
        ..options(6, Some(dir.path().to_path_buf()))
    };
    let (mut a, mut b) = (GreedyPlayer::new(&variant, 1), RandomPlayer::new(2));
    let summary = matches::run(&mut a, &mut b, &opts, &mut |_, _| {}).unwrap();
    // Pairs 0, 1, 2 take openings 0, 1, 0 (file order, wrapping round).
    let used: Vec<Option<u64>> = summary.results.iter().map(|r| r.opening).collect();
    assert_eq!(used, [0, 0, 1, 1, 0, 0].map(Some));
    let pairs = summary.pairs();
    assert_eq!((pairs.pairs(), pairs.unpaired), (3, 0));
    for r in &summary.results {
        let path = dir
            .path()
            .join("games")
            .join(format!("game-{:05}.record", r.index));
        let record = tengu_rules::Record::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let opening = &openings[r.opening.unwrap() as usize];
        let moves: Vec<_> = record.game.moves().collect();
        assert_eq!(moves[..opening.moves.len()], opening.moves[..]);
        assert_eq!(
            record.tag("Opening"),
            Some(r.opening.unwrap().to_string().as_str())
        );
        assert_eq!(
            record.tag("OpeningLine"),
            Some(opening.line.to_string().as_str())
        );
        assert!(r.plies <= 12);
    }
    // A rerun in the same directory continues only a match on the same openings: the
    // same file plays nothing new, random openings start their own games.
    let mut played = 0;
    matches::run(&mut a, &mut b, &opts, &mut |_, _| played += 1).unwrap();
    assert_eq!(played, 0, "the same openings: the match is complete");
    let random = MatchOptions {
        end: EndPolicy::capped_at(12, Some(1.5)),
        ..options(6, Some(dir.path().to_path_buf()))
    };
    let again = matches::run(&mut a, &mut b, &random, &mut |_, _| played += 1).unwrap();
    assert_eq!(
        played, 6,
        "other openings: none of the file's games is reused"
    );
    assert!(again.results.iter().all(|r| r.opening.is_none()));
    // Results written before openings files (no "opening" key) still read.
    let old = r#"{"index":0,"a":"x","b":"y","a_is_black":true,"result":1,"plies":3,"termination":"checkmate","material_share":0.5}"#;
    let r: matches::GameResult = serde_json::from_str(old).unwrap();
    assert_eq!(r.opening, None);
    // Random openings write no "opening" key.
    assert!(!serde_json::to_string(&r).unwrap().contains("opening"));
}

#[test]
fn player_specs_are_parsed_and_their_numbers_range_checked() {
    use tengu_search::players::{PlayerSpec, PlayerSpecError};
    let parse = |s: &str| s.parse::<PlayerSpec>();
    assert_eq!(parse("greedy"), Ok(PlayerSpec::Greedy));
    assert_eq!(
        parse("alphabeta"),
        Ok(PlayerSpec::AlphaBeta { ms: 200, depth: 4 })
    );
    assert_eq!(
        parse("alphabeta:50:3"),
        Ok(PlayerSpec::AlphaBeta { ms: 50, depth: 3 })
    );
    assert_eq!(
        parse("checkpoint:m.safetensors"),
        Ok(PlayerSpec::Checkpoint {
            path: "m.safetensors".into(),
            visits: 64
        })
    );
    assert_eq!(
        parse("checkpoint:s3://b/r/models/model-000000001.safetensors:8"),
        Ok(PlayerSpec::Checkpoint {
            path: "s3://b/r/models/model-000000001.safetensors".into(),
            visits: 8
        })
    );
    for (bad, what, max) in [
        ("checkpoint:m:0", "checkpoint visits", 1_000_000),
        (
            "checkpoint:m:99999999999999",
            "checkpoint visits",
            1_000_000,
        ),
        ("checkpoint:m:many", "checkpoint visits", 1_000_000),
        ("alphabeta:0", "alphabeta time per move (ms)", 600_000),
        ("alphabeta:50:65", "alphabeta depth", 64),
    ] {
        let e = parse(bad).unwrap_err();
        assert!(
            matches!(&e, PlayerSpecError::OutOfRange { what: w, max: m, .. } if *w == what && *m == max),
            "{bad}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("from 1 to {max}")), "{e}");
    }
    for bad in [
        "grandmaster",
        "greedy:1",
        "checkpoint",
        "checkpoint:",
        "policy:a:b",
    ] {
        assert_eq!(
            parse(bad),
            Err(PlayerSpecError::Unknown(bad.into())),
            "{bad}"
        );
    }
}

/// A damaged ladder report (an Elo of 1e15, 1e308 CPU-hours: found by fuzzing, issue #55)
/// draws a bounded chart instead of a gridline every 100 Elo forever.
#[test]
fn a_damaged_ladder_report_draws_a_bounded_chart() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../experiments/baselines/dai-dai-cpu-2026-11-25/ladder/ladder.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut report: tengu_arena::ladder::LadderReport = serde_json::from_str(&text).unwrap();
    report.rungs[0].elo_high = 1e15;
    report.rungs[0].rung.cpu_hours = 1e308;
    let svg = report.to_svg();
    assert!(
        svg.matches("<line").count() < 200,
        "{} lines",
        svg.matches("<line").count()
    );
}
