//! What `tengu analyze` writes: one JSON object a line, an [`Analysis`] of one ply of a
//! query, an [`ErrorReply`] naming the field at fault, or a [`Terminated`] acknowledgement.
//!
//! Values are in [-1, 1] (win minus loss, with the search's utilities) from the view of the
//! side to move at the analysed ply; material in piece units
//! (`tengu_rules::values::piece_values`).

use serde::Serialize;
use tengu_model::Evaluation;
use tengu_rules::{Color, Game, Move, Position};
use tengu_search::tree::Tree;

use super::query::{QueryError, QueryId, Report};

/// Why a ply's search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopCause {
    /// Its root reached the visits asked for.
    Visits,
    /// Its time (`max_ms`) ran out.
    Time,
    /// The game is over at the ply: nothing to search.
    GameOver,
}

/// The analysis of one ply of a query.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub id: String,
    /// The analysed position: after the first `ply` moves of the query's line.
    pub ply: u32,
    /// The game key (a game id, or a rule set's canonical text).
    pub game: String,
    /// `black` or `white`: the side whose view every value takes.
    pub side_to_move: &'static str,
    /// Root visits, the root's own evaluation included: the candidates' visits add up to
    /// `visits - 1`.
    pub visits: u32,
    /// Milliseconds from the search's start to its end (shared with the other searches of
    /// the batch).
    pub time_ms: u64,
    pub stopped: StopCause,
    /// The search's root value (the mean of its visits), the side to move's view, [-1, 1].
    pub value: f32,
    /// The network's own evaluation of the position (absent when the game is over).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkView>,
    /// The move the search plays here (`tengu match` and `tengu play` would).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
    /// The principal variation from `best`: each next move the most visited.
    pub pv: Vec<String>,
    /// The visited moves, most visits first (ties: higher prior first), at most
    /// `max_moves`. Under a PUCT root the first is `best`; a Gumbel root plays its best
    /// remaining candidate, which may have fewer visits.
    pub moves: Vec<Candidate>,
    /// Legal moves at the ply.
    pub legal_moves: usize,
    pub material: Material,
    pub exchange: Exchange,
    /// The game's result where it is over at the ply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeView>,
    /// With `include_policy`: the network's prior over every legal move, most probable
    /// first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<Vec<PolicyEntry>>,
}

/// The network's evaluation of the analysed position, the side to move's view.
#[derive(Clone, Debug, Serialize)]
pub struct NetworkView {
    /// Win minus loss, [-1, 1].
    pub value: f32,
    /// Win, draw, loss probabilities.
    pub wdl: [f32; 3],
    /// The material head: predicted balance 16 plies later as tanh(balance / scale).
    pub material: f32,
}

/// A root move of the search.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// Coordinate notation (docs/rules/notation.md, §12.3).
    #[serde(rename = "move")]
    pub mv: String,
    pub visits: u32,
    /// The network's probability of the move, over the legal moves.
    pub prior: f32,
    /// The mean value of the move's visits (Q), the analysed side to move's view, [-1, 1].
    pub value: f32,
    /// The move, then each next move the most visited, at most `pv_plies`.
    pub pv: Vec<String>,
}

/// Material on the board (royals excluded), piece units.
#[derive(Clone, Debug, Serialize)]
pub struct Material {
    pub black: f32,
    pub white: f32,
    /// The side to move's material minus the other side's.
    pub balance: f32,
}

/// What the side to move wins by captures alone (the search's capture-only exchange
/// search, `tengu_search::exchange`, to `search.exchange_depth` captures).
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    /// Material won, piece units, >= 0.
    pub gain: f32,
    /// The capture that starts the best exchange (none when no capture wins material).
    pub capture: Option<String>,
    /// `balance + gain`: the material count the search's `leaf_material = "exchange"`
    /// gives the position.
    pub count: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct OutcomeView {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// `checkmate`, `repetition`, ...
    pub termination: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct PolicyEntry {
    #[serde(rename = "move")]
    pub mv: String,
    pub prior: f32,
}

/// A refused line, or a query that failed: `field` names the field at fault.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorReply {
    /// The query's id (null when the line has none that can be read).
    pub id: Option<String>,
    /// The ply whose search failed (a failed evaluation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ErrorReply {
    pub fn refused(id: Option<&QueryId>, error: &QueryError) -> ErrorReply {
        ErrorReply {
            id: id.map(|i| i.0.clone()),
            ply: None,
            error: error.to_string(),
            field: error.field().map(str::to_string),
        }
    }
}

/// The answer to `terminate` / `terminate_all`.
#[derive(Clone, Debug, Serialize)]
pub struct Terminated {
    /// The query stopped (`terminate`); absent for `terminate_all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `terminate` or `terminate_all`.
    pub action: &'static str,
    /// The queries that were in flight, each with its plies left unanswered.
    pub terminated: Vec<TerminatedQuery>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TerminatedQuery {
    pub id: String,
    /// Plies that will not be answered, ascending.
    pub plies: Vec<u32>,
}

/// One line of output.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Analysis(Box<Analysis>),
    Error(ErrorReply),
    Terminated(Terminated),
}

fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// What an analysis says of its position whatever the search found: game, side, legal
/// moves, material, exchange.
pub struct Setting<'a> {
    pub id: &'a QueryId,
    pub ply: u32,
    pub game: &'a Game,
    /// Piece values of the game (piece units).
    pub values: &'a [f32],
    /// Captures the exchange search may chain.
    pub exchange_depth: u32,
}

impl Setting<'_> {
    fn material(&self) -> (Material, Exchange) {
        let pos = self.game.position();
        let m = tengu_rules::values::material(pos, self.values);
        let me = pos.side_to_move();
        let balance = m[me.index()] - m[me.opposite().index()];
        let best = tengu_search::exchange::best_capture(pos, self.values, self.exchange_depth);
        let gain = best.map_or(0.0, |(_, won)| won);
        (
            Material {
                black: m[Color::Black.index()],
                white: m[Color::White.index()],
                balance,
            },
            Exchange {
                gain,
                capture: best.map(|(mv, _)| pos.move_text(mv)),
                count: balance + gain,
            },
        )
    }

    /// The analysis of a ply where the game is over: its exact value, no search.
    pub fn game_over(&self, value: f32) -> Analysis {
        let (material, exchange) = self.material();
        Analysis {
            id: self.id.0.clone(),
            ply: self.ply,
            game: self.game.position().variant().id().to_string(),
            side_to_move: side(self.game.position().side_to_move()),
            visits: 0,
            time_ms: 0,
            stopped: StopCause::GameOver,
            value,
            network: None,
            best: None,
            pv: Vec::new(),
            moves: Vec::new(),
            legal_moves: 0,
            material,
            exchange,
            outcome: self.game.outcome().map(|o| OutcomeView {
                result: o.result_text(),
                termination: o.termination.as_str(),
            }),
            policy: None,
        }
    }

    /// The analysis of a finished search: `tree` (its root evaluated), the network's root
    /// evaluation `raw` over `legal` (every legal move), `best` the edge the search plays.
    #[allow(clippy::too_many_arguments)]
    pub fn searched(
        &self,
        tree: &Tree,
        raw: &Evaluation,
        legal: &[Move],
        best: usize,
        report: &Report,
        stopped: StopCause,
        time_ms: u64,
    ) -> Analysis {
        let pos = self.game.position();
        let root = tree.root().expect("an evaluated root");
        let text = |m: Move| pos.move_text(m);
        let mut edges: Vec<usize> = (0..root.moves.len())
            .filter(|&e| root.visits[e] > 0)
            .collect();
        // As the search chooses its move (`Tree::choose_move`): among equal visits and
        // priors the later move, so that under PUCT the first candidate is `best`.
        edges.sort_by(|&a, &b| {
            root.visits[b]
                .cmp(&root.visits[a])
                .then(root.prior[b].total_cmp(&root.prior[a]))
                .then(b.cmp(&a))
        });
        let moves = edges
            .iter()
            .take(report.max_moves)
            .map(|&e| Candidate {
                mv: text(root.moves[e]),
                visits: root.visits[e],
                prior: root.prior[e],
                value: root.q(e).unwrap_or(0.0),
                pv: principal_variation(tree, e, report.pv_plies, pos),
            })
            .collect();
        let policy = report.policy.then(|| {
            let mut entries: Vec<PolicyEntry> = legal
                .iter()
                .zip(&raw.policy)
                .map(|(&m, &p)| PolicyEntry {
                    mv: text(m),
                    prior: p,
                })
                .collect();
            entries.sort_by(|a, b| b.prior.total_cmp(&a.prior));
            entries
        });
        let (material, exchange) = self.material();
        Analysis {
            id: self.id.0.clone(),
            ply: self.ply,
            game: pos.variant().id().to_string(),
            side_to_move: side(pos.side_to_move()),
            visits: root.total,
            time_ms,
            stopped,
            value: root.mean_value(),
            network: Some(NetworkView {
                value: raw.value(),
                wdl: raw.wdl,
                material: raw.material,
            }),
            best: Some(text(root.moves[best])),
            pv: principal_variation(tree, best, report.pv_plies, pos),
            moves,
            legal_moves: legal.len(),
            material,
            exchange,
            outcome: None,
            policy,
        }
    }
}

/// Root edge `edge`'s line ([`Tree::principal_variation`]), at most `plies` moves, as move
/// texts (they depend only on the board size, the same all along the line).
fn principal_variation(tree: &Tree, edge: usize, plies: usize, pos: &Position) -> Vec<String> {
    tree.principal_variation(edge, plies)
        .into_iter()
        .map(|m| pos.move_text(m))
        .collect()
}
