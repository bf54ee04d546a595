//! `tengu xboard` as a process, driven the way QBoard drives it: the start-up burst written
//! at once, moves relayed between two engines with per-leg `move` lines reassembled and sent
//! back prefixed with `usermove`, every move checked with the rules crate, under `st` and
//! `level` time controls, and no loss on time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tengu_rules::{Color, Game, Move, Position, Square, Variant};

mod common;

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    name: &'static str,
}

impl Engine {
    fn start(name: &'static str, args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .arg("xboard")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("tengu xboard starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            name,
        }
    }

    /// Writes lines in one write, as QBoard's start-up burst goes out.
    fn send(&mut self, lines: &[&str]) {
        let mut text = lines.join("\n");
        text.push('\n');
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one matches `done`; returns them all. Panics after `timeout`.
    fn read_until(&self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let end = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let stop = done(&l);
                    got.push(l);
                    if stop {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{}: nothing after {timeout:?}; read {got:?}", self.name)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("{}: the engine exited; read {got:?}", self.name)
                }
            }
        }
    }

    /// The engine's next move, reassembled as QBoard does (per-leg lines; a non-final leg
    /// ends in `,`), and how long it took from `since`.
    fn read_move(&self, timeout: Duration) -> (String, Vec<String>) {
        let lines = self.read_until(timeout, |l| l.starts_with("move ") && !l.ends_with(','));
        for l in &lines {
            assert!(!l.contains("Illegal move"), "{}: {lines:?}", self.name);
            assert!(!l.starts_with("Error"), "{}: {lines:?}", self.name);
        }
        let legs: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("move "))
            .collect();
        (legs.concat(), lines)
    }

    fn quit(mut self, within: Duration) {
        let _ = self.stdin.write_all(b"quit\n");
        let _ = self.stdin.flush();
        let end = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{}: exit status {status}", self.name);
                return;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!("{}: still running {within:?} after quit", self.name);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The referee's own reading of an XBoard move (independent of the engine's parser): the
/// squares of the legs; the captured set is the enemy pieces on the inner landing squares
/// and the destination; `+` asks for the promoting version. The move must be legal.
fn referee_move(pos: &Position, text: &str) -> Move {
    let size = pos.size();
    let moves = pos.legal_move_list();
    if text == "@@@@" {
        return *moves.iter().find(|m| m.is_pass()).expect("a legal pass");
    }
    let promote = text.ends_with('+');
    let body = text.trim_end_matches('+');
    let square = |t: &str| -> Square {
        let col = (t.as_bytes()[0] - b'a') as usize;
        let rank: usize = t[1..].parse().expect("a rank");
        assert!(col < size && (1..=size).contains(&rank), "{t}");
        Square::new(col, size - rank)
    };
    let mut path = Vec::new();
    for leg in body.split(',') {
        let split = leg[1..]
            .find(|c: char| c.is_ascii_lowercase())
            .expect("two squares")
            + 1;
        let (a, b) = (square(&leg[..split]), square(&leg[split..]));
        if let Some(&last) = path.last() {
            assert_eq!(last, a, "legs chain in {text}");
        } else {
            path.push(a);
        }
        path.push(b);
    }
    let me = pos.side_to_move();
    let (from, to) = (path[0], *path.last().unwrap());
    let enemy = |s: Square| pos.piece_at(s).is_some_and(|p| p.color != me);
    let mut captured: Vec<Square> = path[1..]
        .iter()
        .copied()
        .filter(|&s| s != from && enemy(s))
        .collect();
    captured.sort();
    captured.dedup();
    let found: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| m.from() == from && m.to() == to && m.captures().eq(captured.iter().copied()))
        .filter(|m| !m.promotion_optional() || m.promotes() == promote)
        .collect();
    assert_eq!(found.len(), 1, "{text} in {pos}: {found:?}");
    assert_eq!(
        found[0].promotes(),
        promote,
        "{text}: the + mark must show a promotion"
    );
    found[0]
}

const ALPHABETA: &[&str] = &["--alphabeta", "--movetime", "300"];

#[test]
fn qboard_start_up_transcript_as_a_process() {
    for variant in ["daidai", "maka"] {
        // tengu first: QBoard's burst, with `st 1` ("use time" on), then `go`.
        let mut e = Engine::start("first", ALPHABETA);
        e.send(&[
            "xboard",
            "protover 2",
            "new",
            &format!("variant {variant}"),
            "st 1",
            "go",
        ]);
        let features = e.read_until(Duration::from_secs(10), |l| l.contains("done=1"));
        let all = features.join("\n");
        for f in [
            "usermove=1",
            "setboard=1",
            "ping=1",
            "sigint=0",
            "sigterm=0",
        ] {
            assert!(all.contains(f), "{f}: {all}");
        }
        let (m, _) = e.read_move(Duration::from_secs(10));
        let mut game = Game::new(Position::initial(
            Variant::builtin(if variant == "maka" {
                "maka-dai-dai"
            } else {
                "dai-dai"
            })
            .unwrap(),
        ));
        let mv = referee_move(game.position(), &m);
        game.play(mv).unwrap();
        e.quit(Duration::from_secs(2));

        // tengu second, no time control (QBoard's default): the default budget applies.
        let mut e = Engine::start("second", ALPHABETA);
        e.send(&["xboard", "protover 2", "new", &format!("variant {variant}")]);
        e.read_until(Duration::from_secs(10), |l| l.contains("done=1"));
        let mut game = Game::new(Position::initial(game.position().variant().clone()));
        let first = game.position().legal_move_list()[5];
        let text = tengu_engine::notation::move_text(first, game.position().size());
        game.play(first).unwrap();
        e.send(&[&format!("usermove {text}")]);
        let (m, _) = e.read_move(Duration::from_secs(10));
        let mv = referee_move(game.position(), &m);
        game.play(mv).unwrap();
        // `?` outside a search, ping, junk: answered in order, nothing else moves.
        e.send(&["?", "frobnicate", "ping 9"]);
        let lines = e.read_until(Duration::from_secs(5), |l| l.starts_with("pong"));
        assert_eq!(lines, vec!["Error (unknown command): frobnicate", "pong 9"]);
        e.quit(Duration::from_secs(2));
    }
}

#[test]
fn quit_and_move_now_interrupt_a_search() {
    let mut e = Engine::start("long", &["--alphabeta", "--movetime", "60000"]);
    e.send(&["xboard", "protover 2", "new", "variant daidai", "go"]);
    e.read_until(Duration::from_secs(10), |l| l.contains("done=1"));
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send(&["?"]);
    let (m, _) = e.read_move(Duration::from_secs(5));
    assert!(asked.elapsed() < Duration::from_secs(5));
    referee_move(&Position::initial(Variant::dai_dai()), &m);
    // A search cut by `quit`.
    let e2 = {
        let mut e2 = Engine::start("quitter", &["--alphabeta", "--movetime", "60000"]);
        e2.send(&["xboard", "protover 2", "new", "variant maka", "go"]);
        e2.read_until(Duration::from_secs(10), |l| l.contains("done=1"));
        std::thread::sleep(Duration::from_millis(300));
        e2
    };
    e2.quit(Duration::from_secs(2));
    e.quit(Duration::from_secs(2));
}

/// A referee plays `plies` plies between two engines as QBoard relays them.
fn referee_game(variant: &str, control: &str, plies: usize) {
    let v = Variant::builtin(if variant == "maka" {
        "maka-dai-dai"
    } else {
        "dai-dai"
    })
    .unwrap();
    let mut engines = [
        Engine::start("first mover", ALPHABETA),
        Engine::start("second mover", ALPHABETA),
    ];
    for (i, e) in engines.iter_mut().enumerate() {
        let mut burst = vec!["xboard", "protover 2", "new"];
        let var = format!("variant {variant}");
        burst.push(&var);
        burst.push(control);
        if i == 0 {
            burst.push("go");
        }
        e.send(&burst);
    }
    // The referee's clocks.
    let words: Vec<&str> = control.split_whitespace().collect();
    let (per_move, mut clocks, mps, base) = match words[..] {
        ["st", s] => (
            Some(Duration::from_secs(s.parse().unwrap())),
            [Duration::MAX; 2],
            0,
            Duration::ZERO,
        ),
        ["level", mps, base, _] => {
            let (m, s) = base.split_once(':').unwrap();
            let base =
                Duration::from_secs(m.parse::<u64>().unwrap() * 60 + s.parse::<u64>().unwrap());
            (None, [base; 2], mps.parse::<usize>().unwrap(), base)
        }
        _ => panic!("control {control}"),
    };
    let mut game = Game::new(Position::initial(v));
    let mut asked = Instant::now();
    let mut moves_made = [0usize; 2];
    for ply in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let side = if game.position().side_to_move() == Color::Black {
            0
        } else {
            1
        };
        let (m, lines) = engines[side].read_move(Duration::from_secs(30));
        let spent = asked.elapsed();
        if let Some(t) = per_move {
            // `st`: the move is due in t; 250 ms for process scheduling on a busy machine.
            assert!(
                spent <= t + Duration::from_millis(250),
                "ply {ply}: {spent:?} under st {t:?}"
            );
        } else {
            assert!(
                spent < clocks[side],
                "ply {ply}: {} lost on time ({spent:?} of {:?})",
                engines[side].name,
                clocks[side]
            );
            clocks[side] -= spent;
            moves_made[side] += 1;
            if mps > 0 && moves_made[side] % mps == 0 {
                clocks[side] += base;
            }
        }
        let mv = referee_move(game.position(), &m);
        game.play(mv)
            .unwrap_or_else(|e| panic!("ply {ply}: {e} ({lines:?})"));
        let other = 1 - side;
        engines[other].send(&[&format!("usermove {m}")]);
        asked = Instant::now();
    }
    let result = match game.outcome() {
        Some(o) => format!("result {} {{{}}}", o.result_text(), o.termination.as_str()),
        None => "result 1/2-1/2 {ply cap}".to_string(),
    };
    for mut e in engines {
        e.send(&[&result]);
        e.quit(Duration::from_secs(3));
    }
}

#[test]
fn referee_game_dai_dai_under_st() {
    referee_game("daidai", "st 1", 14);
}

#[test]
fn referee_game_maka_under_level() {
    referee_game("maka", "level 40 0:08 0", 24);
}

/// `tengu xboard --checkpoint` searches with the checkpoint's own settings: a `<name>.toml`
/// beside it (a shipped network), else its run's `config.toml`; `--search-config` chooses
/// another. Which one is used is logged.
#[test]
fn the_engine_searches_with_the_checkpoints_own_search_settings() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::tiny_run(dir.path(), "[search]\nroot = \"gumbel\"\n");
    let checkpoint = run.join("models/model-000000000.safetensors");
    let source = |extra: &[&str]| -> (bool, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args(["--log", "info", "xboard", "--checkpoint"])
            .arg(&checkpoint)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // An engine that refuses its arguments may exit before reading: no error then.
        let _ = child.stdin.take().unwrap().write_all(b"quit\n");
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, log) = source(&[]);
    assert!(
        ok && log.contains("search settings") && log.contains("config.toml"),
        "{log}"
    );
    std::fs::write(checkpoint.with_extension("toml"), "[search]\nvisits = 16\n").unwrap();
    let (ok, log) = source(&[]);
    assert!(ok && log.contains("model-000000000.toml"), "{log}");
    let (ok, log) = source(&[
        "--search-config",
        dir.path().join("missing.toml").to_str().unwrap(),
    ]);
    assert!(!ok && log.contains("missing.toml"), "{log}");
}

/// Without `--checkpoint` the engine plays each game with the network shipped for it in the
/// binary (`networks/`), searching with that network's own settings; it says so in the log
/// and moves legally.
#[test]
fn without_a_checkpoint_the_engine_plays_the_shipped_network() {
    let cache = tempfile::tempdir().unwrap();
    for (variant, game, expected) in [
        ("daidai", "dai-dai", "with shipped network dai-dai step"),
        (
            "maka",
            "maka-dai-dai",
            "with shipped network maka-dai-dai step",
        ),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args(["--log", "info", "xboard", "--movetime", "20000"])
            .env("TENGU_CACHE", cache.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(format!("xboard\nprotover 2\nnew\nvariant {variant}\ngo\n").as_bytes())
            .unwrap();
        stdin.flush().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let reply = stdout
            .lines()
            .map(|l| l.unwrap())
            .find(|l| l.starts_with("move "))
            .expect("a move");
        stdin.write_all(b"quit\n").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && log.contains(expected),
            "{variant}: {log}"
        );
        let position = Position::initial(Variant::builtin(game).unwrap());
        referee_move(&position, reply.trim_start_matches("move "));
        // The shipped search settings, not the defaults: the network's visits, not --movetime.
        assert!(
            log.contains("shipped network (networks/manifest.json)"),
            "{log}"
        );
    }
}

/// Started as an engine (no `--log`), tengu writes nothing to stderr but warnings: QBoard
/// shows every stderr line in red in its engine pane and logs it as "Error while running
/// process". `--log info` still asks for the rest.
#[test]
fn as_an_engine_it_logs_only_warnings_unless_asked() {
    let cache = tempfile::tempdir().unwrap();
    let play = |log: &[&str]| -> String {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
            .args(log)
            .args(["xboard", "--movetime", "20000"])
            .env("TENGU_CACHE", cache.path())
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"xboard\nprotover 2\nnew\nvariant maka\ngo\n")
            .unwrap();
        stdin.flush().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        stdout
            .lines()
            .map(|l| l.unwrap())
            .find(|l| l.starts_with("move "))
            .expect("a move");
        stdin.write_all(b"quit\n").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let quiet = play(&[]);
    assert!(
        quiet.is_empty(),
        "stderr of an engine started without --log:\n{quiet}"
    );
    let asked = play(&["--log", "info"]);
    assert!(
        asked.contains("INFO") && asked.contains("shipped network"),
        "{asked}"
    );
}

/// Under every preset of both games the engine plays with the network shipped for the game,
/// which plays every rule set of it: its thinking lines count the network search's visits,
/// not alpha-beta's nodes, and its move is legal under the preset. Where the preset is not
/// the network's training rule set, the engine tells the user once (`telluser`, a dialog in
/// QBoard) which options differ, and warns in its log.
#[test]
fn every_preset_of_both_games_plays_the_shipped_networks_search() {
    let cache = tempfile::tempdir().unwrap();
    for (xboard_name, game) in [("daidai", "dai-dai"), ("maka", "maka-dai-dai")] {
        for preset in tengu_rules::ruleset::PRESETS {
            let rules = tengu_rules::RuleSet::preset(game, preset.name).unwrap();
            let option = format!("preset={}", preset.name);
            let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
                .args(["xboard", "--visits", "6"])
                .args(["--option", &option])
                .env("TENGU_CACHE", cache.path())
                .env_remove("RUST_LOG")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let burst = format!("xboard\nprotover 2\nnew\nvariant {xboard_name}\npost\ngo\n");
            stdin.write_all(burst.as_bytes()).unwrap();
            stdin.flush().unwrap();
            let mut lines = Vec::new();
            for line in BufReader::new(child.stdout.take().unwrap()).lines() {
                let line = line.unwrap();
                let last = line.starts_with("move ") && !line.ends_with(',');
                lines.push(line);
                if last {
                    break;
                }
            }
            stdin.write_all(b"quit\n").unwrap();
            drop(stdin);
            let out = child.wait_with_output().unwrap();
            let log = String::from_utf8_lossy(&out.stderr).into_owned();
            let key = rules.canonical();
            let what = format!("{key}: {lines:?}\n{log}");
            assert!(out.status.success(), "{what}");
            // Thinking lines `depth score centiseconds nodes pv`: MCTS's root visits.
            let nodes: Vec<u64> = lines
                .iter()
                .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
                .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
                .collect();
            assert!(!nodes.is_empty() && nodes.iter().all(|&n| n <= 6), "{what}");
            let legs: String = lines
                .iter()
                .filter_map(|l| l.strip_prefix("move "))
                .collect();
            let variant = Variant::by_key(&key).unwrap();
            referee_move(&Position::initial(variant), &legs);
            let told: Vec<&String> = lines.iter().filter(|l| l.starts_with("tell")).collect();
            let warned = log.lines().filter(|l| l.contains("WARN")).count();
            if key == game {
                assert!(told.is_empty() && warned == 0, "{what}");
            } else {
                assert_eq!(told.len(), 1, "{what}");
                let expected = format!("telluser tengu plays with shipped network {game} step");
                assert!(told[0].starts_with(&expected), "{what}");
                let differ = format!(
                    "trained under the rules {game} and plays under {key}; they differ in "
                );
                assert!(told[0].contains(&differ), "{what}");
                // The log's one warning says the same.
                assert_eq!(warned, 1, "{what}");
                assert!(log.contains(&format!("plays under {key}")), "{what}");
            }
        }
    }
}

/// A checkpoint of the other game is refused by name: the engine plays alpha-beta and says
/// so, to the user (`telluser`) and in its log.
#[test]
fn a_checkpoint_of_the_other_game_is_refused_and_the_user_told() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let maka = root.join("networks/maka-dai-dai.safetensors");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengu"))
        .args(["xboard", "--movetime", "300", "--checkpoint"])
        .arg(&maka)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"xboard\nprotover 2\nnew\nvariant daidai\npost\ngo\n")
        .unwrap();
    stdin.flush().unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let last = line.starts_with("move ") && !line.ends_with(',');
        lines.push(line);
        if last {
            break;
        }
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let told: Vec<&String> = lines.iter().filter(|l| l.starts_with("tell")).collect();
    assert_eq!(told.len(), 1, "{lines:?}");
    for part in [
        "a checkpoint of maka-dai-dai (maka-dai-dai), but the game is dai-dai (dai-dai)",
        "with alpha-beta",
    ] {
        assert!(told[0].contains(part), "{lines:?}");
        assert!(log.contains(part), "{log}");
    }
}
