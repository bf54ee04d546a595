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
                let pos = tengu_engine::fen::parse_position(text, &default)
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
        })
    }

    /// A board of a game record (RULES.md §12.4): its start, every move replayed (an
    /// illegal move is a `RecordError` naming it), its tags kept for `record()`.
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<Board> {
        let record = Record::parse(text).map_err(|e| RecordError::new_err(e.to_string()))?;
        Ok(Board {
            game: record.game,
            tags: record.tags,
        })
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
            .map_err(PositionError::new_err)?;
        Ok(codes.to_fen(self.position()))
    }

    /// The legal moves as §12.3 text, in the move generator's order (`tengu moves` prints
    /// them sorted).
    fn legal_moves(&self) -> Vec<String> {
        let pos = self.position();
        pos.legal_move_list().into_iter().map(|m| pos.move_text(m)).collect()
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
            return Err(PyIndexError::new_err("pop from a board with no moves played"));
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

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` once the game is over, else `"*"`.
    fn result(&self) -> &'static str {
        self.game.outcome().map_or("*", |o| o.result_text())
    }

    /// Why the game ended (`checkmate`, `no legal move`, `repetition`, `perpetual check`),
    /// or `None`.
    fn termination(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| o.termination.as_str())
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

    fn __str__(&self) -> String {
        self.position().to_string()
    }

    fn __repr__(&self) -> String {
        format!("Board({:?})", self.position().to_string())
    }

    fn __eq__(&self, other: &Board) -> bool {
        self.position() == other.position()
    }
}

/// Game records in one text (records separated by blank lines before a `[Game` tag), each
/// as a `Board`; `RecordError` names the first that cannot be read.
#[pyfunction]
pub fn read_records(text: &str) -> PyResult<Vec<Board>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<Board>| -> PyResult<()> {
        if !current.trim().is_empty() {
            let index = out.len() + 1;
            let board = Board::from_record(current)
                .map_err(|e| RecordError::new_err(format!("record {index}: {e}")))?;
            out.push(board);
        }
        current.clear();
        Ok(())
    };
    for line in text.lines() {
        if line.trim_start().starts_with("[Game ") && !current.trim().is_empty() {
            flush(&mut current, &mut out)?;
        }
        current.push_str(line);
        current.push('\n');
    }
    flush(&mut current, &mut out)?;
    Ok(out)
}
