//! The compute ladder: a run's checkpoints nearest to given CPU-hours (rungs), each rated
//! against a fixed set of opponents whose strength does not depend on the machine
//! (`greedy`, alpha-beta at a fixed depth with time to complete it) and against the rung
//! before it, so that "does more compute buy more strength" has one answer everywhere.
//!
//! This module holds what is pure: choosing rungs from a run's checkpoints and the report
//! (JSON, text and SVG). The ratings are the tournament's (maximum likelihood over every
//! game of the ladder, the first fixed opponent at 0, 95% intervals from the likelihood's
//! curvature); playing the matches and reading the run are the command's job.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::outcome::MatchOutcome;
use crate::tournament::escape;

/// A published checkpoint and the compute spent on the run when it was published.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckpointAt {
    pub step: u64,
    /// CPU-hours of self-play and training (the run's CPU ledger) at publication.
    pub cpu_hours: f64,
}

/// One rung: the checkpoint chosen for a target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rung {
    /// The CPU-hours asked for.
    pub target_hours: f64,
    pub step: u64,
    /// The CPU-hours at the checkpoint's publication.
    pub cpu_hours: f64,
}

/// Chooses, for each target (CPU-hours, any order), the checkpoint whose CPU-hours are
/// nearest on a log scale, provided they are within a factor `tolerance` (>= 1) of the
/// target; a target no checkpoint comes that close to (the run has not got there yet) has
/// no rung. A checkpoint serves at most one rung (the smaller target keeps it). Rungs come
/// out in increasing CPU-hours. A target of 0 is the untrained start: the checkpoint at 0
/// CPU-hours (a run's step 0), if given.
pub fn select_rungs(checkpoints: &[CheckpointAt], targets: &[f64], tolerance: f64) -> Vec<Rung> {
    let given = targets;
    let mut targets: Vec<f64> = targets
        .iter()
        .copied()
        .filter(|t| t.is_finite() && *t > 0.0)
        .collect();
    targets.sort_by(f64::total_cmp);
    targets.dedup();
    let limit = tolerance.max(1.0).ln();
    let mut rungs: Vec<Rung> = Vec::new();
    let start = checkpoints
        .iter()
        .filter(|c| c.cpu_hours == 0.0)
        .min_by_key(|c| c.step);
    if let (true, Some(c)) = (given.contains(&0.0), start) {
        rungs.push(Rung {
            target_hours: 0.0,
            step: c.step,
            cpu_hours: 0.0,
        });
    }
    for target in targets {
        let best = checkpoints
            .iter()
            .filter(|c| c.cpu_hours > 0.0 && c.cpu_hours.is_finite())
            .filter(|c| !rungs.iter().any(|r| r.step == c.step))
            .map(|c| ((c.cpu_hours / target).ln().abs(), c))
            .filter(|(distance, _)| *distance <= limit + 1e-12)
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.step.cmp(&b.1.step)));
        if let Some((_, c)) = best {
            rungs.push(Rung {
                target_hours: target,
                step: c.step,
                cpu_hours: c.cpu_hours,
            });
        }
    }
    rungs.sort_by(|a, b| a.cpu_hours.total_cmp(&b.cpu_hours));
    rungs
}

/// One rung's match against one opponent, from the rung's view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RungMatch {
    pub opponent: String,
    #[serde(flatten)]
    pub outcome: MatchOutcome,
    /// Games that reached the ply cap.
    pub capped: u64,
}

/// One rung of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RungReport {
    #[serde(flatten)]
    pub rung: Rung,
    pub checkpoint: String,
    /// Self-play games the trainer had seen at the checkpoint.
    pub games_seen: Option<u64>,
    /// Training and held-out value loss at the checkpoint's step (the trainer's log).
    pub value_loss: Option<f64>,
    pub heldout_value_loss: Option<f64>,
    /// Rating on the ladder's scale (the first fixed opponent = 0) and its 95% interval.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    pub matches: Vec<RungMatch>,
}

/// Version of `ladder.json` ([`LadderReport::version`]); readers skip other versions.
pub const LADDER_REPORT_VERSION: u32 = 1;

/// The whole ladder, as `ladder.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderReport {
    /// [`LADDER_REPORT_VERSION`] when written.
    pub version: u32,
    pub run: String,
    pub game: String,
    pub opponents: Vec<String>,
    /// Ratings of the fixed opponents on the same scale (the first is 0).
    pub opponent_elo: Vec<f64>,
    pub games_per_match: u64,
    pub visits: u32,
    pub max_plies: u32,
    pub material_ratio: Option<f32>,
    /// The players' contempt (`tengu match --contempt`); 0 in reports written before it.
    #[serde(default)]
    pub contempt: f32,
    /// `random:<plies>:<seed>` or `file:<hash>:<count>` (see `matches::starts_id`).
    pub openings: String,
    pub rungs: Vec<RungReport>,
}

impl LadderReport {
    /// A plain table, one line per rung and opponent.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:>8} {:>7} {:>8} {:>22}  {:<28} {:>10} {:>6} {:>7}",
            "CPU-h", "step", "Elo", "95% interval", "opponent", "+/=/-", "score", "share"
        );
        for r in &self.rungs {
            for (k, m) in r.matches.iter().enumerate() {
                let head = if k == 0 {
                    format!(
                        "{:>8.2} {:>7} {:>+8.0} {:>22}",
                        r.rung.cpu_hours,
                        r.rung.step,
                        r.elo,
                        format!("{:+.0} .. {:+.0}", r.elo_low, r.elo_high)
                    )
                } else {
                    format!("{:>8} {:>7} {:>8} {:>22}", "", "", "", "")
                };
                let _ = writeln!(
                    out,
                    "{head}  {:<28} {:>10} {:>6.3} {:>7.3}",
                    m.opponent,
                    m.outcome.counts_text(),
                    m.outcome.score,
                    m.outcome.material_share
                );
                if !m.outcome.endings.is_empty() {
                    let ended: Vec<String> =
                        m.outcome.endings.iter().map(|e| e.to_string()).collect();
                    let _ = writeln!(out, "{:>48}  ended: {}", "", ended.join("; "));
                }
            }
            let loss = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
            let _ = writeln!(
                out,
                "{:>8} {:>7} value loss: training {}, held-out {}; {} games seen",
                "",
                "",
                loss(r.value_loss),
                loss(r.heldout_value_loss),
                r.games_seen.map_or("-".to_string(), |g| g.to_string())
            );
        }
        out
    }

    /// Elo against CPU-hours (log scale) with the intervals as bars, the fixed opponents as
    /// dashed lines.
    pub fn to_svg(&self) -> String {
        let (w, h, left, right, top, bottom) = (640.0, 360.0, 60.0, 150.0, 36.0, 44.0);
        let mut svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="white"/><text x="{left}" y="20" font-size="14" font-family="sans-serif">{} ladder: Elo against CPU-hours ({} = 0)</text>"##,
            escape(&self.game),
            escape(
                self.opponents
                    .first()
                    .map_or("the first rung", |o| o.as_str())
            )
        );
        let xs: Vec<f64> = self
            .rungs
            .iter()
            .map(|r| r.rung.cpu_hours.max(1e-3))
            .collect();
        let (mut x0, mut x1) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        if !x0.is_finite() {
            (x0, x1) = (0.25, 4.0);
        }
        let (x0, x1) = ((x0 / 1.5).log2(), (x1 * 1.5).log2());
        let ys = self
            .rungs
            .iter()
            .flat_map(|r| [r.elo_low, r.elo_high, r.elo])
            .chain(self.opponent_elo.iter().copied())
            .filter(|y| y.is_finite());
        let (y0, y1) = ys.fold((0.0f64, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let (y0, y1) = (y0 - 25.0, y1 + 25.0);
        let sx = |x: f64| left + (x.max(1e-3).log2() - x0) / (x1 - x0) * (w - left - right);
        let sy = |y: f64| top + (y1 - y) / (y1 - y0) * (h - top - bottom);
        let _ = write!(
            svg,
            r##"<rect x="{left}" y="{top}" width="{}" height="{}" fill="none" stroke="#999"/>"##,
            w - left - right,
            h - top - bottom
        );
        // Elo every 100 (every 50 on a narrow scale) as gridlines with labels; a wider range
        // (a damaged report's Elo of 1e15) takes a coarser step: at most 40 lines.
        let mut step = if y1 - y0 > 300.0 { 100.0 } else { 50.0 };
        while (y1 - y0) / step > 40.0 {
            step *= 10.0;
        }
        // (+ 0.0 turns the -0 that ceil gives for a small negative start into 0.)
        let mut elo = (y0 / step).ceil() * step + 0.0;
        while elo <= y1 {
            let _ = write!(
                svg,
                r##"<line x1="{left}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="11" text-anchor="end" font-family="sans-serif">{elo:+.0}</text>"##,
                w - right,
                left - 4.0,
                sy(elo) + 4.0,
                y = sy(elo)
            );
            elo += step;
        }
        // Doublings of CPU-hours as ticks.
        // (At most 64: a damaged report's 1e308 CPU-hours would double forever.)
        let mut tick = 2f64.powi(x0.ceil() as i32);
        let mut ticks = 0;
        while tick.log2() <= x1 && ticks < 64 {
            ticks += 1;
            let _ = write!(
                svg,
                r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" font-size="11" text-anchor="middle" font-family="sans-serif">{tick}</text>"##,
                top,
                h - bottom,
                h - bottom + 14.0,
                x = sx(tick)
            );
            tick *= 2.0;
        }
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" font-family="sans-serif">CPU-hours (log scale)</text>"##,
            left + (w - left - right) / 2.0,
            h - 8.0
        );
        for (name, &elo) in self.opponents.iter().zip(&self.opponent_elo) {
            let _ = write!(
                svg,
                r##"<line x1="{left}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#888" stroke-dasharray="4 3"/><text x="{}" y="{:.1}" font-size="11" font-family="sans-serif">{} {elo:+.0}</text>"##,
                w - right,
                w - right + 4.0,
                sy(elo) + 4.0,
                escape(name),
                y = sy(elo)
            );
        }
        let points: Vec<String> = self
            .rungs
            .iter()
            .map(|r| format!("{:.1},{:.1}", sx(r.rung.cpu_hours), sy(r.elo)))
            .collect();
        let _ = write!(
            svg,
            r##"<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{}"/>"##,
            points.join(" ")
        );
        for r in &self.rungs {
            let x = sx(r.rung.cpu_hours);
            let _ = write!(
                svg,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#1f77b4"/><circle cx="{x:.1}" cy="{:.1}" r="3.5" fill="#1f77b4"><title>{:.2} CPU-h, step {}: {:+.0} ({:+.0} .. {:+.0})</title></circle>"##,
                sy(r.elo_low),
                sy(r.elo_high),
                sy(r.elo),
                r.rung.cpu_hours,
                r.rung.step,
                r.elo,
                r.elo_low,
                r.elo_high
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(step: u64, cpu_hours: f64) -> CheckpointAt {
        CheckpointAt { step, cpu_hours }
    }

    #[test]
    fn rungs_are_the_checkpoints_nearest_to_each_target_on_a_log_scale() {
        // A hand-made ledger: a checkpoint every 0.2 CPU-hours up to 2.2.
        let ledger: Vec<CheckpointAt> = (0..=11).map(|k| at(200 * k, 0.2 * k as f64)).collect();
        let rungs = select_rungs(&ledger, &[4.0, 1.0, 0.25, 2.0, 0.5], 1.25);
        let chosen: Vec<(f64, u64)> = rungs.iter().map(|r| (r.target_hours, r.step)).collect();
        // 0.25 -> 0.2 (ratio 1.25); 0.5 -> 0.4 or 0.6: 0.6 is nearer in log (1.2 < 1.25);
        // 1 -> 1.0; 2 -> 2.0; 4: nothing within a factor 1.25.
        assert_eq!(
            chosen,
            vec![(0.25, 200), (0.5, 600), (1.0, 1000), (2.0, 2000)]
        );
        // Step 0 (no compute) never serves a rung; a checkpoint serves one rung only.
        let rungs = select_rungs(&[at(0, 0.0), at(5, 1.0)], &[1.0, 1.1], 1.25);
        assert_eq!(rungs.len(), 1);
        assert_eq!(rungs[0].step, 5);
        assert!(select_rungs(&ledger, &[8.0], 1.25).is_empty());
    }
}
