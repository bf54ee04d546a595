//! What a line of `tengu analyze`'s input asks for: parsed from JSON into a [`Request`],
//! then validated (the game, the rule set, the position and every move replayed), so that
//! the engine only ever sees a query it can search. Every refusal is a [`QueryError`] that
//! names the field at fault.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tengu_rules::{Game, Position, Record, RuleSet, Variant};

/// A query's `id` as the client gave it, echoed in every answer to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QueryId(pub String);

impl std::fmt::Display for QueryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a line is refused. [`QueryError::field`] names the field at fault where there is one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// The line is not JSON at all.
    #[error("not JSON: {problem}")]
    Json { problem: String },
    /// The line is longer than [`MAX_LINE`] bytes.
    #[error("the line is {bytes} bytes long; at most {MAX_LINE}")]
    TooLong { bytes: usize },
    /// The line is not UTF-8 text.
    #[error("the line is not UTF-8 text")]
    NotUtf8,
    /// JSON, but not an object.
    #[error("a query is a JSON object, found {found}")]
    NotAnObject { found: &'static str },
    /// A field the request needs is absent.
    #[error("{field} is missing")]
    Missing { field: &'static str },
    /// A field this version does not read (a misspelt field would otherwise be ignored).
    #[error("unknown field {field:?}; a query reads {known}")]
    Unknown { field: String, known: String },
    /// A field with a value of the wrong type or out of its range.
    #[error("{field}: {problem}")]
    Invalid {
        field: &'static str,
        problem: String,
    },
    /// An `id` that names a query still being analysed.
    #[error("a query with id {id:?} is still being analysed")]
    Busy { id: String },
}

impl QueryError {
    /// The field at fault, if the error is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            QueryError::Missing { field } | QueryError::Invalid { field, .. } => Some(field),
            QueryError::Unknown { field, .. } => Some(field),
            QueryError::Busy { .. } => Some("id"),
            QueryError::Json { .. }
            | QueryError::TooLong { .. }
            | QueryError::NotUtf8
            | QueryError::NotAnObject { .. } => None,
        }
    }
}

/// Longest input line read (a game record of a few thousand plies is well below).
pub const MAX_LINE: usize = 16 << 20;

/// Longest principal variation a query may ask for (`pv_plies`).
pub const MAX_PV_PLIES: u64 = 256;

/// The caps the command line puts on what one query may ask.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Most root visits per analysed ply (`visits`).
    pub visits: u32,
    /// Longest time per analysed ply (`max_ms`).
    pub time: Duration,
    /// Most plies one query may analyse (`analyze_plies`).
    pub plies: usize,
}

/// A line of input, understood.
#[derive(Debug)]
pub enum Request {
    Analyze(Box<Query>),
    /// Stop the analysis of query `id`: its plies not yet answered are dropped.
    Terminate {
        id: QueryId,
    },
    /// Stop every query in flight.
    TerminateAll,
}

/// What a query may spend on each analysed ply: root visits, time, or both (the first
/// reached ends the search); neither: the network's search settings' `visits`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    pub visits: Option<u32>,
    pub time: Option<Duration>,
}

/// What an answer carries beyond the search's summary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    /// The network's prior over every legal move (`include_policy`).
    pub policy: bool,
    /// Candidate moves listed at most (`max_moves`; all visited ones by default).
    pub max_moves: usize,
    /// Plies of each principal variation at most (`pv_plies`, default 16).
    pub pv_plies: usize,
}

/// A validated analysis query: the game line (its start and every move checked), the
/// plies of it to analyse, the budget a ply and what to report.
#[derive(Clone, Debug)]
pub struct Query {
    pub id: QueryId,
    /// The whole line: the start position (initial, `position` or the record's), the
    /// record's moves, then `moves`.
    pub line: Game,
    /// Plies to analyse, ascending, each in `0..=line.len()`: ply k is the position after
    /// the line's first k moves.
    pub plies: Vec<u32>,
    pub budget: Budget,
    pub report: Report,
    /// Seed of the search's random choices (none without noise; kept for parity with the
    /// single-position search).
    pub seed: Option<u64>,
}

impl Query {
    /// The game at `ply` of the line (`ply <= line.len()`).
    pub fn game_at(&self, ply: u32) -> Game {
        let mut game = Game::new(self.line.start().clone());
        for m in self.line.moves().take(ply as usize) {
            game.play_unchecked(m);
        }
        game
    }

    /// The line's variant (its game key names the rule set).
    pub fn variant(&self) -> &Arc<Variant> {
        self.line.start().variant()
    }
}

/// The fields an analysis query reads.
const QUERY_FIELDS: &[&str] = &[
    "id",
    "game",
    "options",
    "position",
    "record",
    "moves",
    "analyze_plies",
    "visits",
    "max_ms",
    "include_policy",
    "max_moves",
    "pv_plies",
    "seed",
];

/// The fields an action (`terminate`, `terminate_all`) reads.
const ACTION_FIELDS: &[&str] = &["id", "action"];

/// The `id` of a JSON line, if it has a readable one (for the answer to a refused line).
pub fn id_of(value: &Value) -> Option<QueryId> {
    value
        .get("id")
        .and_then(Value::as_str)
        .map(|s| QueryId(s.to_string()))
}

/// Parses one input line as JSON: the object and its id, or why not.
pub fn parse_line(line: &str) -> Result<Map<String, Value>, QueryError> {
    if line.len() > MAX_LINE {
        return Err(QueryError::TooLong { bytes: line.len() });
    }
    let value: Value = serde_json::from_str(line).map_err(|e| QueryError::Json {
        problem: e.to_string(),
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(QueryError::NotAnObject {
            found: type_name(&other),
        }),
    }
}

/// Reads a parsed line as a request, within `caps`.
pub fn request(map: &Map<String, Value>, caps: &Caps) -> Result<Request, QueryError> {
    if let Some(action) = map.get("action") {
        check_known(map, ACTION_FIELDS)?;
        let action = action.as_str().ok_or_else(|| QueryError::Invalid {
            field: "action",
            problem: format!("a string, found {}", type_name(action)),
        })?;
        return match action {
            "terminate" => Ok(Request::Terminate { id: id(map)? }),
            "terminate_all" => Ok(Request::TerminateAll),
            other => Err(QueryError::Invalid {
                field: "action",
                problem: format!("unknown action {other:?}; expected terminate or terminate_all"),
            }),
        };
    }
    check_known(map, QUERY_FIELDS)?;
    query(map, caps).map(|q| Request::Analyze(Box::new(q)))
}

fn check_known(map: &Map<String, Value>, known: &[&str]) -> Result<(), QueryError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(field) => Err(QueryError::Unknown {
            field: field.clone(),
            known: known.join(", "),
        }),
        None => Ok(()),
    }
}

fn id(map: &Map<String, Value>) -> Result<QueryId, QueryError> {
    let value = map.get("id").ok_or(QueryError::Missing { field: "id" })?;
    match value.as_str() {
        Some(s) if !s.is_empty() && s.len() <= 256 => Ok(QueryId(s.to_string())),
        Some(_) => Err(invalid("id", "a string of 1 to 256 bytes")),
        None => Err(invalid(
            "id",
            format!("a string, found {}", type_name(value)),
        )),
    }
}

fn invalid(field: &'static str, problem: impl Into<String>) -> QueryError {
    QueryError::Invalid {
        field,
        problem: problem.into(),
    }
}

/// What a JSON value is, as a refusal names it ("a string, found a number"); the play
/// page's field readers say it the same way.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string<'a>(
    map: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'a str>, QueryError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(invalid(field, format!("a string, found {}", type_name(v)))),
    }
}

fn strings<'a>(
    map: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Vec<&'a str>, QueryError> {
    match map.get(field) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().ok_or_else(|| {
                    invalid(field, format!("[{i}]: a string, found {}", type_name(v)))
                })
            })
            .collect(),
        Some(v) => Err(invalid(
            field,
            format!("an array of strings, found {}", type_name(v)),
        )),
    }
}

/// A whole number in `low..=high`, if present.
fn whole(
    map: &Map<String, Value>,
    field: &'static str,
    low: u64,
    high: u64,
) -> Result<Option<u64>, QueryError> {
    let Some(v) = map.get(field) else {
        return Ok(None);
    };
    match v.as_u64() {
        Some(n) if (low..=high).contains(&n) => Ok(Some(n)),
        _ => Err(invalid(
            field,
            format!("a whole number from {low} to {high}, found {v}"),
        )),
    }
}

fn boolean(map: &Map<String, Value>, field: &'static str) -> Result<bool, QueryError> {
    match map.get(field) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(invalid(
            field,
            format!("true or false, found {}", type_name(v)),
        )),
    }
}

fn query(map: &Map<String, Value>, caps: &Caps) -> Result<Query, QueryError> {
    let id = id(map)?;
    let line = line(map)?;
    let plies = plies(map, line.len(), caps.plies)?;
    let budget = Budget {
        visits: whole(map, "visits", 1, caps.visits as u64)?.map(|v| v as u32),
        time: whole(map, "max_ms", 1, caps.time.as_millis() as u64)?.map(Duration::from_millis),
    };
    let report = Report {
        policy: boolean(map, "include_policy")?,
        max_moves: whole(map, "max_moves", 1, u32::MAX as u64)?.map_or(usize::MAX, |n| n as usize),
        pv_plies: whole(map, "pv_plies", 1, MAX_PV_PLIES)?.map_or(16, |n| n as usize),
    };
    let seed = match map.get("seed") {
        None => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            invalid(
                "seed",
                format!("a whole number from 0 to {}, found {v}", u64::MAX),
            )
        })?),
    };
    Ok(Query {
        id,
        line,
        plies,
        budget,
        report,
        seed,
    })
}

/// The query's game line: the variant (`game` with `options`, or the record's, or the
/// position's size), the start (`position`, `record` or the initial position) and the
/// moves (the record's, then `moves`), each checked.
fn line(map: &Map<String, Value>) -> Result<Game, QueryError> {
    let game_field = string(map, "game")?;
    let options = strings(map, "options")?;
    let position = string(map, "position")?;
    let record = string(map, "record")?;
    if position.is_some() && record.is_some() {
        return Err(invalid(
            "position",
            "give a position or a record, not both (a record carries its start)",
        ));
    }
    let record = record
        .map(|text| Record::parse(text).map_err(|e| invalid("record", e.to_string())))
        .transpose()?;
    // The game a position text names by its size when `game` does not say.
    let position = position.filter(|p| p.trim() != "initial");
    let base = match (game_field, &record, position) {
        (Some(g), _, _) => g.to_string(),
        (None, Some(r), _) => r.game.start().variant().game().to_string(),
        (None, None, Some(text)) => {
            let ranks = text
                .split_whitespace()
                .next()
                .map_or(0, |b| b.split('/').count());
            Variant::for_size(ranks).map_or("dai-dai".into(), |v| v.id().to_string())
        }
        (None, None, None) => "dai-dai".into(),
    };
    let named = game_field.is_some() || !options.is_empty();
    let variant = variant(&base, &options)?;
    let mut game = match (record, position) {
        (Some(record), _) => {
            let found = record.game.start().variant();
            if named && found.id() != variant.id() {
                let field = if game_field.is_some() {
                    "game"
                } else {
                    "options"
                };
                return Err(invalid(
                    field,
                    format!(
                        "the record is a game of {}, the query names {}",
                        found.id(),
                        variant.id()
                    ),
                ));
            }
            record.game
        }
        (None, Some(text)) => {
            let pos = tengu_engine::fen::parse_position(text, &variant)
                .map_err(|e| invalid("position", e.to_string()))?;
            if pos.variant().id() != variant.id() {
                return Err(invalid(
                    "position",
                    format!(
                        "a {}x{} board is a position of {}, the query's game is {}",
                        pos.size(),
                        pos.size(),
                        pos.variant().id(),
                        variant.id()
                    ),
                ));
            }
            Game::new(pos)
        }
        (None, None) => Game::new(Position::initial(variant)),
    };
    for (i, text) in strings(map, "moves")?.into_iter().enumerate() {
        let m = game
            .position()
            .parse_move(text.trim())
            .map_err(|e| invalid("moves", format!("moves[{i}] {text:?}: {e}")))?;
        game.play(m)
            .map_err(|e| invalid("moves", format!("moves[{i}] {text:?}: {e}")))?;
    }
    Ok(game)
}

/// The variant of game `base` (a game id or key) with `options` (`NAME=VALUE`, in order,
/// `preset=NAME` starting over from a preset), as `--game` and `--option` give it.
fn variant(base: &str, options: &[&str]) -> Result<Arc<Variant>, QueryError> {
    let mut rules = RuleSet::parse_canonical(base).map_err(|e| invalid("game", e.to_string()))?;
    for (i, option) in options.iter().enumerate() {
        rules
            .assign(option.trim())
            .map_err(|e| invalid("options", format!("options[{i}] {option:?}: {e}")))?;
    }
    let field = if options.is_empty() {
        "game"
    } else {
        "options"
    };
    Variant::by_key(&rules.canonical()).map_err(|e| invalid(field, e.to_string()))
}

/// `analyze_plies`: ascending distinct plies in `0..=last`, or `"all"`; default the last.
fn plies(map: &Map<String, Value>, last: usize, cap: usize) -> Result<Vec<u32>, QueryError> {
    let field = "analyze_plies";
    let mut plies: Vec<u32> = match map.get(field) {
        None => vec![last as u32],
        Some(Value::String(s)) if s == "all" => (0..=last as u32).collect(),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| match v.as_u64() {
                Some(n) if n <= last as u64 => Ok(n as u32),
                _ => Err(invalid(
                    field,
                    format!("{v} is not a ply of the line, 0 (its start) to {last} (after its last move)"),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(v) => {
            return Err(invalid(
                field,
                format!("a non-empty array of plies or \"all\", found {v}"),
            ))
        }
    };
    plies.sort_unstable();
    plies.dedup();
    if plies.len() > cap {
        return Err(invalid(
            field,
            format!(
                "{} plies; a query analyses at most {cap} (--max-plies)",
                plies.len()
            ),
        ));
    }
    Ok(plies)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPS: Caps = Caps {
        visits: 1000,
        time: Duration::from_secs(60),
        plies: 100,
    };

    fn refused(line: &str) -> QueryError {
        let map = parse_line(line).unwrap();
        match request(&map, &CAPS) {
            Err(e) => e,
            Ok(r) => panic!("{line} was accepted: {r:?}"),
        }
    }

    fn accepted(line: &str) -> Query {
        match request(&parse_line(line).unwrap(), &CAPS).unwrap() {
            Request::Analyze(q) => *q,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_query_replays_its_line_and_defaults_to_the_last_ply() {
        let q = accepted(r#"{"id":"a","moves":["9l>9k","9f>9g"],"visits":10}"#);
        assert_eq!(q.id, QueryId("a".into()));
        assert_eq!(q.line.len(), 2);
        assert_eq!(q.plies, vec![2]);
        assert_eq!(q.variant().id(), "dai-dai");
        assert_eq!(q.budget.visits, Some(10));
        assert_eq!(q.game_at(1).len(), 1);
        let all = accepted(
            r#"{"id":"b","moves":["10n>10m"],"analyze_plies":"all","game":"maka-dai-dai","options":["preset=tsa"]}"#,
        );
        assert_eq!(all.plies, vec![0, 1]);
        assert!(
            all.variant().id().starts_with("maka-dai-dai:"),
            "{}",
            all.variant().id()
        );
    }

    #[test]
    fn every_bad_field_is_named() {
        let cases = [
            (r#"{"moves":[]}"#, "id"),
            (r#"{"id":3}"#, "id"),
            (r#"{"id":"x","game":"chess"}"#, "game"),
            (r#"{"id":"x","options":["OK=XYZ"]}"#, "options"),
            (r#"{"id":"x","position":"17/17 b -"}"#, "position"),
            (r#"{"id":"x","record":"1. 9l>9k"}"#, "record"),
            (r#"{"id":"x","moves":["9l>9k","9l>9k"]}"#, "moves"),
            (r#"{"id":"x","moves":"9l>9k"}"#, "moves"),
            (r#"{"id":"x","analyze_plies":[3]}"#, "analyze_plies"),
            (r#"{"id":"x","visits":0}"#, "visits"),
            (r#"{"id":"x","visits":1001}"#, "visits"),
            (r#"{"id":"x","max_ms":-5}"#, "max_ms"),
            (r#"{"id":"x","include_policy":"yes"}"#, "include_policy"),
            (r#"{"id":"x","pv_plies":0}"#, "pv_plies"),
            (r#"{"id":"x","vists":10}"#, "vists"),
            (r#"{"id":"x","action":"pause"}"#, "action"),
            (r#"{"action":"terminate"}"#, "id"),
        ];
        for (line, field) in cases {
            let e = refused(line);
            assert_eq!(e.field(), Some(field), "{line}: {e}");
        }
        assert_eq!(parse_line("{").unwrap_err().field(), None);
        assert!(matches!(
            parse_line("[1]"),
            Err(QueryError::NotAnObject { .. })
        ));
    }
}
