//! Game records (RULES.md §12.4): tag lines, then the numbered moves in coordinate notation.
//!
//! ```text
//! [Game "Dai Dai Shogi"]
//! [Rules "dai-dai:LO=EDO"]    (only under another rule set than the defaults, RuleSet)
//! [Start "<position>"]        (only when not the initial position)
//! [Black "tengu"]
//! [White "random"]
//! [Result "1-0"]
//! [Termination "checkmate"]
//!
//! 1. 12k>12g{12g} 6g>6k{6k}
//! 2. ...
//! ```

use std::fmt::Write;

use crate::game::{Game, Outcome, Termination};
use crate::notation::ParseError;
use crate::position::Position;
use crate::variant::Variant;

/// Longest record text accepted (a few MB; real games are well below).
const MAX_RECORD: usize = 16 << 20;

/// A game record: its tags and the game replayed from them.
#[derive(Clone, Debug)]
pub struct Record {
    /// Tags in file order, `Game`, `Start` and `Result` included.
    pub tags: Vec<(String, String)>,
    pub game: Game,
}

/// Where a record's `Result` tag claims what its moves do not show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultMismatch {
    /// The tag claims a result, but the game is not over after the last move and no
    /// `Termination` tag gives a reason outside the rules (a resignation, an adjudication, a
    /// ply cap): the moves end before the result, as in a record cut short.
    NotOver {
        result: String,
        plies: usize,
        termination: Option<String>,
    },
    /// The game is over after the last move, with another result than the tag's.
    Differs {
        tag: String,
        outcome: &'static str,
        termination: &'static str,
    },
}

impl std::fmt::Display for ResultMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultMismatch::NotOver {
                result,
                plies,
                termination,
            } => {
                write!(f, "the moves end before the result: [Result \"{result}\"]")?;
                if let Some(t) = termination {
                    write!(f, " [Termination \"{t}\"]")?;
                }
                write!(
                    f,
                    " claims a finished game, but the game is not over after the last move \
                     (ply {plies}); the record may be cut short"
                )
            }
            ResultMismatch::Differs {
                tag,
                outcome,
                termination,
            } => write!(
                f,
                "[Result \"{tag}\"] does not match the moves: the game ends {outcome} by \
                 {termination}"
            ),
        }
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(msg.into()))
}

impl Record {
    /// A record of `game` with extra tags (e.g. `Black`, `White`, `Termination`). `Game`,
    /// `Start` and `Result` are derived from the game.
    pub fn new(game: Game, extra: &[(&str, &str)]) -> Record {
        let mut tags = vec![(
            "Game".to_string(),
            game.start().variant().name().to_string(),
        )];
        let start = game.start();
        if !start.variant().rule_set().is_default() {
            tags.push(("Rules".into(), start.variant().rule_set().canonical()));
        }
        if *start != Position::initial(start.variant().clone()) {
            tags.push(("Start".into(), start.to_string()));
        }
        for (k, v) in extra {
            if !matches!(*k, "Game" | "Rules" | "Start" | "Result") {
                tags.push((k.to_string(), v.to_string()));
            }
        }
        let result = game.outcome().map_or("*", |o: Outcome| o.result_text());
        tags.push(("Result".into(), result.into()));
        if let Some(o) = game.outcome() {
            if !extra.iter().any(|(k, _)| *k == "Termination") {
                tags.push(("Termination".into(), o.termination.as_str().into()));
            }
        }
        Record { tags, game }
    }

    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the `Result` tag claims what the moves do not show (see [`ResultMismatch`]);
    /// `None` when it agrees with them, is `*` or is absent.
    pub fn result_mismatch(&self) -> Option<ResultMismatch> {
        let result = self.tag("Result").filter(|r| *r != "*");
        let termination = self.tag("Termination");
        match self.game.outcome() {
            Some(o) => {
                let tag = self.tag("Result")?;
                (tag != o.result_text()).then(|| ResultMismatch::Differs {
                    tag: tag.to_string(),
                    outcome: o.result_text(),
                    termination: o.termination.as_str(),
                })
            }
            None => {
                let result = result?;
                // A reason outside the rules explains a result before the end.
                if termination.is_some_and(|t| Termination::parse(t).is_none()) {
                    return None;
                }
                Some(ResultMismatch::NotOver {
                    result: result.to_string(),
                    plies: self.game.len(),
                    termination: termination.map(str::to_string),
                })
            }
        }
    }

    /// Parses a record and replays its moves; any illegal or malformed move is rejected with
    /// its move number.
    pub fn parse(text: &str) -> Result<Record, ParseError> {
        if text.len() > MAX_RECORD {
            return err(format!(
                "record is {} bytes; at most {MAX_RECORD}",
                text.len()
            ));
        }
        let mut tags: Vec<(String, String)> = Vec::new();
        let mut lines = text.lines().enumerate().peekable();
        while let Some(&(n, line)) = lines.peek() {
            let line = line.trim();
            if line.is_empty() {
                lines.next();
                if !tags.is_empty() {
                    break;
                }
                continue;
            }
            if !line.starts_with('[') {
                break;
            }
            lines.next();
            let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
                return err(format!("line {}: a tag line is [Name \"value\"]", n + 1));
            };
            let Some((name, value)) = inner.split_once(' ') else {
                return err(format!("line {}: a tag line is [Name \"value\"]", n + 1));
            };
            let Some(value) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
                return err(format!(
                    "line {}: tag {name}: the value must be in double quotes",
                    n + 1
                ));
            };
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || value.contains('"')
            {
                return err(format!("line {}: malformed tag {name:?}", n + 1));
            }
            if tags.iter().any(|(k, _)| k == name) {
                return err(format!("line {}: tag {name} appears twice", n + 1));
            }
            tags.push((name.to_string(), value.to_string()));
        }
        let game_name = tags
            .iter()
            .find(|(k, _)| k == "Game")
            .map(|(_, v)| v.as_str());
        let variant = match game_name {
            Some("Dai Dai Shogi") => Variant::dai_dai(),
            Some("Maka Dai Dai Shogi") => Variant::maka_dai_dai(),
            Some(other) => return err(format!("tag Game: unknown game {other:?}")),
            None => return err("missing [Game \"...\"] tag"),
        };
        // A game under another rule set than the defaults names it (RuleSet::canonical).
        let variant = match tags.iter().find(|(k, _)| k == "Rules") {
            None => variant,
            Some((_, text)) => {
                let rules = crate::RuleSet::parse_canonical(text)
                    .map_err(|e| ParseError(format!("tag Rules: {e}")))?;
                if rules.game() != variant.id() {
                    return err(format!(
                        "tag Rules: {text:?} is a rule set of {}, the record's game is {}",
                        rules.game(),
                        variant.id()
                    ));
                }
                Variant::with_rules(&rules).map_err(|e| ParseError(format!("tag Rules: {e}")))?
            }
        };
        let start = match tags.iter().find(|(k, _)| k == "Start") {
            Some((_, text)) => Position::parse_for(variant.clone(), text)
                .map_err(|e| ParseError(format!("tag Start: {e}")))?,
            None => Position::initial(variant),
        };
        let result = tags
            .iter()
            .find(|(k, _)| k == "Result")
            .map(|(_, v)| v.clone());
        if let Some(r) = &result {
            if !matches!(r.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                return err(format!("tag Result: {r:?} is not 1-0, 0-1, 1/2-1/2 or *"));
            }
        }
        let mut game = Game::new(start);
        let mut expected_number = 1;
        let mut in_line = 0;
        for (n, line) in lines {
            for token in line.split_whitespace() {
                if let Some(num) = token.strip_suffix('.') {
                    if num.parse::<usize>().ok() != Some(expected_number) {
                        return err(format!(
                            "line {}: expected move number {expected_number}., found {token:?}",
                            n + 1
                        ));
                    }
                    expected_number += 1;
                    in_line = 0;
                    continue;
                }
                if expected_number == 1 || in_line >= 2 {
                    return err(format!(
                        "line {}: move {token:?} is not preceded by a move number",
                        n + 1
                    ));
                }
                in_line += 1;
                if game.outcome().is_some() {
                    return err(format!(
                        "line {}: move {token:?} after the end of the game",
                        n + 1
                    ));
                }
                let m = game.position().parse_move(token).map_err(|e| {
                    ParseError(format!("line {}: ply {}: {e}", n + 1, game.len() + 1))
                })?;
                game.play_unchecked(m);
            }
        }
        Ok(Record { tags, game })
    }
}

impl std::fmt::Display for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, v) in &self.tags {
            writeln!(f, "[{k} \"{v}\"]")?;
        }
        writeln!(f)?;
        let mut pos = self.game.start().clone();
        let mut line = String::new();
        for (i, m) in self.game.moves().enumerate() {
            if i % 2 == 0 {
                if !line.is_empty() {
                    writeln!(f, "{line}")?;
                    line.clear();
                }
                let _ = write!(line, "{}.", i / 2 + 1);
            }
            let _ = write!(line, " {}", pos.move_text(m));
            pos.play(m);
        }
        if !line.is_empty() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}
