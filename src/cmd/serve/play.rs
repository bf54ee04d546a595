//! The play page of `tengu serve` (`/play`): a game against a network of the run, a
//! checkpoint given with `--checkpoint`, a shipped network or alpha-beta, entered by clicks,
//! with the analysis engine of `tengu analyze` beside the board on request.
//!
//! - `games`: the games in play, the opponent's thinking, the state the page draws (every
//!   legal move with the squares it is clicked by, so the page never applies a rule) and the
//!   record each game is saved as.
//! - `networks`: the networks offered and the players built from them.
//! - `analysis`: a thread running `tengu analyze`'s engine (`crate::cmd::analyze::engine`)
//!   for the page's queries, one engine per network.
//!
//! | route | answer |
//! |---|---|
//! | `GET /play`, `/assets/play.js`, `/assets/play.css` | the page |
//! | `GET /assets/analysis.js` | the analysis drawn on a board, for this page and the run page's game viewer |
//! | `GET /api/play/setup` | games, presets, networks, caps, what is in flight, the books' openings (`--book`) |
//! | `POST /api/play/new` | a new game (from the initial position, a `position`, a `record` or a book's `opening`): its state |
//! | `GET /api/play/game/{id}` | a game's state |
//! | `GET /api/play/game/{id}/ply/{ply}` | the board after the game's first `ply` moves |
//! | `POST /api/play/game/{id}/move` | `{"move": "9j>9h{9i}", "ply": 0}`: the state after it |
//! | `POST /api/play/game/{id}/takeback`, `/resign`, `/close` | the state after it |
//! | `GET /api/play/game/{id}/record` | the game's record, as a download |
//! | `POST /api/play/analyze` | a `tengu analyze` query without `id` (one ply), `network`, and `play_game` (a game's id: its value graph gets the value) |
//! | `POST /api/game/analyze` | `{"key", "index", "ply"}` of a game of the run (self-play, arena, ladder) with the analysis fields above: that ply's analysis |
//!
//! Every refusal is JSON `{"error": why, "cause": what, "field": the field at fault}` with
//! its status: 400 not JSON, 404 no such game, network or game of the run (`not_in_run`), 409 not now (another ply, the
//! opponent's turn, over), 403 a host other than this machine's when it answers this
//! machine only, 413 too large, 415 not `application/json` (a page of another
//! site cannot post to the server without asking first), 422 a bad field, a damaged game file of the run or a budget over
//! the server's caps, 429 too many games or queries in flight, 503 a network that cannot
//! be loaded.

mod analysis;
pub mod bench;
mod error;
mod fields;
mod games;
mod networks;
mod openings;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Map, Value};
use tengu_model::Backend;
use tengu_store::Location;

use super::view::ServedRun;
use super::view::{Shared, ViewError};
pub use error::PlayError;
use fields::{budget, kind, known_fields, string, whole};

const PLAY_HTML: &str = include_str!("play/play.html");
const PLAY_JS: &str = include_str!("play/play.js");
const PLAY_CSS: &str = include_str!("play/play.css");
/// The analysis drawn on a board, shared with the run page's game viewer.
pub const ANALYSIS_JS: &str = include_str!("play/analysis.js");
/// Its style (arrows, heat map, the table of moves), in both pages' style sheets.
pub const ANALYSIS_CSS: &str = include_str!("play/analysis.css");

/// What the play page offers and may spend (`tengu serve`'s play flags).
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// Where each game is saved as a record (created on the first save).
    pub play_dir: PathBuf,
    /// Checkpoints offered besides the run's and the shipped networks.
    pub checkpoints: Vec<PathBuf>,
    /// Opening books whose lines a game may start from.
    pub books: Vec<PathBuf>,
    pub max_games: usize,
    pub max_queries: usize,
    /// Most visits one request may ask for.
    pub max_visits: u32,
    /// Most milliseconds an analysis or an opponent's move may take (alpha-beta's own
    /// time a move when the game names none).
    pub max_ms: u64,
    pub max_depth: u32,
    pub backend: Backend,
}

impl PlayConfig {
    /// The flags' defaults, games saved to `play_dir`.
    pub fn new(play_dir: PathBuf) -> PlayConfig {
        PlayConfig {
            play_dir,
            checkpoints: Vec::new(),
            books: Vec::new(),
            max_games: 16,
            max_queries: 64,
            max_visits: 4000,
            max_ms: 20_000,
            max_depth: 4,
            backend: Backend::Burn,
        }
    }
}

/// Why a request of the play page is refused; the answer names the cause and the field.
/// The play page's state shared by its handlers.
pub struct Play {
    config: PlayConfig,
    shared: Arc<Shared>,
    location: Location,
    games: Arc<Mutex<games::Table>>,
    analysis: analysis::Analysis,
    networks: networks::Given,
    /// The lines of the `--book`s.
    given_openings: openings::Openings,
    /// Every run served, whose book files the page offers too.
    runs: Arc<Vec<ServedRun>>,
    /// The openings offered now: the `--book`s' and the runs' books' as last read.
    openings: Mutex<RunOpenings>,
    next_game: AtomicU64,
    /// Whether the server answers this machine only: then a POST must name a loopback host.
    local_only: bool,
}

impl Play {
    /// The play page over the runs the server watches (the first one's checkpoints and games;
    /// every run's books), served on `addr`; the `--checkpoint`s and `--book`s are read now
    /// (one that cannot be read is an error), the runs' books too (one that cannot be read
    /// is said in the log and in the setup's `book_problems`).
    pub fn new(
        config: PlayConfig,
        runs: Arc<Vec<ServedRun>>,
        addr: std::net::SocketAddr,
    ) -> anyhow::Result<Arc<Play>> {
        let first = runs
            .first()
            .ok_or_else(|| anyhow::anyhow!("no run to play beside"))?;
        let (shared, location) = (first.shared.clone(), first.location.clone());
        let networks = networks::Given::read(&config.checkpoints)?;
        let given_openings = openings::Openings::read(&config.books)?;
        let analysis = analysis::Analysis::start(config.backend, config.max_queries)?;
        let openings = Mutex::new(RunOpenings {
            listed: None,
            openings: Arc::new(given_openings.clone()),
            problems: Vec::new(),
        });
        let play = Play {
            config,
            shared,
            location,
            games: Arc::new(Mutex::new(games::Table::default())),
            analysis,
            networks,
            given_openings,
            runs,
            openings,
            next_game: AtomicU64::new(1),
            local_only: addr.ip().is_loopback(),
        };
        play.openings();
        Ok(Arc::new(play))
    }

    /// The openings offered now: the `--book`s' and those of the book files the runs list
    /// (read again when a run's listing of them changed). Blocks while it reads.
    fn openings(&self) -> (Arc<openings::Openings>, Vec<String>) {
        let listed: Vec<(String, String, u64)> = self
            .runs
            .iter()
            .flat_map(|r| {
                let readable = r.shared.snapshot().readable;
                readable
                    .book_files
                    .iter()
                    .map(|(key, size)| (r.name.clone(), key.clone(), *size))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut state = self.openings.lock().unwrap_or_else(|e| e.into_inner());
        if state.listed.as_ref() != Some(&listed) {
            let mut problems = Vec::new();
            let mut books = Vec::new();
            for (name, key, _) in &listed {
                let Some(run) = self.runs.iter().find(|r| &r.name == name) else {
                    continue;
                };
                match run.shared.reader.get(key) {
                    Ok(bytes) => books.push(openings::RunBook {
                        run: name.clone(),
                        key: key.clone(),
                        bytes,
                    }),
                    Err(e) => problems.push(openings::OpeningsError::Unreadable {
                        origin: openings::Origin::Run(name.clone()),
                        path: key.clone(),
                        problem: e.to_string(),
                    }),
                }
            }
            let (offered, damaged) = self.given_openings.with_run_books(books);
            problems.extend(damaged);
            let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
            for p in &problems {
                tracing::warn!("play: a book is not offered: {p}");
            }
            *state = RunOpenings {
                listed: Some(listed),
                openings: Arc::new(offered),
                problems,
            };
        }
        (state.openings.clone(), state.problems.clone())
    }

    /// [`Play::openings`] off the async threads.
    async fn openings_now(
        self: &Arc<Self>,
    ) -> Result<(Arc<openings::Openings>, Vec<String>), PlayError> {
        let play = self.clone();
        tokio::task::spawn_blocking(move || play.openings())
            .await
            .map_err(|e| PlayError::Unavailable(format!("the books could not be read: {e}")))
    }

    fn table(&self) -> std::sync::MutexGuard<'_, games::Table> {
        games::lock(&self.games)
    }

    /// The networks offered now (the run's checkpoints change as it goes).
    fn networks(&self) -> Vec<networks::Network> {
        networks::offered(
            &self.shared.snapshot().readable,
            &self.location,
            &self.networks,
        )
    }
}

/// The openings offered and what they were read from.
struct RunOpenings {
    /// The runs' book files (run, key, size) when last read; none before the first read.
    listed: Option<Vec<(String, String, u64)>>,
    openings: Arc<openings::Openings>,
    /// The runs' books that could not be read, and why.
    problems: Vec<String>,
}

/// The routes of the play page.
pub fn router(play: Arc<Play>) -> Router {
    Router::new()
        .route(
            "/play",
            get(|| async { text(PLAY_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/assets/play.js",
            get(|| async { text(PLAY_JS, "text/javascript; charset=utf-8") }),
        )
        .route("/assets/play.css", get(play_css))
        .route(
            "/assets/analysis.js",
            get(|| async { text(ANALYSIS_JS, "text/javascript; charset=utf-8") }),
        )
        .route("/api/play/setup", get(setup))
        .route("/api/play/new", post(new_game))
        .route("/api/play/game/{id}", get(state))
        .route("/api/play/game/{id}/ply/{ply}", get(board_at))
        .route("/api/play/game/{id}/move", post(play_move))
        .route("/api/play/game/{id}/takeback", post(take_back))
        .route("/api/play/game/{id}/resign", post(resign))
        .route("/api/play/game/{id}/close", post(close))
        .route("/api/play/game/{id}/record", get(record))
        .route("/api/play/analyze", post(analyze))
        .route("/api/game/analyze", post(analyze_run_game))
        .with_state(play)
}

fn text(body: &'static str, content_type: &'static str) -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

async fn play_css() -> Response {
    let css = format!("{}{ANALYSIS_CSS}{PLAY_CSS}", tengu_book::html::BOARD_CSS);
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/css; charset=utf-8"),
        )],
        css,
    )
        .into_response()
}

fn ok(value: Value) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        value.to_string(),
    )
        .into_response()
}

/// A POST body as a JSON object. The host and content type are checked first: a form of
/// another site cannot send JSON without the browser asking the server first, and a site
/// whose name was pointed at this machine (DNS rebinding) names its own host.
fn body(
    play: &Play,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Map<String, Value>, PlayError> {
    if play.local_only {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !is_loopback_host(host) {
            return Err(PlayError::Host(host.to_string()));
        }
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !json {
        return Err(PlayError::ContentType);
    }
    let bytes = body.map_err(|e| match e {
        BytesRejection::FailedToBufferBody(e) => PlayError::TooLarge(e.to_string()),
        other => PlayError::NotJson(other.to_string()),
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(PlayError::NotJson(format!("found {}", kind(&other)))),
        Err(e) => Err(PlayError::NotJson(e.to_string())),
    }
}

/// The body of a request that reads no field (take back, resign, close): checked as every
/// POST body is, and refused if it names a field.
fn empty_body(
    play: &Play,
    headers: &HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Result<(), PlayError> {
    body(play, headers, raw).and_then(|m| known_fields(&m, &[]))
}

/// Whether a `Host` header names this machine: `localhost`, a loopback address, any port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

async fn setup(State(play): State<Arc<Play>>) -> Response {
    let networks: Vec<Value> = play
        .networks()
        .iter()
        .map(networks::Network::json)
        .collect();
    let (openings, book_problems) = match play.openings_now().await {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let c = &play.config;
    let in_play = play.table().len();
    ok(json!({
        "games": games::games_json(),
        "networks": networks,
        "caps": {"visits": c.max_visits, "ms": c.max_ms, "depth": c.max_depth,
                 "games": c.max_games, "queries": c.max_queries},
        "in_flight": {"games": in_play, "queries": play.analysis.in_flight()},
        "play_dir": c.play_dir.display().to_string(),
        "books": openings.json(),
        "book_problems": book_problems,
    }))
}

/// Fields of a new game.
const NEW_FIELDS: &[&str] = &[
    "game", "preset", "side", "opponent", "visits", "max_ms", "depth", "position", "record",
    "opening",
];

async fn new_game(
    State(play): State<Arc<Play>>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    match start_game(&play, headers, raw).await {
        Ok(v) => ok(v),
        Err(e) => e.into_response(),
    }
}

async fn start_game(
    play: &Arc<Play>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Value, PlayError> {
    let map = body(play, &headers, raw)?;
    known_fields(&map, NEW_FIELDS)?;
    let c = &play.config;
    let (openings, _) = play.openings_now().await?;
    let request = games::NewGame::read(&map, &openings)?;
    let max_ms = budget(&map, "max_ms", c.max_ms, "--max-ms")?;
    let opponent = match string(&map, "opponent")?.unwrap_or("alphabeta") {
        "alphabeta" => networks::Opponent::AlphaBeta {
            depth: budget(&map, "depth", c.max_depth.into(), "--max-depth")?.unwrap_or(2) as u32,
            ms: max_ms.unwrap_or(c.max_ms),
        },
        id => {
            let network = play
                .networks()
                .into_iter()
                .find(|n| n.id == id)
                .ok_or_else(|| {
                    PlayError::field(
                        "opponent",
                        format!(
                            "no network {id:?} is offered (see /api/play/setup), nor alphabeta"
                        ),
                    )
                })?;
            network.check_game(request.start.start().variant(), "opponent")?;
            networks::Opponent::Network {
                network,
                visits: budget(&map, "visits", c.max_visits.into(), "--max-visits")?
                    .map(|v| v as u32),
                ms: max_ms,
            }
        }
    };
    // Room for the game is checked before its network loads, and again when it is added.
    play.table().make_room(c.max_games)?;
    let seed = play.next_game.fetch_add(1, Ordering::Relaxed);
    let id = format!("g{seed}");
    let variant = request.start.start().variant().clone();
    let backend = c.backend;
    let location = play.location.clone();
    let built =
        tokio::task::spawn_blocking(move || opponent.player(&variant, backend, &location, seed))
            .await
            .map_err(|e| {
                PlayError::Unavailable(format!("the opponent could not be built: {e}"))
            })??;
    let mut table = play.table();
    table.make_room(c.max_games)?;
    let game = games::PlayGame::new(id.clone(), request, built, &c.play_dir);
    tracing::info!(game = %id, opponent = %game.opponent, "play: a new game");
    let g = table.insert(game);
    games::start_thinking(&play.games, g);
    Ok(g.state())
}

/// Runs `f` on game `id` and answers with its state after.
fn with_game(
    play: &Arc<Play>,
    id: &str,
    f: impl FnOnce(&mut games::PlayGame) -> Result<(), PlayError>,
) -> Response {
    let mut table = play.table();
    let Some(g) = table.get_mut(id) else {
        return PlayError::NoGame(id.to_string()).into_response();
    };
    match f(g) {
        Ok(()) => {
            games::start_thinking(&play.games, g);
            ok(g.state())
        }
        Err(e) => e.into_response(),
    }
}

async fn state(State(play): State<Arc<Play>>, Path(id): Path<String>) -> Response {
    with_game(&play, &id, |_| Ok(()))
}

async fn board_at(
    State(play): State<Arc<Play>>,
    Path((id, ply)): Path<(String, String)>,
) -> Response {
    let table = play.table();
    let Some(g) = table.get(&id) else {
        return PlayError::NoGame(id).into_response();
    };
    let answer = ply
        .parse::<usize>()
        .map_err(|_| PlayError::field("ply", format!("a whole number, found {ply:?}")))
        .and_then(|ply| g.board_at(ply));
    match answer {
        Ok(v) => ok(v),
        Err(e) => e.into_response(),
    }
}

async fn play_move(
    State(play): State<Arc<Play>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    let map = match body(&play, &headers, raw)
        .and_then(|m| known_fields(&m, &["move", "ply"]).map(|_| m))
    {
        Ok(m) => m,
        Err(e) => return e.into_response(),
    };
    with_game(&play, &id, |g| {
        let text = string(&map, "move")?.ok_or_else(|| PlayError::field("move", "missing"))?;
        let ply = match map.get("ply") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| PlayError::field("ply", format!("a whole number, found {v}")))?,
            ),
        };
        g.human_move(text, ply)
    })
}

async fn take_back(
    State(play): State<Arc<Play>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(e) = empty_body(&play, &headers, raw) {
        return e.into_response();
    }
    with_game(&play, &id, games::PlayGame::take_back)
}

async fn resign(
    State(play): State<Arc<Play>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(e) = empty_body(&play, &headers, raw) {
        return e.into_response();
    }
    with_game(&play, &id, games::PlayGame::resign)
}

async fn close(
    State(play): State<Arc<Play>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(e) = empty_body(&play, &headers, raw) {
        return e.into_response();
    }
    match play.table().remove(&id) {
        Some(g) => {
            g.stop_thinking();
            ok(json!({"closed": id}))
        }
        None => PlayError::NoGame(id).into_response(),
    }
}

async fn record(State(play): State<Arc<Play>>, Path(id): Path<String>) -> Response {
    let table = play.table();
    let Some(g) = table.get(&id) else {
        return PlayError::NoGame(id).into_response();
    };
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", g.file_name()))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        g.record().to_string(),
    )
        .into_response()
}

async fn analyze(
    State(play): State<Arc<Play>>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    match analyse(&play, headers, raw).await {
        Ok(v) => ok(v),
        Err(e) => e.into_response(),
    }
}

async fn analyse(
    play: &Arc<Play>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Result<Value, PlayError> {
    let map = body(play, &headers, raw)?;
    analyse_query(play, map).await
}

/// The fields of an analysis of a run's game: the game (`key`, `index`), the `ply` to
/// analyse (0: its start) and what an analysis query spends and reports.
const RUN_GAME_FIELDS: &[&str] = &[
    "key",
    "index",
    "ply",
    "network",
    "visits",
    "max_ms",
    "include_policy",
    "max_moves",
    "pv_plies",
];

async fn analyze_run_game(
    State(play): State<Arc<Play>>,
    headers: HeaderMap,
    raw: Result<Bytes, BytesRejection>,
) -> Response {
    let answer = async {
        let map = body(&play, &headers, raw)?;
        let query = run_game_query(&play, map).await?;
        analyse_query(&play, query).await
    };
    match answer.await {
        Ok(v) => ok(v),
        Err(e) => e.into_response(),
    }
}

/// The analysis query of ply `ply` of game `index` of the run's game file `key`: its start
/// and its first `ply` moves as the run's record has them (the page sends no position, so
/// the analysis is of the game the run holds), with the request's budget and report fields.
async fn run_game_query(
    play: &Arc<Play>,
    mut map: Map<String, Value>,
) -> Result<Map<String, Value>, PlayError> {
    known_fields(&map, RUN_GAME_FIELDS)?;
    let key = string(&map, "key")?
        .ok_or_else(|| PlayError::field("key", "missing"))?
        .to_string();
    let index = whole(&map, "index")?.unwrap_or(0) as usize;
    let ply = whole(&map, "ply")?.ok_or_else(|| PlayError::field("ply", "missing"))?;
    for field in ["key", "index", "ply"] {
        map.remove(field);
    }
    if !play.shared.snapshot().readable.games.contains(&key) {
        return Err(PlayError::NotInRun {
            field: "key",
            problem: format!("{key:?} is not a game file of this run (see /api/games)"),
        });
    }
    let shared = play.shared.clone();
    let read = key.clone();
    let doc = tokio::task::spawn_blocking(move || shared.reader.game(&read, index))
        .await
        .map_err(|e| PlayError::Unavailable(format!("the reader failed: {e}")))?
        .map_err(|e| match e {
            ViewError::NoGameAt { .. } => PlayError::NotInRun {
                field: "index",
                problem: e.to_string(),
            },
            ViewError::Unknown(_) => PlayError::NotInRun {
                field: "key",
                problem: e.to_string(),
            },
            ViewError::Damaged { .. } => PlayError::Damaged {
                field: "key",
                problem: e.to_string(),
            },
            ViewError::NoRun(_) | ViewError::Store(_) => PlayError::Unavailable(e.to_string()),
        })?;
    let doc: Value = serde_json::from_str(&doc)
        .map_err(|e| PlayError::Unavailable(format!("{key}: the game's JSON: {e}")))?;
    let moves = doc["moves"].as_array().map_or(&[][..], Vec::as_slice);
    if ply as usize > moves.len() {
        return Err(PlayError::field(
            "ply",
            format!(
                "{ply} is not a ply of {key} game {index}: 0 (its start) to {} (after its last move)",
                moves.len()
            ),
        ));
    }
    map.insert("game".into(), doc["game"].clone());
    map.insert("position".into(), doc["position"].clone());
    let line: Vec<Value> = moves[..ply as usize]
        .iter()
        .map(|m| m["text"].clone())
        .collect();
    map.insert("moves".into(), Value::Array(line));
    Ok(map)
}

/// Analyses the last ply of the line of `map` (a `tengu analyze` query without `id`, with
/// `network` and `play_game`) within the server's caps.
async fn analyse_query(play: &Arc<Play>, mut map: Map<String, Value>) -> Result<Value, PlayError> {
    let c = &play.config;
    // The budget first: a request over the caps is refused as such, not as a bad field.
    budget(&map, "visits", c.max_visits.into(), "--max-visits")?;
    budget(&map, "max_ms", c.max_ms, "--max-ms")?;
    if map.contains_key("id") || map.contains_key("analyze_plies") {
        return Err(PlayError::field(
            if map.contains_key("id") {
                "id"
            } else {
                "analyze_plies"
            },
            "the play page's analysis names no id and analyses the last ply of its line",
        ));
    }
    let network = string(&map, "network")?.map(str::to_string);
    map.remove("network");
    let play_game = string(&map, "play_game")?.map(str::to_string);
    map.remove("play_game");
    if let Some(id) = &play_game {
        if play.table().get(id).is_none() {
            return Err(PlayError::NoGame(id.clone()));
        }
    }
    let caps = crate::cmd::analyze::query::Caps {
        visits: c.max_visits,
        time: Duration::from_millis(c.max_ms),
        plies: 1,
    };
    let id = play.analysis.next_id();
    map.insert("id".into(), Value::String(id));
    let query = match crate::cmd::analyze::query::request(&map, &caps) {
        Ok(crate::cmd::analyze::query::Request::Analyze(q)) => *q,
        Ok(_) => {
            return Err(PlayError::field(
                "action",
                "the play page's analysis takes queries only",
            ))
        }
        Err(e) => {
            return Err(PlayError::field(
                e.field().unwrap_or("query"),
                e.to_string(),
            ))
        }
    };
    let offered = play.networks();
    let network = match network {
        Some(id) => offered.into_iter().find(|n| n.id == id).ok_or_else(|| {
            PlayError::field(
                "network",
                format!("no network {id:?} is offered (see /api/play/setup)"),
            )
        })?,
        None => networks::default_for(offered, query.variant()).ok_or_else(|| {
            PlayError::field(
                "network",
                format!("no network plays {}", query.variant().id()),
            )
        })?,
    };
    network.check_game(query.variant(), "network")?;
    let ticket = play.analysis.ticket()?;
    let location = play.location.clone();
    let line = query.line.clone();
    let reply = play.analysis.submit(network, location, query, ticket)?;
    let answer = reply
        .await
        .map_err(|_| PlayError::Unavailable("the analysis thread stopped".into()))??;
    // The game's value graph gets the value if the line is still the game's (it may have
    // been closed or taken back meanwhile).
    if let (Some(id), Some(value)) = (play_game, answer["value"].as_f64()) {
        if let Some(g) = play.table().get_mut(&id) {
            g.note_analysis(&line, value as f32);
        }
    }
    Ok(answer)
}
