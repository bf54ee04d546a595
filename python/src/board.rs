//! `Board`: a game in progress (`tengu_rules::Game`: position, moves played, repetition,
//! result), with moves and positions as RULES.md §12 text, game records (§12.4), perft and
//! an SVG drawing.

use std::sync::Arc;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use tengu_rules::{Game, Move, Position, Record, Variant};

use crate::{variant_of, MoveError, PositionError, RecordError};

/// A board: the start position, the moves played since and the current position.
///
/// `Board()` is Dai Dai Shogi's start, `Board(game="maka-dai-dai")` Maka Dai Dai's,
/// `Board("<position>")` a position in RULES.md §12.2 text or QBoard's FEN (the game is the
/// one of the board's size; a `game` that contradicts it is refused).
#[pyclass(module = "tengu._tengu")]
#[derive(Clone)]
pub struct Board {
    game: Game,
    /// Tags of the record the board was read from (written back by `record()`).
    tags: Vec<(String, String)>,
    /// Plies of the record the board was read from: while the board stands there, its
    /// `Result` and `Termination` tags say how a game ended that the rules had not ended
    /// (a resignation, an adjudication, a ply cap).
    record_plies: Option<usize>,
    /// The search's value per ply of a self-play game file's line (`games/*.records`).
    values: Option<Vec<Option<f32>>>,
}

impl Board {
    pub(crate) fn position(&self) -> &Position {
        self.game.position()
    }

    pub(crate) fn repetitions(&self) -> u32 {
        // The encoder's plane counts earlier occurrences: the game counts this one too.
        self.game.repetitions().saturating_sub(1)
    }

    fn variant(&self) -> &Arc<Variant> {
        self.game.position().variant()
    }

    /// A tag of the record read, while the board is still at the record's last move.
    fn record_tag(&self, name: &str) -> Option<&str> {
        if self.record_plies != Some(self.game.len()) {
            return None;
        }
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty() && *v != "*")
    }

    /// The result: the rules' outcome, else the record's `Result` tag at its last move.
    fn result_text(&self) -> &str {
        match self.game.outcome() {
            Some(o) => o.result_text(),
            None => self.record_tag("Result").unwrap_or("*"),
        }
    }

    fn from_parsed(record: Record) -> Board {
        Board {
            record_plies: Some(record.game.len()),
            game: record.game,
            tags: record.tags,
            values: None,
        }
    }

    fn parse_move(&self, text: &str) -> PyResult<Move> {
        self.position()
            .parse_move(text)
            .map_err(|e| MoveError::new_err(e.to_string()))
    }

    /// The moves played, as §12.3 text (each in the position before it).
    fn move_texts(&self) -> Vec<String> {
        let mut pos = self.game.start().clone();
        self.game
            .moves()
            .map(|m| {
                let text = pos.move_text(m);
                pos.play(m);
                text
            })
            .collect()
    }
}

#[pymethods]
impl Board {
    #[new]
    #[pyo3(signature = (position=None, game=None))]
    fn new(position: Option<&str>, game: Option<&str>) -> PyResult<Board> {
        let chosen = game.map(variant_of).transpose()?;
        let start = match position {
            None => Position::initial(chosen.clone().unwrap_or_else(Variant::dai_dai)),
            Some(text) => {
                let default = chosen.clone().unwrap_or_else(Variant::dai_dai);
                let pos = parse_start(text, &default)
                    .map_err(|e| PositionError::new_err(format!("position {text:?}: {e}")))?;
                if let Some(v) = &chosen {
                    if v.id() != pos.variant().id() {
                        return Err(PositionError::new_err(format!(
                            "game {:?} contradicts the position, whose {}x{} board is {}",
                            v.id(),
                            pos.size(),
                            pos.size(),
                            pos.variant().id()
                        )));
                    }
                }
                pos
            }
        };
        Ok(Board {
            game: Game::new(start),
            tags: Vec::new(),
            record_plies: None,
            values: None,
        })
    }

    /// A board of a game record (RULES.md §12.4): its start, every move replayed (an
    /// illegal move is a `RecordError` naming it), its tags kept for `record()`.
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<Board> {
        let record = Record::parse(text).map_err(|e| RecordError::new_err(e.to_string()))?;
        Ok(Board::from_parsed(record))
    }

    /// The game record (§12.4) of the moves played, with `tags` (a dict) beside the tags
    /// the board was read with; `Game`, `Start` and `Result` come from the game itself.
    #[pyo3(signature = (tags=None))]
    fn record(&self, tags: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<String> {
        let mut extra: Vec<(&str, &str)> = self
            .tags
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "Game" | "Start" | "Result" | "Termination"))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut given: Vec<(String, String)> = Vec::new();
        if let Some(t) = tags {
            for (k, v) in t.iter() {
                given.push((k.extract()?, v.str()?.to_string()));
            }
        }
        for (k, v) in &given {
            extra.retain(|(old, _)| old != k);
            extra.push((k.as_str(), v.as_str()));
        }
        Ok(Record::new(self.game.clone(), &extra).to_string())
    }

    /// The record's tags (name, value) the board was read with.
    #[getter]
    fn tags(&self) -> Vec<(String, String)> {
        self.tags.clone()
    }

    /// `dai-dai` or `maka-dai-dai`.
    #[getter]
    fn game(&self) -> String {
        self.variant().id().to_string()
    }

    /// Board side `N` (17 or 19).
    #[getter]
    fn size(&self) -> usize {
        self.position().size()
    }

    /// `"black"` or `"white"`.
    #[getter]
    fn turn(&self) -> &'static str {
        match self.position().side_to_move() {
            tengu_rules::Color::Black => "black",
            tengu_rules::Color::White => "white",
        }
    }

    /// The current position as §12.2 text.
    fn position_text(&self) -> String {
        self.position().to_string()
    }

    /// The start position as §12.2 text.
    fn start_text(&self) -> String {
        self.game.start().to_string()
    }

    /// The current position as QBoard's FEN.
    fn qboard_fen(&self) -> PyResult<String> {
        let codes = tengu_engine::fen::QboardCodes::for_variant(self.variant())
            .map_err(|e| PositionError::new_err(e.to_string()))?;
        Ok(codes.to_fen(self.position()))
    }

    /// The legal moves as §12.3 text, in the move generator's order (`tengu moves` prints
    /// them sorted).
    fn legal_moves(&self) -> Vec<String> {
        let pos = self.position();
        pos.legal_move_list()
            .into_iter()
            .map(|m| pos.move_text(m))
            .collect()
    }

    /// Whether `text` is a legal move here (false for text that does not parse).
    fn is_legal(&self, text: &str) -> bool {
        self.position()
            .parse_move(text)
            .is_ok_and(|m| self.position().is_legal(m))
    }

    /// Plays a legal move given as §12.3 text; `MoveError` for text that does not parse, an
    /// illegal move or a finished game.
    fn push(&mut self, text: &str) -> PyResult<()> {
        let m = self.parse_move(text)?;
        self.game
            .play(m)
            .map_err(|e| MoveError::new_err(format!("move {text:?}: {e}")))
    }

    /// Takes the last move back and returns it as text; `IndexError` at the start.
    fn pop(&mut self) -> PyResult<String> {
        let moves: Vec<Move> = self.game.moves().collect();
        let Some((&last, before)) = moves.split_last() else {
            return Err(PyIndexError::new_err(
                "pop from a board with no moves played",
            ));
        };
        let mut game = Game::new(self.game.start().clone());
        for &m in before {
            game.play_unchecked(m);
        }
        let text = game.position().move_text(last);
        self.game = game;
        Ok(text)
    }

    /// The moves played since the start, as §12.3 text.
    #[getter]
    fn move_stack(&self) -> Vec<String> {
        self.move_texts()
    }

    /// The last move's text in Hodges notation of the position before it, if any.
    fn hodges(&self, text: &str) -> PyResult<String> {
        let m = self.parse_move(text)?;
        Ok(self.position().hodges(m))
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.position().in_check()
    }

    /// Whether the game is over (no legal move, or the fourth occurrence of a position).
    fn is_game_over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` once the game is over, else `"*"`. A board read from
    /// a record and standing at its last move has the record's `Result` too when the rules
    /// had not ended the game (a resignation, an adjudication, a ply cap).
    fn result(&self) -> String {
        self.result_text().to_string()
    }

    /// Why the game ended (`checkmate`, `no legal move`, `repetition`, `perpetual check`;
    /// at a record's last move its `Termination` tag, e.g. `resignation`), or `None`.
    fn termination(&self) -> Option<String> {
        match self.game.outcome() {
            Some(o) => Some(o.termination.as_str().to_string()),
            None if self.record_tag("Result").is_some() => {
                self.record_tag("Termination").map(str::to_string)
            }
            None => None,
        }
    }

    /// Whether the game is over and drawn (a fourth repetition, or a record's draw at its
    /// last move).
    fn is_draw(&self) -> bool {
        self.result_text() == "1/2-1/2"
    }

    /// The piece on a square (§12.1 name, e.g. `"10l"`) as its §12.2 token (`"LD"`, `"+p"`:
    /// Black upper case, White lower case), or `None` for an empty square; `PositionError`
    /// for a name that is not a square of this board.
    fn piece(&self, square: &str) -> PyResult<Option<String>> {
        let pos = self.position();
        let s = tengu_rules::notation::parse_square(square, pos.size())
            .map_err(|e| PositionError::new_err(format!("square {square:?}: {e}")))?;
        Ok(pos
            .piece_at(s)
            .map(|p| tengu_rules::notation::piece_token(pos.variant(), p)))
    }

    /// The position's Zobrist key (`Position::key`, the repetition key of RULES.md §5.5:
    /// the pieces and the side to move), equal for equal positions whatever moves led there.
    fn zobrist_hash(&self) -> u64 {
        self.position().key()
    }

    /// The last move played, as §12.3 text; `IndexError` at the start.
    fn peek(&self) -> PyResult<String> {
        let mut pos = self.game.start().clone();
        let mut last = None;
        for m in self.game.moves() {
            last = Some(pos.move_text(m));
            pos.play(m);
        }
        last.ok_or_else(|| PyIndexError::new_err("peek at a board with no moves played"))
    }

    /// The legal move that XBoard move text names here (`m8n7,n7o6,o6p5+`, `@@@@` a pass;
    /// what `tengu xboard` and QBoard send), as §12.3 text; `MoveError` when it names none.
    fn xboard_move(&self, text: &str) -> PyResult<String> {
        let pos = self.position();
        tengu_engine::notation::parse_move(pos, text)
            .map(|m| pos.move_text(m))
            .map_err(|e| MoveError::new_err(format!("XBoard move {text:?}: {e}")))
    }

    /// A legal move given as §12.3 text, as one line of XBoard text (`usermove`'s).
    fn xboard_text(&self, text: &str) -> PyResult<String> {
        let m = self.parse_move(text)?;
        if !self.position().is_legal(m) {
            return Err(MoveError::new_err(format!(
                "move {text:?} is not legal here"
            )));
        }
        Ok(tengu_engine::notation::move_text(m, self.position().size()))
    }

    /// The search's value of each ply (the mover's view; `None` where the move was not a
    /// full search) for a board read from a self-play game file, else `None`.
    #[getter]
    fn values(&self) -> Option<Vec<Option<f32>>> {
        self.values.clone()
    }

    /// How often the current position has occurred since the last capture, this time
    /// included (the fourth ends the game, RULES.md §5.5).
    fn repetition_count(&self) -> u32 {
        self.game.repetitions()
    }

    /// Leaf count of the legal move tree `depth` plies deep from the current position
    /// (computed with the GIL released).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let mut pos = self.position().clone();
        py.allow_threads(move || tengu_rules::perft::perft(&mut pos, depth))
    }

    /// The board as an SVG document (the last move shaded).
    fn svg(&self) -> String {
        let last = self.game.moves().last().map(|m| (m.from(), m.to()));
        crate::svg::board_svg(self.position(), last)
    }

    /// Jupyter's rich display.
    fn _repr_svg_(&self) -> String {
        self.svg()
    }

    fn copy(&self) -> Board {
        self.clone()
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }

    fn __len__(&self) -> usize {
        self.game.len()
    }

    /// The board as a diagram (files across, ranks down, as `tengu show` prints it), the
    /// side to move and the position text.
    fn __str__(&self) -> String {
        tengu_rules::diagram::diagram(self.position())
            .trim_end()
            .to_string()
    }

    fn __repr__(&self) -> String {
        format!("Board({:?})", self.position().to_string())
    }

    fn __eq__(&self, other: &Board) -> bool {
        self.position() == other.position()
    }
}

/// Game records in one text, each as a `Board`: records (RULES.md §12.4) separated by
/// blank lines before a `[Game` tag, or a self-play worker's game file (`games/*.records`:
/// JSON lines `{"game": g, "record": text, "values": [...]}`, whose values become the
/// boards' `values`). A damaged record or line does not hide the others: the intact games
/// come back in file order, with each damaged one as (where, why): `("line 2", ...)` or
/// `("record 3", ...)`. (Python's `tengu.read_records` warns of each.)
#[pyfunction]
pub fn read_records(text: &str) -> (Vec<Board>, Vec<(String, String)>) {
    if text.trim_start().starts_with('{') {
        return read_json_lines(text);
    }
    let mut out = Vec::new();
    let mut damaged = Vec::new();
    let mut index = 0;
    let mut flush = |current: &mut String, out: &mut Vec<Board>| {
        if !current.trim().is_empty() {
            index += 1;
            match Record::parse(current) {
                Ok(record) => out.push(Board::from_parsed(record)),
                Err(e) => damaged.push((format!("record {index}"), e.to_string())),
            }
        }
        current.clear();
    };
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("[Game ") && !current.trim().is_empty() {
            flush(&mut current, &mut out);
        }
        current.push_str(line);
        current.push('\n');
    }
    flush(&mut current, &mut out);
    (out, damaged)
}

/// One line of a self-play game file.
#[derive(serde::Deserialize)]
struct GameLine {
    record: String,
    #[serde(default)]
    values: Option<Vec<Option<f32>>>,
}

/// The boards of a game file's JSON lines (blank lines skipped), and its damaged lines.
fn read_json_lines(text: &str) -> (Vec<Board>, Vec<(String, String)>) {
    let mut out = Vec::new();
    let mut damaged = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<GameLine>(line)
            .map_err(|e| format!("not a game line ({e})"))
            .and_then(|parsed| {
                let record = Record::parse(&parsed.record).map_err(|e| e.to_string())?;
                Ok((record, parsed.values))
            });
        match parsed {
            Ok((record, values)) => {
                let mut board = Board::from_parsed(record);
                board.values = values;
                out.push(board);
            }
            Err(why) => damaged.push((format!("line {}", i + 1), why)),
        }
    }
    (out, damaged)
}

/// A start position from RULES.md §12.2 text or QBoard's FEN; the message names both
/// readings when neither fits (text with a comma can only be §12.2 text).
fn parse_start(text: &str, default: &Arc<Variant>) -> Result<Position, String> {
    let text = text.trim();
    let own = match Position::parse(text) {
        Ok(pos) => return Ok(pos),
        Err(e) => e,
    };
    if text.contains(',') {
        return Err(format!("not a position in RULES.md §12.2 text: {own}"));
    }
    tengu_engine::fen::parse_position(text, default).map_err(|fen| {
        format!("neither a position in RULES.md §12.2 text ({own}) nor a QBoard FEN ({fen})")
    })
}
