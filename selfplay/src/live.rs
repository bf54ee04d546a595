//! The game in progress a self-play worker shows (`tengu serve`'s Live panel): one of its
//! games in flight, written as one small self-describing JSON object to
//! `live/<host>-<pid>.json` of the run (`tengu_store::layout::live_key`) at most every
//! `selfplay.live_game_seconds`, replaced in place (the store's put is atomic: a reader sees
//! the old or the new object) and deleted when the worker stops. The worker follows one game
//! until it ends, then the longest game in flight. Writing it is a view, never a duty: a
//! store error is logged and self-play goes on.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tengu_rules::Record;
use tengu_shard::Row;
use tengu_store::{layout, RunStore};

use crate::play::SelfPlay;

/// The `format` of a live game object; readers refuse others by name.
pub const FORMAT: &str = "tengu-live-game/1";

/// A worker's game in progress, as written to `live/<writer>.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveGame {
    /// [`FORMAT`].
    pub format: String,
    /// The worker: `<host>-<pid>`, as in its shards' headers.
    pub writer: String,
    /// The game's number in the worker (games it started before this one).
    pub game: u64,
    /// When it was written: milliseconds since the Unix epoch, by the worker's clock.
    pub unix_ms: u64,
    /// The worker's `selfplay.live_game_seconds`: an object not rewritten for several of
    /// these belongs to a worker that is gone.
    pub interval_seconds: f64,
    /// The checkpoint playing it (`uniform` before the first).
    pub model: String,
    /// The record so far (RULES.md §12.4; result `*`).
    pub record: String,
    /// Per ply from the game's start: the root value of the search that chose the move,
    /// from the view of the side that moved (-1..1, rounded to 3 decimals); `null` for
    /// moves not searched (an opening's, a restart's earlier moves). As long as the moves.
    pub values: Vec<Option<f32>>,
}

/// Why bytes are not a live game.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("not a live game object (JSON): {0}")]
    Json(#[from] serde_json::Error),
    #[error("format {found:?}; this tengu reads {FORMAT:?}")]
    Format { found: String },
    #[error("its record: {0}")]
    Record(#[from] tengu_rules::ParseError),
    #[error("{values} values for {plies} plies")]
    Values { values: usize, plies: usize },
}

impl LiveGame {
    /// Parses and checks a live game object: its format, its record, one value per ply.
    pub fn parse(bytes: &[u8]) -> Result<(LiveGame, Record), LiveError> {
        let live: LiveGame = serde_json::from_slice(bytes)?;
        if live.format != FORMAT {
            return Err(LiveError::Format { found: live.format });
        }
        let record = Record::parse(&live.record)?;
        if live.values.len() != record.game.len() {
            return Err(LiveError::Values {
                values: live.values.len(),
                plies: record.game.len(),
            });
        }
        Ok((live, record))
    }
}

/// A value as written: rounded to 3 decimals (enough for a display, half the bytes).
pub fn rounded(v: f32) -> f32 {
    (v * 1000.0).round() / 1000.0
}

/// The search values per ply of a finished game of `plies` plies from its rows (see
/// [`LiveGame::values`]); a resigning side's last row (its move was never played) is left
/// out.
pub fn move_values(rows: &[Row], plies: usize) -> Vec<Option<f32>> {
    let mut values = vec![None; plies];
    for r in rows {
        if let Some(v) = values.get_mut(r.ply as usize) {
            *v = Some(rounded(r.search_value));
        }
    }
    values
}

/// Writes a worker's game in progress every `every`.
pub struct Publisher {
    writer: String,
    key: String,
    every: Option<Duration>,
    last: Instant,
    following: Option<u64>,
    written: bool,
    /// Seconds spent building and writing the objects, and their count (the cost to
    /// self-play, logged at the end).
    spent: Duration,
    writes: u64,
}

impl Publisher {
    /// A publisher writing at most every `seconds` (0: never); the first write comes
    /// `seconds` after this call.
    pub fn new(seconds: f64) -> Publisher {
        let writer = layout::writer_name();
        Publisher {
            key: layout::live_key(&writer),
            writer,
            every: (seconds > 0.0).then(|| Duration::from_secs_f64(seconds)),
            last: Instant::now(),
            following: None,
            written: false,
            spent: Duration::ZERO,
            writes: 0,
        }
    }

    /// Writes the followed game (or a new one to follow) when the interval has passed;
    /// returns whether it wrote.
    pub fn publish(&mut self, store: &RunStore, play: &SelfPlay) -> bool {
        let Some(every) = self.every else {
            return false;
        };
        if self.last.elapsed() < every {
            return false;
        }
        let t = Instant::now();
        self.last = t;
        let Some(game) = play.game_in_flight(self.following) else {
            return false;
        };
        self.following = Some(game.number);
        let live = LiveGame {
            format: FORMAT.into(),
            writer: self.writer.clone(),
            game: game.number,
            unix_ms: layout::unix_ms(),
            interval_seconds: every.as_secs_f64(),
            model: game.model,
            record: game.record.to_string(),
            values: game.values.into_iter().map(|v| v.map(rounded)).collect(),
        };
        let bytes = serde_json::to_vec(&live).expect("a live game serializes");
        let wrote = match store.put(&self.key, bytes) {
            Ok(()) => {
                self.written = true;
                true
            }
            Err(e) => {
                tracing::warn!("cannot show the game in progress: {e}");
                false
            }
        };
        self.spent += t.elapsed();
        self.writes += 1;
        wrote
    }

    /// Deletes the object (the worker stops); logs the time spent on it.
    pub fn remove(&mut self, store: &RunStore) {
        if self.written {
            if let Err(e) = store.delete(&self.key) {
                tracing::warn!("cannot remove the game in progress {}: {e}", self.key);
            }
            self.written = false;
        }
        if self.writes > 0 {
            tracing::info!(
                writes = self.writes,
                ms_each = self.spent.as_secs_f64() * 1000.0 / self.writes as f64,
                "games in progress shown"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_model::UniformEvaluator;
    use tengu_rules::Variant;
    use tengu_search::SearchConfig;

    use crate::SelfplayConfig;

    #[test]
    fn a_worker_shows_a_game_in_flight_and_follows_it_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let store = RunStore::open(dir.path().to_str().unwrap()).unwrap();
        let search = SearchConfig {
            visits: 4,
            ..SearchConfig::default()
        };
        let config = SelfplayConfig {
            games_in_flight: 3,
            cheap_visits: 2,
            max_plies: 400,
            ..SelfplayConfig::default()
        };
        let mut play = SelfPlay::new(Variant::dai_dai(), search, config, 7);
        let mut publisher = Publisher::new(1e-6);
        let key = layout::live_key(&layout::writer_name());
        let mut seen: Vec<LiveGame> = Vec::new();
        for _ in 0..400 {
            play.step(&mut UniformEvaluator).unwrap();
            std::thread::sleep(Duration::from_micros(2));
            if publisher.publish(&store, &play) {
                let bytes = store.get(&key).unwrap().expect("written");
                let (live, record) = LiveGame::parse(&bytes).unwrap();
                assert_eq!(record.tag("Result"), Some("*"));
                assert_eq!(live.values.len(), record.game.len());
                seen.push(live);
            }
        }
        assert!(seen.len() > 10, "{} writes", seen.len());
        // The same game, longer each time; every move played was searched.
        let first = &seen[0];
        let later: Vec<&LiveGame> = seen.iter().filter(|l| l.game == first.game).collect();
        assert!(later.len() > 10);
        let plies: Vec<usize> = later.iter().map(|l| l.values.len()).collect();
        assert!(
            plies.windows(2).all(|w| w[0] <= w[1]) && plies[plies.len() - 1] > plies[0],
            "{plies:?}"
        );
        let last = later.last().unwrap();
        assert!(
            last.values
                .iter()
                .all(|v| v.is_some_and(|v| (-1.0..=1.0).contains(&v))),
            "{:?}",
            last.values
        );
        publisher.remove(&store);
        assert!(
            store.get(&key).unwrap().is_none(),
            "the live game is removed when the worker stops"
        );
    }

    #[test]
    fn damaged_or_foreign_objects_are_refused_by_cause() {
        let e = LiveGame::parse(b"{\"format\": \"tengu-live-game/1\", \"wri").unwrap_err();
        assert!(matches!(e, LiveError::Json(_)), "{e}");
        let mut live = LiveGame {
            format: "tengu-live-game/9".into(),
            writer: "h-1".into(),
            game: 0,
            unix_ms: 1,
            interval_seconds: 15.0,
            model: "uniform".into(),
            record: "[Game \"Dai Dai Shogi\"]\n[Result \"*\"]\n".into(),
            values: vec![],
        };
        let parse = |l: &LiveGame| LiveGame::parse(&serde_json::to_vec(l).unwrap());
        assert!(matches!(parse(&live), Err(LiveError::Format { .. })));
        live.format = FORMAT.into();
        parse(&live).unwrap();
        live.values = vec![Some(0.5)];
        assert!(matches!(
            parse(&live),
            Err(LiveError::Values {
                values: 1,
                plies: 0
            })
        ));
        live.values.clear();
        live.record = "[Game \"Chess\"]\n".into();
        assert!(matches!(parse(&live), Err(LiveError::Record(_))));
    }
}
