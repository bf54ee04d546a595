//! Earlier matches read back (`tengu results`): the games of `tengu match --out` folders
//! (their `results.jsonl`), pooled over several folders of the same two players (one folder
//! a seed), optionally scored again at another material ratio, and two arms compared game
//! by game on the same openings ([`compare`]).
//!
//! A match at fixed visits replays move for move, and the ply cap is the only place where
//! the material ratio acts, so a capped game scored again from its final material share is
//! what a match at that ratio would have given (up to float rounding at the exact
//! threshold).

use std::path::{Path, PathBuf};

use crate::elo::Score;
use tengu_rules::GameEnd;

use crate::matches::{add, GameResult, MatchSummary};

/// The games of one match folder: one match (two players, one set of openings).
#[derive(Clone, Debug)]
pub struct MatchFolder {
    pub dir: PathBuf,
    pub results: Vec<GameResult>,
}

/// Why earlier matches cannot be read or pooled.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}: not a game result: {message}")]
    Damaged {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{dir}: no games in its results.jsonl")]
    Empty { dir: String },
    /// `results.jsonl` holds the games of several matches (a folder reused for other
    /// players or openings); `tengu match` keeps them apart, a report does too.
    #[error("{dir}: holds several matches ({}); report each on its own", matches.join("; "))]
    SeveralMatches { dir: String, matches: Vec<String> },
    #[error("{dir}: {players}, but {first}: {first_players}; pooled folders must be the same two players")]
    OtherPlayers {
        dir: String,
        players: String,
        first: String,
        first_players: String,
    },
    /// Two folders played the same openings: at fixed visits the same games twice, not
    /// independent samples.
    #[error("{dir} and {other} played the same openings ({starts}): pool matches of different seeds or openings")]
    SameOpenings {
        dir: String,
        other: String,
        starts: String,
    },
    #[error("no match folders given")]
    Nothing,
    /// Two arms compared game by game need one folder each per seed.
    #[error(
        "{a} folder(s) against {b}: compare arms with one folder each per seed, in the same order"
    )]
    ArmsDiffer { a: usize, b: usize },
    #[error("{a} ({a_starts}) and {b} ({b_starts}) did not play the same openings: give each arm's folders in the same seed order")]
    OtherOpenings {
        a: String,
        a_starts: String,
        b: String,
        b_starts: String,
    },
    #[error("{a} and {b} have no game index in common")]
    NoCommonGames { a: String, b: String },
}

/// A mean and the half-width of its 95% normal interval (`1.96` standard errors, the
/// sample variance over `n - 1`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MeanInterval {
    pub mean: f64,
    pub half_width: f64,
    /// The samples it is over.
    pub n: usize,
}

impl MeanInterval {
    pub fn of(samples: &[f64]) -> MeanInterval {
        let n = samples.len();
        let mean = samples.iter().sum::<f64>() / n.max(1) as f64;
        let variance = if n > 1 {
            samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        MeanInterval {
            mean,
            half_width: 1.959964 * (variance / n.max(1) as f64).sqrt(),
            n,
        }
    }
}

impl std::fmt::Display for MeanInterval {
    /// `+0.025 +- 0.103`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:+.3} +- {:.3}", self.mean, self.half_width)
    }
}

/// Arm A against arm B on the same openings, A's minus B's: the score per game (0, 1/2 or 1)
/// and per opening pair (the mean of its two games, colours swapped: the independent
/// sample, as in the pentanomial), and the material share at the end per game.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct PairedComparison {
    pub score_per_game: MeanInterval,
    pub score_per_pair: MeanInterval,
    pub material_share_per_game: MeanInterval,
}

/// Arms `a` and `b` compared game by game: `a[i]` and `b[i]` must have played the same
/// openings (the same seed or file), so that game `k` of one opened as game `k` of the
/// other; the games both played are compared, results as they stand in the folders (score
/// them again with [`rescored`] first where wanted).
pub fn compare(
    a: &[(&MatchFolder, &MatchSummary)],
    b: &[(&MatchFolder, &MatchSummary)],
) -> Result<PairedComparison, ResultsError> {
    if a.len() != b.len() || a.is_empty() {
        return Err(ResultsError::ArmsDiffer {
            a: a.len(),
            b: b.len(),
        });
    }
    let score = |r: &GameResult| (r.result as f64 + 1.0) / 2.0;
    let (mut games, mut shares, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
    for ((fa, sa), (fb, sb)) in a.iter().zip(b) {
        let (_, _, a_starts) = match_key(&fa.results[0]);
        let (_, _, b_starts) = match_key(&fb.results[0]);
        if a_starts != b_starts {
            return Err(ResultsError::OtherOpenings {
                a: fa.dir.display().to_string(),
                a_starts,
                b: fb.dir.display().to_string(),
                b_starts,
            });
        }
        let by_index: std::collections::BTreeMap<u64, &GameResult> =
            sb.results.iter().map(|r| (r.index, r)).collect();
        let mut by_pair: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
        let before = games.len();
        for ra in &sa.results {
            let Some(rb) = by_index.get(&ra.index) else {
                continue;
            };
            let d = score(ra) - score(rb);
            games.push(d);
            shares.push(ra.material_share as f64 - rb.material_share as f64);
            by_pair.entry(ra.index / 2).or_default().push(d);
        }
        if games.len() == before {
            return Err(ResultsError::NoCommonGames {
                a: fa.dir.display().to_string(),
                b: fb.dir.display().to_string(),
            });
        }
        pairs.extend(
            by_pair
                .values()
                .filter(|d| d.len() == 2)
                .map(|d| (d[0] + d[1]) / 2.0),
        );
    }
    Ok(PairedComparison {
        score_per_game: MeanInterval::of(&games),
        score_per_pair: MeanInterval::of(&pairs),
        material_share_per_game: MeanInterval::of(&shares),
    })
}

/// What identifies a match within a folder: the players and the openings.
fn match_key(r: &GameResult) -> (String, String, String) {
    (
        r.a.clone(),
        r.b.clone(),
        r.starts.clone().unwrap_or_else(|| "random openings".into()),
    )
}

/// Reads the games of the match in `dir` (`dir/results.jsonl`), in index order.
pub fn read_folder(dir: &Path) -> Result<MatchFolder, ResultsError> {
    let path = dir.join("results.jsonl");
    let file = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|source| ResultsError::Io {
        file: file.clone(),
        source,
    })?;
    let mut results: Vec<GameResult> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = serde_json::from_str(line).map_err(|e| ResultsError::Damaged {
            file: file.clone(),
            line: i + 1,
            message: e.to_string(),
        })?;
        results.push(r);
    }
    let shown = dir.display().to_string();
    let Some(first) = results.first() else {
        return Err(ResultsError::Empty { dir: shown });
    };
    let key = match_key(first);
    let mut others: Vec<(String, String, String)> = results
        .iter()
        .map(match_key)
        .filter(|k| *k != key)
        .collect();
    if !others.is_empty() {
        others.insert(0, key);
        others.sort();
        others.dedup();
        return Err(ResultsError::SeveralMatches {
            dir: shown,
            matches: others
                .iter()
                .map(|(a, b, s)| format!("{a} vs {b}, {s}"))
                .collect(),
        });
    }
    // A game listed twice (a rerun that wrote it again) counts once: the first.
    results.sort_by_key(|r| r.index);
    results.dedup_by_key(|r| r.index);
    Ok(MatchFolder {
        dir: dir.to_path_buf(),
        results,
    })
}

/// The games of `folders` as one match: the same two players in every folder (unless
/// `several_pairings`: then A's side of each folder's match is pooled as one player, an
/// estimate over the pairings), no two folders of the same players on the same openings.
/// Each folder's game indices are moved past the previous folders', so a pair stays the
/// two games of one opening in one folder.
pub fn pool(folders: &[MatchFolder], several_pairings: bool) -> Result<MatchSummary, ResultsError> {
    let first = folders.first().ok_or(ResultsError::Nothing)?;
    let (a, b, _) = match_key(&first.results[0]);
    let players = |a: &str, b: &str| format!("{a} vs {b}");
    let mut seen: Vec<((String, String, String), &Path)> = Vec::new();
    let mut offset = 0u64;
    let mut score = Score::default();
    let mut results = Vec::new();
    for folder in folders {
        let key = match_key(&folder.results[0]);
        let (fa, fb, starts) = key.clone();
        if !several_pairings && (fa.as_str(), fb.as_str()) != (a.as_str(), b.as_str()) {
            return Err(ResultsError::OtherPlayers {
                dir: folder.dir.display().to_string(),
                players: players(&fa, &fb),
                first: first.dir.display().to_string(),
                first_players: players(&a, &b),
            });
        }
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(ResultsError::SameOpenings {
                dir: folder.dir.display().to_string(),
                other: other.display().to_string(),
                starts,
            });
        }
        seen.push((key, &folder.dir));
        let last = folder.results.iter().map(|r| r.index).max().unwrap_or(0);
        for r in &folder.results {
            add(&mut score, r.result);
            results.push(GameResult {
                index: offset + r.index,
                ..r.clone()
            });
        }
        // Past the last pair of this folder (an even index starts a pair).
        offset += (last / 2 + 1) * 2;
    }
    Ok(MatchSummary {
        score,
        results,
        sprt: None,
    })
}

/// `summary`'s games scored again at the ply cap by the final material share: with
/// `Some(r)`, a capped game is won by the side holding at least `r` times the other's
/// material (a share of `r / (1 + r)`), else drawn; with `None` every capped game is a
/// draw. Games that ended otherwise keep their result.
pub fn rescored(summary: &MatchSummary, ratio: Option<f64>) -> MatchSummary {
    let mut score = Score::default();
    let results: Vec<GameResult> = summary
        .results
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r.capped() {
                let share = r.material_share as f64;
                r.result = match ratio {
                    Some(ratio) if share >= ratio / (1.0 + ratio) => 1,
                    Some(ratio) if share <= 1.0 / (1.0 + ratio) => -1,
                    _ => 0,
                };
                r.termination = if r.result == 0 {
                    GameEnd::PlyCap
                } else {
                    GameEnd::Adjudicated
                };
            }
            add(&mut score, r.result);
            r
        })
        .collect();
    MatchSummary {
        score,
        results,
        sprt: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const PLY_CAP: &str = "ply cap";
    const ADJUDICATED: &str = "adjudicated on material";

    fn game(index: u64, result: i8, termination: &str, share: f32, starts: &str) -> GameResult {
        GameResult {
            index,
            a: "on".into(),
            b: "off".into(),
            a_is_black: index.is_multiple_of(2),
            result,
            plies: 600,
            termination: termination.parse().unwrap(),
            material_share: share,
            opening: None,
            starts: Some(starts.into()),
        }
    }

    fn folder(dir: &str, games: Vec<GameResult>) -> MatchFolder {
        MatchFolder {
            dir: dir.into(),
            results: games,
        }
    }

    #[test]
    fn pooled_folders_keep_their_pairs_apart_and_refuse_other_players_or_openings() {
        let s1 = folder(
            "s1",
            vec![
                game(0, 1, "checkmate", 0.7, "random:4:1"),
                game(1, 0, PLY_CAP, 0.5, "random:4:1"),
                game(2, 0, PLY_CAP, 0.55, "random:4:1"),
            ],
        );
        let s2 = folder(
            "s2",
            vec![
                game(0, -1, ADJUDICATED, 0.3, "random:4:2"),
                game(1, 1, ADJUDICATED, 0.65, "random:4:2"),
            ],
        );
        let pooled = pool(&[s1.clone(), s2.clone()], false).unwrap();
        assert_eq!(
            (pooled.score.wins, pooled.score.draws, pooled.score.losses),
            (2, 2, 1)
        );
        let indices: Vec<u64> = pooled.results.iter().map(|r| r.index).collect();
        assert_eq!(indices, [0, 1, 2, 4, 5]);
        // Pairs (WD) and (LW) finished, s1's game 2 without its partner.
        let pairs = pooled.pairs();
        assert_eq!((pairs.pairs(), pairs.unpaired), (2, 1));
        assert_eq!(pairs.counts, [0, 0, 1, 1, 0]);

        let mut other = s2.clone();
        other.dir = "s3".into();
        for r in &mut other.results {
            r.b = "greedy".into();
        }
        let e = pool(&[s1.clone(), other.clone()], false).unwrap_err();
        assert!(matches!(e, ResultsError::OtherPlayers { .. }), "{e}");
        assert!(e.to_string().contains("s3: on vs greedy"), "{e}");
        // Pooled over pairings on purpose: A's side of each, even on the same openings.
        other
            .results
            .iter_mut()
            .for_each(|r| r.starts = Some("random:4:1".into()));
        let across = pool(&[s1.clone(), other], true).unwrap();
        assert_eq!(across.results.len(), 5);
        let mut again = s1.clone();
        again.dir = "s1-again".into();
        let e = pool(&[s1, again], true).unwrap_err();
        assert!(e.to_string().contains("random:4:1"), "{e}");
        assert!(matches!(pool(&[], false), Err(ResultsError::Nothing)));
    }

    #[test]
    fn two_arms_compare_game_by_game_on_the_same_openings() {
        let arm = |dir: &str, results: [i8; 4], starts: &str| {
            let f = folder(
                dir,
                results
                    .iter()
                    .enumerate()
                    .map(|(i, &r)| game(i as u64, r, "checkmate", 0.5 + 0.1 * r as f32, starts))
                    .collect(),
            );
            let s = pool(std::slice::from_ref(&f), false).unwrap();
            (f, s)
        };
        fn refs(arm: &[(MatchFolder, MatchSummary)]) -> Vec<(&MatchFolder, &MatchSummary)> {
            arm.iter().map(|(f, s)| (f, s)).collect()
        }
        let on = [arm("on-s1", [1, 0, 1, 1], "random:4:1")];
        let off = [arm("off-s1", [0, 0, -1, 1], "random:4:1")];
        let c = compare(&refs(&on), &refs(&off)).unwrap();
        // Per game: +0.5, 0, +1, 0; per pair: +0.25, +0.5.
        assert_eq!(c.score_per_game.n, 4);
        assert!((c.score_per_game.mean - 0.375).abs() < 1e-12);
        assert_eq!(c.score_per_pair.n, 2);
        assert!((c.score_per_pair.mean - 0.375).abs() < 1e-12);
        assert!((c.score_per_pair.half_width - 1.959964 * 0.125).abs() < 1e-9);
        assert!((c.material_share_per_game.mean - 0.075).abs() < 1e-6);
        let other = [arm("off-s2", [0, 0, 0, 0], "random:4:2")];
        let e = compare(&refs(&on), &refs(&other)).unwrap_err();
        assert!(
            e.to_string().contains("random:4:2") && e.to_string().contains("off-s2"),
            "{e}"
        );
        let e = compare(&refs(&on), &[]).unwrap_err();
        assert!(matches!(e, ResultsError::ArmsDiffer { a: 1, b: 0 }), "{e}");
    }

    #[test]
    fn capped_games_are_scored_again_by_their_material_share() {
        let summary = pool(
            &[folder(
                "s",
                vec![
                    game(0, 1, "checkmate", 0.2, "x"),
                    game(1, 0, PLY_CAP, 0.56, "x"),
                    game(2, 1, ADJUDICATED, 0.61, "x"),
                    game(3, 0, PLY_CAP, 0.44, "x"),
                ],
            )],
            false,
        )
        .unwrap();
        let results = |s: &MatchSummary| s.results.iter().map(|r| r.result).collect::<Vec<_>>();
        // 1.2x: a share of 0.545 wins.
        assert_eq!(results(&rescored(&summary, Some(1.2))), [1, 1, 1, -1]);
        // 1.5x (0.6): as played.
        assert_eq!(results(&rescored(&summary, Some(1.5))), results(&summary));
        // 2x (0.667) undoes the adjudication; no ratio draws every capped game.
        assert_eq!(results(&rescored(&summary, Some(2.0))), [1, 0, 0, 0]);
        let none = rescored(&summary, None);
        assert_eq!(results(&none), [1, 0, 0, 0]);
        assert_eq!((none.score.wins, none.score.draws), (1, 3));
        assert_eq!(none.results[2].termination.as_str(), PLY_CAP);
    }
}
