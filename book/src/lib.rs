//! Opening books built by search (KataGo's `genbook`, reduced to W/D/L): a graph of
//! positions keyed by a frozen 128-bit hash, grown best-first where play is likely and
//! close, minimax-backed values (cycles and transpositions included), a checksummed file,
//! probing and picking, and exports (JSON lines, opening lists, a static HTML book).

pub mod book;
pub mod build;
pub mod export;
pub mod file;
pub mod graph;
pub mod html;
pub mod key;
pub mod minimax;
pub mod probe;
pub mod select;

pub use book::Book;
pub use build::{build, BuildEnd, BuildLimits, Builder, Expansion};
pub use file::{BookError, BookHeader};
pub use graph::{CostError, Costs, GraphError, Wdl};
pub use key::BookKey;
pub use probe::{Candidate, PickOptions};
pub use select::{balanced_openings, rejections, FilterError, OpeningFilter, Rejections};
