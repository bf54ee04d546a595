//! Elo differences from match results, with a 95% interval, and the sequential probability
//! ratio test (SPRT) used to stop matches early.
//!
//! The Elo model: expected score `E(d) = 1 / (1 + 10^(-d / 400))`. The interval is the
//! Wilson score interval (95%) of the mean score, a draw counting half a point (with the
//! variance that the draw share implies, [`score_interval`]), mapped to Elo through the same
//! model. Unlike a normal approximation it stays meaningful at 0% and 100%: after 20 wins in
//! 20 games the score is at least 0.839 (Elo >= +287) and has no upper bound, so the upper
//! end is +infinity (printed `>= +286.6`, `null` in JSON). The SPRT is the generalised
//! SPRT of fishtest: with the observed mean score `m` and per-game variance `v`,
//! `LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)` where `s0`, `s1` are the expected scores of
//! `elo0`, `elo1`; it accepts H1 (elo1) when `LLR >= ln((1 - beta) / alpha)` and H0 (elo0)
//! when `LLR <= ln(beta / (1 - alpha))`.

use std::fmt;

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

/// `Some(x)` for a finite `x`: what JSON can hold (an unbounded Elo end is null).
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Elo difference for an expected score: -infinity at 0, +infinity at 1.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(0.0, 1.0);
    // `+ 0.0` turns the -0.0 of an even score into 0.0 (printed `+0.0`, not `-0.0`).
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// 95% two-sided normal quantile.
const Z95: f64 = 1.959964;

/// An Elo difference and its 95% interval. An end that the results cannot bound is infinite:
/// `high` after a perfect score, `low` after a zero score (and `elo` with them).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloInterval {
    pub low: f64,
    pub elo: f64,
    pub high: f64,
}

impl EloInterval {
    /// The three values for JSON: a number, or `null` for an unbounded end.
    pub fn to_json(&self) -> (serde_json::Value, serde_json::Value, serde_json::Value) {
        let value = |x: f64| serde_json::json!(finite(x));
        (value(self.low), value(self.elo), value(self.high))
    }
}

impl fmt::Display for EloInterval {
    /// `+147.2 (95% interval +81.6 .. +209.8)`; `>= +286.6 (95% interval, no upper bound)`
    /// after a perfect score, `<= -286.6 (...)` after a zero one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.low.is_finite(), self.high.is_finite()) {
            (true, true) => write!(
                f,
                "{:+.1} (95% interval {:+.1} .. {:+.1})",
                self.elo, self.low, self.high
            ),
            (true, false) => write!(f, ">= {:+.1} (95% interval, no upper bound)", self.low),
            (false, true) => write!(f, "<= {:+.1} (95% interval, no lower bound)", self.high),
            (false, false) => write!(f, "unknown (no games)"),
        }
    }
}

/// The Wilson score interval (95%) of the mean score `p` over `n = score.games()` games:
/// the scores `q` with `n (p - q)^2 <= z^2 v(q)`, where `v(q)` is the per-game variance a
/// true score `q` implies. Without draws `v(q) = q (1 - q)` and this is the textbook Wilson
/// interval; with a draw share `d`, `v(q) = q (1 - q) - d / 4` (a draw is worth 1/2), which
/// keeps the interval as tight as the results warrant when most games are drawn. `d` is
/// capped at `1 - 1/n`: even after draws only, one game might have been decisive.
pub fn score_interval(score: &Score) -> (f64, f64) {
    let n = score.games() as f64;
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let p = score.mean();
    let d = (score.draws as f64 / n).min(1.0 - 1.0 / n);
    let z2 = Z95 * Z95;
    // (n + z^2) q^2 - (2 n p + z^2) q + (n p^2 + z^2 d / 4) <= 0; the roots bound q. The
    // discriminant is not negative: at q = p the left side is -z^2 v(p) <= 0.
    let a = n + z2;
    let b = 2.0 * n * p + z2;
    let c = n * p * p + z2 * d / 4.0;
    let root = (b * b - 4.0 * a * c).max(0.0).sqrt();
    // Exactly 0 and 1 where the results reach them (rounding could miss them by an ulp).
    let low = if score.wins + score.draws == 0 {
        0.0
    } else {
        ((b - root) / (2.0 * a)).max(0.0)
    };
    let high = if score.losses + score.draws == 0 {
        1.0
    } else {
        ((b + root) / (2.0 * a)).min(1.0)
    };
    (low, high)
}

/// Elo difference and its 95% interval (see the module documentation).
pub fn elo_interval(score: &Score) -> EloInterval {
    let (low, high) = score_interval(score);
    EloInterval {
        low: elo_from_score(low),
        elo: if score.games() == 0 {
            0.0
        } else {
            elo_from_score(score.mean())
        },
        high: elo_from_score(high),
    }
}

/// SPRT settings: H0 `elo0` against H1 `elo1`, error rates `alpha` and `beta`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// In JSON (`tengu match --json`'s `sprt`) the variant's name: `"AcceptH1"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
