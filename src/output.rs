//! Standard output of the subcommands. Everything they print goes through [`outln!`] and
//! [`out!`], which return the write error (`std::io::Result<()>`) where `println!` panics.
//!
//! Why: `tengu ... | head -1` closes the pipe early. Rust ignores SIGPIPE, so the next write
//! fails with `BrokenPipe`, and `println!` turns that into a panic with a backtrace. Here
//! the error travels up with `?` like any other, and `main` ends a command whose output
//! pipe closed quietly with status 0, as ripgrep does.
//!
//! Resetting SIGPIPE to its default action (one `libc::signal` call) would also silence
//! `head`, but by killing the process on the spot, on any closed pipe or socket: a
//! `tengu run` supervisor whose log pipe closes would die without stopping its workers, a
//! worker without writing its finished games. Returning the error keeps every exit path
//! ordinary. Long-running commands log through `tracing`, which ignores write errors, so
//! a closed stderr never stops them.

/// `println!` that returns `std::io::Result<()>` instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` that returns `std::io::Result<()>` instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

pub(crate) use {out, outln};

/// Whether the error, or any error in its chain, is a closed output pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, `: `-separated, each message once. Many of our error types
/// already print their cause in their own message (`{path}: cannot read: {source}`) and
/// also return it as their `source()`, so anyhow's `{:#}` would print it twice.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Like the library crates' `thiserror` errors: the cause in the message and as source.
    #[derive(Debug)]
    struct ReadError {
        path: String,
        source: std::io::Error,
    }

    impl std::fmt::Display for ReadError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: cannot read: {}", self.path, self.source)
        }
    }

    impl std::error::Error for ReadError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let shown = io.to_string();
        let e = anyhow::Error::new(ReadError {
            path: "/missing".into(),
            source: io,
        })
        .context("player \"checkpoint:/missing\"");
        let text = error_text(&e);
        assert_eq!(text.matches(&shown).count(), 1, "{text}");
        assert!(text.starts_with("player") && text.contains("/missing: cannot read"));
    }

    #[test]
    fn broken_pipes_are_recognised_through_context() {
        let e = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("printing");
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
