#![allow(dead_code)]
//! Independent, deliberately simple reference move generator for Dai Dai Shogi (17x17) and
//! Maka Dai Dai Shogi (19x19), written only from the rules document RULES.md (v1.2).
//!
//! It is meant for cross-checking the fast engine in tests, so it favours obviousness over
//! speed: a plain board of `Option<Piece>`, per-kind move definitions copied from the piece
//! tables of RULES.md §9.3 / §10.3, literal check detection ("does the opponent have a
//! pseudo-legal move whose captured set contains all my royals"), positions cloned for
//! every move, no incremental state, no attack tables.
//!
//! Public API (all positions in RULES.md §12.2 text form, moves in §12.3 text form):
//! * `legal_moves(position)` - every legal move;
//! * `perft(position, depth)` - leaf count of the legal-move tree;
//! * `play(position, move)` - the position after the move (canonical §12.2 text);
//! * `in_check(position)` - whether the side to move is in check (§5.3).

use std::sync::OnceLock;

mod options;
pub use options::{rules, Rules};

// =============================================================================================
// Public API
// =============================================================================================

/// Every legal move of the position, in §12.3 coordinate notation (sorted).
pub fn legal_moves(position: &str) -> Result<Vec<String>, String> {
    let pos = parse_position(position)?;
    let mut out: Vec<String> = legal(&pos).iter().map(|m| move_text(&pos, m)).collect();
    out.sort();
    Ok(out)
}

/// Number of leaves of the legal-move tree of the given depth (depth 0 = 1).
pub fn perft(position: &str, depth: u32) -> Result<u64, String> {
    let pos = parse_position(position)?;
    Ok(perft_pos(&pos, depth))
}

/// The position after `mv` (which must be one of the position's legal moves), printed in
/// canonical §12.2 form.
pub fn play(position: &str, mv: &str) -> Result<String, String> {
    let pos = parse_position(position)?;
    check_move_syntax(&pos, mv)?;
    for m in legal(&pos) {
        if move_text(&pos, &m) == mv {
            return Ok(print_position(&apply(&pos, &m)));
        }
    }
    Err(format!(
        "move '{}' is not a legal move in this position",
        mv
    ))
}

/// [`legal_moves`] under a rule set (see [`rules`]).
pub fn legal_moves_with(rules: &'static Rules, position: &str) -> Result<Vec<String>, String> {
    let pos = parse_position_with(position, Some(rules))?;
    let mut out: Vec<String> = legal(&pos).iter().map(|m| move_text(&pos, m)).collect();
    out.sort();
    Ok(out)
}

/// [`perft`] under a rule set (see [`rules`]).
pub fn perft_with(rules: &'static Rules, position: &str, depth: u32) -> Result<u64, String> {
    let pos = parse_position_with(position, Some(rules))?;
    Ok(perft_pos(&pos, depth))
}

/// Whether the side to move is in check (§5.3).
pub fn in_check(position: &str) -> Result<bool, String> {
    let pos = parse_position(position)?;
    Ok(side_in_check(&pos, pos.side))
}

// =============================================================================================
// Games, piece kinds and their moves (RULES.md §9.3 and §10.3)
// =============================================================================================

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Game {
    Dd,
    Mdd,
}

/// "Unlimited" range.
const INF: u32 = 1000;

/// One row of a game's piece table.
#[derive(Clone, Copy)]
struct KindRow {
    code: &'static str,
    /// Range vector, owner-relative directions in the order `f fr r br b bl l fl`
    /// (`-` = none, `∞` = unlimited), copied from the tables.
    ranges: &'static str,
    /// Special powers, space separated:
    /// `royal`, `lion` (§2.4), `liondog` (§2.5 on all 8 rays), `liondog-ge` (§2.5 on the
    /// rays f r br b bl l), `hook-orth` / `hook-diag` (§2.3), `emperor` (§6.4),
    /// jumps (§2.2): `jump-A` (all 4 diagonal 2-jumps), `jump-D` (all 4 orthogonal 2-jumps),
    /// `jump-fD`, `jump-vD`, `jump-fA`, `jump-bA`, `jump-ffN`.
    special: &'static str,
    /// Code of the promoted form ("" = does not promote by the normal rule).
    promotes_to: &'static str,
    /// Exists only as the result of a promotion (promoted flag implied).
    promoted_only: bool,
}

const fn k(
    code: &'static str,
    ranges: &'static str,
    special: &'static str,
    promotes_to: &'static str,
) -> KindRow {
    KindRow {
        code,
        ranges,
        special,
        promotes_to,
        promoted_only: false,
    }
}

/// A promoted-only kind.
const fn po(code: &'static str, ranges: &'static str, special: &'static str) -> KindRow {
    KindRow {
        code,
        ranges,
        special,
        promotes_to: "",
        promoted_only: true,
    }
}

const NONE8: &str = "- - - - - - - -";

/// Dai Dai Shogi, §9.3 (64 setup kinds + 4 promoted-only kinds) with the promotions of §9.4.
const DD_KINDS: &[KindRow] = &[
    //  code    f  fr r  br b  bl l  fl          special                 promotes to
    k("K", "1 1 1 1 1 1 1 1", "royal", ""),
    k("Q", "∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞", "", ""),
    k("RB", "∞ ∞ ∞ ∞ - ∞ ∞ ∞", "", "FR"),
    k("FR", "5 ∞ ∞ ∞ 5 ∞ ∞ ∞", "", ""),
    k("FT", "∞ ∞ 5 ∞ ∞ ∞ 5 ∞", "", ""),
    k("WB", "2 ∞ ∞ ∞ 2 ∞ ∞ ∞", "", "FT"),
    k("DK", "∞ 1 ∞ 1 ∞ 1 ∞ 1", "", ""),
    k("DH", "1 ∞ 1 ∞ 1 ∞ 1 ∞", "", ""),
    k("SQ", "∞ 1 ∞ - ∞ - ∞ 1", "", ""),
    k("RA", "∞ - ∞ 1 ∞ 1 ∞ -", "", ""),
    k("R", "∞ - ∞ - ∞ - ∞ -", "", ""),
    k("B", "- ∞ - ∞ - ∞ - ∞", "", ""),
    k("GBD", "∞ 3 2 3 ∞ 3 2 3", "", ""),
    k("GD", "2 3 ∞ 3 2 3 ∞ 3", "", ""),
    k("SB", "∞ ∞ 2 2 2 2 2 ∞", "", ""),
    k("FE", "2 ∞ 2 2 2 2 2 ∞", "", ""),
    k("WE", "2 2 2 ∞ 2 ∞ 2 2", "", ""),
    k("LN", NONE8, "lion", "FF"),
    k("LD", NONE8, "liondog", "GE"),
    k("DO", "2 5 2 5 2 5 2 5", "", ""),
    k("SD", "5 2 5 2 5 2 5 2", "", ""),
    k("BDR", "2 ∞ ∞ - 2 - ∞ 1", "", ""),
    k("WT", "∞ 1 2 - ∞ - 2 ∞", "", ""),
    k("RC", "∞ ∞ - - 1 ∞ - -", "", ""),
    k("LC", "∞ - - ∞ 1 - - ∞", "", ""),
    k("PH", "1 - 1 - 1 - 1 -", "jump-A", "GBD"),
    k("KR", "- 1 - 1 - 1 - 1", "jump-D", "GD"),
    k("PO", "- - 1 - - - 1 -", "jump-fD jump-bA", "HM"),
    k("OK", "2 1 2 - 2 - 2 1", "", "LO"),
    k("VO", "2 - 2 - 2 - 2 -", "", ""),
    k("FD", "- 2 - 2 - 2 - 2", "", "DK"),
    k("EF", "- 2 - - 2 - - 2", "", "SD"),
    k("OR", "- 2 - - 2 - - 2", "", "WS"),
    k("EB", "2 - 2 - - - 2 -", "", "DO"),
    k("FH", "1 2 1 - 1 - 1 2", "", "Q"),
    k("PS", "1 1 2 1 - 1 2 1", "", "SQ"),
    k("SVT", "2 1 - - 2 - - 1", "", ""),
    k("HM", NONE8, "hook-orth", ""),
    k("LO", "1 - 1 - 1 - 1 -", "hook-diag", ""),
    k("NBA", "- 2 1 1 - 1 1 2", "", "FE"),
    k("SBA", "- 1 1 2 - 2 1 1", "", "WE"),
    k("EBA", "2 1 1 - 2 - 1 1", "", "LN"),
    k("WBA", "1 1 2 - 1 - 2 1", "", "LD"),
    k("NK", "1 1 1 1 1 1 1 1", "", "SB"),
    k("BM", "- 1 1 1 - 1 1 1", "", "MW"),
    k("FL", "1 1 - 1 1 1 - 1", "", ""),
    k("EW", "1 1 1 - - - 1 1", "", ""),
    k("VB", "- 2 1 - - - 1 2", "", ""),
    k("RG", "1 1 - 1 1 1 1 1", "", ""),
    k("LG", "1 1 1 1 1 1 - 1", "", ""),
    k("G", "1 1 1 - 1 - 1 1", "", ""),
    k("S", "1 1 - 1 - 1 - 1", "", ""),
    k("C", "1 1 - - 1 - - 1", "", ""),
    k("I", "1 1 - - - - - 1", "", ""),
    k("W", "- 2 - - - - - 2", "", ""),
    k("ST", "- 1 - - - - - 1", "", ""),
    k("AB", "1 - 1 - 1 - 1 -", "", ""),
    k("CS", "- 1 - 1 - 1 - 1", "", "DH"),
    k("RV", "∞ - - - ∞ - - -", "", ""),
    k("L", "∞ - - - - - - -", "", ""),
    k("SM", "1 - ∞ - 1 - ∞ -", "", ""),
    k("VM", "∞ - 1 - ∞ - 1 -", "", ""),
    k("HD", "∞ - - - 1 - - -", "", ""),
    k("P", "1 - - - - - - -", "", ""),
    // promoted-only kinds
    po("FF", NONE8, "lion liondog"),
    po("GE", "∞ 2 ∞ ∞ ∞ ∞ ∞ 2", "liondog-ge"),
    po("MW", "1 ∞ - ∞ ∞ ∞ - ∞", ""),
    po("WS", "∞ ∞ - ∞ 1 ∞ - ∞", ""),
];

/// Maka Dai Dai Shogi, §10.3 (50 setup kinds + 26 promoted-only kinds) with §10.4.
const MDD_KINDS: &[KindRow] = &[
    //  code    f  fr r  br b  bl l  fl          special                 promotes to
    k("K", "1 1 1 1 1 1 1 1", "royal", "EM"),
    k("DV", "- 1 - 1 - - 1 1", "", "TK"),
    k("DS", "- 1 1 - - 1 - 1", "", "BS"),
    k("G", "1 1 1 - 1 - 1 1", "", "FG"),
    k("S", "1 1 - 1 - 1 - 1", "", "FS"),
    k("C", "1 1 - - 1 - - 1", "", "FC"),
    k("I", "1 1 - - - - - 1", "", "FI"),
    k("T", "- 1 - - 1 - - 1", "", "FTL"),
    k("ST", "- 1 - - - - - 1", "", "FST"),
    k("E", "1 - - - 1 - - -", "", "FEA"),
    k("L", "∞ - - - - - - -", "", "G"),
    k("DE", "1 1 1 1 - 1 1 1", "", "PR"),
    k("BT", "- 1 1 1 1 1 1 1", "", "FTG"),
    k("FL", "1 1 - 1 1 1 - 1", "", "FLP"),
    k("CO", "1 - - 1 1 1 - -", "", "FSP"),
    k("RD", "1 - 1 1 1 1 1 -", "", "FDR"),
    k("CC", "- 1 1 - 1 - 1 1", "", "WS"),
    k("OM", "- 1 - 1 1 1 - 1", "", "MW"),
    k("CS", "- 1 - 1 - 1 - 1", "", "FCT"),
    k("RV", "∞ - - - ∞ - - -", "", "G"),
    k("LN", NONE8, "lion", "FF"),
    k("KR", "- 1 - 1 - 1 - 1", "jump-D", "GD"),
    k("PH", "1 - 1 - 1 - 1 -", "jump-A", "GBD"),
    k("EW", "1 1 1 - - - 1 1", "", "FW"),
    k("BB", "- 1 - 1 ∞ 1 - 1", "", "FBR"),
    k("AB", "1 - 1 - 1 - 1 -", "", "FBO"),
    k("OR", "- 2 - - 2 - - 2", "", "BAT"),
    k("LD", NONE8, "liondog", "G"),
    k("WR", "- 3 1 3 - 3 1 3", "", "G"),
    k("GG", "3 1 3 - 3 - 3 1", "", "G"),
    k("BDV", "- 3 1 - 1 - 1 3", "", "G"),
    k("SD", "5 2 5 2 5 2 5 2", "", "G"),
    k("FD", "- 2 - 2 - 2 - 2", "", "G"),
    k("VO", "2 - 2 - 2 - 2 -", "", "G"),
    k("N", NONE8, "jump-ffN", "G"),
    k("DN", "1 - 1 - 1 - 1 -", "jump-vD", "G"),
    k("Q", "∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞", "", ""),
    k("CA", NONE8, "hook-diag", "G"),
    k("HM", NONE8, "hook-orth", "G"),
    k("DK", "∞ 1 ∞ 1 ∞ 1 ∞ 1", "", ""),
    k("DH", "1 ∞ 1 ∞ 1 ∞ 1 ∞", "", ""),
    k("B", "- ∞ - ∞ - ∞ - ∞", "", "G"),
    k("VM", "∞ - 1 - ∞ - 1 -", "", "G"),
    k("SF", "- 1 ∞ 1 - 1 ∞ 1", "", "G"),
    k("SM", "1 - ∞ - 1 - ∞ -", "", "G"),
    k("LC", "∞ - - ∞ 1 - - ∞", "", "G"),
    k("RC", "∞ ∞ - - 1 ∞ - -", "", "G"),
    k("R", "∞ - ∞ - ∞ - ∞ -", "", "G"),
    k("P", "1 - - - - - - -", "", "G"),
    k("GB", "1 - - - 1 - - -", "", "FGB"),
    // promoted-only kinds
    po("EM", NONE8, "royal emperor"),
    po("TK", "∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞", "liondog"),
    po("BS", "∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞", "lion"),
    po("PR", "1 1 1 1 1 1 1 1", "royal"),
    po("FG", "∞ ∞ ∞ - ∞ - ∞ ∞", ""),
    po("FS", "∞ ∞ - ∞ - ∞ - ∞", ""),
    po("FC", "∞ ∞ - - ∞ - - ∞", ""),
    po("FI", "∞ ∞ - - - - - ∞", ""),
    po("FTL", "- ∞ - - ∞ - - ∞", ""),
    po("FST", "- ∞ - - - - - ∞", ""),
    po("FEA", "∞ - - - ∞ - - -", ""),
    po("FGB", "∞ - - - ∞ - - -", ""),
    po("FTG", "- ∞ ∞ ∞ ∞ ∞ ∞ ∞", ""),
    po("FLP", "∞ ∞ - ∞ ∞ ∞ - ∞", ""),
    po("FSP", "∞ - - ∞ ∞ ∞ - -", ""),
    po("FDR", "∞ - ∞ ∞ ∞ ∞ ∞ -", ""),
    po("WS", "∞ ∞ - ∞ 1 ∞ - ∞", ""),
    po("MW", "1 ∞ - ∞ ∞ ∞ - ∞", ""),
    po("FCT", "- ∞ - ∞ - ∞ - ∞", ""),
    po("FF", NONE8, "lion liondog"),
    po("GD", "2 3 ∞ 3 2 3 ∞ 3", ""),
    po("GBD", "∞ 3 2 3 ∞ 3 2 3", ""),
    po("FW", "∞ ∞ ∞ - - - ∞ ∞", ""),
    po("FBR", "- ∞ ∞ ∞ - ∞ ∞ ∞", "jump-fA"),
    po("FBO", "- ∞ ∞ ∞ - ∞ ∞ ∞", ""),
    po("BAT", "∞ - - ∞ - ∞ - -", ""),
];

/// Owner-relative directions f fr r br b bl l fl as (dfile, drank) for Black (§1).
/// White's directions are the negations.
const DIRS: [(i32, i32); 8] = [
    (0, -1),  // f
    (-1, -1), // fr
    (-1, 0),  // r
    (-1, 1),  // br
    (0, 1),   // b
    (1, 1),   // bl
    (1, 0),   // l
    (1, -1),  // fl
];
const F: usize = 0;
const FR: usize = 1;
const R: usize = 2;
const BR: usize = 3;
const B: usize = 4;
const BL: usize = 5;
const L: usize = 6;
const FL: usize = 7;

/// Parsed form of a `KindRow`.
struct Def {
    code: &'static str,
    ranges: [u32; 8],
    /// Jump offsets as (dfile, drank) seen from Black (negated for White).
    jumps: Vec<(i32, i32)>,
    lion: bool,
    /// Owner-relative direction indices on which the piece has lion-dog power.
    liondog_rays: Vec<usize>,
    /// Direction indices (absolute; the sets are symmetric) of the hook move, if any.
    hook_dirs: Vec<usize>,
    /// The hook may also turn where it captures, and capture again (§8.2 "moves twice as a
    /// rook", option `TWO_CAPTURES`).
    hook_twice: bool,
    emperor: bool,
    royal: bool,
    promotes_to: Option<usize>,
    promoted_only: bool,
    /// `+` may be written on this kind (§12.2): it is a promotion result of some kind of the
    /// game and also present unpromoted in the setup.
    plus_allowed: bool,
}

fn build_defs(rows: &[KindRow]) -> Vec<Def> {
    let index_of = |code: &str| rows.iter().position(|r| r.code == code);
    let mut defs = Vec::new();
    for row in rows {
        let parts: Vec<&str> = row.ranges.split_whitespace().collect();
        assert_eq!(parts.len(), 8, "bad range vector for {}", row.code);
        let mut ranges = [0u32; 8];
        for (i, p) in parts.iter().enumerate() {
            ranges[i] = match *p {
                "-" => 0,
                "∞" => INF,
                n => n.parse().expect("bad range"),
            };
        }
        let mut d = Def {
            code: row.code,
            ranges,
            jumps: Vec::new(),
            lion: false,
            liondog_rays: Vec::new(),
            hook_dirs: Vec::new(),
            hook_twice: false,
            emperor: false,
            royal: false,
            promotes_to: None,
            promoted_only: row.promoted_only,
            plus_allowed: false,
        };
        for tag in row.special.split_whitespace() {
            match tag {
                "royal" => d.royal = true,
                "lion" => d.lion = true,
                "liondog" => d.liondog_rays = (0..8).collect(),
                "liondog-ge" => d.liondog_rays = vec![F, R, BR, B, BL, L],
                "hook-orth" => d.hook_dirs = vec![F, R, B, L],
                "hook-diag" => d.hook_dirs = vec![FR, BR, BL, FL],
                "hook-twice" => d.hook_twice = true,
                "emperor" => d.emperor = true,
                "jump-A" => d.jumps.extend([(2, 2), (2, -2), (-2, 2), (-2, -2)]),
                "jump-D" => d.jumps.extend([(0, 2), (0, -2), (2, 0), (-2, 0)]),
                "jump-fD" => d.jumps.push((0, -2)),
                "jump-vD" => d.jumps.extend([(0, -2), (0, 2)]),
                "jump-fA" => d.jumps.extend([(2, -2), (-2, -2)]),
                "jump-bA" => d.jumps.extend([(2, 2), (-2, 2)]),
                "jump-ffN" => d.jumps.extend([(1, -2), (-1, -2)]),
                "jump-sD" => d.jumps.extend([(2, 0), (-2, 0)]),
                "jump-sH" => d.jumps.extend([(3, 0), (-3, 0)]),
                other => panic!("unknown special tag {}", other),
            }
        }
        if !row.promotes_to.is_empty() {
            d.promotes_to = Some(index_of(row.promotes_to).expect("unknown promotion target"));
        }
        defs.push(d);
    }
    for i in 0..defs.len() {
        let is_target = rows.iter().any(|r| r.promotes_to == rows[i].code);
        defs[i].plus_allowed = is_target && !rows[i].promoted_only;
    }
    defs
}

fn defs(game: Game) -> &'static [Def] {
    &default_rules(game).defs
}

/// RULES.md's default rules of `game`.
fn default_rules(game: Game) -> &'static Rules {
    static DD: OnceLock<&'static Rules> = OnceLock::new();
    static MDD: OnceLock<&'static Rules> = OnceLock::new();
    match game {
        Game::Dd => DD.get_or_init(|| rules(17, &[]).unwrap()),
        Game::Mdd => MDD.get_or_init(|| rules(19, &[]).unwrap()),
    }
}

fn kind_index(rules: &Rules, code: &str) -> Option<usize> {
    rules.defs.iter().position(|d| d.code == code)
}

// =============================================================================================
// Board and position
// =============================================================================================

const BLACK: u8 = 0;
const WHITE: u8 = 1;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Piece {
    side: u8,
    kind: usize,
    promoted: bool,
}

/// A square: (file 1..N, rank 1..N), rank 1 = `a`.
type Sq = (i32, i32);

#[derive(Clone)]
struct Pos {
    game: Game,
    rules: &'static Rules,
    n: i32,
    /// `cells[(rank-1)*n + (n-file)]`, i.e. diagram order.
    cells: Vec<Option<Piece>>,
    side: u8,
    /// The previous move was a pass (§7.4 (c)).
    prev_pass: bool,
}

impl Pos {
    fn on_board(&self, s: Sq) -> bool {
        s.0 >= 1 && s.0 <= self.n && s.1 >= 1 && s.1 <= self.n
    }
    fn index(&self, s: Sq) -> usize {
        ((s.1 - 1) * self.n + (self.n - s.0)) as usize
    }
    fn get(&self, s: Sq) -> Option<Piece> {
        self.cells[self.index(s)]
    }
    fn set(&mut self, s: Sq, p: Option<Piece>) {
        let i = self.index(s);
        self.cells[i] = p;
    }
    fn def(&self, p: Piece) -> &'static Def {
        &self.rules.defs[p.kind]
    }
    /// All squares in board reading order.
    fn squares(&self) -> Vec<Sq> {
        let mut v = Vec::new();
        for r in 1..=self.n {
            for f in (1..=self.n).rev() {
                v.push((f, r));
            }
        }
        v
    }
}

fn other(side: u8) -> u8 {
    1 - side
}

fn dir_of(side: u8, i: usize) -> (i32, i32) {
    let (df, dr) = DIRS[i];
    if side == BLACK {
        (df, dr)
    } else {
        (-df, -dr)
    }
}

fn add(s: Sq, d: (i32, i32), k: i32) -> Sq {
    (s.0 + d.0 * k, s.1 + d.1 * k)
}

fn sq_name(s: Sq) -> String {
    format!("{}{}", s.0, (b'a' + (s.1 - 1) as u8) as char)
}

/// What a square holds, seen from the moving side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Off,
    Empty,
    Friend,
    Enemy,
}

fn cell(pos: &Pos, s: Sq, side: u8) -> Cell {
    if !pos.on_board(s) {
        return Cell::Off;
    }
    match pos.get(s) {
        None => Cell::Empty,
        Some(p) if p.side == side => Cell::Friend,
        Some(_) => Cell::Enemy,
    }
}

// =============================================================================================
// Move generation
// =============================================================================================

/// A raw piece move: destination and captured squares (sorted in board reading order).
#[derive(Clone, PartialEq, Eq, Debug)]
struct Raw {
    to: Sq,
    caps: Vec<Sq>,
}

/// Board reading order: rank `a` first, within a rank file N down to 1.
fn reading_key(s: &Sq) -> (i32, i32) {
    (s.1, -s.0)
}

fn push_raw(out: &mut Vec<Raw>, to: Sq, mut caps: Vec<Sq>) {
    caps.sort_by_key(reading_key);
    caps.dedup();
    out.push(Raw { to, caps });
}

/// All pseudo-legal moves (§5.2) of the piece on `from` as (to, captured set), deduplicated.
/// `allow_pass`: whether passes may be generated (§7.4 (c)).
fn raw_moves(pos: &Pos, from: Sq, allow_pass: bool) -> Vec<Raw> {
    let piece = pos.get(from).expect("no piece on from square");
    let side = piece.side;
    let d = pos.def(piece);
    let mut out: Vec<Raw> = Vec::new();
    let enemy_caps = |s: Sq, c: Cell| if c == Cell::Enemy { vec![s] } else { vec![] };

    // Emperor (§6.4): any square but its own not holding a friendly piece; a capture only
    // of an unprotected piece.
    if d.emperor {
        for s in pos.squares() {
            if s == from {
                continue;
            }
            match cell(pos, s, side) {
                Cell::Empty => push_raw(&mut out, s, vec![]),
                Cell::Enemy if emperor_may_capture(pos, from, s) => {
                    push_raw(&mut out, s, vec![s]);
                }
                _ => {}
            }
        }
    }

    // Ranging / limited-range / step moves (§2.1).
    for i in 0..8 {
        let range = d.ranges[i];
        if range == 0 {
            continue;
        }
        let dv = dir_of(side, i);
        let mut k = 1;
        while k as u32 <= range {
            let s = add(from, dv, k);
            match cell(pos, s, side) {
                Cell::Off | Cell::Friend => break,
                Cell::Empty => push_raw(&mut out, s, vec![]),
                Cell::Enemy => {
                    push_raw(&mut out, s, vec![s]);
                    break;
                }
            }
            k += 1;
        }
    }

    // Jumps (§2.2).
    for &(jf, jr) in &d.jumps {
        let off = if side == BLACK { (jf, jr) } else { (-jf, -jr) };
        let s = add(from, off, 1);
        let c = cell(pos, s, side);
        if c == Cell::Empty || c == Cell::Enemy {
            push_raw(&mut out, s, enemy_caps(s, c));
        }
    }

    // Hook moves (§2.3).
    for &i in &d.hook_dirs {
        let d1 = dir_of(side, i);
        let perps = [(-d1.1, d1.0), (d1.1, -d1.0)];
        let mut k = 1;
        loop {
            let x = add(from, d1, k);
            match cell(pos, x, side) {
                Cell::Off | Cell::Friend => break,
                Cell::Enemy => {
                    push_raw(&mut out, x, vec![x]);
                    if d.hook_twice {
                        // turn on the captured square, go on, perhaps capture a second piece
                        for &d2 in &perps {
                            let mut j = 1;
                            loop {
                                let y = add(x, d2, j);
                                match cell(pos, y, side) {
                                    Cell::Off | Cell::Friend => break,
                                    Cell::Empty => push_raw(&mut out, y, vec![x]),
                                    Cell::Enemy => {
                                        push_raw(&mut out, y, vec![x, y]);
                                        break;
                                    }
                                }
                                j += 1;
                            }
                        }
                    }
                    break;
                }
                Cell::Empty => {
                    push_raw(&mut out, x, vec![]);
                    // optional 90-degree turn on the empty square x
                    for &d2 in &perps {
                        let mut j = 1;
                        loop {
                            let y = add(x, d2, j);
                            match cell(pos, y, side) {
                                Cell::Off | Cell::Friend => break,
                                Cell::Empty => push_raw(&mut out, y, vec![]),
                                Cell::Enemy => {
                                    push_raw(&mut out, y, vec![y]);
                                    break;
                                }
                            }
                            j += 1;
                        }
                    }
                }
            }
            k += 1;
        }
    }

    // Lion power (§2.4).
    if d.lion {
        // 1 + 2: steps and jumps to every square of the 5x5 area
        for df in -2..=2 {
            for dr in -2..=2 {
                if df == 0 && dr == 0 {
                    continue;
                }
                let s = (from.0 + df, from.1 + dr);
                let c = cell(pos, s, side);
                if c == Cell::Empty || c == Cell::Enemy {
                    push_raw(&mut out, s, enemy_caps(s, c));
                }
            }
        }
        // 3: double steps through an adjacent enemy
        for i in 0..8 {
            let a = add(from, DIRS[i], 1);
            if cell(pos, a, side) != Cell::Enemy {
                continue;
            }
            for j in 0..8 {
                let b = add(a, DIRS[j], 1);
                if b == from {
                    push_raw(&mut out, from, vec![a]); // igui
                    continue;
                }
                match cell(pos, b, side) {
                    Cell::Empty => push_raw(&mut out, b, vec![a]),
                    Cell::Enemy => push_raw(&mut out, b, vec![a, b]),
                    _ => {}
                }
            }
        }
        // 4: pass
        let beside = |i: usize| pass_neighbour(pos, cell(pos, add(from, DIRS[i], 1), side));
        if allow_pass && (0..8).any(beside) {
            push_raw(&mut out, from, vec![]);
        }
    }

    // Lion-dog power (§2.5), table rows 1-9.
    for &i in &d.liondog_rays {
        let dv = dir_of(side, i);
        let (s1, s2, s3) = (add(from, dv, 1), add(from, dv, 2), add(from, dv, 3));
        let (c1, c2, c3) = (
            cell(pos, s1, side),
            cell(pos, s2, side),
            cell(pos, s3, side),
        );
        let nf = |c: Cell| c == Cell::Empty || c == Cell::Enemy; // on the board, not friendly
        let en = |c: Cell| c == Cell::Enemy;
        // 1
        if nf(c1) {
            push_raw(&mut out, s1, enemy_caps(s1, c1));
        }
        // 2
        if nf(c2) {
            push_raw(&mut out, s2, enemy_caps(s2, c2));
        }
        // 3
        if nf(c3) {
            push_raw(&mut out, s3, enemy_caps(s3, c3));
        }
        // 4 igui
        if en(c1) {
            push_raw(&mut out, from, vec![s1]);
        }
        // 5 pass
        if pass_neighbour(pos, c1) && allow_pass {
            push_raw(&mut out, from, vec![]);
        }
        // 6
        if en(c1) && nf(c2) {
            let mut caps = vec![s1];
            caps.extend(enemy_caps(s2, c2));
            push_raw(&mut out, s2, caps);
        }
        // 7
        if en(c2) && nf(c1) {
            let mut caps = vec![s2];
            caps.extend(enemy_caps(s1, c1));
            push_raw(&mut out, s1, caps);
        }
        // 8
        if en(c2) && nf(c3) {
            let mut caps = vec![s2];
            caps.extend(enemy_caps(s3, c3));
            push_raw(&mut out, s3, caps);
        }
        // 9
        if nf(c1) && nf(c2) && nf(c3) {
            let mut caps = enemy_caps(s1, c1);
            caps.extend(enemy_caps(s2, c2));
            caps.extend(enemy_caps(s3, c3));
            push_raw(&mut out, s3, caps);
        }
    }

    // Move identity (§2.7): (from, to, captured set); two routes to one triple are one move.
    out.sort_by(|a, b| {
        reading_key(&a.to).cmp(&reading_key(&b.to)).then_with(|| {
            a.caps
                .iter()
                .map(reading_key)
                .cmp(b.caps.iter().map(reading_key))
        })
    });
    out.dedup();
    out
}

/// Whether a neighbour in this state lets a lion-type piece pass (§7.4 (a)): an empty
/// square, and under `PASS=QBOARD` an enemy too.
fn pass_neighbour(pos: &Pos, c: Cell) -> bool {
    c == Cell::Empty || (c == Cell::Enemy && pos.rules.pass_beside_enemy)
}

/// May the Emperor on `from` capture the enemy piece on `s`? Only if that piece is not
/// protected (§6.4): in the position after the capture, the victim's side has no
/// pseudo-legal move capturing on `s` (its own Emperor counting under the same rule,
/// which recurses once and then ends because the first Emperor is gone).
fn emperor_may_capture(pos: &Pos, from: Sq, s: Sq) -> bool {
    let em = pos.get(from).expect("no emperor");
    let victim = pos.get(s).expect("no victim");
    debug_assert!(victim.side != em.side);
    let mut after = pos.clone();
    after.set(from, None);
    after.set(s, Some(em));
    !side_can_capture(&after, victim.side, &[s])
}

/// Does side `by` have a pseudo-legal move whose captured set contains every square of
/// `targets`? (The squares hold pieces of the other side.)
fn side_can_capture(pos: &Pos, by: u8, targets: &[Sq]) -> bool {
    if targets.is_empty() {
        return false;
    }
    for s in pos.squares() {
        let p = match pos.get(s) {
            Some(p) if p.side == by => p,
            _ => continue,
        };
        if pos.def(p).emperor {
            // an Emperor captures exactly one piece per move
            if targets.len() == 1 && emperor_may_capture(pos, s, targets[0]) {
                return true;
            }
            continue;
        }
        for m in raw_moves(pos, s, false) {
            if targets.iter().all(|t| m.caps.contains(t)) {
                return true;
            }
        }
    }
    false
}

fn royals(pos: &Pos, side: u8) -> Vec<Sq> {
    pos.squares()
        .into_iter()
        .filter(|&s| matches!(pos.get(s), Some(p) if p.side == side && pos.def(p).royal))
        .collect()
}

/// §5.3: side X is in check if the opponent would have a pseudo-legal move capturing all
/// of X's royal pieces.
fn side_in_check(pos: &Pos, side: u8) -> bool {
    let r = royals(pos, side);
    side_can_capture(pos, other(side), &r)
}

/// A complete move: raw move plus the piece that stands on `to` afterwards and the
/// promotion mark of §12.3.
#[derive(Clone, Debug)]
struct Move {
    from: Sq,
    to: Sq,
    caps: Vec<Sq>,
    result: Piece,
    mark: Option<char>,
}

fn promoted_piece(piece: Piece, kind: usize) -> Piece {
    Piece {
        side: piece.side,
        kind,
        promoted: true,
    }
}

/// Expand a raw move into the full move(s) with their promotion outcome (§4, §6.3, §7.1).
fn expand(pos: &Pos, from: Sq, raw: &Raw, out: &mut Vec<Move>) {
    let piece = pos.get(from).unwrap();
    let d = pos.def(piece);
    let mk = |result: Piece, mark: Option<char>| Move {
        from,
        to: raw.to,
        caps: raw.caps.clone(),
        result,
        mark,
    };
    if raw.caps.is_empty() {
        out.push(mk(piece, None));
        return;
    }
    let victims: Vec<(Sq, Piece)> = raw
        .caps
        .iter()
        .filter(|&&s| !pos.rules.promote_on_destination_only || s == raw.to)
        .map(|&s| (s, pos.get(s).unwrap()))
        .collect();
    if victims.is_empty() {
        // PROMOTION_TRIGGER=QBOARD: nothing captured on the destination, no promotion
        out.push(mk(piece, None));
        return;
    }
    {
        {
            // §6.3 contagion (never for King, Drunk Elephant, Emperor, Prince); the rule set
            // says which victims are contagious (none in Dai Dai Shogi)
            let exempt = matches!(d.code, "K" | "DE" | "EM" | "PR");
            if !exempt {
                let contagious = |p: &Piece| pos.rules.contagious.contains(&pos.def(*p).code);
                let cont: Vec<&(Sq, Piece)> =
                    victims.iter().filter(|(_, p)| contagious(p)).collect();
                if !cont.is_empty() {
                    let deciding = match cont.iter().find(|(s, _)| *s == raw.to) {
                        Some(v) => v.1,
                        None => {
                            let dist = |s: Sq| (s.0 - from.0).abs().max((s.1 - from.1).abs());
                            cont.iter().max_by_key(|(s, _)| dist(*s)).unwrap().1
                        }
                    };
                    let code = match pos.def(deciding).code {
                        "DV" | "TK" => "TK",
                        _ => "BS",
                    };
                    let t = kind_index(pos.rules, code).unwrap();
                    out.push(mk(promoted_piece(piece, t), None));
                    return;
                }
            }
            // §4, "No second Prince" (v1.2): a side may own at most one Prince; if it already
            // owns one, a Drunk Elephant's promotion is not available.
            let owns_prince = pos
                .cells
                .iter()
                .any(|c| matches!(c, Some(p) if p.side == piece.side && pos.def(*p).code == "PR"));
            let promotion_available = !(d.code == "DE" && owns_prince);
            match d.promotes_to {
                Some(t) if !piece.promoted => {
                    if !pos.rules.promotion_optional || victims.iter().any(|(_, p)| p.promoted) {
                        // mandatory; without the promotion the move is impossible
                        if promotion_available {
                            out.push(mk(promoted_piece(piece, t), None));
                        }
                    } else {
                        // optional: both versions, or only the declining one (keeps its `=`)
                        if promotion_available {
                            out.push(mk(promoted_piece(piece, t), Some('+')));
                        }
                        out.push(mk(piece, Some('=')));
                    }
                }
                _ => out.push(mk(piece, None)),
            }
        }
    }
}

/// All pseudo-legal moves of the side to move (§5.2), promotion variants expanded.
fn pseudo_moves(pos: &Pos) -> Vec<Move> {
    let mut out = Vec::new();
    for s in pos.squares() {
        match pos.get(s) {
            Some(p) if p.side == pos.side => {
                for raw in raw_moves(
                    pos,
                    s,
                    (!pos.prev_pass || pos.rules.pass_after_pass) && !pos.rules.no_pass,
                ) {
                    expand(pos, s, &raw, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

fn is_pass(m: &Move) -> bool {
    m.from == m.to && m.caps.is_empty()
}

fn apply(pos: &Pos, m: &Move) -> Pos {
    let mut p = pos.clone();
    p.set(m.from, None);
    for &c in &m.caps {
        p.set(c, None);
    }
    p.set(m.to, Some(m.result));
    p.side = other(pos.side);
    p.prev_pass = is_pass(m);
    p
}

/// Legal moves (§5.3): pseudo-legal moves after which the mover is not in check.
fn legal(pos: &Pos) -> Vec<Move> {
    if pos.rules.pseudo_legal {
        // §5.3's fast mode: every pseudo-legal move, none once the last royal is gone
        return if royals(pos, pos.side).is_empty() {
            Vec::new()
        } else {
            pseudo_moves(pos)
        };
    }
    pseudo_moves(pos)
        .into_iter()
        .filter(|m| !side_in_check(&apply(pos, m), pos.side))
        .collect()
}

fn perft_pos(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft_pos(&apply(pos, m), depth - 1))
        .sum()
}

fn move_text(_pos: &Pos, m: &Move) -> String {
    let mut s = format!("{}>{}", sq_name(m.from), sq_name(m.to));
    if !m.caps.is_empty() {
        let names: Vec<String> = m.caps.iter().map(|&c| sq_name(c)).collect();
        s.push('{');
        s.push_str(&names.join(","));
        s.push('}');
    }
    if let Some(c) = m.mark {
        s.push(c);
    }
    s
}

/// Light syntax check of a §12.3 move text, for a clearer error message.
fn check_move_syntax(pos: &Pos, mv: &str) -> Result<(), String> {
    let parse_sq = |t: &str| -> Result<Sq, String> {
        let bytes = t.as_bytes();
        if bytes.len() < 2 {
            return Err(format!("bad square '{}' in move '{}'", t, mv));
        }
        let (num, letter) = t.split_at(t.len() - 1);
        let l = letter.as_bytes()[0];
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) || num.starts_with('0') {
            return Err(format!("bad file in square '{}' of move '{}'", t, mv));
        }
        let f: i32 = num
            .parse()
            .map_err(|_| format!("bad file in square '{}'", t))?;
        if !l.is_ascii_lowercase() {
            return Err(format!("bad rank in square '{}' of move '{}'", t, mv));
        }
        let r = (l - b'a') as i32 + 1;
        if !pos.on_board((f, r)) {
            return Err(format!("square '{}' of move '{}' is off the board", t, mv));
        }
        Ok((f, r))
    };
    let (from_txt, rest) = mv
        .split_once('>')
        .ok_or_else(|| format!("move '{}' lacks the '>' separator", mv))?;
    let from = parse_sq(from_txt)?;
    let mut rest = rest;
    if rest.ends_with('+') || rest.ends_with('=') {
        rest = &rest[..rest.len() - 1];
    }
    let to_txt = match rest.find('{') {
        Some(i) => {
            if !rest.ends_with('}') {
                return Err(format!("move '{}' has an unterminated captured set", mv));
            }
            let inner = &rest[i + 1..rest.len() - 1];
            for c in inner.split(',') {
                parse_sq(c)?;
            }
            &rest[..i]
        }
        None => rest,
    };
    parse_sq(to_txt)?;
    match pos.get(from) {
        None => Err(format!("move '{}': no piece on {}", mv, from_txt)),
        Some(p) if p.side != pos.side => Err(format!(
            "move '{}': the piece on {} belongs to the side not to move",
            mv, from_txt
        )),
        _ => Ok(()),
    }
}

// =============================================================================================
// Position text (§12.2)
// =============================================================================================

fn parse_position(text: &str) -> Result<Pos, String> {
    parse_position_with(text, None)
}

fn parse_position_with(text: &str, rules: Option<&'static Rules>) -> Result<Pos, String> {
    let fields: Vec<&str> = text.split(' ').collect();
    if fields.len() != 3 {
        return Err(format!(
            "position must be '<board> <side> <pass>' separated by single spaces; found {} field(s)",
            fields.len()
        ));
    }
    let rank_texts: Vec<&str> = fields[0].split('/').collect();
    let game = match rank_texts.len() {
        17 => Game::Dd,
        19 => Game::Mdd,
        k => {
            return Err(format!(
                "board has {} ranks; expected 17 (Dai Dai) or 19 (Maka Dai Dai)",
                k
            ))
        }
    };
    let n = rank_texts.len() as i32;
    let rules = rules.unwrap_or_else(|| default_rules(game));
    if rules.game != game {
        return Err("the rule set is of the other game".into());
    }
    let mut pos = Pos {
        game,
        rules,
        n,
        cells: vec![None; (n * n) as usize],
        side: BLACK,
        prev_pass: false,
    };
    for (ri, rt) in rank_texts.iter().enumerate() {
        let r = ri as i32 + 1;
        let rname = (b'a' + ri as u8) as char;
        if rt.is_empty() {
            return Err(format!("rank {} is empty", rname));
        }
        let mut file = n; // next file to fill
        let mut prev_count = false;
        for item in rt.split(',') {
            if item.is_empty() {
                return Err(format!("rank {}: empty item", rname));
            }
            if item.bytes().all(|b| b.is_ascii_digit()) {
                if prev_count {
                    return Err(format!("rank {}: two adjacent empty counts", rname));
                }
                if item.starts_with('0') {
                    return Err(format!("rank {}: bad empty count '{}'", rname, item));
                }
                let c: i32 = item
                    .parse()
                    .map_err(|_| format!("rank {}: bad empty count '{}'", rname, item))?;
                if c < 1 || c > n {
                    return Err(format!(
                        "rank {}: empty count '{}' out of range",
                        rname, item
                    ));
                }
                if c > file {
                    return Err(format!("rank {}: covers more than {} squares", rname, n));
                }
                file -= c;
                prev_count = true;
            } else {
                if file < 1 {
                    return Err(format!("rank {}: covers more than {} squares", rname, n));
                }
                let p = parse_token(rules, item).map_err(|e| format!("rank {}: {}", rname, e))?;
                pos.set((file, r), Some(p));
                file -= 1;
                prev_count = false;
            }
        }
        if file != 0 {
            return Err(format!(
                "rank {}: covers only {} of {} squares",
                rname,
                n - file,
                n
            ));
        }
    }
    pos.side = match fields[1] {
        "b" => BLACK,
        "w" => WHITE,
        s => return Err(format!("side field '{}' must be 'b' or 'w'", s)),
    };
    pos.prev_pass = match fields[2] {
        "p" => true,
        "-" => false,
        s => return Err(format!("pass field '{}' must be 'p' or '-'", s)),
    };
    // royal pieces (§12.2)
    for side in [BLACK, WHITE] {
        let name = if side == BLACK { "Black" } else { "White" };
        let count = |code: &str| {
            pos.cells
                .iter()
                .filter(|c| matches!(c, Some(p) if p.side == side && pos.def(*p).code == code))
                .count()
        };
        match game {
            Game::Dd => {
                if count("K") != 1 {
                    return Err(format!(
                        "{} must have exactly one King (has {})",
                        name,
                        count("K")
                    ));
                }
            }
            Game::Mdd => {
                let (k, em, pr) = (count("K"), count("EM"), count("PR"));
                if k + em > 1 {
                    return Err(format!("{} has more than one King/Emperor", name));
                }
                if pr > 1 {
                    return Err(format!("{} has more than one Prince", name));
                }
                if k + em + pr == 0 {
                    return Err(format!("{} has no royal piece", name));
                }
            }
        }
    }
    if !rules.pseudo_legal && side_in_check(&pos, other(pos.side)) {
        return Err("the side not to move is in check".to_string());
    }
    Ok(pos)
}

fn parse_token(rules: &Rules, item: &str) -> Result<Piece, String> {
    let game = rules.game;
    let (plus, code) = match item.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, item),
    };
    if code.is_empty() || !code.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(format!("bad piece token '{}'", item));
    }
    let side = if code.bytes().all(|b| b.is_ascii_uppercase()) {
        BLACK
    } else if code.bytes().all(|b| b.is_ascii_lowercase()) {
        WHITE
    } else {
        return Err(format!("piece token '{}' mixes upper and lower case", item));
    };
    let upper = code.to_ascii_uppercase();
    let gname = if game == Game::Dd {
        "Dai Dai Shogi"
    } else {
        "Maka Dai Dai Shogi"
    };
    let kind = kind_index(rules, &upper).ok_or_else(|| {
        format!(
            "piece token '{}': kind {} does not belong to {}",
            item, upper, gname
        )
    })?;
    let d = &rules.defs[kind];
    if plus && !d.plus_allowed {
        return Err(format!(
            "piece token '{}': '+' is not allowed on {}",
            item, upper
        ));
    }
    Ok(Piece {
        side,
        kind,
        promoted: plus || d.promoted_only,
    })
}

fn print_position(pos: &Pos) -> String {
    let mut ranks = Vec::new();
    for r in 1..=pos.n {
        let mut items: Vec<String> = Vec::new();
        let mut empty = 0;
        for f in (1..=pos.n).rev() {
            match pos.get((f, r)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        items.push(empty.to_string());
                        empty = 0;
                    }
                    let d = pos.def(p);
                    let mut t = String::new();
                    if p.promoted && d.plus_allowed {
                        t.push('+');
                    }
                    if p.side == BLACK {
                        t.push_str(d.code);
                    } else {
                        t.push_str(&d.code.to_ascii_lowercase());
                    }
                    items.push(t);
                }
            }
        }
        if empty > 0 {
            items.push(empty.to_string());
        }
        ranks.push(items.join(","));
    }
    format!(
        "{} {} {}",
        ranks.join("/"),
        if pos.side == BLACK { "b" } else { "w" },
        if pos.prev_pass { "p" } else { "-" }
    )
}

// =============================================================================================
// Self-checks of the tables (cheap; run as part of the reference's own sanity)
// =============================================================================================

/// Table sanity numbers: (kinds, promoted-only kinds, kinds that promote, kinds allowing `+`).
fn table_counts(game: Game) -> (usize, usize, usize, usize) {
    let d = defs(game);
    (
        d.len(),
        d.iter().filter(|k| k.promoted_only).count(),
        d.iter().filter(|k| k.promotes_to.is_some()).count(),
        d.iter().filter(|k| k.plus_allowed).count(),
    )
}
