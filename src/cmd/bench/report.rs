//! What each `tengu bench` measurement reports: one typed value per command, printed as a
//! table or serialised as one JSON object (`--json`), so the text and the JSON cannot
//! disagree and nothing reads the JSON back by key. Field names are the JSON keys users and
//! scripts read; renaming one changes the command's output.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use crate::output::outln;

/// A bench result: serialised for `--json`, a table otherwise.
pub trait Report: Serialize {
    /// Writes the table to stdout; `profile` adds the per-stage lines where there are any.
    fn print_text(&self, profile: bool) -> std::io::Result<()>;
}

/// Prints `report` as one JSON line (`json`) or as its table.
pub fn print(report: &impl Report, json: bool, profile: bool) -> Result<()> {
    if json {
        print_json(report)
    } else {
        Ok(report.print_text(profile)?)
    }
}

/// Prints `report` as one JSON line.
pub fn print_json(report: &impl Serialize) -> Result<()> {
    outln!("{}", serde_json::to_string(report)?)?;
    Ok(())
}

/// A stage's share (0 to 1) of the time a backend measured itself spending.
#[derive(Debug, Clone, Serialize)]
pub struct StageShare {
    pub stage: String,
    pub share: f64,
}

/// The shares of `stages`, (name, seconds) as `Evaluator::profile` and `Trainer::profile`
/// return them.
pub fn stage_shares(stages: &[(&str, f64)]) -> Vec<StageShare> {
    let total: f64 = stages.iter().map(|(_, s)| s).sum();
    stages
        .iter()
        .map(|(stage, s)| StageShare {
            stage: stage.to_string(),
            share: s / total.max(1e-12),
        })
        .collect()
}

fn print_stages(stages: &[StageShare]) -> std::io::Result<()> {
    for s in stages {
        outln!("    {:<24} {:>5.1}%", s.stage, 100.0 * s.share)?;
    }
    Ok(())
}

/// `tengu bench nn`: inference (and training) throughput per backend and preset.
#[derive(Debug, Serialize)]
pub struct NnReport {
    pub game: String,
    /// Threads this machine offers.
    pub threads: usize,
    pub encoder_positions_per_second: f64,
    /// GFLOP/s of a 512^3 matrix product through the CPU kernels on one core.
    pub kernel_peak_gflops_one_core: f64,
    pub presets: Vec<NnPreset>,
}

/// One backend and preset of `tengu bench nn`.
#[derive(Debug, Serialize)]
pub struct NnPreset {
    pub backend: String,
    pub preset: String,
    /// GFLOP (multiply-adds x 2) a position needs for inference.
    pub gflop_per_position: f64,
    /// GFLOP a position needs for the forward pass of training (every head).
    pub train_gflop_per_position: f64,
    /// One row per batch size, in the order asked for.
    pub forward: Vec<NnForward>,
    /// Training samples a second (`null` where the backend does not train here).
    pub train_samples_per_second: Option<f64>,
    pub train_gflops: Option<f64>,
}

/// Inference at one batch size.
#[derive(Debug, Serialize)]
pub struct NnForward {
    pub batch: usize,
    pub positions_per_second: f64,
    pub gflops: f64,
    /// `gflops` over the kernel peak of one core.
    pub peak_share: f64,
    /// Positions a second over the encoder's alone.
    pub encoder_share: f64,
    pub profile: Vec<StageShare>,
}

impl Report for NnReport {
    fn print_text(&self, profile: bool) -> std::io::Result<()> {
        outln!(
            "game {}, encoder {:.0} positions/s, matrix kernel peak {:.1} GFLOP/s on one core (512^3 product)",
            self.game,
            self.encoder_positions_per_second,
            self.kernel_peak_gflops_one_core
        )?;
        outln!("GFLOP/p: multiply-adds x 2 a position needs for inference (tower and the heads search reads)")?;
        outln!(
            "{:<13} {:<8} {:>8} {:>6} {:>12} {:>9} {:>6} {:>9}",
            "backend",
            "preset",
            "GFLOP/p",
            "batch",
            "positions/s",
            "GFLOP/s",
            "peak%",
            "encoder%"
        )?;
        for r in &self.presets {
            for f in &r.forward {
                outln!(
                    "{:<13} {:<8} {:>8.3} {:>6} {:>12.1} {:>9.2} {:>5.1}% {:>8.2}%",
                    r.backend,
                    r.preset,
                    r.gflop_per_position,
                    f.batch,
                    f.positions_per_second,
                    f.gflops,
                    100.0 * f.peak_share,
                    100.0 * f.encoder_share
                )?;
                if profile {
                    print_stages(&f.profile)?;
                }
            }
            let (Some(samples), Some(gflops)) = (r.train_samples_per_second, r.train_gflops) else {
                continue;
            };
            outln!(
                "{:<13} {:<8} training: {:.1} samples/s ({:.2} GFLOP/s)",
                r.backend,
                r.preset,
                samples,
                gflops
            )?;
        }
        Ok(())
    }
}

/// `tengu bench train`: the trainer's step per backend, the median of the rounds.
#[derive(Debug, Serialize)]
pub struct TrainReport {
    pub game: String,
    pub preset: String,
    pub blocks: usize,
    pub channels: usize,
    /// Rows per step.
    pub batch: usize,
    pub rounds: usize,
    pub seconds_per_round: f64,
    /// GFLOP a sample costs, forward and backward.
    pub train_gflop_per_sample: f64,
    pub kernel_peak_gflops_one_core: f64,
    pub results: Vec<TrainResult>,
}

/// One backend of `tengu bench train`.
#[derive(Debug, Serialize)]
pub struct TrainResult {
    pub backend: String,
    /// The median round's samples a second, decoding included.
    pub samples_per_second: f64,
    pub samples_per_second_each_round: Vec<f64>,
    /// Milliseconds of the median round's average step, decoding excluded.
    pub step_ms: f64,
    /// Milliseconds decoding a step's rows.
    pub decode_ms: f64,
    pub gflops: f64,
    pub peak_share: f64,
    pub profile: Vec<StageShare>,
}

impl Report for TrainReport {
    fn print_text(&self, profile: bool) -> std::io::Result<()> {
        outln!(
            "{} {} (b{}c{}), batch {}: {:.4} GFLOP a sample (forward + backward); matrix kernel peak {:.1} GFLOP/s on one core; median of {} rounds of {} s",
            self.game,
            self.preset,
            self.blocks,
            self.channels,
            self.batch,
            self.train_gflop_per_sample,
            self.kernel_peak_gflops_one_core,
            self.rounds,
            self.seconds_per_round
        )?;
        outln!(
            "{:<13} {:>10} {:>9} {:>10} {:>9} {:>6}",
            "backend",
            "samples/s",
            "step ms",
            "decode ms",
            "GFLOP/s",
            "peak%"
        )?;
        for r in &self.results {
            outln!(
                "{:<13} {:>10.1} {:>9.1} {:>10.2} {:>9.2} {:>5.1}%",
                r.backend,
                r.samples_per_second,
                r.step_ms,
                r.decode_ms,
                r.gflops,
                100.0 * r.peak_share
            )?;
            if profile {
                print_stages(&r.profile)?;
            }
        }
        Ok(())
    }
}

/// `tengu bench search`: self-play rates with a uniform evaluator (tree work alone) and with
/// a network.
#[derive(Debug, Serialize)]
pub struct SearchReport {
    pub game: String,
    pub games_in_flight: usize,
    pub visits: u32,
    /// `null` with `--network-only`.
    pub uniform: Option<SelfplayRate>,
    pub network: SelfplayRate,
}

/// Self-play with one evaluator for a fixed time.
#[derive(Debug, Serialize)]
pub struct SelfplayRate {
    pub evaluator: String,
    pub simulations_per_second: f64,
    pub evaluations_per_second: f64,
    pub positions_per_second: f64,
    pub positions_per_hour: f64,
    /// Share (0 to 1) of the wall time spent outside the evaluator.
    pub share_outside_evaluator: f64,
    pub games_finished: u64,
    /// Seconds per stage inside the evaluator, for those that measure it (tch: encode,
    /// device, softmax).
    pub evaluator_seconds: BTreeMap<String, f64>,
}

impl Report for SearchReport {
    fn print_text(&self, _profile: bool) -> std::io::Result<()> {
        outln!(
            "game {}, {} games in flight, {} visits per full search",
            self.game,
            self.games_in_flight,
            self.visits
        )?;
        for r in self.uniform.iter().chain([&self.network]) {
            outln!(
                "{:<16} {:>10.0} simulations/s {:>8.1} positions/s ({:>9.0}/hour), {:>5.1}% of time outside the evaluator",
                r.evaluator,
                r.simulations_per_second,
                r.positions_per_second,
                r.positions_per_hour,
                100.0 * r.share_outside_evaluator
            )?;
        }
        Ok(())
    }
}

/// `tengu bench agree`: each backend's outputs against the first's on the same positions.
#[derive(Debug, Serialize)]
pub struct AgreeReport {
    pub checkpoint: String,
    pub game: String,
    pub step: u64,
    /// `b<blocks>c<channels>`.
    pub preset: String,
    pub positions: usize,
    pub batch: usize,
    pub pairs: Vec<AgreePair>,
    /// The largest policy, WDL or material difference of any pair.
    pub max_abs: f64,
    pub tolerance: Option<f64>,
    /// `null` without a tolerance.
    pub within_tolerance: Option<bool>,
    pub timings: Vec<BackendSeconds>,
}

/// One backend against the reference: largest (and mean) absolute differences.
#[derive(Debug, Serialize)]
pub struct AgreePair {
    pub reference: String,
    pub backend: String,
    pub policy_max_abs: f64,
    pub policy_mean_abs: f64,
    pub wdl_max_abs: f64,
    pub value_max_abs: f64,
    pub material_max_abs: f64,
    /// Share (0 to 1) of positions where both pick the same most likely move.
    pub top1_agreement: f64,
}

/// Seconds a backend took for all positions.
#[derive(Debug, Serialize)]
pub struct BackendSeconds {
    pub backend: String,
    pub seconds: f64,
}

impl Report for AgreeReport {
    fn print_text(&self, _profile: bool) -> std::io::Result<()> {
        outln!(
            "{} ({}, step {}), {} positions in batches of {}",
            self.checkpoint,
            self.game,
            self.step,
            self.positions,
            self.batch
        )?;
        outln!(
            "{:<13} {:<13} {:>10} {:>10} {:>10} {:>10} {:>6}",
            "reference",
            "backend",
            "policy",
            "wdl",
            "value",
            "material",
            "top1"
        )?;
        for p in &self.pairs {
            outln!(
                "{:<13} {:<13} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>5.1}%",
                p.reference,
                p.backend,
                p.policy_max_abs,
                p.wdl_max_abs,
                p.value_max_abs,
                p.material_max_abs,
                100.0 * p.top1_agreement
            )?;
        }
        Ok(())
    }
}

/// `tengu bench store`: shard writes, a trainer window's ingest and an empty poll.
#[derive(Debug, Serialize)]
pub struct StoreReport {
    /// The run location written to.
    pub run: String,
    pub game: String,
    pub shards: usize,
    pub rows_per_shard: usize,
    pub shard_bytes: usize,
    pub write_shards_per_second: f64,
    pub ingest_rows_per_second: f64,
    pub ingest_megabytes_per_second: f64,
    pub ingest_requests: Requests,
    pub empty_poll_ms: f64,
    pub empty_poll_requests: Requests,
    pub machine_rows_per_hour: f64,
    pub self_play_machines_one_trainer_can_ingest: f64,
}

/// Requests made to the store.
#[derive(Debug, Serialize)]
pub struct Requests {
    pub list: u64,
    pub get: u64,
}

impl Report for StoreReport {
    fn print_text(&self, _profile: bool) -> std::io::Result<()> {
        outln!(
            "store {}: {} shards of {} rows ({:.1} kB each)",
            self.run,
            self.shards,
            self.rows_per_shard,
            self.shard_bytes as f64 / 1e3
        )?;
        outln!(
            "write: {:.1} shards/s; ingest (list, get, checksum, decode): {:.0} rows/s, {:.1} MB/s, {} list + {} get requests",
            self.write_shards_per_second,
            self.ingest_rows_per_second,
            self.ingest_megabytes_per_second,
            self.ingest_requests.list,
            self.ingest_requests.get
        )?;
        outln!(
            "incremental poll with nothing new: {:.1} ms, {} list request(s), {} get",
            self.empty_poll_ms,
            self.empty_poll_requests.list,
            self.empty_poll_requests.get
        )?;
        outln!(
            "one trainer ingests the rows of {:.0} self-play machines at {:.0} rows/hour each",
            self.self_play_machines_one_trainer_can_ingest,
            self.machine_rows_per_hour
        )?;
        Ok(())
    }
}

/// `tengu bench teacher`: the judge's teacher at each depth on the same positions.
#[derive(Debug, Serialize)]
pub struct TeacherReport {
    pub game: String,
    pub exchange_depth: u32,
    pub depths: Vec<TeacherDepth>,
}

/// The teacher at one depth.
#[derive(Debug, Serialize)]
pub struct TeacherDepth {
    pub depth: u32,
    pub positions: usize,
    pub seconds: f64,
    pub labels_per_second: f64,
    pub labels_per_cpu_hour: f64,
    pub nodes_per_label: f64,
    /// Mean |score - leaf count| in piece units.
    pub mean_abs_score_minus_base: f64,
    /// Share (0 to 1) of positions whose score moved by more than half a piece.
    pub share_moved_half_a_piece: f64,
}

impl TeacherDepth {
    /// The depth's line of the table (printed as each depth finishes).
    pub fn print_text(&self) -> std::io::Result<()> {
        outln!(
            "depth {}: {:.1} labels/s, {:.0} labels a CPU-hour, {:.0} nodes a label; |score - leaf count| {:.2} piece units on average, {:.0}% of positions moved by more than half a piece",
            self.depth,
            self.labels_per_second,
            self.labels_per_cpu_hour,
            self.nodes_per_label,
            self.mean_abs_score_minus_base,
            100.0 * self.share_moved_half_a_piece,
        )
    }
}

/// `tengu bench book`: building a book in memory, its file and its probes.
#[derive(Debug, Serialize)]
pub struct BookReport {
    pub game: String,
    /// The game's display name, for the text line.
    #[serde(skip)]
    pub game_name: String,
    pub checkpoint: String,
    pub visits: u32,
    pub positions: usize,
    pub expansions: u64,
    pub searches: u64,
    pub build_seconds: f64,
    pub positions_per_minute: f64,
    pub evaluations_per_second: f64,
    pub bytes: usize,
    pub bytes_per_position: f64,
    pub load_seconds: f64,
    pub probe_microseconds: f64,
    /// Book moves found probing every position once.
    pub book_moves_probed: usize,
}

impl Report for BookReport {
    fn print_text(&self, _profile: bool) -> std::io::Result<()> {
        outln!(
            "{} book, {} visits per search: {} positions in {:.1} s = {:.0} positions/min \
             ({:.0} evaluations/s); {} bytes ({:.0} B/position); load {:.1} ms; probe {:.1} us",
            self.game_name,
            self.visits,
            self.positions,
            self.build_seconds,
            self.positions_per_minute,
            self.evaluations_per_second,
            self.bytes,
            self.bytes_per_position,
            self.load_seconds * 1e3,
            self.probe_microseconds
        )
    }
}
