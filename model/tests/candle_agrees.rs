//! candle's CPU backend (`candle` evaluator, `--features candle`) computes the function
//! burn-flex computes, from the same checkpoint, for both games, on a batch that is not a
//! multiple of any chunk size.
#![cfg(feature = "candle")]

mod common;

use tengu_model::desc::NetConfig;
use tengu_model::{Backend, Encoder, EvalError};
use tengu_rules::Variant;

use common::agreement::{
    evaluate, game_positions, logit_spread, max_log_difference, trained_checkpoint,
};

#[test]
fn candle_agrees_with_burn_flex_from_one_checkpoint() {
    assert!(Backend::Candle.compiled());
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        // 11 positions: a multiple of no chunk size (the CPU kernels' 4 included).
        let ps = game_positions(&variant, 11, 20);
        let (path, meta) = trained_checkpoint(&variant, &ps, "candle");
        let (mut reference, _) = Backend::BurnFlex.load_evaluator(&path, &variant).unwrap();
        let (mut candle, loaded) = Backend::Candle.load_evaluator(&path, &variant).unwrap();
        assert_eq!(loaded, meta);
        let expected = evaluate(reference.as_mut(), &ps).unwrap();
        let got = evaluate(candle.as_mut(), &ps).unwrap();
        let spread = logit_spread(&expected);
        let diff = max_log_difference(&expected, &got);
        eprintln!(
            "{}: logit spread {spread:.2}, max |log-probability difference| {diff:.2e}",
            variant.id()
        );
        assert!(spread > 1.0, "the trained network is still near uniform");
        assert!(diff < 1e-3, "{}: {diff}", variant.id());
        // One position at a time and an odd slice: the batch does not change a result.
        let single = evaluate(candle.as_mut(), &ps[..1]).unwrap();
        assert!(max_log_difference(&single, &got[..1]) < 1e-5);
        let part = evaluate(candle.as_mut(), &ps[4..9]).unwrap();
        assert!(max_log_difference(&part, &got[4..9]) < 1e-5);
        assert!(evaluate(candle.as_mut(), &[]).unwrap().is_empty());
        std::fs::remove_file(&path).ok();
    }
}

#[test]
fn candle_refuses_another_games_positions() {
    let dai = Variant::dai_dai();
    let encoder = Encoder::new(&dai);
    let config = NetConfig::preset("tiny", encoder.planes(), encoder.size()).unwrap();
    let mut eval = Backend::Candle
        .new_evaluator(&dai, &config, "candle tiny")
        .unwrap();
    let maka = game_positions(&Variant::maka_dai_dai(), 2, 0);
    assert!(matches!(
        evaluate(eval.as_mut(), &maka),
        Err(EvalError::WrongGame { .. })
    ));
}
