//! `tengu serve RUN [RUN...] [--addr 127.0.0.1:8080]`: watch a run in the browser, or
//! several side by side (`compare.rs`). One process, read-only over any run location; the
//! page and its assets are compiled in. A watcher thread a run looks at it every `--poll`
//! seconds (`view.rs`); an HTTP/1 server (axum on a two-thread tokio runtime) answers from
//! the newest look (`http.rs`); the page polls `/api/now` and refetches what changed
//! (`page.js`).

pub mod bench;
pub mod compare;
pub(crate) mod http;
pub mod play;
pub mod view;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tengu_store::Location;

use crate::args::ServeArgs;
use crate::output::out;

pub fn run(args: ServeArgs) -> Result<()> {
    let mut locations = Vec::new();
    for run in &args.runs {
        let location = Location::parse(run).with_context(|| format!("RUN {run}"))?;
        locations.extend(compare::runs_in(location));
    }
    // An object store bills requests: a look every 15 s is about 6 requests a time.
    let remote = locations.iter().any(|l| matches!(l, Location::Url(_)));
    let poll = Duration::from_secs_f64(args.poll.unwrap_or(if remote { 15.0 } else { 2.0 }));
    let play = play::PlayConfig {
        play_dir: args.play.play_dir.clone(),
        checkpoints: args.play.checkpoints.clone(),
        books: args.play.books.clone(),
        max_games: args.play.max_games,
        max_queries: args.play.max_queries,
        max_visits: args.play.max_visits,
        max_ms: args.play.max_ms,
        max_depth: args.play.max_depth,
        backend: args.play.backend.parse().map_err(anyhow::Error::msg)?,
    };
    let stop = super::stop_flag("stopping the server")?;
    let server = Server::start_runs(locations, args.addr, poll, stop.clone(), play)?;
    if !server.addr.ip().is_loopback() {
        tracing::warn!(addr = %server.addr, "serving beyond this machine: anyone who reaches the address sees the run");
    }
    let mut said = format!(
        "tengu serve: {} on http://{}/ (Ctrl-C stops); play on http://{}/play\n",
        server.location, server.addr, server.addr
    );
    if server.runs.len() > 1 {
        said += &format!(
            "tengu serve: {} runs side by side on http://{}/compare ({})\n",
            server.runs.len(),
            server.addr,
            server.runs.join(", ")
        );
    }
    // One write: a reader of the first line alone (a script, a test) may close the pipe
    // after it, and a second write would then fail the server.
    out!("{said}")?;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
    }
    server.stop();
    Ok(())
}

/// A running server: the watcher thread and the HTTP runtime.
pub struct Server {
    /// Where it listens (the port chosen when `--addr` said 0).
    pub addr: SocketAddr,
    /// The first run's location, the one the run page and the play page show.
    pub location: String,
    /// The names of the runs served, as the compare page gives them.
    pub runs: Vec<String>,
    stop: Arc<AtomicBool>,
    runtime: tokio::runtime::Runtime,
}

impl Server {
    /// Binds `addr`, takes a first look at the run and starts serving, the play page with
    /// `play`; returns at once. A run that is missing or damaged still serves (the page says
    /// what is wrong); an address that cannot be bound, or a `--checkpoint` that cannot be
    /// read, is an error.
    pub fn start(
        location: Location,
        addr: SocketAddr,
        poll: Duration,
        stop: Arc<AtomicBool>,
        play: play::PlayConfig,
    ) -> Result<Server> {
        Server::start_runs(vec![location], addr, poll, stop, play)
    }

    /// [`Server::start`] over several runs, a watcher each: the first is the one the run
    /// page and the play page show, all of them are on the compare page, and the play page
    /// offers the lines of every run's books. At least one run.
    pub fn start_runs(
        locations: Vec<Location>,
        addr: SocketAddr,
        poll: Duration,
        stop: Arc<AtomicBool>,
        play: play::PlayConfig,
    ) -> Result<Server> {
        anyhow::ensure!(!locations.is_empty(), "no run to serve");
        let listener = std::net::TcpListener::bind(addr)
            .with_context(|| format!("cannot listen on {addr} (--addr)"))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shown = locations[0].display();
        let names = compare::names(&locations);
        let mut runs = Vec::with_capacity(locations.len());
        for (name, location) in names.iter().zip(locations) {
            let shared = view::watch(location.clone(), poll, stop.clone())
                .with_context(|| format!("cannot start the watcher thread of {name}"))?;
            runs.push(view::ServedRun {
                name: name.clone(),
                location,
                shared,
            });
        }
        let runs = Arc::new(runs);
        let shared = runs[0].shared.clone();
        let play = play::Play::new(play, runs.clone(), addr)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("serve-http")
            .enable_io()
            .build()
            .context("cannot start the HTTP runtime")?;
        let listener = {
            let _inside = runtime.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let app = http::router(shared)
            .merge(play::router(play))
            .merge(compare::router(runs));
        runtime.spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::error!("the HTTP server stopped: {e}");
            }
        });
        tracing::info!(location = %shown, %addr, "serving");
        Ok(Server {
            addr,
            location: shown,
            runs: names,
            stop,
            runtime,
        })
    }

    /// Stops the watcher and the server.
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.runtime.shutdown_timeout(Duration::from_secs(2));
    }
}

/// A GET of `path` from a server at `addr` over plain HTTP/1.1 (the bench's and the tests'
/// client): the status code and the body.
pub fn http_get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, Vec<u8>)> {
    http_request(addr, "GET", path, None)
}

/// A POST of `json` to `path` (as `application/json`): the status code and the body.
pub fn http_post(addr: SocketAddr, path: &str, json: &str) -> std::io::Result<(u16, Vec<u8>)> {
    http_request(addr, "POST", path, Some(("application/json", json)))
}

/// A request with an optional body (content type, text): the status code and the body.
pub fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<(&str, &str)>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let (kind, text) = body.unwrap_or(("text/plain", ""));
    let head = if body.is_some() {
        format!("Content-Type: {kind}\r\nContent-Length: {}\r\n", text.len())
    } else {
        String::new()
    };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{head}Connection: close\r\n\r\n{text}"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not an HTTP response");
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(bad)?;
    let head = String::from_utf8_lossy(&raw[..end]).to_string();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    let mut body = raw[end + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body).ok_or_else(bad)?;
    }
    Ok((status, body))
}

/// The payload of a chunked HTTP body.
fn unchunk(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line = b.windows(2).position(|w| w == b"\r\n")?;
        let size = usize::from_str_radix(
            std::str::from_utf8(&b[..line])
                .ok()?
                .split(';')
                .next()?
                .trim(),
            16,
        )
        .ok()?;
        b = &b[line + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(b.get(..size)?);
        b = b.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests;
