//! A match between two players: paired openings (each played with both colours: games
//! `2k` and `2k + 1` form pair `k`), random or from an openings file, a ply cap adjudicated
//! as a draw, game records, results appended to `results.jsonl` so an interrupted match
//! continues where it stopped, and an optional SPRT early stop.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use tengu_rules::values::material;
use tengu_rules::{
    Color, EndPolicy, Game, GameEnd, MoveRefused, Opening, Position, Record, Variant,
};
use tengu_search::players::{Player, PlayerError};

use crate::elo::{Score, Sprt, SprtDecision};
use crate::pairs::Pentanomial;

pub struct MatchOptions {
    pub variant: Arc<Variant>,
    /// Games to play (rounded up to pairs).
    pub games: u64,
    /// Random plies of each opening (then both colours play it); unused with `openings`.
    pub opening_plies: u32,
    /// Openings from a file (`tengu match --openings`): pair `k` starts from opening `k mod n`,
    /// in file order. None: `opening_plies` random plies.
    pub openings: Option<Arc<Vec<Opening>>>,
    /// When a game the rules have not ended stops: the safety cap and any material
    /// adjudication (`EndPolicy::TO_THE_END`: played out, a 4,000-ply cap drawn).
    pub end: EndPolicy,
    pub seed: u64,
    /// Directory for `results.jsonl` and `games/`; None keeps nothing.
    pub out: Option<PathBuf>,
    pub sprt: Option<Sprt>,
}

/// One finished game, from player A's view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    pub index: u64,
    pub a: String,
    pub b: String,
    pub a_is_black: bool,
    /// 1 A won, 0 draw, -1 A lost.
    pub result: i8,
    pub plies: u32,
    /// How the game ended (its text in `results.jsonl`, as before the type).
    pub termination: GameEnd,
    /// A's share of both sides' material (royals left out) when the game ended: 0.5 even,
    /// 0.6 the 1.5x adjudication ratio. A continuous margin: most capped games are draws.
    #[serde(default = "even")]
    pub material_share: f32,
    /// The opening of the game's pair when they come from a file: its index in file order
    /// (0-based). Absent for random openings (and in results written before openings files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<u64>,
    /// Which set of openings the match played ([`starts_id`]): a rerun continues only the
    /// games of the same set. Absent in results written before it was recorded (those
    /// played random openings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts: Option<String>,
}

impl GameResult {
    /// Whether the game reached the ply cap (drawn there, or adjudicated on material).
    pub fn capped(&self) -> bool {
        self.termination.capped()
    }
}

/// The identity of a match's openings: `random:<plies>:<seed>`, or `file:<hash>` of the
/// openings' moves (so the same openings in another file, or comments changed, still
/// continue the match).
pub fn starts_id(options: &MatchOptions) -> String {
    match options.openings.as_deref() {
        None => format!("random:{}:{}", options.opening_plies, options.seed),
        Some(list) => {
            let bits = list
                .iter()
                .flat_map(|o| o.moves.iter().map(|m| m.to_bits()).chain([u64::MAX]));
            let h = tengu_rules::hash::fnv1a(bits.flat_map(u64::to_le_bytes));
            format!("file:{h:016x}:{}", list.len())
        }
    }
}

fn even() -> f32 {
    0.5
}

#[derive(Clone, Debug)]
pub struct MatchSummary {
    pub score: Score,
    pub results: Vec<GameResult>,
    pub sprt: Option<SprtDecision>,
}

impl MatchSummary {
    /// Game-pair (pentanomial) statistics of the finished pairs; a game whose partner was
    /// not played counts as unpaired.
    pub fn pairs(&self) -> Pentanomial {
        Pentanomial::from_games(self.results.iter().map(|r| (r.index, r.result)))
    }

    /// How the games ended ([`endings`]).
    pub fn endings(&self) -> Vec<EndingCount> {
        endings(&self.results)
    }

    /// Mean of A's end-of-game material share over the games and its standard error.
    pub fn material_share(&self) -> (f64, f64) {
        let n = self.results.len() as f64;
        if n == 0.0 {
            return (0.5, 0.0);
        }
        let mean = self
            .results
            .iter()
            .map(|r| r.material_share as f64)
            .sum::<f64>()
            / n;
        let var = self
            .results
            .iter()
            .map(|r| (r.material_share as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0).max(1.0);
        (mean, (var / n).sqrt())
    }
}

/// The games of a match that ended one way ([`MatchSummary::endings`]): how many, A's
/// results among them, and their lengths in plies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndingCount {
    pub end: GameEnd,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub plies_min: u32,
    pub plies_median: u32,
    pub plies_max: u32,
}

impl std::fmt::Display for EndingCount {
    /// `checkmate 8 (+5 =0 -3, plies 599 .. 1210 .. 2143)`: min, median, max.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} (+{} ={} -{}, plies {} .. {} .. {})",
            self.end,
            self.games,
            self.wins,
            self.draws,
            self.losses,
            self.plies_min,
            self.plies_median,
            self.plies_max
        )
    }
}

/// How `results` ended: one row per end that occurred, in [`GameEnd::all`]'s order.
pub fn endings(results: &[GameResult]) -> Vec<EndingCount> {
    GameEnd::all()
        .filter_map(|end| {
            let games: Vec<&GameResult> = results.iter().filter(|r| r.termination == end).collect();
            let mut plies: Vec<u32> = games.iter().map(|r| r.plies).collect();
            plies.sort_unstable();
            let count = |x: i8| games.iter().filter(|r| r.result == x).count() as u64;
            (!games.is_empty()).then(|| EndingCount {
                end,
                games: games.len() as u64,
                wins: count(1),
                draws: count(0),
                losses: count(-1),
                plies_min: plies[0],
                plies_median: plies[plies.len() / 2],
                plies_max: plies[plies.len() - 1],
            })
        })
        .collect()
}

/// `color`'s share of both sides' material in `pos` (0.5 when neither has any).
pub fn material_share(pos: &Position, values: &[f32], color: Color) -> f32 {
    let m = material(pos, values);
    let total = m[0] + m[1];
    if total <= 0.0 {
        0.5
    } else {
        m[color.index()] / total
    }
}

/// The start of pair `k` and, with an openings file, the index of its opening: opening
/// `k mod n` of the file, else `opening_plies` random legal moves from the initial position.
fn pair_start(options: &MatchOptions, k: u64) -> (Game, Option<u64>) {
    match options.openings.as_deref() {
        Some(list) if !list.is_empty() => {
            let i = k % list.len() as u64;
            (list[i as usize].game(&options.variant), Some(i))
        }
        _ => (
            opening(&options.variant, options.seed, k, options.opening_plies),
            None,
        ),
    }
}

/// The opening of pair `k`: `plies` random legal moves from the initial position.
fn opening(variant: &Arc<Variant>, seed: u64, k: u64, plies: u32) -> Game {
    let mut rng = SmallRng::seed_from_u64(seed ^ k.wrapping_mul(0xA076_1D64_78BD_642F));
    let mut game = Game::new(Position::initial(variant.clone()));
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        // The game's legal moves: under REPETITION=STRICT no move back to an earlier position.
        let moves = game.legal_move_list();
        game.play_unchecked(moves[rng.gen_range(0..moves.len())]);
    }
    game
}

/// Why a match (or a tournament) stopped.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A player offered no move.
    #[error(transparent)]
    Player(#[from] PlayerError),
    /// The game refused a player's move.
    #[error(transparent)]
    Move(#[from] MoveRefused),
    /// A file or directory of the match's output (`path`).
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Appending a result to `results.jsonl`.
    #[error("{0}")]
    Log(#[source] std::io::Error),
}

/// [`MatchError::Io`] of `path`.
pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> MatchError {
    MatchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn play_game(
    a: &mut dyn Player,
    b: &mut dyn Player,
    mut game: Game,
    a_is_black: bool,
    options: &MatchOptions,
    values: &[f32],
) -> Result<(Game, i8, GameEnd), MatchError> {
    let a_color = if a_is_black {
        Color::Black
    } else {
        Color::White
    };
    loop {
        if let Some(ending) = options.end.judge(&game, values) {
            return Ok((game, ending.score_of(a_color), ending.end));
        }
        let m = if game.position().side_to_move() == a_color {
            a.choose(&game)?
        } else {
            b.choose(&game)?
        };
        game.play(m)?;
    }
}

/// Earlier results of the same two players on the same openings (`starts`; results without
/// a record of their openings count as random openings).
fn read_previous(path: &PathBuf, a: &str, b: &str, starts: &str) -> Vec<GameResult> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<GameResult>(l).ok())
        .filter(|r| r.a == a && r.b == b)
        .filter(|r| match &r.starts {
            Some(s) => s == starts,
            None => starts.starts_with("random:"),
        })
        .collect()
}

/// Plays the match; `on_game` sees each result and the running score.
pub fn run(
    a: &mut dyn Player,
    b: &mut dyn Player,
    options: &MatchOptions,
    on_game: &mut dyn FnMut(&GameResult, &Score),
) -> Result<MatchSummary, MatchError> {
    run_parallel(vec![(a, b)], options, on_game)
}

/// Plays the match with one game at a time per pair of players (each pair in its own
/// thread; all pairs must be the same two players). Results are recorded in index order of
/// completion; an SPRT decision stops the remaining games.
pub fn run_parallel(
    pairs: Vec<(&mut dyn Player, &mut dyn Player)>,
    options: &MatchOptions,
    on_game: &mut dyn FnMut(&GameResult, &Score),
) -> Result<MatchSummary, MatchError> {
    let (a_name, b_name) = (pairs[0].0.name(), pairs[0].1.name());
    let starts = starts_id(options);
    let results_path = options.out.as_ref().map(|d| d.join("results.jsonl"));
    let mut results = results_path
        .as_ref()
        .map(|p| read_previous(p, &a_name, &b_name, &starts))
        .unwrap_or_default();
    let mut log = match (&options.out, &results_path) {
        (Some(dir), Some(path)) => {
            std::fs::create_dir_all(dir.join("games")).map_err(|e| io(dir, e))?;
            Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| io(path, e))?,
            )
        }
        _ => None,
    };
    let mut score = Score::default();
    for r in &results {
        add(&mut score, r.result);
    }
    let total = options.games.div_ceil(2) * 2;
    let values = tengu_rules::values::piece_values(&options.variant);
    let mut decision = options.sprt.map(|s| s.decide(&score));
    // Games not played before an interruption.
    let todo: Vec<u64> = (0..total)
        .filter(|i| !results.iter().any(|r| r.index == *i))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop =
        std::sync::atomic::AtomicBool::new(decision.is_some_and(|d| d != SprtDecision::Continue));
    let mut failure: Option<MatchError> = None;
    std::thread::scope(|scope| {
        type Played = (u64, bool, Game, i8, GameEnd, f32, Option<u64>);
        let (tx, rx) = std::sync::mpsc::channel::<Result<Played, MatchError>>();
        for (a, b) in pairs {
            let (tx, todo, next, stop, values) = (tx.clone(), &todo, &next, &stop, &values);
            scope.spawn(move || loop {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&index) = todo.get(k) else { break };
                let a_is_black = index % 2 == 0;
                let (start, opening_index) = pair_start(options, index / 2);
                let a_color = if a_is_black {
                    Color::Black
                } else {
                    Color::White
                };
                let played = play_game(&mut *a, &mut *b, start, a_is_black, options, values).map(
                    |(game, result, termination)| {
                        let share = material_share(game.position(), values, a_color);
                        (
                            index,
                            a_is_black,
                            game,
                            result,
                            termination,
                            share,
                            opening_index,
                        )
                    },
                );
                if tx.send(played).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for message in rx {
            let (index, a_is_black, game, result, termination, material_share, opening) =
                match message {
                    Ok(m) => m,
                    Err(e) => {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        failure.get_or_insert(e);
                        continue;
                    }
                };
            let r = GameResult {
                index,
                a: a_name.clone(),
                b: b_name.clone(),
                a_is_black,
                result,
                plies: game.len() as u32,
                termination,
                material_share,
                opening,
                starts: Some(starts.clone()),
            };
            if let Err(e) = save_game(options, &r, game, log.as_mut()) {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                failure.get_or_insert(e);
                continue;
            }
            add(&mut score, r.result);
            on_game(&r, &score);
            results.push(r);
            decision = options.sprt.map(|s| s.decide(&score));
            if decision.is_some_and(|d| d != SprtDecision::Continue) {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    results.sort_by_key(|r| r.index);
    Ok(MatchSummary {
        score,
        results,
        sprt: decision,
    })
}

/// Writes a finished game's record and its line of `results.jsonl`.
fn save_game(
    options: &MatchOptions,
    r: &GameResult,
    game: Game,
    log: Option<&mut std::fs::File>,
) -> Result<(), MatchError> {
    if let Some(dir) = &options.out {
        let (black, white) = if r.a_is_black {
            (&r.a, &r.b)
        } else {
            (&r.b, &r.a)
        };
        let mut tags = vec![
            ("Black", black.clone()),
            ("White", white.clone()),
            ("Termination", r.termination.to_string()),
        ];
        if let Some(i) = r.opening {
            tags.push(("Opening", i.to_string()));
            if let Some(o) = options.openings.as_deref().and_then(|l| l.get(i as usize)) {
                tags.push(("OpeningLine", o.line.to_string()));
            }
        }
        let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut record = Record::new(game, &tags);
        let black_result = if r.a_is_black { r.result } else { -r.result };
        for (k, v) in record.tags.iter_mut() {
            if k == "Result" {
                *v = match black_result {
                    1 => "1-0",
                    -1 => "0-1",
                    _ => "1/2-1/2",
                }
                .into();
            }
        }
        let path = dir
            .join("games")
            .join(format!("game-{:05}.record", r.index));
        std::fs::write(&path, record.to_string()).map_err(|e| io(&path, e))?;
    }
    if let Some(log) = log {
        writeln!(
            log,
            "{}",
            serde_json::to_string(r).expect("result serialises")
        )
        .map_err(MatchError::Log)?;
    }
    Ok(())
}

pub(crate) fn add(score: &mut Score, result: i8) {
    match result {
        1 => score.wins += 1,
        0 => score.draws += 1,
        _ => score.losses += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Termination;

    fn result(index: u64, result: i8, termination: GameEnd, plies: u32) -> GameResult {
        GameResult {
            index,
            a: "a".into(),
            b: "b".into(),
            a_is_black: index.is_multiple_of(2),
            result,
            plies,
            termination,
            material_share: 0.5,
            opening: None,
            starts: None,
        }
    }

    #[test]
    fn endings_count_each_end_with_results_and_plies_in_the_table_order() {
        let mate = GameEnd::Rule(Termination::Checkmate);
        let repetition = GameEnd::Rule(Termination::Repetition);
        let games = [
            result(0, 1, mate, 900),
            result(1, -1, mate, 1500),
            result(2, 1, mate, 700),
            result(3, 0, GameEnd::PlyCap, 4000),
            result(4, 0, repetition, 41),
        ];
        let rows = endings(&games);
        let ends: Vec<GameEnd> = rows.iter().map(|r| r.end).collect();
        assert_eq!(ends, [mate, repetition, GameEnd::PlyCap]);
        let m = &rows[0];
        assert_eq!((m.games, m.wins, m.draws, m.losses), (3, 2, 0, 1));
        assert_eq!((m.plies_min, m.plies_median, m.plies_max), (700, 900, 1500));
        assert_eq!(
            m.to_string(),
            "checkmate 3 (+2 =0 -1, plies 700 .. 900 .. 1500)"
        );
        // A result line keeps its end's text, as before the type.
        let line = serde_json::to_string(&games[3]).unwrap();
        assert!(line.contains(r#""termination":"ply cap""#), "{line}");
        let back: GameResult = serde_json::from_str(&line).unwrap();
        assert_eq!(back, games[3]);
        let bad = line.replace("ply cap", "stalemate?");
        let e = serde_json::from_str::<GameResult>(&bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown game end"), "{e}");
    }
}
