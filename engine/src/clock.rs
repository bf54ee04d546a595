//! The time manager: how long the engine may think about its next move under the GUI's
//! time control (`st`, `level` with `time`/`otim`), or under tengu's default budget when
//! the GUI sends none (QBoard sends none by default).
//!
//! The engine never loses on time: every budget keeps a reserve for the GUI's and the
//! process's latency, and with no `time` updates (QBoard never sends them) the engine keeps
//! its own clock from the time it spent.

use std::time::Duration;

/// The GUI's time control.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Control {
    /// No time control: the engine's default budget per move.
    Default,
    /// `st N`: at most this long per move.
    PerMove(Duration),
    /// `level MPS BASE INC`: `base` for every `mps` moves (0: the whole game), plus `inc`
    /// after each move.
    Level {
        mps: u32,
        base: Duration,
        inc: Duration,
    },
}

/// The engine's clock under a time control.
#[derive(Clone, Debug)]
pub struct Clock {
    pub control: Control,
    /// Budget per move under [`Control::Default`].
    pub default: Duration,
    /// Time left on the engine's clock (`level` only): from `time`, else kept here.
    remaining: Option<Duration>,
    /// Moves the engine has made since the control was set (for `mps`).
    moves_made: u32,
}

/// Latency reserve: what the GUI, the pipe and the process may lose around a move.
const LATENCY: Duration = Duration::from_millis(50);
/// The least the engine ever thinks (it still answers at once when stopped).
const MIN_THINK: Duration = Duration::from_millis(2);

impl Clock {
    pub fn new(default: Duration) -> Clock {
        Clock {
            control: Control::Default,
            default,
            remaining: None,
            moves_made: 0,
        }
    }

    /// `st SECONDS` (fractions accepted).
    pub fn set_per_move(&mut self, t: Duration) {
        self.control = Control::PerMove(t);
        self.remaining = None;
        self.moves_made = 0;
    }

    /// `level MPS BASE INC`.
    pub fn set_level(&mut self, mps: u32, base: Duration, inc: Duration) {
        self.control = Control::Level { mps, base, inc };
        self.remaining = Some(base);
        self.moves_made = 0;
    }

    /// `time CENTISECONDS`: the engine's clock as the GUI sees it.
    pub fn set_remaining(&mut self, t: Duration) {
        self.remaining = Some(t);
    }

    /// A new game under the same control.
    pub fn restart(&mut self) {
        self.moves_made = 0;
        self.remaining = match self.control {
            Control::Level { base, .. } => Some(base),
            _ => None,
        };
    }

    /// The time the engine may spend on its next move.
    pub fn budget(&self) -> Duration {
        match self.control {
            Control::Default => self.default,
            Control::PerMove(t) => {
                // 10% (at most 200 ms) plus the latency reserve stay unused.
                let reserve = (t / 10).min(Duration::from_millis(200)) + LATENCY;
                t.saturating_sub(reserve).max(MIN_THINK)
            }
            Control::Level { mps, base, inc } => {
                let remaining = self.remaining.unwrap_or(base);
                let reserve = (remaining / 20).min(Duration::from_secs(1)) + LATENCY;
                let usable = remaining.saturating_sub(reserve);
                let left = if mps > 0 {
                    mps - self.moves_made % mps
                } else {
                    0
                };
                // Sudden death: plan for about 40 more moves.
                let share = if mps > 0 { usable / left } else { usable / 40 } + inc.mul_f32(0.75);
                // Never more than half of what is left, except on the last move of a period.
                let cap = if left == 1 { usable } else { usable / 2 };
                share.min(cap).max(MIN_THINK)
            }
        }
    }

    /// Books a finished move that took `spent`.
    pub fn after_move(&mut self, spent: Duration) {
        self.moves_made += 1;
        if let Control::Level { mps, base, inc } = self.control {
            let mut remaining = self.remaining.unwrap_or(base).saturating_sub(spent) + inc;
            if mps > 0 && self.moves_made.is_multiple_of(mps) {
                remaining += base;
            }
            self.remaining = Some(remaining);
        }
    }
}

/// The longest time any control may name (longer values are cut to it): 100 days.
const MAX_TIME: f64 = 8_640_000.0;

/// Parses `level`'s base time: minutes, or `MIN:SEC`.
pub fn parse_base(text: &str) -> Option<Duration> {
    let secs = match text.split_once(':') {
        Some((m, s)) => m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?,
        None => text.parse::<f64>().ok()? * 60.0,
    };
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(MAX_TIME)))
}

/// Parses a non-negative number of seconds (`st`, `level`'s increment).
pub fn parse_seconds(text: &str) -> Option<Duration> {
    let s: f64 = text.parse().ok()?;
    (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s.min(MAX_TIME)))
}

/// Parses `time`/`otim` centiseconds (negative: a flag already fell, counted as zero).
pub fn parse_centiseconds(text: &str) -> Option<Duration> {
    let cs: f64 = text.parse().ok()?;
    cs.is_finite()
        .then(|| Duration::from_secs_f64((cs / 100.0).clamp(0.0, MAX_TIME)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn per_move_keeps_a_reserve() {
        let mut c = Clock::new(ms(2000));
        assert_eq!(c.budget(), ms(2000));
        c.set_per_move(Duration::from_secs(1));
        assert_eq!(c.budget(), ms(850));
        c.set_per_move(ms(10));
        assert_eq!(c.budget(), MIN_THINK);
    }

    #[test]
    fn a_level_never_spends_the_whole_clock() {
        for (mps, base, inc) in [
            (0, 3000, 0),
            (40, 60_000, 0),
            (1, 500, 0),
            (0, 2000, 100),
            (3, 900, 50),
        ] {
            let mut c = Clock::new(ms(2000));
            c.set_level(mps, ms(base), ms(inc));
            let mut left = ms(base);
            for _ in 0..150 {
                let b = c.budget();
                assert!(
                    b < left || left <= ms(60),
                    "mps {mps} base {base}: {b:?} of {left:?}"
                );
                // The engine overshoots its budget by a little.
                let spent = b + ms(2);
                left = left.saturating_sub(spent) + ms(inc);
                c.after_move(spent);
                if mps > 0 && c.moves_made.is_multiple_of(mps) {
                    left += ms(base);
                }
                assert!(left > Duration::ZERO, "lost on time: mps {mps} base {base}");
            }
        }
    }

    #[test]
    fn time_updates_drive_the_budget() {
        let mut c = Clock::new(ms(2000));
        c.set_level(0, Duration::from_secs(300), Duration::ZERO);
        let full = c.budget();
        c.set_remaining(Duration::from_secs(30));
        assert!(c.budget() < full / 5);
        assert_eq!(parse_base("5"), Some(Duration::from_secs(300)));
        assert_eq!(parse_base("0:30"), Some(Duration::from_secs(30)));
        assert_eq!(parse_base("0.5"), Some(Duration::from_secs(30)));
        assert_eq!(parse_base("x"), None);
        // Huge and odd values neither panic nor overflow the clock.
        for t in [
            "1e308",
            "99999999999999999999",
            "inf",
            "nan",
            "-0",
            "0:99999999999999",
        ] {
            let _ = (parse_base(t), parse_seconds(t), parse_centiseconds(t));
        }
        let huge = parse_seconds("1e308").unwrap();
        c.set_level(40, huge, huge);
        c.after_move(huge);
        assert!(c.budget() > Duration::ZERO);
        assert_eq!(parse_seconds("-1"), None);
    }
}
