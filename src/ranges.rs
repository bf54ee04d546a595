//! Range checks of the command line's real numbers: clap value parsers whose errors say the
//! allowed range in words (clap names the flag), so that a bad number stops a command
//! before it starts. Whole numbers use [`whole`], whose message says "from 1 to 256" where
//! clap's own ranged parsers print Rust's `1..=256`.

use std::fmt;

/// Why a real number from the command line is refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RealError {
    /// Not a number at all.
    NotANumber { text: String, allowed: String },
    /// A number (or NaN, or an infinity) outside the allowed range.
    OutOfRange { value: f64, allowed: String },
}

impl fmt::Display for RealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RealError::NotANumber { text, allowed } => {
                write!(f, "{text:?} is not a number; expected {allowed}")
            }
            RealError::OutOfRange { value, allowed } => {
                write!(f, "{value} is out of range; expected {allowed}")
            }
        }
    }
}

impl std::error::Error for RealError {}

/// Where a real number may lie: `low..=high`, `low` itself excluded when `low_open`.
#[derive(Clone, Copy, Debug)]
pub struct Real {
    pub low: f64,
    pub low_open: bool,
    pub high: f64,
}

impl Real {
    /// `[low, high]`.
    pub const fn closed(low: f64, high: f64) -> Real {
        Real {
            low,
            low_open: false,
            high,
        }
    }

    /// `(low, high]`.
    pub const fn above(low: f64, high: f64) -> Real {
        Real {
            low,
            low_open: true,
            high,
        }
    }

    fn allowed(&self) -> String {
        if self.low_open {
            format!("a number above {} and at most {}", self.low, self.high)
        } else {
            format!("a number from {} to {}", self.low, self.high)
        }
    }

    fn contains(&self, v: f64) -> bool {
        // NaN fails every comparison: refused.
        (if self.low_open {
            v > self.low
        } else {
            v >= self.low
        }) && v <= self.high
    }

    /// Parses `text` and checks the range.
    pub fn parse(&self, text: &str) -> Result<f64, RealError> {
        let value: f64 = text.trim().parse().map_err(|_| RealError::NotANumber {
            text: text.into(),
            allowed: self.allowed(),
        })?;
        if self.contains(value) {
            Ok(value)
        } else {
            Err(RealError::OutOfRange {
                value,
                allowed: self.allowed(),
            })
        }
    }
}

/// A clap value parser for an `f64` in `range`.
pub fn real(range: Real) -> impl Fn(&str) -> Result<f64, RealError> + Clone + Send + Sync {
    move |text| range.parse(text)
}

/// A clap value parser for an `f32` in `range`.
pub fn real32(range: Real) -> impl Fn(&str) -> Result<f32, RealError> + Clone + Send + Sync {
    move |text| range.parse(text).map(|v| v as f32)
}

/// A weight or share in [0, 1] (as the `[search]` keys of a run configuration).
pub const FRACTION: Real = Real::closed(0.0, 1.0);
/// Seconds a benchmark measurement may take.
pub const SECONDS: Real = Real::above(0.0, 3600.0);
/// The largest material ratio `--material-ratio` takes.
pub const MAX_MATERIAL_RATIO: f64 = 100.0;

/// `--material-ratio`: 0 (no adjudication on material) or a ratio above 1 and at most
/// [`MAX_MATERIAL_RATIO`] (a ratio of 1 or less would give an even position to a side).
pub fn material_ratio(text: &str) -> Result<f32, RealError> {
    let allowed = || format!("0 (off) or a number above 1 and at most {MAX_MATERIAL_RATIO}");
    let value: f64 = text.trim().parse().map_err(|_| RealError::NotANumber {
        text: text.into(),
        allowed: allowed(),
    })?;
    if value == 0.0 || (value > 1.0 && value <= MAX_MATERIAL_RATIO) {
        Ok(value as f32)
    } else {
        Err(RealError::OutOfRange {
            value,
            allowed: allowed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_outside_their_range_are_refused_with_the_range() {
        let p = real(SECONDS);
        assert_eq!(p("2.5"), Ok(2.5));
        assert_eq!(p("3600"), Ok(3600.0));
        for bad in ["0", "-1", "nan", "inf", "3600.5"] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains("above 0 and at most 3600"), "{bad}: {e}");
        }
        assert!(matches!(p("soon"), Err(RealError::NotANumber { .. })));
        assert_eq!(real32(FRACTION)("1"), Ok(1.0));
        assert!(real32(FRACTION)("1.01").is_err());
        assert_eq!(material_ratio("0"), Ok(0.0));
        assert_eq!(material_ratio("1.5"), Ok(1.5));
        for bad in ["1", "0.5", "-2", "nan", "101"] {
            let e = material_ratio(bad).unwrap_err().to_string();
            assert!(e.contains("0 (off) or a number above 1"), "{bad}: {e}");
        }
    }
}

/// Why a whole number from the command line is refused.
#[derive(Clone, Debug, PartialEq)]
pub enum WholeError {
    /// Not a whole number at all.
    NotAWholeNumber { text: String, low: u64, high: u64 },
    /// A whole number outside the allowed range.
    OutOfRange { value: u64, low: u64, high: u64 },
}

impl fmt::Display for WholeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WholeError::NotAWholeNumber { text, low, high } => {
                write!(
                    f,
                    "{text:?} is not a whole number; expected one from {low} to {high}"
                )
            }
            WholeError::OutOfRange { value, low, high } => {
                write!(
                    f,
                    "{value} is out of range; expected a whole number from {low} to {high}"
                )
            }
        }
    }
}

impl std::error::Error for WholeError {}

/// A clap value parser of whole numbers in `low..=high` (any unsigned type they fit).
pub fn whole<T: TryFrom<u64>>(
    low: u64,
    high: u64,
) -> impl Fn(&str) -> Result<T, WholeError> + Clone + Send + Sync {
    move |text: &str| {
        let value: u64 = text
            .trim()
            .parse()
            .map_err(|_| WholeError::NotAWholeNumber {
                text: text.into(),
                low,
                high,
            })?;
        if !(low..=high).contains(&value) {
            return Err(WholeError::OutOfRange { value, low, high });
        }
        T::try_from(value).map_err(|_| WholeError::OutOfRange { value, low, high })
    }
}
