//! How the targets read their bytes.

/// The bytes as text, or `None` (the door reads text: bytes that are not UTF-8 never reach
/// its parser, `read_to_string` refuses them first).
pub(super) fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Splits off the first byte (a choice the target makes from the input), if any.
pub(super) fn choice(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(c, rest)| (*c, rest))
}
