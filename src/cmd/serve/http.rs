//! The HTTP side of `tengu serve`: the page and its assets (compiled into the binary), the
//! JSON endpoints over the watcher's [`Snapshot`](super::view::Snapshot) of the first run
//! served, game records, book pages and checkpoint downloads. Every route is a GET; nothing
//! writes to the run.
//!
//! | route | answer |
//! |---|---|
//! | `/` | the page (`page.html`) |
//! | `/assets/page.js`, `/assets/page.css`, `/assets/board.js` | its script, style, board drawing |
//! | `/assets/chart.js` | the charts, the run page's and the compare page's (`compare.rs`) |
//! | `/api/now` | what the run is doing (polled by the page every two seconds) |
//! | `/api/curves`, `/api/checkpoints`, `/api/games`, `/api/books`, `/api/ladder` | see `view.rs` |
//! | `/api/game?key=K&index=I` | game I of the game file K, for the replay |
//! | `/api/live` | the workers' games in progress (`live/`), summaries |
//! | `/api/live/game?key=K` | the game in progress K, as a replayed game |
//! | `/download/models/<file>` | a committed checkpoint's weights or manifest |
//! | `/run/books/<name>/...` | a book's HTML export inside the run |
//! | `/run/ladder/ladder.svg` (`.txt`, `.json`) | the compute ladder's chart and report |
//! | `/compare`, `/api/compare`, ... | every run served side by side: see `compare.rs` |
//!
//! Errors are JSON `{"error": "..."}` with 404 (not in the run), 422 (a damaged file) or
//! 503 (the store cannot be read now), and a warning in the log.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::view::{Shared, ViewError};

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_JS: &str = include_str!("page.js");
const PAGE_CSS: &str = include_str!("page.css");
/// The charts of the run page and the compare page (one chart function, one or many series).
const CHART_JS: &str = include_str!("chart.js");

/// The router of every route above.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { text(PAGE_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/assets/page.js",
            get(|| async { text(PAGE_JS, "text/javascript; charset=utf-8") }),
        )
        .route("/assets/page.css", get(page_css))
        .route(
            "/assets/chart.js",
            get(|| async { text(CHART_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/assets/board.js",
            get(|| async { text(tengu_book::html::BOARD_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/api/now",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().now) }),
        )
        .route(
            "/api/curves",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().curves) }),
        )
        .route(
            "/api/checkpoints",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().checkpoints) }),
        )
        .route(
            "/api/games",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().games) }),
        )
        .route(
            "/api/books",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().books) }),
        )
        .route(
            "/api/ladder",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().ladder) }),
        )
        .route(
            "/api/live",
            get(|State(s): State<Arc<Shared>>| async move { json(s.snapshot().live) }),
        )
        .route("/api/live/game", get(live_game))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/api/game", get(game))
        .route("/download/{*key}", get(download))
        .route("/run/{*key}", get(run_file))
        .fallback(|| async { error(&ViewError::Unknown("this address".into())) })
        .with_state(shared)
}

async fn page_css() -> Response {
    // The live board is a second board on the page: the same style under its own id.
    let board = tengu_book::html::BOARD_CSS;
    let css = format!(
        "{board}{}{}{PAGE_CSS}",
        board.replace("#board", "#live-board"),
        super::play::ANALYSIS_CSS
    );
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/css; charset=utf-8"),
        )],
        css,
    )
        .into_response()
}

pub(super) fn text(body: &'static str, content_type: &'static str) -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

pub(super) fn json(body: Arc<str>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body.to_string(),
    )
        .into_response()
}

/// The error as JSON with its status, logged.
fn error(e: &ViewError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    tracing::warn!(status = status.as_u16(), "{e}");
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        serde_json::json!({ "error": e.to_string() }).to_string(),
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct GameQuery {
    key: String,
    #[serde(default)]
    index: usize,
}

#[derive(serde::Deserialize)]
struct LiveQuery {
    key: String,
}

async fn live_game(State(s): State<Arc<Shared>>, Query(q): Query<LiveQuery>) -> Response {
    match s.snapshot().live_games.get(&q.key) {
        Some(doc) => json(doc.clone()),
        None => error(&ViewError::Unknown(q.key)),
    }
}

async fn game(State(s): State<Arc<Shared>>, Query(q): Query<GameQuery>) -> Response {
    if !s.snapshot().readable.games.contains(&q.key) {
        return error(&ViewError::Unknown(q.key));
    }
    let shared = s.clone();
    match tokio::task::spawn_blocking(move || shared.reader.game(&q.key, q.index)).await {
        Ok(Ok(doc)) => json(doc),
        Ok(Err(e)) => error(&e),
        Err(e) => error(&ViewError::NoRun(format!("the reader failed: {e}"))),
    }
}

/// Bytes of a key the snapshot lists, read off the async threads.
async fn read(s: &Arc<Shared>, key: String) -> Result<Vec<u8>, ViewError> {
    let shared = s.clone();
    tokio::task::spawn_blocking(move || shared.reader.get(&key))
        .await
        .map_err(|e| ViewError::NoRun(format!("the reader failed: {e}")))?
}

async fn download(State(s): State<Arc<Shared>>, Path(key): Path<String>) -> Response {
    if !s.snapshot().readable.checkpoints.contains(&key) {
        return error(&ViewError::Unknown(key));
    }
    let name = key.rsplit('/').next().unwrap_or(&key).to_string();
    match read(&s, key).await {
        Ok(bytes) => {
            let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
                .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
            let kind = if name.ends_with(".json") {
                "application/json"
            } else {
                "application/octet-stream"
            };
            (
                [
                    (header::CONTENT_TYPE, HeaderValue::from_static(kind)),
                    (header::CONTENT_DISPOSITION, disposition),
                ],
                bytes,
            )
                .into_response()
        }
        Err(e) => error(&e),
    }
}

async fn run_file(State(s): State<Arc<Shared>>, Path(key): Path<String>) -> Response {
    let readable = s.snapshot().readable;
    let listed =
        readable.books.iter().any(|b| key.starts_with(b.as_str())) || readable.files.contains(&key);
    if !listed || key.split('/').any(|part| part == ".." || part.is_empty()) {
        return error(&ViewError::Unknown(key));
    }
    let kind = match key.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    };
    match read(&s, key).await {
        Ok(bytes) => (
            [(header::CONTENT_TYPE, HeaderValue::from_static(kind))],
            bytes,
        )
            .into_response(),
        Err(e) => error(&e),
    }
}
