//! A board as SVG (Jupyter's `_repr_svg_`, `Board.svg()`): a grid of `N x N` squares seen
//! from Black's side (rank `a` at the top, file `N` at the left, as RULES.md draws it), each
//! piece as its §12.2 token (upper case Black's, lower case White's, White's turned by 180
//! degrees), file numbers above, rank letters at the right, the side to move below.

use std::fmt::Write;

use tengu_rules::{notation, Color, Position, Square};

/// Side of one square in SVG user units (pixels at 100% zoom).
const CELL: usize = 30;
/// Room for the coordinates around the grid.
const MARGIN: usize = 20;

/// Escapes text for an XML text node or attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The SVG document of `pos`; `last` (from, to) squares are shaded.
pub fn board_svg(pos: &Position, last: Option<(Square, Square)>) -> String {
    let n = pos.size();
    let side = n * CELL;
    let width = side + 2 * MARGIN;
    let height = side + 2 * MARGIN + 10;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"##
    );
    let _ = write!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = write!(
        s,
        r##"<rect x="{MARGIN}" y="{MARGIN}" width="{side}" height="{side}" fill="#f2d7a0" stroke="#000000"/>"##
    );
    for (from, to) in last.into_iter() {
        for sq in [from, to] {
            let (x, y) = (MARGIN + sq.col() * CELL, MARGIN + sq.row() * CELL);
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#c8e6a0"/>"##
            );
        }
    }
    for i in 0..=n {
        let p = MARGIN + i * CELL;
        let end = MARGIN + side;
        let _ = write!(
            s,
            r##"<line x1="{p}" y1="{MARGIN}" x2="{p}" y2="{end}" stroke="#000000" stroke-width="0.6"/><line x1="{MARGIN}" y1="{p}" x2="{end}" y2="{p}" stroke="#000000" stroke-width="0.6"/>"##
        );
    }
    for col in 0..n {
        let x = MARGIN + col * CELL + CELL / 2;
        let _ = write!(
            s,
            r##"<text x="{x}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
            MARGIN - 6,
            n - col
        );
    }
    for row in 0..n {
        let y = MARGIN + row * CELL + CELL / 2 + 4;
        let letter = (b'a' + row as u8) as char;
        let _ = write!(
            s,
            r##"<text x="{}" y="{y}" font-size="10" text-anchor="middle">{letter}</text>"##,
            MARGIN + side + MARGIN / 2
        );
    }
    let variant = pos.variant();
    for sq in Square::all(n) {
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        let token = escape(&notation::piece_token(variant, piece));
        let cx = MARGIN + sq.col() * CELL + CELL / 2;
        let cy = MARGIN + sq.row() * CELL + CELL / 2;
        let size = if token.chars().count() > 2 { 9 } else { 12 };
        let (fill, turn) = match piece.color {
            Color::Black => ("#000000", String::new()),
            Color::White => ("#b00000", format!(r#" transform="rotate(180 {cx} {cy})""#)),
        };
        let _ = write!(
            s,
            r##"<text x="{cx}" y="{}" font-size="{size}" text-anchor="middle" fill="{fill}"{turn}>{token}</text>"##,
            cy + size / 3
        );
    }
    let to_move = match pos.side_to_move() {
        Color::Black => "Black to move",
        Color::White => "White to move",
    };
    let _ = write!(
        s,
        r##"<text x="{MARGIN}" y="{}" font-size="11">{} · {to_move}</text></svg>"##,
        height - 6,
        escape(variant.name())
    );
    s
}
