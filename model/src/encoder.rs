//! Position -> input planes, always from the side to move's point of view.
//!
//! Layout (version [`ENCODER_VERSION`]), `T` = number of piece types of the game
//! ([`tengu_rules::Variant::piece_types`], promoted forms included), `N` = board side:
//!
//! | planes | meaning |
//! |---|---|
//! | `0 .. T` | the side to move's pieces, one plane per piece type (1.0 where it stands) |
//! | `T .. 2T` | the opponent's pieces, same order |
//! | `2T` | all 1.0 if the previous move was a pass (the mover may not pass, RULES.md §7.4) |
//! | `2T + 1` | earlier occurrences of this position (repetition key), divided by 3 |
//! | `2T + 2` | all 1.0 if the side to move is in check |
//! | `2T + 3` | all 1.0 (marks the board for zero-padded convolutions) |
//! | `2T + 4` | all 1.0 if the side to move is White |
//! | `2T + 5` | tactical layout only: 1.0 where the side to move could capture ([`Position::attacks`]) |
//! | `2T + 6` | tactical layout only: 1.0 where the opponent could capture |
//! | `2T + 7` | tactical layout only: the mover's pieces the opponent attacks and the mover does not defend |
//! | `2T + 8` | tactical layout only: the opponent's pieces the mover attacks and the opponent does not defend |
//! | next | material layouts only: each non-royal piece's value / 10 (the mover's positive, the opponent's negative; [`tengu_rules::values`]) |
//! | next | material layouts only: `tanh(balance / 10)`, the mover's material minus the opponent's |
//!
//! The tactical planes are derived from the rules by the move generator (what a network
//! of a few 3x3 layers cannot see across a 17x17 board: a slider's attack from afar). The
//! "pure" layout leaves them out; a network's plane count says which layout it was trained
//! on ([`Encoder::for_planes`]).
//!
//! Each plane is `N x N`, row-major, in the mover's frame: row 0 is the rank farthest from
//! the mover (rank `a` for Black), column 0 the mover's left-most file. White's view is the
//! board rotated by 180 degrees, so both sides see their army at the bottom.

use std::sync::Arc;

use tengu_rules::{Color, Position, Square, Variant};

use crate::desc::{plane_count, EXTRA_PLANES, MATERIAL_SCALE, TACTICAL_PLANES};

/// Version of the plane layout and of the policy index; written into every checkpoint and
/// shard, and checked when they are read.
pub const ENCODER_VERSION: u32 = 2;

/// Piece units that map to 1.0 in the material planes (as the material head's scale).
const MATERIAL_PLANE_SCALE: f32 = MATERIAL_SCALE;

/// A plane count that no layout of a game has (a network or checkpoint of another layout
/// or game).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a network with {planes} input planes does not fit {game}: its encoder has {layouts}")]
pub struct PlanesError {
    /// The network's plane count.
    pub planes: usize,
    /// The game's id.
    pub game: String,
    /// The plane counts of the game's layouts, with their names: `43 (tactical), 39 (pure), ...`.
    pub layouts: String,
}

/// The input planes of a network trained under one rule set of a game, laid out for another
/// rule set of the same game whose piece types differ: a preset that removes a promoted form
/// (`LION_DOG_PROMOTES_DD=NO`: no Great Elephant) or adds one (`KIRIN_PHOENIX_MDD=CHU`: a
/// promoted Lion and Queen). Types are matched by piece code and promotion; a type the
/// network lacks reads as the same piece code's other form (`+LN` as `LN`), else it has no
/// plane (the network does not see it). The extra planes (pass, repetition, tactical,
/// material) keep their meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaneMap {
    /// For each input plane of the playing rules' layout (`2T' + extras` planes), the
    /// network's plane whose weights it takes; `None`: a plane the network never had, whose
    /// weights are zero.
    pub source: Vec<Option<usize>>,
    /// Piece types of the playing rules read as another type of the network: `(type, read
    /// as)`, e.g. `("+LN", "LN")`.
    pub borrowed: Vec<(String, String)>,
    /// Piece types of the playing rules the network has no plane for.
    pub unseen: Vec<String>,
}

/// A piece type as text: its kind's code, `+` before it when promoted (`+LN`).
fn type_name(variant: &Variant, ty: usize) -> String {
    let t = &variant.piece_types()[ty];
    let code = &variant.kinds()[t.kind].code;
    if t.promoted {
        format!("+{code}")
    } else {
        code.clone()
    }
}

impl PlaneMap {
    /// The map from the layout of a network of `planes` input planes trained under `trained`
    /// to `playing`'s layout, or `None` when both have the same piece types in the same
    /// order (the planes need no map). An error when `planes` fits no layout of `trained`.
    pub fn between(
        trained: &Variant,
        playing: &Variant,
        planes: usize,
    ) -> Result<Option<PlaneMap>, PlanesError> {
        let layout = Encoder::for_planes(trained, planes)?;
        let names = |v: &Variant| -> Vec<String> {
            (0..v.piece_types().len())
                .map(|t| type_name(v, t))
                .collect()
        };
        let (have, want) = (names(trained), names(playing));
        if have == want {
            return Ok(None);
        }
        let (t_net, t_play) = (have.len(), want.len());
        let mut borrowed = Vec::new();
        let mut unseen = Vec::new();
        let types: Vec<Option<usize>> = want
            .iter()
            .map(|name| {
                if let Some(i) = have.iter().position(|h| h == name) {
                    return Some(i);
                }
                let other = match name.strip_prefix('+') {
                    Some(code) => code.to_string(),
                    None => format!("+{name}"),
                };
                match have.iter().position(|h| *h == other) {
                    Some(i) => {
                        borrowed.push((name.clone(), other));
                        Some(i)
                    }
                    None => {
                        unseen.push(name.clone());
                        None
                    }
                }
            })
            .collect();
        let extras = planes - 2 * t_net;
        let mut source: Vec<Option<usize>> = types.clone();
        source.extend(types.iter().map(|t| t.map(|t| t_net + t)));
        source.extend((0..extras).map(|e| Some(2 * t_net + e)));
        debug_assert_eq!(
            source.len(),
            plane_count(t_play, layout.tactical(), layout.material())
        );
        Ok(Some(PlaneMap {
            source,
            borrowed,
            unseen,
        }))
    }
}

/// The encoder of one game.
#[derive(Clone, Debug)]
pub struct Encoder {
    size: usize,
    types: usize,
    tactical: bool,
    /// Piece values of the material planes (`None`: layout without them).
    material: Option<Arc<Vec<f32>>>,
}

impl Encoder {
    /// The default layout: with the tactical (attack) planes.
    pub fn new(variant: &Variant) -> Encoder {
        Encoder::with_layout(variant, true)
    }

    /// `tactical`: whether the attack planes are included (false: the "pure" layout).
    pub fn with_layout(variant: &Variant, tactical: bool) -> Encoder {
        Encoder::with_planes(variant, tactical, false)
    }

    /// `tactical`: the attack planes; `material`: the material planes (piece values derived
    /// from the rules, [`tengu_rules::values`]; a built-in game's only, zero otherwise).
    pub fn with_planes(variant: &Variant, tactical: bool, material: bool) -> Encoder {
        let material = material.then(|| {
            Arc::new(
                Variant::builtin(variant.id())
                    .map(|v| tengu_rules::values::piece_values(&v))
                    .unwrap_or_else(|| vec![0.0; variant.piece_types().len()]),
            )
        });
        Encoder {
            size: variant.size(),
            types: variant.piece_types().len(),
            tactical,
            material,
        }
    }

    /// The layout with `planes` input planes (a network's or checkpoint's plane count), or
    /// an error naming the counts this game's layouts have.
    pub fn for_planes(variant: &Variant, planes: usize) -> Result<Encoder, PlanesError> {
        let types = variant.piece_types().len();
        let layouts = [(true, false), (false, false), (true, true), (false, true)];
        if let Some(&(tactical, material)) = layouts
            .iter()
            .find(|&&(t, m)| plane_count(types, t, m) == planes)
        {
            return Ok(Encoder::with_planes(variant, tactical, material));
        }
        let counts: Vec<String> = layouts
            .iter()
            .map(|&(t, m)| {
                let name = match (t, m) {
                    (true, false) => "tactical",
                    (false, false) => "pure",
                    (true, true) => "tactical + material",
                    (false, true) => "material",
                };
                format!("{} ({name})", plane_count(types, t, m))
            })
            .collect();
        Err(PlanesError {
            planes,
            game: variant.id().to_string(),
            layouts: counts.join(", "),
        })
    }

    /// The encoder of a network with `planes` input planes: [`Encoder::for_planes`], or the
    /// default layout when none fits. Checkpoints are checked with `for_planes` where they
    /// are loaded (`Backend`), so only a network built in code for another plane count gets
    /// here, and its first forward pass fails on the input shape.
    pub fn for_network(variant: &Variant, planes: usize) -> Encoder {
        Encoder::for_planes(variant, planes).unwrap_or_else(|_| Encoder::new(variant))
    }

    /// Whether the attack planes are included.
    pub fn tactical(&self) -> bool {
        self.tactical
    }

    /// Whether the material planes are included.
    pub fn material(&self) -> bool {
        self.material.is_some()
    }

    /// Board side `N`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of input planes: `2T + 9` (tactical) or `2T + 5` (pure), plus 2 with the
    /// material planes.
    pub fn planes(&self) -> usize {
        plane_count(self.types, self.tactical, self.material.is_some())
    }

    /// Floats per encoded position: `planes * N * N`.
    pub fn len(&self) -> usize {
        self.planes() * self.size * self.size
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of a square in the mover's frame (`0 .. N * N`, row-major).
    #[inline]
    pub fn square_index(&self, s: Square, mover: Color) -> usize {
        let (col, row) = match mover {
            Color::Black => (s.col(), s.row()),
            Color::White => (self.size - 1 - s.col(), self.size - 1 - s.row()),
        };
        row * self.size + col
    }

    /// Writes the planes of `pos` into `out` (length [`Encoder::len`]), overwriting it.
    /// `repetitions`: how often this position occurred before in the game (0 if new).
    pub fn encode(&self, pos: &Position, repetitions: u32, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            self.len(),
            "output buffer must hold planes * N * N floats"
        );
        assert_eq!(pos.size(), self.size, "position of another game");
        out.fill(0.0);
        let area = self.size * self.size;
        let mover = pos.side_to_move();
        for color in Color::ALL {
            let base = if color == mover { 0 } else { self.types };
            for s in pos.squares_of(color) {
                let piece = pos.piece_at(s).expect("occupied square");
                out[(base + piece.ty) * area + self.square_index(s, mover)] = 1.0;
            }
        }
        let extra = 2 * self.types;
        let fill = |out: &mut [f32], plane: usize, value: f32| {
            out[plane * area..(plane + 1) * area].fill(value)
        };
        if pos.after_pass() {
            fill(out, extra, 1.0);
        }
        if repetitions > 0 {
            fill(out, extra + 1, repetitions.min(3) as f32 / 3.0);
        }
        if pos.in_check() {
            fill(out, extra + 2, 1.0);
        }
        fill(out, extra + 3, 1.0);
        if mover == Color::White {
            fill(out, extra + 4, 1.0);
        }
        if self.tactical {
            let base = extra + EXTRA_PLANES;
            let them = mover.opposite();
            for row in 0..self.size {
                for col in 0..self.size {
                    let s = Square::new(col, row);
                    let i = self.square_index(s, mover);
                    let mine = pos.attacks(mover, s);
                    let theirs = pos.attacks(them, s);
                    out[base * area + i] = mine as u8 as f32;
                    out[(base + 1) * area + i] = theirs as u8 as f32;
                    match pos.piece_at(s) {
                        Some(p) if p.color == mover && theirs && !mine => {
                            out[(base + 2) * area + i] = 1.0
                        }
                        Some(p) if p.color == them && mine && !theirs => {
                            out[(base + 3) * area + i] = 1.0
                        }
                        _ => {}
                    }
                }
            }
        }
        if let Some(values) = &self.material {
            let base = extra + EXTRA_PLANES + if self.tactical { TACTICAL_PLANES } else { 0 };
            let mut balance = 0.0;
            for color in Color::ALL {
                let sign = if color == mover { 1.0 } else { -1.0 };
                for s in pos.squares_of(color) {
                    let piece = pos.piece_at(s).expect("occupied square");
                    let value = values[piece.ty];
                    if value < tengu_rules::values::ROYAL_VALUE {
                        out[base * area + self.square_index(s, mover)] =
                            sign * value / MATERIAL_PLANE_SCALE;
                        balance += sign * value;
                    }
                }
            }
            fill(out, base + 1, (balance / MATERIAL_PLANE_SCALE).tanh());
        }
    }
}

/// Threads that encode one batch for a GPU evaluator (1: the calling thread alone; the CPU
/// evaluators encode on their own core). Process-wide, because one worker process owns one
/// evaluator: `selfplay.encode_threads` through [`set_encode_threads`], else
/// `TENGU_ENCODE_THREADS` (the benches). On a GPU the encoder (tactical planes: move
/// generation for every position, about 66 us each on an H200 machine's core) is CPU work
/// the device waits on.
static ENCODE_THREADS: std::sync::OnceLock<std::sync::atomic::AtomicUsize> =
    std::sync::OnceLock::new();

fn encode_threads_cell() -> &'static std::sync::atomic::AtomicUsize {
    ENCODE_THREADS.get_or_init(|| {
        let n = std::env::var("TENGU_ENCODE_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n >= 1)
            .unwrap_or(1);
        std::sync::atomic::AtomicUsize::new(n)
    })
}

/// Sets the threads that encode a batch for a GPU evaluator (at least 1).
pub fn set_encode_threads(threads: usize) {
    encode_threads_cell().store(threads.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// The threads that encode a batch for a GPU evaluator.
pub fn encode_threads() -> usize {
    encode_threads_cell().load(std::sync::atomic::Ordering::Relaxed)
}
