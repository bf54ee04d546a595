//! A worker's game-records file, `games/<stem>.records`: one JSON line per finished game,
//! `{"game": g, "record": text, "values": [...]}` (older workers wrote no values). Written
//! by [`crate::worker`]; read by `tengu serve` and `tengu results --calibrate`.
//!
//! A damaged line (a torn write, a damaged disk, a hand edit) does not hide the other games
//! of its file: [`read_records`] gives the intact games and names each damaged line.

use serde_json::Value;
use tengu_rules::Record;

/// One game of a records file as it stands in its line.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLine {
    /// The line of the file it stands on (from 1).
    pub line: usize,
    /// The record's text (RULES.md §12.4), not yet parsed.
    pub record: String,
    /// The search's root value per ply (from the view of the side that moved), where the
    /// line has them.
    pub values: Option<Vec<Option<f32>>>,
}

impl GameLine {
    /// The parsed record, or why the line's record is damaged.
    pub fn parse(&self) -> Result<Record, DamagedLine> {
        Record::parse(&self.record).map_err(|e| DamagedLine {
            line: self.line,
            problem: format!("not a game record: {e}"),
        })
    }
}

/// A line of a records file that holds no readable game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct DamagedLine {
    /// From 1.
    pub line: usize,
    pub problem: String,
}

/// The games of a records file's text: the intact lines in file order, and each damaged
/// line with why. Blank lines are neither.
pub fn read_records(text: &str) -> (Vec<GameLine>, Vec<DamagedLine>) {
    let mut games = Vec::new();
    let mut damaged = Vec::new();
    for (i, text) in text.lines().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        match game_line(i + 1, text) {
            Ok(game) => games.push(game),
            Err(problem) => damaged.push(DamagedLine {
                line: i + 1,
                problem,
            }),
        }
    }
    (games, damaged)
}

/// The line of game `game` of a worker's file (no line break).
pub fn line_text(game: usize, record: &Record, values: &[Option<f32>]) -> String {
    serde_json::json!({"game": game, "record": record.to_string(), "values": values}).to_string()
}

/// One line of a records file, or why it is not one.
fn game_line(line: usize, text: &str) -> Result<GameLine, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not a JSON line: {e}"))?;
    let record = v["record"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| "no \"record\" text".to_string())?;
    let values = match v.get("values") {
        None | Some(Value::Null) => None,
        Some(values) => Some(
            serde_json::from_value(values.clone())
                .map_err(|e| format!("\"values\" are not numbers or nulls: {e}"))?,
        ),
    };
    Ok(GameLine {
        line,
        record,
        values,
    })
}
