//! The search finds forced wins, avoids forced losses, and its targets are well formed.

use tengu_model::UniformEvaluator;
use tengu_rules::{Color, Game, Position};
use tengu_search::search::search_game;
use tengu_search::{RootSelection, SearchConfig};

mod common;
use common::compose;

/// Whether the side to move of `game` can checkmate (or otherwise win) in one move.
fn has_win_in_one(game: &Game) -> bool {
    let mover = game.position().side_to_move();
    game.position().legal_move_list().into_iter().any(|m| {
        let mut g = game.clone();
        g.play_unchecked(m);
        g.outcome().is_some_and(|o| o.winner == Some(mover))
    })
}

/// Gumbel samples `gumbel_moves` root moves without replacement; with a uniform prior the
/// mating move must be among them, so sample them all here.
fn config(root: RootSelection) -> SearchConfig {
    SearchConfig {
        root,
        gumbel_moves: 128,
        ..SearchConfig::default()
    }
}

#[test]
fn finds_the_capture_of_the_only_royal_by_mate_in_one() {
    // A rook ladder: 2c-2a mates the lone King on 9a (rank b is covered by the rook on 1b).
    let pos = compose('b', &["9q=K", "9a=k", "1b=R", "2c=R"]);
    let game = Game::new(pos);
    assert!(has_win_in_one(&game));
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let result = search_game(&game, &mut UniformEvaluator, &config(root), 400, 600, 7)
            .unwrap()
            .unwrap();
        let mut after = game.clone();
        after.play_unchecked(result.best);
        let chosen = game.position().move_text(result.best);
        let mates_now = after.outcome().and_then(|o| o.winner) == Some(Color::Black);
        if root == RootSelection::Puct {
            assert!(mates_now, "PUCT chose {chosen}");
        } else {
            // Gumbel ranks candidates by noise + prior + sigma(q): any move that wins by force
            // scores alike, so it may pick a mate in two over the mate in one.
            let forced = mates_now
                || after.position().legal_move_list().into_iter().all(|reply| {
                    let mut g = after.clone();
                    g.play_unchecked(reply);
                    has_win_in_one(&g)
                });
            assert!(forced, "Gumbel chose {chosen}, which does not force mate");
        }
        // The root value is a visit average: it leans toward the win as visits gather there.
        // Sequential halving spends its first phases evenly over every candidate (here all
        // ~60 moves), so a Gumbel root's average leans less (0.22 at 400 visits).
        let lean = if root == RootSelection::Puct {
            0.3
        } else {
            0.15
        };
        assert!(result.value > lean, "{root:?}: root value {}", result.value);
        let sum: f32 = result.policy.iter().map(|(_, w)| w).sum();
        assert!((sum - 1.0).abs() < 1e-3, "policy target sums to {sum}");
    }
}

#[test]
fn avoids_a_move_that_lets_the_opponent_mate() {
    // White threatens 2o-2q mate (rank p covered by the rook on 1p); Black's rook must
    // defend. Every Black move that does not is refuted by a mate in one.
    let pos = compose('b', &["9q=K", "9a=k", "1p=r", "2o=r", "3e=R"]);
    let game = Game::new(pos);
    let moves = game.position().legal_move_list();
    let losing = moves
        .iter()
        .filter(|&&m| {
            let mut g = game.clone();
            g.play_unchecked(m);
            has_win_in_one(&g)
        })
        .count();
    assert!(
        losing > 0 && losing < moves.len(),
        "{losing} of {} moves lose",
        moves.len()
    );
    let result = search_game(
        &game,
        &mut UniformEvaluator,
        &config(RootSelection::Puct),
        6000,
        600,
        3,
    )
    .unwrap()
    .unwrap();
    let mut after = game.clone();
    after.play_unchecked(result.best);
    assert!(
        !has_win_in_one(&after),
        "{} allows a mate in one",
        game.position().move_text(result.best)
    );
}

#[test]
fn root_value_moves_toward_the_forced_result_with_more_visits() {
    let pos = compose('b', &["9q=K", "9a=k", "1b=R", "2c=R"]);
    let game = Game::new(pos.clone());
    let variant = pos.variant().clone();
    let encoder = tengu_model::Encoder::new(&variant);
    let net =
        tengu_model::desc::NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
    let mut eval = tengu_model::Backend::Burn
        .new_evaluator(&variant, &net, "tiny")
        .unwrap();
    let values: Vec<f32> = [8, 3000]
        .iter()
        .map(|&v| {
            search_game(
                &game,
                eval.as_mut(),
                &config(RootSelection::Puct),
                v,
                600,
                1,
            )
            .unwrap()
            .unwrap()
            .value
        })
        .collect();
    eprintln!("root value at 8 and 3000 visits: {values:?}");
    // Whatever the untrained network says, the search value goes to the forced win (+1).
    assert!(
        values[1] > 0.85 && values[1] >= values[0] - 0.05,
        "{values:?}"
    );
}

#[test]
fn root_capture_share_gives_every_root_capture_a_visit() {
    // Black's rooks each have one capture (1c and 17c) among ~60 quiet moves; a uniform
    // prior spends 8 PUCT visits in move order and never reaches them.
    let pos = compose('b', &["9q=K", "9a=k", "1q=R", "1c=p", "17q=R", "17c=p"]);
    let game = Game::new(pos);
    let captures: Vec<_> = game
        .position()
        .legal_move_list()
        .into_iter()
        .filter(|m| m.is_capture())
        .collect();
    assert_eq!(captures.len(), 2, "the position has two captures");
    let visited = |share: f32| {
        let config = SearchConfig {
            root_capture_share: share,
            ..SearchConfig::default()
        };
        let result = search_game(&game, &mut UniformEvaluator, &config, 8, 600, 3)
            .unwrap()
            .unwrap();
        captures
            .iter()
            .filter(|m| result.policy.iter().any(|(p, w)| p == *m && *w > 0.0))
            .count()
    };
    assert_eq!(
        visited(0.0),
        0,
        "without the share PUCT visits no capture here"
    );
    assert_eq!(visited(0.5), 2, "each capture is owed a visit");
    // At most share x visits captures are forced: 0.125 x 8 = one.
    assert_eq!(visited(0.125), 1);
}

#[test]
fn gumbel_candidates_include_the_root_captures_with_the_capture_share() {
    use rand::SeedableRng;
    use tengu_search::tree::{Leaf, Tree};
    // The position of the test above: two captures among ~60 moves. The captures get a
    // prior far below the quiet moves', so Gumbel-top-4 alone almost never samples them.
    let pos = compose('b', &["9q=K", "9a=k", "1q=R", "1c=p", "17q=R", "17c=p"]);
    let game = Game::new(pos);
    let moves = game.position().legal_move_list();
    let prior: Vec<f32> = moves
        .iter()
        .map(|m| if m.is_capture() { 1e-6 } else { 1.0 })
        .collect();
    let total: f32 = prior.iter().sum();
    let prior: Vec<f32> = prior.iter().map(|p| p / total).collect();
    let raced = |share: f32, seed: u64| {
        let config = SearchConfig {
            root: RootSelection::Gumbel,
            gumbel_moves: 4,
            root_capture_share: share,
            ..SearchConfig::default()
        };
        let mut tree = Tree::default();
        tree.expand(&[], moves.clone(), prior.clone(), 0.0, false, None);
        tree.start_gumbel(
            &config,
            8,
            None,
            true,
            &mut rand::rngs::SmallRng::seed_from_u64(seed),
        );
        // The first phase gives each of the 4 candidates one visit.
        let mut first: Vec<usize> = Vec::new();
        for _ in 0..4 {
            match tree.simulate(&game, &config, 600) {
                Leaf::Evaluate { path, game: leaf } => {
                    first.push(path[0].1);
                    let n = leaf.position().legal_move_list();
                    let uniform = vec![1.0 / n.len() as f32; n.len()];
                    tree.expand(&path, n, uniform, 0.0, false, None);
                }
                Leaf::Done => panic!("no game ends here"),
            }
        }
        first.sort();
        first.dedup();
        assert_eq!(first.len(), 4, "four distinct candidates");
        first.iter().filter(|&&e| moves[e].is_capture()).count()
    };
    for seed in 0..5 {
        assert_eq!(raced(0.5, seed), 2, "both captures race (seed {seed})");
        assert_eq!(
            raced(0.0, seed),
            0,
            "the prior alone leaves them out (seed {seed})"
        );
    }
}

#[test]
fn gumbel_play_outside_self_play_does_not_depend_on_the_seed() {
    // Many equal quiet moves under a uniform prior: sampled Gumbel noise would pick a
    // different candidate per seed; play outside self-play ranks by prior + sigma(Q) alone.
    let pos = compose('b', &["9q=K", "9a=k", "1q=R", "17q=R", "13q=G"]);
    let game = Game::new(pos);
    let config = SearchConfig {
        root: RootSelection::Gumbel,
        gumbel_moves: 4,
        ..SearchConfig::default()
    };
    let best: Vec<_> = (0..6)
        .map(|seed| {
            search_game(&game, &mut UniformEvaluator, &config, 8, 600, seed)
                .unwrap()
                .unwrap()
                .best
        })
        .collect();
    assert!(best.iter().all(|&m| m == best[0]), "{best:?}");
    let err = SearchConfig {
        gumbel_value_scale: 0.0,
        ..config
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(err.contains("search.gumbel_value_scale"), "{err}");
}

#[test]
fn the_mobility_balance_adds_the_log_ratio_of_both_sides_moves() {
    use tengu_search::leaf::{head_utility, leaf_value, LeafTerms};
    let out = tengu_model::Evaluation {
        policy: Vec::new(),
        wdl: [0.5, 0.2, 0.3],
        material: 0.0,
        residual: 0.0,
    };
    // Black: a king and a rook on an open board; White: a king alone.
    let pos = compose('b', &["9q=K", "9a=k", "1q=R"]);
    let black = pos.mobility(Color::Black);
    let white = pos.mobility(Color::White);
    // A king steps to its 8 neighbours (fewer on the edge); the rook adds its lines.
    assert_eq!(white, 5, "White's king on the edge");
    assert!(black > white + 16, "Black {black}");
    // Mobility counts moves as if the side were to move, passes left out.
    let pseudo = |p: &Position| {
        let mut v = Vec::new();
        p.pseudo_legal_moves(&mut v);
        v.iter().filter(|m| !m.is_pass()).count() as u32
    };
    assert_eq!(black, pseudo(&pos));
    let white_to_move = compose('w', &["9q=K", "9a=k", "1q=R"]);
    assert_eq!(white, pseudo(&white_to_move));
    let initial = Position::initial(tengu_rules::Variant::dai_dai());
    assert_eq!(
        initial.mobility(Color::Black),
        initial.mobility(Color::White)
    );

    let off = SearchConfig::default();
    let on = SearchConfig {
        mobility_balance: 0.3,
        ..SearchConfig::default()
    };
    let n = pos.legal_move_list().len();
    let terms = LeafTerms::new(pos.variant());
    assert_eq!(terms.initial_moves, 59);
    assert_eq!(
        leaf_value(&out, &off, &pos, n, &terms),
        head_utility(&out, &off, n, 59)
    );
    let expected = 0.2 + 0.3 * (black as f32 / white as f32).ln();
    assert!((leaf_value(&out, &on, &pos, n, &terms) - expected.min(1.0)).abs() < 1e-6);
    // From White's side the same position scores the other way.
    let mirrored = leaf_value(&out, &on, &white_to_move, n, &terms);
    assert!((mirrored - (0.2 - 0.3 * (black as f32 / white as f32).ln())).abs() < 1e-6);
    let err = SearchConfig {
        mobility_balance: 2.0,
        ..SearchConfig::default()
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(err.contains("search.mobility_balance"), "{err}");
}

#[test]
fn head_utility_weighs_value_and_material() {
    use tengu_search::leaf::head_utility;
    let out = tengu_model::Evaluation {
        policy: Vec::new(),
        wdl: [0.7, 0.2, 0.1],
        material: -0.4,
        residual: 0.0,
    };
    let with = |value_utility: f32, material_utility: f32| {
        head_utility(
            &out,
            &SearchConfig {
                value_utility,
                material_utility,
                ..SearchConfig::default()
            },
            100,
            60,
        )
    };
    assert!((with(1.0, 0.0) - 0.6).abs() < 1e-6);
    assert!((with(1.0, 0.5) - 0.4).abs() < 1e-6);
    assert!((with(0.0, 1.0) + 0.4).abs() < 1e-6);
    assert!((with(0.5, 1.0) + 0.1).abs() < 1e-6);
    // Kept in [-1, 1].
    let strong = tengu_model::Evaluation {
        material: 0.9,
        residual: 0.0,
        ..out
    };
    let config = SearchConfig {
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    assert_eq!(head_utility(&strong, &config, 100, 60), 1.0);
}

#[test]
fn the_mobility_term_adds_the_log_ratio_of_legal_moves() {
    use tengu_search::leaf::{head_utility, initial_moves};
    let eval = tengu_model::Evaluation {
        policy: vec![],
        wdl: [0.5, 0.2, 0.3],
        material: 0.4,
        residual: 0.0,
    };
    let base = SearchConfig {
        material_utility: 0.5,
        ..SearchConfig::default()
    };
    let without = head_utility(&eval, &base, 120, 60);
    assert!((without - (0.2 + 0.5 * 0.4)).abs() < 1e-6);
    let with = SearchConfig {
        mobility_utility: 0.3,
        ..base
    };
    let doubled = head_utility(&eval, &with, 120, 60);
    assert!((doubled - without - 0.3 * 2f32.ln()).abs() < 1e-6);
    assert!((head_utility(&eval, &with, 60, 60) - without).abs() < 1e-6);
    assert!(head_utility(&eval, &with, 30, 60) < without);
    assert_eq!(
        head_utility(&eval, &with, 100_000, 1),
        1.0,
        "kept in [-1, 1]"
    );
    assert_eq!(initial_moves(&tengu_rules::Variant::dai_dai()), 59);
    assert_eq!(initial_moves(&tengu_rules::Variant::maka_dai_dai()), 80);
    let err = SearchConfig {
        mobility_utility: 1.5,
        ..SearchConfig::default()
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(err.contains("search.mobility_utility"), "{err}");
}

/// Plays `moves` (coordinate text) from `pos`.
fn play_line(pos: Position, moves: &[&str]) -> Game {
    let mut game = Game::new(pos);
    for text in moves {
        let mv = game.position().parse_move(text).unwrap();
        game.play(mv).unwrap();
    }
    game
}

/// Exchange material and PUCT: every quiet move of these positions is worth the same.
fn material_search(repetition_draw: bool) -> SearchConfig {
    SearchConfig {
        material_utility: 1.0,
        value_utility: 0.0,
        leaf_material: tengu_search::LeafMaterial::Exchange,
        repetition_draw,
        ..config(RootSelection::Puct)
    }
}

/// The policy-target weight of `text` in a 400-visit search of `game`, and the move chosen.
fn weight_and_best(game: &Game, config: &SearchConfig, text: &str) -> (f32, String) {
    let pos = game.position();
    let mv = pos.parse_move(text).unwrap();
    let result = search_game(game, &mut UniformEvaluator, config, 400, 600, 3)
        .unwrap()
        .unwrap();
    let weight = result
        .policy
        .iter()
        .find(|(m, _)| *m == mv)
        .map_or(0.0, |(_, w)| *w);
    (weight, pos.move_text(result.best))
}

#[test]
fn with_repetition_draws_a_side_ahead_avoids_a_repeated_position_and_one_behind_seeks_it() {
    // Black is a rook up; both sides have shuffled once, so the start position stands for
    // the second time and Black's 5i>5h (White's 9a>8a) would recreate a position seen once.
    let ahead = play_line(
        compose('b', &["9q=K", "9a=k", "5i=R"]),
        &["5i>5h", "9a>8a", "5h>5i", "8a>9a"],
    );
    let (off, _) = weight_and_best(&ahead, &material_search(false), "5i>5h");
    let (on, best) = weight_and_best(&ahead, &material_search(true), "5i>5h");
    assert!(
        off > 0.01,
        "without the rule the shuffle is one quiet move of many: {off}"
    );
    assert!(
        on < off / 4.0,
        "the side ahead still shuffles: {on} against {off}"
    );
    assert_ne!(best, "5i>5h");
    // The same with White to move, a rook down: the repetition is its best result.
    let behind = play_line(
        compose('w', &["9q=K", "9a=k", "5i=R"]),
        &["9a>8a", "5i>5h", "8a>9a", "5h>5i"],
    );
    let (on, best) = weight_and_best(&behind, &material_search(true), "9a>8a");
    let (off, _) = weight_and_best(&behind, &material_search(false), "9a>8a");
    assert_eq!(best, "9a>8a", "the side behind seeks the draw");
    assert!(on > 4.0 * off, "{on} against {off} without the rule");
}

#[test]
fn a_child_drawn_only_by_repetition_draw_is_not_reused_as_the_next_root() {
    use tengu_search::tree::{Leaf, Tree};
    // As above: Black's 5i>5h recreates a position seen once, a draw for the search only.
    let game = play_line(
        compose('b', &["9q=K", "9a=k", "5i=R"]),
        &["5i>5h", "9a>8a", "5h>5i", "8a>9a"],
    );
    let config = material_search(true);
    let moves = game.position().legal_move_list();
    let edge = moves
        .iter()
        .position(|&m| game.position().move_text(m) == "5i>5h")
        .unwrap();
    let uniform = vec![1.0 / moves.len() as f32; moves.len()];
    let mut tree = Tree::default();
    tree.expand(&[], moves.clone(), uniform, 0.0, false, None);
    // Visit every root edge once (PUCT with equal priors), expanding leaves as uniform.
    for _ in 0..2 * moves.len() {
        if let Leaf::Evaluate { path, game } = tree.simulate(&game, &config, 600) {
            let n = game.position().legal_move_list();
            let p = vec![1.0 / n.len().max(1) as f32; n.len()];
            tree.expand(&path, n, p, 0.0, false, None);
        }
    }
    let child = tree.nodes[0].child[edge];
    assert!(
        tree.nodes[child as usize].terminal,
        "the repeating move was not searched"
    );
    // The game goes on after 5i>5h (a third occurrence, not the fourth): the next search
    // must start from an empty tree, not from a terminal root without moves.
    tree.reuse(edge);
    assert!(tree.is_empty());
}
