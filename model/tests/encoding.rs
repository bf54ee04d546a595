//! Encoder and policy index over positions from random play of both games.

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::policy::CODES;
use tengu_model::{Encoder, PolicyIndex};
use tengu_rules::{Game, Position, Variant};

fn random_positions(variant: std::sync::Arc<Variant>, games: u64, plies: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = SmallRng::seed_from_u64(g);
        let mut game = Game::new(Position::initial(variant.clone()));
        let mut moves = Vec::new();
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            out.push(game.position().clone());
            game.position().legal_moves(&mut moves);
            let captures: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let m = if !captures.is_empty() && rng.gen_bool(0.6) {
                captures[rng.gen_range(0..captures.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            game.play_unchecked(m);
        }
    }
    out
}

#[test]
fn policy_index_is_a_bijection_on_legal_moves() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let index = PolicyIndex::new(Encoder::new(&variant));
        let positions = random_positions(variant.clone(), 12, 200);
        assert!(positions.len() > 1500);
        let (mut multi, mut declined, mut igui) = (0, 0, 0);
        for pos in &positions {
            let moves = pos.legal_move_list();
            let mut seen = HashSet::new();
            for &m in &moves {
                let slot = index.slot(pos, m).unwrap();
                assert!((slot.code as usize) < CODES);
                let id = index.id(slot);
                assert!((id as usize) < index.slots());
                assert_eq!(index.slot_of_id(id), slot);
                assert!(seen.insert(id), "two moves share slot {slot:?} in {pos}");
                multi += m.side_captures().count().min(1);
                declined += (slot.code % 2) as usize;
                igui += (m.from() == m.to() && m.is_capture()) as usize;
            }
            // Decoding a few slots finds the same move.
            for &m in moves.iter().step_by(37) {
                assert_eq!(index.move_of(pos, index.slot(pos, m).unwrap()), Some(m));
            }
        }
        assert!(
            multi > 0 && igui > 0,
            "{}: no lion multi-captures met ({multi}, {igui})",
            variant.id()
        );
        if variant.id() == "maka-dai-dai" {
            assert!(declined > 0, "no declined promotion met");
        }
    }
}

#[test]
fn encoder_sees_the_board_from_the_movers_side() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let enc = Encoder::new(&variant);
        let black = Position::initial(variant.clone());
        let white = Position::parse(&black.to_string().replace(" b -", " w -")).unwrap();
        let (mut a, mut b) = (vec![0.0; enc.len()], vec![0.0; enc.len()]);
        enc.encode(&black, 0, &mut a);
        enc.encode(&white, 0, &mut b);
        let area = enc.size() * enc.size();
        let colour_plane = enc.planes() - 1;
        // The setups are symmetric: only the "White to move" plane differs.
        assert_eq!(a[..colour_plane * area], b[..colour_plane * area]);
        assert!(a[colour_plane * area..].iter().all(|&x| x == 0.0));
        assert!(b[colour_plane * area..].iter().all(|&x| x == 1.0));
        // 96 pieces a side, one hot each.
        let t = variant.piece_types().len();
        assert_eq!(a[..t * area].iter().sum::<f32>(), 96.0);
        assert_eq!(a[t * area..2 * t * area].iter().sum::<f32>(), 96.0);
        // Repetition plane.
        enc.encode(&black, 2, &mut a);
        assert!((a[(2 * t + 1) * area] - 2.0 / 3.0).abs() < 1e-6);
    }
}
