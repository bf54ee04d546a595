//! The endpoints of `tengu serve` on runs made here, and its bad input: a location that
//! does not exist or is not a run, damaged records and manifests, keys outside the run.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengu_model::desc::HeadId;
use tengu_rules::{Game, Position, Record, Variant};
use tengu_store::{layout, Location, RunStore};
use tengu_trainer::records::{to_line, HeadLosses, LossRecord};

use super::view::board_tokens;
use super::{http_get, Server};

fn start(dir: &Path) -> Server {
    Server::start(
        Location::Local(dir.to_path_buf()),
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        super::play::PlayConfig::new(dir.join("play")),
    )
    .unwrap()
}

fn get(server: &Server, path: &str) -> (u16, Value) {
    let (status, body) = http_get(server.addr, path).unwrap();
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("GET {path}: {e}: {}", String::from_utf8_lossy(&body)));
    (status, v)
}

/// Every file under `dir` with its bytes (to show serve wrote nothing).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A game of `plies` plies: each side plays its first legal move.
fn game(plies: usize) -> Game {
    let mut g = Game::new(Position::initial(Variant::dai_dai()));
    for _ in 0..plies {
        let m = g.position().legal_move_list()[0];
        g.play_unchecked(m);
    }
    g
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "waited 20 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_missing_location_or_a_directory_that_is_not_a_run_is_said_on_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let server = start(&missing);
    let (status, now) = get(&server, "/api/now");
    assert_eq!(status, 200);
    let problem = now["problem"].as_str().unwrap();
    assert!(
        problem.contains("does not exist") && problem.contains("no-such-run"),
        "{problem}"
    );
    let (status, page) = http_get(server.addr, "/").unwrap();
    assert!(status == 200 && String::from_utf8_lossy(&page).contains("id=\"problem\""));
    let (status, err) = get(&server, "/api/game?key=games/x.records");
    assert_eq!(status, 404, "{err}");
    assert!(!missing.exists(), "serve created the run directory");
    // The run appears: the watcher sees it without a restart.
    std::fs::create_dir_all(&missing).unwrap();
    wait_for("the not-a-run message", || {
        get(&server, "/api/now").1["problem"]
            .as_str()
            .is_some_and(|p| p.contains("not a run") && p.contains("config.toml"))
    });
    std::fs::write(missing.join("config.toml"), "game = \"dai-dai\"\n").unwrap();
    wait_for("the run", || {
        get(&server, "/api/now").1["problem"].is_null()
    });
    assert_eq!(get(&server, "/api/now").1["game"], "dai-dai");
    server.stop();
}

#[test]
fn endpoints_show_the_run_and_refuse_damage_and_keys_outside_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let store = RunStore::open(&run.display().to_string()).unwrap();
    store
        .put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())
        .unwrap();
    let publish = |step: u64, weights: &[u8]| {
        tengu_store::checkpoint::publish(
            &store,
            &tengu_store::checkpoint::Publication {
                step,
                weights,
                optimizer: None,
                lease: 1,
                rows_seen: step * 10,
                parent: None,
            },
        )
        .unwrap()
    };
    publish(100, b"weights of step 100");
    // A manifest that is not one: reported, the rest still shown.
    store
        .put(&layout::manifest_key(150), b"{\"oops\":".to_vec())
        .unwrap();
    store
        .put(
            &layout::train_log_key(0),
            format!(
                "{}\n{}\n",
                to_line(&LossRecord {
                    heads: HeadLosses::default().with_step(HeadId::Value, 1.25),
                    cpu_seconds: 36.0,
                    ..LossRecord::at(1, 1000.0)
                }),
                to_line(&LossRecord {
                    heads: HeadLosses::default()
                        .with_step(HeadId::Value, 0.75)
                        .with_heldout(HeadId::Value, 0.9),
                    heldout_rows: Some(10),
                    cpu_seconds: 72.0,
                    ..LossRecord::at(2, 1360.0)
                })
            )
            .into_bytes(),
        )
        .unwrap();
    store
        .put(
            "elo.jsonl",
            format!("{}\n", json!({"checkpoint": "model-000000100.safetensors", "opponent": "greedy", "step": 100, "games": 10, "elo": 42.5, "score": 0.56, "material_share": 0.55, "material_share_se": 0.01})).into_bytes(),
        )
        .unwrap();
    let played = game(12);
    let record = Record::new(played.clone(), &[("Black", "tengu"), ("White", "tengu")]).to_string();
    let good = "games/1764000000000-h-1-00000.records";
    let lines = format!(
        "{}\n{}\n",
        json!({"game": 0, "record": Record::new(game(3), &[]).to_string()}),
        json!({"game": 1, "record": record})
    );
    store.put(good, lines.into_bytes()).unwrap();
    let torn = "games/1764000000001-h-1-00001.records";
    store.put(torn, b"{\"game\": 0, \"rec".to_vec()).unwrap();
    let illegal = "games/1764000000002-h-1-00002.records";
    let bad_record = "[Game \"Dai Dai Shogi\"]\n\n1. 1a>1z\n";
    store
        .put(
            illegal,
            format!("{}\n", json!({"game": 0, "record": bad_record})).into_bytes(),
        )
        .unwrap();
    let before = files(&run);

    let server = start(&run);
    let (_, now) = get(&server, "/api/now");
    assert!(now["problem"].is_null(), "{now}");
    assert_eq!(now["newest_checkpoint"]["step"], 100);
    assert_eq!(now["step"], 2);
    // A loss log without a trainer lease or shards: a kept copy of a stopped run.
    assert_eq!(now["trainer"]["state"], "stopped");
    assert_eq!(now["activity"]["state"], "archived");
    let problems = now["problems"].to_string();
    assert!(
        problems.contains("damaged checkpoint manifest") && problems.contains("150"),
        "{problems}"
    );

    let (_, curves) = get(&server, "/api/curves");
    assert_eq!(
        curves["series"]["loss/value"],
        json!([[1.0, 1.25], [2.0, 0.75]])
    );
    assert_eq!(curves["series"]["heldout/value"], json!([[2.0, 0.9]]));
    // The heads the page draws a loss chart for, in the table's order.
    let heads: Vec<&str> = tengu_model::desc::HEADS
        .iter()
        .map(|h| h.loss_name)
        .collect();
    assert_eq!(curves["heads"], json!(heads));
    assert_eq!(curves["series"]["elo/vs_greedy"], json!([[100.0, 42.5]]));
    // Step 2 came 360 s (0.1 h) after step 1, at 0.02 CPU-hours.
    let axes = curves["axes"].as_array().unwrap();
    let last = axes.last().unwrap();
    assert_eq!(last[0], 2);
    assert!(
        (last[1].as_f64().unwrap() - 0.1).abs() < 1e-9
            && (last[2].as_f64().unwrap() - 0.02).abs() < 1e-6,
        "{last}"
    );

    let (_, checkpoints) = get(&server, "/api/checkpoints");
    let c = &checkpoints[0];
    assert_eq!(c["step"], 100);
    assert_eq!(c["arena"][0]["elo"], 42.5);
    let xboard = c["xboard"].as_str().unwrap();
    assert!(
        xboard.starts_with("tengu xboard --checkpoint ")
            && xboard.ends_with("models/model-000000100.safetensors"),
        "{xboard}"
    );
    let (status, bytes) = http_get(server.addr, c["download"].as_str().unwrap()).unwrap();
    assert_eq!(
        (status, bytes.as_slice()),
        (200, &b"weights of step 100"[..])
    );

    let (_, games) = get(&server, "/api/games");
    let keys: Vec<&str> = games["selfplay"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, [illegal, torn, good], "newest first");

    // A game replays to its record's final position.
    let (status, g) = get(&server, &format!("/api/game?key={good}&index=1"));
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (g["count"].as_u64(), g["size"].as_u64()),
        (Some(2), Some(17))
    );
    let moves = g["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 12);
    let mut board: Vec<String> = serde_json::from_value(g["start"].clone()).unwrap();
    for m in moves {
        for ch in m["changes"].as_array().unwrap() {
            board[ch[0].as_u64().unwrap() as usize] = ch[1].as_str().unwrap().to_string();
        }
    }
    assert_eq!(board, board_tokens(played.position()));
    assert_eq!(g["final"], played.position().to_string());
    assert_eq!(g["tags"][1], json!(["Black", "tengu"]));

    // Damage and keys outside the run: JSON errors that say what is wrong; still serving.
    let (status, e) = get(&server, &format!("/api/game?key={torn}"));
    assert!(
        status == 422 && e["error"].as_str().unwrap().contains(torn),
        "{status} {e}"
    );
    let (status, e) = get(&server, &format!("/api/game?key={illegal}"));
    assert!(
        status == 422 && e["error"].as_str().unwrap().contains("game 0"),
        "{status} {e}"
    );
    let (status, e) = get(&server, &format!("/api/game?key={good}&index=5"));
    assert!(
        status == 422 && e["error"].as_str().unwrap().contains("the file has 2"),
        "{status} {e}"
    );
    for path in [
        "/api/game?key=config.toml",
        "/download/config.toml",
        "/download/models/model-000000150.json",
        "/run/books/../config.toml",
        "/no/such/page",
    ] {
        let (status, e) = get(&server, path);
        assert_eq!(status, 404, "{path}: {e}");
    }
    let (status, _) = http_get(server.addr, "/api/game").unwrap();
    assert_eq!(status, 400, "a game request without a key");

    // A new checkpoint appears without asking twice; the version tells the page.
    let version = now["version"].as_u64().unwrap();
    publish(200, b"weights of step 200");
    wait_for("checkpoint 200", || {
        get(&server, "/api/now").1["newest_checkpoint"]["step"] == 200
    });
    assert!(get(&server, "/api/now").1["version"].as_u64().unwrap() > version);
    assert_eq!(get(&server, "/api/checkpoints").1[0]["step"], 200);
    server.stop();
    let mut after = files(&run);
    after.retain(|(p, _)| !p.contains("model-000000200"));
    assert_eq!(before, after, "serve wrote into the run");
}

#[test]
fn the_page_and_its_assets_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    for (path, says) in [
        ("/", "<script src=\"/assets/page.js\">"),
        ("/assets/page.js", "function poll()"),
        ("/assets/board.js", "function tenguBoard(N)"),
        ("/assets/page.css", "#board .square"),
    ] {
        let (status, body) = http_get(server.addr, path).unwrap();
        let body = String::from_utf8(body).unwrap();
        assert!(status == 200 && body.contains(says), "{path}: {status}");
    }
    server.stop();
}

#[test]
fn games_in_progress_are_shown_as_they_go_stale_ones_marked_damaged_ones_said() {
    use tengu_selfplay::live::{LiveGame, FORMAT};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let store = RunStore::open(&run.display().to_string()).unwrap();
    store
        .put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())
        .unwrap();
    let live = |plies: usize, unix_ms: u64| {
        let record = Record::new(game(plies), &[("Black", "m"), ("White", "m")]).to_string();
        let values = (0..plies)
            .map(|p| (p > 0).then_some(p as f32 / 100.0))
            .collect();
        let doc = LiveGame {
            format: FORMAT.into(),
            writer: "h-1".into(),
            game: 3,
            unix_ms,
            interval_seconds: 1.0,
            model: "model-000000100.safetensors".into(),
            record,
            values,
        };
        serde_json::to_vec(&doc).unwrap()
    };
    store
        .put("live/h-1.json", live(4, layout::unix_ms()))
        .unwrap();
    // A worker gone an hour ago, and an object that is not a live game.
    store
        .put("live/h-2.json", live(2, layout::unix_ms() - 3_600_000))
        .unwrap();
    store
        .put("live/h-3.json", b"{\"format\": \"tengu-li".to_vec())
        .unwrap();
    // A record line with the search's values, and one whose values do not fit its moves.
    let values: Vec<Option<f32>> = vec![None, Some(0.25), Some(-0.5)];
    let lines = format!(
        "{}\n{}\n",
        json!({"game": 0, "record": Record::new(game(3), &[]).to_string(), "values": values}),
        json!({"game": 1, "record": Record::new(game(3), &[]).to_string(), "values": [0.1]})
    );
    let key = "games/1764000000000-h-1-00000.records";
    store.put(key, lines.into_bytes()).unwrap();

    let server = start(&run);
    let (_, now) = get(&server, "/api/now");
    let version = now["live_version"].as_u64().unwrap();
    assert!(
        now["problems"].to_string().contains("live/h-3.json"),
        "{now}"
    );
    let (_, list) = get(&server, "/api/live");
    let games = list["games"].as_array().unwrap();
    let by_key = |k: &str| {
        games
            .iter()
            .find(|g| g["key"] == k)
            .unwrap_or_else(|| panic!("{k} in {list}"))
    };
    assert_eq!(
        (
            by_key("live/h-1.json")["stale"].as_bool(),
            by_key("live/h-1.json")["plies"].as_u64()
        ),
        (Some(false), Some(4))
    );
    assert_eq!(by_key("live/h-1.json")["value"], json!(0.03));
    assert_eq!(by_key("live/h-2.json")["stale"], true);
    assert_eq!(
        games[0]["key"], "live/h-1.json",
        "fresh games first: {list}"
    );
    let problem = by_key("live/h-3.json")["problem"].as_str().unwrap();
    assert!(
        problem.contains("live/h-3.json") && problem.contains("not a live game object"),
        "{problem}"
    );
    let (status, g) = get(&server, "/api/live/game?key=live/h-1.json");
    assert_eq!(status, 200, "{g}");
    let moves = g["moves"].as_array().unwrap();
    assert_eq!(
        (moves.len(), &moves[0]["value"], &moves[3]["value"]),
        (4, &json!(null), &json!(0.03))
    );
    assert_eq!(g["writer"], "h-1");
    assert_eq!(get(&server, "/api/live/game?key=live/h-3.json").0, 404);

    // The game goes on: the page learns it from the version; the worker stops: it goes.
    store
        .put("live/h-1.json", live(6, layout::unix_ms()))
        .unwrap();
    wait_for("the longer game", || {
        get(&server, "/api/live/game?key=live/h-1.json").1["moves"]
            .as_array()
            .is_some_and(|m| m.len() == 6)
    });
    assert!(get(&server, "/api/now").1["live_version"].as_u64().unwrap() > version);
    store.delete("live/h-1.json").unwrap();
    wait_for("the stopped worker's game to go", || {
        get(&server, "/api/live").1["games"]
            .as_array()
            .unwrap()
            .len()
            == 2
    });

    // A replayed self-play game carries the search's value of each move.
    let (_, g) = get(&server, &format!("/api/game?key={key}&index=0"));
    let shown: Vec<&Value> = g["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["value"])
        .collect();
    assert_eq!(shown, [&json!(null), &json!(0.25), &json!(-0.5)]);
    assert!(g["warning"].is_null(), "{g}");
    let (status, g) = get(&server, &format!("/api/game?key={key}&index=1"));
    assert_eq!(status, 200);
    assert!(g["moves"][0]["value"].is_null());
    assert!(
        g["warning"]
            .as_str()
            .unwrap()
            .contains("1 search values for 3 plies"),
        "{g}"
    );
    server.stop();
}

#[test]
fn a_damaged_line_leaves_the_other_games_and_the_ladder_intervals_sessions_and_workers_show() {
    use tengu_selfplay::live::{LiveGame, FORMAT};
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let store = RunStore::open(&run.display().to_string()).unwrap();
    store
        .put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())
        .unwrap();
    // Two games with a torn line between them.
    let played = game(12);
    let key = "games/1764000000000-h-1-00000.records";
    let lines = format!(
        "{}\n{{\"game\": 1, \"rec\n{}\n",
        json!({"game": 0, "record": Record::new(game(3), &[]).to_string()}),
        json!({"game": 2, "record": Record::new(played.clone(), &[("Black", "tengu"), ("White", "greedy")]).to_string()})
    );
    store.put(key, lines.into_bytes()).unwrap();
    // The loss log: two sessions, the second four hours after the first.
    let log: String = [
        (1, 1000.0),
        (2, 1060.0),
        (3, 1120.0),
        (4, 1180.0 + 4.0 * 3600.0),
        (5, 1240.0 + 4.0 * 3600.0),
    ]
    .iter()
    .map(|&(step, t)| {
        let line = LossRecord {
            heads: HeadLosses::default().with_step(HeadId::Value, 1.0),
            ..LossRecord::at(step, t)
        };
        format!("{}\n", to_line(&line))
    })
    .collect();
    store
        .put(&layout::train_log_key(0), log.into_bytes())
        .unwrap();
    // The rating chain (its first line without an interval) and a baseline match.
    let elo = [
        json!({"checkpoint": "model-000000000.safetensors", "rating": 0.0, "step": 0}),
        json!({"checkpoint": "model-000000002.safetensors", "opponent": "model-000000000", "rating": 30.0, "games": 10, "score": 0.53, "elo": 20.0, "elo_low": -10.0, "elo_high": 50.0, "material_share": 0.5, "material_share_se": 0.01, "step": 2, "unix_time": 1100.0}),
        json!({"checkpoint": "model-000000002.safetensors", "opponent": "greedy", "games": 10, "elo": 100.0, "elo_low": 60.0, "elo_high": 140.0, "score": 0.6, "material_share": 0.6, "material_share_se": 0.01, "step": 2, "unix_time": 1100.0}),
    ];
    let elo: String = elo.iter().map(|l| format!("{l}\n")).collect();
    store.put("elo.jsonl", elo.into_bytes()).unwrap();
    // The kept run's ladder report and chart, and one of its matches with a game.
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments/baselines/dai-dai-cpu-2026-11-25/ladder");
    for name in ["ladder.json", "ladder.svg"] {
        store
            .put(
                &format!("ladder/{name}"),
                std::fs::read(baseline.join(name)).unwrap(),
            )
            .unwrap();
    }
    let result = json!({"index": 0, "a": "model step 800", "b": "greedy", "a_is_black": false, "result": 1,
        "plies": 12, "termination": "adjudicated on material", "material_share": 0.6});
    store
        .put(
            "ladder/step-800-vs-greedy/results.jsonl",
            format!("{result}\n").into_bytes(),
        )
        .unwrap();
    let ladder_game = "ladder/step-800-vs-greedy/games/game-00000.record";
    store
        .put(
            ladder_game,
            Record::new(played.clone(), &[]).to_string().into_bytes(),
        )
        .unwrap();
    // A worker playing its first game: no shard yet.
    let doc = LiveGame {
        format: FORMAT.into(),
        writer: "h-7".into(),
        game: 4,
        unix_ms: layout::unix_ms(),
        interval_seconds: 1.0,
        model: "model-000000000.safetensors".into(),
        record: Record::new(game(2), &[]).to_string(),
        values: vec![None, Some(0.1)],
    };
    store
        .put("live/h-7.json", serde_json::to_vec(&doc).unwrap())
        .unwrap();

    let server = start(&run);
    let (_, games) = get(&server, "/api/games");
    let file = &games["selfplay"][0];
    assert_eq!(file["games"], 2, "{file}");
    let damaged = file["damaged"].as_array().unwrap();
    assert!(
        damaged.len() == 1
            && damaged[0]
                .as_str()
                .unwrap()
                .starts_with("line 2: not a JSON line"),
        "{file}"
    );
    let second = &file["summaries"][1];
    assert_eq!(
        (
            second["plies"].as_u64(),
            second["black"].as_str(),
            second["white"].as_str()
        ),
        (Some(12), Some("tengu"), Some("greedy")),
        "{file}"
    );
    let (status, g) = get(&server, &format!("/api/game?key={key}&index=1"));
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (g["count"].as_u64(), g["moves"].as_array().unwrap().len()),
        (Some(2), 12)
    );
    assert!(g["warning"].as_str().unwrap().contains("line 2"), "{g}");
    assert!(g["names"].to_string().contains("King"), "{}", g["names"]);

    // The ladder: its report, its chart, its games with their results.
    let (_, ladder) = get(&server, "/api/ladder");
    let report = &ladder["ladder"]["report"];
    assert_eq!(
        report["rungs"].as_array().map(Vec::len),
        Some(5),
        "{ladder}"
    );
    assert_eq!(report["rungs"][0]["step"], 800);
    let (status, svg) = http_get(server.addr, ladder["ladder"]["svg"].as_str().unwrap()).unwrap();
    assert!(
        status == 200 && String::from_utf8_lossy(&svg).starts_with("<svg"),
        "{status}"
    );
    let arena = games["arena"].as_array().unwrap();
    let listed = arena
        .iter()
        .find(|g| g["key"] == ladder_game)
        .unwrap_or_else(|| panic!("{games}"));
    assert_eq!(
        (
            listed["source"].as_str(),
            listed["result"].as_str(),
            listed["plies"].as_u64(),
            listed["black"].as_str()
        ),
        (Some("ladder"), Some("0-1"), Some(12), Some("greedy")),
        "{listed}"
    );
    assert_eq!(get(&server, &format!("/api/game?key={ladder_game}")).0, 200);

    // Curves: intervals of the Elo series, the second session's first step.
    let (_, curves) = get(&server, "/api/curves");
    assert_eq!(
        curves["intervals"]["elo/vs_greedy"],
        json!([[2.0, 60.0, 140.0]])
    );
    assert_eq!(curves["intervals"]["elo/chain"], json!([[2.0, 0.0, 60.0]]));
    assert_eq!(curves["sessions"], json!([4]));

    // The worker with a game in progress and no shard is seen.
    let (_, now) = get(&server, "/api/now");
    let workers = now["workers"].as_array().unwrap();
    assert!(
        workers
            .iter()
            .any(|w| w["worker"] == "h-7" && w["playing"] == 4),
        "{now}"
    );
    server.stop();
}

#[test]
fn the_trainers_standstill_is_said_in_words_never_infinite() {
    use super::view::step_age;
    assert_eq!(step_age(None, f64::INFINITY), "no training step logged yet");
    assert_eq!(
        step_age(Some(40), 12.4),
        "no new training step for 12 s (step 40)"
    );
    assert!(!step_age(Some(40), f64::INFINITY).contains("inf"));
}

#[test]
fn names_sort_with_their_numbers_as_numbers() {
    use super::view::natural_cmp;
    let mut names = vec![
        "step-12597-vs-greedy",
        "step-800-vs-greedy",
        "step-1600-vs-step-800",
        "step-1600-vs-greedy",
        "step-0800-vs-x",
    ];
    names.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(
        names,
        [
            "step-800-vs-greedy",
            "step-0800-vs-x",
            "step-1600-vs-greedy",
            "step-1600-vs-step-800",
            "step-12597-vs-greedy"
        ]
    );
    let mut dirs = vec!["ladder-to-the-end", "ladder-600-seed2", "ladder-600"];
    dirs.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(
        dirs,
        ["ladder-600", "ladder-600-seed2", "ladder-to-the-end"]
    );
}

/// A run at `dir` with a loss log of two steps (`cpu_seconds` at each; 0: no CPU ledger).
fn run_with_loss_log(dir: &Path, cpu_seconds: f64) -> RunStore {
    let store = RunStore::open(&dir.display().to_string()).unwrap();
    store
        .put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())
        .unwrap();
    let line = |step: u64, value: f64, cpu: f64| {
        to_line(&LossRecord {
            heads: HeadLosses::default().with_step(HeadId::Value, value),
            cpu_seconds: cpu,
            ..LossRecord::at(step, 1000.0 + step as f64 * 60.0)
        })
    };
    let log = format!(
        "{}\n{}\n",
        line(1, 1.5, cpu_seconds / 2.0),
        line(2, 1.0, cpu_seconds)
    );
    store
        .put(&layout::train_log_key(0), log.into_bytes())
        .unwrap();
    store
}

#[test]
fn several_runs_are_compared_side_by_side_and_a_run_not_served_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, empty) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("empty"),
    );
    // Run a: a CPU ledger (0.02 CPU-hours at step 2) and the kept run's ladder report.
    let store = run_with_loss_log(&a, 72.0);
    let kept = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments/baselines/dai-dai-cpu-2026-11-25/ladder/ladder.json");
    let text = std::fs::read_to_string(&kept).unwrap();
    let report = tengu_run::records::read_ladder(&kept.display().to_string(), &text).unwrap();
    store.put(layout::LADDER_REPORT, text.into_bytes()).unwrap();
    // Run b: a loss log without the ledger; run empty: a configuration and nothing else.
    run_with_loss_log(&b, 0.0);
    RunStore::open(&empty.display().to_string())
        .unwrap()
        .put(layout::CONFIG, b"game = \"dai-dai\"\n".to_vec())
        .unwrap();
    let before = files(dir.path());
    let server = Server::start_runs(
        vec![
            Location::Local(a.clone()),
            Location::Local(b.clone()),
            Location::Local(empty.clone()),
        ],
        "127.0.0.1:0".parse().unwrap(),
        Duration::from_millis(200),
        Arc::new(AtomicBool::new(false)),
        super::play::PlayConfig::new(dir.path().join("play")),
    )
    .unwrap();
    assert_eq!(server.runs, ["a", "b", "empty"]);
    // The run page is the first run's.
    assert_eq!(
        get(&server, "/api/now").1["location"],
        a.display().to_string()
    );

    let (status, doc) = get(&server, "/api/compare");
    assert_eq!(status, 200, "{doc}");
    let runs = doc["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b", "empty"]);
    let (ra, rb, re) = (&runs[0], &runs[1], &runs[2]);
    assert_eq!(
        (ra["step"].as_u64(), ra["cpu_hours_axis"].as_bool()),
        (Some(2), Some(true)),
        "{ra}"
    );
    assert_eq!(
        (rb["step"].as_u64(), rb["cpu_hours_axis"].as_bool()),
        (Some(2), Some(false)),
        "{rb}"
    );
    assert_eq!(ra["location"], a.display().to_string());
    // The ladder report as a line of rungs: Elo and interval against CPU-hours.
    let ladder = &ra["ladders"][0];
    assert_eq!(ladder["dir"], "ladder");
    assert_eq!(ladder["zero"], json!(report.opponents[0]));
    let rungs = ladder["rungs"].as_array().unwrap();
    assert_eq!(rungs.len(), report.rungs.len());
    let first = &report.rungs[0];
    assert_eq!(
        (
            rungs[0]["step"].as_u64(),
            rungs[0]["cpu_hours"].as_f64(),
            rungs[0]["elo"].as_f64()
        ),
        (
            Some(first.rung.step),
            Some(first.rung.cpu_hours),
            Some(first.elo)
        )
    );
    assert_eq!(
        (rungs[0]["elo_low"].as_f64(), rungs[0]["elo_high"].as_f64()),
        (Some(first.elo_low), Some(first.elo_high))
    );
    assert_eq!(rb["ladders"], json!([]));
    // A run with no records: shown, nothing to draw, no problem.
    assert!(re["step"].is_null() && re["problem"].is_null(), "{re}");
    assert_eq!(
        (re["ladders"].clone(), re["cpu_hours_axis"].as_bool()),
        (json!([]), Some(false))
    );

    // Each run's curves, as /api/curves gives the first run's.
    let (status, curves) = get(&server, ra["curves"].as_str().unwrap());
    assert_eq!(status, 200, "{curves}");
    assert_eq!(
        curves["series"]["loss/value"],
        json!([[1.0, 1.5], [2.0, 1.0]])
    );
    assert_eq!(curves, get(&server, "/api/curves").1);
    let (_, curves) = get(&server, rb["curves"].as_str().unwrap());
    assert_eq!(
        curves["series"]["loss/value"],
        json!([[1.0, 1.5], [2.0, 1.0]])
    );
    let (status, curves) = get(&server, re["curves"].as_str().unwrap());
    assert_eq!((status, curves["series"].clone()), (200, json!({})));

    // Some runs by name, each once, in the order named.
    let (_, some) = get(&server, "/api/compare?run=empty&run=a&run=empty");
    let names: Vec<&str> = some["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["empty", "a"]);
    // A run not served: refused, named, with the runs that are.
    for path in [
        "/api/compare?run=a&run=nope",
        "/api/compare/curves?run=nope",
    ] {
        let (status, e) = get(&server, path);
        let error = e["error"].as_str().unwrap_or_default();
        assert!(
            status == 404
                && error.contains("\"nope\"")
                && error.contains("a (")
                && error.contains("empty ("),
            "{path}: {status} {e}"
        );
    }
    let (status, e) = get(&server, "/api/compare/curves");
    assert!(
        status == 400 && e["error"].as_str().unwrap().contains("run=NAME"),
        "{status} {e}"
    );
    for (path, says) in [
        ("/compare", "<script src=\"/assets/compare.js\">"),
        ("/assets/compare.js", "/api/compare"),
        ("/assets/chart.js", "var tenguChart"),
    ] {
        let (status, body) = http_get(server.addr, path).unwrap();
        assert!(
            status == 200 && String::from_utf8_lossy(&body).contains(says),
            "{path}: {status}"
        );
    }
    server.stop();
    assert_eq!(before, files(dir.path()), "serve wrote into a run");
}

#[test]
fn a_directory_of_runs_is_its_runs_and_each_run_has_a_name_of_its_own() {
    use super::compare::{names, runs_in};
    let dir = tempfile::tempdir().unwrap();
    for run in ["arm-10", "arm-9", "not-a-run"] {
        std::fs::create_dir_all(dir.path().join(run)).unwrap();
    }
    for run in ["arm-10", "arm-9"] {
        std::fs::write(
            dir.path().join(run).join("config.toml"),
            "game = \"dai-dai\"\n",
        )
        .unwrap();
    }
    let runs = runs_in(Location::Local(dir.path().to_path_buf()));
    assert_eq!(
        runs,
        [
            Location::Local(dir.path().join("arm-9")),
            Location::Local(dir.path().join("arm-10"))
        ]
    );
    assert_eq!(names(&runs), ["arm-9", "arm-10"]);
    // A run is itself; so is a location that is not there yet, or not a directory of runs.
    for one in [
        dir.path().join("arm-9"),
        dir.path().join("later"),
        dir.path().join("not-a-run"),
    ] {
        assert_eq!(
            runs_in(Location::Local(one.clone())),
            [Location::Local(one)]
        );
    }
    let url = Location::parse("s3://bucket/runs/x/").unwrap();
    assert_eq!(runs_in(url.clone()), std::slice::from_ref(&url));
    // Two runs that end alike are told apart by their whole locations.
    let twins = [
        Location::Local(dir.path().join("a/run")),
        Location::Local(dir.path().join("b/run")),
        url,
    ];
    assert_eq!(
        names(&twins),
        [
            dir.path().join("a/run").display().to_string(),
            dir.path().join("b/run").display().to_string(),
            "x".to_string()
        ]
    );
}
