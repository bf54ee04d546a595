//! Variant description files (`configs/games/*.toml`): the raw TOML schema and its validation.
//!
//! Parse, then validate: [`RawVariant`] mirrors the file (unknown keys rejected), and
//! [`VariantSpec::from_toml`] turns it into a checked description, or a [`ConfigError`] that
//! names the file, the key and the problem.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Deserialize;

use crate::types::DIRECTION_NAMES;

/// A problem in a variant description file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {key}: {problem}")]
pub struct ConfigError {
    /// The file (or source name) being read.
    pub file: String,
    /// Dotted path of the offending key, e.g. `piece[3].range` (`<toml>` for syntax errors).
    pub key: String,
    /// What is wrong.
    pub problem: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    variant: RawHeader,
    #[serde(default)]
    rules: RawRules,
    piece: Vec<RawPiece>,
    setup: RawSetup,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    id: String,
    name: String,
    size: usize,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct RawRules {
    promotion: Option<String>,
    contagion: Option<String>,
    pass: Option<String>,
    stalemate: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPiece {
    code: String,
    hodges: Option<String>,
    name: String,
    #[serde(default)]
    kanji: String,
    #[serde(default)]
    betza: String,
    range: String,
    #[serde(default)]
    jumps: Vec<[i64; 2]>,
    #[serde(default)]
    lion: bool,
    #[serde(default)]
    lion_dog: Vec<String>,
    hook: Option<String>,
    #[serde(default)]
    emperor: bool,
    #[serde(default)]
    royal: bool,
    promotes_to: Option<String>,
    contagion: Option<String>,
    #[serde(default)]
    contagion_immune: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetup {
    black: Vec<String>,
}

/// Promotion rule (RULES.md §4, option names of §8.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PromotionRule {
    /// Every promotable move promotes (DD default, `MANDATORY`).
    Mandatory,
    /// Promotion may be declined unless a promoted piece was captured (MDD default).
    OptionalUnlessPromotedVictim,
}

/// Contagious promotion (RULES.md §6.3, option `CONTAGION_MDD`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ContagionRule {
    None,
    /// Capturing any piece with a `contagion` entry (DV, TK, DS, BS) is contagious.
    DevaDarkSpirit,
    /// Only capturing promoted-only contagious kinds (TK, BS) is contagious.
    PromotedOnly,
}

/// Which captures of a move make it promotable (option `PROMOTION_TRIGGER`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PromotionTrigger {
    /// RULES.md §4: any capture of the move, igui and captures on the way included.
    AnyCapture,
    /// QBoard's reading: only a capture on the move's final square. Igui and lion moves
    /// that capture on the way and end on an empty square never promote, and the final
    /// victim alone decides forced (§4) and contagious (§6.3) promotion.
    FinalSquare,
}

/// Passing by lion-type pieces (option `PASS`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PassRule {
    /// RULES.md §7.4: next to an empty square, never right after the opponent's pass.
    Allowed,
    NoPass,
    /// QBoard's reading (its GUI offers the pass on these terms): next to an empty **or
    /// enemy** square, and also right after the opponent's pass (no ban on two passes in a
    /// row). §7.4 (b), no pass in check, still follows the `LEGALITY` option.
    Qboard,
}

impl PassRule {
    /// Whether an adjacent enemy (not only an empty square) lets a piece pass.
    pub fn beside_enemy(self) -> bool {
        self == PassRule::Qboard
    }

    /// Whether a pass is allowed here, given whether the previous move was a pass.
    #[inline]
    pub fn allows_pass(self, after_pass: bool) -> bool {
        match self {
            PassRule::Allowed => !after_pass,
            PassRule::NoPass => false,
            PassRule::Qboard => true,
        }
    }
}

/// What having no legal move means (option `STALEMATE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StalemateRule {
    Loss,
    Draw,
}

/// The check rule (option `LEGALITY`, RULES.md §5.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LegalityRule {
    /// No move may leave the mover in check (the default).
    CheckAware,
    /// Every pseudo-legal move is legal; capturing the opponent's last royal wins.
    PseudoLegal,
}

/// Repetition (option `REPETITION`, RULES.md §5.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RepetitionRule {
    /// The 4th occurrence ends the game: a draw, or a loss for a perpetual checker.
    Fourfold,
    /// A move that recreates an earlier position with the same side to move is illegal.
    Strict,
}

/// The rule options of a variant: the game file's four switches (`[rules]`) and the two a
/// rule set adds ([`crate::RuleSet`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RuleOptions {
    pub promotion: PromotionRule,
    pub contagion: ContagionRule,
    pub pass: PassRule,
    pub stalemate: StalemateRule,
    pub legality: LegalityRule,
    pub repetition: RepetitionRule,
    pub promotion_trigger: PromotionTrigger,
}

/// Hook move kind (RULES.md §2.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HookKind {
    Orthogonal,
    Diagonal,
}

/// A ray range: `0` none, `1..` limited slide, [`UNLIMITED`] unlimited.
pub type Range = u8;
/// Range of an unlimited slide.
pub const UNLIMITED: Range = u8::MAX;

/// One piece kind of a variant, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceKindSpec {
    pub code: String,
    /// Abbreviation in Hodges notation (RULES.md §12.4), e.g. `Ln` for the Lion.
    pub hodges: String,
    pub name: String,
    pub kanji: String,
    pub betza: String,
    /// Owner-relative ranges in the order f fr r br b bl l fl.
    pub ranges: [Range; 8],
    /// Owner-relative jump offsets `(forward, left)`, each within 3 squares.
    pub jumps: Vec<(i8, i8)>,
    pub lion: bool,
    /// Lion-dog power per owner-relative direction (order as `ranges`).
    pub lion_dog: [bool; 8],
    pub hook: Option<HookKind>,
    /// The hook may also turn on a square where it captures, and capture again at the end of
    /// the second leg (rule option `HM`/`CA` = `TWO_CAPTURES`, RULES.md §8.2, §8.3).
    pub hook_two_captures: bool,
    pub emperor: bool,
    pub royal: bool,
    /// Index of the kind it promotes to.
    pub promotes_to: Option<usize>,
    /// Index of the kind a capturer of this piece turns into (contagion).
    pub contagion: Option<usize>,
    pub contagion_immune: bool,
    /// Whether the kind appears in the initial setup (otherwise it is promoted-only).
    pub in_setup: bool,
}

/// A validated variant description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantSpec {
    pub id: String,
    pub name: String,
    pub size: usize,
    pub rules: RuleOptions,
    pub kinds: Vec<PieceKindSpec>,
    /// Black's initial pieces as (col, row, kind index); White's are the 180-degree rotation.
    pub black_setup: Vec<(usize, usize, usize)>,
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, key: impl fmt::Display, problem: impl fmt::Display) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            key: key.to_string(),
            problem: problem.to_string(),
        }
    }
}

fn parse_choice<T: Copy>(
    ctx: &Ctx,
    key: &str,
    value: &Option<String>,
    default: T,
    choices: &[(&str, T)],
) -> Result<T, ConfigError> {
    let Some(v) = value else { return Ok(default) };
    choices
        .iter()
        .find(|(name, _)| name == v)
        .map(|&(_, t)| t)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            ctx.err(
                key,
                format!("unknown value {v:?}; expected one of {}", names.join(", ")),
            )
        })
}

fn parse_range_vector(
    ctx: &Ctx,
    key: &str,
    text: &str,
    size: usize,
) -> Result<[Range; 8], ConfigError> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() != 8 {
        return Err(ctx.err(
            key,
            format!(
                "expected 8 ranges (f fr r br b bl l fl), found {}",
                tokens.len()
            ),
        ));
    }
    let mut out = [0; 8];
    for (i, tok) in tokens.iter().enumerate() {
        out[i] = match *tok {
            "-" => 0,
            "∞" | "inf" => UNLIMITED,
            t => match t.parse::<u8>() {
                Ok(n) if n >= 1 && (n as usize) < size => n,
                _ => {
                    return Err(ctx.err(
                        key,
                        format!(
                            "range token {t:?} for direction {} is not '-', '∞' or 1..{}",
                            DIRECTION_NAMES[i],
                            size - 1
                        ),
                    ))
                }
            },
        };
    }
    Ok(out)
}

impl VariantSpec {
    /// Parses and validates a variant description. `file` names the source in errors.
    pub fn from_toml(file: &str, text: &str) -> Result<VariantSpec, ConfigError> {
        let ctx = Ctx { file };
        let raw: RawVariant =
            toml::from_str(text).map_err(|e| ctx.err("<toml>", e.message().trim()))?;
        let size = raw.variant.size;
        if !(5..=crate::types::MAX_SIZE).contains(&size) {
            return Err(ctx.err(
                "variant.size",
                format!("{size} is outside 5..={}", crate::types::MAX_SIZE),
            ));
        }
        if raw.variant.id.is_empty()
            || !raw
                .variant
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-')
        {
            return Err(ctx.err("variant.id", "must be non-empty lower-case letters and '-'"));
        }
        let rules = RuleOptions {
            promotion: parse_choice(
                &ctx,
                "rules.promotion",
                &raw.rules.promotion,
                PromotionRule::Mandatory,
                &[
                    ("mandatory", PromotionRule::Mandatory),
                    (
                        "optional-unless-promoted-victim",
                        PromotionRule::OptionalUnlessPromotedVictim,
                    ),
                ],
            )?,
            contagion: parse_choice(
                &ctx,
                "rules.contagion",
                &raw.rules.contagion,
                ContagionRule::None,
                &[
                    ("none", ContagionRule::None),
                    ("deva-dark-spirit", ContagionRule::DevaDarkSpirit),
                    ("promoted-only", ContagionRule::PromotedOnly),
                ],
            )?,
            pass: parse_choice(
                &ctx,
                "rules.pass",
                &raw.rules.pass,
                PassRule::Allowed,
                &[
                    ("allowed", PassRule::Allowed),
                    ("no-pass", PassRule::NoPass),
                ],
            )?,
            stalemate: parse_choice(
                &ctx,
                "rules.stalemate",
                &raw.rules.stalemate,
                StalemateRule::Loss,
                &[("loss", StalemateRule::Loss), ("draw", StalemateRule::Draw)],
            )?,
            legality: LegalityRule::CheckAware,
            repetition: RepetitionRule::Fourfold,
            promotion_trigger: PromotionTrigger::AnyCapture,
        };

        // Codes first, so that references can be resolved in one pass.
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, p) in raw.piece.iter().enumerate() {
            let key = format!("piece[{i}].code");
            if p.code.is_empty()
                || p.code.len() > 4
                || !p.code.chars().all(|c| c.is_ascii_uppercase())
            {
                return Err(ctx.err(
                    key,
                    format!("{:?} is not 1-4 upper-case ASCII letters", p.code),
                ));
            }
            if index.insert(p.code.clone(), i).is_some() {
                return Err(ctx.err(key, format!("duplicate piece code {:?}", p.code)));
            }
        }
        if raw.piece.len() > 120 {
            return Err(ctx.err(
                "piece",
                format!("{} kinds; at most 120 are supported", raw.piece.len()),
            ));
        }
        let resolve = |key: String, code: &Option<String>| -> Result<Option<usize>, ConfigError> {
            match code {
                None => Ok(None),
                Some(c) => index
                    .get(c)
                    .copied()
                    .map(Some)
                    .ok_or_else(|| ctx.err(key, format!("unknown piece code {c:?}"))),
            }
        };

        let mut kinds = Vec::with_capacity(raw.piece.len());
        for (i, p) in raw.piece.iter().enumerate() {
            let at = |field: &str| format!("piece[{i}] ({}).{field}", p.code);
            let ranges = parse_range_vector(&ctx, &at("range"), &p.range, size)?;
            let mut jumps = Vec::new();
            for &[fwd, left] in &p.jumps {
                if fwd.abs() > 3 || left.abs() > 3 || (fwd == 0 && left == 0) {
                    return Err(ctx.err(
                        at("jumps"),
                        format!("[{fwd}, {left}] must be non-zero and within 3 squares"),
                    ));
                }
                let j = (fwd as i8, left as i8);
                if jumps.contains(&j) {
                    return Err(ctx.err(at("jumps"), format!("[{fwd}, {left}] listed twice")));
                }
                jumps.push(j);
            }
            let mut lion_dog = [false; 8];
            for d in &p.lion_dog {
                let Some(k) = DIRECTION_NAMES.iter().position(|n| n == d) else {
                    return Err(ctx.err(
                        at("lion_dog"),
                        format!("unknown direction {d:?}; expected one of f fr r br b bl l fl"),
                    ));
                };
                if lion_dog[k] {
                    return Err(ctx.err(at("lion_dog"), format!("direction {d:?} listed twice")));
                }
                lion_dog[k] = true;
            }
            let hook = parse_choice(
                &ctx,
                &at("hook"),
                &p.hook.clone(),
                None,
                &[
                    ("orthogonal", Some(HookKind::Orthogonal)),
                    ("diagonal", Some(HookKind::Diagonal)),
                ],
            )?;
            if let Some(h) = hook {
                let hooked: &[usize] = match h {
                    HookKind::Orthogonal => &[0, 2, 4, 6],
                    HookKind::Diagonal => &[1, 3, 5, 7],
                };
                if hooked.iter().any(|&d| ranges[d] != 0) {
                    return Err(ctx.err(
                        at("range"),
                        "hooked directions must be '-' (the hook makes the straight moves)",
                    ));
                }
            }
            if p.emperor
                && (ranges != [0; 8]
                    || !jumps.is_empty()
                    || p.lion
                    || hook.is_some()
                    || lion_dog != [false; 8])
            {
                return Err(ctx.err(
                    at("emperor"),
                    "an emperor leaps anywhere; it takes no other move",
                ));
            }
            let promotes_to = resolve(at("promotes_to"), &p.promotes_to)?;
            if promotes_to == Some(i) {
                return Err(ctx.err(at("promotes_to"), "a piece cannot promote to itself"));
            }
            let contagion = resolve(at("contagion"), &p.contagion)?;
            if p.name.trim().is_empty() {
                return Err(ctx.err(at("name"), "must not be empty"));
            }
            let hodges = p.hodges.clone().unwrap_or_else(|| p.code.clone());
            if hodges.is_empty()
                || hodges.len() > 4
                || !hodges.chars().all(|c| c.is_ascii_alphabetic())
            {
                return Err(ctx.err(at("hodges"), format!("{hodges:?} is not 1-4 ASCII letters")));
            }
            kinds.push(PieceKindSpec {
                code: p.code.clone(),
                hodges,
                name: p.name.clone(),
                kanji: p.kanji.clone(),
                betza: p.betza.clone(),
                ranges,
                jumps,
                lion: p.lion,
                lion_dog,
                hook,
                hook_two_captures: false,
                emperor: p.emperor,
                royal: p.royal,
                promotes_to,
                contagion,
                contagion_immune: p.contagion_immune,
                in_setup: false,
            });
        }
        // Setup rows: "<rank>: TOKEN TOKEN ..." from Black's half.
        let mut black_setup = Vec::new();
        let mut seen_ranks = HashSet::new();
        for (i, row) in raw.setup.black.iter().enumerate() {
            let key = format!("setup.black[{i}]");
            let Some((rank, body)) = row.split_once(':') else {
                return Err(ctx.err(key, "expected '<rank>: <piece or .> ...'"));
            };
            let rank = rank.trim();
            let r = match rank.as_bytes() {
                [c] if c.is_ascii_lowercase() && ((c - b'a') as usize) < size => {
                    (c - b'a') as usize
                }
                _ => {
                    return Err(ctx.err(
                        key,
                        format!(
                            "rank {rank:?} is not a letter a..{}",
                            (b'a' + size as u8 - 1) as char
                        ),
                    ))
                }
            };
            if r < size / 2 + 1 {
                return Err(ctx.err(
                    key,
                    format!("rank {rank} is not in Black's half of the board"),
                ));
            }
            if !seen_ranks.insert(r) {
                return Err(ctx.err(key, format!("rank {rank} listed twice")));
            }
            let tokens: Vec<&str> = body.split_whitespace().collect();
            if tokens.len() != size {
                return Err(ctx.err(
                    key,
                    format!("rank {rank} has {} squares, expected {size}", tokens.len()),
                ));
            }
            for (col, tok) in tokens.iter().enumerate() {
                if *tok == "." {
                    continue;
                }
                let Some(&k) = index.get(*tok) else {
                    return Err(ctx.err(
                        key,
                        format!("unknown piece code {tok:?} on file {}", size - col),
                    ));
                };
                kinds[k].in_setup = true;
                black_setup.push((col, r, k));
            }
        }
        for (i, k) in kinds.iter().enumerate() {
            let at = |field: &str| format!("piece[{i}] ({}).{field}", k.code);
            if !k.in_setup
                && !kinds
                    .iter()
                    .any(|o| o.promotes_to == Some(i) || o.contagion == Some(i))
            {
                return Err(ctx.err(
                    at("code"),
                    "kind is neither in the setup nor reachable by promotion",
                ));
            }
            if k.royal && !k.in_setup && !kinds.iter().any(|o| o.promotes_to == Some(i)) {
                return Err(ctx.err(at("royal"), "royal kind can never appear"));
            }
        }
        if !black_setup.iter().any(|&(_, _, k)| kinds[k].royal) {
            return Err(ctx.err("setup.black", "no royal piece in the setup"));
        }
        Ok(VariantSpec {
            id: raw.variant.id,
            name: raw.variant.name,
            size,
            rules,
            kinds,
            black_setup,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINI: &str = r#"
[variant]
id = "mini"
name = "Mini"
size = 5
[[piece]]
code = "K"
name = "King"
range = "1 1 1 1 1 1 1 1"
royal = true
[[piece]]
code = "P"
name = "Pawn"
range = "1 - - - - - - -"
promotes_to = "G"
[[piece]]
code = "G"
name = "Gold"
range = "1 1 1 - 1 - 1 1"
[setup]
black = ["e: . . K . .", "d: P P P P P"]
"#;

    #[test]
    fn minimal_variant_loads() {
        let spec = VariantSpec::from_toml("mini.toml", MINI).unwrap();
        assert_eq!(spec.size, 5);
        assert_eq!(spec.kinds.len(), 3);
        assert!(!spec.kinds[2].in_setup);
        assert_eq!(spec.black_setup.len(), 6);
        assert_eq!(spec.rules.promotion, PromotionRule::Mandatory);
    }

    fn error_of(text: &str) -> ConfigError {
        VariantSpec::from_toml("mini.toml", text).unwrap_err()
    }

    #[test]
    fn errors_name_file_key_and_problem() {
        let e = error_of(&MINI.replace("size = 5", "size = 5\ncolour = 1"));
        assert_eq!(e.file, "mini.toml");
        assert!(e.problem.contains("colour"), "{e}");
        let e = error_of(&MINI.replace("\"1 - - - - - - -\"", "\"1 - - - - - -\""));
        assert_eq!(e.key, "piece[1] (P).range");
        assert!(e.problem.contains("expected 8"), "{e}");
        let e = error_of(&MINI.replace("promotes_to = \"G\"", "promotes_to = \"X\""));
        assert!(
            e.key.contains("promotes_to") && e.problem.contains("\"X\""),
            "{e}"
        );
        let e = error_of(&MINI.replace("d: P P P P P", "d: P P Q P P"));
        assert!(
            e.key == "setup.black[1]" && e.problem.contains("\"Q\""),
            "{e}"
        );
        let e = error_of(&MINI.replace("e: . . K . .", "e: . . K ."));
        assert!(e.problem.contains("4 squares"), "{e}");
        let e = error_of(&MINI.replace("[setup]", "[rules]\npromotion = \"sometimes\"\n[setup]"));
        assert_eq!(e.key, "rules.promotion");
        let e = error_of(&MINI.replace("royal = true", ""));
        assert!(e.problem.contains("royal"), "{e}");
        let e = error_of(&MINI.replace(
            "range = \"1 1 1 - 1 - 1 1\"",
            "range = \"1 1 1 - 1 - 1 1\"\njumps = [[4, 0]]",
        ));
        assert!(e.key.ends_with("jumps"), "{e}");
    }
}
