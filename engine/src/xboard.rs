//! The XBoard/CECP v2 engine, shaped by what QBoard sends and parses
//! (`../shared/research/engine-protocol.md`).
//!
//! [`Engine::handle`] is the whole protocol state machine: one command line in, the answer
//! lines out (flushed per message), thinking on the calling thread. [`run`] adds the input
//! thread that lets `?`, `quit` and the other interrupting commands reach a running search.
//! Nothing but protocol text goes to the output; logs go to stderr through `tracing`.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tengu_rules::{Color, Game, Move, Position, RuleSet, RuleSetError, Square, Variant};
use tengu_search::limits::{Limits, Stop, StopReason};
use tengu_search::players::{AlphaBetaPlayer, Player, PlayerError};
use tengu_search::thought::Thought;

use crate::clock::{parse_base, parse_centiseconds, parse_seconds, Clock, Control};
use crate::fen;
use crate::notation::{looks_like_move, move_lines, move_text, parse_move};

/// Builds the engine's player for a game (called again when the variant changes). An error
/// is told to the user, and the game played with alpha-beta.
pub type PlayerFactory = Box<dyn FnMut(&Arc<Variant>) -> Result<EnginePlayer, FactoryError> + Send>;

/// Why a [`PlayerFactory`] has no player for a game: the caller's own error (a checkpoint
/// that does not load, a network that does not fit), whose message the user is told.
pub type FactoryError = Box<dyn std::error::Error + Send + Sync>;

/// Why the engine's search gave no move.
#[derive(Debug, thiserror::Error)]
enum SearchFailure {
    #[error("no player")]
    NoPlayer,
    #[error(transparent)]
    Player(#[from] PlayerError),
}

/// The engine's player for a game, with what the user is to be told about it: a network
/// trained under other rules of the game, a game without a network. The engine tells a
/// notice once (`telluser`, which QBoard shows in a dialog), when a game starts.
pub struct EnginePlayer {
    pub player: Box<dyn Player>,
    pub notice: Option<String>,
}

impl From<Box<dyn Player>> for EnginePlayer {
    fn from(player: Box<dyn Player>) -> EnginePlayer {
        EnginePlayer {
            player,
            notice: None,
        }
    }
}

/// What the engine is started with.
pub struct Settings {
    /// Budget per move when the GUI sets no time control.
    pub default_time: Duration,
    /// Fixed visits per move for MCTS players (still capped by the clock).
    pub visits: Option<u32>,
    /// The name in `feature myname`.
    pub name: String,
    /// The starting values of the engine options `Rules` (a preset name) and `Rule options`
    /// (`NAME=VALUE` items separated by commas): the rule set every game starts under until
    /// the GUI changes them. One that does not apply to the game chosen is refused when the
    /// game starts, as when the GUI sets it.
    pub rule_preset: String,
    pub rule_options: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            default_time: Duration::from_secs(2),
            visits: None,
            name: format!("tengu {}", env!("CARGO_PKG_VERSION")),
            rule_preset: "default".into(),
            rule_options: String::new(),
        }
    }
}

/// Whether the engine goes on after a command.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The protocol state of one engine process.
pub struct Engine<W: Write> {
    out: W,
    settings: Settings,
    factory: PlayerFactory,
    /// The player of `game`'s variant, built when the GUI chooses a game (`variant`, the
    /// `Rules` options, `setboard`) or the engine first thinks in it: QBoard's `new` comes
    /// before its `variant`, and a game it never plays costs no network and no notice.
    player: Option<Box<dyn Player>>,
    game: Game,
    /// Each move of `game` as its text reached the other side of the GUI: a received move
    /// as it came, this engine's own as QBoard passes it on ([`crate::relay::as_relayed`]);
    /// what the other engine read, for naming a dropped promotion mark.
    relayed: Vec<String>,
    /// The side the engine plays (tengu colours); `None` in force mode.
    engine_side: Option<Color>,
    post: bool,
    clock: Clock,
    depth: Option<u32>,
    /// Result text once the game has ended (reached, or told by `result`).
    ended: Option<String>,
    /// Inside an `edit` block (swallowed until `.`).
    editing: bool,
    analyzing: Arc<AtomicBool>,
    /// The last analysis ran to its end: wait for input before analysing again.
    analysis_done: bool,
    /// Stops a running search (the input thread sets it).
    stop: Stop,
    /// Interrupting commands read but not yet handled: no new search starts while any wait.
    pending: Arc<AtomicUsize>,
    /// The output is gone (the GUI closed the pipe): quit.
    broken: bool,
    /// Notices about the player not yet told, with the game key of the player's variant,
    /// and those told (each is told once).
    notices: Vec<(String, String)>,
    told: std::collections::HashSet<String>,
    seed: u64,
    /// The rule set chosen with the `Rules` and `Rule options` engine options (RULES.md §8,
    /// docs/rules.md): a preset name, then `NAME=VALUE` items separated by commas.
    rule_preset: String,
    rule_options: String,
}

/// `base`'s game under `preset` and then `options` (`NAME=VALUE` items separated by commas).
fn ruled(base: &Variant, preset: &str, options: &str) -> Result<Arc<Variant>, RuleSetError> {
    let mut rules = RuleSet::preset(base.game(), preset)?;
    for item in options.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        rules.assign(item)?;
    }
    Variant::by_key(&rules.canonical())
}

fn variant_by_name(name: &str) -> Option<Arc<Variant>> {
    match name.to_ascii_lowercase().as_str() {
        "daidai" | "dai-dai" | "dada" | "daidaishogi" | "dai_dai" => Some(Variant::dai_dai()),
        "maka" | "makadaidai" | "maka-dai-dai" | "makadaidaishogi" | "maka_dai_dai" => {
            Some(Variant::maka_dai_dai())
        }
        _ => None,
    }
}

/// The XBoard name of a tengu game.
pub fn xboard_variant_name(variant: &Variant) -> &'static str {
    if variant.size() == 19 {
        "maka"
    } else {
        "daidai"
    }
}

/// The classical player the engine falls back on (and plays with, without a network).
pub fn alphabeta(variant: &Arc<Variant>, default_time: Duration, seed: u64) -> Box<dyn Player> {
    Box::new(AlphaBetaPlayer::new(variant, default_time, 64, seed))
}

/// The factory's player for `variant` and its notice; when the factory fails, alpha-beta,
/// with the failure as a warning and a notice.
fn build_player(
    factory: &mut PlayerFactory,
    variant: &Arc<Variant>,
    default_time: Duration,
    seed: u64,
) -> (Box<dyn Player>, Option<String>) {
    match factory(variant) {
        Ok(built) => (built.player, built.notice),
        Err(e) => {
            let notice = format!("{e}; playing {} with alpha-beta", variant.name());
            tracing::warn!("{notice}");
            (alphabeta(variant, default_time, seed), Some(notice))
        }
    }
}

/// Commands that end a running search at once (the search's result is dropped), so they
/// take effect without waiting for the move. While analysing, every command does.
pub fn interrupts(line: &str, analyzing: bool) -> bool {
    let word = line.split_whitespace().next().unwrap_or("");
    analyzing
        || matches!(
            word,
            "quit"
                | "force"
                | "new"
                | "result"
                | "undo"
                | "remove"
                | "setboard"
                | "variant"
                | "edit"
                | "exit"
                | "analyze"
                | "usermove"
                | "playother"
                | "go"
        )
        || (looks_like_move(word) && line.split_whitespace().count() == 1)
}

impl<W: Write> Engine<W> {
    pub fn new(out: W, settings: Settings, factory: PlayerFactory) -> Engine<W> {
        // Dai Dai Shogi under the starting rule set, else (a set of Maka Dai Dai options)
        // under its defaults until the GUI chooses a game.
        let variant = ruled(
            &Variant::dai_dai(),
            &settings.rule_preset,
            &settings.rule_options,
        )
        .unwrap_or_else(|_| Variant::dai_dai());
        let clock = Clock::new(settings.default_time);
        Engine {
            out,
            factory,
            player: None,
            notices: Vec::new(),
            told: Default::default(),
            game: Game::new(Position::initial(variant)),
            relayed: Vec::new(),
            engine_side: Some(Color::White),
            post: false,
            clock,
            depth: None,
            ended: None,
            editing: false,
            analyzing: Arc::new(AtomicBool::new(false)),
            analysis_done: false,
            stop: Stop::new(),
            pending: Arc::new(AtomicUsize::new(0)),
            broken: false,
            seed: 1,
            rule_preset: settings.rule_preset.clone(),
            rule_options: settings.rule_options.clone(),
            settings,
        }
    }

    /// `base`'s game under the rule set of the engine options.
    fn ruled(&self, base: &Variant) -> Result<Arc<Variant>, RuleSetError> {
        ruled(base, &self.rule_preset, &self.rule_options)
    }

    /// Starts a new game of the current game under the engine options' rule set; a rule set
    /// that does not apply is reported and the options keep their old values.
    fn set_rules(&mut self, preset: Option<&str>, options: Option<&str>) {
        let old = (self.rule_preset.clone(), self.rule_options.clone());
        if let Some(p) = preset {
            self.rule_preset = p.trim().to_string();
        }
        if let Some(o) = options {
            self.rule_options = o.trim().to_string();
        }
        let Some(base) = Variant::builtin(self.variant().game()) else {
            return;
        };
        match self.ruled(&base) {
            Ok(variant) => {
                self.reset(Position::initial(variant));
                self.prepare_player();
            }
            Err(e) => {
                (self.rule_preset, self.rule_options) = old;
                self.send(&[format!("tellusererror rule set refused: {e}")]);
            }
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn output(&self) -> &W {
        &self.out
    }

    pub fn output_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes lines as one message (one flush).
    fn send<S: AsRef<str>>(&mut self, lines: &[S]) {
        let mut text = String::new();
        for l in lines {
            text.push_str(l.as_ref());
            text.push('\n');
        }
        if self
            .out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
            .is_err()
        {
            self.broken = true;
        }
    }

    fn error(&mut self, kind: &str, command: &str) {
        self.send(&[format!("Error ({kind}): {command}")]);
    }

    fn variant(&self) -> Arc<Variant> {
        self.game.position().variant().clone()
    }

    /// Drops the player when `variant` is not the current game's.
    fn set_variant(&mut self, variant: Arc<Variant>) {
        if variant.id() != self.variant().id() {
            self.player = None;
        }
    }

    /// Builds the player of the current game's variant if there is none, and tells its
    /// notice ([`Engine::tell_notices`]).
    fn prepare_player(&mut self) {
        if self.player.is_none() {
            let variant = self.variant();
            let (player, notice) = build_player(
                &mut self.factory,
                &variant,
                self.settings.default_time,
                self.seed,
            );
            self.player = Some(player);
            self.notices
                .extend(notice.map(|n| (variant.id().to_string(), n)));
        }
        self.tell_notices();
    }

    /// Tells the user each notice about the current game's player not told before, one
    /// `telluser` line each, in a message of their own: QBoard shows it in a dialog and
    /// would drop a move sent with it. Sent when a game starts, not with a move; notices of
    /// a variant no longer played are dropped.
    fn tell_notices(&mut self) {
        let notices = std::mem::take(&mut self.notices);
        let current = self.variant();
        let lines: Vec<String> = notices
            .into_iter()
            .filter(|(key, n)| key == current.id() && self.told.insert(n.clone()))
            .map(|(_, n)| format!("telluser {}", n.replace('\n', " ")))
            .collect();
        if !lines.is_empty() {
            self.send(&lines);
        }
    }

    fn reset(&mut self, start: Position) {
        self.set_variant(start.variant().clone());
        self.game = Game::new(start);
        self.relayed.clear();
        self.ended = None;
        self.clock.restart();
        if let Some(o) = self.game.outcome() {
            self.ended = Some(format!(
                "{} {{{}}}",
                o.result_text(),
                o.termination.as_str()
            ));
        }
    }

    /// Handles one line from the GUI.
    pub fn handle(&mut self, line: &str) -> Flow {
        let line = line.trim();
        self.analysis_done = false;
        if line.is_empty() {
            return Flow::Continue;
        }
        tracing::debug!(target: "xboard", "<- {line}");
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        if self.editing {
            match word {
                "." => self.editing = false,
                "quit" => return Flow::Quit,
                _ => {}
            }
            return Flow::Continue;
        }
        match word {
            "quit" => return Flow::Quit,
            "xboard" | "accepted" | "rejected" | "hard" | "easy" | "random" | "computer"
            | "name" | "ics" | "cores" | "memory" | "egtpath" | "otim" | "draw" | "hover"
            | "put" | "bk" | "hint" | "." | "?" | "pause" | "resume" => {}
            "protover" => self.features(),
            "new" => {
                let variant = self.variant();
                self.reset(Position::initial(variant));
                self.engine_side = Some(Color::White);
                self.depth = None;
                self.analyzing.store(false, Ordering::SeqCst);
            }
            "variant" => match variant_by_name(rest) {
                Some(v) => {
                    let variant = self.ruled(&v).unwrap_or_else(|e| {
                        self.send(&[format!(
                            "tellusererror rule set refused for {}: {e}; playing its default rules",
                            v.name()
                        )]);
                        v
                    });
                    self.reset(Position::initial(variant));
                    self.prepare_player();
                }
                None => self.error("unsupported variant", line),
            },
            "force" => self.engine_side = None,
            "go" => {
                self.engine_side = Some(self.game.position().side_to_move());
                self.maybe_move();
            }
            "playother" => {
                self.engine_side = Some(self.game.position().side_to_move().opposite());
            }
            "white" | "black" => self.error("not supported (protocol 1)", line),
            "st" => match parse_seconds(rest) {
                Some(t) if t > Duration::ZERO => self.clock.set_per_move(t),
                _ => self.error("bad time", line),
            },
            "sd" => match rest.parse::<u32>() {
                Ok(d) if d > 0 => self.depth = Some(d),
                _ => self.error("bad depth", line),
            },
            "level" => self.level(line, rest),
            "time" => match parse_centiseconds(rest) {
                Some(t) => self.clock.set_remaining(t),
                None => self.error("bad time", line),
            },
            "ping" => self.send(&[format!("pong {rest}")]),
            "post" => self.post = true,
            "nopost" => self.post = false,
            "result" => {
                if self.ended.is_none() {
                    self.ended = Some(rest.to_string());
                }
            }
            "setboard" => self.setboard(rest),
            "edit" => {
                self.editing = true;
                self.error("not supported", "edit");
            }
            "undo" => self.take_back(1, line),
            "remove" => self.take_back(2, line),
            "analyze" => {
                self.analyzing.store(true, Ordering::SeqCst);
                self.engine_side = None;
            }
            "exit" => self.analyzing.store(false, Ordering::SeqCst),
            "option" => self.option(line, rest),
            "lift" => self.lift(line, rest),
            "usermove" => self.user_move(rest),
            _ if looks_like_move(word) && rest.is_empty() => self.user_move(word),
            _ => self.error("unknown command", line),
        }
        if self.broken {
            return Flow::Quit;
        }
        Flow::Continue
    }

    fn features(&mut self) {
        let lines = [
            "feature done=0".to_string(),
            format!(
                "feature myname=\"{}\" variants=\"daidai,maka\" usermove=1 setboard=1 ping=1 \
                 san=0 time=1 draw=0 sigint=0 sigterm=0 colors=0 reuse=1 analyze=1 \
                 playother=1 highlight=1 debug=1 memory=0 smp=0 exclude=0 setscore=0 \
                 nps=0 pause=0",
                self.settings.name
            ),
            format!(
                "feature option=\"Visits -spin {} 0 100000000\"",
                self.settings.visits.unwrap_or(0)
            ),
            format!(
                "feature option=\"Move time (ms) -spin {} 1 3600000\"",
                self.settings.default_time.as_millis()
            ),
            // RULES.md §8: a preset, and single options on top (docs/rules.md).
            format!(
                "feature option=\"Rules -combo {}\"",
                tengu_rules::ruleset::PRESETS
                    .iter()
                    .map(|p| if p.name == self.rule_preset {
                        format!("*{}", p.name)
                    } else {
                        p.name.to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(" /// ")
            ),
            format!(
                "feature option=\"Rule options -string {}\"",
                self.rule_options
            ),
            "feature done=1".to_string(),
        ];
        self.send(&lines);
    }

    fn level(&mut self, line: &str, rest: &str) {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let parsed = match parts[..] {
            [mps, base, inc] => mps
                .parse::<u32>()
                .ok()
                .zip(parse_base(base))
                .zip(parse_seconds(inc))
                .map(|((m, b), i)| (m, b, i)),
            _ => None,
        };
        match parsed {
            Some((mps, base, inc)) if base + inc > Duration::ZERO => {
                self.clock.set_level(mps, base, inc)
            }
            _ => self.error("bad time control", line),
        }
    }

    fn option(&mut self, line: &str, rest: &str) {
        let Some((name, value)) = rest.split_once('=') else {
            return self.error("bad option", line);
        };
        match name.trim() {
            "Rules" => return self.set_rules(Some(value), None),
            "Rule options" => return self.set_rules(None, Some(value)),
            _ => {}
        }
        let value = value.trim().parse::<u64>();
        match (name.trim(), value) {
            ("Visits", Ok(v)) => {
                self.settings.visits = (v > 0).then_some(v.min(u32::MAX as u64) as u32)
            }
            ("Move time (ms)", Ok(v)) if v > 0 => {
                self.settings.default_time = Duration::from_millis(v);
                self.clock.default = self.settings.default_time;
            }
            _ => self.error("bad option", line),
        }
    }

    fn setboard(&mut self, text: &str) {
        match fen::parse_position(text, &self.variant()) {
            Ok(pos) => {
                self.reset(pos);
                self.prepare_player();
            }
            Err(e) => self.send(&[format!("tellusererror Illegal position: {e}")]),
        }
    }

    fn take_back(&mut self, plies: usize, line: &str) {
        if self.game.len() < plies {
            return self.error("no move to take back", line);
        }
        let moves: Vec<Move> = self.game.moves().collect();
        let mut game = Game::new(self.game.start().clone());
        for &m in &moves[..moves.len() - plies] {
            game.play_unchecked(m);
        }
        self.game = game;
        self.relayed.truncate(self.game.len());
        self.ended = None;
    }

    /// Answers `lift <square>` with the legal targets of its piece: `Y` a quiet move, `R` a
    /// capture, `M` a promotion, `C` the first landing square of a multi-leg move.
    fn lift(&mut self, line: &str, rest: &str) {
        let size = self.game.position().size();
        let Ok(from) = crate::notation::parse_square(rest, size) else {
            return self.error("bad square", line);
        };
        let mut marks = vec![None::<char>; size * size];
        let idx = |s: Square| s.row() * size + s.col();
        // The game's legal moves: no target back to an earlier position under STRICT.
        for m in self.game.legal_move_list() {
            if m.from() != from || m.is_pass() {
                continue;
            }
            let path = crate::notation::move_path(m);
            if path.len() > 2 {
                let first = idx(path[1]);
                marks[first].get_or_insert('C');
            }
            let mark = if m.promotes() {
                'M'
            } else if m.captures_to() {
                'R'
            } else {
                'Y'
            };
            let e = &mut marks[idx(m.to())];
            if e.is_none() || *e == Some('C') || *e == Some('Y') {
                *e = Some(mark);
            }
        }
        let mut fen = String::new();
        for row in 0..size {
            if row > 0 {
                fen.push('/');
            }
            let mut empty = 0;
            for col in 0..size {
                match marks[row * size + col] {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(c);
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
        }
        self.send(&[format!("highlight {fen}")]);
    }

    fn user_move(&mut self, text: &str) {
        if let Some(result) = &self.ended {
            let reason = format!("game over: {result}");
            return self.send(&[format!("Illegal move ({reason}): {text}")]);
        }
        match parse_move(self.game.position(), text) {
            Err(reason) => {
                // Said in the refusal itself: QBoard shows the text of an `Illegal move`
                // line in a dialog and skips any `tellusererror` in the same chunk.
                let line = match crate::relay::promotion_split(&self.game, &self.relayed, text) {
                    Some(split) => format!("Illegal move ({reason}; {}): {text}", split.explain()),
                    None => format!("Illegal move ({reason}): {text}"),
                };
                tracing::warn!("refused the relayed move {text}: {line}");
                self.send(&[line]);
            }
            // Legal in the position, but not in this game (`REPETITION=STRICT`).
            Ok(m) if self.game.strict_repetition() && self.game.repeating_moves(&[m])[0] => {
                let line = format!(
                    "Illegal move (it recreates an earlier position, which REPETITION=STRICT forbids): {text}"
                );
                tracing::warn!("refused the relayed move {text}: {line}");
                self.send(&[line]);
            }
            Ok(m) => {
                if crate::relay::ambiguous_in_relay(m) && !text.ends_with(['+', '=']) {
                    tracing::warn!(
                        "{text}: a multi-step move that may promote came without a mark and \
                         is read as not promoting; QBoard drops the mark of multi-step moves, \
                         so if the GUI shows it promoted, its board and this engine's now differ"
                    );
                }
                self.game.play_unchecked(m);
                self.relayed.push(text.to_string());
                if !self.check_end(true) {
                    self.maybe_move();
                }
            }
        }
    }

    /// After a move: the result line if the game has ended (with `telluser` when the engine
    /// is left without a move, as QBoard reads no result lines). True if it ended.
    fn check_end(&mut self, after_opponent: bool) -> bool {
        let Some(o) = self.game.outcome() else {
            return false;
        };
        let who = match o.winner {
            Some(Color::Black) => "Black (XBoard white) wins",
            Some(Color::White) => "White (XBoard black) wins",
            None => "draw",
        };
        let result = format!(
            "{} {{{} by {}}}",
            o.result_text(),
            who,
            o.termination.as_str()
        );
        let mut lines = vec![result.clone()];
        let engine_to_move = self.engine_side == Some(self.game.position().side_to_move());
        if after_opponent && engine_to_move {
            lines.push(format!(
                "telluser Game over: {} by {}",
                who,
                o.termination.as_str()
            ));
        }
        self.ended = Some(result);
        self.send(&lines);
        true
    }

    /// Whether a queued command will interrupt anything we start now.
    fn interrupted(&self) -> bool {
        self.pending.load(Ordering::SeqCst) > 0
    }

    /// Thinks and plays if it is the engine's turn.
    fn maybe_move(&mut self) {
        if self.ended.is_some()
            || self.analyzing.load(Ordering::SeqCst)
            || self.engine_side != Some(self.game.position().side_to_move())
        {
            return;
        }
        // Fixed visits replace the default budget; a GUI's time control caps them.
        let untimed = self.clock.control == Control::Default && self.settings.visits.is_some();
        let limits = Limits {
            time: (!untimed).then(|| self.clock.budget()),
            visits: self.settings.visits,
            depth: self.depth,
            exclude: Vec::new(),
        };
        let start = Instant::now();
        let Some(result) = self.think(&limits) else {
            return;
        };
        self.clock.after_move(start.elapsed());
        match result {
            Ok(t) => {
                let size = self.game.position().size();
                tracing::debug!(
                    "move {} after {:.3} s (depth {}, {} nodes, score {})",
                    move_text(t.best, size),
                    t.elapsed.as_secs_f64(),
                    t.depth,
                    t.nodes,
                    t.score
                );
                if self.game.play(t.best).is_err() {
                    tracing::error!("the player chose an illegal move; not playing it");
                    return self.error("internal", "the search returned an illegal move");
                }
                self.relayed.push(crate::relay::as_relayed(t.best, size));
                let lines = move_lines(t.best, size);
                self.send(&lines);
                self.check_end(false);
            }
            Err(e) => {
                tracing::error!("search failed: {e}");
                self.error("search failed", &e.to_string());
            }
        }
    }

    /// Runs the player within `limits`, posting thinking lines if asked. `None` if the
    /// search was aborted by a command (or never started because one is waiting).
    fn think(&mut self, limits: &Limits) -> Option<Result<Thought, SearchFailure>> {
        self.stop.clear();
        if self.interrupted() {
            return None;
        }
        self.seed += 1;
        // A client that thinks before choosing a game (never QBoard, which sends `variant`
        // first): the player now, its notice just before the search.
        self.prepare_player();
        let post = self.post || self.analyzing.load(Ordering::SeqCst);
        let size = self.game.position().size();
        let out = &mut self.out;
        let broken = &mut self.broken;
        let mut info = |t: &Thought| {
            if !post {
                return;
            }
            let pv: Vec<String> = t.pv.iter().map(|&m| move_text(m, size)).collect();
            let line = format!(
                "{} {} {} {} {}\n",
                t.depth,
                t.score,
                t.elapsed.as_millis() / 10,
                t.nodes,
                pv.join(" ")
            );
            if out
                .write_all(line.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                *broken = true;
            }
        };
        let result = match self.player.as_mut() {
            Some(player) => player
                .think(&self.game, limits, &self.stop, &mut info)
                .map_err(SearchFailure::from),
            None => Err(SearchFailure::NoPlayer),
        };
        if self.stop.reason() == Some(StopReason::Abort) {
            return None;
        }
        Some(result)
    }

    /// Whether the run loop should analyse while no input waits.
    pub fn wants_analysis(&self) -> bool {
        self.analyzing.load(Ordering::SeqCst) && !self.analysis_done && self.ended.is_none()
    }

    /// One analysis search, until stopped by input (or its own end).
    pub fn analyze(&mut self) {
        let limits = Limits {
            depth: Some(self.depth.unwrap_or(64)),
            visits: Some(1_000_000),
            ..Limits::default()
        };
        let aborted = self.think(&limits).is_none();
        self.analysis_done = !aborted;
    }
}

/// Runs the engine on `input` until `quit` or the end of input. A thread reads the input so
/// that `?` (move now) and the interrupting commands reach a running search.
pub fn run<R, W>(input: R, mut engine: Engine<W>) -> std::io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::channel::<(String, bool)>();
    let stop = engine.stop.clone();
    let pending = engine.pending.clone();
    let analyzing = engine.analyzing.clone();
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else { break };
            let t = line.trim();
            let interrupting = interrupts(t, analyzing.load(Ordering::SeqCst));
            if interrupting {
                pending.fetch_add(1, Ordering::SeqCst);
                stop.request(StopReason::Abort);
            } else if t == "?" {
                stop.request(StopReason::MoveNow);
            }
            if tx.send((line, interrupting)).is_err() {
                return;
            }
        }
        // End of input: the GUI is gone.
        pending.fetch_add(1, Ordering::SeqCst);
        stop.request(StopReason::Abort);
        let _ = tx.send(("quit".into(), true));
    });
    loop {
        let (line, interrupting) = if engine.wants_analysis() {
            match rx.try_recv() {
                Ok(item) => item,
                Err(mpsc::TryRecvError::Empty) => {
                    engine.analyze();
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(item) => item,
                Err(_) => break,
            }
        };
        if interrupting {
            engine.pending.fetch_sub(1, Ordering::SeqCst);
        }
        if engine.handle(&line) == Flow::Quit {
            break;
        }
    }
    Ok(())
}
