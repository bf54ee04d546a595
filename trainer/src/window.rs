//! The sliding window of replay rows: the newest shards of a run, by row count.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::Rng;
use tengu_model::burn_eval::TrainExample;
use tengu_rules::{Move, Position, Variant};
use tengu_selfplay::shard::{self, Row};

/// Rows of the newest shards, at most about `capacity` of them.
pub struct Window {
    capacity: usize,
    game: String,
    /// Shards in the window, oldest name first (names start with a time stamp).
    shards: BTreeMap<PathBuf, Vec<Row>>,
    /// Every shard seen (in the window or dropped from it) and rejected ones.
    seen: HashSet<PathBuf>,
    /// Rows of every valid shard seen since the run began.
    pub rows_seen: u64,
    /// Games finished in those shards.
    pub games_seen: u64,
}

impl Window {
    pub fn new(capacity: usize, game: &str) -> Window {
        Window {
            capacity,
            game: game.into(),
            shards: BTreeMap::new(),
            seen: HashSet::new(),
            rows_seen: 0,
            games_seen: 0,
        }
    }

    /// Rows now in the window.
    pub fn len(&self) -> usize {
        self.shards.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads shards of `dir` not seen before; invalid ones are logged and skipped (once).
    /// Returns the number of new rows.
    pub fn ingest(&mut self, dir: &Path) -> Result<usize, shard::ShardError> {
        if !dir.exists() {
            return Ok(0);
        }
        let mut added = 0;
        for path in shard::list(dir)? {
            if !self.seen.insert(path.clone()) {
                continue;
            }
            match shard::read(&path) {
                Ok((header, rows)) if header.game == self.game => {
                    added += rows.len();
                    self.rows_seen += rows.len() as u64;
                    self.games_seen += u64::from(header.games);
                    self.shards.insert(path, rows);
                }
                Ok((header, _)) => tracing::warn!(
                    "{}: a {} shard in a {} run; skipped",
                    path.display(),
                    header.game,
                    self.game
                ),
                Err(e) => tracing::warn!("skipping shard: {e}"),
            }
        }
        // Drop the oldest shards while the rest still fill the window.
        while let Some((oldest, rows)) =
            self.shards.iter().next().map(|(p, r)| (p.clone(), r.len()))
        {
            if self.len() - rows < self.capacity {
                break;
            }
            self.shards.remove(&oldest);
        }
        Ok(added)
    }

    /// A uniformly drawn row of the window.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Option<&Row> {
        let total = self.len();
        if total == 0 {
            return None;
        }
        let mut k = rng.gen_range(0..total);
        for rows in self.shards.values() {
            if k < rows.len() {
                return Some(&rows[k]);
            }
            k -= rows.len();
        }
        None
    }

    /// Every row of the window, oldest first.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.shards.values().flatten()
    }
}

/// A row decoded for training: the position, its legal moves and the targets.
pub struct Example {
    pub position: Position,
    pub repetitions: u32,
    pub moves: Vec<Move>,
    /// Target weight per legal move (all zero for rows that are not policy targets).
    pub policy: Vec<f32>,
    pub wdl: [f32; 3],
}

impl Example {
    /// Decodes a row; the message says what does not fit the game's rules.
    pub fn from_row(row: &Row, variant: &Arc<Variant>) -> Result<Example, String> {
        let position = Position::parse_for(variant.clone(), &row.position)
            .map_err(|e| format!("row position: {e}"))?;
        let moves = position.legal_move_list();
        let mut policy = vec![0.0f32; moves.len()];
        if row.full_search {
            for (text, weight) in &row.policy {
                let m = position
                    .parse_move(text)
                    .map_err(|e| format!("row policy move {text}: {e}"))?;
                let i = moves
                    .iter()
                    .position(|&x| x == m)
                    .ok_or_else(|| format!("row policy move {text} is not legal"))?;
                policy[i] = *weight;
            }
        }
        let wdl = match row.result {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        Ok(Example {
            position,
            repetitions: row.repetitions as u32,
            moves,
            policy,
            wdl,
        })
    }

    pub fn as_train(&self) -> TrainExample<'_> {
        TrainExample {
            position: &self.position,
            repetitions: self.repetitions,
            moves: &self.moves,
            policy: &self.policy,
            wdl: self.wdl,
        }
    }
}
