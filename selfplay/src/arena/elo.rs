//! Elo differences from match results, with a 95% interval, and the sequential probability
//! ratio test (SPRT) used to stop matches early.
//!
//! The Elo model: expected score `E(d) = 1 / (1 + 10^(-d / 400))`. The interval uses the
//! per-game score variance of the observed wins / draws / losses (trinomial) and a normal
//! approximation. The SPRT is the generalised SPRT of fishtest: with the observed mean score
//! `m` and per-game variance `v`, `LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)` where `s0`,
//! `s1` are the expected scores of `elo0`, `elo1`; it accepts H1 (elo1) when
//! `LLR >= ln((1 - beta) / alpha)` and H0 (elo0) when `LLR <= ln(beta / (1 - alpha))`.

/// Results from the first player's view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Score {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score in [0, 1] (0.5 with no games).
    pub fn mean(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// Per-game variance of the score.
    pub fn variance(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let m = self.mean();
        let (w, d, l) = (
            self.wins as f64 / n,
            self.draws as f64 / n,
            self.losses as f64 / n,
        );
        w * (1.0 - m).powi(2) + d * (0.5 - m).powi(2) + l * (0.0 - m).powi(2)
    }
}

/// Elo difference for an expected score (clamped away from 0 and 1).
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference and its 95% interval `(low, estimate, high)`.
pub fn elo_interval(score: &Score) -> (f64, f64, f64) {
    let n = score.games() as f64;
    let m = score.mean();
    if n == 0.0 {
        return (f64::NEG_INFINITY, 0.0, f64::INFINITY);
    }
    let half = 1.959964 * (score.variance() / n).sqrt();
    (
        elo_from_score(m - half),
        elo_from_score(m),
        elo_from_score(m + half),
    )
}

/// SPRT settings: H0 `elo0` against H1 `elo1`, error rates `alpha` and `beta`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    AcceptH0,
    AcceptH1,
    Continue,
}

impl Sprt {
    /// Log-likelihood ratio of H1 against H0 for these results.
    pub fn llr(&self, score: &Score) -> f64 {
        let n = score.games() as f64;
        let v = score.variance();
        if n == 0.0 || v <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * score.mean() - s0 - s1) / (2.0 * v)
    }

    /// `(lower, upper)` LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn decide(&self, score: &Score) -> SprtDecision {
        let llr = self.llr(score);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}
