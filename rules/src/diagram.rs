//! A position as a text diagram (`tengu show`, terminal play, the Python `Board`'s `str`).

use std::fmt::Write;

use crate::notation::{hodges_piece, piece_token};
use crate::{Color, Position, Square};

/// A board diagram: files across (numbered from Black's right, as §12.1 names them), ranks
/// down (`a` at the top), Black's pieces upper case, White's lower case, `.` an empty
/// square; then the side to move (in check, after a pass) and the position as §12.2 text.
pub fn diagram(pos: &Position) -> String {
    let v = pos.variant();
    let mut out = grid(pos, |p| piece_token(v, p));
    footer(pos, &mut out);
    out
}

/// A board diagram for people entering moves in Hodges notation (terminal play): each
/// piece as the abbreviation its moves are written with (§12.4: `Ln`, `BD`, `+P`), White's
/// after a `v` (the shogi diagrams' mark of the side at the top: `vLn`), then a line saying
/// so, the side to move and the position as §12.2 text.
pub fn hodges_diagram(pos: &Position) -> String {
    let v = pos.variant();
    let mut out = grid(pos, |p| match p.color {
        Color::Black => hodges_piece(v, p.ty),
        Color::White => format!("v{}", hodges_piece(v, p.ty)),
    });
    let _ = writeln!(
        out,
        "Pieces as Hodges notation writes them (docs/rules/notation.md §12.4); White's after a v."
    );
    footer(pos, &mut out);
    out
}

/// The board as a grid of `token`s, every column as wide as the widest token and a space.
fn grid(pos: &Position, token: impl Fn(crate::Piece) -> String) -> String {
    let size = pos.size();
    let cells: Vec<Option<String>> = (0..size * size)
        .map(|i| pos.piece_at(Square::new(i % size, i / size)).map(&token))
        .collect();
    let width = 1 + cells
        .iter()
        .flatten()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max(2);
    let mut out = String::new();
    let _ = write!(out, "    ");
    for col in 0..size {
        let _ = write!(out, "{:>width$}", size - col);
    }
    out.push('\n');
    for row in 0..size {
        let _ = write!(out, "  {} ", (b'a' + row as u8) as char);
        for col in 0..size {
            let cell = cells[row * size + col].as_deref().unwrap_or(".");
            let _ = write!(out, "{cell:>width$}");
        }
        out.push('\n');
    }
    out
}

/// The side to move (in check, after a pass) and the position's §12.2 text.
fn footer(pos: &Position, out: &mut String) {
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
        assert!(
            lines[1].starts_with("  a ") && lines[17].starts_with("  q "),
            "{text}"
        );
        assert!(
            lines.iter().skip(1).take(17).all(|l| l.len() == 4 + 17 * 4),
            "{text}"
        );
        assert_eq!(lines[18], "Black to move");
        assert_eq!(lines[19], pos.to_string());
    }

    #[test]
    fn the_hodges_diagram_shows_each_piece_as_its_moves_name_it() {
        for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
            let pos = Position::initial(variant.clone());
            let text = hodges_diagram(&pos);
            let size = pos.size();
            let lines: Vec<&str> = text.lines().collect();
            // A header, the ranks, the legend, the side to move, the position text.
            assert_eq!(lines.len(), size + 4, "{text}");
            let rows: Vec<Vec<&str>> = lines[1..=size]
                .iter()
                .map(|l| l.split_whitespace().skip(1).collect())
                .collect();
            for row in 0..size {
                assert_eq!(rows[row].len(), size, "{}", lines[row + 1]);
                for col in 0..size {
                    let cell = rows[row][col];
                    let Some(p) = pos.piece_at(Square::new(col, row)) else {
                        assert_eq!(cell, ".");
                        continue;
                    };
                    let (white, name) = match cell.strip_prefix('v') {
                        Some(rest) => (true, rest),
                        None => (false, cell),
                    };
                    assert_eq!(white, p.color == Color::White, "{cell}");
                    // The abbreviation a move of the piece starts with.
                    let hodges = pos
                        .legal_move_list()
                        .into_iter()
                        .find(|m| m.from() == Square::new(col, row))
                        .map(|m| pos.hodges(m));
                    if let Some(h) = hodges {
                        assert!(h.starts_with(name), "{cell} moves as {h}");
                    }
                    assert_eq!(name, hodges_piece(&variant, p.ty));
                }
            }
            assert!(lines[size + 1].contains("Hodges"), "{text}");
        }
        // The Blue Dragon: BDR in position text (and its diagram), BD in moves and on this
        // board (whose last line is still the position text).
        let pos = Position::initial(Variant::dai_dai());
        let board =
            |text: String| -> String { text.lines().take(18).collect::<Vec<_>>().join("\n") };
        let (plain, hodges) = (board(diagram(&pos)), board(hodges_diagram(&pos)));
        assert!(
            plain.contains(" BDR") && !hodges.contains("BDR"),
            "{hodges}"
        );
        assert!(
            hodges.contains(" BD ") && hodges.contains(" vBD"),
            "{hodges}"
        );
    }
}
