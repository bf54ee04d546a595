//! The play page's endpoints over HTTP: bad requests refused by name and cause, the budget
//! caps, the limits on games and queries in flight, a game played, taken back, resigned
//! and saved, an analysis by `tengu analyze`'s engine; and the click paths of every legal
//! move.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tengu_rules::{Game, Position, Record, RuleSet, Variant};
use tengu_store::Location;

use super::games::click_path;
use super::PlayConfig;
use crate::cmd::serve::{http_get, http_post, http_request, Server};

fn start(dir: &Path, tune: impl FnOnce(&mut PlayConfig)) -> Server {
    let mut config = PlayConfig::new(dir.join("play"));
    tune(&mut config);
    Server::start(
        Location::Local(dir.join("no-run")),
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        config,
    )
    .unwrap()
}

fn parse(status: u16, body: &[u8]) -> (u16, Value) {
    let v = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{status}: {e}: {}", String::from_utf8_lossy(body)));
    (status, v)
}

fn get(server: &Server, path: &str) -> (u16, Value) {
    let (status, body) = http_get(server.addr, path).unwrap();
    parse(status, &body)
}

fn post(server: &Server, path: &str, body: Value) -> (u16, Value) {
    let (status, bytes) = http_post(server.addr, path, &body.to_string()).unwrap();
    parse(status, &bytes)
}

/// A refusal's status, cause and field.
fn refusal(answer: &(u16, Value)) -> (u16, &str, Option<&str>) {
    let (status, v) = answer;
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    (
        *status,
        v["cause"].as_str().unwrap_or(""),
        v["field"].as_str(),
    )
}

/// Starts a game of `body`: its id and state (a refusal fails the test).
fn new_game(server: &Server, body: Value) -> (String, Value) {
    let (status, s) = post(server, "/api/play/new", body);
    assert_eq!(status, 200, "{s}");
    (s["id"].as_str().unwrap().to_string(), s)
}

/// Polls game `id` until the opponent has moved (a hang fails after a minute).
fn wait_for_reply(server: &Server, id: &str) -> Value {
    let t = Instant::now();
    loop {
        let (status, s) = get(server, &format!("/api/play/game/{id}"));
        assert_eq!(status, 200, "{s}");
        if !s["thinking"].as_bool().unwrap() {
            return s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the opponent never moved: {s}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn setup_lists_the_games_their_presets_the_networks_and_the_caps() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| c.max_visits = 77);
    let (status, s) = get(&server, "/api/play/setup");
    assert_eq!(status, 200);
    let games: Vec<&str> = s["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(games, ["dai-dai", "maka-dai-dai"]);
    let presets = |g: usize| -> Vec<String> {
        s["games"][g]["presets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    for g in 0..2 {
        let names = presets(g);
        assert!(
            names[0] == "default" && names.contains(&"tsa".to_string()),
            "{s}"
        );
    }
    let networks: Vec<&str> = s["networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(networks, ["shipped:dai-dai", "shipped:maka-dai-dai"]);
    assert_eq!(s["caps"]["visits"], 77);
    assert_eq!(s["in_flight"], json!({"games": 0, "queries": 0}));
    let (status, page) = http_get(server.addr, "/play").unwrap();
    assert!(status == 200 && String::from_utf8_lossy(&page).contains("<title>tengu play</title>"));
    server.stop();
}

#[test]
fn a_new_game_with_a_bad_field_is_refused_by_name_and_cause() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| {
        c.max_visits = 100;
        c.max_depth = 3;
    });
    let cases = [
        (json!({"game": "chess"}), 422, "bad_field", Some("game")),
        (
            json!({"preset": "nonsense"}),
            422,
            "bad_field",
            Some("preset"),
        ),
        (json!({"side": "red"}), 422, "bad_field", Some("side")),
        (json!({"colour": "black"}), 422, "bad_field", Some("colour")),
        (
            json!({"opponent": "run:5"}),
            422,
            "bad_field",
            Some("opponent"),
        ),
        (
            json!({"opponent": "shipped:maka-dai-dai"}),
            422,
            "bad_field",
            Some("opponent"),
        ),
        (
            json!({"opponent": "shipped:dai-dai", "visits": 101}),
            422,
            "over_budget",
            Some("visits"),
        ),
        (
            json!({"opponent": "shipped:dai-dai", "visits": 0}),
            422,
            "bad_field",
            Some("visits"),
        ),
        (json!({"depth": 4}), 422, "over_budget", Some("depth")),
        (
            json!({"position": "17/17 b -"}),
            422,
            "bad_field",
            Some("position"),
        ),
        (
            json!({"record": "1. 9l>9k"}),
            422,
            "bad_field",
            Some("record"),
        ),
        (
            json!({"game": "maka-dai-dai", "position": Position::initial(Variant::dai_dai()).to_string()}),
            422,
            "bad_field",
            Some("position"),
        ),
        (json!({"game": 17}), 422, "bad_field", Some("game")),
    ];
    for (body, status, cause, field) in cases {
        let answer = post(&server, "/api/play/new", body.clone());
        assert_eq!(
            refusal(&answer),
            (status, cause, field),
            "{body}: {}",
            answer.1
        );
    }
    let not_json = http_post(server.addr, "/api/play/new", "{").unwrap();
    assert_eq!(
        refusal(&parse(not_json.0, &not_json.1)),
        (400, "not_json", None)
    );
    let array = http_post(server.addr, "/api/play/new", "[1]").unwrap();
    assert_eq!(refusal(&parse(array.0, &array.1)), (400, "not_json", None));
    let plain = http_request(
        server.addr,
        "POST",
        "/api/play/new",
        Some(("text/plain", "{}")),
    )
    .unwrap();
    assert_eq!(
        refusal(&parse(plain.0, &plain.1)),
        (415, "content_type", None)
    );
    assert_eq!(
        refusal(&get(&server, "/api/play/game/g99")),
        (404, "no_game", None)
    );
    // Nothing was started, nothing saved.
    assert_eq!(get(&server, "/api/play/setup").1["in_flight"]["games"], 0);
    assert!(!dir.path().join("play").exists());
    // A page whose name was pointed at this machine names its own host.
    let evil = post_with_host(&server, "evil.example:8080");
    assert_eq!(refusal(&evil), (403, "host", None));
    assert_eq!(post_with_host(&server, "[::1]:80").0, 200);
    assert_eq!(post_with_host(&server, "localhost").0, 200);
    server.stop();
}

/// POST `{}` to /api/play/new naming `host` in the Host header.
fn post_with_host(server: &Server, host: &str) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(server.addr).unwrap();
    write!(
        s,
        "POST /api/play/new HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split_whitespace().nth(1).unwrap().parse().unwrap();
    let (_, body) = raw.split_once("\r\n\r\n").unwrap();
    parse(status, body.as_bytes())
}

#[test]
fn a_game_is_played_by_paths_taken_back_resigned_and_saved_as_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |_| {});
    let (id, s) = new_game(&server, json!({"opponent": "alphabeta", "depth": 1}));
    assert_eq!(
        (
            s["ply"].as_u64(),
            s["human"].as_str(),
            s["thinking"].as_bool()
        ),
        (Some(0), Some("black"), Some(false))
    );
    // Every legal move of the start, with the path of its squares.
    let start = Position::initial(Variant::dai_dai());
    let legal = s["legal"].as_array().unwrap();
    assert_eq!(legal.len(), start.legal_move_list().len());
    let size = start.size();
    for entry in legal {
        let m = start.parse_move(entry["text"].as_str().unwrap()).unwrap();
        let path: Vec<usize> = click_path(m)
            .iter()
            .map(|s| s.row() * size + s.col())
            .collect();
        assert_eq!(entry["path"], json!(path));
    }
    let path = format!("/api/play/game/{id}");
    // A move the rules refuse, and one made on a board that has moved on.
    let bad = post(
        &server,
        &format!("{path}/move"),
        json!({"move": "9l>9i", "ply": 0}),
    );
    assert_eq!(refusal(&bad), (422, "bad_field", Some("move")));
    let stale = post(
        &server,
        &format!("{path}/move"),
        json!({"move": "9l>9k", "ply": 3}),
    );
    assert_eq!(refusal(&stale), (409, "not_now", None));
    let (status, s) = post(
        &server,
        &format!("{path}/move"),
        json!({"move": "9l>9k", "ply": 0}),
    );
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["moves"][0]["text"], "9l>9k");
    let s = wait_for_reply(&server, &id);
    assert_eq!(s["ply"], 2, "{s}");
    assert!(!s["legal"].as_array().unwrap().is_empty());
    // The record was saved after each move, and is the one served for download.
    let saved = s["saved"].as_str().expect("saved").to_string();
    assert!(
        saved.starts_with(&dir.path().join("play").display().to_string()),
        "{saved}"
    );
    // Taking back returns to the human's move.
    let (status, s) = post(&server, &format!("{path}/takeback"), json!({}));
    assert_eq!((status, s["ply"].as_u64()), (200, Some(0)), "{s}");
    assert_eq!(
        refusal(&post(&server, &format!("{path}/takeback"), json!({}))),
        (409, "not_now", None)
    );
    let (status, _) = post(&server, &format!("{path}/move"), json!({"move": "8l>8k"}));
    assert_eq!(status, 200);
    wait_for_reply(&server, &id);
    let (status, s) = post(&server, &format!("{path}/resign"), json!({}));
    assert_eq!(status, 200);
    assert_eq!(
        (
            s["over"].as_bool(),
            s["result"].as_str(),
            s["termination"].as_str()
        ),
        (Some(true), Some("0-1"), Some("resignation"))
    );
    assert_eq!(
        refusal(&post(
            &server,
            &format!("{path}/move"),
            json!({"move": "9l>9k"})
        )),
        (409, "not_now", None)
    );
    let (status, text) = http_get(server.addr, &format!("{path}/record")).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert_eq!(status, 200);
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
    let record = Record::parse(&text).unwrap();
    assert_eq!(record.game.len(), 2);
    let first = record.game.moves().next().unwrap();
    assert_eq!(record.game.start().move_text(first), "8l>8k");
    assert_eq!(
        (
            record.tag("Result"),
            record.tag("Termination"),
            record.tag("Black")
        ),
        (Some("0-1"), Some("resignation"), Some("you"))
    );
    let (status, closed) = post(&server, &format!("{path}/close"), json!({}));
    assert_eq!(
        (status, closed["closed"].as_str()),
        (200, Some(id.as_str()))
    );
    assert_eq!(refusal(&get(&server, &path)), (404, "no_game", None));
    server.stop();
}

/// The value graph's points of a state as `(ply, source)`, each value checked in [-1, 1].
fn graph(s: &Value) -> Vec<(u64, String)> {
    s["values"]
        .as_array()
        .unwrap_or_else(|| panic!("no values: {s}"))
        .iter()
        .map(|v| {
            let black = v["black"].as_f64().unwrap();
            assert!((-1.0..=1.0).contains(&black), "{s}");
            (
                v["ply"].as_u64().unwrap(),
                v["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_value_graph_carries_the_opponents_and_the_asked_analyses_values_and_a_ply_shows_its_board() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |_| {});
    let (id, s) = new_game(&server, json!({"opponent": "alphabeta", "depth": 1}));
    assert_eq!(graph(&s), []);
    let path = format!("/api/play/game/{id}");
    let start = s["start"].as_str().unwrap().to_string();
    post(
        &server,
        &format!("{path}/move"),
        json!({"move": "9l>9k", "ply": 0}),
    );
    let s = wait_for_reply(&server, &id);
    let reply = s["moves"][1]["text"].as_str().unwrap().to_string();
    // The opponent valued the position it moved from.
    assert_eq!(graph(&s), [(1, "opponent".to_string())]);
    // Analyses of the game's line go on its graph; one of another line does not.
    let analyse = |moves: Value, game: &str| {
        post(
            &server,
            "/api/play/analyze",
            json!({"position": start, "moves": moves, "visits": 8, "play_game": game}),
        )
    };
    for moves in [json!(["9l>9k", reply]), json!(["9l>9k"]), json!(["8l>8k"])] {
        let (status, a) = analyse(moves, &id);
        assert_eq!(status, 200, "{a}");
    }
    let s = get(&server, &path).1;
    assert_eq!(
        graph(&s),
        [
            (1, "analysis".to_string()),
            (1, "opponent".to_string()),
            (2, "analysis".to_string())
        ]
    );
    // The analysis at ply 1 is White's value turned to Black's.
    let (_, a) = analyse(json!(["9l>9k"]), &id);
    assert_eq!(a["side_to_move"], "white");
    let at1 = get(&server, &path).1["values"][0]["black"]
        .as_f64()
        .unwrap();
    assert!(
        (at1 + a["value"].as_f64().unwrap()).abs() < 1e-6,
        "{at1} {a}"
    );
    assert_eq!(refusal(&analyse(json!([]), "g999")), (404, "no_game", None));
    // A ply of the game shows its board and the move that led there.
    let (status, b) = get(&server, &format!("{path}/ply/2"));
    assert_eq!(status, 200, "{b}");
    assert_eq!((&b["board"], &b["stm"]), (&s["board"], &s["stm"]));
    let (_, b) = get(&server, &format!("{path}/ply/1"));
    assert_eq!(
        (&b["last"]["from"], &b["last"]["to"], &b["stm"]),
        (
            &s["moves"][0]["from"],
            &s["moves"][0]["to"],
            &json!("white")
        )
    );
    assert_ne!(b["board"], s["board"]);
    assert_eq!(
        get(&server, &format!("{path}/ply/0")).1["last"],
        Value::Null
    );
    for bad in ["3", "x"] {
        assert_eq!(
            refusal(&get(&server, &format!("{path}/ply/{bad}"))),
            (422, "bad_field", Some("ply"))
        );
    }
    // A take-back drops the points of the positions it took back.
    let (_, s) = post(&server, &format!("{path}/takeback"), json!({}));
    assert_eq!(s["ply"], 0);
    assert_eq!(graph(&s), []);
    server.stop();
}

#[test]
fn a_network_opponent_may_think_for_a_time_a_move_under_the_max_ms_cap() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| c.max_ms = 500);
    let cases = [
        (
            json!({"opponent": "shipped:dai-dai", "max_ms": 501}),
            422,
            "over_budget",
        ),
        (
            json!({"opponent": "alphabeta", "max_ms": 501}),
            422,
            "over_budget",
        ),
        (
            json!({"opponent": "shipped:dai-dai", "max_ms": 0}),
            422,
            "bad_field",
        ),
        (
            json!({"opponent": "shipped:dai-dai", "max_ms": "1s"}),
            422,
            "bad_field",
        ),
    ];
    for (body, status, cause) in cases {
        let answer = post(&server, "/api/play/new", body.clone());
        assert_eq!(refusal(&answer), (status, cause, Some("max_ms")), "{body}");
        if cause == "over_budget" {
            let error = answer.1["error"].as_str().unwrap();
            assert!(
                error.contains("--max-ms") && error.contains("500"),
                "{error}"
            );
        }
    }
    for (body, label) in [
        (
            json!({"side": "white", "opponent": "shipped:dai-dai", "max_ms": 300}),
            "at 0.3 s a move",
        ),
        (
            json!({"side": "white", "opponent": "shipped:dai-dai", "max_ms": 300, "visits": 5}),
            "at 5 visits or 0.3 s a move",
        ),
    ] {
        let (status, s) = post(&server, "/api/play/new", body.clone());
        assert_eq!(status, 200, "{s}");
        let opponent = s["opponent"].as_str().unwrap();
        assert!(opponent.ends_with(label), "{body}: {opponent}");
        let s = wait_for_reply(&server, s["id"].as_str().unwrap());
        assert_eq!((s["ply"].as_u64(), s["problem"].as_str()), (Some(1), None));
        assert_eq!(graph(&s), [(0, "opponent".to_string())]);
    }
    server.stop();
}

#[test]
fn playing_white_the_opponent_moves_first_and_a_record_is_played_on_from_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |_| {});
    let (status, s) = post(
        &server,
        "/api/play/new",
        json!({"side": "white", "opponent": "alphabeta", "depth": 1}),
    );
    assert_eq!(status, 200, "{s}");
    assert!(s["legal"].as_array().unwrap().is_empty(), "{s}");
    let s = wait_for_reply(&server, s["id"].as_str().unwrap());
    assert_eq!(
        (s["ply"].as_u64(), s["stm"].as_str()),
        (Some(1), Some("white")),
        "{s}"
    );
    assert!(!s["legal"].as_array().unwrap().is_empty());
    let mut game = Game::new(Position::initial(Variant::maka_dai_dai()));
    for text in ["10n>10m", "10f>10g"] {
        let m = game.position().parse_move(text).unwrap();
        game.play(m).unwrap();
    }
    let record = Record::new(game, &[]).to_string();
    let (status, s) = post(
        &server,
        "/api/play/new",
        json!({"game": "maka-dai-dai", "record": record, "opponent": "alphabeta", "depth": 1}),
    );
    assert_eq!(status, 200, "{s}");
    assert_eq!(
        (s["ply"].as_u64(), s["moves"][1]["text"].as_str()),
        (Some(2), Some("10f>10g"))
    );
    assert!(!s["legal"].as_array().unwrap().is_empty());
    let wrong = post(&server, "/api/play/new", json!({"record": record}));
    assert_eq!(refusal(&wrong), (422, "bad_field", Some("record")));
    server.stop();
}

#[test]
fn games_in_play_are_limited_and_a_finished_one_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| c.max_games = 2);
    let new = || {
        post(
            &server,
            "/api/play/new",
            json!({"opponent": "alphabeta", "depth": 1}),
        )
    };
    let first = new();
    assert_eq!(first.0, 200);
    assert_eq!(new().0, 200);
    let refused = new();
    assert_eq!(refusal(&refused), (429, "too_many_games", None));
    assert!(
        refused.1["error"]
            .as_str()
            .unwrap()
            .contains("--max-games 2"),
        "{}",
        refused.1
    );
    let id = first.1["id"].as_str().unwrap();
    assert_eq!(
        post(&server, &format!("/api/play/game/{id}/resign"), json!({})).0,
        200
    );
    let third = new();
    assert_eq!(third.0, 200, "{}", third.1);
    assert_eq!(
        refusal(&get(&server, &format!("/api/play/game/{id}"))),
        (404, "no_game", None)
    );
    server.stop();
}

#[test]
fn analysis_is_the_analyze_engines_within_the_servers_caps() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| c.max_visits = 50);
    let cases = [
        (json!({"visits": 51}), 422, "over_budget", Some("visits")),
        (
            json!({"max_ms": 20_001}),
            422,
            "over_budget",
            Some("max_ms"),
        ),
        (json!({"moves": ["9l>9l"]}), 422, "bad_field", Some("moves")),
        (json!({"id": "mine"}), 422, "bad_field", Some("id")),
        (
            json!({"analyze_plies": "all"}),
            422,
            "bad_field",
            Some("analyze_plies"),
        ),
        (
            json!({"network": "shipped:nope"}),
            422,
            "bad_field",
            Some("network"),
        ),
        (
            json!({"network": "shipped:maka-dai-dai"}),
            422,
            "bad_field",
            Some("network"),
        ),
        (json!({"vists": 5}), 422, "bad_field", Some("vists")),
    ];
    for (body, status, cause, field) in cases {
        let answer = post(&server, "/api/play/analyze", body.clone());
        assert_eq!(
            refusal(&answer),
            (status, cause, field),
            "{body}: {}",
            answer.1
        );
    }
    let (status, a) = post(
        &server,
        "/api/play/analyze",
        json!({"moves": ["9l>9k"], "visits": 12, "include_policy": true, "max_moves": 4}),
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(
        (
            a["ply"].as_u64(),
            a["visits"].as_u64(),
            a["side_to_move"].as_str()
        ),
        (Some(1), Some(12), Some("white"))
    );
    let moves = a["moves"].as_array().unwrap();
    assert!(!moves.is_empty() && moves.len() <= 4, "{a}");
    assert!(
        moves.iter().all(|m| m["value"]
            .as_f64()
            .is_some_and(|v| (-1.0..=1.0).contains(&v))),
        "{a}"
    );
    let policy = a["policy"].as_array().unwrap();
    assert_eq!(policy.len() as u64, a["legal_moves"].as_u64().unwrap());
    assert_eq!(get(&server, "/api/play/setup").1["in_flight"]["queries"], 0);
    server.stop();
}

#[test]
fn analysis_queries_in_flight_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), |c| c.max_queries = 1);
    let addr = server.addr;
    // A query that thinks for two seconds holds the one place.
    let long = std::thread::spawn(move || {
        http_post(addr, "/api/play/analyze", r#"{"max_ms": 2000}"#).unwrap()
    });
    let t = Instant::now();
    while get(&server, "/api/play/setup").1["in_flight"]["queries"] != 1 {
        assert!(
            !long.is_finished() && t.elapsed() < Duration::from_secs(60),
            "the query never was in flight"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let refused = post(&server, "/api/play/analyze", json!({"visits": 1}));
    assert_eq!(refusal(&refused), (429, "too_many_queries", None));
    let (status, body) = long.join().unwrap();
    let (_, a) = parse(status, &body);
    assert_eq!((status, a["stopped"].as_str()), (200, Some("time")), "{a}");
    assert_eq!(
        post(&server, "/api/play/analyze", json!({"visits": 2})).0,
        200
    );
    server.stop();
}

/// A run holding one self-play game file of two games, the second of `plies` plies (each
/// side playing its first legal move): the run's directory, the file's key and the game.
fn run_with_a_game(dir: &Path, plies: usize) -> (std::path::PathBuf, &'static str, Game) {
    let mut game = Game::new(Position::initial(Variant::dai_dai()));
    for _ in 0..plies {
        let m = game.position().legal_move_list()[0];
        game.play_unchecked(m);
    }
    let run = dir.join("run");
    std::fs::create_dir_all(run.join("games")).unwrap();
    std::fs::write(run.join("config.toml"), "game = \"dai-dai\"\n").unwrap();
    let key = "games/1764000000000-h-1-00000.records";
    let first = Record::new(Game::new(Position::initial(Variant::dai_dai())), &[]);
    let lines = format!(
        "{}\n{}\n",
        json!({"game": 0, "record": first.to_string()}),
        json!({"game": 1, "record": Record::new(game.clone(), &[]).to_string()})
    );
    std::fs::write(run.join(key), lines).unwrap();
    (run, key, game)
}

#[test]
fn a_game_of_the_run_is_analysed_at_a_ply_and_bad_games_and_plies_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (run, key, game) = run_with_a_game(dir.path(), 6);
    let mut config = PlayConfig::new(dir.path().join("play"));
    config.max_visits = 50;
    let server = Server::start(
        Location::Local(run),
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        config,
    )
    .unwrap();
    let cases = [
        (
            json!({"key": "games/nope.records", "ply": 1}),
            404,
            "not_in_run",
            Some("key"),
        ),
        (
            json!({"key": key, "index": 2, "ply": 1}),
            404,
            "not_in_run",
            Some("index"),
        ),
        (
            json!({"key": key, "index": 1, "ply": 7}),
            422,
            "bad_field",
            Some("ply"),
        ),
        (
            json!({"key": key, "index": 1, "ply": -1}),
            422,
            "bad_field",
            Some("ply"),
        ),
        (
            json!({"key": key, "index": 1}),
            422,
            "bad_field",
            Some("ply"),
        ),
        (json!({"ply": 1}), 422, "bad_field", Some("key")),
        (json!({"key": 7, "ply": 1}), 422, "bad_field", Some("key")),
        (
            json!({"key": key, "ply": 0, "visits": 51}),
            422,
            "over_budget",
            Some("visits"),
        ),
        (
            json!({"key": key, "ply": 0, "moves": []}),
            422,
            "bad_field",
            Some("moves"),
        ),
        (
            json!({"key": key, "ply": 0, "network": "shipped:maka-dai-dai"}),
            422,
            "bad_field",
            Some("network"),
        ),
    ];
    for (body, status, cause, field) in cases {
        let answer = post(&server, "/api/game/analyze", body.clone());
        assert_eq!(
            refusal(&answer),
            (status, cause, field),
            "{body}: {}",
            answer.1
        );
    }
    // Ply 3 of the second game: the position after its first three moves, White to move.
    let (status, a) = post(
        &server,
        "/api/game/analyze",
        json!({"key": key, "index": 1, "ply": 3, "visits": 8, "include_policy": true}),
    );
    assert_eq!(status, 200, "{a}");
    let mut at = Game::new(Position::initial(Variant::dai_dai()));
    for m in game.moves().take(3) {
        at.play_unchecked(m);
    }
    let legal = at.position().legal_move_list().len() as u64;
    assert_eq!(
        (
            a["ply"].as_u64(),
            a["visits"].as_u64(),
            a["side_to_move"].as_str(),
            a["legal_moves"].as_u64()
        ),
        (Some(3), Some(8), Some("white"), Some(legal)),
        "{a}"
    );
    assert_eq!(a["policy"].as_array().unwrap().len() as u64, legal);
    // The same as the play page's analysis of that line.
    let texts: Vec<String> = {
        let mut pos = Position::initial(Variant::dai_dai());
        game.moves()
            .take(3)
            .map(|m| {
                let t = pos.move_text(m);
                pos.play(m);
                t
            })
            .collect()
    };
    let (_, same) = post(
        &server,
        "/api/play/analyze",
        json!({"moves": texts, "visits": 8}),
    );
    assert_eq!(same["best"], a["best"], "{same}\n{a}");
    // Its start: ply 0 of the first game.
    let (status, start) = post(
        &server,
        "/api/game/analyze",
        json!({"key": key, "ply": 0, "visits": 4}),
    );
    assert_eq!((status, start["ply"].as_u64()), (200, Some(0)), "{start}");
    server.stop();
}

/// A book of `positions` Dai Dai Shogi positions grown with a uniform evaluator, saved at
/// `path`.
fn small_book(path: &Path, positions: usize) {
    let variant = Variant::dai_dai();
    let search = tengu_search::SearchConfig::default();
    let header = tengu_book::BookHeader::new(&variant, "uniform".into(), 0, 0, 4, 300, &search, 1);
    let mut book = tengu_book::Book::new(variant, header);
    let mut eval = tengu_model::evaluator::UniformEvaluator;
    let mut builder = tengu_book::Builder::new(&mut eval, search);
    let limits = tengu_book::BuildLimits {
        positions: Some(positions),
        ..tengu_book::BuildLimits::default()
    };
    tengu_book::build(
        &mut builder,
        &mut book,
        &limits,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )
    .unwrap();
    book.save(path).unwrap();
}

#[test]
fn a_game_starts_from_a_books_line_and_a_bad_opening_or_book_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("small.tbk");
    small_book(&book, 6);
    // A book that cannot be read keeps the server from starting, naming the file.
    let bad = dir.path().join("bad.tbk");
    std::fs::write(&bad, b"not a book").unwrap();
    let refused = Server::start(
        Location::Local(dir.path().join("no-run")),
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        PlayConfig {
            books: vec![bad.clone()],
            ..PlayConfig::new(dir.path().join("play"))
        },
    );
    let problem = format!("{:#}", refused.err().expect("a bad book was accepted"));
    assert!(
        problem.contains("--book") && problem.contains("bad.tbk"),
        "{problem}"
    );

    let server = start(dir.path(), |c| c.books = vec![book.clone()]);
    let (_, setup) = get(&server, "/api/play/setup");
    let books = setup["books"].as_array().unwrap();
    assert_eq!(books.len(), 1, "{setup}");
    assert_eq!(
        (books[0]["name"].as_str(), books[0]["game"].as_str()),
        (Some("small.tbk"), Some("dai-dai"))
    );
    let openings = books[0]["openings"].as_array().unwrap();
    assert!(!openings.is_empty(), "{setup}");
    let plies: Vec<u64> = openings
        .iter()
        .map(|o| o["ply"].as_u64().unwrap())
        .collect();
    assert!(
        plies[0] >= 1 && plies.windows(2).all(|w| w[0] <= w[1]),
        "{plies:?}"
    );
    // The deepest line: the game starts after its moves.
    let line = openings.last().unwrap();
    plays_from_line(&server, line);
    let cases = [
        (json!({"opening": "7:1"}), "opening"),
        (json!({"opening": "0:99999"}), "opening"),
        (json!({"opening": "zero"}), "opening"),
        (
            json!({"opening": line["id"], "game": "maka-dai-dai"}),
            "opening",
        ),
        (json!({"opening": line["id"], "preset": "tsa"}), "opening"),
        (
            json!({"opening": line["id"], "position": "initial x"}),
            "opening",
        ),
        (json!({"opening": 3}), "opening"),
    ];
    for (body, field) in cases {
        let answer = post(&server, "/api/play/new", body.clone());
        assert_eq!(
            refusal(&answer),
            (422, "bad_field", Some(field)),
            "{body}: {}",
            answer.1
        );
    }
    server.stop();
}

/// Starts a game from the book line `line` (an opening of `/api/play/setup`) against
/// alpha-beta: its moves must begin with the line's.
fn plays_from_line(server: &Server, line: &Value) {
    let moves: Vec<&str> = line["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(moves.len() as u64, line["ply"].as_u64().unwrap());
    let (id, s) = new_game(
        server,
        json!({"opening": line["id"], "opponent": "alphabeta", "depth": 1, "side": "white"}),
    );
    let s = if s["thinking"].as_bool().unwrap() {
        wait_for_reply(server, &id)
    } else {
        s
    };
    let played: Vec<&str> = s["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(&played[..moves.len()], &moves[..], "{s}");
}

/// A book built into a run (`RUN/books/NAME.tbk`) is offered beside the `--book`s, a
/// damaged one of the run is said without stopping the server, and a book that appears in
/// the run while it is served is offered without a restart.
#[test]
fn a_book_inside_a_served_run_is_offered_beside_the_given_ones() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("arm");
    std::fs::create_dir_all(run.join("books")).unwrap();
    std::fs::write(run.join("config.toml"), "game = \"dai-dai\"\n").unwrap();
    small_book(&run.join("books/small.tbk"), 6);
    std::fs::write(run.join("books/bad.tbk"), b"not a book").unwrap();
    let given = dir.path().join("given.tbk");
    small_book(&given, 4);
    let server = Server::start(
        Location::Local(run.clone()),
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        PlayConfig {
            books: vec![given.clone()],
            ..PlayConfig::new(dir.path().join("play"))
        },
    )
    .expect("a damaged book of the run stops nothing");
    let (_, setup) = get(&server, "/api/play/setup");
    let names: Vec<&str> = setup["books"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["given.tbk", "arm/books/small.tbk"], "{setup}");
    let problems = setup["book_problems"].to_string();
    assert!(
        problems.contains("arm") && problems.contains("books/bad.tbk"),
        "{problems}"
    );
    // The run page lists the book files too, pointing to the play page.
    let (_, books) = get(&server, "/api/books");
    assert!(
        books
            .as_array()
            .unwrap()
            .contains(&json!({"name": "books/small.tbk", "href": "/play", "file": true})),
        "{books}"
    );
    // A game from the run's book's deepest line starts after its moves.
    let line = setup["books"][1]["openings"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert!(
        line["id"]
            .as_str()
            .unwrap()
            .starts_with("arm/books/small.tbk:"),
        "{line}"
    );
    plays_from_line(&server, line);
    // A book built into the run meanwhile: offered at the watcher's next look at books/.
    std::fs::copy(run.join("books/small.tbk"), run.join("books/later.tbk")).unwrap();
    let t = Instant::now();
    loop {
        let (_, setup) = get(&server, "/api/play/setup");
        if setup["books"].as_array().unwrap().len() == 3 {
            assert_eq!(setup["books"][2]["name"], "arm/books/small.tbk", "{setup}");
            assert_eq!(setup["books"][1]["name"], "arm/books/later.tbk", "{setup}");
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the new book was not offered: {setup}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    server.stop();
}

/// Positions of random games under `rules` (a preset and options).
fn random_positions(game: &str, options: &[&str], seed: u64) -> Vec<Position> {
    let mut rules = RuleSet::preset(game, "default").unwrap();
    for o in options {
        rules.assign(o).unwrap();
    }
    let variant = Variant::by_key(&rules.canonical()).unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..3 {
        let mut g = Game::new(Position::initial(variant.clone()));
        for _ in 0..120 {
            let moves = g.legal_move_list();
            if moves.is_empty() || g.outcome().is_some() {
                break;
            }
            // Captures first, so lions, hooks and the Emperor meet pieces.
            let captures: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let pool = if !captures.is_empty() && rng.gen_bool(0.7) {
                &captures
            } else {
                &moves
            };
            g.play_unchecked(pool[rng.gen_range(0..pool.len())]);
            out.push(g.position().clone());
        }
    }
    out
}

#[test]
fn every_legal_move_has_a_click_path_of_its_own() {
    let pos =
        Position::parse("9,k,7/17/17/17/17/17/17/17/8,p,8/8,LN,8/17/17/17/17/17/17/8,K,8 b -")
            .unwrap();
    let path = |text: &str| -> Vec<String> {
        click_path(pos.parse_move(text).unwrap())
            .iter()
            .map(|s| pos.square_name(*s))
            .collect()
    };
    assert_eq!(path("9j>9h{9i}"), ["9j", "9i", "9h"]);
    assert_eq!(path("9j>9j{9i}"), ["9j", "9i", "9j"]);
    assert_eq!(path("9j>9j"), ["9j", "9j"]);
    assert_eq!(path("9j>9i{9i}"), ["9j", "9i"]);
    let mut multi = 0;
    for (game, options) in [
        ("dai-dai", &[][..]),
        ("dai-dai", &["HM=TWO_CAPTURES"][..]),
        ("maka-dai-dai", &[][..]),
        ("maka-dai-dai", &["CA=TWO_CAPTURES"][..]),
    ] {
        for pos in random_positions(game, options, 7) {
            let mut seen = std::collections::HashMap::new();
            for m in pos.legal_move_list() {
                let p = click_path(m);
                assert_eq!((p[0], *p.last().unwrap()), (m.from(), m.to()));
                multi += usize::from(p.len() > 2);
                let key = (p, m.promotion_optional().then(|| m.promotes()));
                if let Some(other) = seen.insert(key, m) {
                    panic!(
                        "{game} {options:?}: {} and {} share a path in {pos}",
                        pos.move_text(other),
                        pos.move_text(m)
                    );
                }
            }
        }
    }
    assert!(multi > 0, "no multi-step move met");
}
