//! A book: its header, the graph and the values derived from it.

use std::path::Path;
use std::sync::Arc;

use tengu_rules::{Game, Move, Position, Variant};

use crate::file::{self, BookError, BookHeader};
use crate::graph::{Derived, Graph, GraphError, Node, Wdl};
use crate::key::BookKey;

/// An opening book in memory.
#[derive(Clone, Debug)]
pub struct Book {
    pub header: BookHeader,
    pub variant: Arc<Variant>,
    pub graph: Graph,
    /// Values and costs of the current graph (see [`Book::refresh`]).
    pub derived: Derived,
}

impl Book {
    /// An empty book (the builder adds the root).
    pub fn new(variant: Arc<Variant>, header: BookHeader) -> Book {
        let graph = Graph::default();
        let derived = Derived::compute(&graph, &header.costs);
        Book {
            header,
            variant,
            graph,
            derived,
        }
    }

    /// Recomputes the derived values and costs after the graph changed.
    pub fn refresh(&mut self) {
        self.derived = Derived::compute(&self.graph, &self.header.costs);
    }

    pub fn len(&self) -> usize {
        self.graph.len()
    }

    pub fn is_empty(&self) -> bool {
        self.graph.is_empty()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        file::to_bytes(&self.header, &self.graph, &self.variant)
    }

    pub fn from_bytes(bytes: &[u8], path: &str) -> Result<Book, BookError> {
        let (header, variant, graph) = file::from_bytes(bytes, path)?;
        let derived = Derived::compute(&graph, &header.costs);
        Ok(Book {
            header,
            variant,
            graph,
            derived,
        })
    }

    /// Writes the book atomically. A book without a position (not even the start) is
    /// refused: its file could only be read as [`BookError::Empty`].
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        if self.is_empty() {
            return Err(BookError::Empty {
                path: path.display().to_string(),
            });
        }
        file::write_atomic(path, &self.to_bytes())
    }

    /// Reads and verifies a book.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let bytes = std::fs::read(path).map_err(|source| BookError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Book::from_bytes(&bytes, &path.display().to_string())
    }

    /// The node of `pos`, if in the book.
    pub fn find(&self, pos: &Position) -> Option<u32> {
        self.graph.find(BookKey::of(pos))
    }

    pub fn node(&self, id: u32) -> &Node {
        &self.graph.nodes[id as usize]
    }

    /// Backed-up value of node `id`, its mover's view.
    pub fn value(&self, id: u32) -> Wdl {
        self.derived.value[id as usize]
    }

    /// The game of node `id` (its canonical path replayed, key checked).
    pub fn game(&self, id: u32) -> Result<Game, GraphError> {
        self.graph.replay(&self.variant, id)
    }

    /// The principal line from node `id` (at most `max` moves).
    pub fn line(&self, id: u32, max: usize) -> Vec<Move> {
        self.derived.line(&self.graph, id, max)
    }

    /// Summed search visits of all nodes.
    pub fn total_visits(&self) -> u64 {
        self.graph
            .nodes
            .iter()
            .filter_map(|n| n.own.as_ref())
            .map(|o| o.visits as u64)
            .sum()
    }
}
