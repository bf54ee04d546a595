//! Logging set-up: `tracing` to stderr, filtered by `--log` or `RUST_LOG`. A filter that
//! cannot be read is refused, never replaced by a default behind the user's back.

use std::fmt;

use tracing_subscriber::filter::Directive;
use tracing_subscriber::EnvFilter;

/// The levels a filter (or a directive's right-hand side) names.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// The forms a filter may take, for messages.
const FORMS: &str = "a level (off, error, warn, info, debug, trace) or comma-separated \
                     directives TARGET=LEVEL with an optional default level \
                     (e.g. info,tengu_trainer=debug)";

/// Why a log filter is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterError {
    /// Nothing to filter by.
    Empty,
    /// A bare word that is not a level (`verbose`): tracing would read it as a target
    /// name and show that target's logs only, which is never what such a word means.
    NotALevel(String),
    /// A directive tracing cannot parse (`bogus=[[[`).
    Invalid { directive: String, reason: String },
    /// `RUST_LOG` holds a filter tracing cannot parse.
    Environment { value: String, reason: String },
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::Empty => write!(f, "an empty filter; expected {FORMS}"),
            FilterError::NotALevel(word) => {
                write!(f, "{word:?} is not a level; expected {FORMS}")
            }
            FilterError::Invalid { directive, reason } => {
                write!(f, "directive {directive:?}: {reason}; expected {FORMS}")
            }
            FilterError::Environment { value, reason } => {
                write!(f, "RUST_LOG={value:?}: {reason}; expected {FORMS}")
            }
        }
    }
}

impl std::error::Error for FilterError {}

/// Checks a `--log` filter (clap's value parser for the flag): every comma-separated
/// directive is a level, or `TARGET=LEVEL` (spans and fields as tracing reads them).
pub fn check_filter(text: &str) -> Result<String, FilterError> {
    let directives: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .collect();
    if directives.is_empty() {
        return Err(FilterError::Empty);
    }
    for directive in directives {
        let bare = !directive.contains('=') && !directive.contains('[');
        if bare && !LEVELS.contains(&directive.to_ascii_lowercase().as_str()) {
            return Err(FilterError::NotALevel(directive.into()));
        }
        directive
            .parse::<Directive>()
            .map_err(|e| FilterError::Invalid {
                directive: directive.into(),
                reason: e.to_string(),
            })?;
    }
    Ok(text.into())
}

/// Installs the subscriber: `RUST_LOG` when set and not empty, else `filter` (checked by
/// [`check_filter`]).
pub fn init(filter: &str) -> Result<(), FilterError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.trim().is_empty() => {
            EnvFilter::try_new(&value).map_err(|e| FilterError::Environment {
                reason: e.to_string(),
                value,
            })?
        }
        _ => EnvFilter::try_new(filter).map_err(|e| FilterError::Invalid {
            directive: filter.into(),
            reason: e.to_string(),
        })?,
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only on a terminal: log files and pipes get plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_levels_or_target_directives() {
        for good in [
            "info",
            "WARN",
            "off",
            "info,tengu_trainer=debug",
            "tengu_store=trace",
        ] {
            assert_eq!(check_filter(good).as_deref(), Ok(good), "{good}");
        }
        assert_eq!(
            check_filter("verbose"),
            Err(FilterError::NotALevel("verbose".into()))
        );
        assert!(matches!(
            check_filter("bogus=[[["),
            Err(FilterError::Invalid { .. })
        ));
        assert_eq!(check_filter(" , "), Err(FilterError::Empty));
    }
}
