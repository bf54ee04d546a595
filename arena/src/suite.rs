//! The tactics suite: a fixed, versioned set of positions with a clearly best move, to
//! measure in seconds what a network has learnt (raw-policy top-1 / top-3, value sign).
//!
//! Positions come from games of the random and greedy players (plies 20..280). Each is
//! labelled by a capture search three plies deep on fixed piece values
//! ([`tengu_rules::values::piece_values`]): every legal move, then the opponent's best
//! capture or a quiet reply, then our best capture or a quiet move. A position is kept when
//! its best move beats the second best by at least [`MARGIN`] piece units, and is put in a
//! category: `mate` (the move captures the last royal or leaves the opponent without a
//! legal move), `capture` (a capture that wins material), `save` (a quiet move that keeps a
//! piece the other moves lose). Labels are for evaluation only, never training targets.
//!
//! File: JSON lines. The first line is the header
//! `{"suite": "tengu-tactics", "version": 1, "game": ..., "seed": ..., "count": ...}`, then
//! one position per line: `{"position", "best", "category", "margin", "eval"}` (`eval`: the
//! mover's material balance after the best line, in piece units).

use std::path::Path;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use tengu_model::{EvalError, EvalInput, Evaluator};
use tengu_rules::values::{material, piece_values};
use tengu_rules::{Game, Move, MoveRefused, ParseError, Position, Variant};
use tengu_search::exchange::gain;
use tengu_search::players::{GreedyPlayer, Player, PlayerError, RandomPlayer};
use tengu_search::SearchConfig;

/// Format version of suite files.
pub const SUITE_VERSION: u32 = 1;
/// Piece units by which the best move must beat the second best.
pub const MARGIN: f32 = 1.0;
/// Score of a move that wins the game outright.
const WIN: f32 = 1000.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteHeader {
    pub suite: String,
    pub version: u32,
    pub game: String,
    pub seed: u64,
    pub count: usize,
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteEntry {
    /// The position (RULES.md §12.2).
    pub position: String,
    /// The clearly best move (§12.3).
    pub best: String,
    /// `mate`, `capture` or `save`.
    pub category: String,
    /// Piece units by which `best` beats the second-best move.
    pub margin: f32,
    /// The mover's material balance after the best line, in piece units (royals excluded).
    pub eval: f32,
}

/// The shipped suite of `game`: `suites/<game>.jsonl` in the current directory if it is
/// there, else in the source tree this program was built from.
pub fn default_path(game: &str) -> std::path::PathBuf {
    let name = format!("suites/{game}.jsonl");
    let here = std::path::PathBuf::from(&name);
    if here.exists() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

/// A suite read from a file.
#[derive(Clone, Debug)]
pub struct Suite {
    pub header: SuiteHeader,
    pub entries: Vec<SuiteEntry>,
}

/// Scores of every legal move of `pos` by the three-ply capture search (mover's view,
/// piece units), in `moves` order.
fn score_moves(pos: &Position, moves: &[Move], values: &[f32]) -> Vec<f32> {
    let mut scores = Vec::with_capacity(moves.len());
    let mut work = pos.clone();
    let mut replies = Vec::new();
    let mut answers = Vec::new();
    for &m in moves {
        let first = gain(&work, values, m).min(WIN);
        let undo = work.play(m);
        replies.clear();
        work.legal_moves(&mut replies);
        let score = if first >= WIN || replies.is_empty() {
            WIN
        } else {
            // The opponent's best: a quiet reply (0) or a capture we may answer.
            let mut worst = 0.0f32;
            for &r in replies.iter().filter(|r| r.is_capture()) {
                let taken = gain(&work, values, r).min(WIN);
                if taken >= WIN {
                    worst = WIN;
                    break;
                }
                let undo2 = work.play(r);
                answers.clear();
                work.legal_moves(&mut answers);
                let back = if answers.is_empty() {
                    -WIN
                } else {
                    answers
                        .iter()
                        .map(|&a| gain(&work, values, a).min(WIN))
                        .fold(0.0f32, f32::max)
                };
                work.unplay(r, undo2);
                worst = worst.max(taken - back);
            }
            first - worst
        };
        work.unplay(m, undo);
        scores.push(score);
    }
    scores
}

/// Labels `pos` if it has a clearly best move.
pub fn label(pos: &Position, values: &[f32]) -> Option<SuiteEntry> {
    let moves = pos.legal_move_list();
    if moves.len() < 2 {
        return None;
    }
    let scores = score_moves(pos, &moves, values);
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let (best, second) = (order[0], order[1]);
    let margin = scores[best] - scores[second];
    if margin < MARGIN {
        return None;
    }
    let m = moves[best];
    let category = if scores[best] >= WIN {
        "mate"
    } else if m.is_capture() && scores[best] >= MARGIN {
        "capture"
    } else if !m.is_capture() {
        "save"
    } else {
        return None;
    };
    let me = pos.side_to_move();
    let balance = material(pos, values);
    let eval = balance[me.index()] - balance[me.opposite().index()] + scores[best].min(WIN);
    Some(SuiteEntry {
        position: pos.to_string(),
        best: pos.move_text(m),
        category: category.into(),
        margin: margin.min(WIN),
        eval,
    })
}

/// Builds a suite of `count` positions from games of the random and greedy players.
/// `on_progress(found)` is called after each labelled position.
pub fn generate(
    variant: &Arc<Variant>,
    count: usize,
    seed: u64,
    on_progress: &mut dyn FnMut(usize),
) -> Result<Suite, SuiteError> {
    let values = piece_values(variant);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut entries = Vec::with_capacity(count);
    let mut seen = std::collections::HashSet::new();
    let mut per_category = std::collections::HashMap::<String, usize>::new();
    // No category may fill more than half of the suite, so mates and saves are not
    // crowded out by the many easy captures.
    let cap = count.div_ceil(2);
    let mut games = 0u64;
    while entries.len() < count {
        games += 1;
        if games > 100 * count as u64 + 100 {
            return Err(SuiteError::Exhausted {
                found: entries.len(),
                games,
            });
        }
        // Random against random, or greedy against random (more material swings).
        let mut players: [Box<dyn Player>; 2] = [
            Box::new(RandomPlayer::new(rng.gen())),
            if rng.gen_bool(0.5) {
                Box::new(GreedyPlayer::new(variant, rng.gen()))
            } else {
                Box::new(RandomPlayer::new(rng.gen()))
            },
        ];
        let mut game = Game::new(Position::initial(variant.clone()));
        let mut next_sample = rng.gen_range(20..40u32);
        for ply in 0..280u32 {
            if game.outcome().is_some() {
                break;
            }
            if ply == next_sample {
                next_sample += rng.gen_range(10..30);
                let pos = game.position();
                if seen.insert(pos.key()) {
                    if let Some(entry) = label(pos, &values) {
                        let n = per_category.entry(entry.category.clone()).or_default();
                        if *n < cap {
                            *n += 1;
                            entries.push(entry);
                            on_progress(entries.len());
                            if entries.len() == count {
                                break;
                            }
                        }
                    }
                }
            }
            let m = players[ply as usize % 2].choose(&game)?;
            game.play(m)?;
        }
    }
    Ok(Suite {
        header: SuiteHeader {
            suite: "tengu-tactics".into(),
            version: SUITE_VERSION,
            game: variant.id().into(),
            seed,
            count: entries.len(),
        },
        entries,
    })
}

impl Suite {
    /// The suite as JSON lines (header first).
    pub fn to_text(&self) -> String {
        let mut out = serde_json::to_string(&self.header).expect("header serialises");
        out.push('\n');
        for e in &self.entries {
            out.push_str(&serde_json::to_string(e).expect("entry serialises"));
            out.push('\n');
        }
        out
    }

    /// Parses suite text; `origin` (a file name) starts every message.
    pub fn parse(text: &str, origin: &str) -> Result<Suite, SuiteError> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, first) = lines.next().ok_or_else(|| SuiteError::Empty {
            origin: origin.into(),
        })?;
        let header: SuiteHeader =
            serde_json::from_str(first).map_err(|source| SuiteError::Header {
                origin: origin.into(),
                source,
            })?;
        if header.suite != "tengu-tactics" {
            return Err(SuiteError::NotTactics {
                origin: origin.into(),
                kind: header.suite,
            });
        }
        if header.version != SUITE_VERSION {
            return Err(SuiteError::Version {
                origin: origin.into(),
                found: header.version,
                expected: SUITE_VERSION,
            });
        }
        let entries = lines
            .map(|(i, l)| {
                serde_json::from_str::<SuiteEntry>(l).map_err(|source| SuiteError::Entry {
                    origin: origin.into(),
                    line: i + 1,
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if entries.len() != header.count {
            return Err(SuiteError::Count {
                origin: origin.into(),
                promised: header.count,
                found: entries.len(),
            });
        }
        Ok(Suite { header, entries })
    }

    pub fn read(path: &Path) -> Result<Suite, SuiteError> {
        let text = std::fs::read_to_string(path).map_err(|source| SuiteError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Suite::parse(&text, &path.display().to_string())
    }
}

/// What a network scores on a suite (shares in [0, 1]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SuiteScore {
    pub positions: usize,
    /// The network's most probable move is the labelled best move.
    pub top1: f64,
    /// The best move is among the network's three most probable moves.
    pub top3: f64,
    /// Positions with |eval| >= 1 where the sign of the network's value (win - loss)
    /// agrees with the sign of the labelled eval, as a balanced share (the mean of the
    /// shares on positive and on negative evals, so a constant value scores 0.5), and how
    /// many such positions there are.
    pub value_sign: f64,
    pub value_positions: usize,
    /// top-1 per category.
    pub top1_by_category: std::collections::BTreeMap<String, f64>,
}

/// Why a suite could not be made, read or scored (`origin`: the file, or what stands for it;
/// `index`: a suite position, 1-based).
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("found only {found} labelled positions in {games} games")]
    Exhausted { found: usize, games: u64 },
    /// A player of the generating games offered no move.
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error(transparent)]
    Move(#[from] MoveRefused),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{origin}: empty, not a suite")]
    Empty { origin: String },
    #[error("{origin}:1: not a suite header: {source}")]
    Header {
        origin: String,
        source: serde_json::Error,
    },
    /// `kind`: the header's `suite`.
    #[error("{origin}:1: a {kind:?} file, not a tengu-tactics suite")]
    NotTactics { origin: String, kind: String },
    #[error("{origin}: suite version {found}, this build reads version {expected}")]
    Version {
        origin: String,
        found: u32,
        expected: u32,
    },
    /// `line`: 1-based.
    #[error("{origin}:{line}: {source}")]
    Entry {
        origin: String,
        line: usize,
        source: serde_json::Error,
    },
    #[error("{origin}: the header promises {promised} positions, the file has {found}")]
    Count {
        origin: String,
        promised: usize,
        found: usize,
    },
    /// `suite` and `network`: game ids.
    #[error("a {suite} suite cannot measure a {network} network")]
    WrongGame { suite: String, network: String },
    #[error("suite position {index}: {source}")]
    Position { index: usize, source: ParseError },
    #[error("suite position {index}: best move {text}: {source}")]
    BestMove {
        index: usize,
        text: String,
        source: ParseError,
    },
    #[error("suite position {index}: {text} is not legal")]
    IllegalBest { index: usize, text: String },
    #[error("suite position {index}: the game is over")]
    GameOver { index: usize },
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// A suite position parsed for its game.
struct Decoded<'a> {
    entry: &'a SuiteEntry,
    position: Position,
    /// Its legal moves, and the index of the labelled best move among them.
    moves: Vec<Move>,
    best: usize,
}

/// The first `limit` positions of `suite` parsed for `variant`.
fn decode<'a>(
    suite: &'a Suite,
    variant: &Arc<Variant>,
    limit: usize,
) -> Result<Vec<Decoded<'a>>, SuiteError> {
    if suite.header.game != variant.id() {
        return Err(SuiteError::WrongGame {
            suite: suite.header.game.clone(),
            network: variant.id().into(),
        });
    }
    let mut decoded = Vec::with_capacity(suite.entries.len());
    for (i, e) in suite.entries.iter().take(limit).enumerate() {
        let index = i + 1;
        let pos = Position::parse_for(variant.clone(), &e.position)
            .map_err(|source| SuiteError::Position { index, source })?;
        let best = pos
            .parse_move(&e.best)
            .map_err(|source| SuiteError::BestMove {
                index,
                text: e.best.clone(),
                source,
            })?;
        let moves = pos.legal_move_list();
        let k = moves
            .iter()
            .position(|&m| m == best)
            .ok_or_else(|| SuiteError::IllegalBest {
                index,
                text: e.best.clone(),
            })?;
        decoded.push(Decoded {
            entry: e,
            position: pos,
            moves,
            best: k,
        });
    }
    Ok(decoded)
}

/// Top-1 of a search of `visits` root visits on the first `limit` positions of `suite`
/// (one evaluation at a time, no noise): how good a teacher self-play's search is. Top-3
/// counts the best move among the three most visited; value sign uses the root value.
pub fn search_score(
    suite: &Suite,
    variant: &Arc<Variant>,
    eval: &mut dyn Evaluator,
    config: &SearchConfig,
    visits: u32,
    limit: usize,
) -> Result<SuiteScore, SuiteError> {
    let decoded = decode(suite, variant, limit)?;
    let mut tally = Tally::default();
    for (i, d) in decoded.iter().enumerate() {
        let game = Game::new(d.position.clone());
        let result =
            tengu_search::search::search_game(&game, eval, config, visits, u32::MAX, i as u64)?
                .ok_or(SuiteError::GameOver { index: i + 1 })?;
        let best = d.moves[d.best];
        // Moves left out of the policy target have weight 0.
        let weight = |m: Move| {
            result
                .policy
                .iter()
                .find(|(x, _)| *x == m)
                .map_or(0.0, |(_, w)| *w)
        };
        let w_best = weight(best);
        let better = result.policy.iter().filter(|(_, w)| *w > w_best).count();
        tally.add(d.entry, result.best == best, better < 3, result.value);
    }
    Ok(tally.finish(decoded.len()))
}

/// Running counts of a suite score.
#[derive(Default)]
struct Tally {
    top1: usize,
    top3: usize,
    /// Agreeing and all positions with a positive, and with a negative eval.
    sign: [[usize; 2]; 2],
    by_cat: std::collections::BTreeMap<String, (usize, usize)>,
}

impl Tally {
    /// One position: top-1 and top-3 hits and the value (win - loss) given to it.
    fn add(&mut self, entry: &SuiteEntry, hit: bool, top3: bool, value: f32) {
        self.top1 += hit as usize;
        self.top3 += top3 as usize;
        let c = self.by_cat.entry(entry.category.clone()).or_default();
        c.0 += hit as usize;
        c.1 += 1;
        if entry.eval.abs() >= 1.0 {
            let class = (entry.eval < 0.0) as usize;
            self.sign[class][0] += ((value > 0.0) == (entry.eval > 0.0)) as usize;
            self.sign[class][1] += 1;
        }
    }

    fn finish(self, positions: usize) -> SuiteScore {
        let share = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let classes: Vec<f64> = self
            .sign
            .iter()
            .filter(|c| c[1] > 0)
            .map(|c| share(c[0], c[1]))
            .collect();
        SuiteScore {
            positions,
            top1: share(self.top1, positions),
            top3: share(self.top3, positions),
            value_sign: classes.iter().sum::<f64>() / classes.len().max(1) as f64,
            value_positions: self.sign[0][1] + self.sign[1][1],
            top1_by_category: self
                .by_cat
                .into_iter()
                .map(|(k, (h, n))| (k, share(h, n)))
                .collect(),
        }
    }
}

/// Evaluates `eval` on every position of `suite` (batches of 64).
pub fn score(
    suite: &Suite,
    variant: &Arc<Variant>,
    eval: &mut dyn Evaluator,
) -> Result<SuiteScore, SuiteError> {
    let decoded = decode(suite, variant, usize::MAX)?;
    let mut tally = Tally::default();
    for chunk in decoded.chunks(64) {
        let inputs: Vec<EvalInput> = chunk
            .iter()
            .map(|d| EvalInput {
                position: &d.position,
                moves: &d.moves,
                repetitions: 0,
            })
            .collect();
        let outs = eval.evaluate(&inputs)?;
        for (d, out) in chunk.iter().zip(&outs) {
            let p = out.policy[d.best];
            let better = out.policy.iter().filter(|&&x| x > p).count();
            tally.add(d.entry, better == 0, better < 3, out.value());
        }
    }
    Ok(tally.finish(decoded.len()))
}
