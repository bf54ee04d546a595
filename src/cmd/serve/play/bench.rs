//! `tengu bench play`: the play page's server under a bounded load on localhost. `--games`
//! clients each start a game against the shipped network and play `--moves` moves (their
//! first legal move), polling until the reply; meanwhile `--queries` clients each send one
//! analysis query of `--visits` visits, all at once. Reports the median and worst time of
//! each kind of request, that a request over the caps is refused with its cause, and the
//! process's peak memory (VmHWM).

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use tengu_store::Location;

use super::PlayConfig;
use crate::args::BenchPlayArgs;
use crate::cmd::serve::{http_get, http_post, Server};
use crate::output::outln;

/// The response times of one kind of request, milliseconds.
#[derive(Default)]
struct Times(Vec<f64>);

impl Times {
    fn summary(&mut self) -> Value {
        self.0.sort_by(f64::total_cmp);
        let at = |q: f64| {
            self.0
                .get(((self.0.len().max(1) - 1) as f64 * q).round() as usize)
                .copied()
        };
        json!({"requests": self.0.len(), "median_ms": at(0.5), "worst_ms": at(1.0)})
    }
}

fn timed_post(
    addr: SocketAddr,
    path: &str,
    body: &Value,
    times: &mut Times,
) -> Result<(u16, Value)> {
    let t = Instant::now();
    let (status, bytes) = http_post(addr, path, &body.to_string())?;
    times.0.push(t.elapsed().as_secs_f64() * 1e3);
    Ok((
        status,
        serde_json::from_slice(&bytes).with_context(|| format!("POST {path}: not JSON"))?,
    ))
}

fn timed_get(addr: SocketAddr, path: &str, times: &mut Times) -> Result<(u16, Value)> {
    let t = Instant::now();
    let (status, bytes) = http_get(addr, path)?;
    times.0.push(t.elapsed().as_secs_f64() * 1e3);
    Ok((
        status,
        serde_json::from_slice(&bytes).with_context(|| format!("GET {path}: not JSON"))?,
    ))
}

/// One game: started, `moves` moves each answered; the times of its requests (moves and
/// the polls that wait for the reply).
fn play_one(addr: SocketAddr, game: &str, visits: u32, moves: usize) -> Result<(Times, Times)> {
    let (mut moved, mut polled) = (Times::default(), Times::default());
    let opponent = format!("shipped:{game}");
    let (status, mut s) = timed_post(
        addr,
        "/api/play/new",
        &json!({"game": game, "opponent": opponent, "visits": visits}),
        &mut moved,
    )?;
    if status != 200 {
        bail!("a new game was refused: {s}");
    }
    let id = s["id"].as_str().context("no game id")?.to_string();
    for _ in 0..moves {
        if s["over"].as_bool() == Some(true) {
            break;
        }
        let text = s["legal"][0]["text"]
            .as_str()
            .context("no legal move")?
            .to_string();
        let ply = s["ply"].clone();
        let (status, after) = timed_post(
            addr,
            &format!("/api/play/game/{id}/move"),
            &json!({"move": text, "ply": ply}),
            &mut moved,
        )?;
        if status != 200 {
            bail!("move {text} refused: {after}");
        }
        s = after;
        while s["thinking"].as_bool() == Some(true) {
            std::thread::sleep(Duration::from_millis(100));
            s = timed_get(addr, &format!("/api/play/game/{id}"), &mut polled)?.1;
        }
    }
    Ok((moved, polled))
}

/// The process's peak resident memory in MiB (Linux), if known.
fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

pub fn run(args: BenchPlayArgs) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("tengu-bench-play-{}", std::process::id()));
    let config = PlayConfig {
        max_games: args.games,
        max_queries: args.queries,
        max_visits: args.visits.max(args.opponent_visits),
        ..PlayConfig::new(dir.join("play"))
    };
    let server = Server::start(
        Location::Local(dir.join("no-run")),
        "127.0.0.1:0".parse().expect("an address"),
        Duration::from_secs(2),
        Arc::new(AtomicBool::new(false)),
        config,
    )?;
    let addr = server.addr;
    let memory_before = peak_memory_mib();
    // The network loads with the first query: timed apart.
    let query = json!({"game": args.game, "moves": [], "visits": args.visits});
    let t = Instant::now();
    let (status, first) = http_post(addr, "/api/play/analyze", &query.to_string())?;
    if status != 200 {
        bail!(
            "the first analysis failed: {}",
            String::from_utf8_lossy(&first)
        );
    }
    let first_ms = t.elapsed().as_secs_f64() * 1e3;

    let started = Instant::now();
    let games: Vec<_> = (0..args.games)
        .map(|_| {
            let game = args.game.clone();
            let (visits, moves) = (args.opponent_visits, args.moves);
            std::thread::spawn(move || play_one(addr, &game, visits, moves))
        })
        .collect();
    let queries: Vec<_> = (0..args.queries)
        .map(|k| {
            // The start position, each query with a seed of its own.
            let body = json!({"game": args.game, "visits": args.visits, "include_policy": true, "seed": k});
            std::thread::spawn(move || -> Result<Times> {
                let mut times = Times::default();
                let (status, a) = timed_post(addr, "/api/play/analyze", &body, &mut times)?;
                if status != 200 {
                    bail!("an analysis was refused: {a}");
                }
                Ok(times)
            })
        })
        .collect();
    // While they run: one request over each cap, refused with its cause.
    let over = json!({"game": args.game, "visits": args.visits.max(args.opponent_visits) + 1});
    let (status, refused) = http_post(addr, "/api/play/analyze", &over.to_string())?;
    let over_budget: Value = serde_json::from_slice(&refused)?;
    let (mut analysed, mut moved, mut polled) =
        (Times::default(), Times::default(), Times::default());
    let mut failures = Vec::new();
    for q in queries {
        match q.join() {
            Ok(Ok(t)) => analysed.0.extend(t.0),
            Ok(Err(e)) => failures.push(format!("{e:#}")),
            Err(_) => failures.push("an analysis client panicked".into()),
        }
    }
    for g in games {
        match g.join() {
            Ok(Ok((m, p))) => {
                moved.0.extend(m.0);
                polled.0.extend(p.0);
            }
            Ok(Err(e)) => failures.push(format!("{e:#}")),
            Err(_) => failures.push("a game client panicked".into()),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let (_, setup) = http_get(addr, "/api/play/setup")?;
    let setup: Value = serde_json::from_slice(&setup)?;
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let report = json!({
        "game": args.game,
        "games": args.games,
        "moves_per_game": args.moves,
        "opponent_visits": args.opponent_visits,
        "queries": args.queries,
        "visits_per_query": args.visits,
        "first_analysis_ms": first_ms,
        "seconds": seconds,
        "analysis": analysed.summary(),
        "new_game_and_moves": moved.summary(),
        "state_polls": polled.summary(),
        "over_budget": {"status": status, "cause": over_budget["cause"], "field": over_budget["field"]},
        "in_flight_after": setup["in_flight"],
        "peak_memory_mib_before": memory_before,
        "peak_memory_mib": peak_memory_mib(),
        "failures": failures,
    });
    if args.json {
        outln!("{report}")?;
    } else {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    }
    if !report["failures"].as_array().is_some_and(Vec::is_empty) {
        bail!(
            "{} request(s) failed",
            report["failures"].as_array().map_or(0, Vec::len)
        );
    }
    Ok(())
}
