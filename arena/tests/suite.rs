//! The tactics suite: its metrics on a 3-position suite with known answers, its file
//! format (versions refused), and labels on a composed position.

use std::sync::Arc;

#[path = "../../search/tests/common/mod.rs"]
mod common;

use tengu_arena::suite::{self, Suite, SuiteEntry, SuiteHeader, SUITE_VERSION};
use tengu_model::{EvalError, EvalInput, Evaluation, Evaluator};
use tengu_rules::values::piece_values;
use tengu_rules::{Game, Position, Square, Variant};

/// Puts the labelled best move of each position at a chosen rank of its policy, and a
/// fixed value.
struct Oracle {
    /// (position text, best move, rank of the best move, value = win - loss)
    answers: Vec<(String, String, usize, f32)>,
}

impl Evaluator for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|input| {
                let text = input.position.to_string();
                let (_, best, rank, value) =
                    self.answers.iter().find(|a| a.0 == text).expect("known");
                let best = input.position.parse_move(best).unwrap();
                let k = input.moves.iter().position(|&m| m == best).unwrap();
                // Weights n, n-1, ... with the best move moved to `rank`.
                let n = input.moves.len();
                let mut order: Vec<usize> = (0..n).filter(|&i| i != k).collect();
                order.insert(*rank, k);
                let mut policy = vec![0.0; n];
                for (r, &i) in order.iter().enumerate() {
                    policy[i] = (n - r) as f32;
                }
                let sum: f32 = policy.iter().sum();
                policy.iter_mut().for_each(|p| *p /= sum);
                let w = value.max(0.0);
                let l = (-value).max(0.0);
                Evaluation {
                    policy,
                    wdl: [w, 1.0 - w - l, l],
                    material: 0.0,
                    residual: 0.0,
                }
            })
            .collect())
    }
}

fn positions(variant: &Arc<Variant>) -> Vec<Position> {
    let mut game = Game::new(Position::initial(variant.clone()));
    let mut out = Vec::new();
    for i in 0..3 {
        let m = game.position().legal_move_list()[i * 7];
        game.play(m).unwrap();
        out.push(game.position().clone());
    }
    out
}

fn three_position_suite(variant: &Arc<Variant>) -> (Suite, Oracle) {
    let ps = positions(variant);
    let best: Vec<String> = ps
        .iter()
        .map(|p| p.move_text(p.legal_move_list()[3]))
        .collect();
    let entry = |i: usize, category: &str, eval: f32| SuiteEntry {
        position: ps[i].to_string(),
        best: best[i].clone(),
        category: category.into(),
        margin: 2.0,
        eval,
    };
    let suite = Suite {
        header: SuiteHeader {
            suite: "tengu-tactics".into(),
            version: SUITE_VERSION,
            game: variant.id().into(),
            seed: 0,
            count: 3,
        },
        entries: vec![
            entry(0, "capture", 5.0),
            entry(1, "capture", -5.0),
            entry(2, "save", 0.5),
        ],
    };
    // Ranks 0 (top-1), 2 (top-3 only), 4 (neither); values agree in sign with +5 only.
    let oracle = Oracle {
        answers: vec![
            (ps[0].to_string(), best[0].clone(), 0, 0.6),
            (ps[1].to_string(), best[1].clone(), 2, 0.6),
            (ps[2].to_string(), best[2].clone(), 4, -0.3),
        ],
    };
    (suite, oracle)
}

#[test]
fn suite_metrics_on_known_answers() {
    let variant = Variant::dai_dai();
    let (suite, mut oracle) = three_position_suite(&variant);
    let score = suite::score(&suite, &variant, &mut oracle).unwrap();
    assert_eq!(score.positions, 3);
    assert!((score.top1 - 1.0 / 3.0).abs() < 1e-9, "{score:?}");
    assert!((score.top3 - 2.0 / 3.0).abs() < 1e-9, "{score:?}");
    assert_eq!(score.value_positions, 2);
    assert!((score.value_sign - 0.5).abs() < 1e-9, "{score:?}");
    assert_eq!(score.top1_by_category["capture"], 0.5);
    assert_eq!(score.top1_by_category["save"], 0.0);
    // A suite of the other game is refused.
    let maka = Variant::maka_dai_dai();
    assert!(suite::score(&suite, &maka, &mut oracle).is_err());
}

#[test]
fn a_one_visit_search_scores_as_its_raw_policy() {
    // One visit evaluates the root only: the move played is the top prior and the root
    // value is the evaluation's, so the search metrics equal the policy metrics.
    let variant = Variant::dai_dai();
    let (suite, mut oracle) = three_position_suite(&variant);
    let config = tengu_search::SearchConfig::default();
    let score = suite::search_score(&suite, &variant, &mut oracle, &config, 1, 10).unwrap();
    assert_eq!(score.positions, 3);
    assert!((score.top1 - 1.0 / 3.0).abs() < 1e-9, "{score:?}");
    assert!((score.value_sign - 0.5).abs() < 1e-9, "{score:?}");
    // --limit keeps the first positions only.
    let two = suite::search_score(&suite, &variant, &mut oracle, &config, 1, 2).unwrap();
    assert_eq!(two.positions, 2);
    assert!((two.top1 - 0.5).abs() < 1e-9, "{two:?}");
}

#[test]
fn suite_files_round_trip_and_refuse_other_versions() {
    let variant = Variant::dai_dai();
    let (suite, _) = three_position_suite(&variant);
    let text = suite.to_text();
    let back = Suite::parse(&text, "s.jsonl").unwrap();
    assert_eq!(back.entries, suite.entries);
    let newer = text.replacen(
        &format!("\"version\":{SUITE_VERSION}"),
        &format!("\"version\":{}", SUITE_VERSION + 1),
        1,
    );
    let err = Suite::parse(&newer, "s.jsonl").unwrap_err().to_string();
    assert!(err.contains("version"), "{err}");
    let short: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    assert!(Suite::parse(&short, "s.jsonl")
        .unwrap_err()
        .to_string()
        .contains("promises 3"));
    assert!(Suite::parse("", "s.jsonl").is_err());
    assert!(Suite::parse("{\"a\":1}\n", "s.jsonl").is_err());
}

#[test]
fn a_free_rook_is_labelled_a_capture_and_a_defended_one_is_not() {
    let variant = Variant::dai_dai();
    let values = piece_values(&variant);
    // Black's Rook can take an undefended White Rook on its file.
    let mut rows = common::rook_against_rook_ranks();
    let pos = common::black_to_move(&rows);
    let entry = suite::label(&pos, &values).expect("a clearly best move");
    assert_eq!(entry.category, "capture");
    let best = pos.parse_move(&entry.best).unwrap();
    assert!(best.captures().any(|s| s == Square::new(0, 10)));
    // Defended by its King next to it, the White Rook is not free: no clear best move.
    rows[9] = "1,k,15".into();
    rows[0] = "17".into();
    let pos = common::black_to_move(&rows);
    if let Some(e) = suite::label(&pos, &values) {
        assert_ne!(e.category, "capture", "{e:?}");
    }
    // Generation is deterministic for a seed.
    let a = suite::generate(&variant, 5, 9, &mut |_| {}).unwrap();
    let b = suite::generate(&variant, 5, 9, &mut |_| {}).unwrap();
    assert_eq!(a.entries, b.entries);
    assert_eq!(a.entries.len(), 5);
}
