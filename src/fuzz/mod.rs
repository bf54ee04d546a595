//! The fuzz targets: one function per door through which tengu reads what other people and
//! programs write (text, files, protocols), each taking arbitrary bytes. A target returns
//! normally when the door refused the input or read it correctly, and panics only when an
//! invariant broke: the reader panicked itself, or a read value does not survive its
//! writer (parse -> write -> parse gives something else). A hang is the fuzzer's to see.
//!
//! The same functions run under the coverage-guided fuzzer (`fuzz/`, built by
//! `scripts/fuzz.sh`, not part of the default build) and, without it, in the test that
//! replays every kept corpus input (`tests/fuzz_corpus.rs`). docs/fuzzing.md says more.

mod differential;
mod files;
mod input;
mod protocols;
mod records;
mod rules;

/// One fuzz target: its name (the corpus folder `fuzz/corpus/<name>/`) and its function.
pub struct Target {
    pub name: &'static str,
    /// What the bytes are read as.
    pub about: &'static str,
    pub run: fn(&[u8]),
}

/// Every target, in the order docs/fuzzing.md lists them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "position",
        about: "position text (RULES.md §12.2) and QBoard FEN",
        run: rules::position,
    },
    Target {
        name: "moves",
        about: "move text in every notation (§12.3, XBoard, Hodges) in a position",
        run: rules::moves,
    },
    Target {
        name: "record",
        about: "one game record (§12.4)",
        run: rules::record,
    },
    Target {
        name: "records_file",
        about: "a worker's game-records file (`games/*.records`, JSON lines)",
        run: records::records_file,
    },
    Target {
        name: "openings",
        about: "an openings file",
        run: rules::openings,
    },
    Target {
        name: "rule_set",
        about: "a rule-set TOML table, canonical rule-set keys, and a game description",
        run: rules::rule_set,
    },
    Target {
        name: "run_config",
        about: "a run's config.toml",
        run: files::run_config,
    },
    Target {
        name: "shard",
        about: "a replay shard file",
        run: files::shard,
    },
    Target {
        name: "book",
        about: "an opening book file",
        run: files::book,
    },
    Target {
        name: "checkpoint",
        about: "a checkpoint file (safetensors with metadata), loaded as a network",
        run: files::checkpoint,
    },
    Target {
        name: "manifest",
        about: "a checkpoint's manifest (`models/model-<step>.json`)",
        run: files::manifest,
    },
    Target {
        name: "run_records",
        about: "a run's records: loss log, Elo and suite records, ladder report, match results, live game",
        run: files::run_records,
    },
    Target {
        name: "xboard",
        about: "a whole XBoard/CECP session (lines from a GUI)",
        run: protocols::xboard,
    },
    Target {
        name: "serve_http",
        about: "bytes of HTTP/1 requests to `tengu serve`, through hyper's parser and the router",
        run: protocols::serve_http,
    },
    Target {
        name: "analyze_query",
        about: "query lines to `tengu analyze` (JSON)",
        run: protocols::analyze_query,
    },
    Target {
        name: "movegen_diff",
        about: "positions from the bytes under every rule preset: the move generator against the reference generator",
        run: differential::movegen_diff,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Seeds the project's own writers make, for the targets whose files the repository holds
/// none of (a replay shard): (target, file name, bytes). `scripts/fuzz.sh` writes them
/// into the corpus before a first run.
pub fn made_seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    use tengu_rules::{Position, Variant};
    let pos = Position::initial(Variant::dai_dai());
    let moves = pos.legal_move_list();
    let size = pos.size();
    let rows: Vec<tengu_shard::Row> = (0..2u32)
        .map(|ply| tengu_shard::Row {
            position: pos.to_string(),
            repetitions: 0,
            policy: vec![
                (pos.move_text(moves[0]), 0.75),
                (pos.move_text(moves[1]), 0.25),
            ],
            result: 1,
            search_value: 0.25,
            full_search: ply == 0,
            game: 0,
            ply,
            game_plies: 2,
            material_future: [0.0, 1.0],
            occupancy_future: vec![0; 2 * size * size],
            teacher: None,
        })
        .collect();
    let header = tengu_shard::ShardHeader {
        encoder_version: tengu_model::ENCODER_VERSION,
        game: "dai-dai".into(),
        model: "uniform".into(),
        rows: rows.len() as u64,
        games: 1,
        created_unix: 1_764_000_000,
        writer: "fuzz-seed".into(),
    };
    vec![(
        "shard",
        "made-2-rows.shard",
        tengu_shard::to_bytes(&header, &rows),
    )]
}
