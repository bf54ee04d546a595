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
use serde_json::Value;
use tengu_store::RunStore;

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
        let first = if first.is_finite() { first } else { tengu_store::layout::unix_ms() as f64 / 1000.0 };
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
        tracing::debug!(scalars = scalars.len(), "new scalars appended to the event file");
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


/// Every scalar of the run, each tag in step order.
pub fn run_scalars(store: &RunStore) -> Result<Vec<Scalar>> {
    let mut out = Vec::new();
    let log = tengu_trainer::log::read(store).context("reading the loss log")?;
    out.extend(train_scalars(&json_lines(&log)));
    let text = |key: &str| -> Result<String> {
        Ok(store
            .get_text(key)
            .with_context(|| format!("reading {key}"))?
            .unwrap_or_default())
    };
    out.extend(elo_scalars(&json_lines(&text("elo.jsonl")?)));
    out.extend(suite_scalars(&json_lines(&text("suite.jsonl")?)));
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

/// The lines of a JSON-lines text that parse (a line being written is skipped).
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn scalar(tag: impl Into<String>, line: &Value, value: f64) -> Option<Scalar> {
    Some(Scalar {
        tag: tag.into(),
        step: line["step"].as_i64()?,
        wall_time: line["unix_time"].as_f64().unwrap_or(0.0),
        value: value as f32,
    })
}

/// Scalars of the loss log's lines.
fn train_scalars(lines: &[Value]) -> Vec<Scalar> {
    const FIELDS: [(&str, &str); 13] = [
        ("policy_loss", "loss/policy"),
        ("value_loss", "loss/value"),
        ("ownership_loss", "loss/ownership"),
        ("material_loss", "loss/material"),
        ("heldout_policy_loss", "heldout/policy"),
        ("heldout_value_loss", "heldout/value"),
        ("heldout_ownership_loss", "heldout/ownership"),
        ("heldout_material_loss", "heldout/material"),
        ("samples_per_second", "train/samples_per_second"),
        ("learning_rate", "train/learning_rate"),
        ("window_rows", "train/window_rows"),
        ("games_seen", "run/games_seen"),
        ("rows_seen", "run/rows_seen"),
    ];
    let mut out = Vec::new();
    let mut rate_from: Option<&Value> = None;
    for line in lines {
        for (field, tag) in FIELDS {
            if let Some(v) = line[field].as_f64() {
                out.extend(scalar(tag, line, v));
            }
        }
        if let Some(cpu) = line["cpu_seconds"].as_f64() {
            out.extend(scalar("run/cpu_hours", line, cpu / 3600.0));
        }
        // Games and rows per hour over spans of at least RATE_SPAN_SECONDS.
        let time = line["unix_time"].as_f64();
        match (rate_from, time) {
            (None, Some(_)) => rate_from = Some(line),
            (Some(from), Some(t)) => {
                let span = t - from["unix_time"].as_f64().unwrap_or(t);
                if span >= RATE_SPAN_SECONDS {
                    for (field, tag) in [
                        ("games_seen", "run/games_per_hour"),
                        ("rows_seen", "run/rows_per_hour"),
                    ] {
                        if let (Some(a), Some(b)) = (from[field].as_f64(), line[field].as_f64()) {
                            out.extend(scalar(tag, line, (b - a).max(0.0) * 3600.0 / span));
                        }
                    }
                    rate_from = Some(line);
                }
            }
            _ => {}
        }
    }
    out
}

/// Scalars of `elo.jsonl`: the rating chain and the matches against baselines.
fn elo_scalars(lines: &[Value]) -> Vec<Scalar> {
    let mut out = Vec::new();
    for line in lines {
        if let Some(rating) = line["rating"].as_f64() {
            out.extend(scalar("elo/chain", line, rating));
        }
        let Some(opponent) = line["opponent"].as_str() else {
            continue;
        };
        for (field, group) in [
            ("elo", "elo"),
            ("score", "score"),
            ("material_share", "material_share"),
        ] {
            if let Some(v) = line[field].as_f64() {
                out.extend(scalar(format!("{group}/vs_{opponent}"), line, v));
            }
        }
    }
    out
}

/// Scalars of `suite.jsonl`: the tactics suite's scores, also by category.
fn suite_scalars(lines: &[Value]) -> Vec<Scalar> {
    let mut out = Vec::new();
    for line in lines {
        for field in ["top1", "top3", "value_sign"] {
            if let Some(v) = line[field].as_f64() {
                out.extend(scalar(format!("suite/{field}"), line, v));
            }
        }
        if let Some(by) = line["top1_by_category"].as_object() {
            for (category, v) in by {
                if let Some(v) = v.as_f64() {
                    out.extend(scalar(format!("suite/top1_{category}"), line, v));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_span_five_minutes_and_matches_name_their_opponent() {
        let train = json_lines(concat!(
            "{\"step\":1,\"unix_time\":1000,\"games_seen\":10,\"rows_seen\":100,\"value_loss\":1.0}\n",
            "{\"step\":2,\"unix_time\":1100,\"games_seen\":12,\"rows_seen\":150}\n",
            "{\"step\":3,\"unix_time\":1360,\"games_seen\":22,\"rows_seen\":400,\"heldout_value_loss\":1.2}\n",
            "not json\n",
        ));
        let s = train_scalars(&train);
        let get = |tag: &str| -> Vec<(i64, f32)> {
            s.iter().filter(|x| x.tag == tag).map(|x| (x.step, x.value)).collect()
        };
        assert_eq!(get("loss/value"), vec![(1, 1.0)]);
        assert_eq!(get("heldout/value"), vec![(3, 1.2)]);
        // 12 games in 360 s (from the first line): 120 an hour.
        assert_eq!(get("run/games_per_hour"), vec![(3, 120.0)]);
        assert_eq!(get("run/rows_per_hour"), vec![(3, 3000.0)]);
        let elo = json_lines(concat!(
            "{\"checkpoint\":\"m\",\"rating\":12.5,\"step\":200}\n",
            "{\"opponent\":\"alphabeta:600000:2\",\"elo\":-30,\"score\":0.45,\"step\":200,\"unix_time\":5}\n",
        ));
        let e = elo_scalars(&elo);
        let tags: Vec<&str> = e.iter().map(|x| x.tag.as_str()).collect();
        assert_eq!(
            tags,
            [
                "elo/chain",
                "elo/vs_alphabeta:600000:2",
                "score/vs_alphabeta:600000:2"
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
        assert_eq!(times, [5.0, 5.0, 5.0, 5.0]);
        let mut exported = Exported::default();
        assert_eq!(exported.new_scalars(e.clone()).len(), 3);
        assert!(exported.new_scalars(e).is_empty(), "nothing twice");
    }
}
