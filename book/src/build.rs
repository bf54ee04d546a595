//! Growing a book by search (KataGo's `genbook` loop, one expansion at a time).
//!
//! An expansion takes the node with the cheapest expansion cost, adds the best move of its
//! own search (the search over moves not in the book) as a book move, searches the new
//! position (unless the game is over there or the position is already in the book: a
//! transposition), and searches the node again without the new move. Two searches per new
//! position. Everything a search depends on is in the file and each search's seed derives
//! from the book seed and the position, so growing a book in several runs gives the same
//! bytes as growing it in one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengu_model::{EvalError, Evaluator};
use tengu_rules::{Game, Move, Position};
use tengu_search::search::search_excluding;
use tengu_search::SearchConfig;

use crate::book::Book;
use crate::file::BookError;
use crate::graph::GraphError;
use crate::graph::{Edge, Node, OwnSearch};
use crate::key::BookKey;

/// What one expansion did.
#[derive(Clone, Debug, PartialEq)]
pub struct Expansion {
    /// The node expanded.
    pub node: u32,
    /// The move added.
    pub mv: Move,
    /// The node the move leads to.
    pub child: u32,
    /// Whether the child is a new position (else a transposition into the book).
    pub new: bool,
    /// Searches run.
    pub searches: u32,
    /// The expansion cost that chose the node.
    pub cost: f32,
}

/// Why building stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("book integrity: {0}")]
    Integrity(#[source] GraphError),
    /// Saving the book failed (the caller's `save`).
    #[error(transparent)]
    Save(#[from] BookError),
}

/// Expands books with one evaluator and search settings.
pub struct Builder<'a> {
    pub eval: &'a mut dyn Evaluator,
    pub config: SearchConfig,
}

impl<'a> Builder<'a> {
    pub fn new(eval: &'a mut dyn Evaluator, config: SearchConfig) -> Builder<'a> {
        Builder { eval, config }
    }
}

fn mix(a: u64, b: u64) -> u64 {
    tengu_rules::hash::mix64(a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

impl Builder<'_> {
    /// The search seed of a position searched with `excluded` book moves.
    fn seed(book: &Book, key: BookKey, excluded: usize) -> u64 {
        mix(
            mix(book.header.seed, key.0 as u64),
            mix((key.0 >> 64) as u64, excluded as u64),
        )
    }

    /// Searches `game`'s position without `exclude`; `None` if no move is left.
    fn own_search(
        &mut self,
        book: &Book,
        game: &Game,
        exclude: &[Move],
    ) -> Result<Option<OwnSearch>, BuildError> {
        let key = BookKey::of(game.position());
        let seed = Self::seed(book, key, exclude.len());
        let found = search_excluding(
            game,
            self.eval,
            &self.config,
            book.header.visits,
            exclude,
            book.header.max_plies,
            seed,
        )?;
        Ok(found.map(|s| OwnSearch {
            value: s.value,
            draw: s.draw,
            visits: s.visits,
            best: s.best,
            best_prior: s
                .legal
                .iter()
                .find(|(m, _)| *m == s.best)
                .map_or(0.0, |(_, p)| *p),
        }))
    }

    /// The exact value for the side to move if the game is over (the ply cap included).
    fn terminal(book: &Book, game: &Game) -> Option<f32> {
        tengu_search::tree::terminal_value(game, book.header.max_plies)
    }

    /// Adds the root (the start position) to an empty book.
    pub fn add_root(&mut self, book: &mut Book) -> Result<(), BuildError> {
        assert!(book.is_empty(), "the book has a root");
        let game = Game::new(Position::initial(book.variant.clone()));
        let terminal = Self::terminal(book, &game);
        let own = match terminal {
            Some(_) => None,
            None => self.own_search(book, &game, &[])?,
        };
        book.graph.push(Node {
            key: BookKey::of(game.position()),
            parent: None,
            ply: 0,
            side: game.position().side_to_move(),
            edges: Vec::new(),
            own,
            terminal,
        });
        book.refresh();
        Ok(())
    }

    /// Runs one expansion; `None` when no node can be expanded (the book is complete).
    pub fn expand(&mut self, book: &mut Book) -> Result<Option<Expansion>, BuildError> {
        if book.is_empty() {
            self.add_root(book)?;
        }
        let Some(id) = book.derived.next_to_expand() else {
            return Ok(None);
        };
        let cost = book.derived.expansion[id as usize];
        let game = book.game(id).map_err(BuildError::Integrity)?;
        let node = book.node(id).clone();
        let own = node.own.clone().expect("expandable nodes have a search");
        let mv = own.best;
        let mut child_game = game.clone();
        child_game.play_unchecked(mv);
        let child_key = BookKey::of(child_game.position());
        let mut searches = 0;
        let (child, new) = match book.graph.find(child_key) {
            Some(c) => (c, false),
            None => {
                let terminal = Self::terminal(book, &child_game);
                let child_own = match terminal {
                    Some(_) => None,
                    None => {
                        searches += 1;
                        self.own_search(book, &child_game, &[])?
                    }
                };
                let c = book.graph.push(Node {
                    key: child_key,
                    parent: Some((id, mv)),
                    ply: node.ply + 1,
                    side: child_game.position().side_to_move(),
                    edges: Vec::new(),
                    own: child_own,
                    terminal,
                });
                (c, true)
            }
        };
        let mut exclude: Vec<Move> = node.edges.iter().map(|e| e.mv).collect();
        exclude.push(mv);
        searches += 1;
        let again = self.own_search(book, &game, &exclude)?;
        let n = &mut book.graph.nodes[id as usize];
        n.edges.push(Edge {
            mv,
            child,
            prior: own.best_prior,
        });
        n.own = again;
        book.header.expansions += 1;
        book.refresh();
        Ok(Some(Expansion {
            node: id,
            mv,
            child,
            new,
            searches,
            cost,
        }))
    }
}

/// When a build stops.
#[derive(Clone, Debug, Default)]
pub struct BuildLimits {
    /// Stop once the book holds this many positions.
    pub positions: Option<usize>,
    /// Stop after this much wall time.
    pub time: Option<Duration>,
    /// Save after this many expansions (0: only at the end).
    pub save_every: u64,
}

/// Why a build loop ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BuildEnd {
    Positions,
    Time,
    Interrupted,
    Complete,
}

impl std::fmt::Display for BuildEnd {
    /// Plain words for the end of a build (`stopped: time limit`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BuildEnd::Positions => "position limit",
            BuildEnd::Time => "time limit",
            BuildEnd::Interrupted => "interrupted",
            BuildEnd::Complete => "nothing left to expand",
        })
    }
}

/// Adds the start position to an empty `book`, then expands it until a limit, `stop`, or
/// nothing is left (so the book saved holds at least the start); calls `save` every
/// `limits.save_every` expansions and once at the end, and `progress` after each expansion.
pub fn build(
    builder: &mut Builder<'_>,
    book: &mut Book,
    limits: &BuildLimits,
    stop: &AtomicBool,
    save: &mut dyn FnMut(&Book) -> Result<(), BookError>,
    progress: &mut dyn FnMut(&Book, &Expansion),
) -> Result<BuildEnd, BuildError> {
    let start = Instant::now();
    // The start position first, whatever the limits: a saved book is never empty.
    if book.is_empty() {
        builder.add_root(book)?;
    }
    let mut since_save = 0u64;
    let end = loop {
        if limits.positions.is_some_and(|p| book.len() >= p) {
            break BuildEnd::Positions;
        }
        if limits.time.is_some_and(|t| start.elapsed() >= t) {
            break BuildEnd::Time;
        }
        if stop.load(Ordering::Relaxed) {
            break BuildEnd::Interrupted;
        }
        match builder.expand(book)? {
            None => break BuildEnd::Complete,
            Some(x) => progress(book, &x),
        }
        since_save += 1;
        if limits.save_every > 0 && since_save >= limits.save_every {
            save(book)?;
            since_save = 0;
        }
    };
    save(book)?;
    Ok(end)
}
