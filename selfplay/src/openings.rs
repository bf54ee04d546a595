//! Reading openings files (the format is `tengu_rules::openings`; the rules crate reads no
//! files).

use std::path::Path;
use std::sync::Arc;

use tengu_rules::openings::MAX_OPENINGS_FILE;
use tengu_rules::{parse_openings, Opening, OpeningsError, Variant};

/// Reads and parses the openings file at `path` for `variant`; every error names the file.
pub fn read_openings(
    path: impl AsRef<Path>,
    variant: &Arc<Variant>,
) -> Result<Vec<Opening>, OpeningsError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let read = |problem: String| OpeningsError::Read {
        file: name.clone(),
        problem,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| read(format!("cannot read: {e}")))?
        .len();
    if size > MAX_OPENINGS_FILE {
        return Err(read(format!(
            "{size} bytes; an openings file may hold at most {MAX_OPENINGS_FILE}"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| read(format!("cannot read: {e}")))?;
    parse_openings(variant, &text).map_err(|e| e.in_file(&name))
}
