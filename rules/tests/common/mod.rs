//! Shared helpers of the rules integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// One line of a `.perft` data file.
pub struct PerftCase {
    pub file: String,
    pub line: usize,
    pub position: String,
    pub depth: u32,
    pub nodes: u64,
}

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Every case of every `rules/tests/data/*.perft` file.
pub fn perft_cases() -> Vec<PerftCase> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("rules/tests/data exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).expect("readable perft file");
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(';').map(str::trim).collect();
            assert_eq!(
                fields.len(),
                3,
                "{name}:{}: expected '<position>; <depth>; <nodes>'",
                i + 1
            );
            cases.push(PerftCase {
                file: name.clone(),
                line: i + 1,
                position: fields[0].to_string(),
                depth: fields[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}:{}: bad depth", i + 1)),
                nodes: fields[2]
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}:{}: bad node count", i + 1)),
            });
        }
    }
    cases
}

/// Positions of the perft files, each once.
pub fn perft_positions() -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    perft_cases()
        .into_iter()
        .map(|c| c.position)
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

/// A §12.2 position from a piece list like `["9q=K", "9a=k"]`.
pub fn compose(size: usize, side: char, pass: char, pieces: &[&str]) -> String {
    let mut grid = vec![vec![None::<String>; size]; size];
    for item in pieces {
        let (sq, tok) = item.split_once('=').expect("square=token");
        let (file, rank) = sq.split_at(sq.len() - 1);
        let file: usize = file.parse().expect("file");
        let row = (rank.as_bytes()[0] - b'a') as usize;
        let col = size - file;
        assert!(grid[row][col].is_none(), "{sq} twice");
        grid[row][col] = Some(tok.to_string());
    }
    let ranks: Vec<String> = grid
        .into_iter()
        .map(|row| {
            let mut items = Vec::new();
            let mut empty = 0;
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
    format!("{} {side} {pass}", ranks.join("/"))
}

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_rules::{Color, Game, Piece, Position, Square, Variant};

/// Positions along a random game (captures preferred half of the time) from the initial
/// position of `variant`: every `every`-th position of the first `plies` plies.
pub fn random_walk(
    variant: std::sync::Arc<Variant>,
    seed: u64,
    plies: usize,
    every: usize,
) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(Position::initial(variant));
    let mut out = vec![game.position().clone()];
    let mut moves = Vec::new();
    for ply in 1..=plies {
        if game.outcome().is_some() {
            break;
        }
        game.position().legal_moves(&mut moves);
        let captures: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
        let m = if !captures.is_empty() && rng.gen_bool(0.5) {
            captures[rng.gen_range(0..captures.len())]
        } else {
            moves[rng.gen_range(0..moves.len())]
        };
        game.play_unchecked(m);
        if ply % every == 0 {
            out.push(game.position().clone());
        }
    }
    out
}

/// A random valid position: `pieces` random pieces of any type (promoted forms included) on
/// random squares, plus one royal per side (sometimes two in MDD). Kinds that promote to a
/// royal (the Drunk Elephant) are placed often, sometimes two of them and sometimes beside
/// a Prince, so the "no second Prince" rule of RULES.md §4 (v1.2) is exercised. Tries until
/// the position passes validation.
pub fn random_placement(variant: std::sync::Arc<Variant>, seed: u64, pieces: usize) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    let size = variant.size();
    let types = variant.piece_types().to_vec();
    let kinds = variant.kinds().to_vec();
    let royal_types: Vec<usize> = (0..types.len())
        .filter(|&t| kinds[types[t].kind].royal)
        .collect();
    let to_royal = |t: usize| {
        !types[t].promoted
            && kinds[types[t].kind]
                .promotes_to
                .is_some_and(|p| kinds[p].royal)
    };
    let plain_types: Vec<usize> = (0..types.len())
        .filter(|&t| !kinds[types[t].kind].royal && !to_royal(t))
        .collect();
    let crown_types: Vec<usize> = (0..types.len()).filter(|&t| to_royal(t)).collect();
    loop {
        let side = if rng.gen_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        let mut pos = Position::empty(variant.clone(), side, rng.gen_bool(0.2));
        let mut free: Vec<Square> = Square::all(size).collect();
        let mut place = |pos: &mut Position, rng: &mut SmallRng, piece: Piece| {
            let i = rng.gen_range(0..free.len());
            pos.put(free.swap_remove(i), piece);
        };
        for color in Color::ALL {
            let first = royal_types[rng.gen_range(0..royal_types.len())];
            place(&mut pos, &mut rng, Piece { color, ty: first });
            if royal_types.len() > 1 && rng.gen_bool(0.2) {
                let t = royal_types[rng.gen_range(0..royal_types.len())];
                place(&mut pos, &mut rng, Piece { color, ty: t });
            }
            for &crown in &crown_types {
                // None, one or two of them.
                for _ in 0..2 {
                    if rng.gen_bool(0.3) {
                        place(&mut pos, &mut rng, Piece { color, ty: crown });
                    }
                }
            }
        }
        for _ in 0..pieces {
            let color = if rng.gen_bool(0.5) {
                Color::Black
            } else {
                Color::White
            };
            let ty = plain_types[rng.gen_range(0..plain_types.len())];
            place(&mut pos, &mut rng, Piece { color, ty });
        }
        if let Ok(valid) = Position::parse(&pos.to_string()) {
            return valid;
        }
    }
}
