//! The games in play: each a rules `Game`, the human's side, the opponent's player, and the
//! record it is saved as after every change. The opponent thinks on a thread of its own
//! with the game's player taken out of the table, so the table is never locked during a
//! search; a take-back, a resignation or a close bumps the game's generation and asks the
//! search to stop, and a thought of an older generation is dropped.
//!
//! The page draws a game from [`PlayGame::state`]: the board, the moves in coordinate
//! notation, and, when the human is to move, every legal move with the squares it is
//! entered by ([`click_path`]), so the page applies no rule of its own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tengu_rules::ruleset::PRESETS;
use tengu_rules::{Color, Game, Move, Position, Record, RuleSet, Square, Variant};
use tengu_search::limits::{Limits, Stop, StopReason};
use tengu_search::players::Player;
use tengu_search::search::centipawns_to_value;

use super::super::view::{board_tokens, piece_cell, piece_names};
use super::error::PlayError;
use super::fields::string;
use super::networks::Built;
use super::openings::Openings;

/// A game untouched this long may be closed to make room for a new one.
const IDLE: Duration = Duration::from_secs(30 * 60);

/// The games the page offers: `[{id, name, presets: [{name, doc}]}]`, the presets those
/// that apply to the game.
pub fn games_json() -> Value {
    let games: Vec<Value> = ["dai-dai", "maka-dai-dai"]
        .iter()
        .filter_map(|id| Variant::builtin(id))
        .map(|v| {
            let presets: Vec<Value> = PRESETS
                .iter()
                .filter(|p| RuleSet::preset(v.id(), p.name).is_ok())
                .map(|p| json!({"name": p.name, "doc": p.doc}))
                .collect();
            json!({"id": v.id(), "name": v.name(), "size": v.size(), "presets": presets})
        })
        .collect();
    Value::from(games)
}

/// A new game as asked for, validated.
pub struct NewGame {
    /// The game so far: the start (initial, `position` or the record's) and the record's
    /// moves.
    pub start: Game,
    pub preset: String,
    pub human: Color,
}

impl NewGame {
    /// Reads `game`, `preset`, `side`, `position`, `record` and `opening` (a line of
    /// `openings`; the caller reads the opponent's fields).
    pub fn read(map: &Map<String, Value>, openings: &Openings) -> Result<NewGame, PlayError> {
        let game = string(map, "game")?.unwrap_or("dai-dai");
        if Variant::builtin(game).is_none() {
            return Err(PlayError::field(
                "game",
                format!("{game:?}: expected dai-dai or maka-dai-dai"),
            ));
        }
        let preset = string(map, "preset")?.unwrap_or("default");
        let rules =
            RuleSet::preset(game, preset).map_err(|e| PlayError::field("preset", e.to_string()))?;
        let variant = Variant::by_key(&rules.canonical())
            .map_err(|e| PlayError::field("preset", e.to_string()))?;
        let human = match string(map, "side")?.unwrap_or("black") {
            "black" => Color::Black,
            "white" => Color::White,
            other => {
                return Err(PlayError::field(
                    "side",
                    format!("{other:?}: expected black (moves first) or white"),
                ))
            }
        };
        let position =
            string(map, "position")?.filter(|p| !p.trim().is_empty() && p.trim() != "initial");
        let record = string(map, "record")?.filter(|r| !r.trim().is_empty());
        let opening = string(map, "opening")?.filter(|o| !o.trim().is_empty());
        if opening.is_some() && (position.is_some() || record.is_some()) {
            return Err(PlayError::field(
                "opening",
                "give an opening, a position or a record, one of them (an opening starts from the initial position)",
            ));
        }
        let start = match (position, record) {
            (Some(_), Some(_)) => {
                return Err(PlayError::field(
                    "position",
                    "give a position or a record, not both (a record carries its start)",
                ))
            }
            (Some(text), None) => {
                let pos = tengu_engine::fen::parse_position(text, &variant)
                    .map_err(|e| PlayError::field("position", e.to_string()))?;
                if pos.variant().id() != variant.id() {
                    return Err(PlayError::field(
                        "position",
                        format!(
                            "a {}x{} board is not a position of {}",
                            pos.size(),
                            pos.size(),
                            variant.name()
                        ),
                    ));
                }
                Game::new(pos)
            }
            (None, Some(text)) => {
                let record =
                    Record::parse(text).map_err(|e| PlayError::field("record", e.to_string()))?;
                let found = record.game.start().variant();
                if found.id() != variant.id() {
                    return Err(PlayError::field(
                        "record",
                        format!(
                            "the record is a game of {}, the request names {}",
                            found.id(),
                            variant.id()
                        ),
                    ));
                }
                if record.game.outcome().is_some() {
                    return Err(PlayError::field("record", "the game of the record is over"));
                }
                record.game
            }
            (None, None) => match opening {
                Some(id) => openings.game(id, &variant)?,
                None => Game::new(Position::initial(variant)),
            },
        };
        Ok(NewGame {
            start,
            preset: preset.to_string(),
            human,
        })
    }
}

/// The squares a move is clicked by, in order: its origin, the squares it captures on the
/// way (nearest the origin first), its destination. A plain move `[from, to]`; a lion's
/// double move `[from, victim, to]`; igui `[from, victim, from]`; a pass `[from, from]`.
/// Two legal moves never share a path unless they differ only in promotion (a move is
/// its origin, destination and captured squares, RULES.md §2.7).
pub fn click_path(m: Move) -> Vec<Square> {
    let from = m.from();
    let mut side: Vec<Square> = m.side_captures().collect();
    side.sort_by_key(|s| (from.distance(*s), s.index()));
    std::iter::once(from)
        .chain(side)
        .chain(std::iter::once(m.to()))
        .collect()
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Where a value on the game's value graph came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// The opponent's search before its move.
    Opponent,
    /// An analysis the page asked for.
    Analysis,
}

impl ValueSource {
    fn name(self) -> &'static str {
        match self {
            ValueSource::Opponent => "opponent",
            ValueSource::Analysis => "analysis",
        }
    }
}

/// A point of the value graph: the value of the position after `ply` moves.
#[derive(Clone, Copy, Debug)]
struct PlyValue {
    ply: usize,
    source: ValueSource,
    /// From Black's view, in [-1, 1].
    black: f32,
}

/// A game in play.
pub struct PlayGame {
    id: String,
    /// What the page calls the opponent.
    pub opponent: String,
    preset: String,
    human: Color,
    game: Game,
    /// The opponent's player; `None` while it thinks.
    player: Option<Box<dyn Player>>,
    /// What each of the opponent's moves may spend.
    limits: Limits,
    /// The stop flag of the search in flight.
    thinking: Option<Stop>,
    /// Bumped by every change of the game: a thought of an older one is dropped.
    generation: u64,
    resigned: bool,
    /// Why the opponent could not move (it then stops thinking until a take-back).
    problem: Option<String>,
    /// Why the record could not be saved.
    save_error: Option<String>,
    /// The value graph: at most one point a ply and source, of positions still in the game.
    values: Vec<PlyValue>,
    file: PathBuf,
    saved: bool,
    touched: Instant,
}

impl PlayGame {
    pub fn new(id: String, request: NewGame, opponent: Built, dir: &Path) -> PlayGame {
        let file = dir.join(format!(
            "play-{}-{id}.record",
            tengu_store::layout::unix_ms()
        ));
        PlayGame {
            id,
            opponent: opponent.label,
            preset: request.preset,
            human: request.human,
            game: request.start,
            player: Some(opponent.player),
            limits: opponent.limits,
            thinking: None,
            generation: 0,
            resigned: false,
            problem: None,
            save_error: None,
            values: Vec::new(),
            file,
            saved: false,
            touched: Instant::now(),
        }
    }

    pub fn over(&self) -> bool {
        self.resigned || self.game.outcome().is_some()
    }

    fn changed(&mut self) {
        self.generation += 1;
        self.touched = Instant::now();
        self.stop_thinking();
        self.save();
    }

    /// Asks the search in flight, if any, to stop (its move will be dropped).
    pub fn stop_thinking(&self) {
        if let Some(stop) = &self.thinking {
            stop.request(StopReason::Abort);
        }
    }

    /// The human's move `text` (coordinate notation), made at `ply` (the page's count of
    /// moves, to catch a click on a board that has moved on).
    pub fn human_move(&mut self, text: &str, ply: Option<u64>) -> Result<(), PlayError> {
        if self.over() {
            return Err(PlayError::NotNow(
                "the game is over: start a new one".into(),
            ));
        }
        if self.game.position().side_to_move() != self.human {
            return Err(PlayError::NotNow("it is the opponent's move".into()));
        }
        if let Some(ply) = ply.filter(|&p| p != self.game.len() as u64) {
            return Err(PlayError::NotNow(format!(
                "the move was made at ply {ply}, the game is at ply {}",
                self.game.len()
            )));
        }
        let m = self
            .game
            .position()
            .parse_move(text.trim())
            .map_err(|e| PlayError::field("move", e.to_string()))?;
        self.game
            .play(m)
            .map_err(|e| PlayError::field("move", format!("{text}: {e}")))?;
        self.problem = None;
        self.changed();
        Ok(())
    }

    /// Takes back the human's last move and every move after it.
    pub fn take_back(&mut self) -> Result<(), PlayError> {
        let start = self.game.start().clone();
        let moves: Vec<Move> = self.game.moves().collect();
        let mut pos = start.clone();
        let mut keep = None;
        for (ply, &m) in moves.iter().enumerate() {
            if pos.side_to_move() == self.human {
                keep = Some(ply);
            }
            pos.play(m);
        }
        let Some(keep) = keep else {
            return Err(PlayError::NotNow(
                "nothing to take back: you have not moved".into(),
            ));
        };
        let mut game = Game::new(start);
        for &m in &moves[..keep] {
            game.play_unchecked(m);
        }
        self.game = game;
        self.values.retain(|v| v.ply <= keep);
        self.resigned = false;
        self.problem = None;
        self.changed();
        Ok(())
    }

    pub fn resign(&mut self) -> Result<(), PlayError> {
        if self.over() {
            return Err(PlayError::NotNow("the game is over already".into()));
        }
        self.resigned = true;
        self.changed();
        Ok(())
    }

    /// Puts `value` (from `mover`'s view, in [-1, 1]) on the value graph at `ply`, in place
    /// of the source's earlier point there.
    fn note_value(&mut self, ply: usize, source: ValueSource, mover: Color, value: f32) {
        let black = match mover {
            Color::Black => value,
            Color::White => -value,
        };
        self.values
            .retain(|v| !(v.ply == ply && v.source == source));
        self.values.push(PlyValue { ply, source, black });
        self.values.sort_by_key(|v| (v.ply, v.source.name()));
    }

    /// Notes an analysis of the position after `line`'s moves if `line` is this game's
    /// start and moves so far (an analysis of another line is not this game's); says
    /// whether it did.
    pub fn note_analysis(&mut self, line: &Game, value: f32) -> bool {
        let ply = line.len();
        let same = line.start().to_string() == self.game.start().to_string()
            && ply <= self.game.len()
            && line.moves().zip(self.game.moves()).all(|(a, b)| a == b);
        if same {
            let mover = line.position().side_to_move();
            self.note_value(ply, ValueSource::Analysis, mover, value);
        }
        same
    }

    /// The position after `ply` moves as the page draws a board: `{ply, board, stm,
    /// in_check, last}`, `last` the move that led to it (`{from, to, captures}`, board
    /// indices) or null at the start.
    pub fn board_at(&self, ply: usize) -> Result<Value, PlayError> {
        if ply > self.game.len() {
            return Err(PlayError::field(
                "ply",
                format!("the game has {} plies, found {ply}", self.game.len()),
            ));
        }
        let start = self.game.start();
        let size = start.size();
        let index = |s: Square| s.row() * size + s.col();
        let mut pos = start.clone();
        let mut last = Value::Null;
        for m in self.game.moves().take(ply) {
            last = json!({
                "from": index(m.from()),
                "to": index(m.to()),
                "captures": m.captures().map(index).collect::<Vec<_>>(),
            });
            pos.play(m);
        }
        Ok(json!({
            "ply": ply,
            "board": board_tokens(&pos),
            "stm": side_name(pos.side_to_move()),
            "in_check": pos.in_check(),
            "last": last,
        }))
    }

    /// The record file's name.
    pub fn file_name(&self) -> String {
        self.file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }

    /// The game as a record: the players, and a resignation as its result.
    pub fn record(&self) -> Record {
        let (black, white) = match self.human {
            Color::Black => ("you".to_string(), self.opponent.clone()),
            Color::White => (self.opponent.clone(), "you".to_string()),
        };
        let mut record = Record::new(
            self.game.clone(),
            &[
                ("Event", "tengu serve play"),
                ("Black", &black),
                ("White", &white),
            ],
        );
        if self.resigned {
            let result = tengu_rules::game::result_text(Some(self.human.opposite()));
            for (k, v) in record.tags.iter_mut() {
                if k == "Result" {
                    *v = result.to_string();
                }
            }
            record.tags.retain(|(k, _)| k != "Termination");
            record
                .tags
                .push(("Termination".into(), "resignation".into()));
        }
        record
    }

    /// Writes the record (a temporary file renamed over the last one); a failure is said on
    /// the page and in the log, and play goes on.
    fn save(&mut self) {
        let text = self.record().to_string();
        let write = || -> std::io::Result<()> {
            if let Some(dir) = self.file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = self.file.with_extension("record.tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &self.file)
        };
        match write() {
            Ok(()) => {
                self.saved = true;
                self.save_error = None;
            }
            Err(e) => {
                let problem = format!("cannot save the game to {}: {e}", self.file.display());
                tracing::warn!(game = %self.id, "play: {problem}");
                self.save_error = Some(problem);
            }
        }
    }

    /// The game as the page draws it (see the module docs and docs/serve.md).
    pub fn state(&self) -> Value {
        let start = self.game.start();
        let variant = start.variant();
        let size = start.size();
        let index = |s: Square| s.row() * size + s.col();
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(self.game.len());
        let mut taken: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        for m in self.game.moves() {
            let mover = pos.side_to_move();
            let captured: Vec<String> = m
                .captures()
                .filter_map(|s| pos.piece_at(s))
                .map(|p| piece_cell(variant, p))
                .collect();
            taken[mover.index()].extend(captured.iter().cloned());
            moves.push(json!({
                "text": pos.move_text(m),
                "hodges": pos.hodges(m),
                "by": side_name(mover),
                "from": index(m.from()),
                "to": index(m.to()),
                "captures": m.captures().map(index).collect::<Vec<_>>(),
                "captured": captured,
            }));
            pos.play(m);
        }
        let over = self.over();
        let to_move = pos.side_to_move();
        let legal: Vec<Value> = if !over && to_move == self.human {
            self.game
                .legal_move_list()
                .into_iter()
                .map(|m| {
                    let promotion =
                        m.promotion_optional()
                            .then_some(if m.promotes() { "+" } else { "=" });
                    json!({
                        "text": pos.move_text(m),
                        "path": click_path(m).into_iter().map(index).collect::<Vec<_>>(),
                        "promotion": promotion,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let record = self.record();
        let files: Vec<String> = (1..=size).rev().map(|f| f.to_string()).collect();
        let ranks: Vec<String> = (0..size)
            .map(|r| ((b'a' + r as u8) as char).to_string())
            .collect();
        json!({
            "id": self.id,
            "game": variant.id(),
            "name": variant.name(),
            "preset": self.preset,
            "size": size,
            "files": files,
            "ranks": ranks,
            "names": piece_names(variant),
            "legend": legend(variant),
            "human": side_name(self.human),
            "opponent": self.opponent,
            "board": board_tokens(&pos),
            "stm": side_name(to_move),
            "in_check": pos.in_check(),
            "ply": self.game.len(),
            "moves": moves,
            "captured": {"black": taken[0], "white": taken[1]},
            "legal": legal,
            "thinking": !over && to_move != self.human && self.problem.is_none(),
            "over": over,
            "result": record.tag("Result"),
            "termination": record.tag("Termination"),
            "problem": self.problem.as_ref().or(self.save_error.as_ref()),
            "start": start.to_string(),
            "position": pos.to_string(),
            "record": record.to_string(),
            "saved": self.saved.then(|| self.file.display().to_string()),
            "values": self.values.iter().map(|v| json!({
                "ply": v.ply,
                "source": v.source.name(),
                "black": v.black,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Every piece type of the game for the page's legend: its token, name, moves (Betza) and
/// what it promotes to.
fn legend(variant: &Variant) -> Vec<Value> {
    let kinds = variant.kinds();
    let names = piece_names(variant);
    variant
        .piece_types()
        .iter()
        .enumerate()
        .map(|(ty, t)| {
            let token = tengu_rules::notation::piece_token(
                variant,
                tengu_rules::Piece {
                    color: Color::Black,
                    ty,
                },
            );
            let kind = &kinds[t.kind];
            let promotes = (!t.promoted)
                .then_some(kind.promotes_to)
                .flatten()
                .map(|k| kinds[k].name.clone());
            json!({
                "token": token,
                "name": names.get(&token),
                "betza": kind.betza,
                "promotes": promotes,
            })
        })
        .collect()
}

/// The games in play by id.
#[derive(Default)]
pub struct Table {
    games: HashMap<String, PlayGame>,
}

impl Table {
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn get(&self, id: &str) -> Option<&PlayGame> {
        self.games.get(id)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut PlayGame> {
        self.games.get_mut(id)
    }

    pub fn remove(&mut self, id: &str) -> Option<PlayGame> {
        self.games.remove(id)
    }

    pub fn insert(&mut self, game: PlayGame) -> &mut PlayGame {
        self.games.entry(game.id.clone()).or_insert(game)
    }

    /// Room for one more game under `max`: a finished game, else one untouched for
    /// [`IDLE`], is closed (the oldest first); else the request is refused.
    pub fn make_room(&mut self, max: usize) -> Result<(), PlayError> {
        while self.games.len() >= max {
            let closable = self
                .games
                .values()
                .filter(|g| g.over() || g.touched.elapsed() >= IDLE)
                .min_by_key(|g| (!g.over(), g.touched))
                .map(|g| g.id.clone());
            let Some(id) = closable else {
                return Err(PlayError::TooMany {
                    what: "games in play",
                    count: self.games.len(),
                    limit: max,
                    flag: "--max-games",
                });
            };
            if let Some(g) = self.games.remove(&id) {
                g.stop_thinking();
                tracing::info!(game = %id, "play: closed to make room for a new game");
            }
        }
        Ok(())
    }
}

/// The games in play, locked; a thread that panicked holding the lock left the table whole
/// (every change to it is one assignment), so its poison is ignored.
pub fn lock(games: &Mutex<Table>) -> std::sync::MutexGuard<'_, Table> {
    games.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the opponent's search if it is to move in `g` and none is in flight. The search
/// runs on a thread of its own; its move is played if the game has not changed since.
pub fn start_thinking(games: &Arc<Mutex<Table>>, g: &mut PlayGame) {
    if g.over()
        || g.game.position().side_to_move() == g.human
        || g.thinking.is_some()
        || g.problem.is_some()
    {
        return;
    }
    let Some(mut player) = g.player.take() else {
        return;
    };
    let stop = Stop::new();
    g.thinking = Some(stop.clone());
    let (id, generation, game) = (g.id.clone(), g.generation, g.game.clone());
    let limits = g.limits.clone();
    let shared = games.clone();
    let spawned = std::thread::Builder::new()
        .name("serve-play-think".into())
        .spawn(move || {
            let thought = player.think(&game, &limits, &stop, &mut |_| {});
            let mut table = lock(&shared);
            let Some(g) = table.get_mut(&id) else {
                return;
            };
            g.player = Some(player);
            g.thinking = None;
            if g.generation == generation {
                let ply = g.game.len();
                let mover = g.game.position().side_to_move();
                let played = thought.map_err(|e| e.to_string()).and_then(|t| {
                    g.game
                        .play(t.best)
                        .map(|()| t.score)
                        .map_err(|e| e.to_string())
                });
                match played {
                    Ok(score) => {
                        g.note_value(
                            ply,
                            ValueSource::Opponent,
                            mover,
                            centipawns_to_value(score),
                        );
                        g.generation += 1;
                        g.save();
                    }
                    Err(e) => {
                        let problem = format!("{} could not move: {e}", g.opponent);
                        tracing::warn!(game = %id, "play: {problem}");
                        g.problem = Some(problem);
                    }
                }
            }
            // The game changed while it thought (a take-back): think again if it is to move.
            start_thinking(&shared, g);
        });
    if let Err(e) = spawned {
        g.thinking = None;
        g.problem = Some(format!("cannot start the opponent's search: {e}"));
    }
}
