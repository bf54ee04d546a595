//! What one move's search may cost ([`Limits`]: time, visits, depth, excluded root moves)
//! and how another thread ends it early ([`Stop`]): the budget every player and search
//! takes, MCTS and alpha-beta alike.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tengu_rules::Move;

/// What a search may spend on one move. Every field caps the search; `None` leaves that
/// side open (with nothing set, a player uses its own default budget).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Wall-clock time for the whole move: the search returns by then.
    pub time: Option<Duration>,
    /// Root visits (MCTS; alpha-beta ignores it).
    pub visits: Option<u32>,
    /// Plies of full-width search (alpha-beta; MCTS ignores it).
    pub depth: Option<u32>,
    /// Root moves the search must not play (a book builder's "second best", or moves a
    /// caller has ruled out).
    pub exclude: Vec<Move>,
}

impl Limits {
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }

    pub fn visits(visits: u32) -> Limits {
        Limits {
            visits: Some(visits),
            ..Limits::default()
        }
    }

    /// Whether nothing caps the search (it runs until stopped, or to its own defaults).
    pub fn is_open(&self) -> bool {
        self.time.is_none() && self.visits.is_none() && self.depth.is_none()
    }
}

/// Why a running search was asked to end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Return the best move found so far (XBoard `?`).
    MoveNow,
    /// Return at once; the caller discards the result (a command that ends the search).
    Abort,
}

/// A flag another thread sets to end a search early; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicU8>);

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks the search to end. An `Abort` is never downgraded to `MoveNow`.
    pub fn request(&self, reason: StopReason) {
        let code = match reason {
            StopReason::MoveNow => 1,
            StopReason::Abort => 2,
        };
        self.0.fetch_max(code, Ordering::SeqCst);
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    pub fn reason(&self) -> Option<StopReason> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            1 => Some(StopReason::MoveNow),
            _ => Some(StopReason::Abort),
        }
    }

    pub fn clear(&self) {
        self.0.store(0, Ordering::SeqCst);
    }
}
