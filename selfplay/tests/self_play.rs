//! Self-play games (the many-games loop) finish with consistent rows, and capped games can
//! be adjudicated on material.

use tengu_model::{Evaluator, UniformEvaluator};
use tengu_rules::Game;
use tengu_search::SearchConfig;
use tengu_selfplay::{SelfPlay, SelfplayConfig};

#[test]
fn self_play_games_finish_with_consistent_rows() {
    let variant = tengu_rules::Variant::maka_dai_dai();
    let search = SearchConfig {
        visits: 12,
        ..SearchConfig::default()
    };
    let config = SelfplayConfig {
        games_in_flight: 3,
        cheap_visits: 3,
        max_plies: 40,
        full_search_share: 0.5,
        ..SelfplayConfig::default()
    };
    let mut play = SelfPlay::new(variant.clone(), search, config, 11);
    play.game_limit = Some(3);
    let mut eval: Box<dyn Evaluator> = Box::new(UniformEvaluator);
    let mut games = Vec::new();
    for _ in 0..100_000 {
        play.step(eval.as_mut()).unwrap();
        games.extend(play.take_finished());
        if games.len() == 3 {
            break;
        }
    }
    assert_eq!(games.len(), 3);
    for g in &games {
        assert!(g.plies <= 40);
        // Every searched move is a row; a resigning side's last search is not played.
        let extra = (g.termination == tengu_rules::GameEnd::Resignation) as u32;
        assert_eq!(g.rows.len() as u32, g.plies + extra, "{}", g.termination);
        // Replaying the record reproduces each row's position; results follow the mover.
        let record = tengu_rules::Record::parse(&g.record.to_string()).unwrap();
        let moves: Vec<_> = record.game.moves().collect();
        assert_eq!(moves.len() as u32, g.plies);
        let mut replay = Game::new(record.game.start().clone());
        for (i, row) in g.rows.iter().enumerate() {
            assert_eq!(row.ply as usize, i);
            assert_eq!(row.position, replay.position().to_string());
            let expected = match g.winner {
                None => 0,
                Some(w) if w == replay.position().side_to_move() => 1,
                Some(_) => -1,
            };
            assert_eq!(row.result, expected);
            if row.full_search {
                let sum: f32 = row.policy.iter().map(|(_, w)| w).sum();
                assert!((sum - 1.0).abs() < 1e-3);
                for (m, _) in &row.policy {
                    assert!(replay.position().parse_move(m).is_ok(), "{m} is legal");
                }
            }
            if i < moves.len() {
                replay.play_unchecked(moves[i]);
            }
        }
    }
}

#[test]
fn capped_games_can_be_adjudicated_on_material() {
    let variant = tengu_rules::Variant::dai_dai();
    let search = SearchConfig {
        visits: 4,
        ..SearchConfig::default()
    };
    let config = SelfplayConfig {
        games_in_flight: 6,
        cheap_visits: 2,
        max_plies: 60,
        material_adjudication: 1.01,
        ..SelfplayConfig::default()
    };
    let mut play = SelfPlay::new(variant, search, config, 21);
    play.game_limit = Some(6);
    let mut games = Vec::new();
    while games.len() < 6 {
        play.step(&mut UniformEvaluator).unwrap();
        games.extend(play.take_finished());
    }
    let adjudicated: Vec<_> = games
        .iter()
        .filter(|g| g.termination == tengu_rules::GameEnd::Adjudicated)
        .collect();
    assert!(
        !adjudicated.is_empty(),
        "{:?}",
        games.iter().map(|g| &g.termination).collect::<Vec<_>>()
    );
    for g in adjudicated {
        assert!(g.winner.is_some());
        assert!(g.rows.iter().all(|r| r.result != 0));
    }
}

/// Games of `config` with the uniform evaluator until `games` finish.
fn play_games(
    config: SelfplayConfig,
    games: usize,
    seed: u64,
) -> Vec<tengu_selfplay::play::FinishedGame> {
    let variant = tengu_rules::Variant::dai_dai();
    let search = SearchConfig {
        visits: 8,
        ..SearchConfig::default()
    };
    let mut play = SelfPlay::new(variant, search, config, seed);
    play.game_limit = Some(games as u64);
    let mut eval: Box<dyn Evaluator> = Box::new(UniformEvaluator);
    let mut out = Vec::new();
    while out.len() < games {
        play.step(eval.as_mut()).unwrap();
        out.extend(play.take_finished());
    }
    out
}

#[test]
fn the_teacher_labels_its_share_of_rows_with_what_it_computes() {
    use tengu_search::teacher::Teacher;
    let base = SelfplayConfig {
        games_in_flight: 2,
        cheap_visits: 2,
        max_plies: 24,
        ..SelfplayConfig::default()
    };
    let labelled = SelfplayConfig {
        teacher_share: 1.0,
        teacher_depth: 1,
        ..base.clone()
    };
    let games = play_games(labelled, 2, 5);
    let teacher = Teacher::new(&tengu_rules::Variant::dai_dai(), 1, 4);
    let variant = tengu_rules::Variant::dai_dai();
    for row in games.iter().flat_map(|g| &g.rows) {
        let label = row.teacher.expect("every row labelled at share 1");
        let pos = tengu_rules::Position::parse_for(variant.clone(), &row.position).unwrap();
        let again = teacher.label(&pos);
        assert_eq!(label.depth, 1);
        assert_eq!(
            (label.base, label.score),
            (again.base, again.score),
            "{}",
            row.position
        );
    }
    // Share 0: no row is labelled.
    let unlabelled = play_games(base.clone(), 2, 5);
    assert!(unlabelled
        .iter()
        .flat_map(|g| &g.rows)
        .all(|r| r.teacher.is_none()));
    // About half at share 0.5.
    let half = play_games(
        SelfplayConfig {
            teacher_share: 0.5,
            ..base
        },
        2,
        5,
    );
    let rows: Vec<_> = half.iter().flat_map(|g| &g.rows).collect();
    let share = rows.iter().filter(|r| r.teacher.is_some()).count() as f64 / rows.len() as f64;
    assert!(
        (0.2..0.8).contains(&share),
        "{share} of {} rows",
        rows.len()
    );
}
