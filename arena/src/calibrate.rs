//! Calibration of material adjudication on games played to their end: at a ply and a
//! material ratio, how often the side ahead by that ratio went on to win. Adjudication is
//! safe only where it almost always does (`selfplay.material_adjudication`,
//! `tengu match --material-ratio`); `tengu results --calibrate` prints the table.

use serde::Serialize;
use tengu_rules::end::material_leader;
use tengu_rules::{Color, Game, Position};

/// A game that a rule ended (mate, no legal move, repetition, ...), and its winner.
#[derive(Clone, Debug)]
pub struct PlayedOut {
    pub game: Game,
    pub winner: Option<Color>,
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
        let n = self.ahead as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (p, z) = (self.won as f64 / n, 1.96f64);
        let centre = p + z * z / (2.0 * n);
        let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        ((centre - spread) / (1.0 + z * z / n)).max(0.0)
    }
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
    plies
        .into_iter()
        .map(|ply| {
            let best = cells
                .iter()
                .filter(|c| c.ply == ply && c.ahead >= min_games)
                .filter(|c| c.won_share().is_some_and(|s| s >= share))
                .map(|c| c.ratio)
                .fold(None, |acc: Option<f32>, r| {
                    Some(acc.map_or(r, |a| a.min(r)))
                });
            (ply, best)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_rules::Variant;

    #[test]
    fn a_game_counts_at_the_plies_it_reached_for_the_side_ahead() {
        let variant = Variant::dai_dai();
        let values = tengu_rules::values::piece_values(&variant);
        let mut game = Game::new(Position::initial(variant));
        for _ in 0..6 {
            let m = game
                .legal_move_list()
                .into_iter()
                .find(|m| !m.is_capture())
                .unwrap();
            game.play(m).unwrap();
        }
        let games = [
            PlayedOut {
                game: game.clone(),
                winner: Some(Color::Black),
            },
            PlayedOut { game, winner: None },
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
}
