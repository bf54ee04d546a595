//! Encoder and policy index over positions from random play of both games.

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::desc::CODES;
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
        let t = variant.piece_types().len();
        let colour_plane = 2 * t + 4;
        // The setups are symmetric: only the "White to move" plane differs.
        assert_eq!(a[..colour_plane * area], b[..colour_plane * area]);
        assert!(a[colour_plane * area..(colour_plane + 1) * area]
            .iter()
            .all(|&x| x == 0.0));
        assert!(b[colour_plane * area..(colour_plane + 1) * area]
            .iter()
            .all(|&x| x == 1.0));
        assert_eq!(
            a[(colour_plane + 1) * area..],
            b[(colour_plane + 1) * area..]
        );
        // 96 pieces a side, one hot each.
        assert_eq!(a[..t * area].iter().sum::<f32>(), 96.0);
        assert_eq!(a[t * area..2 * t * area].iter().sum::<f32>(), 96.0);
        // Repetition plane.
        enc.encode(&black, 2, &mut a);
        assert!((a[(2 * t + 1) * area] - 2.0 / 3.0).abs() < 1e-6);
    }
}

/// The attack planes agree with the move generator: the mover "attacks" an enemy-occupied
/// square exactly when one of its legal moves captures there (whoever moves, via the
/// same position with the other side to move), and the hanging planes follow from them.
#[test]
fn tactical_planes_agree_with_the_move_generator() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let enc = Encoder::new(&variant);
        assert!(enc.tactical());
        assert_eq!(
            enc.planes(),
            Encoder::with_layout(&variant, false).planes() + 4
        );
        assert!(Encoder::for_planes(&variant, enc.planes())
            .unwrap()
            .tactical());
        assert!(!Encoder::for_planes(&variant, enc.planes() - 4)
            .unwrap()
            .tactical());
        assert!(Encoder::for_planes(&variant, enc.planes() + 1).is_err());
        let t = variant.piece_types().len();
        let base = 2 * t + 5;
        let area = enc.size() * enc.size();
        let mut planes = vec![0.0; enc.len()];
        let (mut hanging, mut attacked) = (0, 0);
        for pos in random_positions(variant.clone(), 3, 120).iter().step_by(7) {
            if pos.after_pass() {
                continue;
            }
            enc.encode(pos, 0, &mut planes);
            let mover = pos.side_to_move();
            let flipped_text = {
                let text = pos.to_string();
                let (board, rest) = text.split_once(' ').unwrap();
                let side = if rest.starts_with('b') { "w" } else { "b" };
                format!("{board} {side}{}", &rest[1..])
            };
            let Ok(flipped) = Position::parse(&flipped_text) else {
                continue; // the other side would be in an impossible state (in check)
            };
            for (side_pos, plane) in [(pos, base), (&flipped, base + 1)] {
                let captured: HashSet<_> = side_pos
                    .legal_move_list()
                    .iter()
                    .flat_map(|m| m.captures().collect::<Vec<_>>())
                    .collect();
                let mut pseudo = Vec::new();
                side_pos.pseudo_legal_moves(&mut pseudo);
                let pseudo_captured: HashSet<_> = pseudo
                    .iter()
                    .flat_map(|m| m.captures().collect::<Vec<_>>())
                    .collect();
                let attacker = side_pos.side_to_move();
                for s in pos.squares_of(attacker.opposite()) {
                    // A legal capture implies the plane; the plane implies a pseudo-legal
                    // capture (one exposing the attacker's royal still attacks).
                    let i = enc.square_index(s, mover);
                    let on = planes[plane * area + i] == 1.0;
                    if captured.contains(&s) {
                        assert!(on, "{pos}: {s:?} captured but not marked");
                    }
                    if on {
                        assert!(
                            pseudo_captured.contains(&s),
                            "{pos}: {s:?} marked, no capture"
                        );
                    }
                }
            }
            for s in pos.squares_of(mover) {
                let i = enc.square_index(s, mover);
                let expect = planes[(base + 1) * area + i] == 1.0 && planes[base * area + i] == 0.0;
                assert_eq!(planes[(base + 2) * area + i] == 1.0, expect);
                hanging += expect as usize;
            }
            for s in pos.squares_of(mover.opposite()) {
                let i = enc.square_index(s, mover);
                attacked += (planes[base * area + i] == 1.0) as usize;
            }
        }
        assert!(
            hanging > 0 && attacked > 0,
            "{}: no attacks met",
            variant.id()
        );
    }
}

/// The material planes hold each non-royal piece's rules-derived value / 10 (the mover's
/// positive) and tanh(balance / 10); the four layouts have distinct plane counts and the
/// material planes leave the others unchanged.
#[test]
fn material_planes_hold_values_and_the_balance() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let values = tengu_rules::values::piece_values(&variant);
        let mut counts = HashSet::new();
        for (tactical, material) in [(true, false), (false, false), (true, true), (false, true)] {
            let e = Encoder::with_planes(&variant, tactical, material);
            assert!(counts.insert(e.planes()), "distinct plane counts");
            let back = Encoder::for_planes(&variant, e.planes()).unwrap();
            assert_eq!((back.tactical(), back.material()), (tactical, material));
        }
        let plain = Encoder::with_planes(&variant, true, false);
        let enc = Encoder::with_planes(&variant, true, true);
        assert_eq!(enc.planes(), plain.planes() + 2);
        let area = enc.size() * enc.size();
        let base = plain.planes();
        let (mut with, mut without) = (vec![0.0; enc.len()], vec![0.0; plain.len()]);
        let mut unbalanced = 0;
        for pos in random_positions(variant.clone(), 2, 200).iter().step_by(9) {
            enc.encode(pos, 0, &mut with);
            plain.encode(pos, 0, &mut without);
            assert_eq!(&with[..without.len()], &without[..]);
            let mover = pos.side_to_move();
            let mut balance = 0.0;
            for s in tengu_rules::Square::all(enc.size()) {
                let i = enc.square_index(s, mover);
                let want = match pos.piece_at(s) {
                    Some(p) if values[p.ty] < tengu_rules::values::ROYAL_VALUE => {
                        let v = if p.color == mover {
                            values[p.ty]
                        } else {
                            -values[p.ty]
                        };
                        balance += v;
                        v / 10.0
                    }
                    _ => 0.0,
                };
                assert!((with[base * area + i] - want).abs() < 1e-6);
            }
            let plane = &with[(base + 1) * area..(base + 2) * area];
            assert!(plane
                .iter()
                .all(|&x| (x - (balance / 10.0f32).tanh()).abs() < 1e-6));
            unbalanced += usize::from(balance.abs() > 1.0);
        }
        assert!(unbalanced > 0, "random play changed the material somewhere");
    }
}

/// Every rule set a preset names gives every legal move a slot of its own: the policy covers
/// the moves of every reading (a Great Elephant's `TSA` lines, QBoard's pseudo-legal moves),
/// so a network trained under one rule set of a game scores every move of another.
#[test]
fn every_presets_moves_have_slots_of_their_own() {
    for game in ["dai-dai", "maka-dai-dai"] {
        for preset in tengu_rules::ruleset::PRESETS {
            let rules = tengu_rules::RuleSet::preset(game, preset.name).unwrap();
            let variant = Variant::by_key(&rules.canonical()).unwrap();
            let index = PolicyIndex::new(Encoder::new(&variant));
            let positions = random_positions(variant.clone(), 3, 150);
            assert!(positions.len() > 300, "{}", variant.id());
            for pos in &positions {
                let mut seen = HashSet::new();
                for m in pos.legal_move_list() {
                    let slot = index
                        .slot(pos, m)
                        .unwrap_or_else(|e| panic!("{}: {e} in {pos}", variant.id()));
                    assert!(
                        seen.insert(index.id(slot)),
                        "{}: two moves share {slot:?}",
                        variant.id()
                    );
                }
            }
        }
    }
}

/// The input planes of a network under a rule set with other piece types: the same piece
/// codes, a missing promoted form read as the code's other form, the extra planes kept.
#[test]
fn plane_maps_match_piece_types_by_code() {
    use tengu_model::encoder::PlaneMap;
    let dd = Variant::dai_dai();
    let tsa = Variant::by_key(
        &tengu_rules::RuleSet::preset("dai-dai", "tsa")
            .unwrap()
            .canonical(),
    )
    .unwrap();
    let planes = Encoder::new(&dd).planes();
    assert_eq!(PlaneMap::between(&dd, &tsa, planes).unwrap(), None);
    // No Great Elephant: one type less, every other plane taken from its own.
    let sz = Variant::by_key("dai-dai:LION_DOG_PROMOTES_DD=NO").unwrap();
    let map = PlaneMap::between(&dd, &sz, planes).unwrap().unwrap();
    let t = dd.piece_types().len();
    assert_eq!(map.source.len(), planes - 2);
    assert_eq!(map.source.iter().flatten().count(), planes - 2);
    assert_eq!(map.source.last(), Some(&Some(planes - 1)));
    assert!(map.borrowed.is_empty() && map.unseen.is_empty(), "{map:?}");
    // The Great Elephant's planes (the mover's and the opponent's) are the ones left out.
    let ge = dd.type_index(dd.kind_index("GE").unwrap(), true).unwrap();
    assert!(!map.source.contains(&Some(ge)) && !map.source.contains(&Some(t + ge)));
    // The other way: the network trained without the Great Elephant does not see one.
    let back = PlaneMap::between(&sz, &dd, planes - 2).unwrap().unwrap();
    assert_eq!(back.unseen, ["+GE"]);
    assert_eq!(back.source.iter().filter(|s| s.is_none()).count(), 2);
    // Chu promotions: a promoted Lion and Queen read as the Lion and the Queen.
    let mdd = Variant::maka_dai_dai();
    let chu = Variant::by_key("maka-dai-dai:KIRIN_PHOENIX_MDD=CHU").unwrap();
    let map = PlaneMap::between(&mdd, &chu, Encoder::new(&mdd).planes())
        .unwrap()
        .unwrap();
    let borrowed: Vec<(&str, &str)> = map
        .borrowed
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(borrowed, [("+LN", "LN"), ("+Q", "Q")], "{map:?}");
    // A plane count no layout of the training rules has is refused.
    assert!(PlaneMap::between(&dd, &sz, planes + 1).is_err());
}

/// The one capture the policy has no pattern for, a hook's capture on its turn
/// (`TWO_CAPTURES`), is scored as the same path without it: every move of such a rule set
/// has a slot, and moves share one only when they share their squares and one of them
/// captures on a turn beyond the 5x5 area.
#[test]
fn a_hooks_capture_on_its_turn_falls_back_to_the_path_without_it() {
    for key in [
        "dai-dai:HM=TWO_CAPTURES",
        "maka-dai-dai:CA=TWO_CAPTURES,HM=TWO_CAPTURES",
    ] {
        let variant = Variant::by_key(key).unwrap();
        let index = PolicyIndex::new(Encoder::new(&variant));
        let mut far = 0;
        for pos in random_positions(variant.clone(), 4, 250) {
            let mut seen = std::collections::HashMap::new();
            for m in pos.legal_move_list() {
                let slot = index.slot(&pos, m).unwrap();
                let beyond = m.side_captures().any(|s| {
                    let (dc, dr) = (
                        s.col() as i32 - m.from().col() as i32,
                        s.row() as i32 - m.from().row() as i32,
                    );
                    dc.abs() > 2 || dr.abs() > 2
                });
                far += beyond as usize;
                if beyond {
                    assert_eq!(slot.code / 2, 0, "{key}: {}", pos.move_text(m));
                }
                if let Some(&(other, other_beyond)) = seen.get(&slot) {
                    let other: tengu_rules::Move = other;
                    assert!(
                        (beyond || other_beyond)
                            && other.from() == m.from()
                            && other.to() == m.to(),
                        "{key}: {} and {} share {slot:?}",
                        pos.move_text(m),
                        pos.move_text(other)
                    );
                }
                seen.insert(slot, (m, beyond));
            }
        }
        assert!(far > 0, "{key}: no capture on a hook's turn met");
    }
}
