//! Game-pair (pentanomial) statistics of a match.
//!
//! A match plays each opening twice with the colours swapped: games `2k` and `2k + 1` form
//! pair `k`. The two games of a pair are correlated (an opening that favours one colour
//! helps each player once), so the pair, not the game, is the independent sample. A's pair
//! score (points in the two games) is one of 0, 1/2, 1, 3/2, 2; the counts of the five
//! outcomes, in the order `[LL, LD, DD + WL, WD, WW]`, are the pentanomial.
//!
//! Definitions (those of fastchess and fishtest, so the numbers compare with theirs), with
//! `N` finished pairs and `x_k` = pair `k`'s score / 2, A's mean score per game in it
//! (0, 0.25, 0.5, 0.75 or 1):
//! - mean score `m = sum x_k / N`, in points per game;
//! - pair variance `v = sum (x_k - m)^2 / N` (the population variance of `x`, per pair);
//!   [`Pentanomial::pair_variance`]. The variance of the pair score in points (0..2) is
//!   `4 v`;
//! - per-game variance from pairs `2 v`: the variance per game with which `2 N` independent
//!   games would give the same uncertainty; compare it with the trinomial per-game variance
//!   of the W/D/L counts ([`crate::elo::Score::variance`]), to which it is equal when the
//!   games of a pair are independent and smaller when pairing removes opening noise;
//! - standard error of `m`: `sqrt(v / N)`;
//! - Elo: `E^-1(m)` with `E(d) = 1 / (1 + 10^(-d / 400))`, its 95% interval
//!   `E^-1(m -+ 1.96 sqrt(v / N))` (a normal interval on the score, clamped to [0, 1]: an
//!   end at 0 or 1 is unbounded);
//! - normalized Elo `nElo = (m - 0.5) / sqrt(2 v) * 800 / ln 10`: the score's distance from
//!   even in per-game standard deviations, scaled so that for small differences between
//!   players who never draw nElo equals Elo. Its 95% half-width is
//!   `1.96 * 800 / ln 10 / sqrt(2 N)`: fixed by the number of pairs.
//!
//! With every pair in the same bin `v = 0` and the normal interval says nothing: the Elo
//! interval is then unknown (both ends unbounded) and nElo undefined (`None`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::elo::{elo_from_score, finite, EloInterval};

/// 95% two-sided normal quantile.
const Z95: f64 = 1.959964;

/// `800 / ln 10`: the nElo scale.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// Counts of the five pair outcomes from A's view, and the games left without their pair.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by A's pair score in half points: `[LL, LD, DD + WL, WD, WW]` (0, 1/2, 1, 3/2
    /// and 2 points).
    pub counts: [u64; 5],
    /// Games whose partner (the other game of the pair) was not played, e.g. after an
    /// interruption or an SPRT stop: left out of the pair statistics.
    pub unpaired: u64,
}

/// The labels of [`Pentanomial::counts`], in order.
pub const PAIR_LABELS: [&str; 5] = ["LL", "LD", "DD+WL", "WD", "WW"];

impl Pentanomial {
    /// Pairs games by index (`2k` with `2k + 1`); `results` are `(game index, result from
    /// A's view: 1 win, 0 draw, -1 loss)`. A game listed twice counts once (the first).
    pub fn from_games(results: impl IntoIterator<Item = (u64, i8)>) -> Pentanomial {
        let mut by_pair: std::collections::BTreeMap<u64, [Option<i8>; 2]> =
            std::collections::BTreeMap::new();
        for (index, result) in results {
            let slot = &mut by_pair.entry(index / 2).or_default()[(index % 2) as usize];
            slot.get_or_insert(result.clamp(-1, 1));
        }
        let mut p = Pentanomial::default();
        for games in by_pair.values() {
            match games {
                [Some(a), Some(b)] => p.add_pair(*a, *b),
                _ => p.unpaired += 1,
            }
        }
        p
    }

    /// Counts one pair from its two results (A's view: 1, 0, -1).
    pub fn add_pair(&mut self, first: i8, second: i8) {
        let half_points = (first.clamp(-1, 1) + 1 + second.clamp(-1, 1) + 1) as usize;
        self.counts[half_points] += 1;
    }

    /// Finished pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// A's mean score per game over the finished pairs, in [0, 1] (0.5 with none).
    pub fn mean(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let points: f64 = self
            .counts
            .iter()
            .enumerate()
            .map(|(half_points, &c)| c as f64 * half_points as f64 / 4.0)
            .sum();
        points / n as f64
    }

    /// Variance per pair of the pair's mean score per game (`v` of the module
    /// documentation; the population variance, 0 with no pairs).
    pub fn pair_variance(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        let m = self.mean();
        self.counts
            .iter()
            .enumerate()
            .map(|(half_points, &c)| c as f64 * (half_points as f64 / 4.0 - m).powi(2))
            .sum::<f64>()
            / n as f64
    }

    /// Per-game variance from pairs, `2 v`.
    pub fn per_game_variance(&self) -> f64 {
        2.0 * self.pair_variance()
    }

    /// Standard error of [`Pentanomial::mean`], `sqrt(v / N)` (0 with no pairs).
    pub fn std_error(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        (self.pair_variance() / n as f64).sqrt()
    }

    /// Elo difference with its 95% interval from the pair variance (module documentation).
    /// Unknown (both ends unbounded) with no pairs or with every pair in one bin.
    pub fn elo_interval(&self) -> EloInterval {
        let unknown = |elo: f64| EloInterval {
            low: f64::NEG_INFINITY,
            elo,
            high: f64::INFINITY,
        };
        if self.pairs() == 0 {
            return unknown(0.0);
        }
        let m = self.mean();
        let se = self.std_error();
        if se == 0.0 {
            return unknown(elo_from_score(m));
        }
        let low = (m - Z95 * se).max(0.0);
        let high = (m + Z95 * se).min(1.0);
        EloInterval {
            low: elo_from_score(low),
            elo: elo_from_score(m),
            high: elo_from_score(high),
        }
    }

    /// Normalized Elo, `(m - 0.5) / sqrt(2 v) * 800 / ln 10`; `None` when `v = 0`.
    pub fn nelo(&self) -> Option<f64> {
        let v = self.per_game_variance();
        (self.pairs() > 0 && v > 0.0).then(|| (self.mean() - 0.5) / v.sqrt() * NELO_SCALE)
    }

    /// Half-width of nElo's 95% interval, `1.96 * 800 / ln 10 / sqrt(2 N)`; `None` with
    /// no nElo.
    pub fn nelo_error(&self) -> Option<f64> {
        self.nelo()?;
        Some(Z95 * NELO_SCALE / (2.0 * self.pairs() as f64).sqrt())
    }

    /// The statistics as JSON fields: `pairs`, `unpaired`, `pentanomial` (the five counts),
    /// `pair_score`, `pair_score_se`, `pair_variance`, `per_game_variance_pairs`,
    /// `pair_elo`, `pair_elo_low`, `pair_elo_high` (null where unbounded), `nelo` and
    /// `nelo_error` (null where undefined).
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::to_value(PairReport::new(self)) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => unreachable!("a pair report is a JSON object"),
        }
    }
}

impl fmt::Display for Pentanomial {
    /// Two lines (one with no pairs), e.g.
    /// `pairs 10 (1 unpaired game): LL 1, LD 2, DD+WL 3, WD 2, WW 2; score 0.550 +- 0.099
    /// (s.e.), pair variance 0.0975` and `Elo from pairs +34.9 (95% interval -102.6 ..
    /// +184.9), nElo +39.3 +- 152.3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.pairs();
        write!(f, "pairs {n}")?;
        if self.unpaired > 0 {
            write!(
                f,
                " ({} unpaired game{})",
                self.unpaired,
                if self.unpaired == 1 { "" } else { "s" }
            )?;
        }
        let bins: Vec<String> = PAIR_LABELS
            .iter()
            .zip(self.counts)
            .map(|(label, c)| format!("{label} {c}"))
            .collect();
        write!(f, ": {}", bins.join(", "))?;
        if n == 0 {
            return Ok(());
        }
        writeln!(
            f,
            "; score {:.3} +- {:.3} (s.e.), pair variance {:.4}",
            self.mean(),
            self.std_error(),
            self.pair_variance()
        )?;
        let interval = self.elo_interval();
        if interval.low.is_infinite() && interval.high.is_infinite() {
            write!(
                f,
                "Elo from pairs: interval unknown (every pair in one bin)"
            )?;
        } else {
            write!(f, "Elo from pairs {interval}")?;
        }
        match (self.nelo(), self.nelo_error()) {
            (Some(nelo), Some(error)) => write!(f, ", nElo {nelo:+.1} +- {error:.1}"),
            _ => write!(f, ", nElo undefined (no variance)"),
        }
    }
}

/// Game-pair (pentanomial) statistics, as keys of a report (`tengu match --json`, each pairing
/// of `tengu tournament --json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    pub pairs: u64,
    pub unpaired: u64,
    /// Pairs by A's pair score: `[LL, LD, DD + WL, WD, WW]`.
    pub pentanomial: [u64; 5],
    pub pair_score: f64,
    pub pair_score_se: f64,
    pub pair_variance: f64,
    pub per_game_variance_pairs: f64,
    /// Elo from the pairs and its 95% interval; null where unbounded.
    pub pair_elo: Option<f64>,
    pub pair_elo_low: Option<f64>,
    pub pair_elo_high: Option<f64>,
    /// Normalized Elo and its error; null where undefined.
    pub nelo: Option<f64>,
    pub nelo_error: Option<f64>,
}

impl PairReport {
    pub fn new(p: &Pentanomial) -> PairReport {
        let interval = p.elo_interval();
        PairReport {
            pairs: p.pairs(),
            unpaired: p.unpaired,
            pentanomial: p.counts,
            pair_score: p.mean(),
            pair_score_se: p.std_error(),
            pair_variance: p.pair_variance(),
            per_game_variance_pairs: p.per_game_variance(),
            pair_elo: finite(interval.elo),
            pair_elo_low: finite(interval.low),
            pair_elo_high: finite(interval.high),
            nelo: p.nelo().and_then(finite),
            nelo_error: p.nelo_error().and_then(finite),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn games_pair_by_index_and_lone_games_are_unpaired() {
        // Pair 0: W then D (3/2 -> WD); pair 1: L, W (1 -> DD+WL); pair 2: only game 5;
        // pair 3: D, D (DD+WL).
        let p = Pentanomial::from_games([(0, 1), (1, 0), (2, -1), (3, 1), (5, 1), (7, 0), (6, 0)]);
        assert_eq!(p.counts, [0, 0, 2, 1, 0]);
        assert_eq!(p.unpaired, 1);
        assert_eq!(p.pairs(), 3);
        // A game recorded twice counts once.
        let q = Pentanomial::from_games([(0, 1), (0, -1), (1, 1)]);
        assert_eq!(q.counts, [0, 0, 0, 0, 1]);
    }

    #[test]
    fn hand_computed_counts() {
        // [LL, LD, DD+WL, WD, WW] = [1, 2, 3, 2, 2], N = 10; per-game pair scores
        // 0, .25, .5, .75, 1.
        // m = (0 + 2*.25 + 3*.5 + 2*.75 + 2*1) / 10 = 5.5 / 10 = 0.55.
        // sum c (x - m)^2 = 1*.3025 + 2*.09 + 3*.0025 + 2*.04 + 2*.2025
        //                 = .3025 + .18 + .0075 + .08 + .405 = .975  ->  v = .0975.
        // per-game variance 2v = .195; se = sqrt(.0975 / 10) = .0987421.
        // Elo = -400 log10(1/.55 - 1) = -400 log10(.8181818) = +34.86.
        // interval: .55 -+ 1.959964 * .0987421 = (.356469, .743531)
        //   -> Elo -400 log10(1/.356469 - 1) = -102.62, -400 log10(1/.743531 - 1) = +184.91.
        // nElo = .05 / sqrt(.195) * 347.4356 = .05 / .4415880 * 347.4356 = +39.34;
        // its half-width 1.959964 * 347.4356 / sqrt(20) = 152.27.
        let p = Pentanomial {
            counts: [1, 2, 3, 2, 2],
            unpaired: 0,
        };
        assert_eq!(p.pairs(), 10);
        assert!(close(p.mean(), 0.55, 1e-12));
        assert!(close(p.pair_variance(), 0.0975, 1e-12));
        assert!(close(p.per_game_variance(), 0.195, 1e-12));
        assert!(close(p.std_error(), 0.0987421, 1e-6));
        let e = p.elo_interval();
        assert!(close(e.elo, 34.86, 0.01), "{e:?}");
        assert!(close(e.low, -102.62, 0.01), "{e:?}");
        assert!(close(e.high, 184.91, 0.01), "{e:?}");
        assert!(close(p.nelo().unwrap(), 39.34, 0.01), "{:?}", p.nelo());
        assert!(close(p.nelo_error().unwrap(), 152.27, 0.01));
    }

    #[test]
    fn pairing_removes_the_opening_noise_that_the_trinomial_variance_keeps() {
        // Every pair is a win and a loss (the opening decides): 10 pairs, all DD+WL.
        // Trinomial: 10 W, 10 L, per-game variance .25. Pairs: v = 0, the score is exactly
        // even as far as the pairs can tell; the interval is unknown, nElo undefined.
        let p = Pentanomial {
            counts: [0, 0, 10, 0, 0],
            unpaired: 0,
        };
        assert_eq!(p.mean(), 0.5);
        assert_eq!(p.pair_variance(), 0.0);
        let e = p.elo_interval();
        assert_eq!(e.elo, 0.0);
        assert!(e.low.is_infinite() && e.high.is_infinite());
        assert_eq!(p.nelo(), None);
        // One pair WW among 4 DD+WL: m = (4*.5 + 1)/5 = .6, v = (4*.01 + .16)/5 = .04,
        // se = sqrt(.04/5) = .0894427; interval .6 -+ 1.959964 * .0894427 = (.424696, .775304);
        // Elo -400 log10(1/.6 - 1) = +70.44.
        let q = Pentanomial {
            counts: [0, 0, 4, 0, 1],
            unpaired: 0,
        };
        assert!(close(q.mean(), 0.6, 1e-12));
        assert!(close(q.pair_variance(), 0.04, 1e-12));
        let e = q.elo_interval();
        assert!(close(e.elo, 70.44, 0.01), "{e:?}");
        assert!(close(
            e.low,
            -400.0 * (1.0 / 0.424696f64 - 1.0).log10(),
            0.01
        ));
        assert!(close(
            e.high,
            -400.0 * (1.0 / 0.775304f64 - 1.0).log10(),
            0.01
        ));
        // nElo = .1 / sqrt(.08) * 347.4356 = +122.84.
        assert!(close(q.nelo().unwrap(), 122.84, 0.01));
    }

    #[test]
    fn an_end_at_a_perfect_score_is_unbounded_and_no_pairs_is_unknown() {
        // [0, 0, 0, 1, 3]: m = (.75 + 3)/4 = .9375, v = (.0351563 + 3*.0039063)/4 = .0117188,
        // se = .0541266, high = .9375 + .106087 > 1: no upper bound.
        let p = Pentanomial {
            counts: [0, 0, 0, 1, 3],
            unpaired: 2,
        };
        let e = p.elo_interval();
        assert!(e.low.is_finite() && e.high == f64::INFINITY, "{e:?}");
        let text = p.to_string();
        assert!(
            text.starts_with(
                "pairs 4 (2 unpaired games): LL 0, LD 0, DD+WL 0, WD 1, WW 3; score 0.938"
            ),
            "{text}"
        );
        assert!(text.contains("no upper bound"), "{text}");
        let none = Pentanomial::default();
        assert_eq!(none.mean(), 0.5);
        assert_eq!(none.nelo(), None);
        let json = none.to_json();
        assert_eq!(json["pairs"], 0);
        assert!(json["pair_elo_low"].is_null() && json["nelo"].is_null());
        assert_eq!(none.to_string(), "pairs 0: LL 0, LD 0, DD+WL 0, WD 0, WW 0");
    }
}
