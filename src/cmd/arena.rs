//! `tengu match`: two players, paired openings, Elo and SPRT.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tengu_arena::elo::{elo_interval, Sprt};
use tengu_arena::matches::{self, MatchOptions};
use tengu_arena::report::MatchReport;
use tengu_arena::tournament;
use tengu_model::Backend;
use tengu_rules::{EndPolicy, Variant};
use tengu_search::players::{
    AlphaBetaPlayer, GreedyPlayer, MctsPlayer, Player, PlayerSpec, PolicyPlayer, RandomPlayer,
};
use tengu_selfplay::openings::read_openings;

use crate::args::{GameSettingsArgs, MatchArgs, ResultsArgs, TournamentArgs};
use crate::output::{out, outln};

/// A player from its command-line description (parsed and range-checked by clap).
pub fn player(
    spec: &PlayerSpec,
    variant: &Arc<Variant>,
    backend: Backend,
    search: &super::CheckpointSearch,
    seed: u64,
) -> Result<Box<dyn Player>> {
    let label = |path: &std::path::Path, step: u64| {
        format!(
            "{} step {step}",
            path.file_name().unwrap_or_default().to_string_lossy()
        )
    };
    Ok(match spec {
        PlayerSpec::Random => Box::new(RandomPlayer::new(seed)),
        PlayerSpec::Greedy => Box::new(GreedyPlayer::new(variant, seed)),
        &PlayerSpec::AlphaBeta { ms, depth } => {
            let player = AlphaBetaPlayer::new(variant, Duration::from_millis(ms), depth, seed);
            match search.contempt() {
                c if c > 0.0 => Box::new(player.with_contempt(c)),
                _ => Box::new(player),
            }
        }
        PlayerSpec::Checkpoint { path, visits } => {
            let path = &super::checkpoint_file(std::path::Path::new(path))?;
            let (eval, meta) = backend.load_evaluator(path, variant)?;
            Box::new(MctsPlayer::new(
                label(path, meta.step),
                eval,
                search.of(path)?,
                *visits,
                seed,
            ))
        }
        PlayerSpec::Policy { path } => {
            let path = &super::checkpoint_file(std::path::Path::new(path))?;
            let (evaluator, meta) = backend.load_evaluator(path, variant)?;
            Box::new(PolicyPlayer {
                label: label(path, meta.step),
                evaluator,
            })
        }
    })
}

/// The ply cap adjudicates games that have been played: one that an opening reaches would
/// end every game before either player moved. `openings`: those of `--openings`, else
/// `opening_plies` random plies.
pub fn check_ply_cap(
    max_plies: u32,
    opening_plies: u32,
    openings: Option<&[tengu_rules::Opening]>,
) -> Result<()> {
    let (longest, what) = match openings {
        Some(list) => (
            list.iter().map(|o| o.moves.len()).max().unwrap_or(0) as u64,
            "the longest opening of --openings",
        ),
        None => (opening_plies as u64, "--opening-plies"),
    };
    if max_plies as u64 <= longest {
        bail!("--max-plies {max_plies} must be more than {what} ({longest} plies)");
    }
    Ok(())
}

impl GameSettingsArgs {
    /// Search settings of checkpoint players: the `[search]` table of `--search-config`,
    /// else each checkpoint's own; `--material-utility` overrides either.
    fn search(&self) -> Result<super::CheckpointSearch> {
        super::CheckpointSearch::from_flags(
            self.search_config.as_deref(),
            self.material_utility,
            Some(self.contempt),
        )
    }

    /// The game, the backend for checkpoint players and the match options.
    fn resolve(&self, sprt: Option<Sprt>) -> Result<(Arc<Variant>, Backend, MatchOptions)> {
        let variant = self.rules.variant(&self.game)?;
        let backend: Backend = self.backend.parse().map_err(anyhow::Error::msg)?;
        let openings = match &self.openings {
            Some(path) => Some(Arc::new(
                read_openings(path, &variant).context("--openings")?,
            )),
            None => None,
        };
        check_ply_cap(
            self.max_plies,
            self.opening_plies,
            openings.as_deref().map(|v| &v[..]),
        )?;
        let options = MatchOptions {
            variant: variant.clone(),
            games: self.games,
            opening_plies: self.opening_plies,
            openings,
            end: EndPolicy::capped_at(self.max_plies, Some(self.material_ratio)),
            seed: self.seed,
            out: self.out.clone(),
            sprt,
        };
        Ok((variant, backend, options))
    }
}

fn parse_sprt(text: &str) -> Result<Sprt> {
    let v: Vec<f64> = text
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--sprt {text:?}: expected elo0,elo1,alpha,beta"))?;
    let [elo0, elo1, alpha, beta] = v[..] else {
        bail!("--sprt {text:?}: expected four numbers elo0,elo1,alpha,beta")
    };
    let elo = -2000.0..=2000.0;
    if !(elo.contains(&elo0)
        && elo.contains(&elo1)
        && elo1 > elo0
        && 0.0 < alpha
        && alpha < 0.5
        && 0.0 < beta
        && beta < 0.5)
    {
        bail!("--sprt {text:?}: need -2000 <= elo0 < elo1 <= 2000 and alpha, beta in (0, 0.5)");
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

pub fn run_match(args: MatchArgs) -> Result<()> {
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let (variant, backend, options) = args.settings.resolve(sprt)?;
    let search = args.settings.search()?;
    let mut pairs = (0..args.threads as u64)
        .map(|k| {
            let seed = args.settings.seed.wrapping_add(1000 * k);
            Ok((
                player(&args.a, &variant, backend, &search, seed)?,
                player(&args.b, &variant, backend, &search, seed.wrapping_add(1))?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let (a_name, b_name) = (pairs[0].0.name(), pairs[0].1.name());
    let refs = pairs
        .iter_mut()
        .map(|(a, b)| (a.as_mut() as &mut dyn Player, b.as_mut() as &mut dyn Player))
        .collect();
    tracing::info!(a = %a_name, b = %b_name, games = options.games, "match starting");
    let summary = matches::run_parallel(refs, &options, &mut |r, s| {
        tracing::info!(game = r.index, result = r.result, plies = r.plies, termination = %r.termination, wins = s.wins, draws = s.draws, losses = s.losses, "game finished");
    })
    .map_err(anyhow::Error::msg)?;
    print_report(
        &a_name,
        &b_name,
        &summary,
        &share_hint(options.end.adjudication.map(|a| a.ratio)),
        sprt.as_ref(),
        args.json,
    )
}

/// A finished match's report, as text or (`json`) `tengu match --json`'s object;
/// `share_note`: what a material share means for these games ([`share_hint`]), `sprt`: the
/// SPRT settings the match ran with.
fn print_report(
    a_name: &str,
    b_name: &str,
    summary: &matches::MatchSummary,
    share_note: &str,
    sprt: Option<&Sprt>,
    json: bool,
) -> Result<()> {
    let s = summary.score;
    let interval = elo_interval(&s);
    let (share, share_se) = summary.material_share();
    let pairs = summary.pairs();
    if json {
        // An end the results cannot bound (after a perfect or a zero score) is null.
        let report = MatchReport::new(a_name, b_name, summary, sprt);
        outln!("{}", report.to_json())?;
    } else {
        outln!(
            "{} vs {}: +{} ={} -{} ({} games), score {:.3}",
            a_name,
            b_name,
            s.wins,
            s.draws,
            s.losses,
            s.games(),
            s.mean()
        )?;
        outln!("Elo difference {interval}")?;
        outln!("{pairs}")?;
        outln!(
            "{a_name}'s share of the material at the end: {share:.3} +- {share_se:.3} ({share_note})"
        )?;
        let endings: Vec<String> = summary.endings().iter().map(|e| e.to_string()).collect();
        outln!(
            "how the games ended ({a_name}'s results): {}",
            endings.join("; ")
        )?;
        if let (Some(p), Some(d)) = (sprt, summary.sprt) {
            let (l, u) = p.bounds();
            outln!(
                "SPRT elo0 {} elo1 {}: LLR {:.2} in ({l:.2}, {u:.2}): {d:?}",
                p.elo0,
                p.elo1,
                p.llr(&s)
            )?;
        }
    }
    Ok(())
}

/// `summary` as played, or scored again at `--material-ratio` (0: capped games drawn).
fn scored(summary: matches::MatchSummary, ratio: Option<f32>) -> matches::MatchSummary {
    match ratio {
        Some(r) => tengu_arena::results::rescored(&summary, (r > 0.0).then_some(f64::from(r))),
        None => summary,
    }
}

/// One arm of `tengu results`: its folders and the pool of their games, scored again when
/// asked, and the names its report shows.
struct Arm {
    folders: Vec<tengu_arena::results::MatchFolder>,
    pooled: matches::MatchSummary,
    a_name: String,
    b_name: String,
}

impl Arm {
    fn read(dirs: &[std::path::PathBuf], args: &ResultsArgs) -> Result<Arm> {
        use tengu_arena::results;
        let folders = dirs
            .iter()
            .map(|dir| results::read_folder(dir))
            .collect::<Result<Vec<_>, _>>()?;
        let pooled = scored(
            results::pool(&folders, args.several_pairings)?,
            args.material_ratio,
        );
        let mut pairings: Vec<(&str, &str)> = pooled
            .results
            .iter()
            .map(|r| (r.a.as_str(), r.b.as_str()))
            .collect();
        pairings.sort_unstable();
        pairings.dedup();
        let (a_name, b_name) = match pairings[..] {
            [(a, b)] => (a.to_string(), b.to_string()),
            _ => (
                format!("A of {} pairings", pairings.len()),
                format!("B of {} pairings", pairings.len()),
            ),
        };
        let capped = pooled.results.iter().filter(|r| r.capped()).count();
        tracing::info!(
            folders = folders.len(),
            games = pooled.results.len(),
            capped,
            "pooled"
        );
        Ok(Arm {
            folders,
            pooled,
            a_name,
            b_name,
        })
    }

    /// `N folder(s), G games, C of them at the ply cap, <how scored>`.
    fn headline(&self, ratio: Option<f32>) -> String {
        let capped = self.pooled.results.iter().filter(|r| r.capped()).count();
        format!(
            "{} folder(s), {} games, {capped} of them at the ply cap, {}",
            self.folders.len(),
            self.pooled.results.len(),
            match ratio {
                Some(r) if r > 0.0 => format!("scored again at {r}x"),
                Some(_) => "scored again as draws".to_string(),
                None => "as played".to_string(),
            }
        )
    }

    fn report(&self) -> MatchReport {
        MatchReport::new(&self.a_name, &self.b_name, &self.pooled, None)
    }

    /// Each folder's games on their own, scored as the pool was (for `--against`).
    fn per_folder(&self, ratio: Option<f32>) -> Result<Vec<matches::MatchSummary>> {
        self.folders
            .iter()
            .map(|f| {
                let one = tengu_arena::results::pool(std::slice::from_ref(f), false)?;
                Ok(scored(one, ratio))
            })
            .collect()
    }
}

/// `tengu results`: earlier matches' games pooled and, if asked, scored again at another
/// material ratio, or two arms compared game by game (`--against`); plays nothing and
/// writes nothing.
pub fn run_results(args: ResultsArgs) -> Result<()> {
    if args.calibrate {
        return run_calibrate(&args);
    }
    let share_note = match args.material_ratio {
        Some(r) => share_hint((r > 0.0).then_some(r)),
        // The ratio a match was adjudicated at is not recorded with its games.
        None => "0.5 even; games at the ply cap as played".to_string(),
    };
    let a = Arm::read(&args.folders, &args)?;
    let Some(against) = &args.against else {
        if !args.json {
            outln!("{}", a.headline(args.material_ratio))?;
        }
        return print_report(
            &a.a_name,
            &a.b_name,
            &a.pooled,
            &share_note,
            None,
            args.json,
        );
    };
    let b = Arm::read(against, &args)?;
    let (a_folders, b_folders) = (
        a.per_folder(args.material_ratio)?,
        b.per_folder(args.material_ratio)?,
    );
    let a_pairs: Vec<_> = a.folders.iter().zip(&a_folders).collect();
    let b_pairs: Vec<_> = b.folders.iter().zip(&b_folders).collect();
    let paired = tengu_arena::results::compare(&a_pairs, &b_pairs)?;
    if args.json {
        let json = serde_json::json!({
            "a": a.report().to_json(),
            "b": b.report().to_json(),
            "paired": paired,
        });
        outln!("{json}")?;
        return Ok(());
    }
    for (label, x) in [("A", &a), ("B (--against)", &b)] {
        outln!("{label}: {}", x.headline(args.material_ratio))?;
        print_report(&x.a_name, &x.b_name, &x.pooled, &share_note, None, false)?;
    }
    outln!(
        "A minus B on the same openings: score per game {} ({} games), per opening pair {} ({} pairs); material share per game {}",
        paired.score_per_game,
        paired.score_per_game.n,
        paired.score_per_pair,
        paired.score_per_pair.n,
        paired.material_share_per_game
    )?;
    Ok(())
}

/// What a material share means under the match's adjudication: a side with `r` times the
/// other's material holds the share `r / (1 + r)`.
fn share_hint(ratio: Option<f32>) -> String {
    match ratio {
        Some(r) => format!(
            "0.5 even, {:.3} the {r}x ratio that wins at the ply cap",
            r as f64 / (1.0 + r as f64)
        ),
        None => "0.5 even; no material adjudication".into(),
    }
}

pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    let (variant, backend, options) = args.settings.resolve(None)?;
    let search = args.settings.search()?;
    let mut players = args
        .players
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            player(
                spec,
                &variant,
                backend,
                &search,
                args.settings.seed.wrapping_add(i as u64),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let standings = tournament::run(&mut players, &options, args.gauntlet, &mut |a, b, s| {
        tracing::info!(
            a,
            b,
            wins = s.wins,
            draws = s.draws,
            losses = s.losses,
            "pairing finished"
        );
    })
    .map_err(anyhow::Error::msg)?;
    if args.json {
        outln!("{}", standings.to_json())?;
    } else {
        out!("{}", standings.to_text())?;
    }
    Ok(())
}

/// A game record and the search value of each of its plies where known (self-play's
/// `*.records` lines carry them as `values`; see [`tengu_arena::calibrate::PlayedOut`]).
type ValuedRecord = (tengu_rules::Record, Vec<Option<f32>>);

/// The game records of `dirs` (each folder and its `games/`: `*.record` files, one record
/// each, and a run's `*.records` files, JSON lines with a `record` and its `values`), sorted
/// by path. A `.record` that does not parse is refused, naming its file; a damaged line of a
/// `.records` file is left out with a warning naming its file and line, the file's other
/// games still read.
fn read_records(dirs: &[std::path::PathBuf]) -> Result<Vec<ValuedRecord>> {
    let mut files = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            bail!("{}: not a folder", dir.display());
        }
        for folder in [dir.clone(), dir.join("games")] {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries {
                let path = entry
                    .with_context(|| format!("listing {}", folder.display()))?
                    .path();
                let ext = path.extension().and_then(|e| e.to_str());
                if matches!(ext, Some("record" | "records")) {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    let mut records = Vec::new();
    for path in &files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if path.extension().is_some_and(|e| e == "record") {
            let record = tengu_rules::Record::parse(&text)
                .with_context(|| format!("{}: not a game record", path.display()))?;
            records.push((record, Vec::new()));
            continue;
        }
        // A damaged line hides no other game of its file: it is left out, and named.
        let (games, damaged) = tengu_selfplay::records::read_records(&text);
        for game in games {
            match game.parse() {
                Ok(record) => records.push((record, game.values.unwrap_or_default())),
                Err(line) => tracing::warn!("{}: {line}: left out", path.display()),
            }
        }
        for line in damaged {
            tracing::warn!("{}: {line}: left out", path.display());
        }
    }
    Ok(records)
}

/// `tengu results --calibrate`: how often the side ahead in material went on to win, in the
/// games of `args.folders` that a rule ended.
fn run_calibrate(args: &ResultsArgs) -> Result<()> {
    use tengu_arena::calibrate::{
        adjudication_table, resignation_table, safe_ratios, safe_thresholds, PlayedOut,
    };
    let valued = read_records(&args.folders)?;
    let records: Vec<&tengu_rules::Record> = valued.iter().map(|(r, _)| r).collect();
    let Some(first) = records.first() else {
        bail!("no game records (*.record, *.records) in the folders or their games/");
    };
    let variant = first.game.position().variant().clone();
    let mut ends: std::collections::BTreeMap<tengu_rules::GameEnd, u64> = Default::default();
    let mut games = Vec::new();
    for (r, values) in &valued {
        if r.game.position().variant().id() != variant.id() {
            bail!(
                "games of two rule sets ({} and {}): calibrate one at a time",
                variant.id(),
                r.game.position().variant().id()
            );
        }
        let outcome = r.game.outcome();
        let end = match outcome {
            Some(o) => tengu_rules::GameEnd::Rule(o.termination),
            None => match r.tag("Termination").map(str::parse::<tengu_rules::GameEnd>) {
                Some(Ok(end)) => end,
                _ => continue,
            },
        };
        *ends.entry(end).or_default() += 1;
        if let Some(o) = outcome {
            games.push(PlayedOut {
                game: r.game.clone(),
                winner: o.winner,
                values: values.clone(),
            });
        }
    }
    // Self-play's games that never resigned and where a side reached the threshold.
    let checks: Vec<bool> = records
        .iter()
        .filter_map(|r| r.tag(tengu_selfplay::play::RESIGN_CHECK_TAG))
        .map(|v| v == "false")
        .collect();
    let false_resignations = checks.iter().filter(|f| **f).count();
    let values = tengu_rules::values::piece_values(&variant);
    let cells = adjudication_table(&games, &args.plies, &args.ratios, &values);
    let min_games = 10;
    let safe = safe_ratios(&cells, args.safe_share, min_games);
    let resignations = resignation_table(&games, &args.resign_thresholds, &args.resign_moves);
    let max_false = 1.0 - args.safe_share;
    let safe_resign = safe_thresholds(&resignations, max_false, min_games);
    let valued_games = resignations.first().map_or(0, |c| c.games);
    if args.json {
        let json = serde_json::json!({
            "records": records.len(),
            "played_out": games.len(),
            "ends": ends.iter().map(|(e, n)| (e.to_string(), *n)).collect::<std::collections::BTreeMap<_, _>>(),
            "cells": cells,
            "safe_share": args.safe_share,
            "resignation_checks": checks.len(),
            "false_resignations": false_resignations,
            "safe": safe.iter().map(|(ply, ratio)| serde_json::json!({"ply": ply, "ratio": ratio})).collect::<Vec<_>>(),
            "resignation": resignations,
            "safe_resignation": safe_resign.iter().map(|(moves, t)| serde_json::json!({"consecutive": moves, "threshold": t})).collect::<Vec<_>>(),
        });
        outln!("{json}")?;
        return Ok(());
    }
    let ended: Vec<String> = ends.iter().map(|(e, n)| format!("{e} {n}")).collect();
    outln!(
        "{} records ({}); {} played out (ended by a rule) are calibrated",
        records.len(),
        ended.join(", "),
        games.len()
    )?;
    outln!(
        "{:>6} {:>6} {:>8} {:>6} {:>14} {:>10} {:>11}",
        "ply",
        "ratio",
        "reached",
        "ahead",
        "won/drawn/lost",
        "won share",
        "95% low"
    )?;
    for c in &cells {
        outln!(
            "{:>6} {:>6} {:>8} {:>6} {:>14} {:>10} {:>11.3}",
            c.ply,
            c.ratio,
            c.reached,
            c.ahead,
            format!("{}/{}/{}", c.won, c.drawn, c.lost),
            c.won_share().map_or("-".into(), |s| format!("{s:.3}")),
            c.won_share_low()
        )?;
    }
    if valued_games > 0 {
        print_resignations(&resignations, &safe_resign, max_false, min_games)?;
    }
    if !checks.is_empty() {
        let rate = false_resignations as f64 / checks.len() as f64;
        outln!(
            "resignation: {} games that never resigned reached the threshold; {false_resignations} of them ({:.1}%) the side that would have resigned drew or won (false resignations; keep under 5%)",
            checks.len(),
            100.0 * rate
        )?;
    }
    for (ply, ratio) in safe {
        outln!(
            "ply {ply}: {}",
            match ratio {
                Some(r) => format!(
                    "the side ahead by {r}x won at least {} of {min_games}+ games",
                    args.safe_share
                ),
                None => format!(
                    "no ratio safe at {} (or fewer than {min_games} games ahead)",
                    args.safe_share
                ),
            }
        )?;
    }
    Ok(())
}

/// The resignation table of `tengu results --calibrate`: for each threshold and run of
/// moves, how many played-out games would have resigned, how many of those falsely, and
/// the plies it would have saved.
fn print_resignations(
    cells: &[tengu_arena::calibrate::ResignationCell],
    safe: &[(u32, Option<f32>)],
    max_false: f64,
    min_games: u64,
) -> Result<()> {
    let games = cells.first().map_or(0, |c| c.games);
    outln!(
        "resignation replayed on the search values of {games} played-out games (resign when the mover's value stays below -threshold for that many of its moves):"
    )?;
    outln!(
        "{:>9} {:>6} {:>8} {:>6} {:>11} {:>10} {:>12}",
        "threshold",
        "moves",
        "resigned",
        "false",
        "false share",
        "95% high",
        "plies saved"
    )?;
    for c in cells {
        outln!(
            "{:>9} {:>6} {:>8} {:>6} {:>11} {:>10.3} {:>11.1}%",
            c.threshold,
            c.consecutive,
            c.resigned,
            c.false_resignations,
            c.false_share().map_or("-".into(), |s| format!("{s:.3}")),
            c.false_share_high(),
            100.0 * c.plies_saved as f64 / c.plies.max(1) as f64
        )?;
    }
    for (moves, threshold) in safe {
        outln!(
            "{moves} moves: {}",
            match threshold {
                Some(t) => format!(
                    "resigning below -{t} was false at most {max_false:.2} of the time over {min_games}+ resignations"
                ),
                None => format!(
                    "no threshold false at most {max_false:.2} of the time (or fewer than {min_games} resignations)"
                ),
            }
        )?;
    }
    Ok(())
}
