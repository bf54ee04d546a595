//! Helpers shared by the self-play integration tests (their positions are
//! `search/tests/common/mod.rs`).
#![allow(dead_code)]

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
