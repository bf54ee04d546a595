//! `tengu bench serve`: `tengu serve` on a synthetic run of many shards and checkpoints.
//! Times the watcher's first (cold) and later (incremental) looks, every endpoint over
//! `--requests` requests (median, 95th percentile, largest), and, with `--viewers` clients
//! polling `/api/now` every two seconds, the process's CPU time per second and the rate of
//! a CPU-bound stand-in for the trainer against its rate without viewers.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tengu_model::desc::HeadId;
use tengu_rules::{Game, Position, Record, Variant};
use tengu_store::layout::{self, ShardName};
use tengu_store::{Location, RunStore};
use tengu_trainer::records::{to_line, HeadLosses, LossRecord};

use super::{http_get, view, Server};
use crate::args::BenchServeArgs;
use crate::cmd::bench::report::{self, Report};
use crate::output::outln;

pub fn run(args: BenchServeArgs) -> Result<()> {
    let dir = tempfile_dir()?;
    let made = Instant::now();
    let arena_games = synthetic_run(&dir, args.shards, args.checkpoints)?;
    let made_s = made.elapsed().as_secs_f64();
    let location = Location::Local(dir.clone());

    // The watcher alone: a cold look reads every manifest; a later one only lists.
    let mut watcher = view::Watcher::new(location.clone());
    let t = Instant::now();
    let snapshot = watcher.look();
    let cold_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    watcher.look();
    let warm_ms = t.elapsed().as_secs_f64() * 1e3;
    if snapshot.now.contains("\"problem\":\"") {
        bail!("the synthetic run has a problem: {}", snapshot.now);
    }

    let stop = Arc::new(AtomicBool::new(false));
    let server = Server::start(
        location,
        "127.0.0.1:0".parse().expect("an address"),
        Duration::from_secs(2),
        stop.clone(),
        super::play::PlayConfig::new(dir.join("play")),
    )?;
    let addr = server.addr;
    let games: ListedGames = serde_json::from_slice(&get_ok(addr, "/api/games")?)?;
    let newest_game = games
        .selfplay
        .into_iter()
        .next()
        .context("no game listed")?
        .key;
    let manifest = layout::manifest_key(args.checkpoints as u64 * 100);
    // The first request of a game parses its record (later ones are cached): timed apart.
    let t = Instant::now();
    get_ok(addr, &format!("/api/game?key={newest_game}&index=0"))?;
    let game_cold_ms = t.elapsed().as_secs_f64() * 1e3;
    let endpoints = [
        "/".to_string(),
        "/assets/page.js".into(),
        "/api/now".into(),
        "/api/curves".into(),
        "/api/checkpoints".into(),
        "/api/games".into(),
        format!("/api/game?key={newest_game}&index=0"),
        format!("/download/{manifest}"),
    ];
    let mut rows = Vec::new();
    for path in &endpoints {
        let mut ms = Vec::with_capacity(args.requests);
        let mut bytes = 0;
        for _ in 0..args.requests {
            let t = Instant::now();
            bytes = get_ok(addr, path)?.len();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
        rows.push(EndpointTiming {
            path: path.clone(),
            bytes,
            p50_ms: at(0.5),
            p95_ms: at(0.95),
            max_ms: at(1.0),
        });
    }

    // Viewers against a CPU-bound stand-in for the trainer; then the viewers alone, for the
    // CPU time they and the server take.
    let failures = Arc::new(AtomicU64::new(0));
    let alone = stand_in_rate(args.seconds / 2.0, None, None);
    let loaded = stand_in_rate(
        args.seconds,
        Some((addr, args.viewers, failures.clone())),
        None,
    );
    let cpu0 = tengu_store::cpu::process_seconds();
    let t = Instant::now();
    stand_in_rate(
        args.seconds / 2.0,
        Some((addr, args.viewers, failures.clone())),
        Some(()),
    );
    let cpu_per_s = (tengu_store::cpu::process_seconds() - cpu0) / t.elapsed().as_secs_f64();
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);

    let report = ServeReport {
        shards: args.shards,
        checkpoints: args.checkpoints,
        arena_games,
        run_made_seconds: made_s,
        look_cold_ms: cold_ms,
        look_incremental_ms: warm_ms,
        game_first_request_ms: game_cold_ms,
        endpoints: rows,
        viewers: args.viewers,
        viewer_failures: failures.load(Ordering::Relaxed),
        stand_in_rate_alone: alone,
        stand_in_rate_with_viewers: loaded,
        viewers_and_server_cpu_seconds_per_second: cpu_per_s,
    };
    report::print(&report, args.json, false)
}

/// The part of `/api/games` the bench reads: the newest self-play game first.
#[derive(Deserialize)]
struct ListedGames {
    selfplay: Vec<ListedGame>,
}

#[derive(Deserialize)]
struct ListedGame {
    key: String,
}

/// `tengu bench serve`'s result.
#[derive(Debug, Serialize)]
struct ServeReport {
    shards: usize,
    checkpoints: usize,
    arena_games: usize,
    run_made_seconds: f64,
    /// The watcher's first look (every manifest read) and a later one (a listing).
    look_cold_ms: f64,
    look_incremental_ms: f64,
    /// The first request of a game, which parses its record.
    game_first_request_ms: f64,
    endpoints: Vec<EndpointTiming>,
    viewers: usize,
    viewer_failures: u64,
    /// Loops a second of the CPU-bound stand-in for a trainer, alone and with viewers.
    stand_in_rate_alone: f64,
    stand_in_rate_with_viewers: f64,
    viewers_and_server_cpu_seconds_per_second: f64,
}

/// One endpoint over `--requests` requests.
#[derive(Debug, Serialize)]
struct EndpointTiming {
    path: String,
    /// The body's size, in bytes.
    bytes: usize,
    p50_ms: f64,
    p95_ms: f64,
    max_ms: f64,
}

impl Report for ServeReport {
    fn print_text(&self, _profile: bool) -> std::io::Result<()> {
        outln!(
            "synthetic run: {} shards, {} checkpoints, {} arena games (made in {:.1} s)",
            self.shards,
            self.checkpoints,
            self.arena_games,
            self.run_made_seconds
        )?;
        outln!(
            "watcher look: first {:.1} ms, incremental {:.1} ms; first request of a game {:.1} ms",
            self.look_cold_ms,
            self.look_incremental_ms,
            self.game_first_request_ms
        )?;
        outln!(
            "{:<60} {:>9} {:>8} {:>8} {:>8}",
            "endpoint",
            "bytes",
            "p50 ms",
            "p95 ms",
            "max ms"
        )?;
        for r in &self.endpoints {
            let short: String = r.path.chars().take(60).collect();
            outln!(
                "{short:<60} {:>9} {:>8.2} {:>8.2} {:>8.2}",
                r.bytes,
                r.p50_ms,
                r.p95_ms,
                r.max_ms
            )?;
        }
        let (alone, loaded) = (self.stand_in_rate_alone, self.stand_in_rate_with_viewers);
        outln!(
            "{} viewers polling every 2 s: stand-in trainer {:.0} -> {:.0} loops/s ({:+.1}%); server and viewers alone take {:.3} CPU-s/s; {} failed requests",
            self.viewers,
            alone,
            loaded,
            (loaded / alone - 1.0) * 100.0,
            self.viewers_and_server_cpu_seconds_per_second,
            self.viewer_failures
        )
    }
}

fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("tengu-bench-serve-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn get_ok(addr: SocketAddr, path: &str) -> Result<Vec<u8>> {
    let (status, body) = http_get(addr, path).with_context(|| format!("GET {path}"))?;
    if status != 200 {
        bail!(
            "GET {path}: status {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    Ok(body)
}

/// Loops per second of a fixed CPU-bound loop on one thread over `seconds`, while
/// `viewers` (if any) poll `/api/now` every two seconds; with `idle`, no loop runs (the
/// viewers alone) and the rate is 0.
fn stand_in_rate(
    seconds: f64,
    viewers: Option<(SocketAddr, usize, Arc<AtomicU64>)>,
    idle: Option<()>,
) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    if let Some((addr, n, failures)) = viewers {
        for i in 0..n {
            let (stop, failures) = (stop.clone(), failures.clone());
            threads.push(std::thread::spawn(move || {
                // Spread over the two seconds, as real viewers are.
                std::thread::sleep(Duration::from_millis((i as u64 * 2000) / n.max(1) as u64));
                while !stop.load(Ordering::Relaxed) {
                    if !matches!(http_get(addr, "/api/now"), Ok((200, _))) {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_secs(2) && !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }));
        }
    }
    let t = Instant::now();
    let mut loops = 0u64;
    let mut x = 1u64;
    while t.elapsed().as_secs_f64() < seconds {
        if idle.is_some() {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        for i in 0..100_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        loops += 1;
    }
    std::hint::black_box(x);
    let rate = loops as f64 / t.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    rate
}

/// A random game of up to `plies` plies.
fn random_record(rng: &mut rand::rngs::SmallRng, plies: usize) -> String {
    let mut game = Game::new(Position::initial(Variant::dai_dai()));
    for _ in 0..plies {
        let moves = game.position().legal_move_list();
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        game.play_unchecked(moves[rng.gen_range(0..moves.len())]);
    }
    Record::new(game, &[("Black", "bench"), ("White", "bench")]).to_string()
}

/// Writes a run of `shards` shards (4 games, 400 rows each; the bytes are not a shard's,
/// serve reads only names) with their game records, `checkpoints` checkpoints every 100
/// steps with a loss-log segment of 50 lines each, Elo and suite lines, a CPU ledger and
/// 100 arena game records. Returns the arena games written.
fn synthetic_run(dir: &std::path::Path, shards: usize, checkpoints: usize) -> Result<usize> {
    let store = RunStore::open(&dir.display().to_string())?;
    store.put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())?;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let records: Vec<String> = (0..4).map(|_| random_record(&mut rng, 150)).collect();
    let lines: String = records
        .iter()
        .enumerate()
        .map(|(g, r)| format!("{}\n", json!({"game": g, "record": r})))
        .collect();
    let now_ms = layout::unix_ms();
    std::fs::create_dir_all(dir.join(layout::SHARDS))?;
    std::fs::create_dir_all(dir.join(layout::GAMES))?;
    for i in 0..shards {
        let unix_ms = now_ms - (shards - i) as u64 * 3_000;
        let name = ShardName {
            stem: format!("{unix_ms:013}-bench-{}-{i:05}", 1 + i % 4),
            games: 4,
            rows: 400,
            unix_ms,
        };
        std::fs::write(dir.join(name.key()), [0u8; 64])?;
        std::fs::write(dir.join(name.records_key()), &lines)?;
    }
    let t0 = now_ms as f64 / 1000.0 - shards as f64 * 3.0;
    let mut elo = String::new();
    let mut suite = String::new();
    for c in 1..=checkpoints as u64 {
        let step = c * 100;
        tengu_store::checkpoint::publish(
            &store,
            &tengu_store::checkpoint::Publication {
                step,
                weights: &[c as u8; 1024],
                optimizer: None,
                lease: 1,
                rows_seen: step * 40,
                parent: (c > 1).then(|| layout::weights_name(step - 100)),
            },
        )?;
        let mut segment = String::new();
        for k in 0..50u64 {
            let s = step - 100 + 2 * k + 1;
            let x = s as f64;
            let record = LossRecord {
                policy_loss: Some(5.0 / (1.0 + x / 1e3)),
                heads: {
                    let mut heads = HeadLosses::default().with_step(HeadId::Value, 1.0 - x / 2e5);
                    heads.set(HeadId::Value, true, (k == 0).then_some(1.1 - x / 2e5));
                    heads
                },
                cpu_seconds: x * 6.0,
                games_seen: s * 2,
                rows_seen: s * 200,
                heldout_rows: (k == 0).then_some(100),
                ..LossRecord::at(s, t0 + x * 3.0)
            };
            segment.push_str(&format!("{}\n", to_line(&record)));
        }
        store.put(&layout::train_log_key(step - 100), segment.into_bytes())?;
        elo.push_str(&format!("{}\n", json!({"checkpoint": layout::weights_name(step), "step": step, "rating": c as f64 * 3.0})));
        elo.push_str(&format!("{}\n", json!({"checkpoint": layout::weights_name(step), "opponent": "greedy", "step": step, "games": 10, "elo": c as f64 * 2.0 - 50.0, "score": 0.5, "material_share": 0.5, "material_share_se": 0.01})));
        suite.push_str(&format!("{}\n", json!({"checkpoint": layout::weights_name(step), "step": step, "top1": 0.1 + c as f64 / 1e3, "top3": 0.2, "value_sign": 0.6, "positions": 100, "unix_time": t0})));
    }
    store.put(layout::ELO_LOG, elo.into_bytes())?;
    store.put(layout::SUITE_LOG, suite.into_bytes())?;
    store.put("cpu/worker-bench-1.txt", b"3600.0\n".to_vec())?;
    let arena_games = 100;
    for g in 0..arena_games {
        let key = format!(
            "arena/model-{:09}-vs-greedy/games/game-{:05}.record",
            // Ten games a checkpoint, the newest first; fewer checkpoints take turns.
            (checkpoints as u64 - (g as u64 / 10) % checkpoints as u64) * 100,
            g % 10
        );
        store.put(&key, records[g % records.len()].clone().into_bytes())?;
    }
    Ok(arena_games)
}
