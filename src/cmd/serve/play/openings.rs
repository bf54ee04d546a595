//! The openings the play page starts games from: the lines of the opening books given with
//! `tengu serve --book` (read once at start) and of the book files inside the runs served
//! (`RUN/books/NAME.tbk`, read again when the run's listing changes), through the book
//! crate's reader.

use std::path::PathBuf;

use serde_json::{json, Value};
use tengu_book::Book;
use tengu_rules::{Game, Position, Variant};

use super::error::PlayError;

/// Openings listed at most per book: the first by ply, then by the book's search visits.
const LISTED: usize = 300;

/// Why a book cannot be offered.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    #[error("{origin} {path}: {source}")]
    Book {
        origin: Origin,
        path: String,
        source: tengu_book::BookError,
    },
    #[error("{origin} {path}: node {node}: {problem}")]
    Line {
        origin: Origin,
        path: String,
        node: u32,
        problem: String,
    },
    #[error("{origin} {path}: cannot be read now: {problem}")]
    Unreadable {
        origin: Origin,
        path: String,
        problem: String,
    },
}

/// Where a book came from: `--book FILE`, or a run served (`RUN/books/NAME.tbk`).
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    Flag,
    /// The run's name on the compare page.
    Run(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag => f.write_str("--book"),
            Origin::Run(name) => write!(f, "the book of run {name}"),
        }
    }
}

/// A book file inside a run: its run's name, its key and its bytes.
pub struct RunBook {
    pub run: String,
    pub key: String,
    pub bytes: Vec<u8>,
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
    /// What its openings' ids start with: its place among the `--book`s (`0`), or its run
    /// and key (`dai-dai-cpu/books/small.tbk`).
    pub id: String,
    /// The book's file name, or its run and key.
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
            .map(|(k, path)| {
                let shown = path.display().to_string();
                let book = Book::load(path).map_err(|source| OpeningsError::Book {
                    origin: Origin::Flag,
                    path: shown.clone(),
                    source,
                })?;
                let name = path
                    .file_name()
                    .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
                lines_of(k.to_string(), name, &book, &Origin::Flag, &shown)
            })
            .collect::<Result<_, _>>()?;
        Ok(Openings { books })
    }

    /// These openings and those of the runs' book files after them; a run's book that
    /// cannot be read is left out and said in the second list (the run is only read: its
    /// damage never stops the server).
    pub fn with_run_books(&self, run_books: Vec<RunBook>) -> (Openings, Vec<OpeningsError>) {
        let mut books = self.books.clone();
        let mut problems = Vec::new();
        for b in run_books {
            let origin = Origin::Run(b.run.clone());
            let id = format!("{}/{}", b.run, b.key);
            let lines = Book::from_bytes(&b.bytes, &b.key)
                .map_err(|source| OpeningsError::Book {
                    origin: origin.clone(),
                    path: b.key.clone(),
                    source,
                })
                .and_then(|book| lines_of(id.clone(), id, &book, &origin, &b.key));
            match lines {
                Ok(lines) => books.push(lines),
                Err(e) => problems.push(e),
            }
        }
        (Openings { books }, problems)
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
        // The node is a number: the book's id is what comes before the last colon.
        let (book, _) = id.rsplit_once(':').ok_or_else(|| {
            refuse(format!(
                "{id:?}: expected <book>:<node> (see /api/play/setup)"
            ))
        })?;
        let lines = self.books.iter().find(|b| b.id == book).ok_or_else(|| {
            refuse(format!(
                "{id:?}: no book {book:?} is offered ({} offered: given with --book or in the runs' books/)",
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

/// The openings of `book` (read from `shown`), offered under `id` and `name`: its positions
/// that are not over, the root left out, by ply and then by the book's search visits (most
/// first), [`LISTED`] at most.
fn lines_of(
    id: String,
    name: String,
    book: &Book,
    origin: &Origin,
    shown: &str,
) -> Result<BookLines, OpeningsError> {
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
    let positions = tengu_book::export::positions(book);
    let openings = nodes
        .into_iter()
        .map(|i| {
            let moves = tengu_book::export::path_texts(book, &positions, i);
            if moves.len() != book.node(i).ply as usize {
                return Err(OpeningsError::Line {
                    origin: origin.clone(),
                    path: shown.to_string(),
                    node: i,
                    problem: format!("{} moves for ply {}", moves.len(), book.node(i).ply),
                });
            }
            Ok(Opening {
                id: format!("{id}:{i}"),
                ply: book.node(i).ply,
                moves,
                score: book.value(i).score(),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(BookLines {
        id,
        name,
        variant: book.variant.id().to_string(),
        game: book.variant.game().to_string(),
        openings,
    })
}
