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

/// A 17x17 position from `square=token` items (`9q=K`: file 9, rank q; uppercase Black).
pub fn compose(side: char, pieces: &[&str]) -> Position {
    let size = 17;
    let mut grid = vec![vec![None::<String>; size]; size];
    for item in pieces {
        let (sq, tok) = item.split_once('=').unwrap();
        let (file, rank) = sq.split_at(sq.len() - 1);
        grid[(rank.as_bytes()[0] - b'a') as usize][size - file.parse::<usize>().unwrap()] =
            Some(tok.to_string());
    }
    let ranks: Vec<String> = grid
        .into_iter()
        .map(|row| {
            let (mut items, mut empty) = (Vec::new(), 0);
            for cell in row {
                match cell {
                    None => empty += 1,
                    Some(t) => {
                        if empty > 0 {
                            items.push(empty.to_string());
                            empty = 0;
                        }
                        items.push(t);
                    }
                }
            }
            if empty > 0 {
                items.push(empty.to_string());
            }
            items.join(",")
        })
        .collect();
    Position::parse(&format!("{} {side} -", ranks.join("/"))).unwrap()
}
