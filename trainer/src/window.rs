//! The sliding window of replay rows: the newest shards of a run, by row count.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tengu_store::layout::{self, ShardName};
use tengu_store::RunStore;

use rand::Rng;
use tengu_model::desc::{RowTargets, TrainExample};
use tengu_rules::{Move, Position, Variant};
use tengu_shard::Row;

/// Whether game `game` of the shard named `shard_name` is held out of training: the games
/// whose id (an FNV-1a hash of the shard's file name and the game's index in it) is a
/// multiple of `every` (0 or 1: none). Stable across restarts and trainers.
pub fn is_held_out(shard_name: &str, game: u32, every: u64) -> bool {
    if every <= 1 {
        return false;
    }
    tengu_rules::hash::fnv1a(shard_name.bytes().chain(game.to_le_bytes())).is_multiple_of(every)
}

/// What a trainer had read at a checkpoint (`trainer/ingest-<step>.json`), so a resumed
/// trainer neither reads a shard twice nor misses one, and its row counts (the
/// `passes_per_row` throttle) go on where they were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestState {
    pub version: u32,
    /// Newest shard time stamp seen (ms, the writers' clocks).
    pub watermark_ms: u64,
    /// Shard keys seen that are newer than the watermark minus the look-back.
    pub seen: Vec<String>,
    /// Shard keys in the window.
    pub window: Vec<String>,
    pub rows_seen: u64,
    pub games_seen: u64,
}

pub const INGEST_STATE_VERSION: u32 = 1;

/// Rows of the newest shards, at most about `capacity` of them.
pub struct Window {
    capacity: usize,
    /// Every `holdout_every`-th game (by id) goes to `held_out` instead (0: none).
    holdout_every: u64,
    /// The newest held-out rows, at most `holdout_capacity`.
    held_out: std::collections::VecDeque<Row>,
    holdout_capacity: usize,
    game: String,
    /// Shards in the window by key, oldest first (names start with a time stamp), each row
    /// with its future search value ([`future_values`]).
    shards: BTreeMap<String, Vec<(Row, f32)>>,
    /// Keys seen (read, skipped as too old for the window, or rejected) that are newer
    /// than `watermark_ms - lookback_ms`; older ones are never listed again.
    seen: BTreeSet<String>,
    watermark_ms: u64,
    /// Each look for new shards lists from this far before the watermark (clock skew
    /// between machines, shards named before their upload finished).
    pub lookback_ms: u64,
    /// Whether the run has been listed once (later looks are incremental).
    listed: bool,
    /// Rows of every valid shard seen since the run began (by the names' counts).
    pub rows_seen: u64,
    /// Games finished in those shards.
    pub games_seen: u64,
    /// Plies ahead of the future search value kept beside each row (`train.future_value_plies`);
    /// set before the first ingest.
    pub future_value_plies: u32,
}

/// Each row's short-horizon value target (KataGo's TD-style targets): the search's root
/// value `plies` plies later in the same game, from the row's mover's view (negated for an
/// odd distance), or the game's result where the game ends sooner (or that row is missing).
/// `rows` are whole games (a shard holds finished games), in any order.
pub fn future_values(rows: &[Row], plies: u32) -> Vec<f32> {
    let by_ply: std::collections::HashMap<(u32, u32), f32> = rows
        .iter()
        .map(|r| ((r.game, r.ply), r.search_value))
        .collect();
    let sign = if plies.is_multiple_of(2) { 1.0 } else { -1.0 };
    rows.iter()
        .map(|r| match by_ply.get(&(r.game, r.ply + plies)) {
            Some(&v) => sign * v.clamp(-1.0, 1.0),
            None => f32::from(r.result),
        })
        .collect()
}

/// The listing offset for shards named at or after `ms` (`shards/<ms:013>`).
fn offset_of(ms: u64) -> String {
    format!("{ms:013}")
}

fn stamp_of(key: &str) -> u64 {
    let name = key.rsplit('/').next().unwrap_or(key);
    name.split('-')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

impl Window {
    pub fn new(capacity: usize, game: &str) -> Window {
        Window::with_holdout(capacity, game, 0, 0)
    }

    /// A window that keeps every `every`-th game (by id, [`is_held_out`]) out of training
    /// and its newest `held_out_rows` rows apart for held-out losses.
    pub fn with_holdout(capacity: usize, game: &str, every: u64, held_out_rows: usize) -> Window {
        Window {
            capacity,
            holdout_every: every,
            held_out: std::collections::VecDeque::new(),
            holdout_capacity: held_out_rows,
            game: game.into(),
            shards: BTreeMap::new(),
            seen: BTreeSet::new(),
            watermark_ms: 0,
            lookback_ms: 600_000,
            listed: false,
            rows_seen: 0,
            games_seen: 0,
            future_value_plies: 8,
        }
    }

    /// Rows now in the window.
    pub fn len(&self) -> usize {
        self.shards.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What to persist with a checkpoint.
    pub fn state(&self) -> IngestState {
        IngestState {
            version: INGEST_STATE_VERSION,
            watermark_ms: self.watermark_ms,
            seen: self.seen.iter().cloned().collect(),
            window: self.shards.keys().cloned().collect(),
            rows_seen: self.rows_seen,
            games_seen: self.games_seen,
        }
    }

    /// Restores a persisted state: reads the window's shards again (a shard gone since is
    /// logged and left out) and continues listing from its watermark.
    pub fn resume(&mut self, state: &IngestState, store: &RunStore) {
        self.watermark_ms = state.watermark_ms;
        self.seen = state.seen.iter().cloned().collect();
        self.rows_seen = state.rows_seen;
        self.games_seen = state.games_seen;
        for key in &state.window {
            self.seen.insert(key.clone());
            match tengu_shard::fetch(store, key) {
                Ok((header, rows)) if header.game == self.game => {
                    self.add(key, rows);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("window shard not restored: {e}"),
            }
        }
        self.listed = true;
        self.trim();
    }

    fn add(&mut self, key: &str, rows: Vec<Row>) -> usize {
        let name = key.rsplit('/').next().unwrap_or(key).to_string();
        let futures = future_values(&rows, self.future_value_plies);
        let (held, train): (Vec<_>, Vec<_>) = rows
            .into_iter()
            .zip(futures)
            .partition(|(r, _)| is_held_out(&name, r.game, self.holdout_every));
        let added = train.len();
        self.held_out.extend(held.into_iter().map(|(r, _)| r));
        while self.held_out.len() > self.holdout_capacity {
            self.held_out.pop_front();
        }
        self.shards.insert(key.to_string(), train);
        added
    }

    /// Drops the oldest shards while the rest still fill the window.
    fn trim(&mut self) {
        while let Some((oldest, rows)) =
            self.shards.iter().next().map(|(p, r)| (p.clone(), r.len()))
        {
            if self.len() - rows < self.capacity {
                break;
            }
            self.shards.remove(&oldest);
        }
    }

    /// Looks for shards not seen before and reads those that belong in the window; the
    /// first look lists the whole run, later ones only what was named after the watermark
    /// minus the look-back. Row and game counts come from the names, so shards too old for
    /// the window are counted without being read. Invalid shards are logged and skipped
    /// (once). Returns the number of new rows in the window; an error is the listing's.
    pub fn ingest(&mut self, store: &RunStore) -> Result<usize, tengu_store::StoreError> {
        let entries = if self.listed {
            let from = self.watermark_ms.saturating_sub(self.lookback_ms);
            store.list_after(layout::SHARDS, &offset_of(from))?
        } else {
            store.list(layout::SHARDS)?
        };
        self.listed = true;
        let mut new: Vec<(String, Option<ShardName>)> = entries
            .into_iter()
            .filter(|e| layout::is_shard(e.name()) && !self.seen.contains(&e.key))
            .map(|e| {
                let name = ShardName::parse(e.name());
                (e.key, name)
            })
            .collect();
        // Newest first: read shards until the new ones alone fill the window.
        new.sort_by(|a, b| b.0.cmp(&a.0));
        let mut added = 0;
        let mut newer_rows = 0u64;
        for (key, name) in new {
            self.seen.insert(key.clone());
            self.watermark_ms = self.watermark_ms.max(stamp_of(&key));
            let wanted = newer_rows < self.capacity as u64;
            if let (Some(n), false) = (&name, wanted) {
                // Too old for the window: counted by its name, never read.
                self.rows_seen += n.rows;
                self.games_seen += u64::from(n.games);
                continue;
            }
            match tengu_shard::fetch(store, &key) {
                Ok((header, rows)) if header.game == self.game => {
                    self.rows_seen += rows.len() as u64;
                    self.games_seen += u64::from(header.games);
                    newer_rows += rows.len() as u64;
                    added += self.add(&key, rows);
                }
                Ok((header, _)) => tracing::warn!(
                    "{}: a {} shard in a {} run; skipped",
                    store.address_of(&key),
                    header.game,
                    self.game
                ),
                Err(e) => tracing::warn!("skipping shard: {e}"),
            }
        }
        // Keys older than the look-back are never listed again: forget them.
        let horizon = format!(
            "{}/{}",
            layout::SHARDS,
            offset_of(self.watermark_ms.saturating_sub(self.lookback_ms))
        );
        self.seen = self.seen.split_off(&horizon);
        self.trim();
        Ok(added)
    }

    /// A uniformly drawn row of the window, with its future search value: the row
    /// [`Window::row_at`] `rng.gen_range(0..len)`.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Option<(&Row, f32)> {
        let total = self.len();
        if total == 0 {
            return None;
        }
        self.row_at(rng.gen_range(0..total))
    }

    /// The window's `k`-th row (oldest shard first), with its future search value.
    pub fn row_at(&self, mut k: usize) -> Option<(&Row, f32)> {
        for rows in self.shards.values() {
            if k < rows.len() {
                let (row, future) = &rows[k];
                return Some((row, *future));
            }
            k -= rows.len();
        }
        None
    }

    /// The newest held-out rows (never trained on), oldest first.
    pub fn held_out(&self) -> impl ExactSizeIterator<Item = &Row> {
        self.held_out.iter()
    }

    /// Every row of the window, oldest first.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.shards.values().flatten().map(|(row, _)| row)
    }
}

/// Shares of a value target (the game's result has the rest, `1 - search - future`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ValueTargetMix {
    /// The search's own root value, for full searches only (a cheap search's value is
    /// mostly the network's own; dlshogi mixes 1/3).
    pub search: f32,
    /// The root value `future_value_plies` later ([`future_values`]), for every row.
    pub future: f32,
    /// The game result's share of the judge's target (the teacher's score has the rest).
    pub teacher_result: f32,
    /// The share of the material balance at the short target horizon in the judge's target.
    pub teacher_future: f32,
}

/// A value in [-1, 1] as win/draw/loss probabilities `[max(q, 0), 1 - |q|, max(-q, 0)]`.
fn value_as_wdl(q: f32) -> [f32; 3] {
    let q = q.clamp(-1.0, 1.0);
    [q.max(0.0), 1.0 - q.abs(), (-q).max(0.0)]
}

/// A row decoded for training: the position, its legal moves and the targets.
pub struct Example {
    pub position: Position,
    pub repetitions: u32,
    pub moves: Vec<Move>,
    /// Target weight per legal move (all zero for rows that are not policy targets).
    pub policy: Vec<f32>,
    /// The heads' targets (occupancy in the mover's frame, empty when the row has none of
    /// the right size).
    pub targets: RowTargets,
}

/// A shard row that does not fit the game's rules (a shard of other rules, or damaged).
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    #[error("row position: {0}")]
    Position(tengu_rules::ParseError),
    #[error("row policy move {text}: {problem}")]
    PolicyMove {
        text: String,
        problem: tengu_rules::ParseError,
    },
    #[error("row policy move {text} is not legal")]
    IllegalPolicyMove { text: String },
}

impl Example {
    /// Decodes a row with the game result as the value target; the error says what does
    /// not fit the game's rules.
    pub fn from_row(row: &Row, variant: &Arc<Variant>) -> Result<Example, RowError> {
        Example::from_row_mixed(row, variant, ValueTargetMix::default(), 0.0)
    }

    /// Decodes a row with the value target of [`ValueTargetMix`]: `future_value` is the
    /// row's entry of [`future_values`] (ignored when `mix.future` is 0).
    pub fn from_row_mixed(
        row: &Row,
        variant: &Arc<Variant>,
        mix: ValueTargetMix,
        future_value: f32,
    ) -> Result<Example, RowError> {
        let position =
            Position::parse_for(variant.clone(), &row.position).map_err(RowError::Position)?;
        let moves = position.legal_move_list();
        let mut policy = vec![0.0f32; moves.len()];
        if row.full_search {
            for (text, weight) in &row.policy {
                let m = position
                    .parse_move(text)
                    .map_err(|problem| RowError::PolicyMove {
                        text: text.clone(),
                        problem,
                    })?;
                let i = moves
                    .iter()
                    .position(|&x| x == m)
                    .ok_or_else(|| RowError::IllegalPolicyMove { text: text.clone() })?;
                policy[i] = *weight;
            }
        }
        let mut wdl = match row.result {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        let mut blend = |weight: f32, q: f32| {
            if weight > 0.0 {
                for (t, s) in wdl.iter_mut().zip(value_as_wdl(q)) {
                    *t = (1.0 - weight) * *t + weight * s;
                }
            }
        };
        // The future value first, then the root value's share of the whole: the result
        // keeps 1 - search - future of it.
        let search = if row.full_search { mix.search } else { 0.0 };
        if mix.future > 0.0 {
            blend(mix.future / (1.0 - search).max(f32::EPSILON), future_value);
        }
        blend(search, row.search_value);
        // Occupancy is stored in board order; the network sees the mover's frame.
        let n = position.size();
        let area = n * n;
        let mover = position.side_to_move();
        let horizons = tengu_model::desc::AUX_HORIZONS;
        let encoder = tengu_model::Encoder::new(variant);
        let mut ownership = Vec::new();
        if row.occupancy_future.len() == horizons * area {
            ownership = vec![0u8; horizons * area];
            for s in tengu_rules::Square::all(n) {
                let (stored, seen) = (s.row() * n + s.col(), encoder.square_index(s, mover));
                for h in 0..horizons {
                    ownership[h * area + seen] = row.occupancy_future[h * area + stored];
                }
            }
        }
        let scale = tengu_model::desc::MATERIAL_SCALE;
        let material = row.material_future.map(|m| (m / scale).tanh());
        let result = row.result.clamp(-1, 1) as f32;
        let teacher = row.teacher.map(|t| {
            let (w, f) = (mix.teacher_result, mix.teacher_future);
            let target = (1.0 - w - f) * (t.score / scale).tanh() + w * result + f * material[0];
            [t.base / scale, target]
        });
        Ok(Example {
            position,
            repetitions: row.repetitions as u32,
            moves,
            policy,
            targets: RowTargets {
                wdl,
                ownership,
                material,
                teacher,
                root_value: [row.search_value.clamp(-1.0, 1.0)],
            },
        })
    }

    pub fn as_train(&self) -> TrainExample<'_> {
        TrainExample {
            position: &self.position,
            repetitions: self.repetitions,
            moves: &self.moves,
            policy: &self.policy,
            targets: &self.targets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Square;

    fn row(variant: &Arc<Variant>, white: bool) -> Row {
        let mut pos = Position::initial(variant.clone());
        if white {
            pos = Position::parse(&pos.to_string().replace(" b -", " w -")).unwrap();
        }
        let first = pos.legal_move_list()[0];
        let n = pos.size();
        // Occupancy: square (col 0, row 0) holds the mover's piece at the first horizon,
        // the opponent's at the second; everything else empty.
        let mut occupancy = vec![0u8; 2 * n * n];
        occupancy[0] = 1;
        occupancy[n * n] = 2;
        Row {
            position: pos.to_string(),
            repetitions: 0,
            policy: vec![(pos.move_text(first), 1.0)],
            result: 1,
            search_value: -0.5,
            full_search: true,
            game: 0,
            ply: 0,
            game_plies: 10,
            material_future: [10.0, -20.0],
            occupancy_future: occupancy,
            teacher: None,
        }
    }

    #[test]
    fn value_target_mixes_result_and_search_value() {
        let variant = Variant::dai_dai();
        let r = row(&variant, false);
        let plain = Example::from_row(&r, &variant).unwrap();
        assert_eq!(plain.targets.wdl, [1.0, 0.0, 0.0]);
        // The root value head's target is the search's value, whatever the mix.
        assert_eq!(plain.targets.root_value, [-0.5]);
        let mix = ValueTargetMix {
            search: 0.25,
            future: 0.0,
            ..ValueTargetMix::default()
        };
        let mixed = Example::from_row_mixed(&r, &variant, mix, 0.9).unwrap();
        // 0.75 * [1, 0, 0] + 0.25 * [0, 0.5, 0.5]
        let want = [0.75, 0.125, 0.125];
        for (a, b) in mixed.targets.wdl.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{:?}", mixed.targets.wdl);
        }
        // A cheap search keeps the plain result.
        let cheap = Row {
            full_search: false,
            ..r
        };
        assert_eq!(
            Example::from_row_mixed(&cheap, &variant, mix, 0.9)
                .unwrap()
                .targets
                .wdl,
            [1.0, 0.0, 0.0]
        );
    }

    #[test]
    fn value_target_mixes_result_search_and_future_values() {
        let variant = Variant::dai_dai();
        let r = row(&variant, false);
        let mix = ValueTargetMix {
            search: 0.25,
            future: 0.5,
            ..ValueTargetMix::default()
        };
        // 0.25 * [1, 0, 0] + 0.25 * [0, 0.5, 0.5] + 0.5 * [0.8, 0.2, 0]
        let e = Example::from_row_mixed(&r, &variant, mix, 0.8).unwrap();
        let want = [0.65, 0.225, 0.125];
        for (a, b) in e.targets.wdl.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{:?}", e.targets.wdl);
        }
        // A cheap search: the result and the future value only.
        let cheap = Row {
            full_search: false,
            ..r
        };
        let e = Example::from_row_mixed(&cheap, &variant, mix, -1.0).unwrap();
        let want = [0.5, 0.0, 0.5];
        for (a, b) in e.targets.wdl.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{:?}", e.targets.wdl);
        }
    }

    #[test]
    fn the_judges_target_is_the_teachers_score_blended_with_the_result_and_future_material() {
        let variant = Variant::dai_dai();
        let scale = tengu_model::desc::MATERIAL_SCALE;
        let unlabelled = row(&variant, false);
        assert_eq!(
            Example::from_row(&unlabelled, &variant)
                .unwrap()
                .targets
                .teacher,
            None
        );
        let labelled = Row {
            teacher: Some(tengu_shard::TeacherLabel {
                depth: 3,
                base: 2.0,
                score: -5.0,
            }),
            result: 1,
            ..unlabelled
        };
        let teacher_only = Example::from_row(&labelled, &variant)
            .unwrap()
            .targets
            .teacher
            .unwrap();
        assert!(
            (teacher_only[0] - 2.0 / scale).abs() < 1e-6,
            "{teacher_only:?}"
        );
        assert!(
            (teacher_only[1] - (-5.0 / scale).tanh()).abs() < 1e-6,
            "{teacher_only:?}"
        );
        let mix = ValueTargetMix {
            teacher_result: 0.25,
            ..ValueTargetMix::default()
        };
        let blended = Example::from_row_mixed(&labelled, &variant, mix, 0.0)
            .unwrap()
            .targets
            .teacher
            .unwrap();
        let want = 0.75 * (-5.0 / scale).tanh() + 0.25;
        assert!((blended[1] - want).abs() < 1e-6, "{blended:?}");
        assert_eq!(blended[0], teacher_only[0]);
        // The material 16 plies on (10 pieces for the mover in this row) takes its share;
        // with all of it, the teacher's score no longer counts (a depth-0 label).
        let mix = ValueTargetMix {
            teacher_result: 0.25,
            teacher_future: 0.5,
            ..ValueTargetMix::default()
        };
        let with_future = Example::from_row_mixed(&labelled, &variant, mix, 0.0)
            .unwrap()
            .targets
            .teacher
            .unwrap();
        let want = 0.25 * (-5.0 / scale).tanh() + 0.25 + 0.5 * (10.0 / scale).tanh();
        assert!((with_future[1] - want).abs() < 1e-6, "{with_future:?}");
        let mix = ValueTargetMix {
            teacher_future: 1.0,
            ..ValueTargetMix::default()
        };
        let future_only = Example::from_row_mixed(&labelled, &variant, mix, 0.0)
            .unwrap()
            .targets
            .teacher
            .unwrap();
        assert!(
            (future_only[1] - (10.0 / scale).tanh()).abs() < 1e-6,
            "{future_only:?}"
        );
        assert_eq!(future_only[0], teacher_only[0]);
    }

    #[test]
    fn future_values_look_ahead_in_the_same_game() {
        let variant = Variant::dai_dai();
        // Two games of 5 and 3 plies, rows shuffled; search value = game * 0.1 + ply * 0.01.
        let mut rows = Vec::new();
        for (game, plies, result) in [(0u32, 5u32, 1i8), (1, 3, -1)] {
            for ply in 0..plies {
                let mut r = row(&variant, false);
                r.game = game;
                r.ply = ply;
                r.game_plies = plies;
                r.result = if ply % 2 == 0 { result } else { -result };
                r.search_value = game as f32 * 0.1 + ply as f32 * 0.01;
                rows.push(r);
            }
        }
        rows.reverse();
        let two = future_values(&rows, 2);
        let three = future_values(&rows, 3);
        for ((r, a), b) in rows.iter().zip(&two).zip(&three) {
            let ahead = |k: u32| r.game as f32 * 0.1 + (r.ply + k) as f32 * 0.01;
            let want_two = if r.ply + 2 < r.game_plies {
                ahead(2)
            } else {
                f32::from(r.result)
            };
            // An odd distance: the other side's value, negated.
            let want_three = if r.ply + 3 < r.game_plies {
                -ahead(3)
            } else {
                f32::from(r.result)
            };
            assert!(
                (a - want_two).abs() < 1e-6,
                "game {} ply {}: {a}",
                r.game,
                r.ply
            );
            assert!(
                (b - want_three).abs() < 1e-6,
                "game {} ply {}: {b}",
                r.game,
                r.ply
            );
        }
    }

    #[test]
    fn auxiliary_targets_are_in_the_movers_frame() {
        let variant = Variant::dai_dai();
        let n = variant.size();
        for white in [false, true] {
            let e = Example::from_row(&row(&variant, white), &variant).unwrap();
            assert_eq!(e.targets.ownership.len(), 2 * n * n);
            let corner = frame(Square::new(0, 0), white, n);
            assert_eq!(e.targets.ownership[corner], 1);
            assert_eq!(e.targets.ownership[n * n + corner], 2);
            assert_eq!(e.targets.ownership.iter().filter(|&&c| c != 0).count(), 2);
            let scale = tengu_model::desc::MATERIAL_SCALE;
            assert!((e.targets.material[0] - (10.0 / scale).tanh()).abs() < 1e-6);
            assert!((e.targets.material[1] - (-20.0 / scale).tanh()).abs() < 1e-6);
        }
        // Rows without occupancy targets train no ownership.
        let mut r = row(&variant, false);
        r.occupancy_future.clear();
        assert!(Example::from_row(&r, &variant)
            .unwrap()
            .targets
            .ownership
            .is_empty());
    }

    /// The encoder's index of `s` for a mover (independent of `Example`'s code).
    fn frame(s: Square, white: bool, n: usize) -> usize {
        let enc = tengu_model::Encoder::new(&Variant::dai_dai());
        assert_eq!(enc.size(), n);
        let mover = if white {
            tengu_rules::Color::White
        } else {
            tengu_rules::Color::Black
        };
        enc.square_index(s, mover)
    }

    #[test]
    fn every_twentieth_game_is_held_out() {
        let held = (0..20_000u32)
            .filter(|&g| is_held_out("20261124-host-1-0.shard", g, 20))
            .count();
        assert!((800..1200).contains(&held), "{held} of 20000 held out");
        assert!(!(0..100).any(|g| is_held_out("x.shard", g, 0)));
        // Stable: the same game is held out by every trainer.
        assert_eq!(is_held_out("a.shard", 7, 20), is_held_out("a.shard", 7, 20));
    }

    #[test]
    fn held_out_rows_never_enter_the_window() {
        let variant = Variant::dai_dai();
        let dir = tempfile::tempdir().unwrap();
        let mut rows = Vec::new();
        for g in 0..200u32 {
            let mut r = row(&variant, false);
            r.game = g;
            rows.push(r);
        }
        let header = tengu_shard::ShardHeader {
            encoder_version: tengu_model::ENCODER_VERSION,
            game: "dai-dai".into(),
            model: "uniform".into(),
            rows: rows.len() as u64,
            games: 200,
            created_unix: 0,
            writer: "test".into(),
        };
        let store = RunStore::open(&dir.path().display().to_string()).unwrap();
        let shard_name = ShardName {
            stem: "1764000000000-h-1-00000".into(),
            games: 200,
            rows: 200,
            unix_ms: 1764000000000,
        };
        let name = shard_name.file_name();
        let name = name.as_str();
        tengu_shard::put(&store, &shard_name, &header, &rows).unwrap();
        let mut w = Window::with_holdout(10_000, "dai-dai", 20, 1_000);
        w.ingest(&store).unwrap();
        let held: Vec<u32> = w.held_out().map(|r| r.game).collect();
        assert!(!held.is_empty());
        assert_eq!(w.len() + held.len(), 200);
        for g in &held {
            assert!(is_held_out(name, *g, 20));
        }
        assert!(w.rows().all(|r| !is_held_out(name, r.game, 20)));
    }
}
