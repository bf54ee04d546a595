//! Training curves as a picture: `curves.svg` in the run directory, drawn from
//! `train.jsonl`, `elo.jsonl` and `suite.jsonl`: a grid with a row per quantity (policy,
//! value, ownership, material and judge losses, train in blue and held-out in orange; Elo relative
//! to the first checkpoint; Elo against greedy; tactics-suite top-1; the compute ladder's
//! ratings, `ladder/ladder.json`) and a column per x axis
//! (training step, hours since the first step, self-play games finished, CPU hours of
//! self-play and training), so runs of different settings compare at equal compute.

use std::fmt::Write as _;
use tengu_store::{layout, RunStore};

use crate::records::{read_store_ladder, EloRecord, SuiteRecord};
use tengu_trainer::records::{read_store, LossRecord, ReadError};

/// One panel: one or two series of (x, y) points with axis labels.
struct Panel<'a> {
    title: &'a str,
    x_label: &'a str,
    points: Vec<(f64, f64)>,
    /// Drawn in orange beside `points` (held-out losses), if any.
    second: Vec<(f64, f64)>,
}

/// Size of one panel in pixels.
const W: f64 = 420.0;
const H: f64 = 220.0;
const MARGIN: f64 = 48.0;

fn nice_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-9 {
        return (lo - 0.5, hi + 0.5);
    }
    (lo, hi)
}

fn panel(svg: &mut String, left: f64, top: f64, p: &Panel) {
    let all = || p.points.iter().chain(&p.second);
    let (x0, x1) = nice_range(all().map(|q| q.0));
    let (y0, y1) = nice_range(all().map(|q| q.1));
    let sx = |x: f64| left + MARGIN + (x - x0) / (x1 - x0) * (W - 2.0 * MARGIN);
    let sy = |y: f64| top + H - MARGIN + -(y - y0) / (y1 - y0) * (H - 1.5 * MARGIN);
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="{}" font-size="14" font-family="sans-serif">{}</text>"##,
        left + MARGIN,
        top + 18.0,
        p.title
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>"##,
        left + MARGIN,
        top + MARGIN / 2.0,
        W - 2.0 * MARGIN,
        H - 1.5 * MARGIN
    );
    for (v, anchor, x, y) in [
        (y1, "end", left + MARGIN - 4.0, sy(y1) + 4.0),
        (y0, "end", left + MARGIN - 4.0, sy(y0) + 4.0),
        (x0, "start", sx(x0), top + H - MARGIN + 16.0),
        (x1, "end", sx(x1), top + H - MARGIN + 16.0),
    ] {
        let _ = writeln!(
            svg,
            r##"<text x="{x:.1}" y="{y:.1}" font-size="11" text-anchor="{anchor}" font-family="sans-serif">{v:.3}</text>"##
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" font-family="sans-serif">{}</text>"##,
        left + W / 2.0,
        top + H - MARGIN + 16.0,
        p.x_label
    );
    for (points, colour) in [(&p.points, "#1f77b4"), (&p.second, "#ff7f0e")] {
        let path: Vec<String> = points
            .iter()
            .filter(|q| q.1.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        if path.is_empty() {
            continue;
        }
        let _ = writeln!(
            svg,
            r##"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"##,
            path.join(" ")
        );
    }
}

/// Keeps at most `n` evenly spaced points.
fn thin(points: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
    if points.len() <= n {
        return points;
    }
    let stride = points.len() as f64 / n as f64;
    (0..n)
        .map(|i| points[(i as f64 * stride) as usize])
        .chain(points.last().copied())
        .collect()
}

/// Where the run stood at a training step: (step, hours since the first step, games, CPU
/// hours).
type Point = [f64; 4];

/// Draws the curves of the loss log (`train/`), `elo.jsonl`, `suite.jsonl` and the compute
/// ladder into `curves.svg` of the run. Nothing to draw: no file. The records are read
/// through their types ([`crate::records`], `tengu_trainer::records`): a damaged loss log
/// is an error naming its file and line; a refused ratings, suite or ladder file is left
/// out with a warning that names it.
pub fn write(run: &RunStore) -> Result<(), ReadError> {
    let rows: Vec<LossRecord> = tengu_trainer::log::read_records(run)?;
    if rows.is_empty() {
        return Ok(());
    }
    let t0 = rows[0].unix_time;
    let at = |r: &LossRecord| -> Point {
        [
            r.step as f64,
            (r.unix_time - t0) / 3600.0,
            r.games_seen as f64,
            r.cpu_seconds / 3600.0,
        ]
    };
    let losses = |loss: &dyn Fn(&LossRecord) -> Option<f64>| -> Vec<(Point, f64)> {
        rows.iter()
            .map(|r| (at(r), loss(r).unwrap_or(f64::NAN)))
            .collect()
    };
    // Ratings (written by `tengu run`'s arena) placed where their checkpoint was published;
    // step 0 is the run's start.
    let by_step: std::collections::HashMap<u64, Point> =
        rows.iter().map(|r| (r.step, at(r))).collect();
    let start: Point = [0.0, 0.0, rows[0].games_seen as f64, 0.0];
    let place = |step: u64| -> Option<Point> {
        if step == 0 {
            Some(start)
        } else {
            by_step.get(&step).copied()
        }
    };
    fn or_warn<T>(what: Result<T, ReadError>, empty: T) -> T {
        what.unwrap_or_else(|e| {
            tracing::warn!("{e}: not drawn");
            empty
        })
    }
    let elo: Vec<EloRecord> = or_warn(read_store(run, layout::ELO_LOG), Vec::new());
    let ratings: Vec<(Point, f64)> = elo
        .iter()
        .filter_map(|v| Some((place(v.step)?, v.rating?)))
        .collect();
    let vs_greedy: Vec<(Point, f64)> = elo
        .iter()
        .filter(|v| v.opponent.as_deref() == Some("greedy"))
        .filter_map(|v| Some((place(v.step)?, v.outcome.as_ref()?.elo?)))
        .collect();
    let suite: Vec<(Point, f64)> = or_warn(
        read_store::<SuiteRecord>(run, layout::SUITE_LOG),
        Vec::new(),
    )
    .iter()
    .filter_map(|v| Some((place(v.step)?, v.top1)))
    .collect();
    // The compute ladder (`tengu ladder`): each rung's rating on the ladder's scale.
    let ladder: Vec<(Point, f64)> = or_warn(read_store_ladder(run), None)
        .map(|report| report.rungs)
        .unwrap_or_default()
        .iter()
        .filter_map(|r| Some((place(r.rung.step)?, r.elo)))
        .collect();
    // A loss with its missing values left out, so a quantity no line has (an old log) gets
    // no row.
    let finite = |loss: &dyn Fn(&LossRecord) -> Option<f64>| -> Vec<(Point, f64)> {
        losses(loss)
            .into_iter()
            .filter(|(_, y)| y.is_finite())
            .collect()
    };

    let mut quantities: Vec<(String, Vec<(Point, f64)>, Vec<(Point, f64)>)> = vec![(
        "policy loss (orange: held-out)".into(),
        losses(&|r| r.policy_loss),
        finite(&|r| r.heldout_policy_loss),
    )];
    // One row per head of the network (tengu_model::desc::HEADS; the judge's is `residual`).
    for head in tengu_model::desc::HEADS {
        quantities.push((
            format!("{} loss (orange: held-out)", head.loss_name),
            finite(&|r| r.heads.step(head.id)),
            finite(&|r| r.heads.heldout(head.id)),
        ));
    }
    let quantities: Vec<(String, Vec<(Point, f64)>, Vec<(Point, f64)>)> = quantities
        .into_iter()
        .chain([
            (
                "Elo relative to the first checkpoint".into(),
                ratings,
                Vec::new(),
            ),
            ("Elo against greedy".into(), vs_greedy, Vec::new()),
            ("tactics suite: policy top-1".into(), suite, Vec::new()),
            (
                "compute ladder: Elo (greedy = 0)".into(),
                ladder,
                Vec::new(),
            ),
        ])
        .filter(|(_, series, _)| !series.is_empty())
        .collect();
    let axes = [
        "training step",
        "hours since the first step",
        "self-play games",
        "CPU hours (self-play + training)",
    ];
    let mut svg = String::new();
    let (width, height) = (W * axes.len() as f64, H * quantities.len() as f64);
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"##
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="white"/>"##);
    for (row, (title, series, second)) in quantities.iter().enumerate() {
        for (column, x_label) in axes.iter().enumerate() {
            let column_of = |s: &Vec<(Point, f64)>| -> Vec<(f64, f64)> {
                s.iter()
                    .map(|(p, y)| (p[column], *y))
                    .filter(|(x, _)| x.is_finite())
                    .collect()
            };
            let points = column_of(series);
            if points.is_empty() {
                continue;
            }
            let p = Panel {
                title,
                x_label,
                points: thin(points, 600),
                second: thin(column_of(second), 600),
            };
            panel(&mut svg, column as f64 * W, row as f64 * H, &p);
        }
    }
    svg.push_str("</svg>\n");
    Ok(run.put(layout::CURVES, svg.into_bytes())?)
}
