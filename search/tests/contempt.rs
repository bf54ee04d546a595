//! Contempt (`search.contempt`, `AlphaBetaPlayer::with_contempt`): a draw is worth less than
//! an even position to the player that searches, so a side that is not behind does not
//! steer into a repetition. Without contempt the same searches weigh the repeat like any
//! other move.

use std::time::Duration;

use tengu_model::UniformEvaluator;
use tengu_rules::{Game, Move, Position, Variant};
use tengu_search::players::{AlphaBetaPlayer, Player};
use tengu_search::search::search_game;
use tengu_search::SearchConfig;

mod common;
use common::compose;

/// The two Kings alone (9q and 9a); Black's King has stepped out and back and White's out:
/// White to move, and 9b>9a would recreate the start position (met once before).
fn kings_game() -> (Game, Move) {
    let text = compose('b', &["9q=K", "9a=k"]).to_string();
    let mut game = Game::new(Position::parse_for(Variant::dai_dai(), &text).unwrap());
    for mv in ["9q>9p", "9a>9b", "9p>9q"] {
        game.play(game.position().parse_move(mv).unwrap()).unwrap();
    }
    let back = game.position().parse_move("9b>9a").unwrap();
    (game, back)
}

/// The policy weight and the root value of the move back after a search of `visits`.
fn weight_of_back(contempt: f32) -> (f32, f32) {
    let (game, back) = kings_game();
    let config = SearchConfig {
        repetition_draw: true,
        contempt,
        ..SearchConfig::default()
    };
    let result = search_game(&game, &mut UniformEvaluator, &config, 400, 600, 1)
        .unwrap()
        .unwrap();
    let weight = result
        .policy
        .iter()
        .find(|(m, _)| *m == back)
        .map_or(0.0, |(_, w)| *w);
    (weight, result.value)
}

#[test]
fn mcts_with_contempt_shuns_the_repeat_it_weighs_evenly_without() {
    // Uniform evaluations: every position is worth 0, so only the draw's value tells the
    // move back from White's seven other King moves.
    let (even, even_value) = weight_of_back(0.0);
    let (shunned, value) = weight_of_back(0.3);
    assert!(
        even > 0.05,
        "without contempt the repeat gets its share: {even}"
    );
    assert!(
        shunned < even / 3.0,
        "with contempt the repeat is shunned: {shunned} against {even}"
    );
    // The root keeps a value near 0: the other moves are as good as before.
    assert!(
        even_value.abs() < 1e-3 && value.abs() < 0.05,
        "{even_value} {value}"
    );
}

#[test]
fn alpha_beta_with_contempt_never_chooses_the_repeat() {
    let (game, back) = kings_game();
    let variant = game.position().variant().clone();
    let choices = |contempt: Option<f32>| -> Vec<Move> {
        (0..80)
            .map(|seed| {
                let ab = AlphaBetaPlayer::new(&variant, Duration::from_secs(60), 1, seed);
                let mut ab = match contempt {
                    Some(c) => ab.with_contempt(c),
                    None => ab,
                };
                ab.choose(&game).unwrap()
            })
            .collect()
    };
    // Depth 1, equal material and mobility: ties in random order, the repeat among them.
    assert!(choices(None).contains(&back));
    assert!(!choices(Some(0.05)).contains(&back));
    let named = AlphaBetaPlayer::new(&variant, Duration::from_secs(1), 2, 0).with_contempt(0.05);
    assert_eq!(named.name(), "alphabeta(1000ms,depth<=2,contempt 0.05)");
}
