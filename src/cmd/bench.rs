//! `tengu bench nn`: network throughput on this machine.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tengu_model::backend::Backend;
use tengu_model::desc::NetConfig;
use tengu_model::desc::TrainExample;
use tengu_model::{Encoder, EvalInput, Evaluator, UniformEvaluator};
use tengu_rules::{Move, Position, Variant};
use tengu_search::SearchConfig;
use tengu_selfplay::{SelfPlay, SelfplayConfig};

use crate::args::{
    BenchAgreeArgs, BenchArgs, BenchNnArgs, BenchSearchArgs, BenchTrainArgs, BenchWhat,
};
use report::{
    AgreePair, AgreeReport, BackendSeconds, BookReport, NnForward, NnPreset, NnReport, Requests,
    SearchReport, SelfplayRate, StoreReport, TeacherDepth, TeacherReport, TrainReport, TrainResult,
};

pub mod report;

pub fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchWhat::Nn(a) => nn(a),
        BenchWhat::Train(a) => train(a),
        BenchWhat::Search(a) => search(a),
        BenchWhat::Agree(a) => agree(a),
        BenchWhat::Book(a) => book(a),
        BenchWhat::Store(a) => store(a),
        BenchWhat::Serve(a) => super::serve::bench::run(a),
        BenchWhat::Play(a) => super::serve::play::bench::run(a),
        BenchWhat::Teacher(a) => teacher(a),
    }
}

/// Rows shaped like self-play's: positions of random games, a policy over up to 40 legal
/// moves, occupancy targets of the board's size.
fn synthetic_rows(
    variant: &std::sync::Arc<Variant>,
    count: usize,
    seed: u64,
) -> Vec<tengu_shard::Row> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let n = variant.size();
    let mut rows = Vec::with_capacity(count);
    let mut pos = Position::initial(variant.clone());
    let mut ply = 0u32;
    while rows.len() < count {
        let moves = pos.legal_move_list();
        if moves.is_empty() || ply >= 200 {
            pos = Position::initial(variant.clone());
            ply = 0;
            continue;
        }
        let policy: Vec<(String, f32)> = moves
            .iter()
            .take(40)
            .map(|&m| (pos.move_text(m), rng.gen::<f32>() / 40.0))
            .collect();
        rows.push(tengu_shard::Row {
            position: pos.to_string(),
            repetitions: 0,
            policy,
            result: rng.gen_range(-1..=1),
            search_value: rng.gen_range(-1.0..1.0),
            full_search: rng.gen_bool(0.25),
            game: (rows.len() / 100) as u32,
            ply,
            game_plies: 200,
            material_future: [rng.gen_range(-5.0..5.0), rng.gen_range(-9.0..9.0)],
            occupancy_future: (0..2 * n * n).map(|_| rng.gen_range(0..3)).collect(),
            teacher: None,
        });
        let m = moves[rng.gen_range(0..moves.len())];
        pos.play(m);
        ply += 1;
    }
    rows
}

/// `tengu bench store`: shards written to a run location, then ingested by a trainer's
/// window as after a restart (everything new), then an incremental poll with nothing new.
fn store(args: crate::args::BenchStoreArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    let scratch = tempfile_dir()?;
    let location = args
        .run
        .clone()
        .unwrap_or_else(|| scratch.join("run").display().to_string());
    let run = tengu_store::RunStore::open(&location)?;
    let rows = synthetic_rows(&variant, args.rows_per_shard, 1);
    let header = tengu_shard::ShardHeader {
        encoder_version: tengu_model::ENCODER_VERSION,
        game: variant.id().into(),
        model: "bench".into(),
        rows: rows.len() as u64,
        games: (rows.len() / 100).max(1) as u32,
        created_unix: 0,
        writer: "bench".into(),
    };
    let shard_bytes = tengu_shard::to_bytes(&header, &rows).len();
    let bar = crate::cmd::spinner(args.json);
    let start = std::time::Instant::now();
    let mut keys = Vec::new();
    for s in 0..args.shards {
        let name = tengu_store::layout::ShardName {
            stem: tengu_store::layout::unique_stem(s as u64),
            games: header.games,
            rows: rows.len() as u64,
            unix_ms: 0,
        };
        tengu_shard::put(&run, &name, &header, &rows)?;
        keys.push(name.key());
        bar.set_message(format!("writing shard {}/{}", s + 1, args.shards));
        bar.tick();
    }
    let write_seconds = start.elapsed().as_secs_f64();
    bar.set_message("ingesting");
    let before = run.requests();
    let mut window = tengu_trainer::window::Window::new(usize::MAX, variant.id());
    let start = std::time::Instant::now();
    window.ingest(&run)?;
    let ingest_seconds = start.elapsed().as_secs_f64();
    let ingest = run.requests();
    let start = std::time::Instant::now();
    window.ingest(&run)?;
    let poll_ms = start.elapsed().as_secs_f64() * 1e3;
    let poll = run.requests();
    bar.finish_and_clear();
    for k in &keys {
        run.delete(k)?;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let total_rows = (args.shards * rows.len()) as f64;
    let rows_per_second = total_rows / ingest_seconds.max(1e-9);
    let machines = rows_per_second * 3600.0 / args.machine_rows_per_hour;
    let report = StoreReport {
        run: location,
        game: variant.id().to_string(),
        shards: args.shards,
        rows_per_shard: rows.len(),
        shard_bytes,
        write_shards_per_second: args.shards as f64 / write_seconds.max(1e-9),
        ingest_rows_per_second: rows_per_second,
        ingest_megabytes_per_second: shard_bytes as f64 * args.shards as f64
            / 1e6
            / ingest_seconds.max(1e-9),
        ingest_requests: Requests {
            list: ingest.list - before.list,
            get: ingest.get - before.get,
        },
        empty_poll_ms: poll_ms,
        empty_poll_requests: Requests {
            list: poll.list - ingest.list,
            get: poll.get - ingest.get,
        },
        machine_rows_per_hour: args.machine_rows_per_hour,
        self_play_machines_one_trainer_can_ingest: machines,
    };
    report::print(&report, args.json, false)
}

/// A fresh temporary directory.
fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "tengu-bench-store-{}-{}",
        std::process::id(),
        tengu_store::layout::unix_ms()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// `tengu bench agree`: the checkpoint's outputs on the same positions through each backend,
/// compared with the first backend's.
fn agree(args: BenchAgreeArgs) -> Result<()> {
    if args.backends.len() < 2 {
        bail!("tengu bench agree needs at least two backends (e.g. --backends burn,tch-cuda)");
    }
    let meta = tengu_model::checkpoint::read_meta(&args.checkpoint)?;
    let Some(variant) = Variant::builtin(&meta.game) else {
        bail!(
            "{}: a checkpoint of an unknown game {:?}",
            args.checkpoint.display(),
            meta.game
        )
    };
    let positions = sample_positions(&variant, args.positions);
    let moves: Vec<Vec<Move>> = positions.iter().map(|p| p.legal_move_list()).collect();
    let batch = args.batch;
    let mut outputs = Vec::new();
    let mut seconds = Vec::new();
    for name in &args.backends {
        let backend: Backend = name.parse().map_err(anyhow::Error::msg)?;
        let (mut eval, _) = backend.load_evaluator(&args.checkpoint, &variant)?;
        let start = Instant::now();
        let mut out = Vec::with_capacity(positions.len());
        for (ps, ms) in positions.chunks(batch).zip(moves.chunks(batch)) {
            let inputs: Vec<EvalInput> = ps
                .iter()
                .zip(ms)
                .map(|(position, moves)| EvalInput {
                    position,
                    moves,
                    repetitions: 0,
                })
                .collect();
            out.extend(eval.evaluate(&inputs)?);
        }
        seconds.push(start.elapsed().as_secs_f64());
        tracing::info!(
            backend = name,
            seconds = seconds.last().unwrap(),
            "evaluated"
        );
        outputs.push(out);
    }
    let reference = &outputs[0];
    let mut pairs = Vec::new();
    let mut worst = 0.0f64;
    for (k, other) in outputs.iter().enumerate().skip(1) {
        let (mut policy, mut policy_sum, mut policy_n) = (0.0f64, 0.0f64, 0usize);
        let (mut wdl, mut material, mut value) = (0.0f64, 0.0f64, 0.0f64);
        let mut top1_same = 0usize;
        for (a, b) in reference.iter().zip(other) {
            if a.policy.len() != b.policy.len() {
                bail!(
                    "{} and {} return policies of different lengths",
                    args.backends[0],
                    args.backends[k]
                );
            }
            for (x, y) in a.policy.iter().zip(&b.policy) {
                let d = (*x as f64 - *y as f64).abs();
                policy = policy.max(d);
                policy_sum += d;
                policy_n += 1;
            }
            let argmax = |p: &[f32]| {
                p.iter()
                    .enumerate()
                    .max_by(|x, y| x.1.total_cmp(y.1))
                    .map(|(i, _)| i)
            };
            top1_same += usize::from(argmax(&a.policy) == argmax(&b.policy));
            for i in 0..3 {
                wdl = wdl.max((a.wdl[i] as f64 - b.wdl[i] as f64).abs());
            }
            material = material.max((a.material as f64 - b.material as f64).abs());
            value = value.max((a.value() as f64 - b.value() as f64).abs());
        }
        worst = worst.max(policy).max(wdl).max(material);
        pairs.push(AgreePair {
            reference: args.backends[0].clone(),
            backend: args.backends[k].clone(),
            policy_max_abs: policy,
            policy_mean_abs: policy_sum / policy_n.max(1) as f64,
            wdl_max_abs: wdl,
            value_max_abs: value,
            material_max_abs: material,
            top1_agreement: top1_same as f64 / reference.len().max(1) as f64,
        });
    }
    let timings = args
        .backends
        .iter()
        .zip(&seconds)
        .map(|(b, &s)| BackendSeconds {
            backend: b.clone(),
            seconds: s,
        })
        .collect();
    let within = args.tolerance.map(|t| worst <= t);
    let report = AgreeReport {
        checkpoint: args.checkpoint.display().to_string(),
        game: variant.id().to_string(),
        step: meta.step,
        preset: format!("b{}c{}", meta.config.blocks, meta.config.channels),
        positions: positions.len(),
        batch,
        pairs,
        max_abs: worst,
        tolerance: args.tolerance,
        within_tolerance: within,
        timings,
    };
    report::print(&report, args.json, false)?;
    if within == Some(false) {
        bail!(
            "largest difference {worst:.3e} exceeds the tolerance {:.3e}",
            args.tolerance.unwrap_or(0.0)
        );
    }
    Ok(())
}

/// Times the calls of an inner evaluator.
struct Timed<'a> {
    inner: &'a mut dyn Evaluator,
    seconds: f64,
}

impl Evaluator for Timed<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn evaluate(
        &mut self,
        batch: &[EvalInput<'_>],
    ) -> Result<Vec<tengu_model::Evaluation>, tengu_model::EvalError> {
        let t = Instant::now();
        let out = self.inner.evaluate(batch);
        self.seconds += t.elapsed().as_secs_f64();
        out
    }
}

/// Self-play for `seconds` with `eval`: (simulations/s, positions/s, share of time outside
/// the evaluator, games finished).
fn selfplay_rate(
    variant: &std::sync::Arc<Variant>,
    args: &BenchSearchArgs,
    eval: &mut dyn Evaluator,
) -> Result<SelfplayRate> {
    let search = SearchConfig {
        visits: args.visits,
        ..super::search_config(args.search_config.as_deref())?
    };
    let config = SelfplayConfig {
        games_in_flight: args.games,
        ..SelfplayConfig::default()
    };
    let mut play = SelfPlay::new(variant.clone(), search, config, 1);
    let mut timed = Timed {
        inner: eval,
        seconds: 0.0,
    };
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < args.seconds {
        play.step(&mut timed)?;
    }
    let total = start.elapsed().as_secs_f64();
    let sims = play.stats.simulations as f64 / total;
    let positions = play.stats.moves as f64 / total;
    Ok(SelfplayRate {
        evaluator: timed.name(),
        simulations_per_second: sims,
        evaluations_per_second: play.stats.evaluations as f64 / total,
        positions_per_second: positions,
        positions_per_hour: positions * 3600.0,
        share_outside_evaluator: 1.0 - timed.seconds / total,
        games_finished: play.stats.games,
        evaluator_seconds: timed
            .inner
            .profile()
            .into_iter()
            .map(|(stage, seconds)| (stage.to_string(), seconds))
            .collect(),
    })
}

fn search(args: BenchSearchArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    let backend: Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let encoder = Encoder::new(&variant);
    let config = NetConfig::from_preset(&args.preset, encoder.planes(), encoder.size())
        .context("--preset")?;
    let uniform = if args.network_only {
        None
    } else {
        let uniform = selfplay_rate(&variant, &args, &mut UniformEvaluator)?;
        tracing::info!(?uniform, "uniform evaluator");
        Some(uniform)
    };
    let mut net =
        backend.new_evaluator(&variant, &config, &format!("{backend} {}", args.preset))?;
    let network = selfplay_rate(&variant, &args, net.as_mut())?;
    tracing::info!(?network, "network");
    let report = SearchReport {
        game: variant.id().to_string(),
        games_in_flight: args.games,
        visits: args.visits,
        uniform,
        network,
    };
    report::print(&report, args.json, false)
}

/// The judge's teacher at each depth on the same positions (every 4th of random 80-ply
/// walks, skipping the first 20 plies, where nothing is in contact).
fn teacher(args: crate::args::BenchTeacherArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    // 15 of every 80 positions pass the filter below.
    let positions: Vec<Position> = sample_positions(&variant, args.positions * 80 / 15 + 80)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 80 >= 20 && i % 4 == 0)
        .map(|(_, p)| p)
        .take(args.positions)
        .collect();
    let mut rows = Vec::new();
    for &depth in &args.depths {
        let teacher = tengu_search::teacher::Teacher::new(&variant, depth, args.exchange_depth);
        let cpu = tengu_store::cpu::process_seconds();
        let start = Instant::now();
        let (mut nodes, mut moved, mut changed) = (0u64, 0.0f64, 0usize);
        for (k, pos) in positions.iter().enumerate() {
            let label = teacher.label(pos);
            nodes += label.nodes;
            let delta = (label.score - label.base).abs() as f64;
            moved += delta;
            changed += usize::from(delta > 0.5);
            tracing::debug!(
                depth,
                position = k,
                score = label.score,
                base = label.base,
                "labelled"
            );
        }
        let seconds = start.elapsed().as_secs_f64();
        let cpu_seconds = tengu_store::cpu::process_seconds() - cpu;
        let n = positions.len() as f64;
        let row = TeacherDepth {
            depth,
            positions: positions.len(),
            seconds,
            labels_per_second: n / seconds.max(1e-9),
            labels_per_cpu_hour: 3600.0 * n / cpu_seconds.max(1e-9),
            nodes_per_label: nodes as f64 / n,
            mean_abs_score_minus_base: moved / n,
            share_moved_half_a_piece: changed as f64 / n,
        };
        // Each depth's line as it finishes: the deeper ones take minutes.
        if !args.json {
            row.print_text()?;
        }
        rows.push(row);
    }
    if args.json {
        let report = TeacherReport {
            game: variant.id().to_string(),
            exchange_depth: args.exchange_depth,
            depths: rows,
        };
        report::print_json(&report)?;
    }
    Ok(())
}

/// Runs `f` repeatedly for about `seconds`; returns calls per second.
fn rate(seconds: f64, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?; // warm-up
    let start = Instant::now();
    let mut calls = 0u64;
    while calls == 0 || start.elapsed() < Duration::from_secs_f64(seconds) {
        f()?;
        calls += 1;
    }
    Ok(calls as f64 / start.elapsed().as_secs_f64())
}

/// Positions from a deterministic walk through the game, for realistic move lists.
fn sample_positions(variant: &std::sync::Arc<Variant>, count: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(count);
    let mut pos = Position::initial(variant.clone());
    let mut k = 1usize;
    let mut ply = 0;
    while out.len() < count {
        let moves = pos.legal_move_list();
        // A new game after 80 plies (or at a game's end) keeps the sample varied.
        if moves.is_empty() || ply == 80 {
            pos = Position::initial(variant.clone());
            ply = 0;
            continue;
        }
        ply += 1;
        out.push(pos.clone());
        k = k
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        pos.play(moves[(k >> 33) % moves.len()]);
    }
    out
}

fn nn(args: BenchNnArgs) -> Result<()> {
    if args.backends.iter().any(|b| b == "candle")
        && std::env::var_os("RAYON_NUM_THREADS").is_none()
    {
        // Single-core throughput: candle picks its matrix kernels' parallelism from this
        // variable (default: the physical cores). Its evaluator already runs on one thread;
        // with 1 the kernels are also blocked for one (about 1.5x faster on one core). Set
        // before any evaluator exists, while no other thread reads the environment.
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let variant = args.rules.variant(&args.game)?;
    let encoder = Encoder::new(&variant);
    // Every preset is checked before the first measurement.
    let configs = args
        .presets
        .iter()
        .map(|name| {
            NetConfig::from_preset(name, encoder.planes(), encoder.size()).context("--presets")
        })
        .collect::<Result<Vec<NetConfig>>>()?;
    let backends = args
        .backends
        .iter()
        .map(|name| name.parse::<Backend>().map_err(anyhow::Error::msg))
        .collect::<Result<Vec<Backend>>>()?;
    let max_batch = args
        .batches
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(args.train_batch);
    let positions = sample_positions(&variant, max_batch);
    let moves: Vec<Vec<Move>> = positions.iter().map(|p| p.legal_move_list()).collect();

    // Encoder cost alone.
    let mut buffer = vec![0.0f32; encoder.len()];
    let mut i = 0;
    let encode_rate = rate(args.seconds.min(1.0), || {
        encoder.encode(&positions[i % positions.len()], 0, &mut buffer);
        i += 1;
        Ok(())
    })?;

    // The practical peak of one core: a large product through the CPU kernels' matrix code.
    let peak = tengu_model::cpu_net::kernel_peak_gflops(512, args.seconds.min(1.0));
    let mut results = Vec::new();
    for (name, &backend) in args.backends.iter().zip(&backends) {
        for (preset, config) in args.presets.iter().zip(&configs) {
            let gflop = config.flops() / 1e9;
            let inference_gflop = config.inference_flops() / 1e9;
            let mut forward = Vec::new();
            for &batch in &args.batches {
                // A fresh evaluator per batch size, so its profile covers this size alone.
                let mut eval = backend.new_evaluator(&variant, config, preset)?;
                let inputs: Vec<EvalInput> = (0..batch)
                    .map(|j| EvalInput {
                        position: &positions[j],
                        moves: &moves[j],
                        repetitions: 0,
                    })
                    .collect();
                let calls = rate(args.seconds, || {
                    eval.evaluate(&inputs).map(|_| ()).map_err(Into::into)
                })?;
                let per_second = calls * batch as f64;
                tracing::info!(
                    backend = name,
                    preset,
                    batch,
                    positions_per_second = per_second,
                    "forward"
                );
                let gflops = per_second * inference_gflop;
                forward.push(NnForward {
                    batch,
                    positions_per_second: per_second,
                    gflops,
                    peak_share: gflops / peak,
                    encoder_share: per_second / encode_rate,
                    profile: report::stage_shares(&eval.profile()),
                });
            }
            let targets: Vec<Vec<f32>> = moves
                .iter()
                .map(|m| vec![1.0 / m.len() as f32; m.len()])
                .collect();
            // Every auxiliary head trains too, as in a run (occupancy: the position itself).
            let area = encoder.size() * encoder.size();
            let targets_of_rows = tengu_model::desc::RowTargets {
                wdl: [0.3, 0.4, 0.3],
                ownership: vec![1; 2 * area],
                material: [0.1, -0.2],
                teacher: Some([0.2, 0.4]),
                // The targets of heads added later: zero.
                ..tengu_model::desc::RowTargets::default()
            };
            let examples: Vec<TrainExample> = (0..args.train_batch)
                .map(|j| TrainExample {
                    position: &positions[j],
                    repetitions: 0,
                    moves: &moves[j],
                    policy: &targets[j],
                    targets: &targets_of_rows,
                })
                .collect();
            // The one Rust trainer (the CPU kernels) is measured under `burn`, the backend
            // whose own kernels it runs on.
            let samples = if args.no_train || backend != Backend::Burn {
                None
            } else {
                let mut trainer = backend.trainer(&variant, config, None, 1e-3, 1e-4)?;
                let steps = rate(args.seconds, || {
                    trainer.step(&examples).map(|_| ()).map_err(Into::into)
                })?;
                Some(steps * args.train_batch as f64)
            };
            results.push(NnPreset {
                backend: name.clone(),
                preset: preset.clone(),
                gflop_per_position: inference_gflop,
                train_gflop_per_position: gflop,
                forward,
                train_samples_per_second: samples,
                train_gflops: samples.map(|s| s * config.train_flops() / 1e9),
            });
        }
    }
    let report = NnReport {
        game: variant.id().to_string(),
        threads: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        encoder_positions_per_second: encode_rate,
        kernel_peak_gflops_one_core: peak,
        presets: results,
    };
    report::print(&report, args.json, args.profile)
}

/// `tengu bench train`: the trainer's step at the run's batch size on synthetic self-play
/// rows, decoded per step as the trainer decodes them (position, legal moves, targets),
/// each backend in turn for `rounds` rounds.
fn train(args: BenchTrainArgs) -> Result<()> {
    let variant = args.rules.variant(&args.game)?;
    let encoder = Encoder::new(&variant);
    let config = NetConfig::from_preset(&args.preset, encoder.planes(), encoder.size())
        .context("--preset")?;
    let backends = args
        .backends
        .iter()
        .map(|name| name.parse::<Backend>().map_err(anyhow::Error::msg))
        .collect::<Result<Vec<Backend>>>()?;
    for b in &backends {
        b.check_trainer()?;
    }
    let rows = synthetic_rows(&variant, 16 * args.batch.max(32), 7);
    // One network's weights for every backend, so all train the same function.
    let scratch = tempfile_dir()?;
    let start_weights = scratch.join("start.safetensors");
    let meta = tengu_model::checkpoint::CheckpointMeta {
        encoder_version: tengu_model::ENCODER_VERSION,
        game: variant.id().into(),
        config: config.clone(),
        step: 0,
        parent: None,
    };
    Backend::Burn
        .trainer(&variant, &config, None, 1e-3, 1e-4)?
        .save(&meta, &start_weights)?;
    let mut trainers = backends
        .iter()
        .map(|b| b.trainer(&variant, &config, Some(&start_weights), 1e-3, 1e-4))
        .collect::<Result<Vec<_>, _>>()?;
    let _ = std::fs::remove_dir_all(&scratch);
    let flops = config.train_flops();
    let peak = tengu_model::cpu_net::kernel_peak_gflops(512, 1.0);
    // (decode seconds, step seconds, steps) per backend and round.
    let mut rounds: Vec<Vec<(f64, f64, u64)>> = vec![Vec::new(); backends.len()];
    let mut next_row = 0usize;
    // The shipped config's value target (a third of the root value on full searches).
    let mix = tengu_trainer::config::TrainConfig::default().value_target_mix();
    let mut step_once = |trainer: &mut Box<dyn tengu_model::Trainer>| -> Result<(f64, f64)> {
        let t = Instant::now();
        let examples: Vec<tengu_trainer::window::Example> = (0..args.batch)
            .map(|_| {
                next_row = (next_row + 1) % rows.len();
                tengu_trainer::window::Example::from_row_mixed(&rows[next_row], &variant, mix, 0.0)
                    .map_err(anyhow::Error::msg)
            })
            .collect::<Result<_>>()?;
        let batch: Vec<TrainExample> = examples.iter().map(|e| e.as_train()).collect();
        let decoded = t.elapsed().as_secs_f64();
        let t = Instant::now();
        trainer.step(&batch)?;
        Ok((decoded, t.elapsed().as_secs_f64()))
    };
    for trainer in trainers.iter_mut() {
        step_once(trainer)?; // warm-up
    }
    for round in 0..args.rounds {
        for (k, trainer) in trainers.iter_mut().enumerate() {
            let start = Instant::now();
            let (mut decode, mut step, mut steps) = (0.0, 0.0, 0u64);
            while steps == 0 || start.elapsed().as_secs_f64() < args.seconds {
                let (d, s) = step_once(trainer)?;
                decode += d;
                step += s;
                steps += 1;
            }
            tracing::info!(
                backend = backends[k].name(),
                round,
                samples_per_second = (steps * args.batch as u64) as f64 / (decode + step),
                "trained"
            );
            rounds[k].push((decode, step, steps));
        }
    }
    let mut results = Vec::new();
    for (k, backend) in backends.iter().enumerate() {
        let rate = |&(d, s, n): &(f64, f64, u64)| (n * args.batch as u64) as f64 / (d + s);
        let mut order: Vec<&(f64, f64, u64)> = rounds[k].iter().collect();
        order.sort_by(|a, b| rate(a).total_cmp(&rate(b)));
        let &(decode, step, steps) = order[order.len() / 2];
        let samples = rate(&(decode, step, steps));
        let step_samples = (steps * args.batch as u64) as f64 / step;
        results.push(TrainResult {
            backend: backend.name().to_string(),
            samples_per_second: samples,
            samples_per_second_each_round: rounds[k].iter().map(rate).collect(),
            step_ms: 1e3 * step / steps as f64,
            decode_ms: 1e3 * decode / steps as f64,
            gflops: step_samples * flops / 1e9,
            peak_share: step_samples * flops / 1e9 / peak,
            profile: report::stage_shares(&trainers[k].profile()),
        });
    }
    let report = TrainReport {
        game: variant.id().to_string(),
        preset: args.preset.clone(),
        blocks: config.blocks,
        channels: config.channels,
        batch: args.batch,
        rounds: args.rounds,
        seconds_per_round: args.seconds,
        train_gflop_per_sample: flops / 1e9,
        kernel_peak_gflops_one_core: peak,
        results,
    };
    report::print(&report, args.json, args.profile)
}

/// Builds a book in memory and reports its building rate and file figures.
fn book(args: crate::args::BenchBookArgs) -> Result<()> {
    use tengu_book::{Book, BuildLimits, Builder};
    let backend: tengu_model::Backend = args.backend.parse().map_err(anyhow::Error::msg)?;
    let meta = tengu_model::checkpoint::read_meta(&args.checkpoint)?;
    let Some(variant) = tengu_rules::Variant::builtin(&meta.game) else {
        anyhow::bail!(
            "{}: unknown game {:?}",
            args.checkpoint.display(),
            meta.game
        )
    };
    let (mut eval, meta) = backend.load_evaluator(&args.checkpoint, &variant)?;
    let config = tengu_search::SearchConfig::default();
    let header = tengu_book::BookHeader::new(
        &variant,
        args.checkpoint.display().to_string(),
        meta.step,
        0,
        args.visits,
        600,
        &config,
        1,
    );
    let mut book = Book::new(variant.clone(), header);
    let start = std::time::Instant::now();
    let mut builder = Builder::new(eval.as_mut(), config);
    let mut searches = 0u64;
    tengu_book::build(
        &mut builder,
        &mut book,
        &BuildLimits {
            positions: Some(args.positions),
            ..BuildLimits::default()
        },
        &std::sync::atomic::AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_, x| searches += x.searches as u64,
    )
    .map_err(anyhow::Error::msg)?;
    let build_s = start.elapsed().as_secs_f64();
    let bytes = book.to_bytes();
    let t = std::time::Instant::now();
    let loaded = Book::from_bytes(&bytes, "bench")?;
    let load_s = t.elapsed().as_secs_f64();
    let positions = tengu_book::export::positions(&loaded);
    let t = std::time::Instant::now();
    let rounds = 20;
    let mut found = 0usize;
    for _ in 0..rounds {
        for p in &positions {
            found += loaded.moves_at(p).len();
        }
    }
    let probe_us = t.elapsed().as_secs_f64() * 1e6 / (rounds * positions.len()) as f64;
    let per_min = book.len() as f64 / (build_s / 60.0);
    let report = BookReport {
        game: variant.id().to_string(),
        game_name: variant.name().to_string(),
        checkpoint: args.checkpoint.display().to_string(),
        visits: args.visits,
        positions: book.len(),
        expansions: book.header.expansions,
        searches: searches + 1,
        build_seconds: build_s,
        positions_per_minute: per_min,
        evaluations_per_second: (searches + 1) as f64 * args.visits as f64 / build_s,
        bytes: bytes.len(),
        bytes_per_position: bytes.len() as f64 / book.len() as f64,
        load_seconds: load_s,
        probe_microseconds: probe_us,
        book_moves_probed: found / rounds,
    };
    report::print(&report, args.json, false)
}
