//! Parsing a run location (a path or a URL) into an object store and a key prefix.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use object_store::memory::InMemory;
use object_store::path::Path as ObjPath;
use object_store::ObjectStore;

use crate::error::StoreError;

/// URL schemes a run location may have.
const KNOWN_SCHEMES: [&str; 7] = ["file", "s3", "s3a", "gs", "az", "abfs", "memory"];

fn known_schemes() -> String {
    let urls: Vec<String> = KNOWN_SCHEMES.iter().map(|s| format!("{s}://")).collect();
    urls.join(", ")
}

/// Whether `text` (what comes before the first `:`) has the form of a URL scheme (RFC 3986:
/// a letter, then letters, digits, `+`, `-`, `.`).
fn looks_like_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Where a run lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory on this machine (a plain path or `file://`; on a shared filesystem
    /// processes on many hosts can share it).
    Local(PathBuf),
    /// An object store URL: `s3://bucket/prefix`, `gs://...`, `az://...`, `memory://name/prefix`.
    Url(String),
}

impl Location {
    /// A plain path or `file://` URL is local; `s3://`, `s3a://`, `gs://`, `az://`,
    /// `abfs://`, `memory://` are object stores; any other scheme is refused by name.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(StoreError::Location {
                location: text.into(),
                problem: "empty run location".into(),
            });
        }
        let Some((scheme, rest)) = text.split_once("://") else {
            // `s3:/bucket`, `gs:bucket`: a scheme without `//` is a mistyped URL, not a
            // directory named `s3:` (write `./s3:/x` for that).
            if let Some((scheme, _)) = text.split_once(':').filter(|(s, _)| looks_like_scheme(s)) {
                let problem = if KNOWN_SCHEMES.contains(&scheme) {
                    format!(
                        "a malformed URL: write {scheme}://... (or ./{text} for a local directory)"
                    )
                } else {
                    format!(
                        "unknown scheme {scheme:?}: expected a path, {} (or ./{text} for a local directory)",
                        known_schemes()
                    )
                };
                return Err(StoreError::Location {
                    location: text.into(),
                    problem,
                });
            }
            return Ok(Location::Local(PathBuf::from(text)));
        };
        match scheme {
            "file" => {
                if !rest.starts_with('/') {
                    return Err(StoreError::Location {
                        location: text.into(),
                        problem: "a file:// URL needs an absolute path (file:///dir/run)".into(),
                    });
                }
                Ok(Location::Local(PathBuf::from(rest)))
            }
            "s3" | "s3a" | "gs" | "az" | "abfs" | "memory" => {
                if rest.split('/').next().unwrap_or("").is_empty() {
                    return Err(StoreError::Location {
                        location: text.into(),
                        problem: format!("{scheme}:// needs a bucket (or container) name"),
                    });
                }
                Ok(Location::Url(text.trim_end_matches('/').to_string()))
            }
            other => Err(StoreError::Location {
                location: text.into(),
                problem: format!(
                    "unknown scheme {other:?}: expected a path, {}",
                    known_schemes()
                ),
            }),
        }
    }

    /// The location as a user writes it.
    pub fn display(&self) -> String {
        match self {
            Location::Local(p) => p.display().to_string(),
            Location::Url(u) => u.clone(),
        }
    }
}

/// In-memory stores by name, shared within the process (`memory://name/...` opened twice
/// is the same store), for tests.
fn memory_store(name: &str) -> Arc<InMemory> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<InMemory>>>> = OnceLock::new();
    STORES
        .get_or_init(Default::default)
        .lock()
        .expect("memory store registry")
        .entry(name.to_string())
        .or_insert_with(|| Arc::new(InMemory::new()))
        .clone()
}

/// The store and the run's key prefix for a location. Local directories are created.
pub(crate) fn connect(location: &Location) -> Result<(Arc<dyn ObjectStore>, ObjPath), StoreError> {
    let fail = |problem: String| StoreError::Location {
        location: location.display(),
        problem,
    };
    match location {
        Location::Local(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail(format!("cannot create the directory: {e}")))?;
            let store = object_store::local::LocalFileSystem::new_with_prefix(dir)
                .map_err(|e| fail(e.to_string()))?;
            Ok((Arc::new(store), ObjPath::default()))
        }
        Location::Url(url) => {
            let (scheme, rest) = url.split_once("://").expect("parsed URL");
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            let prefix = ObjPath::parse(prefix).map_err(|e| fail(e.to_string()))?;
            let store: Arc<dyn ObjectStore> = match scheme {
                "memory" => memory_store(bucket),
                "s3" | "s3a" => {
                    install_tls_provider();
                    Arc::new(
                        object_store::aws::AmazonS3Builder::from_env()
                            .with_bucket_name(bucket)
                            .build()
                            .map_err(|e| fail(format!("{e} (S3 settings come from AWS_* variables: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT, AWS_ALLOW_HTTP)")))?,
                    )
                }
                "gs" => {
                    install_tls_provider();
                    Arc::new(
                        object_store::gcp::GoogleCloudStorageBuilder::from_env()
                            .with_bucket_name(bucket)
                            .build()
                            .map_err(|e| {
                                fail(format!("{e} (GCS settings come from GOOGLE_* variables)"))
                            })?,
                    )
                }
                _ => {
                    install_tls_provider();
                    Arc::new(
                        object_store::azure::MicrosoftAzureBuilder::from_env()
                            .with_container_name(bucket)
                            .build()
                            .map_err(|e| {
                                fail(format!("{e} (Azure settings come from AZURE_* variables)"))
                            })?,
                    )
                }
            };
            Ok((store, prefix))
        }
    }
}

/// rustls needs a process-wide crypto provider; we build it with `ring` (see Cargo.toml).
fn install_tls_provider() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        // An error means another provider is installed already: fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_or_are_refused_by_name() {
        assert_eq!(
            Location::parse("runs/a").unwrap(),
            Location::Local("runs/a".into())
        );
        // A colon after a slash is part of a path, not a scheme.
        assert_eq!(
            Location::parse("./s3:/x").unwrap(),
            Location::Local("./s3:/x".into())
        );
        assert_eq!(
            Location::parse("file:///tmp/x").unwrap(),
            Location::Local("/tmp/x".into())
        );
        assert_eq!(
            Location::parse("s3://b/runs/x/").unwrap(),
            Location::Url("s3://b/runs/x".into())
        );
        for (bad, says) in [
            ("ftp://h/x", "unknown scheme"),
            ("foo://x", "s3://"),
            ("s3:/bad", "malformed URL"),
            ("s3:bad", "write s3://"),
            ("gopher:x", "unknown scheme \"gopher\""),
            ("file://relative", "absolute path"),
            ("s3:///x", "bucket"),
            ("", "empty"),
        ] {
            let e = Location::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
