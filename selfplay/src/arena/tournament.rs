//! Tournaments: round-robin (every pair) or gauntlet (the first player against each other),
//! a maximum-likelihood rating fit, a rating table as text and JSON, and a picture.

use std::fmt::Write as _;
use std::path::Path;

use super::elo::Score;
use super::matches::{self, MatchOptions};
use super::pairs::Pentanomial;
use super::players::Player;

/// The result of one pairing, from `a`'s view.
#[derive(Clone, Debug)]
pub struct Pairing {
    pub a: usize,
    pub b: usize,
    pub score: Score,
    /// Game-pair statistics of the pairing's match (see [`super::pairs`]).
    pub pairs: Pentanomial,
}

/// Ratings in Elo, the first player fixed at 0, fitted by maximum likelihood to all games
/// (a draw counts as half a win for each side). Every pairing also gets one virtual draw,
/// so a 10-0 result gives a large but finite difference (as BayesElo's prior does).
pub fn fit_ratings(players: usize, pairings: &[Pairing]) -> Vec<f64> {
    let mut r = vec![0.0f64; players];
    // Gradient ascent on the log-likelihood in natural units (Elo = 400 / ln 10 * r).
    let scale = 400.0 / std::f64::consts::LN_10;
    let games: Vec<(usize, usize, f64, f64)> = pairings
        .iter()
        .map(|p| {
            let n = p.score.games() as f64 + 1.0;
            let points = p.score.wins as f64 + 0.5 * p.score.draws as f64 + 0.5;
            (p.a, p.b, n, points)
        })
        .collect();
    // Coordinate-wise Newton steps (each one-dimensional problem is concave), player 0
    // held at 0: moving the anchor as well made gauntlets, where every pairing involves
    // it, oscillate and diverge. Steps are capped so a far start cannot overshoot.
    for _ in 0..20_000 {
        let mut change: f64 = 0.0;
        for i in 1..players {
            let (mut grad, mut hess) = (0.0f64, 1e-9f64);
            for &(a, b, n, points) in &games {
                let sign = if a == i {
                    1.0
                } else if b == i {
                    -1.0
                } else {
                    continue;
                };
                let expected_a = 1.0 / (1.0 + (r[b] - r[a]).exp());
                grad += sign * (points - n * expected_a);
                hess += n * expected_a * (1.0 - expected_a);
            }
            let step = (grad / hess).clamp(-2.0, 2.0);
            r[i] += step;
            change = change.max(step.abs());
        }
        if change < 1e-12 {
            break;
        }
    }
    r.into_iter().map(|x| x * scale).collect()
}

/// A finished tournament.
#[derive(Clone, Debug)]
pub struct Standings {
    pub names: Vec<String>,
    pub pairings: Vec<Pairing>,
    pub ratings: Vec<f64>,
}

impl Standings {
    /// Rows (name, rating, games, score) best first.
    pub fn table(&self) -> Vec<(String, f64, u64, f64)> {
        let mut rows: Vec<(String, f64, u64, f64)> = (0..self.names.len())
            .map(|i| {
                let (mut games, mut points) = (0u64, 0.0f64);
                for p in &self.pairings {
                    let s = p.score;
                    if p.a == i {
                        games += s.games();
                        points += s.wins as f64 + 0.5 * s.draws as f64;
                    } else if p.b == i {
                        games += s.games();
                        points += s.losses as f64 + 0.5 * s.draws as f64;
                    }
                }
                (
                    self.names[i].clone(),
                    self.ratings[i],
                    games,
                    if games > 0 {
                        points / games as f64
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        rows
    }

    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{:<4} {:<40} {:>8} {:>6} {:>7}\n",
            "rank", "player", "Elo", "games", "score"
        );
        for (i, (name, elo, games, score)) in self.table().into_iter().enumerate() {
            let _ = writeln!(
                out,
                "{:<4} {:<40} {:>+8.1} {:>6} {:>6.1}%",
                i + 1,
                name,
                elo,
                games,
                100.0 * score
            );
        }
        out
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "players": self.table().into_iter().map(|(name, elo, games, score)| serde_json::json!({"player": name, "elo": elo, "games": games, "score": score})).collect::<Vec<_>>(),
            "pairings": self.pairings.iter().map(|p| {
                let mut row = serde_json::json!({"a": self.names[p.a], "b": self.names[p.b], "wins": p.score.wins, "draws": p.score.draws, "losses": p.score.losses});
                row.as_object_mut().expect("an object").extend(p.pairs.to_json());
                row
            }).collect::<Vec<_>>(),
        })
    }

    /// A horizontal bar chart of the ratings (SVG).
    pub fn to_svg(&self) -> String {
        let rows = self.table();
        let (lo, hi) = rows
            .iter()
            .fold((0.0f64, 0.0f64), |(lo, hi), r| (lo.min(r.1), hi.max(r.1)));
        let span = (hi - lo).max(1.0);
        let (w, row_h, left) = (720.0, 26.0, 300.0);
        let x = |e: f64| left + (e - lo) / span * (w - left - 60.0);
        let mut svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="white"/>"##,
            h = row_h * (rows.len() as f64 + 1.0)
        );
        for (i, (name, elo, _, _)) in rows.iter().enumerate() {
            let y = row_h * (i as f64 + 0.5);
            let (x0, x1) = (x(0.0).min(x(*elo)), x(0.0).max(x(*elo)));
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" font-size="12" text-anchor="end" font-family="sans-serif">{}</text><rect x="{x0:.1}" y="{}" width="{:.1}" height="{}" fill="#1f77b4"/><text x="{:.1}" y="{}" font-size="11" font-family="sans-serif">{elo:+.0}</text>"##,
                left - 8.0,
                y + 12.0,
                escape(name),
                y + 2.0,
                (x1 - x0).max(1.0),
                row_h - 8.0,
                x1 + 4.0,
                y + 12.0
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// The training step in a checkpoint player's name (`model-000001200.safetensors ...`).
fn step_of(name: &str) -> Option<f64> {
    let rest = &name[name.find("model-")? + 6..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

impl Standings {
    /// When every player is a checkpoint: Elo against training step (SVG line chart).
    pub fn to_svg_by_step(&self) -> Option<String> {
        let mut points: Vec<(f64, f64)> = self
            .names
            .iter()
            .zip(&self.ratings)
            .map(|(n, &r)| Some((step_of(n)?, r)))
            .collect::<Option<_>>()?;
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (w, h, m) = (640.0, 320.0, 50.0);
        let (x0, x1) = (points[0].0, points.last()?.0.max(points[0].0 + 1.0));
        let (y0, y1) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.1), hi.max(p.1))
            });
        let (y0, y1) = if y1 - y0 < 1.0 {
            (y0 - 1.0, y1 + 1.0)
        } else {
            (y0, y1)
        };
        let sx = |x: f64| m + (x - x0) / (x1 - x0) * (w - 2.0 * m);
        let sy = |y: f64| h - m - (y - y0) / (y1 - y0) * (h - 2.0 * m);
        let path: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        Some(format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="white"/><text x="{m}" y="20" font-size="14" font-family="sans-serif">Elo by training step</text><text x="{}" y="{}" font-size="11" text-anchor="middle" font-family="sans-serif">training step ({x0:.0} .. {x1:.0})</text><text x="8" y="{}" font-size="11" font-family="sans-serif">{y1:+.0}</text><text x="8" y="{}" font-size="11" font-family="sans-serif">{y0:+.0}</text><polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{}"/></svg>
"##,
            w / 2.0,
            h - 15.0,
            sy(y1) + 4.0,
            sy(y0) + 4.0,
            path.join(" ")
        ))
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Plays every pairing (round-robin, or player 0 against each other player with
/// `gauntlet`), each as a match of `options` whose results and records go to
/// `out/<a>-vs-<b>/` (so a rerun continues), then fits the ratings and, with `out`, writes
/// `standings.txt`, `standings.json` and `ratings.svg`.
pub fn run(
    players: &mut [Box<dyn Player>],
    options: &MatchOptions,
    gauntlet: bool,
    on_pairing: &mut dyn FnMut(&str, &str, &Score),
) -> Result<Standings, String> {
    let names: Vec<String> = players.iter().map(|p| p.name()).collect();
    let mut pairings = Vec::new();
    let n = players.len();
    for a in 0..n {
        for b in a + 1..n {
            if gauntlet && a != 0 {
                continue;
            }
            let out = options.out.as_ref().map(|d| d.join(format!("{a}-vs-{b}")));
            let opts = MatchOptions {
                variant: options.variant.clone(),
                games: options.games,
                opening_plies: options.opening_plies,
                openings: options.openings.clone(),
                max_plies: options.max_plies,
                material_ratio: options.material_ratio,
                seed: options.seed,
                out,
                sprt: None,
            };
            let (left, right) = players.split_at_mut(b);
            let summary = matches::run(left[a].as_mut(), right[0].as_mut(), &opts, &mut |_, _| {})?;
            on_pairing(&names[a], &names[b], &summary.score);
            pairings.push(Pairing {
                a,
                b,
                score: summary.score,
                pairs: summary.pairs(),
            });
        }
    }
    let ratings = fit_ratings(n, &pairings);
    let standings = Standings {
        names,
        pairings,
        ratings,
    };
    if let Some(dir) = &options.out {
        write(dir, "standings.txt", &standings.to_text())?;
        write(dir, "standings.json", &format!("{}\n", standings.to_json()))?;
        write(dir, "ratings.svg", &standings.to_svg())?;
        if let Some(svg) = standings.to_svg_by_step() {
            write(dir, "ratings-by-step.svg", &svg)?;
        }
    }
    Ok(standings)
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.join(name).display()))
}
