//! The protocol doors, each driven in-process through its real loop: a whole XBoard
//! session into the engine's protocol loop, raw bytes of HTTP/1 requests into hyper's
//! parser and `tengu serve`'s router (over an in-memory pipe, no socket), and query lines
//! into `tengu analyze`'s query reader.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tengu_engine::{EnginePlayer, Settings};
use tengu_search::players::{Player, RandomPlayer};
use tengu_store::Location;

use crate::cmd::analyze::answer::ErrorReply;
use crate::cmd::analyze::query::{self, Caps, Request};
use crate::cmd::serve::{http, play, view};

/// A whole XBoard session (the bytes as the GUI's lines) through the engine's protocol
/// loop, the engine's player a random mover (the protocol is under test, not the search:
/// a time control the GUI sets costs nothing).
pub fn xboard(data: &[u8]) {
    let settings = Settings {
        default_time: Duration::from_millis(1),
        visits: Some(1),
        ..Settings::default()
    };
    let factory: tengu_engine::PlayerFactory = Box::new(|_variant| {
        let player: Box<dyn Player> = Box::new(RandomPlayer::new(1));
        Ok(EnginePlayer::from(player))
    });
    let engine = tengu_engine::Engine::new(Vec::new(), settings, factory);
    let input = std::io::Cursor::new(data.to_vec());
    tengu_engine::run(input, engine).expect("writing to memory cannot fail");
}

/// The caps `tengu analyze` starts with by default.
fn analyze_caps() -> Caps {
    Caps {
        visits: 100_000,
        time: Duration::from_secs(60),
        plies: 1000,
    }
}

/// Query lines to `tengu analyze`, each read and validated as the command does; a refused
/// line's answer is written; an accepted query's every analysed ply is a reachable game.
pub fn analyze_query(data: &[u8]) {
    let caps = analyze_caps();
    for line in data.split(|&b| b == b'\n') {
        if line.len() > query::MAX_LINE {
            continue;
        }
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let map = match query::parse_line(line) {
            Ok(map) => map,
            Err(e) => {
                let _ = serde_json::to_string(&ErrorReply::refused(None, &e));
                continue;
            }
        };
        match query::request(&map, &caps) {
            Ok(Request::Analyze(q)) => {
                assert!(
                    q.plies.len() <= caps.plies,
                    "{line}: {} plies",
                    q.plies.len()
                );
                for &ply in &q.plies {
                    assert!(ply as usize <= q.line.len(), "{line}: ply {ply}");
                    let game = q.game_at(ply);
                    assert_eq!(game.len(), ply as usize);
                }
            }
            Ok(Request::Terminate { .. } | Request::TerminateAll) => {}
            Err(e) => {
                let id = query::id_of(&serde_json::Value::Object(map));
                let _ = serde_json::to_string(&ErrorReply::refused(id.as_ref(), &e));
            }
        }
    }
}

/// The server under fuzzing: `tengu serve`'s whole router (the run's pages and the play
/// page) over a small run made in the scratch folder, and the runtime it runs on.
struct Served {
    runtime: tokio::runtime::Runtime,
    app: axum::Router,
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tengu-fuzz-serve-{}", std::process::id()));
        super::records::small_run(&dir);
        let location = Location::Local(dir.clone());
        // The watcher looks once now; it never looks again (the run does not change).
        let stop = Arc::new(AtomicBool::new(false));
        let shared = view::watch(location.clone(), Duration::from_secs(3600), stop)
            .expect("the watcher thread");
        let mut config = play::PlayConfig::new(dir.join("play"));
        // The play page's opponents and analyses think briefly: the requests are under test.
        config.max_ms = 20;
        config.max_visits = 8;
        config.max_depth = 1;
        config.max_games = 4;
        let addr: SocketAddr = "127.0.0.1:8080".parse().expect("an address");
        let runs = Arc::new(vec![crate::cmd::serve::view::ServedRun {
            name: "run".into(),
            location,
            shared: shared.clone(),
        }]);
        let play = play::Play::new(config, runs, addr).expect("the play page");
        let app = http::router(shared).merge(play::router(play));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        Served { runtime, app }
    })
}

/// Bytes of HTTP/1 requests (one or several on one connection) through hyper's parser and
/// `tengu serve`'s router, over an in-memory pipe; the answer is read to its end.
pub fn serve_http(data: &[u8]) {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let served = served();
    served.runtime.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let service = TowerToHyperService::new(served.app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .serve_connection(TokioIo::new(server), service);
        let (mut read, mut write) = tokio::io::split(client);
        let send = async move {
            // The server may close early (a bad request): what it did not read is dropped.
            let _ = write.write_all(data).await;
            let _ = write.shutdown().await;
        };
        let mut answer = Vec::new();
        let receive = read.read_to_end(&mut answer);
        let (served, _, _) = tokio::join!(connection, send, receive);
        let _ = served;
    });
}
