//! Exports: JSON lines (one position per line), opening lists that replay exactly, and the
//! pages of the HTML book.

use std::io::Write;

use serde::Serialize;
use tengu_rules::{Color, Position, Square};

use crate::book::Book;
use crate::html::{HtmlMove, HtmlNode, HtmlValue};
use crate::probe::WdlOut;

/// One position of the JSON-lines export.
#[derive(Clone, Debug, Serialize)]
pub struct JsonNode {
    pub key: String,
    pub ply: u32,
    pub side_to_move: String,
    /// The position (RULES.md §12.2).
    pub position: String,
    /// The canonical path from the start (§12.3 moves).
    pub path: Vec<String>,
    pub terminal: bool,
    /// Backed-up value, the mover's view.
    pub value: WdlOut,
    /// The search over the moves not in the book.
    pub other: Option<crate::probe::ProbeOther>,
    pub moves: Vec<JsonMove>,
}

#[derive(Clone, Debug, Serialize)]
pub struct JsonMove {
    #[serde(rename = "move")]
    pub mv: String,
    pub child: String,
    pub prior: f32,
    pub visits: u32,
    pub value: WdlOut,
}

/// The position of every node (see [`crate::graph::Graph::positions`]).
pub fn positions(book: &Book) -> Vec<Position> {
    book.graph.positions(&book.variant)
}

/// The canonical path of node `id` as move texts.
pub fn path_texts(book: &Book, positions: &[Position], id: u32) -> Vec<String> {
    book.graph
        .steps(id)
        .into_iter()
        .map(|(p, m)| positions[p as usize].move_text(m))
        .collect()
}

/// Writes one JSON object per position, in node order.
pub fn write_jsonl(book: &Book, out: &mut dyn Write) -> std::io::Result<()> {
    let positions = positions(book);
    for (i, pos) in positions.iter().enumerate() {
        let id = i as u32;
        let node = book.node(id);
        let moves = node
            .edges
            .iter()
            .map(|e| JsonMove {
                mv: pos.move_text(e.mv),
                child: book.node(e.child).key.hex(),
                prior: e.prior,
                visits: book.node(e.child).visits(),
                value: book.value(e.child).flip().into(),
            })
            .collect();
        let line = JsonNode {
            key: node.key.hex(),
            ply: node.ply,
            side_to_move: node.side.to_string(),
            position: pos.to_string(),
            path: path_texts(book, &positions, id),
            terminal: node.terminal.is_some(),
            value: book.value(id).into(),
            other: book.other_of(id, pos),
            moves,
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The openings-file line of node `id` (`tengu_rules::openings`): its canonical path from
/// the start, then a comment with its ply, value and key.
pub fn opening_line(book: &Book, id: u32) -> String {
    tengu_rules::openings::format_opening(
        &book.variant,
        &book.graph.path(id),
        Some(&opening_comment(book, id)),
    )
}

/// The comment of a node's opening line: ply, side to move, value, key.
pub fn opening_comment(book: &Book, id: u32) -> String {
    let n = book.node(id);
    let v = book.value(id);
    format!(
        "ply {} {} to move score {:.3} draw {:.3} err {:.3} key {}",
        n.ply,
        n.side,
        v.score(),
        v.draw,
        v.err,
        n.key.hex()
    )
}

/// Writes every non-terminal position's path from the start, one per line.
pub fn write_openings(book: &Book, out: &mut dyn Write) -> std::io::Result<usize> {
    let mut written = 0;
    for i in 0..book.len() as u32 {
        if book.node(i).terminal.is_some() {
            continue;
        }
        writeln!(out, "{}", opening_line(book, i))?;
        written += 1;
    }
    Ok(written)
}

fn html_value(w: crate::graph::Wdl, visits: u64) -> HtmlValue {
    HtmlValue {
        win: w.win,
        draw: w.draw,
        loss: w.loss,
        err: w.err,
        visits,
    }
}

/// Display index of a square: top row (rank `a`) first, each row from file N to file 1.
fn display_index(s: Square, size: usize) -> usize {
    s.row() * size + s.col()
}

/// The pages of the HTML book: every position searched with at least `min_visits` visits
/// (the root always).
pub fn html_nodes(book: &Book, min_visits: u32) -> Vec<HtmlNode> {
    let positions = positions(book);
    let size = book.variant.size();
    let included: Vec<bool> = book
        .graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            i == 0 || n.terminal.is_some() || (n.own.is_some() && n.visits() >= min_visits)
        })
        .collect();
    let files: Vec<String> = (1..=size).rev().map(|f| f.to_string()).collect();
    let ranks: Vec<String> = (0..size)
        .map(|r| ((b'a' + r as u8) as char).to_string())
        .collect();
    let mut pages = Vec::new();
    for (i, pos) in positions.iter().enumerate() {
        if !included[i] {
            continue;
        }
        let id = i as u32;
        let node = book.node(id);
        let board = Square::all(size)
            .map(|s| {
                pos.piece_at(s).map(|p| {
                    let token = tengu_rules::notation::piece_token(
                        &book.variant,
                        tengu_rules::Piece {
                            color: Color::Black,
                            ty: p.ty,
                        },
                    );
                    (token, p.color == Color::Black)
                })
            })
            .collect();
        let steps = book.graph.steps(id);
        let last_move = steps.last().map(|&(_, m)| m);
        let path = steps
            .into_iter()
            .map(|(p, m)| (positions[p as usize].move_text(m), book.node(p).key.hex()))
            .collect();
        let moves = book
            .moves_of(id)
            .into_iter()
            .map(|c| HtmlMove {
                text: pos.move_text(c.mv),
                child: included[c.child as usize].then(|| book.node(c.child).key.hex()),
                prior: c.prior,
                value: html_value(c.value, c.visits as u64),
            })
            .collect();
        let other = node
            .own
            .as_ref()
            .map(|o| html_value(o.wdl(), o.visits as u64));
        pages.push(HtmlNode {
            key: node.key.hex(),
            ply: node.ply,
            side_to_move: node.side.to_string(),
            position: pos.to_string(),
            size,
            board,
            files: files.clone(),
            ranks: ranks.clone(),
            last_move: last_move
                .map(|m| (display_index(m.from(), size), display_index(m.to(), size))),
            path,
            moves,
            other,
            value: html_value(book.value(id), node.visits() as u64),
        });
    }
    pages
}
