//! Self-play games started from an openings file: the opening's moves open the record, rows
//! begin after them with plies counted from the initial position, and bad files or settings
//! are refused by name.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tengu_model::Backend;
use tengu_rules::{parse_openings, Game, OpeningsError, Variant};
use tengu_search::SearchConfig;
use tengu_selfplay::openings::read_openings;
use tengu_selfplay::play::FinishedGame;
use tengu_selfplay::worker::{self, WorkerError, WorkerOptions};
use tengu_selfplay::{SelfPlay, SelfplayConfig};

mod common;

const BOOK: &str = "# two openings\n9l>9k 9f>9g 13l>13k # ply 3\n\n13l>13k 5f>5g # ply 2\n";

fn config(share: f32) -> SelfplayConfig {
    SelfplayConfig {
        games_in_flight: 2,
        cheap_visits: 2,
        max_plies: 14,
        full_search_share: 0.5,
        opening_share: share,
        openings: Some("book.txt".into()),
        ..SelfplayConfig::default()
    }
}

fn play_games(share: f32, games: u64) -> Vec<FinishedGame> {
    let variant = Variant::dai_dai();
    let search = SearchConfig {
        visits: 4,
        ..SearchConfig::default()
    };
    let mut play = SelfPlay::new(variant.clone(), search, config(share), 7);
    play.set_openings(parse_openings(&variant, BOOK).unwrap())
        .unwrap();
    common::finish_games(&mut play, games)
}

#[test]
fn games_from_openings_record_the_opening_and_row_only_the_searched_plies() {
    let variant = Variant::dai_dai();
    let openings = parse_openings(&variant, BOOK).unwrap();
    for g in play_games(1.0, 4) {
        let i = g.opening.expect("every game starts from an opening");
        let opening = &openings[i];
        assert_eq!(g.record.tag("Opening"), Some(i.to_string().as_str()));
        assert_eq!(
            g.record.tag("OpeningLine"),
            Some(opening.line.to_string().as_str())
        );
        // The record replays from the initial position, the opening first.
        let record = tengu_rules::Record::parse(&g.record.to_string()).unwrap();
        assert!(record.tag("Start").is_none());
        let moves: Vec<_> = record.game.moves().collect();
        assert_eq!(moves[..opening.moves.len()], opening.moves[..]);
        assert_eq!(moves.len() as u32, g.plies);
        assert!(g.plies <= 14);
        // Rows start after the opening; plies count from the initial position.
        let first = opening.moves.len();
        let mut replay = Game::new(record.game.start().clone());
        for &m in &moves[..first] {
            replay.play_unchecked(m);
        }
        for (k, row) in g.rows.iter().enumerate() {
            assert_eq!(row.ply as usize, first + k);
            assert_eq!(row.game_plies, g.plies);
            assert_eq!(row.position, replay.position().to_string());
            if first + k < moves.len() {
                replay.play_unchecked(moves[first + k]);
            }
        }
        let extra = (g.termination == tengu_rules::GameEnd::Resignation) as usize;
        assert_eq!(g.rows.len() + first, g.plies as usize + extra);
    }
}

#[test]
fn a_zero_share_starts_every_game_from_the_initial_position() {
    for g in play_games(0.0, 2) {
        assert_eq!(g.opening, None);
        assert_eq!(g.record.tag("Opening"), None);
        assert_eq!(g.rows[0].ply, 0);
    }
}

#[test]
fn the_settings_are_checked() {
    assert!(config(0.5).validate().is_ok());
    let err = config(1.5).validate().unwrap_err().to_string();
    assert!(err.contains("selfplay.opening_share"), "{err}");
    let err = SelfplayConfig {
        openings: None,
        ..config(0.25)
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(err.contains("needs selfplay.openings"), "{err}");
    // A file without a share is allowed (the file is still checked by the worker).
    assert!(config(0.0).validate().is_ok());
    // The TOML keys.
    let parsed: SelfplayConfig =
        toml::from_str("openings = \"book.txt\"\nopening_share = 0.25\n").unwrap();
    assert_eq!(
        parsed.openings.as_deref(),
        Some(std::path::Path::new("book.txt"))
    );
    assert_eq!(parsed.opening_share, 0.25);
    let defaults: SelfplayConfig = toml::from_str("").unwrap();
    assert_eq!((defaults.openings, defaults.opening_share), (None, 0.0));
    // The default config serialises without an `openings` key (TOML has no null).
    let text = toml::to_string(&SelfplayConfig::default()).unwrap();
    assert!(
        !text.contains("openings =") && text.contains("opening_share = 0.0"),
        "{text}"
    );
}

#[test]
fn openings_as_long_as_the_ply_cap_are_refused() {
    let variant = Variant::dai_dai();
    let mut play = SelfPlay::new(
        variant.clone(),
        SearchConfig::default(),
        SelfplayConfig {
            max_plies: 3,
            ..config(1.0)
        },
        1,
    );
    let err = play
        .set_openings(parse_openings(&variant, BOOK).unwrap())
        .unwrap_err();
    assert_eq!((err.line, err.plies, err.max_plies), (2, 3, 3), "{err}");
    assert!(
        err.to_string()
            .starts_with("line 2: the opening has 3 plies"),
        "{err}"
    );
}

#[test]
fn a_bad_openings_file_stops_the_worker_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "start\n# fine so far\n9l>9k 9l>9k\n").unwrap();
    let options = WorkerOptions {
        run: tengu_store::RunStore::open(&dir.path().join("run").display().to_string()).unwrap(),
        variant: Variant::dai_dai(),
        backend: Backend::Burn,
        search: SearchConfig {
            visits: 4,
            ..SearchConfig::default()
        },
        selfplay: SelfplayConfig {
            openings: Some(book.clone()),
            ..config(0.5)
        },
        seed: 1,
        max_games: Some(1),
        stop: Arc::new(AtomicBool::new(false)),
    };
    let err = worker::run(&options, &mut |_| {}).unwrap_err();
    assert!(matches!(err, WorkerError::Openings(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "selfplay.openings: {}: line 3: ply 2: move \"9l>9k\"",
            book.display()
        )),
        "{message}"
    );
    // Nothing was written: the file is checked before the worker plays.
    assert!(!dir.path().join("run").join("shards").exists());
}

#[test]
fn read_openings_names_the_file() {
    let variant = Variant::dai_dai();
    let dir = std::env::temp_dir().join(format!("tengu-openings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.txt");
    std::fs::write(&path, "start\n1a>1b\n").unwrap();
    let err = read_openings(&path, &variant).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}: line 2: ", path.display())),
        "{message}"
    );
    std::fs::write(&path, "start\n").unwrap();
    assert_eq!(read_openings(&path, &variant).unwrap().len(), 1);
    let missing = dir.join("missing.txt");
    let err = read_openings(&missing, &variant).unwrap_err();
    assert!(matches!(err, OpeningsError::Read { .. }), "{err:?}");
    assert!(err.to_string().contains("missing.txt"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
