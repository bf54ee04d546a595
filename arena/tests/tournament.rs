//! The rating fit recovers known ratings; a small tournament ranks the baselines.

use std::time::Duration;

use tengu_arena::elo::{score_from_elo, Score};
use tengu_arena::matches::MatchOptions;
use tengu_arena::tournament::{
    self, distinct_names, fit_ratings, rating_half_widths, Pairing, Standings,
};
use tengu_rules::{EndPolicy, Variant};
use tengu_search::players::{AlphaBetaPlayer, GreedyPlayer, Player, RandomPlayer};

#[test]
fn the_fit_recovers_the_ratings_behind_the_results() {
    let truth = [0.0, 120.0, -80.0, 300.0];
    let mut pairings = Vec::new();
    for a in 0..truth.len() {
        for b in a + 1..truth.len() {
            // 100,000 games scoring exactly the expected score, no draws.
            let wins = (score_from_elo(truth[a] - truth[b]) * 100_000.0).round() as u64;
            pairings.push(Pairing::of_score(
                a,
                b,
                Score {
                    wins,
                    draws: 0,
                    losses: 100_000 - wins,
                },
            ));
        }
    }
    let fitted = fit_ratings(truth.len(), &pairings);
    for (f, t) in fitted.iter().zip(truth) {
        assert!((f - t).abs() < 1.0, "fitted {fitted:?}, truth {truth:?}");
    }
    // A clean sweep gives a large but finite gap.
    let sweep = fit_ratings(
        2,
        &[Pairing::of_score(
            0,
            1,
            Score {
                wins: 10,
                draws: 0,
                losses: 0,
            },
        )],
    );
    assert!(sweep[1] < -200.0 && sweep[1].is_finite(), "{sweep:?}");
}

#[test]
fn a_gauntlet_rates_each_opponent_by_its_own_pairing() {
    // In a gauntlet every pairing involves player 0, so each opponent's maximum-likelihood
    // rating is the Elo of its one pairing (with the virtual draw). Scores of a real run's
    // report, one of them a sweep.
    let results = [(2, 28, 0), (0, 4, 26), (1, 27, 2), (0, 0, 30)];
    let pairings: Vec<Pairing> = results
        .iter()
        .enumerate()
        .map(|(i, &(wins, draws, losses))| {
            Pairing::of_score(
                0,
                i + 1,
                Score {
                    wins,
                    draws,
                    losses,
                },
            )
        })
        .collect();
    let fitted = fit_ratings(results.len() + 1, &pairings);
    assert_eq!(fitted[0], 0.0);
    for (i, &(w, d, l)) in results.iter().enumerate() {
        let p = (w as f64 + 0.5 * d as f64 + 0.5) / ((w + d + l) as f64 + 1.0);
        let expected = -400.0 * (p / (1.0 - p)).log10();
        assert!(
            (fitted[i + 1] - expected).abs() < 0.5,
            "opponent {}: fitted {fitted:?}, expected {expected}",
            i + 1
        );
    }
}

#[test]
fn a_round_robin_ranks_alpha_beta_over_greedy_over_random() {
    let variant = Variant::dai_dai();
    let dir = tempfile::tempdir().unwrap();
    let mut players: Vec<Box<dyn Player>> = vec![
        Box::new(RandomPlayer::new(1)),
        Box::new(GreedyPlayer::new(&variant, 2)),
        Box::new(AlphaBetaPlayer::new(
            &variant,
            Duration::from_secs(600),
            1,
            3,
        )),
    ];
    let options = MatchOptions {
        variant,
        games: 2,
        opening_plies: 4,
        openings: None,
        end: EndPolicy::capped_at(300, Some(1.5)),
        seed: 5,
        out: Some(dir.path().to_path_buf()),
        sprt: None,
    };
    let standings = tournament::run(&mut players, &options, false, &mut |_, _, _| {}).unwrap();
    assert_eq!(standings.pairings.len(), 3);
    // Each pairing's two games form one pair, counted in its pentanomial.
    for p in standings.to_json()["pairings"].as_array().unwrap() {
        let counts: u64 = p["pentanomial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(
            (counts, p["pairs"].as_u64(), p["unpaired"].as_u64()),
            (1, Some(1), Some(0)),
            "{p}"
        );
    }
    // Each pairing says how its two games ended, in the text and the JSON.
    let text = standings.to_text();
    assert!(text.contains("how the games ended"), "{text}");
    for p in standings.to_json()["pairings"].as_array().unwrap() {
        let games: u64 = p["endings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["games"].as_u64().unwrap())
            .sum();
        assert_eq!(games, 2, "{p}");
        assert!(p["material_share"].as_f64().is_some(), "{p}");
    }
    let table = standings.table();
    assert_eq!(
        table.last().unwrap().name,
        "random",
        "{}",
        standings.to_text()
    );
    for name in ["standings.txt", "standings.json", "ratings.svg"] {
        assert!(dir.path().join(name).exists(), "{name}");
    }
    assert!(std::fs::read_to_string(dir.path().join("ratings.svg"))
        .unwrap()
        .contains("<svg"));
}

#[test]
fn checkpoint_tournaments_are_drawn_by_training_step() {
    let standings = Standings {
        names: vec![
            "model-000000000.safetensors step 0 (8 visits)".into(),
            "model-000000400.safetensors step 400 (8 visits)".into(),
        ],
        pairings: vec![Pairing::of_score(
            0,
            1,
            Score {
                wins: 2,
                draws: 4,
                losses: 4,
            },
        )],
        ratings: vec![0.0, 70.0],
    };
    let svg = standings
        .to_svg_by_step()
        .expect("all players are checkpoints");
    assert!(svg.contains("Elo by training step") && svg.contains("<polyline"));
    let mixed = Standings {
        names: vec!["greedy".into(), "random".into()],
        ..standings
    };
    assert!(mixed.to_svg_by_step().is_none());
}

fn pairing(a: usize, b: usize, wins: u64, draws: u64, losses: u64) -> Pairing {
    Pairing::of_score(
        a,
        b,
        Score {
            wins,
            draws,
            losses,
        },
    )
}

#[test]
fn each_rating_has_a_95_percent_interval_from_the_likelihood() {
    // One even pairing of 30 games (31 with the virtual draw): the information is
    // 31 * 0.5 * 0.5 per natural unit squared, so the half-width is
    // 1.96 / sqrt(7.75) * 400 / ln 10 = 122.3 Elo.
    let even = rating_half_widths(2, &[pairing(0, 1, 10, 10, 10)]);
    assert_eq!(even[0], 0.0, "the first player is the origin");
    assert!((even[1] - 122.30).abs() < 0.05, "{even:?}");
    // Four times the games halve it (nearly: one virtual draw per pairing).
    let more = rating_half_widths(2, &[pairing(0, 1, 40, 40, 40)]);
    assert!(
        (more[1] / even[1] - (31.0f64 / 121.0).sqrt()).abs() < 1e-6,
        "{more:?}"
    );
    // A round-robin: a player's interval also learns from the games that do not involve
    // the first player, so it is narrower than its one pairing with it alone gives.
    let rr = [
        pairing(0, 1, 10, 10, 10),
        pairing(0, 2, 10, 10, 10),
        pairing(1, 2, 10, 10, 10),
    ];
    let half = rating_half_widths(3, &rr);
    assert!(half[1] < even[1] && half[2] < even[1], "{half:?}");
    // A player no game connects to the first one has no interval.
    let apart = rating_half_widths(4, &[pairing(0, 1, 5, 0, 5), pairing(2, 3, 5, 0, 5)]);
    assert!(
        apart[1].is_finite() && apart[2].is_nan() && apart[3].is_nan(),
        "{apart:?}"
    );
    // The table and JSON carry the intervals.
    let standings = Standings {
        names: vec!["a".into(), "b".into(), "c".into()],
        ratings: fit_ratings(3, &rr),
        pairings: rr.to_vec(),
    };
    let text = standings.to_text();
    assert!(
        text.contains("95% interval") && text.contains("anchor"),
        "{text}"
    );
    let row_b = text.lines().find(|l| l.contains(" b ")).unwrap();
    let want = format!("{:+.1} .. {:+.1}", -half[1], half[1]);
    assert!(row_b.contains(&want), "{want}: {text}");
    let json = standings.to_json();
    let b = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == "b")
        .unwrap();
    assert!(
        (b["elo_high"].as_f64().unwrap() - half[1]).abs() < 1e-9,
        "{json}"
    );
    assert!(
        (b["elo_low"].as_f64().unwrap() + half[1]).abs() < 1e-9,
        "{json}"
    );
}

#[test]
fn players_of_the_same_name_are_numbered() {
    let names = |list: &[&str]| distinct_names(list.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        names(&["greedy", "random", "greedy"]),
        ["greedy#1", "random", "greedy#2"]
    );
    assert_eq!(names(&["greedy", "random"]), ["greedy", "random"]);
    let variant = Variant::dai_dai();
    let mut players: Vec<Box<dyn Player>> = vec![
        Box::new(GreedyPlayer::new(&variant, 1)),
        Box::new(GreedyPlayer::new(&variant, 2)),
    ];
    let options = MatchOptions {
        variant,
        games: 2,
        opening_plies: 2,
        openings: None,
        end: EndPolicy::capped_at(12, Some(1.5)),
        seed: 1,
        out: None,
        sprt: None,
    };
    let standings = tournament::run(&mut players, &options, false, &mut |_, _, _| {}).unwrap();
    let mut rows: Vec<String> = standings.table().into_iter().map(|r| r.name).collect();
    rows.sort();
    assert_eq!(rows, ["greedy#1", "greedy#2"]);
}
