//! The reference's own reading of RULES.md §8: each option value as a replacement row of the
//! piece tables (range vector in the order `f fr r br b bl l fl`, special tags), written by
//! hand from the §8.2 / §8.3 tables, and the rule-level switches. It shares nothing with
//! tengu's Betza reader, so agreeing move lists check both.

use super::{build_defs, Game, KindRow, DD_KINDS, MDD_KINDS};

/// The movement row of a piece reading: `(ranges, special)`; `None` for a value the
/// reference does not know (the test then fails naming it).
fn piece_reading(game: Game, code: &str, value: &str) -> Option<(&'static str, &'static str)> {
    let all = |n: &'static str| -> (&'static str, &'static str) { (n, "") };
    Some(match (game, code, value) {
        // Dai Dai Shogi, §8.2
        (Game::Dd, "LO", "EDO") => ("- - - - - - - -", "hook-diag"),
        (Game::Dd, "HM", "TWO_CAPTURES") => ("- - - - - - - -", "hook-orth hook-twice"),
        (Game::Dd, "OK", "SZ") => ("2 ∞ 2 - 2 - 2 ∞", ""),
        (Game::Dd, "OK", "SRZ") => ("1 2 1 2 1 2 1 2", ""),
        (Game::Dd, "OK", "JAPANESE_WIKIPEDIA") => ("- ∞ 2 - - - 2 ∞", ""),
        (Game::Dd, "PO", "SRZ") => ("2 1 2 - 2 - 2 1", ""),
        (Game::Dd, "PO", "JAPANESE_WIKIPEDIA") => ("2 1 2 - 1 - 2 1", ""),
        (Game::Dd, "GE", "TSA") => ("3 3 5 5 3 5 5 3", ""),
        (Game::Dd, "FF", "TSA") => ("3 3 3 3 3 3 3 3", "lion"),
        (Game::Dd, "LD", "TSA") => all("3 3 3 3 3 3 3 3"),
        (Game::Dd, "WBA", "SZ") => all("1 - 2 - 1 - 2 -"),
        (Game::Dd, "WBA", "SRZ") => all("2 1 1 - 2 - 1 1"),
        (Game::Dd, "WBA", "SRZ_TAI") => all("1 - 1 - 1 - 1 -"),
        (Game::Dd, "EBA", "SZ_TEXT") => all("2 - 1 - 2 - - -"),
        (Game::Dd, "EBA", "SZ_PICTURE") => all("2 - - - 2 - 1 -"),
        (Game::Dd, "EBA", "SRZ_TAI") => all("1 - 1 - 1 - 1 -"),
        (Game::Dd, "FE", "SRZ") => all("2 2 2 2 2 2 2 2"),
        (Game::Dd, "FE", "SRZ_B") => all("1 2 2 2 1 2 2 2"),
        (Game::Dd, "WE", "SZ_PICTURE") => all("2 2 2 - - - 2 2"),
        (Game::Dd, "WE", "SRZ") => all("2 2 2 2 2 2 2 2"),
        (Game::Dd, "WE", "SRZ_TAI") => all("2 2 2 - 1 - 2 2"),
        (Game::Dd, "NBA", "SRZ") => all("1 1 2 - 1 - 2 1"),
        (Game::Dd, "NBA", "SRZ_TAI") => all("1 - 2 - 1 - 2 -"),
        (Game::Dd, "SBA", "SZ") => all("- - - 2 - 2 1 -"),
        (Game::Dd, "SBA", "SRZ") => all("1 1 2 - 1 - 2 1"),
        (Game::Dd, "SBA", "SRZ_TAI") => all("1 - 2 - 1 - 2 -"),
        (Game::Dd, "FT", "JAPANESE_WIKIPEDIA") => all("∞ ∞ 5 - ∞ - 5 ∞"),
        (Game::Dd, "FR", "NO_BACKWARD_DIAGONALS") => all("5 ∞ ∞ - 5 - ∞ ∞"),
        (Game::Dd, "FR", "SRZ_TAI") => all("- 2 ∞ - ∞ - ∞ 2"),
        (Game::Dd, "WB", "SRZ") => all("2 2 ∞ ∞ 2 ∞ ∞ 2"),
        (Game::Dd, "RB", "SRZ") => all("2 1 1 1 - 1 1 1"),
        (Game::Dd, "RB", "SRZ_TAI") => all("2 1 2 - - - 2 1"),
        (Game::Dd, "SB", "SZ_PICTURE") => all("∞ ∞ 2 1 1 1 2 ∞"),
        (Game::Dd, "SB", "SZ_TEXT") => all("∞ ∞ ∞ 2 2 2 ∞ ∞"),
        (Game::Dd, "SB", "SSZ") => all("∞ ∞ ∞ 2 2 2 ∞ ∞"),
        (Game::Dd, "SB", "SRZ") => all("5 5 5 5 5 5 5 5"),
        (Game::Dd, "FH", "SZ_PICTURE") => all("2 2 1 - 1 - 1 2"),
        (Game::Dd, "FH", "SRZ_TAI") => all("- ∞ - 2 - 2 - ∞"),
        (Game::Dd, "NK", "SRZ") => all("1 1 1 1 - 1 1 1"),
        (Game::Dd, "NK", "SRZ_TAI") => all("1 - 1 1 1 1 1 1"),
        (Game::Dd, "MW", "SRZ") => all("∞ - - ∞ ∞ ∞ - -"),
        (Game::Dd, "WS", "SZ") => all("- ∞ - ∞ 1 ∞ - ∞"),
        (Game::Dd, "WS", "SSZ") => all("∞ ∞ - - 1 - - ∞"),
        (Game::Dd, "WS", "SRZ") => all("∞ ∞ - - ∞ - - ∞"),
        (Game::Dd, "BM", "SRZ") => all("1 - 1 - 1 - 1 -"),
        (Game::Dd, "BM", "SRZ_TAI") => all("- 2 2 1 - 1 2 2"),
        (Game::Dd, "OR", "SRZ") => all("- 1 - - - 1 - 1"),
        (Game::Dd, "OR", "SRZ_TAI") => all("1 - 1 - 1 - 1 -"),
        (Game::Dd, "DO", "SRZ") => all("2 ∞ 2 ∞ 2 ∞ 2 ∞"),
        (Game::Dd, "EB", "SRZ") => all("2 - 2 - 2 - 2 -"),
        (Game::Dd, "EB", "SRZ_TAI") => all("∞ 2 - 2 ∞ 2 - 2"),
        (Game::Dd, "EF", "SRZ") => all("- 2 - 2 - 2 - 2"),
        (Game::Dd, "RA", "SRZ") => all("- - ∞ - - - ∞ -"),
        (Game::Dd, "SQ", "SRZ") => all("∞ - ∞ - ∞ - ∞ -"),
        (Game::Dd, "GD", "JAPANESE_WIKIPEDIA") => ("2 - ∞ 3 2 3 ∞ -", "jump-sD jump-sH"),
        (Game::Dd, "GD", "SZ_PICTURE") => all("2 3 3 3 2 3 3 3"),
        (Game::Dd, "GD", "SRZ") => all("3 ∞ - ∞ 3 ∞ - ∞"),
        (Game::Dd, "LC", "SZ") => all("∞ ∞ - - - ∞ 1 -"),
        (Game::Dd, "RC", "SZ") => all("∞ - 1 ∞ - - - ∞"),
        (Game::Dd, "WT", "SZ_PICTURE") => all("∞ ∞ 2 - ∞ - 2 1"),
        (Game::Dd, "WT", "SRZ") => all("2 2 ∞ - 2 - ∞ ∞"),
        (Game::Dd, "BDR", "SZ_PICTURE") => all("2 1 ∞ - 2 - ∞ ∞"),
        (Game::Dd, "BDR", "SRZ") => all("∞ ∞ 2 - ∞ - 2 2"),
        (Game::Dd, "VO", "SRZ") => all("2 ∞ - - 2 - - ∞"),
        (Game::Dd, "VB", "SRZ_TAI") => all("∞ 2 1 - - - 1 2"),
        (Game::Dd, "LG", "SZ_PICTURE") => all("1 1 1 1 - 1 - 1"),
        (Game::Dd, "LG", "SRZ") => all("1 1 1 1 1 1 1 1"),
        (Game::Dd, "RG", "SRZ") => all("1 1 1 1 1 1 1 1"),
        (Game::Dd, "RG", "SRZ_TAI") => all("1 1 1 1 1 1 - 1"),
        (Game::Dd, "SVT", "SRZ") => all("∞ 1 - - 2 - - 1"),
        // Maka Dai Dai Shogi, §8.3
        (Game::Mdd, "DV", "SZ") => all("- 1 - - - 1 1 1"),
        (Game::Mdd, "DV", "SRZ") => all("1 - 1 - 1 1 1 1"),
        (Game::Mdd, "DS", "SZ") => all("- 1 1 1 - - - 1"),
        (Game::Mdd, "DS", "SRZ") => all("1 1 1 1 1 - 1 -"),
        (Game::Mdd, "TK", "TSA") => all("∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞"),
        (Game::Mdd, "LD", "TSA") => all("3 3 3 3 3 3 3 3"),
        (Game::Mdd, "FF", "TSA") => ("3 3 3 3 3 3 3 3", "lion"),
        (Game::Mdd, "FDR", "SZ") => all("∞ ∞ - 1 1 1 - ∞"),
        (Game::Mdd, "FDR", "SRZ") => all("∞ - ∞ 1 1 1 ∞ -"),
        (Game::Mdd, "FW", "SZ") => all("∞ ∞ 5 ∞ ∞ ∞ 5 ∞"),
        (Game::Mdd, "FW", "SSZ") => all("- - 5 - - - 5 -"),
        (Game::Mdd, "FW", "SRZ") => all("- ∞ ∞ - ∞ - ∞ ∞"),
        (Game::Mdd, "FBR", "SRZ") => all("- ∞ ∞ ∞ - ∞ ∞ ∞"),
        (Game::Mdd, "FBO", "SRZ") => all("∞ ∞ - - - - - ∞"),
        (Game::Mdd, "BB", "SRZ") => all("1 1 1 1 1 1 1 1"),
        (Game::Mdd, "BB", "JAPANESE_REVIVAL") => all("- 1 1 1 - 1 1 1"),
        (Game::Mdd, "CO", "SRZ") => all("1 - - 1 - 1 - -"),
        (Game::Mdd, "RD", "SRZ") => all("1 1 - 1 - 1 - 1"),
        (Game::Mdd, "CC", "SRZ") => all("- 1 - 1 1 1 - 1"),
        (Game::Mdd, "OM", "SRZ") => all("1 1 - 1 - 1 - 1"),
        (Game::Mdd, "WS", "SRZ") => all("- ∞ - ∞ - ∞ - ∞"),
        (Game::Mdd, "WS", "EDO_JAPANESE_WIKIPEDIA") => all("- ∞ ∞ - ∞ - ∞ ∞"),
        (Game::Mdd, "MW", "SRZ") => all("- ∞ - ∞ - ∞ - ∞"),
        (Game::Mdd, "WR", "SRZ") => all("1 3 1 3 1 3 1 3"),
        (Game::Mdd, "BDV", "JAPANESE_WIKIPEDIA") => all("- 3 - - - - - 3"),
        (Game::Mdd, "SD", "SRZ") => all("- 2 - 2 - 2 - 2"),
        (Game::Mdd, "DN", "TSA") => ("- - 1 - - - 1 -", "jump-vD"),
        (Game::Mdd, "SF", "SRZ") => all("- 1 ∞ - - - ∞ 1"),
        (Game::Mdd, "CA", "TWO_CAPTURES") => ("- - - - - - - -", "hook-diag hook-twice"),
        (Game::Mdd, "HM", "TWO_CAPTURES") => ("- - - - - - - -", "hook-orth hook-twice"),
        _ => return None,
    })
}

/// Rule options as the reference plays them.
pub struct Rules {
    pub(super) game: Game,
    pub(super) defs: Vec<super::Def>,
    /// Promotion may be declined unless a promoted piece was captured (§4).
    pub(super) promotion_optional: bool,
    /// Contagious victims (§6.3): DV TK DS BS, only TK BS, or none.
    pub(super) contagious: &'static [&'static str],
    pub(super) pseudo_legal: bool,
    pub(super) no_pass: bool,
    /// `PASS=QBOARD`: a pass may follow a pass (no §7.4 (c)) ...
    pub(super) pass_after_pass: bool,
    /// ... and an adjacent enemy allows it as an empty square does (§7.4 (a) widened).
    pub(super) pass_beside_enemy: bool,
    /// `PROMOTION_TRIGGER=QBOARD`: only a capture on the destination promotes (§4 narrowed).
    pub(super) promote_on_destination_only: bool,
}

/// The rules of the game of board size `size` with `options` (canonical option and value
/// names, as tengu's `RuleSet::canonical` lists them) applied. Leaked: tests build a few.
pub fn rules(size: usize, options: &[(String, String)]) -> Result<&'static Rules, String> {
    let game = match size {
        17 => Game::Dd,
        19 => Game::Mdd,
        n => return Err(format!("no game of size {n}")),
    };
    let mut rows: Vec<KindRow> = match game {
        Game::Dd => DD_KINDS.to_vec(),
        Game::Mdd => MDD_KINDS.to_vec(),
    };
    let mut r = Rules {
        game,
        defs: Vec::new(),
        promotion_optional: game == Game::Mdd,
        contagious: if game == Game::Mdd {
            &["DV", "TK", "DS", "BS"]
        } else {
            &[]
        },
        pseudo_legal: false,
        no_pass: false,
        pass_after_pass: false,
        pass_beside_enemy: false,
        promote_on_destination_only: false,
    };
    let row = |rows: &mut Vec<KindRow>, code: &str| -> Result<usize, String> {
        rows.iter()
            .position(|k| k.code == code)
            .ok_or(format!("no kind {code}"))
    };
    for (name, value) in options {
        match (name.as_str(), value.as_str()) {
            ("PROMOTION_DD" | "PROMOTION_MDD", "MANDATORY") => r.promotion_optional = false,
            ("PROMOTION_DD" | "PROMOTION_MDD", "OPTIONAL_UNLESS_PROMOTED_VICTIM") => {
                r.promotion_optional = true
            }
            ("CONTAGION_MDD", "PROMOTED_ONLY") => r.contagious = &["TK", "BS"],
            ("CONTAGION_MDD", "NONE") => r.contagious = &[],
            ("LEGALITY", "PSEUDO_LEGAL") => r.pseudo_legal = true,
            ("PASS", "NO_PASS") => r.no_pass = true,
            ("PROMOTION_TRIGGER", "QBOARD") => r.promote_on_destination_only = true,
            ("PASS", "QBOARD") => {
                r.pass_after_pass = true;
                r.pass_beside_enemy = true;
            }
            // Game-level only: no effect on the moves of a position.
            ("STALEMATE", "DRAW") | ("REPETITION", "STRICT") => {}
            ("EMPEROR", "LION_QUEEN") => {
                let i = row(&mut rows, "EM")?;
                rows[i].ranges = "∞ ∞ ∞ ∞ ∞ ∞ ∞ ∞";
                rows[i].special = "royal lion";
            }
            ("KIRIN_PHOENIX_MDD", "CHU") => {
                let kr = row(&mut rows, "KR")?;
                rows[kr].promotes_to = "LN";
                let ph = row(&mut rows, "PH")?;
                rows[ph].promotes_to = "Q";
            }
            ("LION_DOG_PROMOTES_DD", "NO") => {
                let i = row(&mut rows, "LD")?;
                rows[i].promotes_to = "";
            }
            (code, value) => {
                let (ranges, special) = piece_reading(game, code, value)
                    .ok_or(format!("the reference does not know {code}={value}"))?;
                let i = row(&mut rows, code)?;
                rows[i].ranges = ranges;
                rows[i].special = special;
            }
        }
    }
    r.defs = build_defs(&rows);
    Ok(Box::leak(Box::new(r)))
}
