//! `tengu analyze`: an analysis engine on stdin/stdout in the shape of KataGo's: one JSON
//! query a line in (a game line, the plies to analyse, a budget), one JSON answer a line
//! out per analysed ply, as each search finishes; several queries in flight, their leaves
//! evaluated in one batch per network; `terminate` drops a query; a bad line gets an error
//! naming the field; the end of input finishes the queries in flight, then the command
//! ends. The formats: docs/analyze.md.
//!
//! - `query`: a line parsed and validated into a request.
//! - `engine`: the searches in flight and their batched evaluation.
//! - `answer`: what is written back.

pub mod answer;
pub mod engine;
pub mod query;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_search::leaf::LeafTerms;
use tengu_search::SearchConfig;

use crate::args::AnalyzeArgs;
use answer::{ErrorReply, Reply};
use engine::{Engine, Net, Networks};
use query::{Caps, QueryError, Request, MAX_LINE};

/// A line of standard input, as the reader thread passes it on.
enum Input {
    Line(String),
    /// A line that cannot be read as a query at all (too long, not UTF-8).
    Refused(QueryError),
    /// The end of input (or a read error, logged).
    End,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let given = checkpoints(&args.checkpoint)?;
    let search = super::CheckpointSearch::from_flags(
        args.search_config.as_deref(),
        args.material_utility,
        None,
    )?;
    let mut nets = Networks::new(loader(given.clone(), search, backend));
    // The checkpoints given are loaded now: one that cannot be used stops the command
    // before it reads a query.
    for (game, path) in &given {
        let variant = Variant::by_key(game)
            .with_context(|| format!("--checkpoint {}: game {game}", path.display()))?;
        nets.preload(&variant).map_err(anyhow::Error::msg)?;
    }
    let caps = Caps {
        visits: args.max_visits,
        time: Duration::from_millis(args.max_time_ms),
        plies: args.max_plies,
    };
    let mut engine = Engine::new(nets, args.max_searches, args.seed);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || read_lines(std::io::stdin().lock(), &tx));
    tracing::info!(
        max_searches = args.max_searches,
        "analysis engine ready: one JSON query a line on standard input (docs/analyze.md)"
    );
    let start = Instant::now();
    let mut stdout = std::io::stdout().lock();
    let mut open = true;
    loop {
        // Idle: wait for a line; else take the lines that came while searching.
        let mut inputs = Vec::new();
        if engine.is_idle() {
            if !open {
                break;
            }
            inputs.push(rx.recv().unwrap_or(Input::End));
        }
        inputs.extend(rx.try_iter());
        for input in inputs {
            let replies = match input {
                Input::End => {
                    open = false;
                    continue;
                }
                Input::Refused(e) => vec![Reply::Error(ErrorReply::refused(None, &e))],
                Input::Line(line) if line.trim().is_empty() => continue,
                Input::Line(line) => handle(&mut engine, &line, &caps),
            };
            write(&mut stdout, &replies)?;
        }
        let replies = engine.step();
        write(&mut stdout, &replies)?;
    }
    tracing::info!("{}", engine::summary(&engine.stats, start.elapsed()));
    Ok(())
}

/// The answers to one input line.
fn handle(engine: &mut Engine, line: &str, caps: &Caps) -> Vec<Reply> {
    let map = match query::parse_line(line) {
        Ok(map) => map,
        Err(e) => return vec![Reply::Error(ErrorReply::refused(None, &e))],
    };
    match query::request(&map, caps) {
        Ok(Request::Analyze(q)) => engine.submit(*q),
        Ok(Request::Terminate { id }) => vec![Reply::Terminated(engine.terminate(Some(&id)))],
        Ok(Request::TerminateAll) => vec![Reply::Terminated(engine.terminate(None))],
        Err(e) => {
            let id = query::id_of(&serde_json::Value::Object(map));
            vec![Reply::Error(ErrorReply::refused(id.as_ref(), &e))]
        }
    }
}

/// Writes each reply as one JSON line and flushes (a client reads answers as they come).
fn write(out: &mut impl Write, replies: &[Reply]) -> Result<()> {
    if replies.is_empty() {
        return Ok(());
    }
    for reply in replies {
        serde_json::to_writer(&mut *out, reply)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// Reads lines until the end of input, passing each on; a line longer than [`MAX_LINE`]
/// is skipped to its end and refused.
fn read_lines(mut input: impl BufRead, tx: &mpsc::Sender<Input>) {
    loop {
        let mut bytes = Vec::new();
        let read =
            std::io::Read::take(&mut input, MAX_LINE as u64 + 1).read_until(b'\n', &mut bytes);
        let message = match read {
            Ok(0) => Input::End,
            Ok(_) if bytes.len() > MAX_LINE && bytes.last() != Some(&b'\n') => {
                // Skip the rest of the line.
                let mut skipped = bytes.len();
                while let Ok(buf) = input.fill_buf() {
                    if buf.is_empty() {
                        break;
                    }
                    match buf.iter().position(|&b| b == b'\n') {
                        Some(at) => {
                            input.consume(at + 1);
                            skipped += at;
                            break;
                        }
                        None => {
                            let n = buf.len();
                            input.consume(n);
                            skipped += n;
                        }
                    }
                }
                Input::Refused(QueryError::TooLong { bytes: skipped })
            }
            Ok(_) => match String::from_utf8(bytes) {
                Ok(mut line) => {
                    let kept = line.trim_end_matches(['\n', '\r']).len();
                    line.truncate(kept);
                    Input::Line(line)
                }
                Err(_) => Input::Refused(QueryError::NotUtf8),
            },
            Err(e) => {
                tracing::error!("cannot read standard input: {e}");
                Input::End
            }
        };
        let end = matches!(message, Input::End);
        if tx.send(message).is_err() || end {
            return;
        }
    }
}

/// The `--checkpoint`s as local files with the game key each was trained under (read from
/// its metadata); two for one rule set are refused.
fn checkpoints(paths: &[PathBuf]) -> Result<Vec<(String, PathBuf)>> {
    let mut given: Vec<(String, PathBuf)> = Vec::new();
    for path in paths {
        let local = super::checkpoint_file(path)?;
        let meta = tengu_model::checkpoint::read_meta(&local)?;
        if let Some((_, other)) = given.iter().find(|(g, _)| *g == meta.game) {
            bail!(
                "--checkpoint {} and {} both play {}: give one checkpoint a game",
                other.display(),
                local.display(),
                meta.game
            );
        }
        given.push((meta.game, local));
    }
    Ok(given)
}

/// The network of a game under a rule set: the checkpoint in `given` trained under it, else
/// one of its game (the first given), else the one shipped for it (`networks/`), searching
/// with the settings of `search` (`--search-config`, else the checkpoint's own). A network
/// of other rules of the game warns once, naming the options that differ.
pub(crate) fn loader(
    given: Vec<(String, PathBuf)>,
    search: super::CheckpointSearch,
    backend: Backend,
) -> engine::NetLoader {
    Box::new(move |variant: &Arc<Variant>| -> Result<Net, String> {
        let of_game = |g: &String| tengu_model::checkpoint::game_of(g) == variant.game();
        let found = (given.iter().find(|(g, _)| g == variant.id()))
            .or_else(|| given.iter().find(|(g, _)| of_game(g)));
        let path = match found {
            Some((_, path)) => path.clone(),
            None => shipped(variant)?,
        };
        let settings: SearchConfig = search.of(&path).map_err(|e| format!("{e:#}"))?;
        let (evaluator, meta) = backend.load_evaluator(&path, variant).map_err(|e| {
            format!(
                "cannot analyse {} with {}: {e}",
                variant.id(),
                path.display()
            )
        })?;
        Ok(Net {
            label: format!(
                "{} step {}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                meta.step
            ),
            game: variant.id().to_string(),
            evaluator,
            search: settings,
            terms: LeafTerms::new(variant),
        })
    })
}

/// The file of the network shipped for `variant`, or why there is none.
fn shipped(variant: &Arc<Variant>) -> Result<PathBuf, String> {
    let none = || {
        format!(
            "no network plays {}: start tengu analyze with --checkpoint for it (networks are \
             shipped for dai-dai and maka-dai-dai, and play every rule set of their game)",
            variant.id()
        )
    };
    match crate::networks::for_variant(variant) {
        Ok(Some(shipped)) => {
            tracing::info!("shipped network (networks/manifest.json): {}", shipped.info);
            shipped.file().map_err(|e| format!("{e:#}"))
        }
        Ok(None) => Err(none()),
        Err(e) => Err(format!("{e:#}")),
    }
}
