//! The exchange material: capture-only search with stand-pat on hand-made positions, the
//! leaf material it gives, and a Gumbel root that races the moves it rates.

use std::sync::Arc;

use tengu_model::{Evaluation, UniformEvaluator};
use tengu_rules::notation::parse_piece;
use tengu_rules::values::piece_values;
use tengu_rules::{Game, Variant};
use tengu_selfplay::exchange::exchange_gain;
use tengu_selfplay::mcts::{leaf_material, search_game, LeafTerms};
use tengu_selfplay::{LeafMaterial, RootSelection, SearchConfig};

mod common;
use common::compose;

fn value_of(variant: &Arc<Variant>, token: &str) -> f32 {
    piece_values(variant)[parse_piece(variant, token).unwrap().ty]
}

#[test]
fn a_free_pawn_is_won_and_a_defended_one_is_left() {
    let variant = Variant::dai_dai();
    let values = piece_values(&variant);
    let pawn = value_of(&variant, "p");
    let free = compose('b', &["9q=K", "9a=k", "5i=R", "5e=p"]);
    assert_eq!(exchange_gain(&free, &values, 4), pawn);
    // A rook behind the pawn takes back: the rook for a pawn loses, so Black stands pat.
    let defended = compose('b', &["9q=K", "9a=k", "5i=R", "5e=p", "5a=r"]);
    assert_eq!(
        exchange_gain(&defended, &values, 1),
        pawn,
        "one ply sees no recapture"
    );
    assert_eq!(exchange_gain(&defended, &values, 4), 0.0);
}

#[test]
fn a_second_attacker_wins_the_defended_pawn_at_the_third_ply() {
    // Two Black rooks on file 5 against one defending rook: RxP, rxR, RxR. White stops
    // after RxP (taking back loses its rook for Black's), so Black keeps the pawn.
    let variant = Variant::dai_dai();
    let values = piece_values(&variant);
    let pawn = value_of(&variant, "p");
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "5m=R", "5e=p", "5a=r"]);
    assert_eq!(
        exchange_gain(&pos, &values, 2),
        0.0,
        "two plies see the recapture only"
    );
    assert_eq!(exchange_gain(&pos, &values, 3), pawn);
    assert_eq!(exchange_gain(&pos, &values, 4), pawn);
    // The side to move's view: White to move here can take nothing.
    let white = compose('w', &["9q=K", "9a=k", "5i=R", "5m=R", "5e=p", "5a=r"]);
    assert_eq!(exchange_gain(&white, &values, 4), 0.0);
}

#[test]
fn exchange_leaf_material_is_the_balance_after_the_best_exchange() {
    let variant = Variant::dai_dai();
    let terms = LeafTerms::new(&variant);
    let pawn = value_of(&variant, "p");
    let rook = value_of(&variant, "R");
    // Black has a rook and a free pawn to take; White has a pawn.
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "5e=p"]);
    let out = Evaluation {
        policy: vec![],
        wdl: [0.2, 0.6, 0.2],
        material: -0.7,
    };
    let head = SearchConfig {
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    assert_eq!(leaf_material(&out, &head, &pos, &terms), -0.7);
    let exchange = SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        ..head
    };
    let expected = ((rook - pawn + pawn) / tengu_model::net::MATERIAL_SCALE).tanh();
    assert!((leaf_material(&out, &exchange, &pos, &terms) - expected).abs() < 1e-6);
    assert!(SearchConfig {
        exchange_depth: 0,
        ..exchange
    }
    .validate()
    .unwrap_err()
    .contains("search.exchange_depth"));
}

/// A Gumbel search of 32 visits with a uniform network and exchange material alone.
fn exchange_search(game: &Game) -> tengu_rules::Move {
    let config = SearchConfig {
        root: RootSelection::Gumbel,
        gumbel_moves: 16,
        leaf_material: LeafMaterial::Exchange,
        material_utility: 1.0,
        value_utility: 0.0,
        ..SearchConfig::default()
    };
    search_game(game, &mut UniformEvaluator, &config, 32, 600, 5)
        .unwrap()
        .unwrap()
        .best
}

#[test]
fn an_exchange_root_takes_the_free_pawn_not_the_defended_one() {
    // Two captures among ~60 quiet moves: the pawn on 13e is free, the one on 5e defended.
    let pos = compose(
        'b',
        &["9q=K", "9a=k", "5i=R", "5e=p", "5a=r", "13i=R", "13e=p"],
    );
    let game = Game::new(pos.clone());
    let best = exchange_search(&game);
    assert_eq!(pos.move_text(best), "13i>13e{13e}");
}

#[test]
fn an_exchange_root_saves_the_attacked_rook() {
    // White's rook on 5a attacks Black's undefended rook on 5i; a uniform prior spreads
    // over ~60 moves, and only the rook's own moves (off file 5, or capturing) save it.
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "5a=r", "13q=G"]);
    let game = Game::new(pos.clone());
    let best = exchange_search(&game);
    let mut after = pos.clone();
    after.play(best);
    let values = piece_values(pos.variant());
    assert_eq!(
        exchange_gain(&after, &values, 4),
        0.0,
        "{} leaves a piece to take",
        pos.move_text(best)
    );
}

#[test]
fn a_node_gives_its_first_visit_to_the_capture_that_starts_its_best_exchange() {
    use tengu_selfplay::mcts::{leaf_evaluation, Leaf, Tree};
    let pos = compose(
        'b',
        &["9q=K", "9a=k", "5i=R", "5e=p", "5a=r", "13i=R", "13e=p"],
    );
    let terms = LeafTerms::new(pos.variant());
    let moves = pos.legal_move_list();
    let out = Evaluation {
        policy: vec![],
        wdl: [0.2, 0.6, 0.2],
        material: -0.7,
    };
    let exchange = SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    let lead = |config: &SearchConfig, pos: &tengu_rules::Position| {
        leaf_evaluation(&out, config, pos, pos.legal_move_list().len(), &terms).1
    };
    let best = lead(&exchange, &pos).expect("a winning capture");
    assert_eq!(pos.move_text(best), "13i>13e{13e}");
    let head = SearchConfig {
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    assert_eq!(lead(&head, &pos), None, "the material head gives no lead");
    // No capture wins anything for White here: no lead.
    let quiet = compose('w', &["9q=K", "9a=k", "5i=R", "5e=p", "5a=r"]);
    assert_eq!(lead(&exchange, &quiet), None);
    // The utility is the one leaf_utility gives.
    assert_eq!(
        leaf_evaluation(&out, &exchange, &pos, moves.len(), &terms).0,
        tengu_selfplay::mcts::leaf_utility(&out, &exchange, &pos, moves.len(), &terms)
    );
    // PUCT with a uniform prior visits in move order; the lead goes first.
    let mut tree = Tree::default();
    let uniform = vec![1.0 / moves.len() as f32; moves.len()];
    tree.expand(&[], moves.clone(), uniform, 0.0, false, Some(best));
    match tree.simulate(&Game::new(pos.clone()), &exchange, 600) {
        Leaf::Evaluate { path, .. } => assert_eq!(moves[path[0].1], best),
        Leaf::Done => panic!("the game goes on"),
    }
}
