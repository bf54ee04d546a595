//! Training curves as a picture: `curves.svg` in the run directory, drawn from
//! `train.jsonl` (policy and value loss against training step and against hours).

use std::fmt::Write as _;
use std::path::Path;

/// One panel: a series of (x, y) points with axis labels.
struct Panel<'a> {
    title: &'a str,
    x_label: &'a str,
    points: Vec<(f64, f64)>,
}

const W: f64 = 640.0;
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

fn panel(svg: &mut String, top: f64, p: &Panel) {
    let (x0, x1) = nice_range(p.points.iter().map(|q| q.0));
    let (y0, y1) = nice_range(p.points.iter().map(|q| q.1));
    let sx = |x: f64| MARGIN + (x - x0) / (x1 - x0) * (W - 2.0 * MARGIN);
    let sy = |y: f64| top + H - MARGIN + -(y - y0) / (y1 - y0) * (H - 1.5 * MARGIN);
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="{}" font-size="14" font-family="sans-serif">{}</text>"##,
        MARGIN,
        top + 18.0,
        p.title
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{MARGIN}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>"##,
        top + MARGIN / 2.0,
        W - 2.0 * MARGIN,
        H - 1.5 * MARGIN
    );
    for (v, anchor, x, y) in [
        (y1, "end", MARGIN - 4.0, sy(y1) + 4.0),
        (y0, "end", MARGIN - 4.0, sy(y0) + 4.0),
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
        W / 2.0,
        top + H - MARGIN + 16.0,
        p.x_label
    );
    let path: Vec<String> = p
        .points
        .iter()
        .filter(|q| q.1.is_finite())
        .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
        .collect();
    let _ = writeln!(
        svg,
        r##"<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{}"/>"##,
        path.join(" ")
    );
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

/// Draws the curves of `train.jsonl` into `curves.svg` (atomically). Nothing to draw: no file.
pub fn write(run: &Path) -> std::io::Result<()> {
    let Ok(text) = std::fs::read_to_string(run.join("train.jsonl")) else {
        return Ok(());
    };
    let rows: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let t0 = rows[0]["unix_time"].as_f64().unwrap_or(0.0);
    let series = |key: &str, by_time: bool| -> Vec<(f64, f64)> {
        let pts = rows
            .iter()
            .map(|r| {
                let x = if by_time {
                    (r["unix_time"].as_f64().unwrap_or(t0) - t0) / 3600.0
                } else {
                    r["step"].as_f64().unwrap_or(0.0)
                };
                (x, r[key].as_f64().unwrap_or(f64::NAN))
            })
            .collect();
        thin(pts, 600)
    };
    let mut panels = vec![
        Panel {
            title: "policy loss",
            x_label: "training step",
            points: series("policy_loss", false),
        },
        Panel {
            title: "value loss",
            x_label: "training step",
            points: series("value_loss", false),
        },
        Panel {
            title: "policy loss",
            x_label: "hours since the first step",
            points: series("policy_loss", true),
        },
    ];
    // Ratings from the arena (`elo.jsonl`, written by `tengu run`), when there are any.
    let ratings: Vec<(f64, f64)> = std::fs::read_to_string(run.join("elo.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| Some((v["step"].as_f64()?, v["rating"].as_f64()?)))
        .collect();
    if !ratings.is_empty() {
        panels.push(Panel {
            title: "Elo relative to the first checkpoint",
            x_label: "training step",
            points: ratings,
        });
    }
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{}" viewBox="0 0 {W} {}">"##,
        H * panels.len() as f64,
        H * panels.len() as f64
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="white"/>"##);
    for (i, p) in panels.iter().enumerate() {
        panel(&mut svg, i as f64 * H, p);
    }
    svg.push_str("</svg>\n");
    let tmp = run.join(".curves.svg.tmp");
    std::fs::write(&tmp, svg)?;
    std::fs::rename(tmp, run.join("curves.svg"))
}
