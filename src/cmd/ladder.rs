//! `tengu ladder`: a run's checkpoints nearest to given CPU-hours, each played against the
//! fixed opponents and the rung before it; ratings on one scale (the first opponent = 0)
//! with 95% intervals, as `ladder.json`, `ladder.txt` and `ladder.svg`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tengu_arena::ladder::{select_rungs, CheckpointAt, LadderReport, Rung, RungMatch, RungReport};
use tengu_arena::matches::{self, MatchOptions, MatchSummary};
use tengu_arena::outcome::MatchOutcome;
use tengu_arena::tournament::{fit_ratings, rating_half_widths, Pairing};
use tengu_model::desc::HeadId;
use tengu_model::Backend;
use tengu_rules::{EndPolicy, Variant};
use tengu_search::players::{Player, PlayerSpec};
use tengu_selfplay::openings::read_openings;
use tengu_store::checkpoint::{committed, CheckpointCache};
use tengu_store::RunStore;

use crate::args::LadderArgs;
use crate::output::{out, outln};

/// What the loss log says about a step.
#[derive(Clone, Copy, Default)]
struct StepFacts {
    cpu_hours: Option<f64>,
    games_seen: Option<u64>,
    value_loss: Option<f64>,
    heldout_value_loss: Option<f64>,
}

/// The loss log's facts of every logged step (read through its type: a damaged line stops
/// the ladder, naming its file and line).
fn step_facts(store: &RunStore) -> Result<HashMap<u64, StepFacts>> {
    let records =
        tengu_trainer::log::read_records(store).context("reading the run's loss log (train/)")?;
    Ok(records
        .into_iter()
        .map(|r| {
            (
                r.step,
                StepFacts {
                    cpu_hours: Some(r.cpu_seconds / 3600.0),
                    games_seen: Some(r.games_seen),
                    value_loss: r.heads.step(HeadId::Value),
                    heldout_value_loss: r.heads.heldout(HeadId::Value),
                },
            )
        })
        .collect())
}

/// The file name of an opponent's match directory.
fn dir_name(spec: &str) -> String {
    spec.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The fixed opponents' descriptions: none for `--opponents none`.
fn fixed_opponents(args: &LadderArgs) -> Vec<String> {
    if args.opponents.iter().all(|o| o == "none" || o.is_empty()) {
        Vec::new()
    } else {
        args.opponents.clone()
    }
}

/// What clap's value parsers cannot check (they range-check the numbers).
fn check(args: &LadderArgs) -> Result<()> {
    if args.cpu_hours.is_empty() || args.cpu_hours.iter().any(|h| !(h.is_finite() && *h >= 0.0)) {
        bail!(
            "--cpu-hours: give numbers of hours, e.g. 0.25,0.5,1,2,4,8 (0: the untrained step 0)"
        );
    }
    if fixed_opponents(args).is_empty() && args.no_previous {
        bail!("--opponents none with --no-previous: the rungs would play nobody; name a fixed opponent, e.g. greedy");
    }
    if !(args.tolerance.is_finite() && args.tolerance >= 1.0) {
        bail!(
            "--tolerance {}: must be at least 1 (a factor of CPU-hours)",
            args.tolerance
        );
    }
    Ok(())
}

pub fn run(args: LadderArgs) -> Result<()> {
    check(&args)?;
    let store = super::open_run(&args.run)?;
    let config = crate::config::RunConfig::of_run(&store)
        .map_err(anyhow::Error::msg)?
        .with_context(|| format!("{}: not a run (no config.toml)", store.display()))?;
    let Some(variant) = config
        .game_key()
        .ok()
        .and_then(|key| Variant::builtin(&key))
    else {
        bail!("{}: unknown game {:?}", store.display(), config.game)
    };
    let backend: Backend = args
        .backend
        .as_deref()
        .unwrap_or(&config.network.backend)
        .parse()
        .map_err(anyhow::Error::msg)?;
    let out_dir: PathBuf = match (&args.out, store.local_dir()) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir.join("ladder"),
        (None, None) => bail!(
            "{}: a run on an object store needs --out DIR for the ladder's games",
            store.display()
        ),
    };
    let openings = match &args.openings {
        Some(path) => Some(Arc::new(
            read_openings(path, &variant).context("--openings")?,
        )),
        None => None,
    };
    super::arena::check_ply_cap(
        args.max_plies,
        args.opening_plies,
        openings.as_deref().map(|v| &v[..]),
    )?;
    // Every opponent is parsed before any game is played.
    let seed = args.seed;
    let search = match &args.search_config {
        Some(path) => super::CheckpointSearch::from_flags(Some(path), None, Some(args.contempt))?,
        None => super::CheckpointSearch::Fixed {
            search: tengu_search::SearchConfig {
                contempt: args.contempt,
                ..config.search.clone()
            },
            source: store.address_of(tengu_store::layout::CONFIG),
        },
    };
    let opponents = fixed_opponents(&args);
    let opponent_specs = opponents
        .iter()
        .map(|text| {
            text.parse::<PlayerSpec>()
                .with_context(|| format!("--opponents {text:?}"))
        })
        .collect::<Result<Vec<_>>>()?;
    for spec in &opponent_specs {
        super::arena::player(spec, &variant, backend, &search, seed)?;
    }

    let facts = step_facts(&store)?;
    let steps = committed(&store)?;
    // Step 0 is published before any self-play or training: 0 CPU-hours (its loss log has
    // no line for it).
    let checkpoints: Vec<CheckpointAt> = steps
        .iter()
        .filter_map(|&step| {
            let cpu_hours = match facts.get(&step).and_then(|f| f.cpu_hours) {
                Some(h) => h,
                None if step == 0 => 0.0,
                None => return None,
            };
            Some(CheckpointAt { step, cpu_hours })
        })
        .collect();
    let newest_hours = checkpoints.iter().map(|c| c.cpu_hours).fold(0.0, f64::max);
    let rungs = select_rungs(&checkpoints, &args.cpu_hours, args.tolerance);
    if rungs.is_empty() {
        bail!(
            "{}: no checkpoint within a factor {} of {:?} CPU-hours (its newest checkpoint is at {newest_hours:.2} CPU-hours)",
            store.display(),
            args.tolerance,
            args.cpu_hours
        );
    }
    for target in &args.cpu_hours {
        if !rungs.iter().any(|r| r.target_hours == *target) {
            tracing::info!(
                target_hours = target,
                newest_hours,
                "no checkpoint near this target yet: no rung"
            );
        }
    }
    let cache = CheckpointCache::new(&store, 0);
    let mut paths = Vec::new();
    for r in &rungs {
        let (path, _) = cache.fetch(&store, r.step)?;
        paths.push(path);
    }

    let options = |dir: PathBuf| MatchOptions {
        variant: variant.clone(),
        games: args.games,
        opening_plies: args.opening_plies,
        openings: openings.clone(),
        end: EndPolicy::capped_at(args.max_plies, Some(args.material_ratio)),
        seed,
        out: Some(dir),
        sprt: None,
    };
    let rung_spec = |k: usize| PlayerSpec::Checkpoint {
        path: paths[k].display().to_string(),
        visits: args.visits,
    };
    let rung_name = |r: &Rung| format!("step {} ({:.2} CPU-h)", r.step, r.cpu_hours);
    let make = |spec: &PlayerSpec, k: u64| -> Result<Box<dyn Player>> {
        super::arena::player(
            spec,
            &variant,
            backend,
            &search,
            seed.wrapping_add(1000 * k),
        )
    };
    let play = |a: &PlayerSpec, b: &PlayerSpec, dir: PathBuf| -> Result<MatchSummary> {
        let mut pairs = (0..args.threads as u64)
            .map(|k| Ok((make(a, 2 * k)?, make(b, 2 * k + 1)?)))
            .collect::<Result<Vec<_>>>()?;
        let refs = pairs
            .iter_mut()
            .map(|(x, y)| (x.as_mut() as &mut dyn Player, y.as_mut() as &mut dyn Player))
            .collect();
        matches::run_parallel(refs, &options(dir), &mut |r, s| {
            tracing::info!(game = r.index, result = r.result, plies = r.plies, termination = %r.termination, wins = s.wins, draws = s.draws, losses = s.losses, "ladder game finished");
        })
        .map_err(anyhow::Error::msg)
    };

    // Players: the fixed opponents, then the rungs.
    let fixed = opponents.len();
    let mut pairings: Vec<Pairing> = Vec::new();
    let mut reports: Vec<(Rung, Vec<RungMatch>)> = Vec::new();
    for (k, rung) in rungs.iter().enumerate() {
        let mut played: Vec<(usize, String, MatchSummary)> = Vec::new();
        for (j, (name, spec)) in opponents.iter().zip(&opponent_specs).enumerate() {
            let dir = out_dir.join(format!("step-{}-vs-{}", rung.step, dir_name(name)));
            tracing::info!(rung = %rung_name(rung), opponent = %name, "ladder match");
            played.push((j, name.clone(), play(&rung_spec(k), spec, dir)?));
        }
        if k > 0 && !args.no_previous {
            let previous = &rungs[k - 1];
            let dir = out_dir.join(format!("step-{}-vs-step-{}", rung.step, previous.step));
            tracing::info!(rung = %rung_name(rung), opponent = %rung_name(previous), "ladder match");
            played.push((
                fixed + k - 1,
                rung_name(previous),
                play(&rung_spec(k), &rung_spec(k - 1), dir)?,
            ));
        }
        let mut matches_of_rung = Vec::new();
        for (opponent, name, summary) in played {
            pairings.push(Pairing::from_match(fixed + k, opponent, &summary));
            matches_of_rung.push(RungMatch {
                opponent: name,
                outcome: MatchOutcome::new(&summary),
                capped: summary.results.iter().filter(|r| r.capped()).count() as u64,
            });
        }
        reports.push((*rung, matches_of_rung));
    }

    let players = fixed + rungs.len();
    let (elo, half_width) = (
        fit_ratings(players, &pairings),
        rating_half_widths(players, &pairings),
    );
    let report = LadderReport {
        version: tengu_arena::ladder::LADDER_REPORT_VERSION,
        run: store.display(),
        game: variant.id().to_string(),
        opponents: opponents.clone(),
        opponent_elo: elo[..fixed].to_vec(),
        games_per_match: args.games.div_ceil(2) * 2,
        visits: args.visits,
        max_plies: args.max_plies,
        material_ratio: (args.material_ratio > 0.0).then_some(args.material_ratio),
        contempt: args.contempt,
        openings: matches::starts_id(&options(out_dir.clone())),
        rungs: reports
            .into_iter()
            .enumerate()
            .map(|(k, (rung, matches))| {
                let f = facts.get(&rung.step).copied().unwrap_or_default();
                let (elo, half) = (elo[fixed + k], half_width[fixed + k]);
                RungReport {
                    checkpoint: tengu_store::layout::weights_key(rung.step),
                    games_seen: f.games_seen,
                    value_loss: f.value_loss,
                    heldout_value_loss: f.heldout_value_loss,
                    elo,
                    elo_low: elo - half,
                    elo_high: elo + half,
                    rung,
                    matches,
                }
            })
            .collect(),
    };
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let json = serde_json::to_string_pretty(&report)? + "\n";
    for (name, text) in [
        ("ladder.json", json.clone()),
        ("ladder.txt", report.to_text()),
        ("ladder.svg", report.to_svg()),
    ] {
        let path = out_dir.join(name);
        tengu_store::atomic::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    // A run on an object store keeps the report too (curves.svg draws it). A local run's
    // own report is its `ladder/`: a ladder sent elsewhere with --out (another cap, other
    // opponents) must not replace it.
    if store.local_dir().is_none() {
        store.put(
            tengu_store::layout::LADDER_REPORT,
            json.clone().into_bytes(),
        )?;
    }
    tengu_run::curves::write(&store).context("redrawing curves.svg")?;
    if args.json {
        outln!("{}", json.trim_end())?;
    } else {
        out!("{}", report.to_text())?;
        outln!("written: {}", out_dir.join("ladder.json").display())?;
    }
    Ok(())
}
