//! `REPETITION=STRICT` (RULES.md §8.1): a move that recreates an earlier position is
//! illegal, and every search and player follows it: the MCTS tree offers no such move at any
//! node (the game's history and the path from the root both count), and the classical
//! players never choose one. Under the default rule set the same moves stay searchable.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tengu_model::{EvalInput, Evaluator, UniformEvaluator};
use tengu_rules::{Game, Move, Position, RuleSet, Variant};
use tengu_search::driver::{evaluate_pending, Descent, RootPlan, Search};
use tengu_search::leaf::LeafTerms;
use tengu_search::players::{AlphaBetaPlayer, GreedyPlayer, Player, RandomPlayer};
use tengu_search::search::search_game;
use tengu_search::tree::Tree;
use tengu_search::SearchConfig;

mod common;
use common::compose;

fn variant(strict: bool) -> Arc<Variant> {
    let mut rules = RuleSet::default_for("dai-dai");
    if strict {
        rules.set("REPETITION", "STRICT").unwrap();
    }
    Variant::with_rules(&rules).unwrap()
}

/// The two Kings alone (9q and 9a); Black's King has stepped out and back and White's out:
/// White to move, and 9b>9a would recreate the start position.
fn kings_game(strict: bool) -> (Game, Move) {
    let text = compose('b', &["9q=K", "9a=k"]).to_string();
    let mut game = Game::new(Position::parse_for(variant(strict), &text).unwrap());
    for mv in ["9q>9p", "9a>9b", "9p>9q"] {
        game.play(game.position().parse_move(mv).unwrap()).unwrap();
    }
    let back = game.position().parse_move("9b>9a").unwrap();
    (game, back)
}

/// A search of `visits` root visits of `game` through the driver (uniform evaluations).
fn searched_tree(game: &Game, visits: u32) -> Tree {
    let config = SearchConfig::default();
    let terms = LeafTerms::new(game.position().variant());
    let plan = RootPlan {
        visits,
        gumbel_noise: false,
        dirichlet_noise: false,
        captures_of_all_visits: true,
    };
    let mut search = Search::new(plan, false);
    let mut eval = UniformEvaluator;
    let mut evaluate = |_: usize, inputs: &[EvalInput<'_>]| eval.evaluate(inputs);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut keep_all = |_: &Game, _: &mut Vec<Move>, _: &mut Vec<f32>| {};
    search.queue_root(game);
    let out = evaluate_pending(&[(0, &search)], &mut evaluate)
        .unwrap()
        .remove(0);
    search.expand_pending(out, &config, &terms, &mut keep_all, &mut rng);
    while search.tree.root_visits() < visits {
        if search.descend(game, &config, 600) == Descent::Pending {
            let out = evaluate_pending(&[(0, &search)], &mut evaluate)
                .unwrap()
                .remove(0);
            search.expand_pending(out, &config, &terms, &mut keep_all, &mut rng);
        }
    }
    search.tree
}

/// Walks every expanded node of `tree` (rooted at `game`) with the game at the node;
/// returns how many nodes offer fewer moves than their position's legal moves, after
/// checking that each node offers exactly the game's legal moves.
fn nodes_narrower_than_their_position(tree: &Tree, game: &Game) -> usize {
    let mut narrower = 0;
    let mut stack = vec![(0u32, game.clone())];
    while let Some((id, at)) = stack.pop() {
        let node = &tree.nodes[id as usize];
        if node.terminal {
            continue;
        }
        let mut offered = node.moves.clone();
        let mut legal = at.legal_move_list();
        offered.sort_by_key(|m| format!("{m:?}"));
        legal.sort_by_key(|m| format!("{m:?}"));
        assert_eq!(offered, legal, "node {id} after {} plies", at.len());
        if legal.len() < at.position().legal_move_list().len() {
            narrower += 1;
        }
        for (e, &child) in node.child.iter().enumerate() {
            if child != tengu_search::tree::NONE {
                let mut next = at.clone();
                next.play(node.moves[e]).unwrap();
                stack.push((child, next));
            }
        }
    }
    narrower
}

#[test]
fn strict_search_trees_offer_no_move_back_to_a_position_of_the_game_or_the_path() {
    let (game, back) = kings_game(true);
    let tree = searched_tree(&game, 1500);
    assert!(
        !tree.nodes[0].moves.contains(&back),
        "the root offers the move back"
    );
    // Below the root the path's own positions count too (e.g. 9b>8b 9q>9p 8b>9b recreates
    // the position after 9a>9b): many nodes offer fewer moves than their position has.
    let narrower = nodes_narrower_than_their_position(&tree, &game);
    assert!(narrower > 10, "only {narrower} nodes lost a repeating move");
}

#[test]
fn default_search_trees_offer_every_legal_move_of_the_position() {
    let (game, back) = kings_game(false);
    let tree = searched_tree(&game, 1500);
    assert!(tree.nodes[0].moves.contains(&back));
    assert_eq!(nodes_narrower_than_their_position(&tree, &game), 0);
}

#[test]
fn strict_single_position_search_never_weighs_the_move_back() {
    for strict in [false, true] {
        let (game, back) = kings_game(strict);
        let result = search_game(
            &game,
            &mut UniformEvaluator,
            &SearchConfig::default(),
            200,
            600,
            1,
        )
        .unwrap()
        .unwrap();
        let weighed = result.policy.iter().any(|(m, w)| *m == back && *w > 0.0);
        assert_eq!(weighed, !strict, "strict {strict}: {:?}", result.policy);
    }
}

/// The moves `player` chooses from `game` in `tries` tries.
fn chosen(player: &mut dyn Player, game: &Game, tries: usize) -> Vec<Move> {
    (0..tries).map(|_| player.choose(game).unwrap()).collect()
}

#[test]
fn strict_classical_players_never_choose_the_move_back() {
    for strict in [false, true] {
        let (game, back) = kings_game(strict);
        let v = game.position().variant().clone();
        // White's King on 9b has 8 moves, all of equal worth to these players: 80 random
        // choices miss one of them with probability about 8 * (7/8)^80 < 0.0002.
        let players: Vec<Box<dyn Player>> = vec![
            Box::new(RandomPlayer::new(1)),
            Box::new(GreedyPlayer::new(&v, 2)),
        ];
        for mut player in players {
            let moves = chosen(player.as_mut(), &game, 80);
            assert_eq!(
                moves.contains(&back),
                !strict,
                "{} strict {strict}",
                player.name()
            );
        }
        // Alpha-beta to depth 1: equal material and mobility everywhere, ties in random order.
        let mut moves = Vec::new();
        for seed in 0..80 {
            let mut ab = AlphaBetaPlayer::new(&v, Duration::from_secs(60), 1, seed);
            moves.push(ab.choose(&game).unwrap());
        }
        assert_eq!(moves.contains(&back), !strict, "alpha-beta strict {strict}");
    }
}

#[test]
fn strict_alpha_beta_sees_the_repeat_that_leaves_the_opponent_without_a_move() {
    // White's King can only step between 1a and 1b: White's Lances fill file 1 below it and
    // file 2, each blocked by the next (a Lance only slides forward), so White has no other
    // move. Black's King steps out and back; under STRICT White's step back to 1a would
    // recreate the root, so White has no legal move at ply 4 and loses: a win only a search
    // that judges the path's repeats sees. Under the defaults Black is just many Lances down.
    let mut pieces = vec!["9q=K".to_string(), "1a=k".to_string()];
    for rank in 'a'..='q' {
        if rank >= 'c' {
            pieces.push(format!("1{rank}=l"));
        }
        pieces.push(format!("2{rank}=l"));
    }
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let text = compose('b', &pieces).to_string();
    let value = |strict: bool| {
        let pos = Position::parse_for(variant(strict), &text).unwrap();
        let ab = AlphaBetaPlayer::new(pos.variant(), Duration::from_secs(60), 4, 0);
        ab.fixed_depth_value(&pos, 4).0
    };
    let (default, strict) = (value(false), value(true));
    assert!(strict > 5_000.0, "strict: {strict}");
    assert!(default < 0.0, "default: {default}");
}
