//! [`StoreError`]: what goes wrong with a run location or with one of its objects. It sits
//! below both the location's parser and [`crate::RunStore`], which report it.

/// A run location that cannot be used, or an operation on it that failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("run location {location:?}: {problem}")]
    Location { location: String, problem: String },
    #[error("{location}/{key}: {source}")]
    Request {
        location: String,
        key: String,
        source: object_store::Error,
    },
    #[error("{location}/{key}: {problem}")]
    Invalid {
        location: String,
        key: String,
        problem: String,
    },
    /// An object whose bytes are not the ones its manifest vouches for (the mismatch names
    /// the key).
    #[error("{location}/{source}")]
    Mismatch {
        location: String,
        source: ObjectMismatch,
    },
    /// Another writer holds what we wanted (a trainer lease, a committed checkpoint).
    #[error("{0}")]
    Conflict(String),
}

/// Bytes that are not the object an [`crate::checkpoint::ObjectRef`] names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjectMismatch {
    #[error("{key}: {found} bytes, the manifest says {expected}")]
    Size {
        key: String,
        found: u64,
        expected: u64,
    },
    /// `found` and `expected`: lower-case hex SHA-256.
    #[error("{key}: SHA-256 {found} does not match the manifest's {expected}")]
    Digest {
        key: String,
        found: String,
        expected: String,
    },
}
