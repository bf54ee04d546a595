//! tengu as an engine: the XBoard/CECP protocol that QBoard drives (`xboard`), its move
//! notation and time manager, what a GUI's relay gets wrong (`relay`), and play in the
//! terminal (`terminal`).
//!
//! The search itself is the shared [`tengu_search::players::Player`] interface
//! with its [`Limits`](tengu_search::limits::Limits): the same players the arena uses.

pub mod clock;
pub mod fen;
pub mod notation;
pub mod relay;
pub mod terminal;
pub mod xboard;

pub use xboard::{run, Engine, EnginePlayer, FactoryError, Flow, PlayerFactory, Settings};
