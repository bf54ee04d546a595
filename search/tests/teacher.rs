//! The judge's teacher (alpha-beta with the exchange count at its horizon) and the learned
//! correction a leaf adds to that count (`residual_utility`).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::desc::MATERIAL_SCALE;
use tengu_model::Evaluation;
use tengu_rules::notation::parse_piece;
use tengu_rules::values::piece_values;
use tengu_rules::{Position, Variant};
use tengu_search::config::ConfigError;
use tengu_search::leaf::{material_term, LeafTerms};
use tengu_search::teacher::{Teacher, DECIDED};
use tengu_search::{LeafMaterial, SearchConfig};

mod common;
use common::compose;

fn exchange_config() -> SearchConfig {
    SearchConfig {
        leaf_material: LeafMaterial::Exchange,
        material_utility: 1.0,
        exchange_depth: 4,
        ..SearchConfig::default()
    }
}

fn evaluation(residual: f32) -> Evaluation {
    Evaluation {
        policy: vec![],
        wdl: [0.2, 0.6, 0.2],
        material: -0.7,
        residual,
    }
}

/// Positions of a random game from the initial position (with captures as it goes).
fn random_positions(variant: &std::sync::Arc<Variant>, plies: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::initial(variant.clone());
    let mut out = Vec::new();
    for _ in 0..plies {
        let moves = pos.legal_move_list();
        if moves.is_empty() {
            break;
        }
        // Captures first when there are some, so the material changes.
        let captures: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
        let pool = if captures.is_empty() || rng.gen_bool(0.5) {
            &moves
        } else {
            &captures
        };
        let m = pool[rng.gen_range(0..pool.len())];
        pos.play(m);
        out.push(pos.clone());
    }
    out
}

#[test]
fn the_teachers_base_is_what_a_search_leaf_counts() {
    let variant = Variant::dai_dai();
    let teacher = Teacher::new(&variant, 2, 4);
    let terms = LeafTerms::new(&variant);
    let config = exchange_config();
    for pos in random_positions(&variant, 120, 7).iter().step_by(10) {
        let leaf = material_term(&evaluation(0.0), &config, pos, &terms);
        let base = teacher.base(pos);
        assert!(
            ((base / MATERIAL_SCALE).tanh() - leaf).abs() < 1e-6,
            "{pos}: teacher base {base}, leaf term {leaf}"
        );
    }
}

#[test]
fn a_depth_zero_teacher_labels_the_count_itself() {
    // The label of a judge taught by the game's future material: every row's base for one
    // exchange count, and a score that is that count (no search).
    let variant = Variant::dai_dai();
    let zero = Teacher::new(&variant, 0, 4);
    let deeper = Teacher::new(&variant, 1, 4);
    for pos in random_positions(&variant, 120, 7).iter().step_by(10) {
        let label = zero.label(pos);
        assert_eq!(label.depth, 0);
        assert_eq!(label.base, deeper.base(pos), "{pos}");
        assert_eq!(label.score, label.base, "{pos}");
        assert_eq!(label.nodes, 1);
    }
}

#[test]
fn one_ply_of_teacher_is_the_best_reply_count_of_every_move() {
    // Depth 1 by brute force: the mover's best move by the opponent's count after it.
    let variant = Variant::dai_dai();
    let teacher = Teacher::new(&variant, 1, 4);
    for pos in random_positions(&variant, 60, 11).iter().step_by(20) {
        let mut best = f32::NEG_INFINITY;
        for m in pos.legal_move_list() {
            let mut child = pos.clone();
            child.play(m);
            let reply = if child.legal_move_list().is_empty() {
                -DECIDED
            } else {
                teacher.base(&child)
            };
            best = best.max(-reply);
        }
        let label = teacher.label(pos);
        assert_eq!(label.depth, 1);
        assert!(
            (label.score - best.clamp(-DECIDED, DECIDED)).abs() < 1e-4,
            "{pos}: teacher {} against brute force {best}",
            label.score
        );
        assert!(label.nodes > 1);
    }
}

#[test]
fn the_teacher_sees_a_fork_that_one_leaf_does_not() {
    // Black's rook on 5i can go to 5e, between two loose White pawns on rank e: White saves
    // one and the rook takes the other. No capture is there now, so one leaf counts the
    // balance alone; three plies see the pawn won.
    let variant = Variant::dai_dai();
    let pawn = piece_values(&variant)[parse_piece(&variant, "p").unwrap().ty];
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "2e=p", "12e=p"]);
    let teacher = Teacher::new(&variant, 3, 4);
    let label = teacher.label(&pos);
    let one_ply = Teacher::new(&variant, 1, 4).label(&pos);
    assert!(
        (one_ply.score - label.base).abs() < 1e-4,
        "one ply sees nothing to win: {one_ply:?}"
    );
    assert!(
        label.score >= label.base + pawn - 1e-4,
        "three plies win a pawn ({pawn}): {label:?}"
    );
    // Deterministic: the same label again.
    assert_eq!(teacher.label(&pos), label);
}

#[test]
fn a_correction_moves_the_leaf_count_on_its_logit_scale_only_when_weighed() {
    let variant = Variant::dai_dai();
    let terms = LeafTerms::new(&variant);
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "5e=p"]);
    let plain = exchange_config();
    let count = material_term(&evaluation(0.0), &plain, &pos, &terms);
    // Weight 0: any correction is ignored, bit for bit.
    assert_eq!(material_term(&evaluation(0.8), &plain, &pos, &terms), count);
    let weighed = SearchConfig {
        residual_utility: 1.0,
        ..exchange_config()
    };
    assert_eq!(
        material_term(&evaluation(0.0), &weighed, &pos, &terms),
        count
    );
    let moved = material_term(&evaluation(0.8), &weighed, &pos, &terms);
    assert!(
        (moved - (count.atanh() + 0.8).tanh()).abs() < 1e-5,
        "{moved} from {count}"
    );
}

#[test]
fn a_correction_needs_the_exchange_count() {
    let head = SearchConfig {
        residual_utility: 1.0,
        material_utility: 1.0,
        ..SearchConfig::default()
    };
    assert!(matches!(
        head.validate(),
        Err(ConfigError::Needs {
            key: "search.residual_utility",
            ..
        })
    ));
    let too_much = SearchConfig {
        residual_utility: 3.0,
        ..exchange_config()
    };
    assert!(too_much.validate().is_err());
    let fine = SearchConfig {
        residual_utility: 1.0,
        ..exchange_config()
    };
    assert_eq!(fine.validate(), Ok(()));
}

#[test]
fn a_teacher_leaf_counts_the_teachers_score() {
    let variant = Variant::dai_dai();
    let terms = LeafTerms::new(&variant);
    let pos = compose('b', &["9q=K", "9a=k", "5i=R", "2e=p", "12e=p"]);
    let config = SearchConfig {
        leaf_material: LeafMaterial::Teacher,
        leaf_teacher_depth: 3,
        ..exchange_config()
    };
    assert_eq!(config.validate(), Ok(()));
    let score = Teacher::new(&variant, 3, 4).label(&pos).score;
    let term = material_term(&evaluation(0.0), &config, &pos, &terms);
    assert!(((score / MATERIAL_SCALE).tanh() - term).abs() < 1e-6);
    // Above the exchange count, which sees no capture here.
    assert!(term > material_term(&evaluation(0.0), &exchange_config(), &pos, &terms));
}

/// The shipped network's search (`networks/dai-dai.toml`): Gumbel root, the exchange count
/// as the whole leaf value (`value_utility = 0`), with the judge's correction weighed
/// `residual_utility`.
fn shipped_search(residual_utility: f32) -> SearchConfig {
    SearchConfig {
        root: tengu_search::RootSelection::Gumbel,
        gumbel_moves: 8,
        value_utility: 0.0,
        root_capture_share: 0.5,
        root_mobility: 0.01,
        repetition_draw: true,
        residual_utility,
        ..exchange_config()
    }
}

/// A fresh network of the tiny preset whose residual head's bias is `bias` (0: as a new
/// network starts; each square adds it, the sum divided by the side: 17 times it), through a
/// checkpoint as every backend loads it.
fn network_with_residual_bias(
    variant: &std::sync::Arc<Variant>,
    bias: f32,
) -> Box<dyn tengu_model::Evaluator> {
    use tengu_model::{checkpoint, cpu_train::CpuTrainer, Encoder, NetConfig};
    let encoder = Encoder::new(variant);
    let config = NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
    let net = config.init_on_cpu();
    let mut tensors = CpuTrainer::new(variant, &net, &config, 1e-3, 0.0)
        .unwrap()
        .tensors();
    let (_, _, residual_bias) = tensors
        .iter_mut()
        .find(|(name, _, _)| name == "residual.bias")
        .expect("the residual head is in the naming table");
    assert_eq!(
        residual_bias,
        &vec![0.0],
        "a new network's correction starts at zero"
    );
    residual_bias[0] = bias;
    let dir = std::env::temp_dir().join(format!("tengu-residual-{}-{bias}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("net.safetensors");
    let meta = checkpoint::CheckpointMeta {
        encoder_version: tengu_model::ENCODER_VERSION,
        game: variant.id().to_string(),
        config: config.clone(),
        step: 0,
        parent: None,
    };
    checkpoint::write_safetensors(&path, &meta, &tensors).unwrap();
    let (eval, _) = tengu_model::Backend::Burn
        .load_evaluator(&path, variant)
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    eval
}

#[test]
fn an_untrained_judge_plays_exactly_as_the_exchange_count() {
    use tengu_model::Evaluator;
    use tengu_rules::Game;
    use tengu_search::search::search_game;
    let variant = Variant::dai_dai();
    let mut fresh = network_with_residual_bias(&variant, 0.0);
    // Each of the 289 squares adds the bias, the sum divided by the side (17): 0.7.
    let mut biased = network_with_residual_bias(&variant, 0.7 / 17.0);
    let positions = random_positions(&variant, 40, 11);
    let mut differs = 0;
    for pos in positions.iter().skip(10).step_by(5) {
        let game = Game::new(pos.clone());
        let moves = pos.legal_move_list();
        let input = tengu_model::EvalInput {
            position: pos,
            moves: &moves,
            repetitions: 0,
        };
        assert_eq!(fresh.evaluate(&[input]).unwrap()[0].residual, 0.0);
        let search = |eval: &mut Box<dyn Evaluator>, residual_utility: f32| {
            search_game(
                &game,
                eval.as_mut(),
                &shipped_search(residual_utility),
                32,
                600,
                5,
            )
            .unwrap()
            .map(|r| (r.best, r.policy, r.value))
        };
        // The untrained correction weighed in or not: the same move, targets and value.
        let without = search(&mut fresh, 0.0);
        assert_eq!(search(&mut fresh, 1.0), without, "{pos}");
        // A correction that is not zero does change the search (the test can fail).
        if search(&mut biased, 1.0) != without {
            differs += 1;
        }
    }
    assert!(differs > 0, "a correction of 0.7 changed no search");
}
