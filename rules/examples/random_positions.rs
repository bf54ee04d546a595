//! Prints positions reached by random play (captures preferred half of the time), for
//! building test and benchmark position sets.
//!
//! usage: cargo run --release -p tengu-rules --example random_positions -- <game> <games> <plies,...> [seed]

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_rules::{Game, Position, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: random_positions <dai-dai|maka-dai-dai> <games> <ply,ply,...> [seed]");
        std::process::exit(2);
    }
    let variant = Variant::builtin(&args[1]).unwrap_or_else(|| {
        eprintln!("unknown game {}", args[1]);
        std::process::exit(2)
    });
    let games: usize = args[2].parse().expect("games");
    let plies: Vec<usize> = args[3]
        .split(',')
        .map(|p| p.parse().expect("ply"))
        .collect();
    let seed: u64 = args.get(4).map_or(1, |s| s.parse().expect("seed"));
    let mut rng = SmallRng::seed_from_u64(seed);
    let max = *plies.iter().max().unwrap();
    for _ in 0..games {
        let mut game = Game::new(Position::initial(variant.clone()));
        let mut moves = Vec::new();
        for ply in 1..=max {
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
            if plies.contains(&ply) && game.outcome().is_none() {
                println!("{}", game.position());
            }
        }
    }
}
