//! Replay shards: self-describing bincode files of training rows.
//!
//! A shard is a framed file (`tengu_store::framed`, [`FORMAT`]): magic `b"TENGUSHD"`, format
//! version ([`FORMAT_VERSION`]), a bincode [`ShardHeader`], the rows (bincode `Vec<Row>`) and
//! a CRC-32 of every byte before it.
//! Workers put shards into the run's store under unique names carrying their game and row
//! counts (`tengu_store::layout::ShardName`); a store put is atomic, so a reader never sees a
//! partial shard. Local files (`write`, `read`) remain for tools and tests.
//!
//! Writing a shard of one three-ply game to a directory and reading it back:
//!
//! ```
//! use tengu_shard::{Row, ShardError, ShardHeader};
//!
//! let rows: Vec<Row> = (0..3u32)
//!     .map(|ply| Row {
//!         // The position as text (RULES.md §12.2); the shard does not parse it.
//!         position: format!("position at ply {ply}"),
//!         repetitions: 0,
//!         policy: vec![("9l>9k".into(), 0.75), ("1l>1k".into(), 0.25)],
//!         result: if ply % 2 == 0 { 1 } else { -1 },
//!         search_value: 0.1,
//!         full_search: true,
//!         game: 0,
//!         ply,
//!         game_plies: 3,
//!         material_future: [0.0, 1.0],
//!         occupancy_future: vec![0; 2 * 17 * 17],
//!         teacher: None,
//!     })
//!     .collect();
//! let header = ShardHeader {
//!     encoder_version: 1,
//!     game: "dai-dai".into(),
//!     model: "uniform".into(),
//!     rows: rows.len() as u64,
//!     games: 1,
//!     created_unix: 1_800_000_000,
//!     writer: "example".into(),
//! };
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join(format!("game.{}", tengu_shard::EXTENSION));
//! tengu_shard::write(&path, &header, &rows).unwrap();
//! assert_eq!(tengu_shard::list(dir.path()).unwrap(), vec![path.clone()]);
//! assert_eq!(tengu_shard::read_header(&path).unwrap().rows, 3);
//! let (read_header, read_rows) = tengu_shard::read(&path).unwrap();
//! assert_eq!((read_header, read_rows), (header.clone(), rows.clone()));
//!
//! // A damaged shard is refused, and the error says so.
//! let mut bytes = tengu_shard::to_bytes(&header, &rows);
//! let middle = bytes.len() / 2;
//! bytes[middle] ^= 1;
//! let damaged = tengu_shard::from_bytes(&bytes, "damaged");
//! assert!(matches!(damaged, Err(ShardError::Frame { .. })), "{damaged:?}");
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tengu_store::framed::{Format, FrameError};

pub const MAGIC: &[u8; 8] = b"TENGUSHD";
/// Version 2 added the future material and occupancy targets to every row; version 3 the
/// teacher's label ([`Row::teacher`]). Version 2 is still read (rows without a label).
pub const FORMAT_VERSION: u32 = 3;
/// The shard's frame.
pub const FORMAT: Format = Format {
    kind: "shard",
    magic: MAGIC,
    version: FORMAT_VERSION,
    payload: "rows",
};
/// File name extension of shards.
pub const EXTENSION: &str = "shard";

/// What a shard says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// Encoder version of the model that produced the rows (rows hold positions, not
    /// planes, so any encoder can read them; this records the producer).
    pub encoder_version: u32,
    /// Game id (`dai-dai`, `maka-dai-dai`).
    pub game: String,
    /// Checkpoint that played the games (file name), or `uniform` before the first.
    pub model: String,
    pub rows: u64,
    pub games: u32,
    /// Seconds since the Unix epoch.
    pub created_unix: u64,
    /// Which worker wrote it (host, process).
    pub writer: String,
}

/// One training example: a searched position of a finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The position (RULES.md §12.2).
    pub position: String,
    /// Earlier occurrences of the position in its game (for the encoder's plane).
    pub repetitions: u8,
    /// Policy target: moves (§12.3) with weights summing to 1 (visit shares, or improved
    /// policy under a Gumbel root). Only meaningful when `full_search`.
    pub policy: Vec<(String, f32)>,
    /// Result of the game from the side to move's view: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// Root value of the search, side to move's view, in [-1, 1].
    pub search_value: f32,
    /// Whether this was a full search (playout cap randomization); only full searches
    /// are policy targets.
    pub full_search: bool,
    /// Game index within the shard, ply of the position, plies of the whole game. Plies
    /// count from the initial position: a game started from an opening
    /// (`selfplay.opening_share`) has no rows for the opening's moves, so its first row's
    /// `ply` is the opening's length, and `game_plies` includes them.
    pub game: u32,
    pub ply: u32,
    pub game_plies: u32,
    /// Material balance (the mover's minus the opponent's, fixed piece values, royals
    /// excluded, in piece units) `selfplay.target_horizon` plies later (or at the end, if sooner)
    /// and at the end of the game.
    pub material_future: [f32; 2],
    /// Occupancy of every square from the mover's view, `2 * N * N` bytes: the position
    /// `selfplay.target_horizon` plies later (or the last), then the final position; each square in
    /// board order (`row * N + col` of `tengu_rules::Square`), 0 empty, 1 the mover's
    /// piece, 2 the opponent's.
    pub occupancy_future: Vec<u8>,
    /// A deeper search's judgement of the position (`selfplay.teacher_share` of the rows):
    /// the target of the judge's residual head. `None`: not labelled.
    pub teacher: Option<TeacherLabel>,
}

/// What the judge's teacher (`tengu_search::teacher`: alpha-beta `depth` plies full width
/// with the exchange count at its horizon) said of a row's position; piece units, the
/// mover's view. The residual head learns `score - base` (on the value's scale).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TeacherLabel {
    /// Plies the teacher searched full width.
    pub depth: u8,
    /// What one search leaf counts: the balance plus the mover's exchange gain.
    pub base: f32,
    /// The teacher's score (a won or lost position clamped to +-100).
    pub score: f32,
}

/// Plies ahead of the short-horizon material and occupancy targets by default
/// (`selfplay.target_horizon`).
pub const TARGET_HORIZON: u32 = 16;

/// Why a shard cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Not a sound shard: the frame's magic bytes, format version, lengths or checksum, or
    /// its header or rows do not decode.
    #[error("{path}: {frame}")]
    Frame { path: String, frame: FrameError },
    /// A sound frame whose header and rows disagree.
    #[error("{path}: corrupt: {problem}")]
    Corrupt { path: String, problem: String },
    #[error(transparent)]
    Store(#[from] tengu_store::StoreError),
    #[error("{path}: no such shard")]
    Missing { path: String },
}

/// Serialises a shard to bytes.
pub fn to_bytes(header: &ShardHeader, rows: &[Row]) -> Vec<u8> {
    FORMAT.encode(header, rows)
}

/// Writes a shard atomically (`tengu_store::atomic`: hidden temporary name, fsync,
/// rename).
pub fn write(path: &Path, header: &ShardHeader, rows: &[Row]) -> Result<(), ShardError> {
    tengu_store::atomic::write_atomic(path, &to_bytes(header, rows)).map_err(|source| {
        ShardError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

/// The frame of format 2, which this build still reads (rows without a teacher label).
const FORMAT_2: Format = Format {
    version: 2,
    ..FORMAT
};

/// A row of format 2: [`Row`] without `teacher`.
#[derive(Deserialize)]
struct RowV2 {
    position: String,
    repetitions: u8,
    policy: Vec<(String, f32)>,
    result: i8,
    search_value: f32,
    full_search: bool,
    game: u32,
    ply: u32,
    game_plies: u32,
    material_future: [f32; 2],
    occupancy_future: Vec<u8>,
}

impl From<RowV2> for Row {
    fn from(r: RowV2) -> Row {
        Row {
            position: r.position,
            repetitions: r.repetitions,
            policy: r.policy,
            result: r.result,
            search_value: r.search_value,
            full_search: r.full_search,
            game: r.game,
            ply: r.ply,
            game_plies: r.game_plies,
            material_future: r.material_future,
            occupancy_future: r.occupancy_future,
            teacher: None,
        }
    }
}

/// Parses the header of shard bytes; with `rows`, also decodes the rows. Format 2 shards
/// (before teacher labels) read as rows without labels.
fn parse(
    bytes: &[u8],
    path: &str,
    rows: bool,
) -> Result<(ShardHeader, Option<Vec<Row>>), ShardError> {
    let bad_frame = |frame| ShardError::Frame {
        path: path.into(),
        frame,
    };
    let (frame, version) = match FORMAT.open(bytes) {
        Err(FrameError::Version { found: 2, .. }) => (FORMAT_2.open(bytes).map_err(bad_frame)?, 2),
        other => (other.map_err(bad_frame)?, FORMAT_VERSION),
    };
    let header: ShardHeader = frame.header().map_err(bad_frame)?;
    if !rows {
        return Ok((header, None));
    }
    let decoded: Vec<Row> = if version == 2 {
        let old: Vec<RowV2> = frame.payload().map_err(bad_frame)?;
        old.into_iter().map(Row::from).collect()
    } else {
        frame.payload().map_err(bad_frame)?
    };
    if decoded.len() as u64 != header.rows {
        return Err(ShardError::Corrupt {
            path: path.into(),
            problem: format!(
                "header says {} rows, the file holds {}",
                header.rows,
                decoded.len()
            ),
        });
    }
    for (index, row) in decoded.iter().enumerate() {
        row.check().map_err(|problem| ShardError::Corrupt {
            path: path.into(),
            problem: format!("row {index}: {problem}"),
        })?;
    }
    Ok((header, Some(decoded)))
}

impl Row {
    /// The values no writer of tengu's makes and a trainer must never learn from: a result
    /// other than -1, 0 or 1, or a number that is not finite (a NaN target would spread to
    /// every weight). A sound checksum does not rule them out: a faulty writer checksums
    /// what it wrote.
    fn check(&self) -> Result<(), String> {
        if !(-1..=1).contains(&self.result) {
            return Err(format!("result {} (not -1, 0 or 1)", self.result));
        }
        // Every shard the trainer reads passes here: a chain, not a list built per row.
        let mut numbers = std::iter::once(("search_value", self.search_value))
            .chain(self.policy.iter().map(|(_, w)| ("policy weight", *w)))
            .chain(self.material_future.map(|m| ("material_future", m)))
            .chain(
                self.teacher
                    .iter()
                    .flat_map(|t| [("teacher base", t.base), ("teacher score", t.score)]),
            );
        match numbers.find(|(_, v)| !v.is_finite()) {
            Some((field, value)) => Err(format!("{field} {value} is not finite")),
            None => Ok(()),
        }
    }
}

/// Checks and decodes shard bytes; `name` says where they came from in errors.
pub fn from_bytes(bytes: &[u8], name: &str) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let (header, rows) = parse(bytes, name, true)?;
    Ok((header, rows.expect("rows requested")))
}

/// Puts a shard into a run under `name` (which must carry the shard's game and row counts).
pub fn put(
    store: &tengu_store::RunStore,
    name: &tengu_store::layout::ShardName,
    header: &ShardHeader,
    rows: &[Row],
) -> Result<(), ShardError> {
    debug_assert_eq!((name.rows, name.games), (rows.len() as u64, header.games));
    store.put(&name.key(), to_bytes(header, rows))?;
    Ok(())
}

/// Reads and checks the shard `key` of a run.
pub fn fetch(
    store: &tengu_store::RunStore,
    key: &str,
) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let shown = store.address_of(key);
    let bytes = store.get(key)?.ok_or(ShardError::Missing {
        path: shown.clone(),
    })?;
    from_bytes(&bytes, &shown)
}

/// The shards of a run, oldest name first.
pub fn list_run(
    store: &tengu_store::RunStore,
) -> Result<Vec<tengu_store::Entry>, tengu_store::StoreError> {
    Ok(store
        .list(tengu_store::layout::SHARDS)?
        .into_iter()
        .filter(|e| tengu_store::layout::is_shard(e.name()))
        .collect())
}

/// Reads and checks a whole shard.
pub fn read(path: &Path) -> Result<(ShardHeader, Vec<Row>), ShardError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ShardError::Io {
        path: shown.clone(),
        source,
    })?;
    let (header, rows) = parse(&bytes, &shown, true)?;
    Ok((header, rows.expect("rows requested")))
}

/// Reads a shard's header after checking the whole file's checksum.
pub fn read_header(path: &Path) -> Result<ShardHeader, ShardError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ShardError::Io {
        path: shown.clone(),
        source,
    })?;
    Ok(parse(&bytes, &shown, false)?.0)
}

/// Shards in `dir` (not recursive), oldest name first; hidden temporaries are skipped.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let shown = dir.display().to_string();
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|source| ShardError::Io {
        path: shown.clone(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| ShardError::Io {
            path: shown.clone(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && name.ends_with(&format!(".{EXTENSION}")) {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}
