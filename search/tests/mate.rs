//! The mate search by checks (`tengu_search::mate`, `search.mate_search`): a mate in one is
//! found and ends the game with the mover's win; where none is within reach it finds
//! nothing; a mate in two it reports is forced (every reply is mated in one); and the MCTS
//! players play the mate that their saturated values would not prefer.

use tengu_model::UniformEvaluator;
use tengu_rules::{Color, Game, Position, Termination, Variant};
use tengu_search::mate::{mate_by_checks, MateLimits};
use tengu_search::players::{MctsPlayer, Player};
use tengu_search::SearchConfig;

mod common;
use common::compose;

fn limits(moves: u32) -> MateLimits {
    MateLimits {
        moves,
        nodes: 200_000,
    }
}

/// White's King in the corner (1a); Black's Rooks on 2p (file 2 closed) and `second`,
/// Black's King far away. Black to move.
fn corner(second: &str) -> Game {
    let pieces = ["1a=k", "2p=R", second, "17q=K"];
    Game::new(compose('b', &pieces))
}

#[test]
fn a_mate_in_one_is_found_and_wins_the_game() {
    // 3o>1o checks along file 1; 2a and 2b are the Rook on 2p's, 1b the checker's.
    let game = corner("3o=R");
    let m = mate_by_checks(&game, limits(1)).expect("a mate in one");
    let mut after = game.clone();
    after.play(m).unwrap();
    let outcome = after.outcome().expect("the game is over");
    assert_eq!(outcome.winner, Some(Color::Black));
    assert_eq!(outcome.termination, Termination::Checkmate);
    // Off, or with no nodes to spend, nothing is found.
    assert_eq!(mate_by_checks(&game, limits(0)), None);
    assert_eq!(
        mate_by_checks(&game, MateLimits { moves: 1, nodes: 3 }),
        None
    );
}

#[test]
fn no_mate_is_reported_out_of_reach_and_a_reported_mate_in_two_is_forced() {
    // Rooks on 3p and 4o, file 2 open: every check leaves the King 2a, 2b or 1b.
    let game = Game::new(compose('b', &["1a=k", "3p=R", "4o=R", "17q=K"]));
    assert_eq!(mate_by_checks(&game, limits(1)), None);
    if let Some(m) = mate_by_checks(&game, limits(2)) {
        let mut after = game.clone();
        after.play(m).unwrap();
        assert!(
            after.position().in_check(),
            "a mate by checks starts with a check"
        );
        for reply in after.legal_move_list() {
            let mut line = after.clone();
            line.play(reply).unwrap();
            assert!(
                mate_by_checks(&line, limits(1)).is_some(),
                "the reply {} escapes",
                after.position().move_text(reply)
            );
        }
    }
    // The start position holds no mate.
    let start = Game::new(Position::initial(Variant::dai_dai()));
    assert_eq!(mate_by_checks(&start, limits(2)), None);
}

#[test]
fn an_mcts_player_with_the_mate_search_plays_the_mate() {
    let game = corner("3o=R");
    let search = |mate_search| SearchConfig {
        mate_search,
        ..SearchConfig::default()
    };
    let mut player = MctsPlayer::new(
        "uniform".into(),
        Box::new(UniformEvaluator),
        search(1),
        8,
        1,
    );
    let m = player.choose(&game).unwrap();
    let mut after = game.clone();
    after.play(m).unwrap();
    assert_eq!(
        after.outcome().map(|o| o.termination),
        Some(Termination::Checkmate)
    );
}
