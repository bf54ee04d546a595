//! Positions shared by the integration tests of search, and of arena and selfplay, which
//! include this file by path (tests of different crates share no module otherwise).
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
