//! A position as a text diagram (`tengu show`, terminal play, the Python `Board`'s `str`).

use std::fmt::Write;

use crate::notation::piece_token;
use crate::{Color, Position, Square};

/// A board diagram: files across (numbered from Black's right, as §12.1 names them), ranks
/// down (`a` at the top), Black's pieces upper case, White's lower case, `.` an empty
/// square; then the side to move (in check, after a pass) and the position as §12.2 text.
pub fn diagram(pos: &Position) -> String {
    let size = pos.size();
    let v = pos.variant();
    let mut out = String::new();
    let _ = write!(out, "    ");
    for col in 0..size {
        let _ = write!(out, "{:>4}", size - col);
    }
    out.push('\n');
    for row in 0..size {
        let _ = write!(out, "  {} ", (b'a' + row as u8) as char);
        for col in 0..size {
            match pos.piece_at(Square::new(col, row)) {
                None => out.push_str("   ."),
                Some(p) => {
                    let _ = write!(out, "{:>4}", piece_token(v, p));
                }
            }
        }
        out.push('\n');
    }
    let side = if pos.side_to_move() == Color::Black {
        "Black"
    } else {
        "White"
    };
    let _ = writeln!(
        out,
        "{} to move{}{}",
        side,
        if pos.in_check() { ", in check" } else { "" },
        if pos.after_pass() {
            ", after a pass"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "{pos}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn the_start_is_a_grid_of_the_board_side() {
        let pos = Position::initial(Variant::dai_dai());
        let text = diagram(&pos);
        let lines: Vec<&str> = text.lines().collect();
        // A header, 17 ranks, the side to move, the position text.
        assert_eq!(lines.len(), 17 + 3, "{text}");
        assert!(lines[1].starts_with("  a ") && lines[17].starts_with("  q "), "{text}");
        assert!(lines.iter().skip(1).take(17).all(|l| l.len() == 4 + 17 * 4), "{text}");
        assert_eq!(lines[18], "Black to move");
        assert_eq!(lines[19], pos.to_string());
    }
}
