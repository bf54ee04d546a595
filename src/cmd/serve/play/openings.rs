//! The openings the play page starts games from: the lines of the opening books given with
//! `tengu serve --book`, read once at start through the book crate's reader.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tengu_book::Book;
use tengu_rules::{Game, Position, Variant};

use super::error::PlayError;

/// Openings listed at most per book: the first by ply, then by the book's search visits.
const LISTED: usize = 300;

/// Why a `--book` cannot be offered.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    #[error("--book {path}: {source}")]
    Book {
        path: String,
        source: tengu_book::BookError,
    },
    #[error("--book {path}: node {node}: {problem}")]
    Line {
        path: String,
        node: u32,
        problem: String,
    },
}

/// One line of a book: the moves from the initial position to a book position.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// `<book>:<node>`, the id a new game names it by.
    pub id: String,
    pub ply: u32,
    /// The moves from the initial position (RULES.md §12.3).
    pub moves: Vec<String>,
    /// The book's backed-up score of the position for its side to move, 0 to 1.
    pub score: f32,
}

/// The openings of one book.
#[derive(Clone, Debug)]
pub struct BookLines {
    /// The book's file name.
    pub name: String,
    /// The variant's id (its rule set) and the game its networks play.
    pub variant: String,
    pub game: String,
    pub openings: Vec<Opening>,
}

/// Every book's openings, in the order the books were given.
#[derive(Clone, Debug, Default)]
pub struct Openings {
    books: Vec<BookLines>,
}

impl Openings {
    /// Reads each book (a book that cannot be read, or a line of it that does not replay, is
    /// an error naming the file).
    pub fn read(paths: &[PathBuf]) -> Result<Openings, OpeningsError> {
        let books = paths
            .iter()
            .enumerate()
            .map(|(k, path)| lines_of(k, path))
            .collect::<Result<_, _>>()?;
        Ok(Openings { books })
    }

    /// The books and their openings, for the page:
    /// `[{"name", "variant", "game", "openings": [{"id", "ply", "moves", "score"}]}]`.
    pub fn json(&self) -> Value {
        Value::from(
            self.books
                .iter()
                .map(|b| {
                    let openings: Vec<Value> = b
                        .openings
                        .iter()
                        .map(|o| json!({"id": o.id, "ply": o.ply, "moves": o.moves, "score": o.score}))
                        .collect();
                    json!({"name": b.name, "variant": b.variant, "game": b.game, "openings": openings})
                })
                .collect::<Vec<_>>(),
        )
    }

    /// The game of opening `id` under `variant` (the new game's rules), or why not: a book
    /// or line that is not offered, a book of other rules.
    pub fn game(&self, id: &str, variant: &std::sync::Arc<Variant>) -> Result<Game, PlayError> {
        let refuse = |problem: String| PlayError::field("opening", problem);
        let (book, _) = id.split_once(':').ok_or_else(|| {
            refuse(format!(
                "{id:?}: expected <book>:<node> (see /api/play/setup)"
            ))
        })?;
        let lines = book
            .parse::<usize>()
            .ok()
            .and_then(|k| self.books.get(k))
            .ok_or_else(|| {
                refuse(format!(
                    "{id:?}: no book {book:?} is offered ({} given with --book)",
                    self.books.len()
                ))
            })?;
        let opening = lines
            .openings
            .iter()
            .find(|o| o.id == id)
            .ok_or_else(|| refuse(format!("{id:?}: not a line of the book {}", lines.name)))?;
        if lines.variant != variant.id() {
            return Err(refuse(format!(
                "the book {} is of {}, the game asked for is {}",
                lines.name,
                lines.variant,
                variant.id()
            )));
        }
        let mut game = Game::new(Position::initial(variant.clone()));
        for text in &opening.moves {
            let m = game
                .position()
                .parse_move(text)
                .map_err(|e| refuse(format!("{id:?}: {text}: {e}")))?;
            game.play(m)
                .map_err(|e| refuse(format!("{id:?}: {text}: {e}")))?;
        }
        Ok(game)
    }
}

/// The openings of book number `k` at `path`: its positions that are not over, the root
/// left out, by ply and then by the book's search visits (most first), [`LISTED`] at most.
fn lines_of(k: usize, path: &Path) -> Result<BookLines, OpeningsError> {
    let shown = path.display().to_string();
    let book = Book::load(path).map_err(|source| OpeningsError::Book {
        path: shown.clone(),
        source,
    })?;
    let mut nodes: Vec<u32> = (0..book.len() as u32)
        .filter(|&i| {
            let n = book.node(i);
            n.ply > 0 && n.terminal.is_none()
        })
        .collect();
    nodes.sort_by_key(|&i| {
        (
            book.node(i).ply,
            std::cmp::Reverse(book.node(i).visits()),
            i,
        )
    });
    nodes.truncate(LISTED);
    let positions = tengu_book::export::positions(&book);
    let openings = nodes
        .into_iter()
        .map(|i| {
            let moves = tengu_book::export::path_texts(&book, &positions, i);
            if moves.len() != book.node(i).ply as usize {
                return Err(OpeningsError::Line {
                    path: shown.clone(),
                    node: i,
                    problem: format!("{} moves for ply {}", moves.len(), book.node(i).ply),
                });
            }
            Ok(Opening {
                id: format!("{k}:{i}"),
                ply: book.node(i).ply,
                moves,
                score: book.value(i).score(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(BookLines {
        name: path
            .file_name()
            .map_or(shown.clone(), |n| n.to_string_lossy().into_owned()),
        variant: book.variant.id().to_string(),
        game: book.variant.game().to_string(),
        openings,
    })
}
