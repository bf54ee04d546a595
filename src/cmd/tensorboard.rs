//! `tengu tensorboard`: a run's scalars as a TensorBoard event file, once or following the
//! run, so `tensorboard --logdir runs/` shows tengu's runs beside a user's other experiments.
//!
//! Sources, all read-only: the loss log (`train/*.jsonl`: training and held-out losses,
//! samples/s, learning rate, games and rows seen, CPU-hours, and games and rows per hour
//! between lines at least five minutes apart), `elo.jsonl` (the rating chain and each
//! match against a baseline: Elo, score, material share) and `suite.jsonl` (top-1, top-3,
//! value sign). Every scalar's step is the training step it belongs to.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tengu_run::records::{EloRecord, SuiteRecord};
use tengu_store::RunStore;
use tengu_trainer::records::LossRecord;

use crate::args::TensorboardArgs;
use crate::output::outln;
use crate::tensorboard::{self as events, Scalar};

/// The event file's name: fixed, so that a second export rewrites it instead of adding a
/// file whose events TensorBoard would show twice.
pub const EVENT_FILE: &str = "events.out.tfevents.0000000000.tengu";

/// Seconds between two loss-log lines over which games and rows per hour are measured.
const RATE_SPAN_SECONDS: f64 = 300.0;

pub fn run(args: TensorboardArgs) -> Result<()> {
    let store = RunStore::open(&args.run).with_context(|| format!("--run {}", args.run))?;
    if !store.exists(tengu_store::layout::CONFIG)? {
        bail!(
            "{} is not a run: it has no {} (start one with tengu run or tengu train --config)",
            store.display(),
            tengu_store::layout::CONFIG
        );
    }
    let logdir = match (&args.logdir, store.local_dir()) {
        (Some(dir), _) => dir.clone(),
        (None, Some(run_dir)) => run_dir.join(LOGDIR),
        (None, None) => bail!(
            "{} is not a local directory: name where the event file goes with --logdir DIR",
            store.display()
        ),
    };
    let mut export = Export::start(&store, &logdir)?;
    outln!(
        "{} scalars of {} in {} (tensorboard --logdir {})",
        export.written,
        store.display(),
        export.path.display(),
        logdir.display()
    )?;
    let Some(every) = args.follow else {
        return Ok(());
    };
    let stop = super::selfplay::stop_flag()?;
    let mut last_look = std::time::Instant::now();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        if last_look.elapsed().as_secs_f64() < every {
            continue;
        }
        last_look = std::time::Instant::now();
        // A run briefly unreadable (a store hiccup) is retried at the next look.
        if let Err(e) = export.update(&store) {
            tracing::warn!(error = %format!("{e:#}"), "updating the event file failed; trying again");
        }
    }
    Ok(())
}

/// The event file's folder inside a run directory (`tengu run` keeps it up to date there,
/// so `tensorboard --logdir runs/` shows every local run).
pub const LOGDIR: &str = "tensorboard";

/// A run's event file being kept up to date.
pub struct Export {
    pub path: PathBuf,
    exported: Exported,
    /// Scalars written so far.
    pub written: usize,
}

impl Export {
    /// Writes the event file of every scalar the run has now into `logdir` (created),
    /// replacing an earlier export's.
    pub fn start(store: &RunStore, logdir: &Path) -> Result<Export> {
        let mut exported = Exported::default();
        let scalars = exported.new_scalars(run_scalars(store)?);
        std::fs::create_dir_all(logdir)
            .with_context(|| format!("creating the log directory {}", logdir.display()))?;
        let path = logdir.join(EVENT_FILE);
        // The version record takes the run's first time, not the export's, so that
        // exporting the same run twice writes the same bytes.
        let first = scalars
            .iter()
            .map(|s| s.wall_time)
            .filter(|&t| t > 0.0)
            .fold(f64::INFINITY, f64::min);
        let first = if first.is_finite() {
            first
        } else {
            tengu_store::layout::unix_ms() as f64 / 1000.0
        };
        // Through a temporary name: a reader never sees half a file.
        tengu_store::atomic::write_atomic(&path, &events::file_bytes(first, &scalars))
            .with_context(|| format!("writing {}", path.display()))?;
        tracing::info!(file = %path.display(), scalars = scalars.len(), "TensorBoard event file written");
        Ok(Export {
            path,
            exported,
            written: scalars.len(),
        })
    }

    /// Appends the run's scalars that are new since the last look; returns how many.
    pub fn update(&mut self, store: &RunStore) -> Result<usize> {
        let scalars = self.exported.new_scalars(run_scalars(store)?);
        if scalars.is_empty() {
            return Ok(0);
        }
        let mut tail = Vec::new();
        events::append_scalars(&mut tail, &scalars);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(&tail).and_then(|()| f.flush()))
            .with_context(|| format!("appending to {}", self.path.display()))?;
        self.written += scalars.len();
        tracing::debug!(
            scalars = scalars.len(),
            "new scalars appended to the event file"
        );
        Ok(scalars.len())
    }
}

/// What has been written: the highest step of each tag (a tag's events go out in step
/// order, so TensorBoard never takes one for a restart and drops what it showed).
#[derive(Default)]
struct Exported {
    last_step: HashMap<String, i64>,
}

impl Exported {
    /// The scalars of `all` past their tag's last written step, marked written.
    fn new_scalars(&mut self, all: Vec<Scalar>) -> Vec<Scalar> {
        let mut out = Vec::new();
        for s in all {
            let last = self.last_step.get(&s.tag).copied().unwrap_or(i64::MIN);
            if s.step > last {
                self.last_step.insert(s.tag.clone(), s.step);
                out.push(s);
            }
        }
        out
    }
}

/// Every scalar of the run, each tag in step order. The records are read through their
/// types (`tengu_trainer::records`, `tengu_run::records`): a damaged or unknown line stops
/// the export, naming its file and line.
pub fn run_scalars(store: &RunStore) -> Result<Vec<Scalar>> {
    use tengu_store::layout;
    use tengu_trainer::records::read_store;
    let mut out = Vec::new();
    let log = tengu_trainer::log::read_records(store).context("reading the loss log")?;
    out.extend(train_scalars(&log));
    out.extend(elo_scalars(&read_store(store, layout::ELO_LOG)?));
    out.extend(suite_scalars(&read_store(store, layout::SUITE_LOG)?));
    fill_wall_times(&mut out);
    // Stable: each tag keeps its sources' order, which is step order.
    out.sort_by(|a, b| a.tag.cmp(&b.tag).then(a.step.cmp(&b.step)));
    Ok(out)
}

/// Gives a scalar whose line has no time (the rating chain's first line, step 0) the
/// earliest time of another scalar of its step, else the run's earliest: with 0 TensorBoard
/// dates it 1970 and its relative axis spans 57 years.
fn fill_wall_times(scalars: &mut [Scalar]) {
    let mut at_step: HashMap<i64, f64> = HashMap::new();
    let mut earliest = f64::INFINITY;
    for s in scalars.iter().filter(|s| s.wall_time > 0.0) {
        let t = at_step.entry(s.step).or_insert(s.wall_time);
        *t = t.min(s.wall_time);
        earliest = earliest.min(s.wall_time);
    }
    if !earliest.is_finite() {
        return;
    }
    for s in scalars.iter_mut().filter(|s| s.wall_time <= 0.0) {
        s.wall_time = at_step.get(&s.step).copied().unwrap_or(earliest);
    }
}

fn scalar(tag: impl Into<String>, step: u64, wall_time: f64, value: f64) -> Scalar {
    Scalar {
        tag: tag.into(),
        step: step as i64,
        wall_time,
        value: value as f32,
    }
}

/// Scalars of the loss log's lines.
fn train_scalars(lines: &[LossRecord]) -> Vec<Scalar> {
    type Field = Box<dyn Fn(&LossRecord) -> Option<f64>>;
    let mut fields: Vec<(Field, String)> = vec![
        (Box::new(|r| r.policy_loss), "loss/policy".into()),
        (Box::new(|r| r.heldout_policy_loss), "heldout/policy".into()),
    ];
    // Every head of the network (tengu_model::desc::HEADS), on the step's batch and held out.
    for head in tengu_model::desc::HEADS {
        let (id, name) = (head.id, head.loss_name);
        fields.push((Box::new(move |r| r.heads.step(id)), format!("loss/{name}")));
        fields.push((
            Box::new(move |r| r.heads.heldout(id)),
            format!("heldout/{name}"),
        ));
    }
    fields.extend([
        (
            Box::new(|r: &LossRecord| Some(r.samples_per_second)) as Field,
            "train/samples_per_second".to_string(),
        ),
        (
            Box::new(|r: &LossRecord| Some(r.learning_rate)),
            "train/learning_rate".into(),
        ),
        (
            Box::new(|r: &LossRecord| Some(r.window_rows as f64)),
            "train/window_rows".into(),
        ),
        (
            Box::new(|r: &LossRecord| Some(r.games_seen as f64)),
            "run/games_seen".into(),
        ),
        (
            Box::new(|r: &LossRecord| Some(r.rows_seen as f64)),
            "run/rows_seen".into(),
        ),
    ]);
    let mut out = Vec::new();
    let mut rate_from: Option<&LossRecord> = None;
    for line in lines {
        let at = |tag: &str, v: f64| scalar(tag, line.step, line.unix_time, v);
        for (field, tag) in &fields {
            if let Some(v) = field(line) {
                out.push(at(tag, v));
            }
        }
        out.push(at("run/cpu_hours", line.cpu_seconds / 3600.0));
        // Games and rows per hour over spans of at least RATE_SPAN_SECONDS.
        match rate_from {
            None => rate_from = Some(line),
            Some(from) => {
                let span = line.unix_time - from.unix_time;
                if span >= RATE_SPAN_SECONDS {
                    for (tag, a, b) in [
                        ("run/games_per_hour", from.games_seen, line.games_seen),
                        ("run/rows_per_hour", from.rows_seen, line.rows_seen),
                    ] {
                        let gained = (b as f64 - a as f64).max(0.0);
                        out.push(at(tag, gained * 3600.0 / span));
                    }
                    rate_from = Some(line);
                }
            }
        }
    }
    out
}

/// Scalars of `elo.jsonl`: the rating chain and the matches against baselines.
fn elo_scalars(lines: &[EloRecord]) -> Vec<Scalar> {
    let mut out = Vec::new();
    for line in lines {
        let at = |tag: String, v: f64| scalar(tag, line.step, line.unix_time.unwrap_or(0.0), v);
        if let Some(rating) = line.rating {
            out.push(at("elo/chain".into(), rating));
        }
        let (Some(opponent), Some(outcome)) = (&line.opponent, &line.outcome) else {
            continue;
        };
        for (value, group) in [
            (outcome.elo, "elo"),
            (Some(outcome.score), "score"),
            (Some(outcome.material_share), "material_share"),
        ] {
            if let Some(v) = value {
                out.push(at(format!("{group}/vs_{opponent}"), v));
            }
        }
    }
    out
}

/// Scalars of `suite.jsonl`: the tactics suite's scores, also by category.
fn suite_scalars(lines: &[SuiteRecord]) -> Vec<Scalar> {
    let mut out = Vec::new();
    for line in lines {
        let at = |tag: String, v: f64| scalar(tag, line.step, line.unix_time, v);
        for (field, v) in [
            ("top1", line.top1),
            ("top3", line.top3),
            ("value_sign", line.value_sign),
        ] {
            out.push(at(format!("suite/{field}"), v));
        }
        for (category, &v) in &line.top1_by_category {
            out.push(at(format!("suite/top1_{category}"), v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_span_five_minutes_and_matches_name_their_opponent() {
        use tengu_trainer::records::read_lines;
        let line = |step: u64, time: f64, games: u64, rows: u64, extra: &str| {
            format!(
                "{{\"step\":{step},\"unix_time\":{time},\"games_seen\":{games},\"rows_seen\":{rows},\"policy_loss\":null,\"policy_target_rows\":0,\"value_loss\":null,\"ownership_loss\":null,\"material_loss\":null,\"learning_rate\":0.001,\"samples_per_second\":1.0,\"window_rows\":0,\"cpu_seconds\":0.0{extra}}}\n"
            )
        };
        let text = line(1, 1000.0, 10, 100, "")
            .replace("\"value_loss\":null", "\"value_loss\":1.0")
            + &line(2, 1100.0, 12, 150, "")
            + &line(
                3,
                1360.0,
                22,
                400,
                ",\"heldout_value_loss\":1.2,\"heldout_rows\":5",
            );
        let train: Vec<LossRecord> = read_lines("train/x.jsonl", &text).unwrap();
        let s = train_scalars(&train);
        let get = |tag: &str| -> Vec<(i64, f32)> {
            s.iter()
                .filter(|x| x.tag == tag)
                .map(|x| (x.step, x.value))
                .collect()
        };
        assert_eq!(get("loss/value"), vec![(1, 1.0)]);
        assert_eq!(get("heldout/value"), vec![(3, 1.2)]);
        // 12 games in 360 s (from the first line): 120 an hour.
        assert_eq!(get("run/games_per_hour"), vec![(3, 120.0)]);
        assert_eq!(get("run/rows_per_hour"), vec![(3, 3000.0)]);
        let elo: Vec<EloRecord> = read_lines(
            "elo.jsonl",
            concat!(
                "{\"checkpoint\":\"m\",\"rating\":12.5,\"step\":200}\n",
                "{\"checkpoint\":\"m\",\"opponent\":\"alphabeta:600000:2\",\"games\":10,\"elo\":-30,\"score\":0.45,\"material_share\":0.48,\"material_share_se\":0.01,\"step\":200,\"unix_time\":5}\n",
            ),
        )
        .unwrap();
        let e = elo_scalars(&elo);
        let tags: Vec<&str> = e.iter().map(|x| x.tag.as_str()).collect();
        assert_eq!(
            tags,
            [
                "elo/chain",
                "elo/vs_alphabeta:600000:2",
                "score/vs_alphabeta:600000:2",
                "material_share/vs_alphabeta:600000:2"
            ]
        );
        // The chain's line has no time: it takes its step's (else the run's earliest).
        let mut timed = e.clone();
        timed.push(Scalar {
            tag: "elo/chain".into(),
            step: 0,
            wall_time: 0.0,
            value: 0.0,
        });
        fill_wall_times(&mut timed);
        let times: Vec<f64> = timed.iter().map(|s| s.wall_time).collect();
        assert_eq!(times, [5.0, 5.0, 5.0, 5.0, 5.0]);
        let mut exported = Exported::default();
        assert_eq!(exported.new_scalars(e.clone()).len(), 4);
        assert!(exported.new_scalars(e).is_empty(), "nothing twice");
    }
}
