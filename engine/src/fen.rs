//! Positions for `setboard`: tengu's own position text (RULES.md §12.2), or an XBoard FEN
//! as QBoard writes it (see [`parse_xboard_fen`]).

use tengu_rules::Position;

/// Parses a `setboard` argument: tengu's position text first, then the XBoard FEN.
pub fn parse_position(text: &str) -> Result<Position, String> {
    let text = text.trim();
    match Position::parse(text) {
        Ok(pos) => Ok(pos),
        Err(tengu_err) => parse_xboard_fen(text).map_err(|fen_err| {
            if text.contains(',') {
                tengu_err.to_string()
            } else {
                fen_err
            }
        }),
    }
}

/// An XBoard FEN with QBoard's piece codes: not read yet. QBoard's codes (1-2 letters with
/// `'`, `!`, `~` or `` ` `` suffixes, `+` prefixes) differ between its releases (Iron is `I` in
/// some, `J` in others), so a table written from one release could silently misplace
/// pieces; QBoard sends positions only from "File > Open".
pub fn parse_xboard_fen(_text: &str) -> Result<Position, String> {
    Err(
        "XBoard FEN with QBoard piece codes is not supported yet; send tengu's position text"
            .into(),
    )
}
