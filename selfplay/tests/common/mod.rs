//! Positions shared by the self-play integration tests.
#![allow(dead_code)]

use tengu_rules::Position;

/// The ranks (RULES.md §12.2, rank a first) of a Dai Dai position: White's King on 1a,
/// White's Rook on 1k, Black's Rook on 1q below it on the same file, Black's King on 17q.
pub fn rook_against_rook_ranks() -> Vec<String> {
    let mut ranks = vec!["k,16".to_string()];
    ranks.extend((1..10).map(|_| "17".to_string()));
    ranks.push("r,16".into());
    ranks.extend((11..16).map(|_| "17".to_string()));
    ranks.push("R,15,K".into());
    ranks
}

/// A Black-to-move position from its ranks.
pub fn black_to_move(ranks: &[String]) -> Position {
    Position::parse(&format!("{} b -", ranks.join("/"))).unwrap()
}

/// Steps `play` with the uniform evaluator until it has finished `games` games (its
/// `game_limit` is set to that), and returns them in the order they finished.
pub fn finish_games(
    play: &mut tengu_selfplay::SelfPlay,
    games: u64,
) -> Vec<tengu_selfplay::FinishedGame> {
    use tengu_model::Evaluator;
    play.game_limit = Some(games);
    let mut eval: Box<dyn Evaluator> = Box::new(tengu_model::UniformEvaluator);
    let mut finished = Vec::new();
    for _ in 0..1_000_000 {
        play.step(eval.as_mut()).unwrap();
        finished.extend(play.take_finished());
        if finished.len() as u64 == games {
            break;
        }
    }
    assert_eq!(finished.len() as u64, games);
    finished
}
