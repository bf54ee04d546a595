//! Forced mates by checks that a played game had and missed: for each position of a game
//! record, whether the side to move had a mate in up to N of its moves
//! (`tengu_search::mate`), and what the search cost. Tells how often a won game shuffled
//! past a mate, and what `search.mate_search` costs a move.
//!
//! `cargo run --release -p tengu-search --example missed_mates -- RECORD [N] [FROM_PLY]`

use std::time::Instant;

use tengu_rules::{Game, Record};
use tengu_search::mate::{mate_by_checks, MateLimits};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: missed_mates RECORD [MOVES (default 2)] [FROM_PLY (default 0)]");
        std::process::exit(2);
    };
    let moves: u32 = args
        .get(2)
        .map_or(2, |a| a.parse().expect("MOVES: a number"));
    let from: usize = args
        .get(3)
        .map_or(0, |a| a.parse().expect("FROM_PLY: a number"));
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let record = Record::parse(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut game = Game::new(record.game.start().clone());
    let limits = MateLimits {
        moves,
        nodes: 1_000_000,
    };
    let (mut searched, mut found, mut seconds) = (0u64, 0u64, 0.0f64);
    let mut first = None;
    for (ply, m) in record.game.moves().enumerate() {
        if ply >= from {
            let start = Instant::now();
            let mate = mate_by_checks(&game, limits);
            seconds += start.elapsed().as_secs_f64();
            searched += 1;
            if let Some(mate) = mate {
                found += 1;
                first.get_or_insert((ply, game.position().move_text(mate)));
            }
        }
        game.play_unchecked(m);
    }
    println!(
        "{path}: {searched} positions from ply {from}, {found} with a mate by checks in <= {moves} (first: {first:?}); {:.2} ms a position",
        1000.0 * seconds / searched.max(1) as f64
    );
}
