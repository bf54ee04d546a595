//! `tengu book`: build, probe, export and choose openings from opening books.

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tengu_book::file::BookHeader;
use tengu_book::select::{FilterError, Test};
use tengu_book::{Book, BuildLimits, Builder, OpeningFilter};
use tengu_model::Backend;
use tengu_rules::{Game, Position};

use crate::args::{
    BookArgs, BookBuildArgs, BookCommand, BookExportArgs, BookInfoArgs, BookOpeningsArgs,
    BookProbeArgs,
};
use crate::output::{out, outln};

pub fn run(args: BookArgs) -> Result<()> {
    match args.command {
        BookCommand::Build(a) => build(a),
        BookCommand::Probe(a) => probe(a),
        BookCommand::Export(a) => export(a),
        BookCommand::Openings(a) => openings(a),
        BookCommand::Info(a) => info(a),
    }
}

fn load(path: &std::path::Path) -> Result<Book> {
    Ok(Book::load(path)?)
}

fn build(args: BookBuildArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    if args.visits == 0 {
        bail!("--visits must be at least 1");
    }
    if args.positions.is_none() && args.minutes.is_none() {
        bail!("tengu book build needs a limit: --positions N and/or --minutes M");
    }
    if args.positions == Some(0) {
        bail!("--positions 0: a book holds at least the start position; give 1 or more");
    }
    if let Some(m) = args.minutes.filter(|m| !(m.is_finite() && *m > 0.0)) {
        bail!("--minutes {m}: must be a positive number");
    }
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let file = super::checkpoint_file(&args.checkpoint)?;
    let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
    let checkpoint_hash = tengu_rules::hash::fnv1a(bytes.iter().copied());
    drop(bytes);
    let (mut eval, meta) = backend.load_evaluator(&file, &variant)?;
    let config = super::search_config(args.search_config.as_deref())?;
    config.validate().map_err(anyhow::Error::msg)?;
    let checkpoint_name = args
        .checkpoint
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let wanted = BookHeader::new(
        &variant,
        checkpoint_name,
        meta.step,
        checkpoint_hash,
        args.visits,
        args.max_plies,
        &config,
        args.seed,
    );
    let mut book = if args.out.exists() {
        let book = load(&args.out)?;
        if let Some(problem) = book.header.mismatch(&wanted) {
            bail!(
                "{} was {problem}. Continue it with the same settings, or build a new book \
                 under another name",
                args.out.display()
            );
        }
        tracing::info!(
            "continuing {}: {} positions, {} expansions",
            args.out.display(),
            book.len(),
            book.header.expansions
        );
        book
    } else {
        Book::new(variant.clone(), wanted)
    };
    let stop: std::sync::Arc<AtomicBool> = super::selfplay::stop_flag()?;
    let bar = super::spinner(args.quiet);
    let start = Instant::now();
    let first = (book.len(), book.header.expansions);
    let limits = BuildLimits {
        positions: args.positions,
        time: args.minutes.map(|m| Duration::from_secs_f64(m * 60.0)),
        save_every: args.save_every,
    };
    let path = args.out.clone();
    let mut builder = Builder::new(eval.as_mut(), config);
    let end = tengu_book::build(
        &mut builder,
        &mut book,
        &limits,
        &stop,
        &mut |b| b.save(&path),
        &mut |b, x| {
            let minutes = start.elapsed().as_secs_f64() / 60.0;
            let root = b.value(0);
            bar.set_message(format!(
                "{} positions, {} expansions, {:.1} new positions/min, start score {:.3} ± {:.3}, last cost {:.2}",
                b.len(),
                b.header.expansions,
                (b.len() - first.0) as f64 / minutes.max(1e-9),
                root.score(),
                root.err,
                x.cost
            ));
            bar.tick();
        },
    )
    .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let added = book.len() - first.0;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    let root = book.value(0);
    outln!(
        "{}: {} positions (+{added}), {} expansions (+{}) in {:.1} s: {:.1} new positions/min; \
         {} bytes ({:.0} B/position); start score {:.3} ± {:.3} (draw {:.3}); stopped: {}",
        args.out.display(),
        book.len(),
        book.header.expansions,
        book.header.expansions - first.1,
        secs,
        added as f64 / (secs / 60.0).max(1e-9),
        size,
        size as f64 / book.len().max(1) as f64,
        root.score(),
        root.err,
        root.draw,
        end
    )?;
    Ok(())
}

/// The game to probe: `--position`, `--moves` from the start, or the start.
fn probe_game(book: &Book, args: &BookProbeArgs) -> Result<Game> {
    if let Some(text) = &args.position {
        let pos = tengu_engine::fen::parse_position(text, &book.variant)
            .map_err(anyhow::Error::msg)
            .context("invalid --position")?;
        if pos.variant().id() != book.variant.id() {
            bail!(
                "--position is a {} position, but the book is of {}",
                pos.variant().name(),
                book.variant.name()
            );
        }
        return Ok(Game::new(pos));
    }
    let mut game = Game::new(Position::initial(book.variant.clone()));
    for (i, text) in args.moves.iter().enumerate() {
        let m = game
            .position()
            .parse_move(text)
            .map_err(|e| anyhow::anyhow!("--moves: move {} ({text:?}): {e}", i + 1))?;
        game.play(m)
            .map_err(|e| anyhow::anyhow!("--moves: move {} ({text:?}): {e}", i + 1))?;
    }
    Ok(game)
}

/// Why the probed position is not in the book, in the words it was given: the moves (and
/// the first one that leaves the book), or `--position`.
fn not_in_book(book: &Book, args: &BookProbeArgs, game: &Game) -> String {
    let size = format!("{} ({} positions)", args.book.display(), book.len());
    if args.position.is_some() {
        return format!("the position given by --position is not in {size}");
    }
    let texts: Vec<String> = {
        let mut pos = game.start().clone();
        game.moves()
            .map(|m| {
                let text = pos.move_text(m);
                pos.play(m);
                text
            })
            .collect()
    };
    // The first move after which the line is out of the book.
    let mut pos = game.start().clone();
    let mut left = None;
    for (i, m) in game.moves().enumerate() {
        pos.play(m);
        if book.find(&pos).is_none() {
            left = Some(i);
            break;
        }
    }
    let leaves = match left {
        Some(i) if i + 1 < texts.len() => format!(
            "; the book leaves the line at move {} ({})",
            i + 1,
            texts[i]
        ),
        _ => String::new(),
    };
    format!(
        "the position after --moves {} is not in {size}{leaves}",
        texts.join(" ")
    )
}

fn probe(args: BookProbeArgs) -> Result<()> {
    let book = load(&args.book)?;
    let game = probe_game(&book, &args)?;
    let Some(report) = book.probe(game.position()) else {
        bail!("{}", not_in_book(&book, &args, &game));
    };
    if args.json {
        outln!("{}", serde_json::to_string(&report)?)?;
        return Ok(());
    }
    let v = report.value;
    outln!(
        "{} book, {} positions; position {} ply {}, {} to move: score {:.3} ± {:.3} (W {:.3} D {:.3} L {:.3}), {} visits",
        book.variant.name(),
        book.len(),
        report.key,
        report.ply,
        report.side_to_move,
        v.score,
        v.err,
        v.win,
        v.draw,
        v.loss,
        report.visits
    )?;
    outln!(
        "{:<16} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  line",
        "move",
        "visits",
        "prior",
        "W",
        "D",
        "L",
        "score",
        "±"
    )?;
    for m in &report.moves {
        outln!(
            "{:<16} {:>7} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}  {}",
            m.mv,
            m.visits,
            m.prior,
            m.value.win,
            m.value.draw,
            m.value.loss,
            m.value.score,
            m.value.err,
            m.line.join(" ")
        )?;
    }
    if let Some(o) = &report.other {
        outln!(
            "{:<16} {:>7} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}  (best move not in the book: {})",
            "other",
            o.visits,
            o.prior,
            o.value.win,
            o.value.draw,
            o.value.loss,
            o.value.score,
            o.value.err,
            o.best
        )?;
    }
    Ok(())
}

fn create(path: &std::path::Path) -> Result<std::io::BufWriter<std::fs::File>> {
    Ok(std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
    ))
}

fn export(args: BookExportArgs) -> Result<()> {
    if args.jsonl.is_none() && args.openings.is_none() && args.html.is_none() {
        bail!("tengu book export needs at least one of --jsonl FILE, --openings FILE, --html DIR");
    }
    let book = load(&args.book)?;
    if let Some(path) = &args.jsonl {
        let mut f = create(path)?;
        tengu_book::export::write_jsonl(&book, &mut f)?;
        f.flush()?;
        outln!("{}: {} positions (JSON lines)", path.display(), book.len())?;
    }
    if let Some(path) = &args.openings {
        let mut f = create(path)?;
        let n = tengu_book::export::write_openings(&book, &mut f)?;
        f.flush()?;
        outln!("{}: {n} openings", path.display())?;
    }
    if let Some(dir) = &args.html {
        let nodes = tengu_book::export::html_nodes(&book, args.min_visits);
        let title = format!(
            "{} opening book ({}, {} positions)",
            book.variant.name(),
            book.header.checkpoint,
            book.len()
        );
        let stats = tengu_book::html::write_html(dir, &title, &book.node(0).key.hex(), &nodes)
            .with_context(|| format!("cannot write the HTML book to {}", dir.display()))?;
        outln!(
            "{}: {} pages, {} bytes; open {}",
            dir.display(),
            stats.pages,
            stats.bytes,
            dir.join("index.html").display()
        )?;
    }
    Ok(())
}

fn openings(args: BookOpeningsArgs) -> Result<()> {
    let book = load(&args.book)?;
    let filter = OpeningFilter {
        count: args.count,
        min_ply: args.min_ply,
        max_ply: args.max_ply,
        max_gap: args.max_gap,
        max_draw: args.max_draw,
        max_err: args.max_err,
        min_visits: 1,
        min_difference: args.min_difference,
    };
    filter.validate().map_err(|e| match e {
        FilterError::ZeroCount => anyhow::anyhow!("--count 0: at least one opening must be wanted"),
        FilterError::PlyRange { min, max } => {
            anyhow::anyhow!("--min-ply {min} is above --max-ply {max}: no ply is in the range")
        }
        FilterError::Negative { field, value } => anyhow::anyhow!(
            "--{} {value}: must be a number >= 0",
            field.replace('_', "-")
        ),
    })?;
    let chosen = tengu_book::balanced_openings(&book, &filter);
    if chosen.is_empty() {
        bail!("{}", nothing_qualifies(&args, &book, &filter));
    }
    let mut text = format!(
        "# {} balanced openings from {} ({} positions, checkpoint {})\n",
        chosen.len(),
        args.book.display(),
        book.len(),
        book.header.checkpoint
    );
    for c in &chosen {
        text.push_str(&tengu_book::export::opening_line(&book, c.node));
        text.push('\n');
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let plies: Vec<u32> = chosen.iter().map(|c| c.ply).collect();
            outln!(
                "{}: {} openings, plies {} to {}, {} with Black to move",
                path.display(),
                chosen.len(),
                plies.iter().min().unwrap_or(&0),
                plies.iter().max().unwrap_or(&0),
                plies.iter().filter(|p| *p % 2 == 0).count()
            )?;
        }
        None => out!("{text}")?,
    }
    Ok(())
}

/// Why no position qualifies: how many positions each filter turned away (by its flag) and
/// which flag to loosen first.
fn nothing_qualifies(args: &BookOpeningsArgs, book: &Book, filter: &OpeningFilter) -> String {
    let r = tengu_book::rejections(book, filter);
    let phrase = |t: Test, n: usize| match t {
        Test::Finished => format!("{n} finished games"),
        Test::Plies => format!(
            "{n} by --min-ply {} / --max-ply {} (plies {} to {})",
            args.min_ply, args.max_ply, args.min_ply, args.max_ply
        ),
        Test::Gap => format!(
            "{n} by --max-gap {} (score within {} of 0.5)",
            args.max_gap, args.max_gap
        ),
        Test::Draw => format!(
            "{n} by --max-draw {} (draw probability at most {})",
            args.max_draw, args.max_draw
        ),
        Test::Err => format!(
            "{n} by --max-err {} (standard error at most {})",
            args.max_err, args.max_err
        ),
        Test::Visits => format!("{n} without a search of their own (every move in the book)"),
    };
    let counts: Vec<String> = Test::ALL
        .into_iter()
        .filter(|&t| r.rejected(t) > 0)
        .map(|t| phrase(t, r.rejected(t)))
        .collect();
    let loosen = r.loosen_first().and_then(|t| match t {
        Test::Plies => Some((t, "widen --min-ply/--max-ply")),
        Test::Gap => Some((t, "raise --max-gap")),
        Test::Draw => Some((t, "raise --max-draw")),
        Test::Err => Some((t, "raise --max-err")),
        Test::Finished | Test::Visits => None,
    });
    let advice = match loosen {
        Some((t, what)) if r.only(t) > 0 => {
            format!(
                "{what} (it alone keeps out {}), or grow the book",
                r.only(t)
            )
        }
        Some((_, what)) => format!("{what} (it keeps out the most), or grow the book"),
        None => "grow the book".to_string(),
    };
    format!(
        "no position of {} qualifies as an opening; of its {} positions rejected: {}; {advice}",
        args.book.display(),
        r.positions,
        counts.join(", ")
    )
}

fn info(args: BookInfoArgs) -> Result<()> {
    let book = load(&args.book)?;
    let h = &book.header;
    let size = std::fs::metadata(&args.book).map(|m| m.len()).unwrap_or(0);
    let max_ply = book.graph.nodes.iter().map(|n| n.ply).max().unwrap_or(0);
    let root = book.value(0);
    if args.json {
        let v = serde_json::json!({
            "game": h.game, "rules_version": h.rules_version, "checkpoint": h.checkpoint,
            "checkpoint_step": h.checkpoint_step, "visits": h.visits, "seed": h.seed,
            "expansions": h.expansions, "positions": book.len(), "bytes": size,
            "max_ply": max_ply, "total_visits": book.total_visits(),
            "start_score": root.score(), "start_draw": root.draw,
        });
        outln!("{v}")?;
        return Ok(());
    }
    outln!(
        "{}: {} book (RULES.md v{}), {} positions, {} expansions, {} bytes, deepest ply {}",
        args.book.display(),
        book.variant.name(),
        h.rules_version,
        book.len(),
        h.expansions,
        size,
        max_ply
    )?;
    outln!(
        "checkpoint {} (step {}), {} visits per search, seed {}, {} visits in all",
        h.checkpoint,
        h.checkpoint_step,
        h.visits,
        h.seed,
        book.total_visits()
    )?;
    outln!(
        "start: score {:.3} ± {:.3}, draw {:.3}",
        root.score(),
        root.err,
        root.draw
    )?;
    Ok(())
}
