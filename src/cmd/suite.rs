//! `tengu suite`: a checkpoint's score on the tactics suite; `tengu suite make` builds one.

use std::path::Path;

use anyhow::{bail, Context, Result};
use tengu_arena::suite::{self, Suite, SuiteScore};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::RootSelection;

use crate::args::{SuiteArgs, SuiteCommand, SuiteMakeArgs};
use crate::output::outln;

pub fn run(args: SuiteArgs) -> Result<()> {
    if let Some(SuiteCommand::Make(make)) = args.make {
        return run_make(make);
    }
    let Some(checkpoint) = &args.checkpoint else {
        bail!("tengu suite needs --checkpoint PATH (or `tengu suite make` to build a suite)")
    };
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let checkpoint = &super::checkpoint_file(checkpoint)?;
    let meta = tengu_model::checkpoint::read_meta(checkpoint)?;
    let Some(variant) = Variant::builtin(&meta.game) else {
        bail!(
            "{}: a checkpoint of an unknown game {:?}",
            checkpoint.display(),
            meta.game
        )
    };
    let path = args
        .suite
        .clone()
        .unwrap_or_else(|| suite::default_path(&meta.game));
    let suite = Suite::read(&path).map_err(anyhow::Error::msg)?;
    let (mut eval, meta) = backend.load_evaluator(checkpoint, &variant)?;
    let start = std::time::Instant::now();
    let score = if args.visits == 0 {
        suite::score(&suite, &variant, eval.as_mut())
    } else {
        let mut config = super::search_config(args.search_config.as_deref())?;
        if let Some(root) = &args.root {
            config.root = match root.as_str() {
                "puct" => RootSelection::Puct,
                "gumbel" => RootSelection::Gumbel,
                other => bail!("--root {other:?}: expected puct or gumbel"),
            };
        }
        if let Some(utility) = args.material_utility {
            config.material_utility = utility;
        }
        if let Some(share) = args.root_capture_share {
            config.root_capture_share = share;
        }
        config.validate().map_err(anyhow::Error::msg)?;
        suite::search_score(
            &suite,
            &variant,
            eval.as_mut(),
            &config,
            args.visits,
            args.limit,
        )
    }
    .map_err(anyhow::Error::msg)?;
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let mut v = serde_json::to_value(&score)?;
        v["checkpoint"] = serde_json::json!(checkpoint.display().to_string());
        v["step"] = serde_json::json!(meta.step);
        v["suite"] = serde_json::json!(path.display().to_string());
        v["seconds"] = serde_json::json!(seconds);
        v["visits"] = serde_json::json!(args.visits);
        outln!("{v}")?;
    } else {
        print_score(&score, checkpoint, meta.step, &path, seconds, args.visits)?;
    }
    Ok(())
}

fn print_score(
    score: &SuiteScore,
    checkpoint: &Path,
    step: u64,
    suite: &Path,
    seconds: f64,
    visits: u32,
) -> std::io::Result<()> {
    outln!(
        "{} (step {step}) on {} ({} positions, {seconds:.1} s)",
        checkpoint.display(),
        suite.display(),
        score.positions
    )?;
    let what = if visits == 0 {
        "policy".to_string()
    } else {
        format!("search {visits} visits")
    };
    outln!("  {what} top-1  {:.3}", score.top1)?;
    outln!("  {what} top-3  {:.3}", score.top3)?;
    outln!(
        "  value sign    {:.3} (balanced over positive and negative evals; {} positions with |eval| >= 1)",
        score.value_sign, score.value_positions
    )?;
    for (category, top1) in &score.top1_by_category {
        outln!("  top-1 {category:<8}{top1:.3}")?;
    }
    Ok(())
}

fn run_make(args: SuiteMakeArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    let bar = indicatif::ProgressBar::new(args.count as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} positions {elapsed_precise}")
            .expect("valid template"),
    );
    let suite = suite::generate(&variant, args.count, args.seed, &mut |n| {
        bar.set_position(n as u64)
    })
    .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    tengu_store::atomic::write_atomic(&args.out, suite.to_text().as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for e in &suite.entries {
        *counts.entry(e.category.as_str()).or_default() += 1;
    }
    outln!(
        "{}: {} positions ({})",
        args.out.display(),
        suite.entries.len(),
        counts
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    Ok(())
}
