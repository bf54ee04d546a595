//! The book file: versioned, checksummed, self-describing, written atomically.
//!
//! A book is a framed file (`tengu_store::framed`, [`FORMAT`]): magic `b"TENGUBOK"`, format
//! version ([`FORMAT_VERSION`]), a bincode [`BookHeader`], the nodes (bincode
//! `Vec<NodeRecord>`) and a CRC-32 of every byte before it.
//! Moves are stored as text (RULES.md §12.3), so the file does not depend on the in-memory
//! move encoding; loading replays every node's canonical path and checks its key. No
//! timestamps: the same book is the same bytes. Written to a hidden temporary name in the
//! same directory, synced, then renamed (`tengu_store::atomic`), so a crash leaves the
//! previous book intact.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tengu_rules::{Position, Variant};
use tengu_store::framed::{Format, FrameError};

use crate::graph::{Costs, Edge, Graph, Node, OwnSearch};
use crate::key::{BookKey, KEY_SCHEME};

pub const MAGIC: &[u8; 8] = b"TENGUBOK";
pub const FORMAT_VERSION: u32 = 1;
/// The book's frame.
pub const FORMAT: Format = Format {
    kind: "book",
    magic: MAGIC,
    version: FORMAT_VERSION,
    payload: "nodes",
};

/// What a book says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BookHeader {
    /// Game id (`dai-dai`, `maka-dai-dai`).
    pub game: String,
    /// RULES.md version of the rules that made it.
    pub rules_version: String,
    /// Hash of the game's piece-type table and start position ([`table_hash`]): keys
    /// depend on piece-type indices.
    pub table_hash: u64,
    pub key_scheme: u32,
    /// The checkpoint behind every search: file name, training step, FNV-1a hash of its
    /// bytes.
    pub checkpoint: String,
    pub checkpoint_step: u64,
    pub checkpoint_hash: u64,
    /// Root visits of every search.
    pub visits: u32,
    /// Ply cap of the searched games (a line reaching it is a draw).
    pub max_plies: u32,
    /// The `[search]` settings of every search, as TOML.
    pub search: String,
    pub costs: Costs,
    /// Seed of the searches (each search's seed derives from it and the position).
    pub seed: u64,
    /// Expansions so far.
    pub expansions: u64,
}

impl BookHeader {
    /// The header of a new book of `variant`: the checkpoint behind its searches (file
    /// name, training step, FNV-1a hash of its bytes), their visits, ply cap and settings,
    /// the default costs, and the seed.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        variant: &Arc<Variant>,
        checkpoint: String,
        checkpoint_step: u64,
        checkpoint_hash: u64,
        visits: u32,
        max_plies: u32,
        search: &tengu_search::SearchConfig,
        seed: u64,
    ) -> BookHeader {
        BookHeader {
            game: variant.id().to_string(),
            rules_version: tengu_rules::RULES_VERSION.to_string(),
            table_hash: table_hash(variant),
            key_scheme: KEY_SCHEME,
            checkpoint,
            checkpoint_step,
            checkpoint_hash,
            visits,
            max_plies,
            search: toml::to_string(search).expect("search settings serialise"),
            costs: Costs::default(),
            seed,
            expansions: 0,
        }
    }

    /// Why a book with this header cannot be continued by a build that would start with
    /// `wanted` (another game, checkpoint, visits, ply cap or search settings); `None` when
    /// it can. The message names the setting, the book's value and the build's.
    pub fn mismatch(&self, wanted: &BookHeader) -> Option<String> {
        let checkpoint =
            |h: &BookHeader| format!("{} (hash {:016x})", h.checkpoint, h.checkpoint_hash);
        [
            ("game", self.game.clone(), wanted.game.clone()),
            ("checkpoint", checkpoint(self), checkpoint(wanted)),
            ("visits", self.visits.to_string(), wanted.visits.to_string()),
            (
                "max plies",
                self.max_plies.to_string(),
                wanted.max_plies.to_string(),
            ),
            (
                "search settings",
                self.search.clone(),
                wanted.search.clone(),
            ),
        ]
        .into_iter()
        .find(|(_, was, now)| was != now)
        .map(|(what, was, now)| format!("built with {what} {was}; this build has {now}"))
    }
}

/// Why a book cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Not a sound book: the frame's magic bytes, format version, lengths or checksum, or
    /// its header or nodes do not decode.
    #[error("{path}: {frame}")]
    Frame { path: String, frame: FrameError },
    /// A sound frame whose nodes do not make a book (a key that does not match its path, a
    /// move that is not legal, a value out of range).
    #[error("{path}: corrupt: {problem}")]
    Corrupt { path: String, problem: String },
    /// A book has at least its root (the start position); a file without one was cut
    /// short or made by a broken writer, and a book without one is never written.
    #[error("{path}: the book holds no position (not even the start)")]
    Empty { path: String },
    #[error("{path}: {problem}")]
    Incompatible { path: String, problem: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct OwnRecord {
    value: f32,
    draw: f32,
    visits: u32,
    best: String,
    best_prior: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct NodeRecord {
    key: u128,
    /// Canonical parent index and the move from it.
    parent: Option<(u32, String)>,
    ply: u32,
    /// Book moves: move, child index, prior.
    edges: Vec<(String, u32, f32)>,
    own: Option<OwnRecord>,
    terminal: Option<f32>,
}

/// Identity of a game's piece-type table and start position.
pub fn table_hash(variant: &Arc<Variant>) -> u64 {
    let mut text = String::new();
    for ty in 0..variant.piece_types().len() {
        let p = tengu_rules::Piece {
            color: tengu_rules::Color::Black,
            ty,
        };
        text.push_str(&tengu_rules::notation::piece_token(variant, p));
        text.push(' ');
    }
    text.push_str(&Position::initial(variant.clone()).to_string());
    tengu_rules::hash::fnv1a(text.bytes())
}

/// Serialises a book.
pub fn to_bytes(header: &BookHeader, graph: &Graph, variant: &Arc<Variant>) -> Vec<u8> {
    // Positions of the nodes, by replaying canonical parents (parents are older).
    let positions = graph.positions(variant);
    let records: Vec<NodeRecord> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let here = &positions[i];
            NodeRecord {
                key: n.key.0,
                parent: n
                    .parent
                    .map(|(p, m)| (p, positions[p as usize].move_text(m))),
                ply: n.ply,
                edges: n
                    .edges
                    .iter()
                    .map(|e| (here.move_text(e.mv), e.child, e.prior))
                    .collect(),
                own: n.own.as_ref().map(|o| OwnRecord {
                    value: o.value,
                    draw: o.draw,
                    visits: o.visits,
                    best: here.move_text(o.best),
                    best_prior: o.best_prior,
                }),
                terminal: n.terminal,
            }
        })
        .collect();
    FORMAT.encode(header, &records)
}

/// Whether `x` is a number in `[lo, hi]` (with room for rounding).
fn within(x: f32, lo: f32, hi: f32) -> bool {
    x.is_finite() && x >= lo - 1e-3 && x <= hi + 1e-3
}

/// A node record's number that no writer produces.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum NodeValueError {
    /// `path`: the plies of its path from the start.
    #[error("ply {ply}, but its path from the start has {path} plies")]
    Ply { ply: u32, path: u32 },
    #[error("game-over value {value} is not in [-1, 1]")]
    Terminal { value: f32 },
    /// `mv`: the move as the record writes it.
    #[error("move {mv}: prior {prior} is not in [0, 1]")]
    Prior { mv: String, prior: f32 },
    /// `what`: which of the node's own search numbers.
    #[error("search {what} {value} is not in [{low}, 1]")]
    Search {
        what: &'static str,
        value: f32,
        low: f32,
    },
}

/// The numbers of a node record that a writer can produce: values in [-1, 1], draw
/// probabilities and priors in [0, 1], the root at ply 0 and every other node one ply after
/// its canonical parent (whose index is checked later). Anything else is damage that would
/// reach `clamp` with a NaN bound, or an allocation sized by the ply.
fn check_values(r: &NodeRecord, records: &[NodeRecord]) -> Result<(), NodeValueError> {
    let expected_ply = match &r.parent {
        None => Some(0),
        Some((p, _)) => records.get(*p as usize).map(|p| p.ply.saturating_add(1)),
    };
    if let Some(ply) = expected_ply.filter(|&e| e != r.ply) {
        return Err(NodeValueError::Ply {
            ply: r.ply,
            path: ply,
        });
    }
    if let Some(t) = r.terminal.filter(|&t| !within(t, -1.0, 1.0)) {
        return Err(NodeValueError::Terminal { value: t });
    }
    if let Some((m, _, p)) = r.edges.iter().find(|(_, _, p)| !within(*p, 0.0, 1.0)) {
        return Err(NodeValueError::Prior {
            mv: m.clone(),
            prior: *p,
        });
    }
    if let Some(o) = &r.own {
        for (what, x, lo) in [
            ("value", o.value, -1.0),
            ("draw probability", o.draw, 0.0),
            ("prior of the best move", o.best_prior, 0.0),
        ] {
            if !within(x, lo, 1.0) {
                return Err(NodeValueError::Search {
                    what,
                    value: x,
                    low: lo,
                });
            }
        }
    }
    Ok(())
}

/// Parses a book: checks the checksum, the game and key scheme, replays every node's path
/// and checks its key, and parses every move in its position.
pub fn from_bytes(
    bytes: &[u8],
    path: &str,
) -> Result<(BookHeader, Arc<Variant>, Graph), BookError> {
    let bad_frame = |frame| BookError::Frame {
        path: path.into(),
        frame,
    };
    let frame = FORMAT.open(bytes).map_err(bad_frame)?;
    let header: BookHeader = frame.header().map_err(bad_frame)?;
    let corrupt = |problem: String| BookError::Corrupt {
        path: path.into(),
        problem,
    };
    let incompatible = |problem: String| BookError::Incompatible {
        path: path.into(),
        problem,
    };
    let Some(variant) = Variant::builtin(&header.game) else {
        return Err(incompatible(format!(
            "a book of an unknown game {:?}",
            header.game
        )));
    };
    if header.key_scheme != KEY_SCHEME {
        return Err(incompatible(format!(
            "key scheme {}, this build computes scheme {KEY_SCHEME}",
            header.key_scheme
        )));
    }
    if header.table_hash != table_hash(&variant) {
        return Err(incompatible(format!(
            "made with another piece table of {} (rules {}); this build has rules {}",
            header.game,
            header.rules_version,
            tengu_rules::RULES_VERSION
        )));
    }
    header
        .costs
        .validate()
        .map_err(|e| corrupt(format!("header: {e}")))?;
    let records: Vec<NodeRecord> = frame.payload().map_err(bad_frame)?;
    if records.is_empty() {
        return Err(BookError::Empty { path: path.into() });
    }
    for (i, r) in records.iter().enumerate() {
        check_values(r, &records).map_err(|e| corrupt(format!("node {i}: {e}")))?;
    }
    let mut nodes: Vec<Node> = Vec::with_capacity(records.len());
    let mut positions: Vec<Position> = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let (pos, parent) = match &r.parent {
            None if i == 0 => (Position::initial(variant.clone()), None),
            None => return Err(corrupt(format!("node {i} has no parent"))),
            Some((p, text)) => {
                let from = positions
                    .get(*p as usize)
                    .ok_or_else(|| corrupt(format!("node {i}: parent {p} is not older")))?;
                let m = from
                    .parse_move(text)
                    .map_err(|e| corrupt(format!("node {i}: path move {text:?}: {e}")))?;
                let mut pos = from.clone();
                pos.play(m);
                (pos, Some((*p, m)))
            }
        };
        let key = BookKey::of(&pos);
        if key.0 != r.key {
            return Err(corrupt(format!(
                "node {i}: its path leads to key {key}, but it is stored with key {:032x}",
                r.key
            )));
        }
        let parse = |text: &str| {
            pos.parse_move(text)
                .map_err(|e| corrupt(format!("node {i}: move {text:?}: {e}")))
        };
        let edges = r
            .edges
            .iter()
            .map(|(text, child, prior)| {
                Ok(Edge {
                    mv: parse(text)?,
                    child: *child,
                    prior: *prior,
                })
            })
            .collect::<Result<Vec<_>, BookError>>()?;
        let own = match &r.own {
            None => None,
            Some(o) => Some(OwnSearch {
                value: o.value,
                draw: o.draw,
                visits: o.visits,
                best: parse(&o.best)?,
                best_prior: o.best_prior,
            }),
        };
        nodes.push(Node {
            key,
            parent,
            ply: r.ply,
            side: pos.side_to_move(),
            edges,
            own,
            terminal: r.terminal,
        });
        positions.push(pos);
    }
    // Every edge must lead where its move goes.
    for (i, n) in nodes.iter().enumerate() {
        for e in &n.edges {
            let child = nodes
                .get(e.child as usize)
                .ok_or_else(|| corrupt(format!("node {i}: edge to a missing node {}", e.child)))?;
            let mut pos = positions[i].clone();
            pos.play(e.mv);
            if BookKey::of(&pos) != child.key {
                return Err(corrupt(format!(
                    "node {i}: move {} does not lead to node {}",
                    positions[i].move_text(e.mv),
                    e.child
                )));
            }
        }
    }
    let graph = Graph::from_nodes(nodes).map_err(|e| corrupt(e.to_string()))?;
    Ok((header, variant, graph))
}

/// Writes `bytes` to `path` atomically (`tengu_store::atomic`: temporary name, sync,
/// rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), BookError> {
    tengu_store::atomic::write_atomic(path, bytes).map_err(|source| BookError::Io {
        path: path.display().to_string(),
        source,
    })
}
