//! Rule sets: the options of RULES.md §8 by their stable names, chosen per run.
//!
//! A [`RuleSet`] belongs to one game (`dai-dai` or `maka-dai-dai`) and holds one value per
//! option of that game: the rule-level options of §8.1 and the piece options of §8.2 (Dai Dai)
//! or §8.3 (Maka Dai Dai), the latter named by the piece's code (`OK`, `FBR`, ...). The first
//! value of every option is RULES.md's default, also accepted as `DEFAULT`.
//!
//! Parse, then validate: [`RuleSet::set`] accepts only known names and values and refuses,
//! by name and with the reason, the readings RULES.md leaves undefined. [`RuleSet::apply`]
//! turns the set into game data once, at load time (a [`crate::VariantSpec`] with changed
//! ranges, jumps, powers and promotions, unreachable kinds removed), so move generation reads
//! tables as it always does. Files name a rule set by [`RuleSet::canonical`] (`dai-dai` for the
//! defaults, `dai-dai:LEGALITY=PSEUDO_LEGAL,OK=SRZ` otherwise) and its [`RuleSet::hash`].

use std::fmt;

use crate::betza::parse_betza;
use crate::config::{
    ContagionRule, HookKind, LegalityRule, PassRule, PromotionRule, PromotionTrigger,
    RepetitionRule, StalemateRule, VariantSpec, UNLIMITED,
};

/// The games that have rule options.
pub const GAMES: [&str; 2] = ["dai-dai", "maka-dai-dai"];
const DD: &[&str] = &["dai-dai"];
const MDD: &[&str] = &["maka-dai-dai"];
const BOTH: &[&str] = &["dai-dai", "maka-dai-dai"];

/// A problem with a rule set: the option or value it names, and what is valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleSetError {
    #[error("{game} has no rule option {name:?}; valid options: {valid}")]
    UnknownOption {
        game: String,
        name: String,
        valid: String,
    },
    #[error("rule option {option} has no value {value:?}; valid values: {valid}")]
    UnknownValue {
        option: String,
        value: String,
        valid: String,
    },
    #[error("rule option {option}={value} is refused: {reason}")]
    Refused {
        option: String,
        value: String,
        reason: String,
    },
    #[error("unknown rule preset {name:?}; presets: {valid}")]
    UnknownPreset { name: String, valid: String },
    #[error("game {game:?} has no rule options; games with options: dai-dai, maka-dai-dai")]
    UnknownGame { game: String },
    #[error("rule set {text:?}: {problem}")]
    Syntax { text: String, problem: String },
    #[error("rule options {first} and {second} do not go together: {reason}")]
    Conflict {
        first: String,
        second: String,
        reason: String,
    },
    #[error("rule set {rules} cannot be applied to {game}: {problem}")]
    Apply {
        rules: String,
        game: String,
        problem: String,
    },
}

/// What choosing a value does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// RULES.md's default: the game file's data as it is.
    Default,
    /// A rule-level value, applied by the option's own code.
    Rule,
    /// A piece's movement replaced: the plain Betza part (`""`: none), plus lion power, a
    /// diagonal hook (§2.3) when set.
    Movement {
        plain: &'static str,
        lion: bool,
        diagonal_hook: bool,
    },
    /// The hook may turn on a square where it captures and capture again (§8.2, §8.3).
    TwoCaptureHook,
    /// Refused with this reason: the table's wording does not define the move, or tengu does
    /// not implement the primitive it needs.
    Refused(&'static str),
}

/// One value of an option.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ValueSpec {
    /// Names of the value, the first canonical; empty for a piece reading named only by its
    /// Betza string (`text`). A piece reading is also accepted by its Betza string.
    pub names: &'static [&'static str],
    /// The Betza string or a short description, as RULES.md's table gives it.
    pub text: &'static str,
    pub effect: Effect,
}

impl ValueSpec {
    /// The canonical name: the first name, else the Betza string.
    pub fn name(&self) -> &'static str {
        self.names.first().copied().unwrap_or(self.text)
    }
}

/// One option: a §8.1 rule-level option, or a §8.2/§8.3 piece option named by piece code.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub games: &'static [&'static str],
    /// Whether it is a piece option (the name is a piece code).
    pub piece: bool,
    /// One line: what the option decides.
    pub doc: &'static str,
    /// The values, RULES.md's default first.
    pub values: &'static [ValueSpec],
}

const fn rule(names: &'static [&'static str], text: &'static str) -> ValueSpec {
    ValueSpec {
        names,
        text,
        effect: Effect::Rule,
    }
}

const fn default(names: &'static [&'static str], text: &'static str) -> ValueSpec {
    ValueSpec {
        names,
        text,
        effect: Effect::Default,
    }
}

const fn plain(names: &'static [&'static str], betza: &'static str) -> ValueSpec {
    ValueSpec {
        names,
        text: betza,
        effect: Effect::Movement {
            plain: betza,
            lion: false,
            diagonal_hook: false,
        },
    }
}

const fn refused(
    names: &'static [&'static str],
    text: &'static str,
    reason: &'static str,
) -> ValueSpec {
    ValueSpec {
        names,
        text,
        effect: Effect::Refused(reason),
    }
}

const fn piece(
    games: &'static [&'static str],
    code: &'static str,
    doc: &'static str,
    values: &'static [ValueSpec],
) -> OptionSpec {
    OptionSpec {
        name: code,
        games,
        piece: true,
        doc,
        values,
    }
}

const UNDEFINED: &str =
    "RULES.md's table describes this reading only loosely; tengu does not guess it";
const HOPPING: &str = "a slide that hops over pieces is a move primitive tengu does not implement (RULES.md §2 defines none)";

/// The rule-level options of RULES.md §8.1.
pub static RULE_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "PROMOTION_DD",
        games: DD,
        piece: false,
        doc: "Dai Dai promotion on capture (§4)",
        values: &[
            rule(&["MANDATORY"], "every promotable move promotes"),
            rule(
                &["OPTIONAL_UNLESS_PROMOTED_VICTIM"],
                "may decline unless a promoted piece was captured",
            ),
        ],
    },
    OptionSpec {
        name: "PROMOTION_MDD",
        games: MDD,
        piece: false,
        doc: "Maka Dai Dai promotion on capture (§4)",
        values: &[
            rule(
                &["OPTIONAL_UNLESS_PROMOTED_VICTIM"],
                "may decline unless a promoted piece was captured",
            ),
            rule(&["MANDATORY"], "every promotable move promotes"),
        ],
    },
    OptionSpec {
        name: "PROMOTION_TRIGGER",
        games: BOTH,
        piece: false,
        doc: "which captures make a move promotable (§4)",
        values: &[
            rule(
                &["ANY_CAPTURE"],
                "any capture of the move, igui and captures on the way included",
            ),
            rule(
                &["QBOARD"],
                "only a capture on the final square; it alone decides forced and contagious promotion (QBoard)",
            ),
        ],
    },
    OptionSpec {
        name: "CONTAGION_MDD",
        games: MDD,
        piece: false,
        doc: "contagious promotion (§6.3)",
        values: &[
            rule(&["DV_TK_DS_BS"], "capturing DV, TK, DS or BS is contagious"),
            rule(
                &["PROMOTED_ONLY"],
                "only capturing TK or BS is contagious (Japanese revival)",
            ),
            rule(&["NONE"], "no contagious promotion"),
        ],
    },
    OptionSpec {
        name: "CONTAGION_TIEBREAK",
        games: MDD,
        piece: false,
        doc: "deciding victim when one move captures both contagious families (§6.3)",
        values: &[
            rule(&["DESTINATION_ELSE_FARTHEST"], "destination victim, else the farthest"),
            refused(
                &["LAST_CAPTURED"],
                "the last captured along the path taken",
                "needs the path in the move's identity, which tengu's moves and §12.3 notation do not carry",
            ),
        ],
    },
    OptionSpec {
        name: "LEGALITY",
        games: BOTH,
        piece: false,
        doc: "check rule (§5.3)",
        values: &[
            rule(&["CHECK_AWARE"], "no move may leave the mover in check"),
            rule(
                &["PSEUDO_LEGAL"],
                "every pseudo-legal move is legal; capturing the last royal wins",
            ),
        ],
    },
    OptionSpec {
        name: "STALEMATE",
        games: BOTH,
        piece: false,
        doc: "no legal move while not in check (§5.3)",
        values: &[
            rule(&["LOSS"], "loss for the side to move"),
            rule(&["DRAW"], "draw"),
        ],
    },
    OptionSpec {
        name: "REPETITION",
        games: BOTH,
        piece: false,
        doc: "repetition (§5.5)",
        values: &[
            rule(&["FOURFOLD"], "4th occurrence: draw, a perpetual checker loses"),
            rule(
                &["STRICT"],
                "a move recreating an earlier position (same side to move) is illegal",
            ),
            refused(
                &["JCSA"],
                "4th occurrence: the side that attacks throughout the cycle loses",
                "'threatens pieces' is not defined by RULES.md, so who attacks throughout a cycle is not decidable",
            ),
        ],
    },
    OptionSpec {
        name: "PASS",
        games: BOTH,
        piece: false,
        doc: "passing by lion-type pieces (§7.4)",
        values: &[
            rule(&["ALLOWED"], "allowed, never twice in a row"),
            rule(&["NO_PASS"], "no pass"),
            rule(
                &["QBOARD"],
                "next to an empty or enemy square, also right after a pass (QBoard)",
            ),
        ],
    },
    OptionSpec {
        name: "EMPEROR",
        games: MDD,
        piece: false,
        doc: "the Emperor's move (§6.4)",
        values: &[
            rule(
                &["UNIVERSAL_LEAPER"],
                "leaps anywhere, captures only unprotected pieces",
            ),
            rule(&["LION_QUEEN"], "moves as a Buddhist Spirit (Lion + Queen)"),
        ],
    },
    OptionSpec {
        name: "KIRIN_PHOENIX_MDD",
        games: MDD,
        piece: false,
        doc: "promotions of the Kirin and the Phoenix (§10.4)",
        values: &[
            rule(
                &["GREAT_DRAGON_GOLDEN_BIRD"],
                "Kirin -> Great Dragon, Phoenix -> Golden Bird",
            ),
            rule(&["CHU"], "Kirin -> Lion, Phoenix -> Queen (Japanese revival)"),
        ],
    },
    OptionSpec {
        name: "LION_DOG_PROMOTES_DD",
        games: DD,
        piece: false,
        doc: "whether the Lion Dog promotes (§9.4)",
        values: &[
            rule(&["YES"], "Lion Dog -> Great Elephant"),
            rule(
                &["NO"],
                "the Lion Dog does not promote; there is no Great Elephant (SZ, SSZ)",
            ),
        ],
    },
];

/// The piece options of Dai Dai Shogi (RULES.md §8.2).
#[rustfmt::skip] // a table, one value a line, as RULES.md §8 lays it out
pub static DD_PIECE_OPTIONS: &[OptionSpec] = &[
    piece(DD, "LO", "Long-Nosed Goblin", &[
        default(&[], "WBmasB"),
        ValueSpec { names: &["EDO"], text: "BmasB", effect: Effect::Movement { plain: "", lion: false, diagonal_hook: true } },
    ]),
    piece(DD, "HM", "Hook Mover", &[
        default(&["ONE_CAPTURE"], "RmasR"),
        ValueSpec { names: &["TWO_CAPTURES"], text: "may capture at the turning square and continue", effect: Effect::TwoCaptureHook },
    ]),
    piece(DD, "OK", "Old Kite", &[
        default(&["SSZ"], "R2fF"),
        plain(&["SZ"], "R2fB"),
        plain(&["SRZ"], "WB2"),
        plain(&["JAPANESE_WIKIPEDIA"], "sR2fB"),
    ]),
    piece(DD, "PO", "Poisonous Snake", &[
        default(&["SZ", "SSZ"], "sWfDbA"),
        plain(&["SRZ"], "R2fF"),
        plain(&["JAPANESE_WIKIPEDIA"], "fsR2bWfF"),
    ]),
    piece(DD, "GE", "Great Elephant", &[
        default(&["SRZ"], "RbBfB2 + lion-dog power on f b l r bl br"),
        plain(&["TSA"], "sR5bB5vR3fB3"),
        refused(&["JCSA"], "lion-dog power plus sR5bB5", "the table does not say on which rays the lion-dog power acts, nor what becomes of the forward diagonals"),
        refused(&["RANGING"], "ranging moves only", UNDEFINED),
        refused(&["HOPPING"], "ranging that may jump over up to 3 pieces", HOPPING),
        refused(&["SZ", "SSZ"], "does not exist", "set LION_DOG_PROMOTES_DD=NO: without the Lion Dog's promotion there is no Great Elephant"),
    ]),
    piece(DD, "FF", "Furious Fiend", &[
        default(&["SZ", "SSZ"], "Lion + Lion Dog"),
        ValueSpec { names: &["TSA"], text: "Lion + Q3", effect: Effect::Movement { plain: "Q3", lion: true, diagonal_hook: false } },
    ]),
    piece(DD, "LD", "Lion Dog", &[
        default(&[], "lion-dog power"),
        plain(&["TSA"], "Q3"),
    ]),
    piece(DD, "WBA", "Western Barbarian", &[
        default(&[], "sR2vWfF"),
        plain(&["SZ"], "sR2vW"),
        plain(&["SRZ"], "vR2sWfF"),
        plain(&["SRZ_TAI"], "W"),
    ]),
    piece(DD, "EBA", "Eastern Barbarian", &[
        default(&["SRZ"], "vR2sWfF"),
        plain(&["SZ_TEXT", "JAPANESE_WIKIPEDIA"], "vR2rW"),
        plain(&["SZ_PICTURE"], "vR2lW"),
        plain(&["SRZ_TAI"], "W"),
    ]),
    piece(DD, "FE", "Fragrant Elephant", &[
        default(&[], "fBR2bB2"),
        plain(&["SRZ"], "Q2"),
        plain(&["SRZ_B"], "B2sR2vW"),
    ]),
    piece(DD, "WE", "White Elephant", &[
        default(&[], "bBR2fB2"),
        plain(&["SZ_PICTURE"], "fsR2fB2"),
        plain(&["SRZ"], "Q2"),
        plain(&["SRZ_TAI"], "sR2fR2fB2bW"),
    ]),
    piece(DD, "NBA", "Northern Barbarian", &[
        default(&[], "fB2sWbF"),
        plain(&["SRZ"], "sR2vWfF"),
        plain(&["SRZ_TAI"], "sR2vW"),
    ]),
    piece(DD, "SBA", "Southern Barbarian", &[
        default(&[], "bB2sWfF"),
        plain(&["SZ", "SSZ"], "bB2lW"),
        plain(&["SRZ"], "sR2vWfF"),
        plain(&["SRZ_TAI"], "sR2vW"),
    ]),
    piece(DD, "FT", "Free Dream-Eater", &[
        default(&[], "BvRsR5"),
        plain(&["JAPANESE_WIKIPEDIA", "HACHU"], "fBvRsR5"),
    ]),
    piece(DD, "FR", "Free Demon", &[
        default(&[], "BsRvR5"),
        plain(&["NO_BACKWARD_DIAGONALS"], "fBsRvR5"),
        refused(&["SRZ"], "fR3B3bR5-like", UNDEFINED),
        plain(&["SRZ_TAI"], "fB2sRbR"),
    ]),
    piece(DD, "WB", "Water Buffalo", &[
        default(&[], "BsRvR2"),
        plain(&["SRZ"], "bBfB2sRvR2"),
    ]),
    piece(DD, "RB", "Rushing Bird", &[
        default(&[], "BfsR"),
        plain(&["SRZ"], "fR2FsW"),
        plain(&["SRZ_TAI"], "fR2sR2fF"),
    ]),
    piece(DD, "SB", "Standard Bearer", &[
        default(&[], "Q2fQ"),
        plain(&["SZ_PICTURE"], "fQsR2bK"),
        plain(&["SZ_TEXT"], "Q2fsQ"),
        plain(&["SSZ"], "fsQbQ2"),
        plain(&["SRZ"], "Q5"),
    ]),
    piece(DD, "FH", "Flying Horse", &[
        default(&[], "WfB2"),
        plain(&["SZ_PICTURE", "SRZ"], "fR2fB2sbW"),
        plain(&["SRZ_TAI"], "fBbB2"),
    ]),
    piece(DD, "NK", "Neighboring King", &[
        default(&[], "K"),
        plain(&["SRZ", "TSA"], "FfsW"),
        plain(&["SRZ_TAI"], "WflFbF"),
    ]),
    piece(DD, "MW", "Mountain Witch", &[
        default(&[], "BbRfW"),
        plain(&["SRZ"], "vRbB"),
    ]),
    piece(DD, "WS", "Wizard Stork", &[
        default(&[], "BfRbW"),
        plain(&["SZ", "JAPANESE_WIKIPEDIA"], "BbW"),
        plain(&["SSZ"], "fQbW"),
        plain(&["SRZ"], "fBvR"),
    ]),
    piece(DD, "BM", "Blind Monkey", &[
        default(&[], "FsW"),
        plain(&["SRZ"], "W"),
        plain(&["SRZ_TAI"], "sR2fB2bF"),
    ]),
    piece(DD, "OR", "Old Rat", &[
        default(&[], "fB2bR2"),
        plain(&["SRZ"], "fFblF"),
        plain(&["SRZ_TAI"], "W"),
    ]),
    piece(DD, "DO", "Dove", &[
        default(&[], "R2B5"),
        plain(&["SRZ"], "R2B"),
    ]),
    piece(DD, "SD", "She-Devil", &[
        default(&[], "R5B2"),
        refused(&["SRZ"], "taikyoku-style move (3 sideways, single steps)", UNDEFINED),
    ]),
    piece(DD, "EB", "Enchanted Badger", &[
        default(&[], "fsR2"),
        plain(&["SRZ"], "R2"),
        plain(&["SRZ_TAI"], "vRB2"),
    ]),
    piece(DD, "EF", "Enchanted Fox", &[
        default(&[], "fB2bR2"),
        plain(&["SRZ"], "B2"),
    ]),
    piece(DD, "RA", "Racing Chariot", &[
        default(&[], "RbF"),
        plain(&["SRZ"], "sR"),
        refused(&["SRZ_TAI"], "fQ-like", UNDEFINED),
    ]),
    piece(DD, "SQ", "Square Mover", &[
        default(&[], "RfF"),
        plain(&["SRZ"], "R"),
    ]),
    piece(DD, "GBD", "Golden Bird", &[
        default(&[], "vRsR2B3"),
        refused(&["SRZ"], "forward-diagonal range jumping up to 3 pieces, fR, sR3, bB3", HOPPING),
    ]),
    piece(DD, "GD", "Great Dragon", &[
        default(&[], "sRvR2B3"),
        plain(&["JAPANESE_WIKIPEDIA"], "sRsDsHvR2bB3"),
        plain(&["SZ_PICTURE"], "sR3vR2B3"),
        plain(&["SRZ"], "BvR3"),
    ]),
    piece(DD, "LC", "Left Chariot", &[
        default(&[], "fRflBbrBbW"),
        plain(&["SZ", "SSZ"], "fRfrBblBlW"),
        refused(&["SRZ"], "the same without fR", "the table does not say which of the two readings 'the same' is"),
    ]),
    piece(DD, "RC", "Right Chariot", &[
        default(&[], "fRfrBblBbW"),
        plain(&["SZ", "SSZ"], "fRflBbrBrW"),
        refused(&["SRZ"], "the same without fR", "the table does not say which of the two readings 'the same' is"),
    ]),
    piece(DD, "WT", "White Tiger", &[
        default(&[], "vRflBsR2frF"),
        plain(&["SZ_PICTURE"], "vRfrBsR2flF"),
        plain(&["SRZ"], "sRflBvR2frB2"),
        refused(&["SSZ_TAI", "SRZ_TAI"], "other", UNDEFINED),
    ]),
    piece(DD, "BDR", "Blue Dragon", &[
        default(&[], "sRfrBvR2flF"),
        plain(&["SZ_PICTURE"], "sRflBvR2frF"),
        plain(&["SRZ"], "vRfrBsR2flB2"),
    ]),
    piece(DD, "VO", "Violent Ox", &[
        default(&[], "R2"),
        plain(&["SRZ"], "vR2fB"),
    ]),
    piece(DD, "VB", "Violent Bear", &[
        default(&[], "fB2sW"),
        plain(&["SRZ_TAI"], "fRfB2sW"),
    ]),
    piece(DD, "LG", "Left General", &[
        default(&[], "FvrW"),
        plain(&["SZ_PICTURE"], "FfrW"),
        plain(&["SRZ"], "K"),
    ]),
    piece(DD, "RG", "Right General", &[
        default(&[], "FvlW"),
        plain(&["SRZ"], "K"),
        plain(&["SRZ_TAI"], "FvrW"),
    ]),
    piece(DD, "SVT", "Savage Tiger", &[
        default(&[], "vR2fF"),
        plain(&["SRZ"], "fRbR2fF"),
    ]),
];

/// The piece options of Maka Dai Dai Shogi (RULES.md §8.3).
#[rustfmt::skip] // a table, one value a line, as RULES.md §8 lays it out
pub static MDD_PIECE_OPTIONS: &[OptionSpec] = &[
    piece(MDD, "DV", "Deva", &[
        default(&["SSZ"], "fFbrFlW"),
        plain(&["SZ"], "fFblFlW"),
        plain(&["SRZ"], "WlF"),
    ]),
    piece(MDD, "DS", "Dark Spirit", &[
        default(&["SSZ"], "fFblFrW"),
        plain(&["SZ"], "fFbrFrW"),
        plain(&["SRZ"], "WrF"),
    ]),
    piece(MDD, "TK", "Teaching King", &[
        default(&["SZ", "SSZ"], "Queen + Lion Dog"),
        plain(&["TSA"], "Q"),
        refused(&["WESTERN"], "Lion + Vice-General-like powers", UNDEFINED),
    ]),
    piece(MDD, "LD", "Lion Dog", &[
        default(&[], "lion-dog power"),
        plain(&["TSA"], "Q3"),
    ]),
    piece(MDD, "FF", "Furious Fiend", &[
        default(&["SZ", "SSZ"], "Lion + Lion Dog"),
        ValueSpec { names: &["TSA", "JAPANESE_WIKIPEDIA"], text: "Lion + Q3", effect: Effect::Movement { plain: "Q3", lion: true, diagonal_hook: false } },
    ]),
    piece(MDD, "FDR", "Free Dragon", &[
        default(&["JAPANESE_WIKIPEDIA", "HACHU"], "RbB"),
        plain(&["SZ", "SSZ", "TSA"], "fQbK"),
        plain(&["SRZ"], "fsRbK"),
    ]),
    piece(MDD, "FW", "Free Wolf", &[
        default(&["JAPANESE_WIKIPEDIA", "HACHU"], "fBfsR"),
        plain(&["SZ", "TSA"], "BvRsR5"),
        plain(&["SSZ"], "sR5"),
        plain(&["SRZ"], "fBsbR"),
    ]),
    piece(MDD, "FBR", "Free Bear", &[
        default(&["SZ", "SSZ", "TSA"], "BsRfA"),
        plain(&["SRZ", "JAPANESE_REVIVAL"], "BsR"),
        refused(&["HOPPING"], "the jump read as hopping over up to 2 pieces along the diagonal", HOPPING),
    ]),
    piece(MDD, "FBO", "Free Boar", &[
        default(&["SZ", "SSZ"], "BsR"),
        plain(&["SRZ"], "fQ"),
    ]),
    piece(MDD, "BB", "Blind Bear", &[
        default(&["SZ", "SSZ"], "FbR"),
        plain(&["SRZ"], "K"),
        plain(&["JAPANESE_REVIVAL"], "FsW"),
    ]),
    piece(MDD, "CO", "Coiled Serpent", &[
        default(&["SZ", "SSZ"], "vWbF"),
        plain(&["SRZ"], "fWbF"),
    ]),
    piece(MDD, "RD", "Reclining Dragon", &[
        default(&["SZ", "SSZ"], "WbF"),
        plain(&["SRZ"], "FfW"),
    ]),
    piece(MDD, "CC", "Chinese Cock", &[
        default(&["SZ", "SSZ"], "sbWfF"),
        plain(&["SRZ"], "FbW"),
    ]),
    piece(MDD, "OM", "Old Monkey", &[
        default(&["SZ", "SSZ"], "FbW"),
        plain(&["SRZ"], "FfW"),
    ]),
    piece(MDD, "WS", "Wizard Stork", &[
        default(&["SZ", "SSZ"], "BfRbW"),
        plain(&["SRZ"], "B"),
        plain(&["EDO_JAPANESE_WIKIPEDIA"], "fBsbR"),
    ]),
    piece(MDD, "MW", "Mountain Witch", &[
        default(&["SZ", "SSZ"], "BbRfW"),
        plain(&["SRZ"], "B"),
    ]),
    piece(MDD, "WR", "Wrestler", &[
        default(&["SZ", "SSZ"], "B3sW"),
        plain(&["SRZ"], "B3W"),
    ]),
    piece(MDD, "BDV", "Buddhist Devil", &[
        default(&[], "fB3sbW"),
        plain(&["JAPANESE_WIKIPEDIA"], "fB3"),
    ]),
    piece(MDD, "SD", "She-Devil", &[
        default(&["SZ", "SSZ"], "R5B2"),
        plain(&["SRZ"], "B2"),
    ]),
    piece(MDD, "DN", "Donkey", &[
        default(&["SZ", "SSZ"], "WvD"),
        plain(&["TSA", "HACHU"], "sWvD"),
        refused(&["SRZ"], "vD + Violent-Ox-like single steps", UNDEFINED),
    ]),
    piece(MDD, "CA", "Capricorn", &[
        default(&["ONE_CAPTURE"], "BmasB"),
        ValueSpec { names: &["TWO_CAPTURES"], text: "may capture at the turning square and continue", effect: Effect::TwoCaptureHook },
    ]),
    piece(MDD, "HM", "Hook Mover", &[
        default(&["ONE_CAPTURE"], "RmasR"),
        ValueSpec { names: &["TWO_CAPTURES"], text: "may capture at the turning square and continue", effect: Effect::TwoCaptureHook },
    ]),
    piece(MDD, "SF", "Side Flier", &[
        default(&["SZ", "SSZ"], "sRF"),
        plain(&["SRZ"], "sRfF"),
    ]),
];

/// A named preset: the options it sets (those of another game are skipped).
#[derive(Copy, Clone, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub doc: &'static str,
    pub settings: &'static [(&'static str, &'static str)],
}

/// The presets, one per source the §8 tables cite. A preset sets the readings its source is
/// credited with where RULES.md defines them; where the source's reading is refused (see
/// the option's values) or not given, the default stays.
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "default",
        doc: "RULES.md's default rule set",
        settings: &[],
    },
    Preset {
        name: "sz",
        doc: "Shogi Zushiki (the text where text and picture differ)",
        settings: &[
            ("LION_DOG_PROMOTES_DD", "NO"),
            ("LO", "EDO"),
            ("OK", "SZ"),
            ("WBA", "SZ"),
            ("EBA", "SZ_TEXT"),
            ("SBA", "SZ"),
            ("SB", "SZ_TEXT"),
            ("WS", "SZ"),
            ("LC", "SZ"),
            ("RC", "SZ"),
            ("DV", "SZ"),
            ("DS", "SZ"),
            ("FDR", "SZ"),
            ("FW", "SZ"),
        ],
    },
    Preset {
        name: "ssz",
        doc: "Sho Shogi Zushiki",
        settings: &[
            ("LION_DOG_PROMOTES_DD", "NO"),
            ("LO", "EDO"),
            ("SBA", "SSZ"),
            ("SB", "SSZ"),
            ("WS", "SSZ"),
            ("LC", "SSZ"),
            ("RC", "SSZ"),
            ("FDR", "SSZ"),
            ("FW", "SSZ"),
        ],
    },
    Preset {
        name: "srz",
        doc: "Shogi Rokushu no Zushiki (its Dai Dai / Maka Dai Dai descriptions, not its tai ones)",
        settings: &[
            ("LO", "EDO"),
            ("OK", "SRZ"),
            ("PO", "SRZ"),
            ("WBA", "SRZ"),
            ("FE", "SRZ"),
            ("WE", "SRZ"),
            ("NBA", "SRZ"),
            ("SBA", "SRZ"),
            ("WB", "SRZ"),
            ("RB", "SRZ"),
            ("SB", "SRZ"),
            ("FH", "SRZ"),
            ("NK", "SRZ"),
            ("MW", "SRZ"),
            ("WS", "SRZ"),
            ("BM", "SRZ"),
            ("OR", "SRZ"),
            ("DO", "SRZ"),
            ("EB", "SRZ"),
            ("EF", "SRZ"),
            ("RA", "SRZ"),
            ("SQ", "SRZ"),
            ("GD", "SRZ"),
            ("WT", "SRZ"),
            ("BDR", "SRZ"),
            ("VO", "SRZ"),
            ("LG", "SRZ"),
            ("RG", "SRZ"),
            ("SVT", "SRZ"),
            ("DV", "SRZ"),
            ("DS", "SRZ"),
            ("FDR", "SRZ"),
            ("FW", "SRZ"),
            ("FBR", "SRZ"),
            ("FBO", "SRZ"),
            ("BB", "SRZ"),
            ("CO", "SRZ"),
            ("RD", "SRZ"),
            ("CC", "SRZ"),
            ("OM", "SRZ"),
            ("WR", "SRZ"),
            ("SD", "SRZ"),
            ("SF", "SRZ"),
        ],
    },
    Preset {
        name: "tsa",
        doc: "The Shogi Association leaflet / older English books",
        settings: &[
            ("GE", "TSA"),
            ("FF", "TSA"),
            ("LD", "TSA"),
            ("NK", "TSA"),
            ("TK", "TSA"),
            ("FDR", "TSA"),
            ("FW", "TSA"),
            ("DN", "TSA"),
        ],
    },
    Preset {
        name: "japanese-revival",
        doc: "the modern Japanese revival of Maka Dai Dai Shogi (Dai Dai Shogi: the defaults)",
        settings: &[
            ("CONTAGION_MDD", "PROMOTED_ONLY"),
            ("KIRIN_PHOENIX_MDD", "CHU"),
            ("FBR", "JAPANESE_REVIVAL"),
            ("BB", "JAPANESE_REVIVAL"),
        ],
    },
    Preset {
        name: "qboard",
        doc: "QBoard (fire-lizard/QBoard), the GUI: its referee's readings, so that a game played in it does not split",
        settings: &[
            ("LEGALITY", "PSEUDO_LEGAL"),
            ("PASS", "QBOARD"),
            ("PROMOTION_TRIGGER", "QBOARD"),
            ("GE", "TSA"),
            ("NK", "TSA"),
            ("FDR", "TSA"),
            ("FW", "TSA"),
            ("FBR", "SRZ"),
            ("DN", "TSA"),
        ],
    },
];

/// Every option of `game` in canonical order: rule-level first, then the piece options in
/// RULES.md's table order. Empty for a game without options.
pub fn options(game: &str) -> Vec<&'static OptionSpec> {
    let pieces: &[OptionSpec] = match game {
        "dai-dai" => DD_PIECE_OPTIONS,
        "maka-dai-dai" => MDD_PIECE_OPTIONS,
        _ => return Vec::new(),
    };
    RULE_OPTIONS
        .iter()
        .filter(|o| o.games.contains(&game))
        .chain(pieces.iter())
        .collect()
}

/// A rule set of one game: one value per option of [`options`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    game: String,
    /// Value index per option, in the order of [`options`]; 0 = default.
    values: Vec<u8>,
}

impl RuleSet {
    /// RULES.md's defaults for `game`. Any game id is accepted (a game from another file has
    /// no options, only its defaults).
    pub fn default_for(game: &str) -> RuleSet {
        RuleSet {
            game: game.to_string(),
            values: vec![0; options(game).len()],
        }
    }

    /// The named preset for `game`.
    ///
    /// ```
    /// use tengu_rules::RuleSet;
    /// let tsa = RuleSet::preset("dai-dai", "tsa").unwrap();
    /// assert_eq!(tsa.canonical(), "dai-dai:GE=TSA,FF=TSA,LD=TSA,NK=SRZ");
    /// assert!(RuleSet::preset("dai-dai", "hachu").is_err());
    /// ```
    pub fn preset(game: &str, name: &str) -> Result<RuleSet, RuleSetError> {
        known_game(game)?;
        let preset =
            PRESETS
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| RuleSetError::UnknownPreset {
                    name: name.to_string(),
                    valid: PRESETS
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
        let mut set = RuleSet::default_for(game);
        let opts = options(game);
        for &(option, value) in preset.settings {
            let Some(o) = opts.iter().find(|o| o.name == option) else {
                continue; // an option of the other game
            };
            // A reading refused in this game (the She-Devil's SRZ move in Dai Dai) keeps
            // the default, as the preset's documentation says.
            if o.values
                .iter()
                .any(|v| v.names.contains(&value) && matches!(v.effect, Effect::Refused(_)))
            {
                continue;
            }
            set.set(option, value)?;
        }
        set.validate()?;
        Ok(set)
    }

    pub fn game(&self) -> &str {
        &self.game
    }

    /// Whether every option has its default value.
    pub fn is_default(&self) -> bool {
        self.values.iter().all(|&v| v == 0)
    }

    /// Sets option `name` to `value` (a value name, `DEFAULT`, or for a piece option the
    /// reading's Betza string). Refused readings and unknown names are errors that list the
    /// valid ones.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), RuleSetError> {
        let opts = options(&self.game);
        known_game(&self.game)?;
        let Some(i) = opts.iter().position(|o| o.name == name) else {
            return Err(RuleSetError::UnknownOption {
                game: self.game.clone(),
                name: name.to_string(),
                valid: opts.iter().map(|o| o.name).collect::<Vec<_>>().join(", "),
            });
        };
        let option = opts[i];
        let index = if value == "DEFAULT" {
            Some(0)
        } else {
            option
                .values
                .iter()
                .position(|v| v.names.contains(&value))
                .or_else(|| {
                    option
                        .values
                        .iter()
                        .position(|v| option.piece && v.text == value)
                })
        };
        let Some(index) = index else {
            return Err(RuleSetError::UnknownValue {
                option: name.to_string(),
                value: value.to_string(),
                valid: valid_values(option),
            });
        };
        if let Effect::Refused(reason) = option.values[index].effect {
            return Err(RuleSetError::Refused {
                option: name.to_string(),
                value: value.to_string(),
                reason: reason.to_string(),
            });
        }
        self.values[i] = index as u8;
        Ok(())
    }

    /// The value of option `name`, if the game has it.
    pub fn get(&self, name: &str) -> Option<&'static ValueSpec> {
        let opts = options(&self.game);
        let i = opts.iter().position(|o| o.name == name)?;
        Some(&opts[i].values[self.values[i] as usize])
    }

    /// Applies one `NAME=VALUE` (or `preset=NAME`, which replaces every option).
    ///
    /// ```
    /// use tengu_rules::RuleSet;
    /// let mut rules = RuleSet::default_for("maka-dai-dai");
    /// rules.assign("LEGALITY=PSEUDO_LEGAL").unwrap();
    /// rules.assign("FBR=BsR").unwrap(); // a reading by its Betza string
    /// assert_eq!(rules.canonical(), "maka-dai-dai:LEGALITY=PSEUDO_LEGAL,FBR=SRZ");
    /// let e = rules.assign("LEGALITY=MAYBE").unwrap_err().to_string();
    /// assert!(e.contains("CHECK_AWARE, PSEUDO_LEGAL"), "{e}");
    /// ```
    pub fn assign(&mut self, assignment: &str) -> Result<(), RuleSetError> {
        let Some((name, value)) = assignment.split_once('=') else {
            return Err(RuleSetError::Syntax {
                text: assignment.to_string(),
                problem: "expected NAME=VALUE".into(),
            });
        };
        let (name, value) = (name.trim(), value.trim());
        if name == "preset" {
            *self = RuleSet::preset(&self.game, value)?;
            return Ok(());
        }
        self.set(name, value)?;
        self.validate()
    }

    /// A rule set from a TOML table: an optional `preset = "NAME"` first, then every other
    /// key as an option (`OK = "SRZ"`). Unknown keys are errors.
    pub fn from_table(game: &str, table: &toml::Table) -> Result<RuleSet, RuleSetError> {
        known_game(game)?;
        let mut set = match table.get("preset") {
            None => RuleSet::default_for(game),
            Some(toml::Value::String(p)) => RuleSet::preset(game, p)?,
            Some(other) => {
                return Err(RuleSetError::Syntax {
                    text: format!("preset = {other}"),
                    problem: "the preset is a string".into(),
                })
            }
        };
        for (key, value) in table {
            if key == "preset" {
                continue;
            }
            let toml::Value::String(value) = value else {
                return Err(RuleSetError::Syntax {
                    text: format!("{key} = {value}"),
                    problem: "option values are strings".into(),
                });
            };
            set.set(key, value)?;
        }
        set.validate()?;
        Ok(set)
    }

    /// A rule set from the text of a rules file (a TOML table as for [`RuleSet::from_table`]).
    pub fn from_toml(game: &str, text: &str) -> Result<RuleSet, RuleSetError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| RuleSetError::Syntax {
            text: "rules file".into(),
            problem: e.message().trim().to_string(),
        })?;
        RuleSet::from_table(game, &table)
    }

    /// Reads [`RuleSet::canonical`]'s text back (as files carry it).
    ///
    /// ```
    /// use tengu_rules::RuleSet;
    /// let rules = RuleSet::parse_canonical("dai-dai:LION_DOG_PROMOTES_DD=NO,LO=EDO").unwrap();
    /// assert_eq!(rules, RuleSet::preset("dai-dai", "ssz").unwrap().with("SBA", "DEFAULT").unwrap()
    ///     .with("SB", "DEFAULT").unwrap().with("WS", "DEFAULT").unwrap()
    ///     .with("LC", "DEFAULT").unwrap().with("RC", "DEFAULT").unwrap());
    /// assert_eq!(RuleSet::parse_canonical("dai-dai").unwrap(), RuleSet::default_for("dai-dai"));
    /// ```
    pub fn parse_canonical(text: &str) -> Result<RuleSet, RuleSetError> {
        let (game, rest) = match text.split_once(':') {
            Some((g, r)) => (g, Some(r)),
            None => (text, None),
        };
        if game.is_empty() {
            return Err(RuleSetError::Syntax {
                text: text.to_string(),
                problem: "no game before ':'".into(),
            });
        }
        let mut set = RuleSet::default_for(game);
        if let Some(rest) = rest {
            for item in rest.split(',') {
                set.assign(item)?;
            }
        }
        set.validate()?;
        Ok(set)
    }

    /// This set with one more option (builder style).
    pub fn with(mut self, name: &str, value: &str) -> Result<RuleSet, RuleSetError> {
        self.set(name, value)?;
        self.validate()?;
        Ok(self)
    }

    /// The short canonical text: the game, then `:NAME=VALUE,...` for every option off its
    /// default, in [`options`] order.
    pub fn canonical(&self) -> String {
        let opts = options(&self.game);
        let changed: Vec<String> = opts
            .iter()
            .zip(&self.values)
            .filter(|(_, &v)| v != 0)
            .map(|(o, &v)| format!("{}={}", o.name, o.values[v as usize].name()))
            .collect();
        if changed.is_empty() {
            self.game.clone()
        } else {
            format!("{}:{}", self.game, changed.join(","))
        }
    }

    /// A stable 64-bit hash of [`RuleSet::canonical`] (FNV-1a), the same on every machine and
    /// in every version that spells the set the same way.
    pub fn hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.canonical().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }

    /// [`RuleSet::hash`] as 16 hex digits.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash())
    }

    /// Checks combinations: an option that has no effect under another is an error.
    pub fn validate(&self) -> Result<(), RuleSetError> {
        if self
            .get("LION_DOG_PROMOTES_DD")
            .is_some_and(|v| v.name() == "NO")
        {
            if let Some(ge) = self.get("GE").filter(|v| v.effect != Effect::Default) {
                return Err(RuleSetError::Conflict {
                    first: "LION_DOG_PROMOTES_DD=NO".into(),
                    second: format!("GE={}", ge.name()),
                    reason: "without the Lion Dog's promotion there is no Great Elephant".into(),
                });
            }
        }
        Ok(())
    }

    /// The game description under this rule set: `spec` (the game's default description, of
    /// this set's game) with every chosen option applied, and the piece kinds that can no
    /// longer appear removed.
    pub fn apply(&self, mut spec: VariantSpec) -> Result<VariantSpec, RuleSetError> {
        let game_id = spec.id.clone();
        let fail = |problem: String| RuleSetError::Apply {
            rules: self.canonical(),
            game: game_id.clone(),
            problem,
        };
        if spec.id != self.game {
            return Err(fail(format!("the rule set is for {}", self.game)));
        }
        let kind = |spec: &VariantSpec, code: &str| spec.kinds.iter().position(|k| k.code == code);
        for (option, &v) in options(&self.game).iter().zip(&self.values) {
            let value = &option.values[v as usize];
            match value.effect {
                Effect::Default => {}
                Effect::Refused(reason) => return Err(fail(format!("{}: {reason}", option.name))),
                Effect::Movement {
                    plain,
                    lion,
                    diagonal_hook,
                } => {
                    let k = kind(&spec, option.name)
                        .ok_or_else(|| fail(format!("no piece {}", option.name)))?;
                    let movement = if plain.is_empty() {
                        Default::default()
                    } else {
                        parse_betza(plain).map_err(|e| fail(format!("{}: {e}", option.name)))?
                    };
                    let kind = &mut spec.kinds[k];
                    kind.ranges = movement.ranges;
                    kind.jumps = movement.jumps;
                    kind.lion = lion;
                    kind.lion_dog = [false; 8];
                    kind.hook = diagonal_hook.then_some(HookKind::Diagonal);
                    kind.betza = value.text.to_string();
                }
                Effect::TwoCaptureHook => {
                    let k = kind(&spec, option.name)
                        .ok_or_else(|| fail(format!("no piece {}", option.name)))?;
                    spec.kinds[k].hook_two_captures = true;
                }
                Effect::Rule => self.apply_rule(&mut spec, option.name, value.name(), &fail)?,
            }
        }
        prune_unreachable(&mut spec);
        Ok(spec)
    }

    fn apply_rule(
        &self,
        spec: &mut VariantSpec,
        option: &str,
        value: &str,
        fail: &dyn Fn(String) -> RuleSetError,
    ) -> Result<(), RuleSetError> {
        let kind = |spec: &VariantSpec, code: &str| {
            spec.kinds
                .iter()
                .position(|k| k.code == code)
                .ok_or_else(|| fail(format!("{option}: no piece {code}")))
        };
        match (option, value) {
            ("PROMOTION_DD" | "PROMOTION_MDD", "MANDATORY") => {
                spec.rules.promotion = PromotionRule::Mandatory
            }
            ("PROMOTION_DD" | "PROMOTION_MDD", _) => {
                spec.rules.promotion = PromotionRule::OptionalUnlessPromotedVictim
            }
            ("PROMOTION_TRIGGER", "ANY_CAPTURE") => {
                spec.rules.promotion_trigger = PromotionTrigger::AnyCapture
            }
            ("PROMOTION_TRIGGER", _) => {
                spec.rules.promotion_trigger = PromotionTrigger::FinalSquare
            }
            ("CONTAGION_MDD", "DV_TK_DS_BS") => {
                spec.rules.contagion = ContagionRule::DevaDarkSpirit
            }
            ("CONTAGION_MDD", "PROMOTED_ONLY") => {
                spec.rules.contagion = ContagionRule::PromotedOnly
            }
            ("CONTAGION_MDD", _) => spec.rules.contagion = ContagionRule::None,
            ("CONTAGION_TIEBREAK", _) => {}
            ("LEGALITY", "CHECK_AWARE") => spec.rules.legality = LegalityRule::CheckAware,
            ("LEGALITY", _) => spec.rules.legality = LegalityRule::PseudoLegal,
            ("STALEMATE", "LOSS") => spec.rules.stalemate = StalemateRule::Loss,
            ("STALEMATE", _) => spec.rules.stalemate = StalemateRule::Draw,
            ("REPETITION", "FOURFOLD") => spec.rules.repetition = RepetitionRule::Fourfold,
            ("REPETITION", _) => spec.rules.repetition = RepetitionRule::Strict,
            ("PASS", "ALLOWED") => spec.rules.pass = PassRule::Allowed,
            ("PASS", "NO_PASS") => spec.rules.pass = PassRule::NoPass,
            ("PASS", _) => spec.rules.pass = PassRule::Qboard,
            ("EMPEROR", "UNIVERSAL_LEAPER") => {}
            ("EMPEROR", _) => {
                let em = kind(spec, "EM")?;
                let k = &mut spec.kinds[em];
                k.emperor = false;
                k.lion = true;
                k.ranges = [UNLIMITED; 8];
                k.betza = "QNADcaKmabK".into();
            }
            ("KIRIN_PHOENIX_MDD", "GREAT_DRAGON_GOLDEN_BIRD") => {}
            ("KIRIN_PHOENIX_MDD", _) => {
                let (kr, ph) = (kind(spec, "KR")?, kind(spec, "PH")?);
                let (ln, q) = (kind(spec, "LN")?, kind(spec, "Q")?);
                spec.kinds[kr].promotes_to = Some(ln);
                spec.kinds[ph].promotes_to = Some(q);
            }
            ("LION_DOG_PROMOTES_DD", "YES") => {}
            ("LION_DOG_PROMOTES_DD", _) => {
                let ld = kind(spec, "LD")?;
                spec.kinds[ld].promotes_to = None;
            }
            _ => return Err(fail(format!("{option}={value} has no implementation"))),
        }
        Ok(())
    }
}

/// One option on which two rule sets of a game differ ([`RuleSet::differences`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RuleDifference {
    /// The option's name (`LD`, `LEGALITY`).
    pub option: &'static str,
    /// Its value in the set compared from, by canonical name; `DEFAULT` for RULES.md's.
    pub from: &'static str,
    /// Its value in the other set, the same way.
    pub to: &'static str,
}

impl fmt::Display for RuleDifference {
    /// `LD=TSA (not DEFAULT)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={} (not {})", self.option, self.to, self.from)
    }
}

impl RuleSet {
    /// The options on which `other` differs from this set, in [`options`] order: what a
    /// network trained under this set meets under `other`. `None` when the two are rule sets
    /// of different games (they share no options).
    ///
    /// ```
    /// use tengu_rules::RuleSet;
    /// let default = RuleSet::default_for("dai-dai");
    /// let tsa = RuleSet::preset("dai-dai", "tsa").unwrap();
    /// let text: Vec<String> = default.differences(&tsa).unwrap().iter().map(|d| d.to_string()).collect();
    /// assert_eq!(text, ["GE=TSA (not DEFAULT)", "FF=TSA (not DEFAULT)", "LD=TSA (not DEFAULT)", "NK=SRZ (not DEFAULT)"]);
    /// assert!(default.differences(&RuleSet::default_for("maka-dai-dai")).is_none());
    /// ```
    pub fn differences(&self, other: &RuleSet) -> Option<Vec<RuleDifference>> {
        if self.game != other.game {
            return None;
        }
        let name = |o: &OptionSpec, v: u8| {
            if v == 0 {
                "DEFAULT"
            } else {
                o.values[v as usize].name()
            }
        };
        Some(
            options(&self.game)
                .iter()
                .zip(self.values.iter().zip(&other.values))
                .filter(|(_, (a, b))| a != b)
                .map(|(o, (&a, &b))| RuleDifference {
                    option: o.name,
                    from: name(o, a),
                    to: name(o, b),
                })
                .collect(),
        )
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

fn known_game(game: &str) -> Result<(), RuleSetError> {
    if GAMES.contains(&game) {
        Ok(())
    } else {
        Err(RuleSetError::UnknownGame {
            game: game.to_string(),
        })
    }
}

fn valid_values(option: &OptionSpec) -> String {
    let mut out = Vec::new();
    for v in option.values {
        let refused = matches!(v.effect, Effect::Refused(_));
        let mut names: Vec<&str> = v.names.to_vec();
        if option.piece && !names.contains(&v.text) && !v.text.contains(' ') {
            names.push(v.text);
        }
        if names.is_empty() {
            continue;
        }
        let joined = names.join(" / ");
        out.push(if refused {
            format!("{joined} (refused)")
        } else {
            joined
        });
    }
    format!("DEFAULT, {}", out.join(", "))
}

/// Removes the kinds that neither stand in the setup nor can be reached by promotion or
/// contagion, and renumbers the references to the others.
fn prune_unreachable(spec: &mut VariantSpec) {
    let n = spec.kinds.len();
    let mut reachable: Vec<bool> = spec.kinds.iter().map(|k| k.in_setup).collect();
    loop {
        let mut changed = false;
        for i in 0..n {
            if !reachable[i] {
                continue;
            }
            for target in [spec.kinds[i].promotes_to, spec.kinds[i].contagion]
                .into_iter()
                .flatten()
            {
                if !reachable[target] {
                    reachable[target] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    if reachable.iter().all(|&r| r) {
        return;
    }
    let mut new_index = vec![None; n];
    let mut next = 0;
    for i in 0..n {
        if reachable[i] {
            new_index[i] = Some(next);
            next += 1;
        }
    }
    let kinds = std::mem::take(&mut spec.kinds);
    spec.kinds = kinds
        .into_iter()
        .enumerate()
        .filter(|(i, _)| reachable[*i])
        .map(|(_, mut k)| {
            k.promotes_to = k.promotes_to.and_then(|t| new_index[t]);
            k.contagion = k.contagion.and_then(|t| new_index[t]);
            k
        })
        .collect();
    for entry in &mut spec.black_setup {
        entry.2 = new_index[entry.2].expect("setup kinds are reachable");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_name_and_value_name_is_unique_and_upper_case() {
        for game in GAMES {
            let opts = options(game);
            for (i, o) in opts.iter().enumerate() {
                assert!(
                    opts[..i].iter().all(|p| p.name != o.name),
                    "{game}: {} twice",
                    o.name
                );
                assert!(
                    o.values[0].effect == Effect::Default || o.values[0].effect == Effect::Rule
                );
                let mut seen: Vec<&str> = Vec::new();
                for v in o.values {
                    for n in v.names.iter().chain(o.piece.then_some(&v.text)) {
                        assert!(!seen.contains(n), "{game}: {}: value {n} twice", o.name);
                        seen.push(n);
                    }
                    for n in v.names {
                        assert!(n.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{n}");
                    }
                }
            }
        }
    }

    #[test]
    fn canonical_text_round_trips_and_hashes_stably() {
        for game in GAMES {
            for p in PRESETS {
                let set = RuleSet::preset(game, p.name).unwrap();
                let back = RuleSet::parse_canonical(&set.canonical()).unwrap();
                assert_eq!(back, set, "{}", set.canonical());
            }
        }
        // The hash is FNV-1a of the text: pinned so that it never changes silently.
        assert_eq!(
            RuleSet::default_for("dai-dai").hash_hex(),
            "c409aff5fe5e253a"
        );
    }

    #[test]
    fn errors_list_the_valid_names() {
        let mut set = RuleSet::default_for("dai-dai");
        let e = set.set("EMPEROR", "LION_QUEEN").unwrap_err();
        assert!(matches!(e, RuleSetError::UnknownOption { .. }), "{e}");
        assert!(e.to_string().contains("LEGALITY"), "{e}");
        let e = set.set("OK", "XYZ").unwrap_err().to_string();
        assert!(e.contains("SSZ / R2fF") && e.contains("SRZ / WB2"), "{e}");
        let e = set.set("GBD", "SRZ").unwrap_err();
        assert!(matches!(e, RuleSetError::Refused { .. }), "{e}");
        let e = set.set("REPETITION", "JCSA").unwrap_err();
        assert!(e.to_string().contains("threatens pieces"), "{e}");
        let e = RuleSet::default_for("dai-dai")
            .with("LION_DOG_PROMOTES_DD", "NO")
            .unwrap()
            .with("GE", "TSA")
            .unwrap_err();
        assert!(matches!(e, RuleSetError::Conflict { .. }), "{e}");
        assert!(RuleSet::from_toml("dai-dai", "preset = \"srz\"\nOK = 3").is_err());
        assert!(matches!(
            RuleSet::preset("chu", "default"),
            Err(RuleSetError::UnknownGame { .. })
        ));
    }
}
