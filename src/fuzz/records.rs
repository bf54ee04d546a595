//! A worker's game-records file, and the small run `tengu serve` is fuzzed over.

use std::path::Path;

use tengu_rules::{Game, Position, Record, Variant};
use tengu_selfplay::records::{line_text, read_records};

use super::input::text;
use crate::config::RunConfig;

/// A game-records file: every line is either a game or named as damaged, never both and
/// never lost; each intact game written back as a line reads to the same record and values.
pub fn records_file(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let (games, damaged) = read_records(text);
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(
        games.len() + damaged.len(),
        lines,
        "every line is a game or damaged"
    );
    for game in games {
        let Ok(record) = game.parse() else { continue };
        let values = game.values.clone().unwrap_or_default();
        let line = line_text(0, &record, &values);
        let (again, bad) = read_records(&line);
        assert!(bad.is_empty(), "{line}: {bad:?}");
        assert_eq!(again.len(), 1, "{line}");
        let parsed = again[0].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(parsed.to_string(), record.to_string(), "record round trip");
        assert_eq!(
            again[0].values.clone().unwrap_or_default(),
            values,
            "values round trip"
        );
    }
}

/// A small run at `dir` as a worker leaves one: its config and a records file of two games
/// (the second with values), `games/1764000000000-fuzz-1-00000.records`.
pub(super) fn small_run(dir: &Path) {
    std::fs::create_dir_all(dir.join("games")).expect("the run's folders");
    std::fs::write(dir.join("config.toml"), RunConfig::default().to_run_text())
        .expect("the run's config");
    let mut lines = String::new();
    for (g, plies) in [(0, 3), (1, 4)] {
        let mut game = Game::new(Position::initial(Variant::dai_dai()));
        for _ in 0..plies {
            let m = game.position().legal_move_list()[0];
            game.play_unchecked(m);
        }
        let values: Vec<Option<f32>> = (0..plies * g).map(|i| Some(i as f32 / 8.0)).collect();
        lines.push_str(&line_text(g, &Record::new(game, &[]), &values));
        lines.push('\n');
    }
    std::fs::write(dir.join("games/1764000000000-fuzz-1-00000.records"), lines)
        .expect("the run's games");
}
