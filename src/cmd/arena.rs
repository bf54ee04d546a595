//! `tengu match`: two players, paired openings, Elo and SPRT.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::json;
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_selfplay::arena::elo::{elo_interval, Sprt};
use tengu_selfplay::arena::matches::{self, MatchOptions};
use tengu_selfplay::arena::players::{
    AlphaBetaPlayer, GreedyPlayer, MctsPlayer, Player, PolicyPlayer, RandomPlayer,
};
use tengu_selfplay::arena::tournament;
use tengu_selfplay::openings::read_openings;
use tengu_selfplay::SearchConfig;

use crate::args::{GameSettingsArgs, MatchArgs, TournamentArgs};
use crate::output::{out, outln};

/// A player from its command-line description.
/// `search`: the search settings of checkpoint players.
pub fn player(
    spec: &str,
    variant: &Arc<Variant>,
    backend: Backend,
    search: &SearchConfig,
    seed: u64,
) -> Result<Box<dyn Player>> {
    // A checkpoint named by URL (`checkpoint:s3://b/run/models/model-X.safetensors:64`)
    // keeps its `scheme://` together.
    let mut parts: Vec<&str> = spec.split(':').collect();
    if parts.len() >= 3 && parts[2].starts_with("//") {
        let end = spec.len()
            - if parts.len() >= 4 {
                parts[parts.len() - 1].len() + 1
            } else {
                0
            };
        let url = &spec[parts[0].len() + 1..end];
        let visits = (parts.len() >= 4).then(|| parts[parts.len() - 1]);
        parts = [parts[0], url].into_iter().chain(visits).collect();
    }
    let number = |i: usize, default: u64| -> Result<u64> {
        parts.get(i).map_or(Ok(default), |t| {
            t.parse()
                .with_context(|| format!("player {spec:?}: {t:?} is not a number"))
        })
    };
    Ok(match parts[0] {
        "random" if parts.len() == 1 => Box::new(RandomPlayer::new(seed)),
        "greedy" if parts.len() == 1 => Box::new(GreedyPlayer::new(variant, seed)),
        "alphabeta" if parts.len() <= 3 => {
            Box::new(AlphaBetaPlayer::new(variant, Duration::from_millis(number(1, 200)?), number(2, 4)? as u32, seed))
        }
        "checkpoint" if (2..=3).contains(&parts.len()) => {
            let path = &super::checkpoint_file(std::path::Path::new(parts[1]))?;
            let (eval, meta) = backend.load_evaluator(path, variant)?;
            let label = format!("{} step {}", path.file_name().unwrap_or_default().to_string_lossy(), meta.step);
            Box::new(MctsPlayer::new(label, eval, search.clone(), number(2, 64)? as u32, seed))
        }
        "policy" if parts.len() == 2 => {
            let path = &super::checkpoint_file(std::path::Path::new(parts[1]))?;
            let (evaluator, meta) = backend.load_evaluator(path, variant)?;
            let label = format!("{} step {}", path.file_name().unwrap_or_default().to_string_lossy(), meta.step);
            Box::new(PolicyPlayer { label, evaluator })
        }
        _ => bail!("player {spec:?}: expected random, greedy, alphabeta[:MS[:DEPTH]], checkpoint:PATH[:VISITS] or policy:PATH"),
    })
}

impl GameSettingsArgs {
    /// Search settings of checkpoint players: the `[search]` table of `--search-config` or
    /// the defaults, with `--material-utility` when given.
    fn search(&self) -> Result<SearchConfig> {
        let mut search = super::search_config(self.search_config.as_deref())?;
        if let Some(utility) = self.material_utility {
            search.material_utility = utility;
        }
        Ok(search)
    }

    /// The game, the backend for checkpoint players and the match options.
    fn resolve(&self, sprt: Option<Sprt>) -> Result<(Arc<Variant>, Backend, MatchOptions)> {
        let Some(variant) = Variant::builtin(&self.game) else {
            bail!(
                "unknown game {:?}; expected dai-dai or maka-dai-dai",
                self.game
            )
        };
        let backend: Backend = self.backend.parse().map_err(anyhow::Error::msg)?;
        let openings = match &self.openings {
            Some(path) => Some(Arc::new(
                read_openings(path, &variant).context("--openings")?,
            )),
            None => None,
        };
        let options = MatchOptions {
            variant: variant.clone(),
            games: self.games,
            opening_plies: self.opening_plies,
            openings,
            max_plies: self.max_plies,
            material_ratio: (self.material_ratio > 0.0).then_some(self.material_ratio),
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
    if !(elo1 > elo0 && 0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
        bail!("--sprt {text:?}: need elo1 > elo0 and alpha, beta in (0, 0.5)");
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
    if args.threads == 0 {
        bail!("--threads must be at least 1");
    }
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
    let summary = matches::run_parallel(refs, &options, &mut |r, s| {
        tracing::info!(game = r.index, result = r.result, plies = r.plies, termination = %r.termination, wins = s.wins, draws = s.draws, losses = s.losses, "game finished");
    })
    .map_err(anyhow::Error::msg)?;
    let s = summary.score;
    let interval = elo_interval(&s);
    let (share, share_se) = summary.material_share();
    let pairs = summary.pairs();
    if args.json {
        // An end the results cannot bound (after a perfect or a zero score) is null.
        let (lo, elo, hi) = interval.to_json();
        let mut report = json!({"a": a_name, "b": b_name, "games": s.games(), "wins": s.wins, "draws": s.draws, "losses": s.losses,
                "score": s.mean(), "elo": elo, "elo_low": lo, "elo_high": hi,
                "material_share": share, "material_share_se": share_se,
                "sprt": summary.sprt.map(|d| format!("{d:?}")), "llr": sprt.map(|p| p.llr(&s))});
        report
            .as_object_mut()
            .expect("an object")
            .extend(pairs.to_json());
        outln!("{report}")?;
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
            "{a_name}'s share of the material at the end: {share:.3} +- {share_se:.3} (0.5 even, 0.6 the 1.5x ratio)"
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
