//! Calibration of the shortcuts to a game's end on games played to their end: at a ply and
//! a material ratio, how often the side ahead by that ratio went on to win (material
//! adjudication is safe only where it almost always does: `selfplay.material_adjudication`,
//! `tengu match --material-ratio`); and at a resignation threshold, how often the side that
//! would have resigned went on to draw or win (`selfplay.resign_threshold`, from the search
//! values self-play keeps beside its records). `tengu results --calibrate` prints both.

use serde::Serialize;
use tengu_rules::end::{material_leader, ResignWatch, Resignation};
use tengu_rules::{Color, Game, Position};

/// A game that a rule ended (mate, no legal move, repetition, ...), and its winner.
#[derive(Clone, Debug)]
pub struct PlayedOut {
    pub game: Game,
    pub winner: Option<Color>,
    /// Per ply from the game's start: the search value (-1..1) of the move played, from its
    /// mover's view, as self-play writes them beside its records; `None` for a move not
    /// searched. Empty when unknown (match records).
    pub values: Vec<Option<f32>>,
}

/// The 95% Wilson interval of `k` successes in `n` trials, `(low, high)`; `(0, 1)`
/// without trials.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let (p, z) = (k as f64 / n, 1.96f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    (
        ((centre - spread) / scale).max(0.0),
        ((centre + spread) / scale).min(1.0),
    )
}

/// What the games that reached `ply` with a side ahead by at least `ratio` (in material,
/// fixed piece values, royals excluded) did next.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdjudicationCell {
    pub ply: u32,
    pub ratio: f32,
    /// Games that lasted at least `ply` plies.
    pub reached: u64,
    /// Of those, the games with a side ahead by `ratio` at `ply`.
    pub ahead: u64,
    /// What the side ahead went on to do.
    pub won: u64,
    pub drawn: u64,
    pub lost: u64,
}

impl AdjudicationCell {
    /// The share of the games ahead that the side ahead won (None without such games).
    pub fn won_share(&self) -> Option<f64> {
        (self.ahead > 0).then(|| self.won as f64 / self.ahead as f64)
    }

    /// The lower end of the 95% Wilson interval of [`AdjudicationCell::won_share`]: the
    /// share the games support at least (0 without games).
    pub fn won_share_low(&self) -> f64 {
        if self.ahead == 0 {
            return 0.0;
        }
        wilson(self.won, self.ahead).0
    }
}

/// What resigning at `threshold` for `consecutive` moves ([`Resignation`]) would have done
/// to the played-out games whose search values are known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResignationCell {
    pub threshold: f32,
    pub consecutive: u32,
    /// Games with search values.
    pub games: u64,
    /// Of those, the games in which a side would have resigned.
    pub resigned: u64,
    /// Of those, the games the side that would have resigned went on to draw or win.
    pub false_resignations: u64,
    /// Plies after the resignations (what they would have saved) and all plies of the games.
    pub plies_saved: u64,
    pub plies: u64,
}

impl ResignationCell {
    /// The share of the resignations that were false (None without resignations).
    pub fn false_share(&self) -> Option<f64> {
        (self.resigned > 0).then(|| self.false_resignations as f64 / self.resigned as f64)
    }

    /// The upper end of the 95% Wilson interval of [`ResignationCell::false_share`]: the
    /// share the games cannot rule out (1 without resignations).
    pub fn false_share_high(&self) -> f64 {
        wilson(self.false_resignations, self.resigned).1
    }
}

/// The table over every `thresholds` x `consecutive` cell, thresholds major, both in the
/// given order: each game's values replayed through a [`ResignWatch`] until a side resigns.
pub fn resignation_table(
    games: &[PlayedOut],
    thresholds: &[f32],
    consecutive: &[u32],
) -> Vec<ResignationCell> {
    let valued: Vec<&PlayedOut> = games.iter().filter(|g| !g.values.is_empty()).collect();
    let mut cells = Vec::new();
    for &threshold in thresholds {
        for &moves in consecutive {
            let rule = Resignation {
                threshold,
                consecutive: moves,
            };
            let mut cell = ResignationCell {
                threshold,
                consecutive: moves,
                games: valued.len() as u64,
                resigned: 0,
                false_resignations: 0,
                plies_saved: 0,
                plies: 0,
            };
            for g in &valued {
                let plies = g.game.len() as u64;
                cell.plies += plies;
                if let Some((ply, side)) = first_resignation(g, &rule) {
                    cell.resigned += 1;
                    cell.plies_saved += plies.saturating_sub(ply as u64 + 1);
                    if g.winner != Some(side.opposite()) {
                        cell.false_resignations += 1;
                    }
                }
            }
            cells.push(cell);
        }
    }
    cells
}

/// The ply and side of the first resignation `rule` makes in `game`'s values, if any.
fn first_resignation(game: &PlayedOut, rule: &Resignation) -> Option<(usize, Color)> {
    let mut watch = ResignWatch::default();
    let first_mover = game.game.start().side_to_move();
    game.values.iter().enumerate().find_map(|(ply, value)| {
        // Sides alternate every ply (a pass is a move).
        let mover = if ply % 2 == 0 {
            first_mover
        } else {
            first_mover.opposite()
        };
        let v = (*value)?;
        watch.observe(rule, mover, v).then_some((ply, mover))
    })
}

/// The smallest threshold for each number of moves whose resignations were false at most
/// `share` of the time over at least `min_games` resignations (by the share itself, as
/// [`safe_ratios`]), if any: where resignation looks safe.
pub fn safe_thresholds(
    cells: &[ResignationCell],
    share: f64,
    min_games: u64,
) -> Vec<(u32, Option<f32>)> {
    let mut moves: Vec<u32> = cells.iter().map(|c| c.consecutive).collect();
    moves.sort_unstable();
    moves.dedup();
    smallest_passing(
        cells,
        moves,
        |c| c.consecutive,
        |c| c.resigned >= min_games && c.false_share().is_some_and(|s| s <= share),
        |c| c.threshold,
    )
}

/// For each of `groups` (in that order), the smallest `value` among the `cells` of that
/// `group` that `pass`, if any: what [`safe_ratios`] and [`safe_thresholds`] both ask.
fn smallest_passing<C>(
    cells: &[C],
    groups: Vec<u32>,
    group: impl Fn(&C) -> u32,
    pass: impl Fn(&C) -> bool,
    value: impl Fn(&C) -> f32,
) -> Vec<(u32, Option<f32>)> {
    groups
        .into_iter()
        .map(|g| {
            let best = cells
                .iter()
                .filter(|c| group(c) == g && pass(c))
                .map(&value)
                .fold(None, |acc: Option<f32>, v| {
                    Some(acc.map_or(v, |a| a.min(v)))
                });
            (g, best)
        })
        .collect()
}

/// The table over every `plies` x `ratios` cell, plies major, both in the given order.
/// `values`: the variant's piece values.
pub fn adjudication_table(
    games: &[PlayedOut],
    plies: &[u32],
    ratios: &[f32],
    values: &[f32],
) -> Vec<AdjudicationCell> {
    let mut cells: Vec<AdjudicationCell> = plies
        .iter()
        .flat_map(|&ply| {
            ratios.iter().map(move |&ratio| AdjudicationCell {
                ply,
                ratio,
                reached: 0,
                ahead: 0,
                won: 0,
                drawn: 0,
                lost: 0,
            })
        })
        .collect();
    for g in games {
        // Plies count from the game's start (the initial position for matches and
        // self-play, whose openings and restarts are moves of the game).
        let mut pos: Position = g.game.start().clone();
        let moves: Vec<_> = g.game.moves().collect();
        let mut played = 0usize;
        for cell in cells.iter_mut() {
            // Walk forward to the cell's ply (cells are grouped by ply, in the caller's
            // order; a ply before the current one restarts the walk).
            let target = cell.ply as usize;
            if target < played {
                pos = g.game.start().clone();
                played = 0;
            }
            if target > moves.len() {
                continue;
            }
            while played < target {
                pos.play(moves[played]);
                played += 1;
            }
            cell.reached += 1;
            let Some(leader) = material_leader(&pos, values, cell.ratio) else {
                continue;
            };
            cell.ahead += 1;
            match g.winner {
                Some(w) if w == leader => cell.won += 1,
                None => cell.drawn += 1,
                Some(_) => cell.lost += 1,
            }
        }
    }
    cells
}

/// The smallest ratio at each ply whose side ahead won at least `share` of at least
/// `min_games` games (by the share itself, not its interval), if any: where adjudication
/// looks safe.
pub fn safe_ratios(
    cells: &[AdjudicationCell],
    share: f64,
    min_games: u64,
) -> Vec<(u32, Option<f32>)> {
    let mut plies: Vec<u32> = cells.iter().map(|c| c.ply).collect();
    plies.dedup();
    smallest_passing(
        cells,
        plies,
        |c| c.ply,
        |c| c.ahead >= min_games && c.won_share().is_some_and(|s| s >= share),
        |c| c.ratio,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Variant;

    /// A Dai Dai game of `plies` quiet moves from the start (material stays even).
    fn quiet_game(plies: usize) -> Game {
        let mut game = Game::new(Position::initial(Variant::dai_dai()));
        for _ in 0..plies {
            let m = game
                .legal_move_list()
                .into_iter()
                .find(|m| !m.is_capture())
                .unwrap();
            game.play(m).unwrap();
        }
        game
    }

    #[test]
    fn a_game_counts_at_the_plies_it_reached_for_the_side_ahead() {
        let values = tengu_rules::values::piece_values(&Variant::dai_dai());
        let game = quiet_game(6);
        let games = [
            PlayedOut {
                game: game.clone(),
                winner: Some(Color::Black),
                values: Vec::new(),
            },
            PlayedOut {
                game,
                winner: None,
                values: Vec::new(),
            },
        ];
        // Even material: ahead at ratio 1.0 (>=) is Black, found first; never at 1.5.
        let cells = adjudication_table(&games, &[4, 2, 10], &[1.0, 1.5], &values);
        assert_eq!(cells.len(), 6);
        let at = |ply, ratio| {
            cells
                .iter()
                .find(|c| c.ply == ply && c.ratio == ratio)
                .unwrap()
                .clone()
        };
        let c = at(4, 1.0);
        assert_eq!(
            (c.reached, c.ahead, c.won, c.drawn, c.lost),
            (2, 2, 1, 1, 0)
        );
        assert_eq!(c.won_share(), Some(0.5));
        assert!(c.won_share_low() > 0.0 && c.won_share_low() < 0.5);
        let c = at(2, 1.5);
        assert_eq!((c.reached, c.ahead), (2, 0));
        assert_eq!(c.won_share(), None);
        assert_eq!(at(10, 1.0).reached, 0);
        assert_eq!(
            safe_ratios(&cells, 0.5, 2),
            vec![(4, Some(1.0)), (2, Some(1.0)), (10, None)]
        );
        assert_eq!(safe_ratios(&cells, 0.95, 1)[0], (4, None));
    }

    #[test]
    fn resignations_replay_the_values_and_count_the_false_ones() {
        let game = quiet_game(8);
        // Black moves at even plies: low at plies 2, 4 and 6 (three moves in a row), White
        // never low; a restart's first ply was not searched.
        let values = vec![
            None,
            Some(0.9),
            Some(-0.95),
            Some(0.9),
            Some(-0.95),
            Some(0.9),
            Some(-0.95),
            Some(0.9),
        ];
        let played = |winner| PlayedOut {
            game: game.clone(),
            winner,
            values: values.clone(),
        };
        let games = [
            played(Some(Color::White)),
            played(Some(Color::Black)),
            played(None),
            PlayedOut {
                game: game.clone(),
                winner: None,
                values: Vec::new(),
            },
        ];
        let cells = resignation_table(&games, &[0.9, 0.99], &[3, 4]);
        let at = |t: f32, k| {
            cells
                .iter()
                .find(|c| c.threshold == t && c.consecutive == k)
                .unwrap()
                .clone()
        };
        // Three games have values; at 0.9 for 3 moves Black resigns at ply 6 in each, and
        // drew or won two of them.
        let c = at(0.9, 3);
        assert_eq!(
            (c.games, c.resigned, c.false_resignations),
            (3, 3, 2),
            "{c:?}"
        );
        assert_eq!((c.plies, c.plies_saved), (24, 3));
        assert!((c.false_share().unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert!(c.false_share_high() > 2.0 / 3.0 && c.false_share_high() <= 1.0);
        // Four moves in a row, or a threshold the values never pass: nobody resigns.
        assert_eq!(at(0.9, 4).resigned, 0);
        assert_eq!(at(0.99, 3).resigned, 0);
        assert_eq!(at(0.99, 3).false_share(), None);
        assert_eq!(safe_thresholds(&cells, 0.05, 1), vec![(3, None), (4, None)]);
        assert_eq!(
            safe_thresholds(&cells, 0.7, 3),
            vec![(3, Some(0.9)), (4, None)]
        );
    }
}
