//! The PyTorch trainer (`python -m tengu.train` of the Python package in `python/`) as the
//! trainer of `tengu run` (`[train] engine = "python"`): which interpreter, a check before
//! anything of the run is written that it can import the package, torch and the same
//! encoder as this binary, and its command line. It follows the run like `tengu train`
//! (window, `passes_per_row`, loss log, checkpoints under the run's trainer lease).

use std::process::{Command, Stdio};

/// The environment variable that names the interpreter on this machine (it overrides
/// `train.python`, which travels with the run's config).
pub const PYTHON_ENV: &str = "TENGU_PYTHON";

/// Why the PyTorch trainer cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum PythonTrainerError {
    #[error("train.engine = \"python\": cannot start the Python interpreter {python:?} ({source}); install Python 3.9+ with torch and the tengu package, or name the interpreter in train.python or ${PYTHON_ENV}")]
    Interpreter {
        python: String,
        source: std::io::Error,
    },
    #[error("train.engine = \"python\": {python} cannot import the tengu package or torch ({message}); install them (README, section Python) or name the interpreter that has them in train.python or ${PYTHON_ENV}")]
    Package { python: String, message: String },
    #[error("train.engine = \"python\": the tengu package of {python} has encoder version {theirs}, this tengu binary {ours}: build the wheel of this checkout (maturin build -m python/Cargo.toml)")]
    EncoderVersion {
        python: String,
        theirs: String,
        ours: u32,
    },
}

/// The interpreter to run: `$TENGU_PYTHON` when set and not empty, else `configured`
/// (`train.python`).
pub fn interpreter(configured: &str) -> String {
    match std::env::var(PYTHON_ENV) {
        Ok(v) if !v.trim().is_empty() => v,
        _ => configured.to_string(),
    }
}

/// Checks that `python` starts and imports `tengu`, `tengu.train` and torch, and that the
/// package's encoder version is this binary's (a stale wheel would write checkpoints the
/// workers refuse). Takes a few seconds (importing torch).
pub fn check(python: &str) -> Result<(), PythonTrainerError> {
    let out = Command::new(python)
        .args([
            "-c",
            "import tengu, tengu.train, torch; print(tengu.ENCODER_VERSION)",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|source| PythonTrainerError::Interpreter {
            python: python.into(),
            source,
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message")
            .trim()
            .to_string();
        return Err(PythonTrainerError::Package {
            python: python.into(),
            message: format!("{}: {message}", out.status),
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let theirs = stdout.lines().last().unwrap_or("").trim().to_string();
    if theirs != tengu_model::ENCODER_VERSION.to_string() {
        return Err(PythonTrainerError::EncoderVersion {
            python: python.into(),
            theirs,
            ours: tengu_model::ENCODER_VERSION,
        });
    }
    Ok(())
}

/// The arguments of the trainer process on `run` (`-u`: its log lines reach
/// `logs/trainer.log` as they are printed), stopping at step `max_steps` when given.
pub fn args(run: &str, max_steps: Option<u64>) -> Vec<String> {
    let mut args: Vec<String> = ["-u", "-m", "tengu.train", "--run-location", run]
        .map(String::from)
        .to_vec();
    if let Some(m) = max_steps {
        args.extend(["--max-steps".into(), m.to_string()]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_is_an_error_naming_it_and_the_settings() {
        let e = check("/nonexistent/python3-for-tengu").unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, PythonTrainerError::Interpreter { .. }),
            "{text}"
        );
        assert!(
            text.contains("/nonexistent/python3-for-tengu")
                && text.contains("train.python")
                && text.contains(PYTHON_ENV),
            "{text}"
        );
    }

    #[test]
    fn an_interpreter_without_the_package_is_an_error_quoting_python() {
        // `false` stands in for an interpreter whose `-c` program fails.
        let e = check("false").unwrap_err();
        assert!(matches!(e, PythonTrainerError::Package { .. }), "{e}");
        assert!(
            e.to_string().contains("cannot import the tengu package"),
            "{e}"
        );
    }

    #[test]
    fn the_command_line_stops_at_the_step_limit() {
        assert_eq!(
            args("runs/x", Some(5)),
            [
                "-u",
                "-m",
                "tengu.train",
                "--run-location",
                "runs/x",
                "--max-steps",
                "5"
            ]
        );
        assert!(!args("runs/x", None).contains(&"--max-steps".to_string()));
    }
}
