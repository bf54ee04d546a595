//! tengu's CPU kernels (`burn` backend evaluation) compute the function burn-flex computes,
//! from the same checkpoint, for both games and batches that do not fill the last chunk.

mod common;

use tengu_model::cpu_net::CHUNK;
use tengu_model::Backend;
use tengu_rules::Variant;

use common::agreement::{
    evaluate, game_positions, logit_spread, max_log_difference, trained_checkpoint,
};

#[test]
fn cpu_kernels_agree_with_burn_flex_from_one_checkpoint() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let ps = game_positions(&variant, 2 * CHUNK + 3, 20);
        let (path, meta) = trained_checkpoint(&variant, &ps, "cpu-kernels");
        let (mut reference, _) = Backend::BurnFlex.load_evaluator(&path, &variant).unwrap();
        let (mut kernels, loaded) = Backend::Burn.load_evaluator(&path, &variant).unwrap();
        assert_eq!(loaded, meta);
        let expected = evaluate(reference.as_mut(), &ps).unwrap();
        let got = evaluate(kernels.as_mut(), &ps).unwrap();
        let spread = logit_spread(&expected);
        let diff = max_log_difference(&expected, &got);
        eprintln!(
            "{}: logit spread {spread:.2}, max |log-probability difference| {diff:.2e}",
            variant.id()
        );
        assert!(spread > 1.0, "the trained network is still near uniform");
        // The judge was trained too (the rows have teacher targets): its correction is
        // compared, not a pair of zeros.
        assert!(
            expected.iter().any(|e| e.residual.abs() > 1e-3),
            "the judge is still zero"
        );
        assert!(diff < 1e-3, "{}: {diff}", variant.id());
        // The same positions one at a time: chunking does not change a position's result.
        let single = evaluate(kernels.as_mut(), &ps[..1]).unwrap();
        assert!(max_log_difference(&single, &got[..1]) < 1e-5);
        std::fs::remove_file(&path).ok();
    }
}
