//! The future targets of self-play rows (material balance and occupancy K plies later and
//! at the end), on a hand-made game and on random games checked by replaying.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_rules::values::{material, piece_values};
use tengu_rules::{Color, Game, Position, Square, Variant};
use tengu_selfplay::play::FutureTargets;
use tengu_shard::TARGET_HORIZON;

#[path = "../../search/tests/common/mod.rs"]
mod common;

#[test]
fn a_hand_made_game_has_the_expected_targets() {
    let variant = Variant::dai_dai();
    let rows = common::rook_against_rook_ranks();
    let start = common::black_to_move(&rows);
    let values = piece_values(&variant);
    let rook = values[start.piece_at(Square::new(0, 16)).unwrap().ty];
    let mut game = Game::new(start.clone());
    // Black's Rook takes White's Rook on the same file; then both Kings step.
    let take = start
        .legal_move_list()
        .into_iter()
        .find(|m| m.captures().any(|s| s == Square::new(0, 10)))
        .expect("the Rook can capture");
    game.play(take).unwrap();
    for _ in 0..2 {
        let king = game
            .position()
            .legal_move_list()
            .into_iter()
            .find(|m| !m.is_pass() && !m.is_capture() && game.position().is_royal_at(m.from()))
            .unwrap();
        game.play(king).unwrap();
    }
    let targets = FutureTargets::of_game(&game, &values);
    let n = variant.size();
    // Ply 0, Black to move: 16 plies later is past the end, so both horizons are the
    // final position, where Black is a Rook up.
    let (m, occ) = targets.for_row(0, Color::Black, TARGET_HORIZON);
    assert_eq!(m, [rook, rook]);
    assert_eq!(occ.len(), 2 * n * n);
    assert_eq!(occ[10 * n], 1, "Black's Rook on the captured square");
    assert_eq!(occ.iter().filter(|&&c| c == 1).count(), 2 * 2);
    assert_eq!(occ.iter().filter(|&&c| c == 2).count(), 2);
    // Ply 1, White to move: the same from White's side.
    let (m, occ) = targets.for_row(1, Color::White, TARGET_HORIZON);
    assert_eq!(m, [-rook, -rook]);
    assert_eq!(occ[10 * n], 2);
    let final_pos = game.position();
    let white_king = final_pos.royals(Color::White).next().unwrap();
    assert_eq!(occ[white_king.row() * n + white_king.col()], 1);
}

#[test]
fn targets_match_a_replay_of_random_games() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let values = piece_values(&variant);
        let n = variant.size();
        let mut rng = SmallRng::seed_from_u64(3);
        let mut game = Game::new(Position::initial(variant.clone()));
        for _ in 0..60 {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_move_list();
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !captures.is_empty() && rng.gen_bool(0.7) {
                *captures[rng.gen_range(0..captures.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            game.play(m).unwrap();
        }
        let targets = FutureTargets::of_game(&game, &values);
        let positions: Vec<Position> = {
            let mut p = game.start().clone();
            let mut out = vec![p.clone()];
            for m in game.moves() {
                p.play(m);
                out.push(p.clone());
            }
            out
        };
        let last = positions.len() - 1;
        for (ply, horizon) in [0usize, 5, 30, last - 3]
            .into_iter()
            .flat_map(|ply| [(ply, TARGET_HORIZON), (ply, 4)])
        {
            let mover = positions[ply].side_to_move();
            let (m, occ) = targets.for_row(ply as u32, mover, horizon);
            let later = (ply + horizon as usize).min(last);
            for (h, at) in [(0, later), (1, last)] {
                let bal = material(&positions[at], &values);
                let want = bal[mover.index()] - bal[mover.opposite().index()];
                assert!((m[h] - want).abs() < 1e-4, "ply {ply} horizon {h}");
                for s in Square::all(n) {
                    let want = match positions[at].piece_at(s) {
                        None => 0,
                        Some(p) if p.color == mover => 1,
                        Some(_) => 2,
                    };
                    assert_eq!(occ[h * n * n + s.row() * n + s.col()], want);
                }
            }
        }
        assert!(
            targets.for_row(0, Color::Black, TARGET_HORIZON).0[1] != 0.0,
            "{}: no capture changed the material",
            variant.id()
        );
    }
}
