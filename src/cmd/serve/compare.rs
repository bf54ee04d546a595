//! Several runs side by side (`tengu serve RUN RUN...` or a directory of runs): each run has
//! its own watcher ([`super::view`]); the compare page overlays their curves and their
//! ladders, one colour a run. The first run is the one the run page and the play page show.
//!
//! | route | answer |
//! |---|---|
//! | `/compare`, `/assets/compare.js` | the page (`compare.html`; its charts are `chart.js`'s) |
//! | `/api/compare` (`?run=NAME`, repeatable; every run without) | [`CompareDoc`] |
//! | `/api/compare/curves?run=NAME` | that run's curves, as `/api/curves` gives the first run's |
//!
//! A name the server does not serve is refused with 404 and a [`CompareError`] naming it
//! and the runs served.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Serialize;
use tengu_store::{layout, Location};

use super::http::{json, text};
use super::view::{natural_cmp, ServedRun};

const COMPARE_HTML: &str = include_str!("compare.html");
const COMPARE_JS: &str = include_str!("compare.js");

/// `GET /api/compare`: the runs asked for (every run served when none is named), in the
/// order they were given.
#[derive(Debug, Serialize)]
pub struct CompareDoc {
    pub runs: Vec<ComparedRun>,
}

/// What the compare page draws of one run.
#[derive(Debug, Serialize)]
pub struct ComparedRun {
    pub name: String,
    /// The location as given (a directory, `s3://...`).
    pub location: String,
    /// The run configuration's `game`; none before the run has a `config.toml`.
    pub game: Option<String>,
    /// Why the run cannot be read now (missing, not a run), as its page says it.
    pub problem: Option<String>,
    /// The loss log's newest training step; none for a run without records.
    pub step: Option<u64>,
    /// The run's CPU ledger total.
    pub cpu_hours: f64,
    /// Whether its loss log records CPU-hours (above 0: the CPU ledger was kept): its curves
    /// can be drawn against them.
    pub cpu_hours_axis: bool,
    /// Where its curves are: `/api/compare/curves?run=NAME`.
    pub curves: String,
    /// Its ladders' reports (`ladder/`, `ladder-600/`, ...) that can be read.
    pub ladders: Vec<LadderLine>,
}

/// One ladder report as a line: its rungs' Elo against CPU-hours.
#[derive(Debug, Serialize)]
pub struct LadderLine {
    /// The ladder's folder in the run (`ladder`, `ladder-600`).
    pub dir: String,
    /// The fixed opponent rated 0 on this ladder's scale (`alphabeta_600000_2`).
    pub zero: Option<String>,
    pub rungs: Vec<LadderPoint>,
}

/// One rung: its checkpoint's step and CPU-hours, its Elo with the 95% interval.
#[derive(Debug, Serialize)]
pub struct LadderPoint {
    pub step: u64,
    pub cpu_hours: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
}

/// Why a compare request is refused.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("{name:?} is not a run this server serves (it serves {served})")]
    NotServed { name: String, served: String },
    #[error("/api/compare/curves needs one run=NAME (it serves {served})")]
    NoRunNamed { served: String },
    #[error("the comparison cannot be written as JSON: {0}")]
    Unwritable(String),
}

impl CompareError {
    fn status(&self) -> StatusCode {
        match self {
            CompareError::NotServed { .. } => StatusCode::NOT_FOUND,
            CompareError::NoRunNamed { .. } => StatusCode::BAD_REQUEST,
            CompareError::Unwritable(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for CompareError {
    fn into_response(self) -> Response {
        tracing::warn!("{self}");
        (
            self.status(),
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            serde_json::json!({ "error": self.to_string() }).to_string(),
        )
            .into_response()
    }
}

/// The runs a location names: a directory that is not a run (no `config.toml`) but whose
/// folders are (`experiments/cpu-runs/`) is each of those, in natural order; anything else is itself
/// (a location that does not exist yet is watched until it does).
pub fn runs_in(location: Location) -> Vec<Location> {
    let Location::Local(dir) = &location else {
        return vec![location];
    };
    if !dir.is_dir() || dir.join(layout::CONFIG).exists() {
        return vec![location];
    }
    let mut runs: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join(layout::CONFIG).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if runs.is_empty() {
        return vec![location];
    }
    runs.sort_unstable_by(|a, b| natural_cmp(a, b));
    runs.into_iter()
        .map(|name| Location::Local(dir.join(name)))
        .collect()
}

/// A name for each location, unique among them: its last part, or its whole text where
/// two end alike (`a/run` and `b/run`).
pub fn names(locations: &[Location]) -> Vec<String> {
    let last = |l: &Location| -> String {
        let text = l.display();
        let trimmed = text.trim_end_matches(['/', '\\']);
        let part = match l {
            Location::Local(_) => Path::new(trimmed)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            Location::Url(_) => trimmed.rsplit('/').next().map(str::to_string),
        };
        part.filter(|p| !p.is_empty()).unwrap_or(text)
    };
    let short: Vec<String> = locations.iter().map(last).collect();
    locations
        .iter()
        .zip(&short)
        .map(|(l, s)| {
            if short.iter().filter(|o| *o == s).count() > 1 {
                l.display()
            } else {
                s.clone()
            }
        })
        .collect()
}

/// The routes above, over every run served.
pub fn router(runs: Arc<Vec<ServedRun>>) -> Router {
    Router::new()
        .route(
            "/compare",
            get(|| async { text(COMPARE_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/assets/compare.js",
            get(|| async { text(COMPARE_JS, "text/javascript; charset=utf-8") }),
        )
        .route("/api/compare", get(compare))
        .route("/api/compare/curves", get(curves))
        .with_state(runs)
}

/// The runs served, for an error: `a (dir/a), b (dir/b)`.
fn served(runs: &[ServedRun]) -> String {
    runs.iter()
        .map(|r| format!("{} ({})", r.name, r.location.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The runs named by `run=` in the query (each once, in the order named), every run when
/// none is named; a name not served is refused.
fn chosen<'a>(
    runs: &'a [ServedRun],
    query: &[(String, String)],
) -> Result<Vec<&'a ServedRun>, CompareError> {
    let mut out: Vec<&ServedRun> = Vec::new();
    for (_, name) in query.iter().filter(|(k, _)| k == "run") {
        let run = runs
            .iter()
            .find(|r| r.name == *name)
            .ok_or_else(|| CompareError::NotServed {
                name: name.clone(),
                served: served(runs),
            })?;
        if !out.iter().any(|r| r.name == run.name) {
            out.push(run);
        }
    }
    if out.is_empty() {
        out = runs.iter().collect();
    }
    Ok(out)
}

/// What the compare page draws of `run` now.
pub fn compared(run: &ServedRun) -> ComparedRun {
    let s = run.shared.snapshot();
    let ladders = s
        .ladder_reports
        .iter()
        .map(|(dir, report)| LadderLine {
            dir: dir.clone(),
            zero: report.opponents.first().cloned(),
            rungs: report
                .rungs
                .iter()
                .map(|r| LadderPoint {
                    step: r.rung.step,
                    cpu_hours: r.rung.cpu_hours,
                    elo: r.elo,
                    elo_low: r.elo_low,
                    elo_high: r.elo_high,
                })
                .collect(),
        })
        .collect();
    ComparedRun {
        name: run.name.clone(),
        location: run.location.display(),
        game: s.readable.game.clone(),
        problem: s.problem.clone(),
        step: s.step,
        cpu_hours: s.cpu_hours,
        cpu_hours_axis: s.cpu_hours_axis,
        curves: format!("/api/compare/curves?run={}", query_escape(&run.name)),
        ladders,
    }
}

/// `text` as a query value: every byte but unreserved ones percent-encoded.
fn query_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn compare(
    State(runs): State<Arc<Vec<ServedRun>>>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    match chosen(&runs, &query) {
        Ok(list) => {
            let doc = CompareDoc {
                runs: list.into_iter().map(compared).collect(),
            };
            match serde_json::to_string(&doc) {
                Ok(body) => json(body.into()),
                Err(e) => CompareError::Unwritable(e.to_string()).into_response(),
            }
        }
        Err(e) => e.into_response(),
    }
}

async fn curves(
    State(runs): State<Arc<Vec<ServedRun>>>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    if !query.iter().any(|(k, _)| k == "run") {
        return CompareError::NoRunNamed {
            served: served(&runs),
        }
        .into_response();
    }
    match chosen(&runs, &query) {
        Ok(list) => json(list[0].shared.snapshot().curves),
        Err(e) => e.into_response(),
    }
}
