//! Tournaments: round-robin (every pair) or gauntlet (the first player against each other),
//! a maximum-likelihood rating fit with each rating's 95% interval, a rating table as text and
//! JSON, and a picture.

use std::fmt::Write as _;
use std::path::Path;

use tengu_search::players::Player;

use crate::elo::Score;
use crate::matches::{self, MatchError, MatchOptions, MatchSummary};
use crate::outcome::MatchOutcome;
use crate::pairs::Pentanomial;

/// The result of one pairing, from `a`'s view.
#[derive(Clone, Debug)]
pub struct Pairing {
    pub a: usize,
    pub b: usize,
    /// `a`'s results, Elo, material share and how the games ended.
    pub outcome: MatchOutcome,
    /// Game-pair statistics of the pairing's match (see [`crate::pairs`]).
    pub pairs: Pentanomial,
}

impl Pairing {
    /// The pairing of players `a` and `b` from their finished match (`a` is its A).
    pub fn from_match(a: usize, b: usize, summary: &MatchSummary) -> Pairing {
        Pairing {
            a,
            b,
            outcome: MatchOutcome::new(summary),
            pairs: summary.pairs(),
        }
    }

    /// A pairing known by its wins, draws and losses alone (no games to measure the
    /// material share, the endings or the pairs on).
    pub fn of_score(a: usize, b: usize, score: Score) -> Pairing {
        let summary = MatchSummary {
            score,
            results: Vec::new(),
            sprt: None,
        };
        Pairing::from_match(a, b, &summary)
    }

    /// `a`'s wins, draws and losses (a pairing's outcome comes from a match, whose counts
    /// are known).
    pub fn score(&self) -> Score {
        self.outcome.counts.unwrap_or_default()
    }
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
            let score = p.score();
            let n = score.games() as f64 + 1.0;
            let points = score.wins as f64 + 0.5 * score.draws as f64 + 0.5;
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

/// Half-widths (Elo) of the 95% intervals of the ratings of [`fit_ratings`]: 1.96 standard
/// errors from the inverse of the log-likelihood's curvature (the observed Fisher
/// information) at the fit, in the same model (one virtual draw per pairing), player 0 held
/// at 0 (its half-width is 0: the other ratings are differences from it). NaN for a player
/// no pairing connects to player 0.
pub fn rating_half_widths(players: usize, pairings: &[Pairing]) -> Vec<f64> {
    let scale = 400.0 / std::f64::consts::LN_10;
    let r: Vec<f64> = fit_ratings(players, pairings)
        .into_iter()
        .map(|e| e / scale)
        .collect();
    // The players the pairings connect to player 0, in order (a disconnected one would
    // make the information matrix singular).
    let mut connected = vec![false; players];
    if players > 0 {
        connected[0] = true;
    }
    while let Some(p) = pairings
        .iter()
        .find(|p| p.a < players && p.b < players && connected[p.a] != connected[p.b])
    {
        connected[p.a] = true;
        connected[p.b] = true;
    }
    let free: Vec<usize> = (1..players).filter(|&i| connected[i]).collect();
    let slot = |player: usize| free.iter().position(|&i| i == player);
    // The information matrix over the connected players but player 0, in natural units.
    let mut info = vec![vec![0.0f64; free.len()]; free.len()];
    for p in pairings.iter().filter(|p| p.a != p.b) {
        let n = p.score().games() as f64 + 1.0;
        let e = 1.0 / (1.0 + (r[p.b] - r[p.a]).exp());
        let w = n * e * (1.0 - e);
        for (i, j, sign) in [
            (p.a, p.a, 1.0),
            (p.b, p.b, 1.0),
            (p.a, p.b, -1.0),
            (p.b, p.a, -1.0),
        ] {
            if let (Some(i), Some(j)) = (slot(i), slot(j)) {
                info[i][j] += sign * w;
            }
        }
    }
    let mut half = vec![f64::NAN; players];
    if players > 0 {
        half[0] = 0.0;
    }
    if let Some(cov) = invert(info) {
        for (k, &i) in free.iter().enumerate() {
            if cov[k][k].is_finite() && cov[k][k] > 0.0 {
                half[i] = 1.96 * cov[k][k].sqrt() * scale;
            }
        }
    }
    half
}

/// Gauss-Jordan inverse with partial pivoting; None when singular (a player that no
/// pairing connects to player 0).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for j in 0..n {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in (0..n).filter(|&row| row != col) {
            let f = a[row][col];
            if f != 0.0 {
                for j in 0..n {
                    a[row][j] -= f * a[col][j];
                    inv[row][j] -= f * inv[col][j];
                }
            }
        }
    }
    Some(inv)
}

/// Names that tell the players apart: a name several players share gets `#k`, the
/// player's place among them (`greedy#1`, `greedy#2`).
pub fn distinct_names(names: Vec<String>) -> Vec<String> {
    let count = |name: &String| names.iter().filter(|n| *n == name).count();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            if count(name) > 1 {
                let k = names[..i].iter().filter(|n| *n == name).count() + 1;
                format!("{name}#{k}")
            } else {
                name.clone()
            }
        })
        .collect()
}

/// A finished tournament.
#[derive(Clone, Debug)]
pub struct Standings {
    pub names: Vec<String>,
    pub pairings: Vec<Pairing>,
    pub ratings: Vec<f64>,
}

/// One player's line of the rating table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    /// Rating (Elo), the first player at 0.
    pub elo: f64,
    /// Half-width of the rating's 95% interval ([`rating_half_widths`]): 0 for the first
    /// player, NaN when unknown.
    pub half_width: f64,
    pub games: u64,
    /// Mean score in [0, 1].
    pub score: f64,
}

impl Row {
    /// The rating's 95% interval, `(low, high)`.
    pub fn interval(&self) -> (f64, f64) {
        (self.elo - self.half_width, self.elo + self.half_width)
    }
}

impl Standings {
    /// Rows best first.
    pub fn table(&self) -> Vec<Row> {
        let half = rating_half_widths(self.names.len(), &self.pairings);
        let mut rows: Vec<Row> = (0..self.names.len())
            .map(|i| {
                let (mut games, mut points) = (0u64, 0.0f64);
                for p in &self.pairings {
                    let s = p.score();
                    if p.a == i {
                        games += s.games();
                        points += s.wins as f64 + 0.5 * s.draws as f64;
                    } else if p.b == i {
                        games += s.games();
                        points += s.losses as f64 + 0.5 * s.draws as f64;
                    }
                }
                Row {
                    name: self.names[i].clone(),
                    elo: self.ratings[i],
                    half_width: half.get(i).copied().unwrap_or(f64::NAN),
                    games,
                    score: if games > 0 {
                        points / games as f64
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        rows
    }

    /// The table: rank, player, rating with its 95% interval, games, score. The first
    /// player is the origin of the ratings (`anchor`).
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{:<4} {:<40} {:>8} {:>18} {:>6} {:>7}\n",
            "rank", "player", "Elo", "95% interval", "games", "score"
        );
        for (i, row) in self.table().into_iter().enumerate() {
            let (low, high) = row.interval();
            let interval = if row.half_width == 0.0 {
                "anchor".to_string()
            } else if row.half_width.is_finite() {
                format!("{low:+.1} .. {high:+.1}")
            } else {
                "unknown".to_string()
            };
            let _ = writeln!(
                out,
                "{:<4} {:<40} {:>+8.1} {:>18} {:>6} {:>6.1}%",
                i + 1,
                row.name,
                row.elo,
                interval,
                row.games,
                100.0 * row.score
            );
        }
        self.write_pairings(&mut out);
        out
    }

    /// Each pairing's line under the table: the result from the first named player's view,
    /// its material share at the games' ends and how the games ended, so a score of draws
    /// says whether they were repetitions or games stopped at the cap.
    fn write_pairings(&self, out: &mut String) {
        if self.pairings.iter().all(|p| p.outcome.endings.is_empty()) {
            return;
        }
        let _ = writeln!(out, "\nhow the games ended (first player's results):");
        for p in &self.pairings {
            let o = &p.outcome;
            let ended: Vec<String> = o.endings.iter().map(|e| e.to_string()).collect();
            let _ = writeln!(
                out,
                "  {} vs {}: {}, material share {:.3}; {}",
                self.names[p.a],
                self.names[p.b],
                o.counts_text(),
                o.material_share,
                ended.join("; ")
            );
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        // NaN (an unknown interval) is null.
        let number = |x: f64| x.is_finite().then_some(x);
        serde_json::json!({
            "players": self.table().into_iter().map(|row| {
                let (low, high) = row.interval();
                serde_json::json!({"player": row.name, "elo": row.elo, "elo_low": number(low), "elo_high": number(high), "games": row.games, "score": row.score})
            }).collect::<Vec<_>>(),
            "pairings": self.pairings.iter().map(|p| {
                let mut row = serde_json::json!({"a": self.names[p.a], "b": self.names[p.b]});
                let row_keys = row.as_object_mut().expect("an object");
                match serde_json::to_value(&p.outcome) {
                    Ok(serde_json::Value::Object(outcome)) => row_keys.extend(outcome),
                    _ => unreachable!("an outcome is a JSON object"),
                }
                row_keys.extend(p.pairs.to_json());
                row
            }).collect::<Vec<_>>(),
        })
    }

    /// A horizontal bar chart of the ratings (SVG).
    pub fn to_svg(&self) -> String {
        let rows = self.table();
        let (lo, hi) = rows.iter().fold((0.0f64, 0.0f64), |(lo, hi), r| {
            let (low, high) = r.interval();
            let (low, high) = if r.half_width.is_finite() {
                (low, high)
            } else {
                (r.elo, r.elo)
            };
            (lo.min(low), hi.max(high))
        });
        let span = (hi - lo).max(1.0);
        let (w, row_h, left) = (720.0, 26.0, 300.0);
        let x = |e: f64| left + (e - lo) / span * (w - left - 60.0);
        let mut svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><rect width="100%" height="100%" fill="white"/>"##,
            h = row_h * (rows.len() as f64 + 1.0)
        );
        for (i, row) in rows.iter().enumerate() {
            let (name, elo) = (&row.name, &row.elo);
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
            // The 95% interval as a whisker across the bar.
            if row.half_width.is_finite() && row.half_width > 0.0 {
                let (low, high) = row.interval();
                let mid = y + 2.0 + (row_h - 8.0) / 2.0;
                let _ = write!(
                    svg,
                    r##"<line x1="{:.1}" y1="{mid:.1}" x2="{:.1}" y2="{mid:.1}" stroke="black"/>"##,
                    x(low),
                    x(high)
                );
            }
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

/// `text` for an SVG text node.
pub(super) fn escape(text: &str) -> String {
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
) -> Result<Standings, MatchError> {
    let names = distinct_names(players.iter().map(|p| p.name()).collect());
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
                end: options.end,
                seed: options.seed,
                out,
                sprt: None,
            };
            let (left, right) = players.split_at_mut(b);
            let summary = matches::run(left[a].as_mut(), right[0].as_mut(), &opts, &mut |_, _| {})?;
            on_pairing(&names[a], &names[b], &summary.score);
            pairings.push(Pairing::from_match(a, b, &summary));
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

fn write(dir: &Path, name: &str, text: &str) -> Result<(), MatchError> {
    std::fs::create_dir_all(dir).map_err(|e| matches::io(dir, e))?;
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| matches::io(&path, e))
}
