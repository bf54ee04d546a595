//! The one atomic write of a local file: the bytes go to a hidden temporary name in the same
//! directory, are synced, and are renamed over the target; then the directory is synced so
//! the rename itself survives a crash. A reader sees the old file or the new one, never half
//! of either, and listings that skip names starting with a dot never see the temporary.
//!
//! Shards, books, checkpoints (weights and optimizer state), the checkpoint cache, the
//! ladder's report, the TensorBoard event file and the tactics suite all write through here.
//! Objects in a run store are written by [`crate::RunStore::put`], which is atomic itself.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The hidden name beside `path` that an atomic write goes through:
/// `.<name>.<pid>.tmp` (the process id keeps two writers of one file apart).
pub fn temporary_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` atomically. The directory must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(
        path,
        |tmp| {
            let mut file = std::fs::File::create(tmp)?;
            file.write_all(bytes)
        },
        |e| e,
    )
}

/// Writes `path` atomically through `write`, which creates the file it is given (the
/// temporary name) and fills it; for writers that insist on a path of their own (safetensors
/// and optimizer state of the model's backends). The directory must exist. An error of
/// `write` comes back as it is; a failure to sync or rename afterwards comes back through
/// `io` (which names the file in the caller's error).
pub fn write_atomic_with<E>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
    io: impl Fn(std::io::Error) -> E,
) -> Result<(), E> {
    let tmp = temporary_name(path);
    write(&tmp)?;
    std::fs::File::open(&tmp)
        .and_then(|f| f.sync_all())
        .map_err(&io)?;
    std::fs::rename(&tmp, path).map_err(&io)?;
    // Make the rename durable; a directory that cannot be opened (or synced, on some file
    // systems) leaves the rename done but not yet forced to disk, which is no error.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn the_temporary_is_hidden_beside_the_target() {
        let tmp = temporary_name(Path::new("/x/y/book.tbk"));
        assert_eq!(tmp.parent(), Some(Path::new("/x/y")));
        let name = tmp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".book.tbk.") && name.ends_with(".tmp"),
            "{name}"
        );
    }

    #[test]
    fn a_failing_writer_leaves_the_old_file_and_its_error() {
        #[derive(Debug)]
        enum E {
            Mine,
            Io,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        write_atomic(&path, b"old").unwrap();
        let err = write_atomic_with(&path, |_| Err(E::Mine), |_| E::Io).unwrap_err();
        assert!(matches!(err, E::Mine));
        // A writer that creates nothing: the sync of the missing temporary fails.
        let err = write_atomic_with(&path, |_| Ok(()), |_| E::Io).unwrap_err();
        assert!(matches!(err, E::Io));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        // A missing directory is an error, not created.
        let deep = dir.path().join("no/such/dir/a.bin");
        assert!(write_atomic(&deep, b"x").is_err());
    }
}
