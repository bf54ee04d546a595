//! A variant (Dai Dai Shogi, Maka Dai Dai Shogi, or any game described by a TOML file of the
//! same schema) compiled into the lookup tables that move generation reads.
//!
//! A *piece type* is a (kind, promoted flag) pair that can occur in the game: every setup kind
//! unpromoted, and every promotion or contagion target with the flag set. A board cell holds
//! `0` (empty), [`OFF`] (guard) or `1 + 2 * type + color`, and every per-piece table is indexed
//! by that cell code, so a piece's whole description is one array lookup away.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::config::{
    ConfigError, ContagionRule, HookKind, PieceKindSpec, RuleOptions, VariantSpec, UNLIMITED,
};
use crate::ruleset::{RuleSet, RuleSetError};
use crate::types::{
    direction_offset, relative_offset, Color, Square, BLACK_DIRECTION_OFFSETS, STRIDE,
};

/// Cell code of a guard cell outside the board.
pub(crate) const OFF: u8 = u8::MAX;
/// Cell code of an empty square.
pub(crate) const EMPTY: u8 = 0;

/// What a cell is to the side that moves: see [`Variant::target`].
pub(crate) const T_EMPTY: u8 = 0;
pub(crate) const T_ENEMY: u8 = 1;
pub(crate) const T_BLOCKED: u8 = 2;

/// Per-cell flags.
pub(crate) const F_ROYAL: u8 = 1;
pub(crate) const F_HOOK: u8 = 2;
pub(crate) const F_EMPEROR: u8 = 4;
pub(crate) const F_LIONISH: u8 = 8;
/// Pieces whose position must be tracked for check detection: hooks, emperors, lion-types.
pub(crate) const F_SPECIAL: u8 = F_HOOK | F_EMPEROR | F_LIONISH;

/// Most jump offsets a piece may have (a 7x7 area holds 48, no real piece has more than 4).
pub(crate) const MAX_JUMPS: usize = 16;

/// A (kind, promoted) pair that can occur in the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceType {
    pub kind: usize,
    pub promoted: bool,
}

/// Everything move generation needs to know about one cell code.
#[derive(Clone, Debug, Default)]
pub(crate) struct CellInfo {
    pub flags: u8,
    /// Piece type index.
    pub ty: u8,
    /// Normal promotion: cell code of the promoted piece (same colour), or 0.
    pub promotion: u8,
    /// As a victim: type index + 1 of the kind the capturer turns into by contagion, or 0.
    pub contagion: u8,
    pub contagion_immune: bool,
    pub promoted: bool,
    /// For a royal piece: its family's kind index + 1 (a side owns at most one royal of a
    /// family, RULES.md §4 and §12.2: King and Emperor form one family, the Prince another);
    /// 0 for other pieces.
    pub royal_family: u16,
    /// Attack range along each absolute direction (index into `BLACK_DIRECTION_OFFSETS`),
    /// hooked directions counted as unlimited.
    pub attack_range: [u8; 8],
}

/// Movement of one cell code with absolute mailbox offsets.
#[derive(Clone, Debug, Default)]
pub(crate) struct MoveSpec {
    /// (offset, range) per sliding direction.
    pub slides: Vec<(i16, u8)>,
    pub jumps: Vec<i16>,
    pub lion: bool,
    /// Offsets of the rays with lion-dog power.
    pub lion_dog: Vec<i16>,
    /// Offsets of the four hook directions, if the piece hooks.
    pub hook: Option<[i16; 4]>,
    /// The hook may turn where it captures and capture again (`TWO_CAPTURES`).
    pub hook_two_captures: bool,
    pub emperor: bool,
    /// Several move sources may reach one destination: de-duplicate plain moves.
    pub dedupe: bool,
}

/// A compiled variant. Shared between positions through an [`Arc`].
///
/// ```
/// use tengu_rules::Variant;
/// let dd = Variant::dai_dai();
/// assert_eq!((dd.id(), dd.size()), ("dai-dai", 17));
/// let lion = dd.kind_index("LN").unwrap();
/// assert_eq!(dd.kinds()[lion].name, "Lion");
/// // A promoted Lion (an Eastern Barbarian that captured) is its own piece type.
/// assert!(dd.type_index(lion, true).is_some());
/// ```
#[derive(Debug)]
pub struct Variant {
    spec: VariantSpec,
    /// The rule set the description was built under (the defaults for a file read as is).
    rule_set: RuleSet,
    /// `rule_set.hash()`, kept for cheap comparisons.
    rule_set_hash: u64,
    types: Vec<PieceType>,
    /// `(kind, promoted)` -> type index.
    type_of: HashMap<(usize, bool), u8>,
    pub(crate) info: Vec<CellInfo>,
    pub(crate) moves: Vec<MoveSpec>,
    /// Per moving colour: what each cell code is to it (T_EMPTY, T_ENEMY, T_BLOCKED).
    pub(crate) target: [[u8; 256]; 2],
    /// Per attacking colour: (offset from attacker to target, attacker cell codes) for every
    /// unblockable capture: jumps, the lion's 5x5 area, the lion dog's three squares per ray.
    pub(crate) reverse_leaps: [Vec<(i16, [u64; 4])>; 2],
    /// Every square of the board in reading order.
    pub(crate) squares: Vec<Square>,
}

#[inline]
pub(crate) const fn cell_code(ty: u8, color: Color) -> u8 {
    1 + 2 * ty + color as u8
}

#[inline]
pub(crate) const fn cell_color(cell: u8) -> Color {
    Color::from_index(((cell - 1) & 1) as usize)
}

impl Variant {
    /// Compiles a validated description.
    pub fn new(spec: VariantSpec) -> Result<Variant, ConfigError> {
        let err = |key: String, problem: String| ConfigError {
            file: spec.id.clone(),
            key,
            problem,
        };
        let kinds = &spec.kinds;
        let is_target = |k: usize| {
            kinds
                .iter()
                .any(|o| o.promotes_to == Some(k) || o.contagion == Some(k))
        };
        let mut types = Vec::new();
        for (k, kind) in kinds.iter().enumerate() {
            if kind.in_setup {
                types.push(PieceType {
                    kind: k,
                    promoted: false,
                });
            }
        }
        for (k, _) in kinds.iter().enumerate() {
            if is_target(k) {
                types.push(PieceType {
                    kind: k,
                    promoted: true,
                });
            }
        }
        if 2 * types.len() + 1 >= OFF as usize {
            return Err(err(
                "piece".into(),
                format!("{} piece types; at most 126 fit a cell", types.len()),
            ));
        }
        let type_of: HashMap<(usize, bool), u8> = types
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.kind, t.promoted), i as u8))
            .collect();

        let mut info = vec![CellInfo::default(); 256];
        let mut moves = vec![MoveSpec::default(); 256];
        let mut target = [[T_BLOCKED; 256]; 2];
        target[0][EMPTY as usize] = T_EMPTY;
        target[1][EMPTY as usize] = T_EMPTY;
        let mut leaps: [HashMap<i16, [u64; 4]>; 2] = [HashMap::new(), HashMap::new()];
        for (t, ty) in types.iter().enumerate() {
            let kind = &kinds[ty.kind];
            if kind.jumps.len() > MAX_JUMPS {
                return Err(err(
                    format!("piece {}", kind.code),
                    format!("more than {MAX_JUMPS} jumps"),
                ));
            }
            let promotion = if ty.promoted { None } else { kind.promotes_to };
            let contagious = match spec.rules.contagion {
                ContagionRule::None => None,
                ContagionRule::DevaDarkSpirit => kind.contagion,
                ContagionRule::PromotedOnly => kind.contagion.filter(|_| !kind.in_setup),
            };
            for color in Color::ALL {
                let cell = cell_code(t as u8, color);
                target[color.index()][cell as usize] = T_BLOCKED;
                target[color.opposite().index()][cell as usize] = T_ENEMY;
                let mut flags = 0;
                if kind.royal {
                    flags |= F_ROYAL;
                }
                if kind.hook.is_some() {
                    flags |= F_HOOK;
                }
                if kind.emperor {
                    flags |= F_EMPEROR;
                }
                if kind.lion || kind.lion_dog.iter().any(|&b| b) {
                    flags |= F_LIONISH;
                }
                let mut attack_range = [0u8; 8];
                for dir in 0..8 {
                    let mut range = kind.ranges[dir];
                    let hooked = match kind.hook {
                        Some(HookKind::Orthogonal) => dir % 2 == 0,
                        Some(HookKind::Diagonal) => dir % 2 == 1,
                        None => false,
                    };
                    if hooked {
                        range = UNLIMITED;
                    }
                    attack_range[absolute_dir(color, dir)] = range;
                }
                info[cell as usize] = CellInfo {
                    flags,
                    ty: t as u8,
                    promotion: promotion.map_or(0, |p| cell_code(type_of[&(p, true)], color)),
                    contagion: contagious.map_or(0, |c| type_of[&(c, true)] + 1),
                    contagion_immune: kind.contagion_immune,
                    promoted: ty.promoted,
                    royal_family: if kind.royal {
                        royal_family(kinds, ty.kind) as u16 + 1
                    } else {
                        0
                    },
                    attack_range,
                };
                let spec_moves = compile_moves(kind, color);
                for &off in &spec_moves.jumps {
                    mark_leap(&mut leaps[color.index()], off, cell);
                }
                if kind.lion {
                    for dr in -2i16..=2 {
                        for dc in -2i16..=2 {
                            if dr != 0 || dc != 0 {
                                mark_leap(&mut leaps[color.index()], dr * STRIDE as i16 + dc, cell);
                            }
                        }
                    }
                }
                for &d in &spec_moves.lion_dog {
                    for k in 1..=3 {
                        mark_leap(&mut leaps[color.index()], d * k, cell);
                    }
                }
                moves[cell as usize] = spec_moves;
            }
        }
        let mut reverse_leaps: [Vec<(i16, [u64; 4])>; 2] = [Vec::new(), Vec::new()];
        for c in 0..2 {
            let mut v: Vec<(i16, [u64; 4])> = leaps[c].iter().map(|(&o, &m)| (o, m)).collect();
            v.sort_by_key(|&(o, _)| (o.abs(), o));
            reverse_leaps[c] = v;
        }
        let squares: Vec<Square> = Square::all(spec.size).collect();
        let rule_set = RuleSet::default_for(&spec.id);
        Ok(Variant {
            rule_set_hash: rule_set.hash(),
            rule_set,
            spec,
            types,
            type_of,
            info,
            moves,
            target,
            reverse_leaps,
            squares,
        })
    }

    /// Parses, validates and compiles the text of a variant description file; `file` names it
    /// in errors. The rules crate reads no files: callers read the text (and name the file
    /// in their own read errors).
    pub fn from_toml(file: &str, text: &str) -> Result<Variant, ConfigError> {
        Variant::new(VariantSpec::from_toml(file, text)?)
    }

    /// The built-in Dai Dai Shogi (`configs/games/dai-dai.toml`, embedded at build time),
    /// under the default rule set; one shared instance.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tengu_rules::Variant;
    /// assert!(Arc::ptr_eq(&Variant::dai_dai(), &Variant::builtin("dai-dai").unwrap()));
    /// assert!(Variant::dai_dai().rule_set().is_default());
    /// ```
    pub fn dai_dai() -> Arc<Variant> {
        static CELL: OnceLock<Arc<Variant>> = OnceLock::new();
        CELL.get_or_init(|| {
            Arc::new(builtin(
                "configs/games/dai-dai.toml",
                include_str!("../../configs/games/dai-dai.toml"),
            ))
        })
        .clone()
    }

    /// The built-in Maka Dai Dai Shogi (`configs/games/maka-dai-dai.toml`).
    pub fn maka_dai_dai() -> Arc<Variant> {
        static CELL: OnceLock<Arc<Variant>> = OnceLock::new();
        CELL.get_or_init(|| {
            Arc::new(builtin(
                "configs/games/maka-dai-dai.toml",
                include_str!("../../configs/games/maka-dai-dai.toml"),
            ))
        })
        .clone()
    }

    /// The built-in game `rules.game()` under the rule set `rules`: the game's description
    /// with the options applied, compiled once (call it at load time, not per position). The
    /// defaults give the shared built-in variant itself.
    ///
    /// ```
    /// use tengu_rules::{Position, RuleSet, Variant};
    /// let rules = RuleSet::preset("dai-dai", "sz").unwrap();
    /// let sz = Variant::with_rules(&rules).unwrap();
    /// assert_eq!(sz.rule_set(), &rules);
    /// assert!(sz.kind_index("GE").is_none()); // the Lion Dog does not promote in SZ
    /// assert_eq!(Position::initial(sz).legal_move_list().len(), 59);
    /// ```
    pub fn with_rules(rules: &RuleSet) -> Result<Arc<Variant>, RuleSetError> {
        let Some(base) = Variant::builtin(rules.game()) else {
            return Err(RuleSetError::UnknownGame {
                game: rules.game().to_string(),
            });
        };
        if rules.is_default() {
            return Ok(base);
        }
        let mut spec = rules.apply(base.spec.clone())?;
        // The variant's id is its game key: files that name the game (checkpoints, shards,
        // books, match reports) name the rule set with it, and comparing ids compares both.
        spec.id = rules.canonical();
        let mut variant = Variant::new(spec).map_err(|e| RuleSetError::Apply {
            rules: rules.canonical(),
            game: rules.game().to_string(),
            problem: e.to_string(),
        })?;
        variant.rule_set = rules.clone();
        variant.rule_set_hash = rules.hash();
        Ok(Arc::new(variant))
    }

    /// The rule set this variant plays (RULES.md §8; the defaults unless built by
    /// [`Variant::with_rules`]).
    pub fn rule_set(&self) -> &RuleSet {
        &self.rule_set
    }

    /// [`RuleSet::hash`] of [`Variant::rule_set`].
    pub fn rule_set_hash(&self) -> u64 {
        self.rule_set_hash
    }

    /// A built-in variant by id (`dai-dai`, `maka-dai-dai`) or game key (a rule set's
    /// canonical text, `dai-dai:LO=EDO`: see [`Variant::by_key`]).
    pub fn builtin(id: &str) -> Option<Arc<Variant>> {
        match id {
            "dai-dai" => Some(Variant::dai_dai()),
            "maka-dai-dai" => Some(Variant::maka_dai_dai()),
            key if key.contains(':') => Variant::by_key(key).ok(),
            _ => None,
        }
    }

    /// The variant of a game key: a game id for RULES.md's defaults, else the canonical text
    /// of a rule set ([`RuleSet::canonical`]), as [`Variant::id`] gives it and files carry
    /// it. Each key is compiled once per process and shared.
    ///
    /// ```
    /// use tengu_rules::Variant;
    /// let v = Variant::by_key("maka-dai-dai:EMPEROR=LION_QUEEN").unwrap();
    /// assert_eq!((v.id(), v.game()), ("maka-dai-dai:EMPEROR=LION_QUEEN", "maka-dai-dai"));
    /// assert!(std::sync::Arc::ptr_eq(&v, &Variant::builtin(v.id()).unwrap()));
    /// assert!(Variant::by_key("maka-dai-dai:EMPEROR=CHU").is_err());
    /// ```
    pub fn by_key(key: &str) -> Result<Arc<Variant>, RuleSetError> {
        static CACHE: OnceLock<std::sync::Mutex<HashMap<String, Arc<Variant>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            return Ok(v.clone());
        }
        let variant = Variant::with_rules(&RuleSet::parse_canonical(key)?)?;
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string(), variant.clone());
        Ok(variant)
    }

    /// The game (`dai-dai`, `maka-dai-dai`, or a file's id), whatever the rule set.
    pub fn game(&self) -> &str {
        self.rule_set.game()
    }

    /// The built-in variant for a board of `size` ranks (17 = DD, 19 = MDD).
    pub fn for_size(size: usize) -> Option<Arc<Variant>> {
        match size {
            17 => Some(Variant::dai_dai()),
            19 => Some(Variant::maka_dai_dai()),
            _ => None,
        }
    }

    /// The game key: the game's id under RULES.md's defaults (`dai-dai`), else the rule set's
    /// canonical text (`dai-dai:LO=EDO`). [`Variant::game`] is the game alone.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Board side in squares.
    pub fn size(&self) -> usize {
        self.spec.size
    }

    pub fn rules(&self) -> &RuleOptions {
        &self.spec.rules
    }

    pub fn spec(&self) -> &VariantSpec {
        &self.spec
    }

    pub fn kinds(&self) -> &[PieceKindSpec] {
        &self.spec.kinds
    }

    pub fn piece_types(&self) -> &[PieceType] {
        &self.types
    }

    /// Type index of a (kind, promoted) pair, if it can occur.
    pub fn type_index(&self, kind: usize, promoted: bool) -> Option<usize> {
        self.type_of.get(&(kind, promoted)).map(|&t| t as usize)
    }

    /// Kind index of a piece code.
    pub fn kind_index(&self, code: &str) -> Option<usize> {
        self.spec.kinds.iter().position(|k| k.code == code)
    }

    /// Whether `+` is written before this type's code: a promoted type whose kind also occurs
    /// unpromoted in the setup (RULES.md §12.2).
    pub fn plus_marked(&self, ty: usize) -> bool {
        let t = &self.types[ty];
        t.promoted && self.spec.kinds[t.kind].in_setup
    }
}

/// The family of the royal kind `kind`: the royal kind that promotes to it (the King for the
/// Emperor), else the kind itself (the Prince, whose Drunk Elephant is not royal).
pub(crate) fn royal_family(kinds: &[PieceKindSpec], kind: usize) -> usize {
    kinds
        .iter()
        .position(|k| k.royal && k.promotes_to == Some(kind))
        .unwrap_or(kind)
}

fn builtin(file: &str, text: &str) -> Variant {
    // The embedded files are part of the build and covered by tests; failing here is a bug.
    Variant::from_toml(file, text)
        .unwrap_or_else(|e| panic!("built-in variant file is invalid: {e}"))
}

fn mark_leap(map: &mut HashMap<i16, [u64; 4]>, offset: i16, cell: u8) {
    let mask = map.entry(offset).or_insert([0; 4]);
    mask[cell as usize / 64] |= 1 << (cell % 64);
}

/// Absolute direction index (into `BLACK_DIRECTION_OFFSETS`) of owner-relative `dir`.
#[inline]
pub(crate) const fn absolute_dir(color: Color, dir: usize) -> usize {
    match color {
        Color::Black => dir,
        Color::White => (dir + 4) % 8,
    }
}

fn compile_moves(kind: &PieceKindSpec, color: Color) -> MoveSpec {
    let slides: Vec<(i16, u8)> = (0..8)
        .filter(|&d| kind.ranges[d] != 0)
        .map(|d| (direction_offset(color, d), kind.ranges[d]))
        .collect();
    let jumps: Vec<i16> = kind
        .jumps
        .iter()
        .map(|&(f, l)| relative_offset(color, f as i16, l as i16))
        .collect();
    let lion_dog: Vec<i16> = (0..8)
        .filter(|&d| kind.lion_dog[d])
        .map(|d| direction_offset(color, d))
        .collect();
    let hook = kind.hook.map(|h| {
        let first = match h {
            HookKind::Orthogonal => 0,
            HookKind::Diagonal => 1,
        };
        [0, 2, 4, 6].map(|k| direction_offset(color, first + k))
    });
    let sources = [
        !slides.is_empty(),
        !jumps.is_empty(),
        kind.lion,
        !lion_dog.is_empty(),
        hook.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    MoveSpec {
        dedupe: sources > 1 || hook.is_some(),
        slides,
        jumps,
        lion: kind.lion,
        lion_dog,
        hook,
        hook_two_captures: hook.is_some() && kind.hook_two_captures,
        emperor: kind.emperor,
    }
}

/// Offset of absolute direction `d`.
#[inline]
pub(crate) const fn abs_offset(d: usize) -> i16 {
    BLACK_DIRECTION_OFFSETS[d]
}
