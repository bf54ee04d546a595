//! The play page's refusals: each names its cause, the field at fault and its HTTP status,
//! answered as JSON `{"error", "cause", "field"}`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlayError {
    #[error("the body is not a JSON object: {0}")]
    NotJson(String),
    #[error("the body is larger than the server reads: {0}")]
    TooLarge(String),
    #[error("send the body as Content-Type: application/json")]
    ContentType,
    #[error("a request for host {0:?}: this server answers this machine only (localhost, 127.0.0.1, [::1])")]
    Host(String),
    #[error("{field}: {problem}")]
    Field { field: String, problem: String },
    #[error("{field} {asked} is over the server's cap of {cap} a request ({flag})")]
    OverBudget {
        field: &'static str,
        asked: u64,
        cap: u64,
        flag: &'static str,
    },
    #[error("{count} {what} already ({flag} {limit}): try again when one ends")]
    TooMany {
        what: &'static str,
        count: usize,
        limit: usize,
        flag: &'static str,
    },
    #[error("no game {0:?} in play (it ended, was closed, or the server restarted)")]
    NoGame(String),
    /// A game file the run does not list, or a game past the end of its file.
    #[error("{field}: {problem}")]
    NotInRun {
        field: &'static str,
        problem: String,
    },
    /// A game file of the run that cannot be read as one.
    #[error("{field}: {problem}")]
    Damaged {
        field: &'static str,
        problem: String,
    },
    #[error("{0}")]
    NotNow(String),
    #[error("{0}")]
    Unavailable(String),
}

impl PlayError {
    pub(super) fn field(field: impl Into<String>, problem: impl Into<String>) -> PlayError {
        PlayError::Field {
            field: field.into(),
            problem: problem.into(),
        }
    }

    fn status(&self) -> StatusCode {
        match self {
            PlayError::NotJson(_) => StatusCode::BAD_REQUEST,
            PlayError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            PlayError::ContentType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            PlayError::Host(_) => StatusCode::FORBIDDEN,
            PlayError::Field { .. } | PlayError::OverBudget { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            PlayError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            PlayError::NoGame(_) => StatusCode::NOT_FOUND,
            PlayError::NotInRun { .. } => StatusCode::NOT_FOUND,
            PlayError::Damaged { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            PlayError::NotNow(_) => StatusCode::CONFLICT,
            PlayError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The cause in one word, for a client to act on.
    fn cause(&self) -> &'static str {
        match self {
            PlayError::NotJson(_) => "not_json",
            PlayError::TooLarge(_) => "too_large",
            PlayError::ContentType => "content_type",
            PlayError::Host(_) => "host",
            PlayError::Field { .. } => "bad_field",
            PlayError::OverBudget { .. } => "over_budget",
            PlayError::TooMany { what, .. } if what.starts_with("game") => "too_many_games",
            PlayError::TooMany { .. } => "too_many_queries",
            PlayError::NoGame(_) => "no_game",
            PlayError::NotInRun { .. } => "not_in_run",
            PlayError::Damaged { .. } => "damaged",
            PlayError::NotNow(_) => "not_now",
            PlayError::Unavailable(_) => "unavailable",
        }
    }

    fn field_name(&self) -> Option<&str> {
        match self {
            PlayError::Field { field, .. } => Some(field),
            PlayError::OverBudget { field, .. }
            | PlayError::NotInRun { field, .. }
            | PlayError::Damaged { field, .. } => Some(field),
            _ => None,
        }
    }
}

impl IntoResponse for PlayError {
    fn into_response(self) -> Response {
        let status = self.status();
        tracing::warn!(
            status = status.as_u16(),
            cause = self.cause(),
            "play: {self}"
        );
        let body =
            json!({"error": self.to_string(), "cause": self.cause(), "field": self.field_name()});
        (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body.to_string(),
        )
            .into_response()
    }
}
