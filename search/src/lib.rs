//! Search for tengu over the `Evaluator` trait: the one search driver (a search per root,
//! whose leaves the caller evaluates in batches: self-play with hundreds, the
//! single-position search with one), the tree, PUCT selection, the Gumbel root, root noise
//! and root move ranking, leaf evaluation with the capture-only exchange search, what a
//! move may cost (`Limits`, `Stop`) and what a search reports (`Thought`), classical
//! alpha-beta, and the players (random, greedy, alpha-beta, raw policy, MCTS) that the
//! arena, the XBoard engine, terminal play and the book builder share. Self-play's game
//! loop around the driver lives in `tengu-selfplay`.
//!
//! The modules from the ground up, each importing only modules before it: `mate`,
//! `exchange`, `config`, `noise`, `limits`, `thought`; `alphabeta`, `teacher` (its fixed-depth
//! search), `leaf`; `node`, `selection`, `root_ranking`, `gumbel`, `tree`; `driver`,
//! `search`; `players` on top (`tests/module_graph.rs` fails on any circle).
//!
//! Searching the opening position of Dai Dai Shogi with the uniform evaluator (every move
//! alike, value 0) for 16 root visits, and reading the best move and the policy target:
//!
//! ```
//! use tengu_model::UniformEvaluator;
//! use tengu_rules::{Game, Position, Variant};
//! use tengu_search::limits::{Limits, Stop};
//! use tengu_search::search::{search, search_game, SearchRequest};
//! use tengu_search::SearchConfig;
//!
//! let game = Game::new(Position::initial(Variant::dai_dai()));
//! let config = SearchConfig::default();
//! let request = SearchRequest {
//!     game: &game,
//!     config: &config,
//!     limits: &Limits::visits(16),
//!     stop: &Stop::new(),
//!     max_plies: u32::MAX,
//!     seed: 1,
//! };
//! let thought = search(&request, &mut UniformEvaluator, &mut |_| {})
//!     .unwrap()
//!     .expect("the opening position has legal moves");
//! assert_eq!(thought.nodes, 16, "root visits");
//! assert!(game.position().is_legal(thought.best));
//! assert_eq!(thought.pv.first(), Some(&thought.best));
//! println!("best {}", game.position().move_text(thought.best));
//!
//! // The fixed-visit search self-play uses: a policy target over the searched moves.
//! let result = search_game(&game, &mut UniformEvaluator, &config, 16, u32::MAX, 1)
//!     .unwrap()
//!     .expect("the opening position has legal moves");
//! assert_eq!(result.visits, 16);
//! let total: f32 = result.policy.iter().map(|(_, weight)| weight).sum();
//! assert!((total - 1.0).abs() < 1e-4, "policy weights sum to 1, not {total}");
//! assert!(result.policy.iter().all(|(m, _)| game.position().is_legal(*m)));
//! ```

pub mod alphabeta;
pub mod config;
pub mod driver;
pub mod exchange;
pub mod gumbel;
pub mod leaf;
pub mod limits;
pub mod mate;
pub mod node;
pub mod noise;
pub mod players;
pub mod root_ranking;
pub mod search;
pub mod selection;
pub mod teacher;
pub mod thought;
pub mod tree;

pub use config::{LeafMaterial, RootSelection, SearchConfig};
