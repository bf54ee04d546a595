//! The exchange material: capture-only search with stand-pat on hand-made positions, the
//! leaf material it gives, and a Gumbel root that races the moves it rates.

use std::sync::Arc;

use tengu_model::{Evaluation, UniformEvaluator};
use tengu_rules::notation::parse_piece;
use tengu_rules::values::piece_values;
use tengu_rules::{Game, Variant};
use tengu_search::exchange::exchange_gain;
use tengu_search::leaf::{material_term, LeafTerms};
use tengu_search::search::search_game;
use tengu_search::{LeafMaterial, RootSelection, SearchConfig};

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
        residual: 0.0,
    };
    let head = SearchConfig {
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    assert_eq!(material_term(&out, &head, &pos, &terms), -0.7);
    let exchange = SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        ..head
    };
    let expected = ((rook - pawn + pawn) / tengu_model::desc::MATERIAL_SCALE).tanh();
    assert!((material_term(&out, &exchange, &pos, &terms) - expected).abs() < 1e-6);
    assert!(SearchConfig {
        exchange_depth: 0,
        ..exchange
    }
    .validate()
    .unwrap_err()
    .to_string()
    .contains("search.exchange_depth"));
}

#[test]
fn gain_leaf_material_is_only_what_the_pending_exchange_changes() {
    let variant = Variant::dai_dai();
    let terms = LeafTerms::new(&variant);
    let pawn = value_of(&variant, "p");
    let rook = value_of(&variant, "R");
    let scale = tengu_model::desc::MATERIAL_SCALE;
    let out = Evaluation {
        policy: vec![],
        wdl: [0.2, 0.6, 0.2],
        material: -0.7,
        residual: 0.0,
    };
    let gain = SearchConfig {
        leaf_material: LeafMaterial::Gain,
        material_utility: 1.0,
        value_utility: 1.0,
        ..SearchConfig::default()
    };
    gain.validate().unwrap();
    // Black is a rook up and takes a free pawn: the term is the pawn's step of the tanh.
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "5e=p"]);
    let balance = rook - pawn;
    let expected = ((balance + pawn) / scale).tanh() - (balance / scale).tanh();
    assert!((material_term(&out, &gain, &pos, &terms) - expected).abs() < 1e-6);
    assert!(expected > 0.0);
    // Nothing for White to take: no term at all ("exchange" gives the balance, which
    // "gain" leaves to the value head).
    let quiet = compose('w', &["9q=K", "9a=k", "5i=R", "13e=p"]);
    assert_eq!(material_term(&out, &gain, &quiet, &terms), 0.0);
    let exchange = SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        ..gain.clone()
    };
    assert!(material_term(&out, &exchange, &quiet, &terms) < 0.0);
    // The capture that starts the exchange still takes the node's first visit.
    let lead = tengu_search::leaf::leaf_value_and_lead(
        &out,
        &gain,
        &pos,
        pos.legal_move_list().len(),
        &terms,
    )
    .1
    .expect("a winning capture");
    assert_eq!(pos.move_text(lead), "5i>5e{5e}");
    // The balance reaches the leaves only through the value head: a value weight is needed.
    let refused = SearchConfig {
        value_utility: 0.0,
        ..gain
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(refused.contains("search.value_utility"), "{refused}");
}

/// A Gumbel root with exchange material (the other settings the defaults).
fn exchange_root() -> SearchConfig {
    SearchConfig {
        root: RootSelection::Gumbel,
        leaf_material: LeafMaterial::Exchange,
        material_utility: 1.0,
        ..SearchConfig::default()
    }
}

/// A Gumbel search of 32 visits with a uniform network and exchange material alone.
fn exchange_search(game: &Game) -> tengu_rules::Move {
    let config = SearchConfig {
        gumbel_moves: 16,
        value_utility: 0.0,
        ..exchange_root()
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
    use tengu_search::leaf::leaf_value_and_lead;
    use tengu_search::tree::{Leaf, Tree};
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
        residual: 0.0,
    };
    let exchange = SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    let lead = |config: &SearchConfig, pos: &tengu_rules::Position| {
        leaf_value_and_lead(&out, config, pos, pos.legal_move_list().len(), &terms).1
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
    // The value is the one leaf_value gives.
    assert_eq!(
        leaf_value_and_lead(&out, &exchange, &pos, moves.len(), &terms).0,
        tengu_search::leaf::leaf_value(&out, &exchange, &pos, moves.len(), &terms)
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

/// Exchange values of the root moves of `pos` under `config`, by move text.
fn root_values(
    pos: &tengu_rules::Position,
    config: &SearchConfig,
) -> std::collections::HashMap<String, f32> {
    let terms = LeafTerms::new(pos.variant());
    let moves = pos.legal_move_list();
    let values = tengu_search::root_ranking::root_exchange_values(config, pos, &moves, &terms)
        .expect("exchange material gives root values");
    moves
        .iter()
        .zip(values)
        .map(|(&m, v)| (pos.move_text(m), v))
        .collect()
}

#[test]
fn root_mobility_rates_the_move_that_frees_a_rook_above_a_king_step() {
    // Black's rook on 1q is shut in by its gold on 1p and its pawn on 2q; the gold
    // stepping aside to 2p opens file 1.
    let pos = compose('b', &["9q=K", "9a=k", "1q=R", "1p=G", "2q=P"]);
    let plain = root_values(&pos, &exchange_root());
    assert_eq!(plain["1p>2p"], 0.0, "no material changes hands");
    assert_eq!(plain["9q>9p"], 0.0);
    let config = SearchConfig {
        root_mobility: 0.01,
        ..exchange_root()
    };
    let active = root_values(&pos, &config);
    // The rook gains file 1 up to White's side; a king step changes a few moves.
    assert!(
        active["1p>2p"] > active["9q>9p"] + 0.05,
        "freeing the rook {} vs a king step {}",
        active["1p>2p"],
        active["9q>9p"]
    );
    // The balance after 1p>2p, recomputed by hand.
    let mut after = pos.clone();
    let push = pos
        .legal_move_list()
        .into_iter()
        .find(|&m| pos.move_text(m) == "1p>2p")
        .unwrap();
    after.play(push);
    let me = pos.side_to_move();
    let balance = after.mobility(me) as f32 - after.mobility(me.opposite()) as f32;
    assert!((active["1p>2p"] - 0.01 * balance).abs() < 1e-5);
    assert!(SearchConfig {
        root_mobility: 2.0,
        ..config
    }
    .validate()
    .unwrap_err()
    .to_string()
    .contains("search.root_mobility"));
}

#[test]
fn root_threat_counts_a_share_of_the_piece_a_move_attacks() {
    // Black's rook on 5i can go to 3i, where it attacks White's undefended pawn on 3e,
    // or to 6i, where it attacks nothing.
    let variant = Variant::dai_dai();
    let pawn = value_of(&variant, "p");
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "3e=p"]);
    let plain = root_values(&pos, &exchange_root());
    assert_eq!(plain["5i>3i"], 0.0);
    let config = SearchConfig {
        root_threat: 0.5,
        ..exchange_root()
    };
    let threat = root_values(&pos, &config);
    assert_eq!(threat["5i>3i"], 0.5 * pawn);
    assert_eq!(threat["5i>6i"], 0.0);
    assert!(SearchConfig {
        root_threat: -0.1,
        ..config
    }
    .validate()
    .unwrap_err()
    .to_string()
    .contains("search.root_threat"));
}
