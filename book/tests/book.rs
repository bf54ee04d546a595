//! Opening books: growth, files, integrity, probing, picking and opening selection.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tengu_book::file::BookHeader;
use tengu_book::graph::{Edge, Node, OwnSearch};
use tengu_book::{
    balanced_openings, Book, BookError, BookKey, BuildLimits, Builder, OpeningFilter, PickOptions,
};
use tengu_model::{EvalError, EvalInput, Evaluation, Evaluator};
use tengu_rules::hash::splitmix64;
use tengu_rules::{Game, Move, Position, Variant};
use tengu_search::SearchConfig;
use tengu_store::framed::FrameError;

/// Policy and value from a hash of the position and each move: deterministic per position
/// (unlike a seeded random evaluator, whose answers depend on the order of calls), so a
/// book grown in two runs can be compared with one grown in one.
struct KeyedEvaluator;

fn unit(x: u64) -> f32 {
    (x >> 40) as f32 / (1u64 << 24) as f32
}

impl Evaluator for KeyedEvaluator {
    fn name(&self) -> String {
        "keyed".into()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        Ok(batch
            .iter()
            .map(|input| {
                let k = BookKey::of(input.position).0 as u64;
                let mut policy: Vec<f32> = input
                    .moves
                    .iter()
                    .map(|m| (4.0 * unit(splitmix64(k ^ m.to_bits()))).exp())
                    .collect();
                let sum: f32 = policy.iter().sum();
                policy.iter_mut().for_each(|p| *p /= sum);
                let w = 0.5 * unit(splitmix64(k));
                let d = 0.5 * unit(splitmix64(k ^ 1));
                Evaluation {
                    policy,
                    wdl: [w, d, 1.0 - w - d],
                    material: 0.0,
                    residual: 0.0,
                }
            })
            .collect())
    }
}

fn header(variant: &Arc<Variant>, visits: u32, seed: u64) -> BookHeader {
    let search = SearchConfig::default();
    BookHeader::new(variant, "keyed".into(), 0, 0, visits, 300, &search, seed)
}

fn grow(book: &mut Book, positions: usize) {
    let mut eval = KeyedEvaluator;
    let mut builder = Builder::new(&mut eval, SearchConfig::default());
    let limits = BuildLimits {
        positions: Some(positions),
        ..BuildLimits::default()
    };
    tengu_book::build(
        &mut builder,
        book,
        &limits,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_, _| {},
    )
    .unwrap();
}

fn grown(positions: usize) -> Book {
    let v = Variant::dai_dai();
    let mut book = Book::new(v.clone(), header(&v, 12, 5));
    grow(&mut book, positions);
    book
}

#[test]
fn a_book_grown_in_two_runs_equals_one_grown_in_one_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.tbk");
    let first = grown(25);
    first.save(&path).unwrap();
    // A new process: load the file and continue.
    let mut again = Book::load(&path).unwrap();
    grow(&mut again, 60);
    let once = grown(60);
    assert_eq!(again.len(), 60);
    assert_eq!(again.to_bytes(), once.to_bytes());
    // The book grew in depth as well as breadth.
    assert!(once.graph.nodes.iter().any(|n| n.ply >= 3), "no depth");
    assert!(once.node(0).edges.len() >= 2, "no breadth at the start");
}

#[test]
fn save_and_load_round_trip_exactly_and_every_path_replays_to_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tbk");
    let book = grown(40);
    book.save(&path).unwrap();
    let loaded = Book::load(&path).unwrap();
    assert_eq!(loaded.header, book.header);
    assert_eq!(loaded.graph, book.graph);
    assert_eq!(loaded.derived, book.derived);
    assert_eq!(std::fs::read(&path).unwrap(), loaded.to_bytes());
    for id in 0..loaded.len() as u32 {
        let game = loaded.game(id).unwrap();
        assert_eq!(BookKey::of(game.position()), loaded.node(id).key);
        assert_eq!(game.len() as u32, loaded.node(id).ply);
        for e in &loaded.node(id).edges {
            let mut g = game.clone();
            g.play(e.mv).unwrap();
            assert_eq!(BookKey::of(g.position()), loaded.node(e.child).key);
        }
    }
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn damaged_truncated_and_foreign_books_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tbk");
    let book = grown(10);
    let bytes = book.to_bytes();
    let check = |data: &[u8], want: &str| {
        std::fs::write(&path, data).unwrap();
        let err = Book::load(&path).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("b.tbk") && text.contains(want), "{text}");
        err
    };
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x40;
    assert!(matches!(
        check(&flipped, "checksum"),
        BookError::Frame {
            frame: FrameError::Checksum { .. },
            ..
        }
    ));
    assert!(matches!(
        check(&bytes[..bytes.len() - 9], "truncated"),
        BookError::Frame {
            frame: FrameError::Truncated { .. },
            ..
        }
    ));
    check(&bytes[..5], "truncated");
    assert!(matches!(
        check(b"TENGUSHD and then something", "not a tengu book"),
        BookError::Frame {
            frame: FrameError::BadMagic { kind: "book" },
            ..
        }
    ));
    let mut version = bytes.clone();
    version[8] = 99;
    assert!(matches!(
        check(&version, "version 99"),
        BookError::Frame {
            frame: FrameError::Version { found: 99, .. },
            ..
        }
    ));
    let missing = Book::load(&dir.path().join("missing.tbk")).unwrap_err();
    assert!(missing.to_string().contains("missing.tbk"));
}

#[test]
fn a_node_whose_path_does_not_lead_to_its_key_is_refused() {
    // A hand-made book whose second node claims the key of another position: the payload
    // checksum is right, the integrity check must catch it.
    let v = Variant::dai_dai();
    let start = Position::initial(v.clone());
    let moves = start.legal_move_list();
    let mut book = hand_made(&v);
    book.graph.nodes[1].key = BookKey(12345);
    let bytes = tengu_book::file::to_bytes(&book.header, &book.graph, &v);
    let err = Book::from_bytes(&bytes, "forged.tbk")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("forged.tbk") && err.contains("node 1"),
        "{err}"
    );
    let _ = moves;
}

/// A book by hand: the start with two book moves A and B, and A with one book move C.
/// Own values (mover's view): start 0.0 over the other moves; A: White to move, -0.2;
/// B: White to move, +0.4; C: Black to move, +0.1 (so after A White's best is C, worth -0.1
/// for White, better than A's other moves at -0.2).
fn hand_made(v: &Arc<Variant>) -> Book {
    let start = Position::initial(v.clone());
    let moves = start.legal_move_list();
    let (a, b) = (moves[0], moves[1]);
    let mut pa = start.clone();
    pa.play(a);
    let c = pa.legal_move_list()[0];
    let mut pc = pa.clone();
    pc.play(c);
    let mut pb = start.clone();
    pb.play(b);
    let own = |value: f32, best: Move, visits: u32| {
        Some(OwnSearch {
            value,
            draw: 0.2,
            visits,
            best,
            best_prior: 0.1,
        })
    };
    let node = |pos: &Position, parent: Option<(u32, Move)>, ply, edges, own| Node {
        key: BookKey::of(pos),
        parent,
        ply,
        side: pos.side_to_move(),
        edges,
        own,
        terminal: None,
    };
    let nodes = vec![
        node(
            &start,
            None,
            0,
            vec![
                Edge {
                    mv: a,
                    child: 1,
                    prior: 0.5,
                },
                Edge {
                    mv: b,
                    child: 2,
                    prior: 0.25,
                },
            ],
            own(0.0, moves[2], 100),
        ),
        node(
            &pa,
            Some((0, a)),
            1,
            vec![Edge {
                mv: c,
                child: 3,
                prior: 0.3,
            }],
            own(-0.2, pa.legal_move_list()[1], 100),
        ),
        node(
            &pb,
            Some((0, b)),
            1,
            vec![],
            own(0.4, pb.legal_move_list()[0], 50),
        ),
        node(
            &pc,
            Some((1, c)),
            2,
            vec![],
            own(0.1, pc.legal_move_list()[0], 80),
        ),
    ];
    let mut book = Book::new(v.clone(), header(v, 100, 1));
    book.graph = tengu_book::graph::Graph::from_nodes(nodes).unwrap();
    book.refresh();
    book
}

#[test]
fn probe_and_pick_on_a_hand_made_book() {
    let v = Variant::dai_dai();
    let book = hand_made(&v);
    let start = Position::initial(v.clone());
    let moves = start.legal_move_list();
    // Values from Black's view: C +0.1 -> A: White chooses max(-0.2, -0.1) = -0.1 for
    // White = +0.1 for Black; B: +0.4 for White = -0.4 for Black; start: max(0.0 other,
    // +0.1 via A, -0.4 via B) = +0.1.
    assert!((book.value(0).value() - 0.1).abs() < 1e-6);
    assert!((book.value(1).value() + 0.1).abs() < 1e-6);
    let report = book.probe(&start).unwrap();
    assert_eq!(report.moves.len(), 2);
    assert_eq!(report.moves[0].mv, start.move_text(moves[0]));
    assert_eq!(report.moves[0].visits, 100);
    assert!(
        (report.moves[0].value.score - 0.55).abs() < 1e-3,
        "{report:?}"
    );
    assert!(
        (report.moves[1].value.score - 0.3).abs() < 1e-3,
        "{report:?}"
    );
    // The line of A continues with C (White's best).
    assert_eq!(report.moves[0].line.len(), 2);
    let other = report.other.as_ref().unwrap();
    assert_eq!(other.best, start.move_text(moves[2]));
    assert!((other.value.score - 0.5).abs() < 1e-3);
    // Picking: the best lower confidence bound is A; a wide drop and a temperature let B
    // in sometimes; a ply limit of 0 or a position outside the book gives nothing.
    let game = Game::new(start.clone());
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(1);
    let strict = PickOptions::default();
    assert_eq!(book.pick(&game, &mut rng, &strict), Some(moves[0]));
    assert_eq!(book.candidates(&game, &strict).len(), 1);
    let wide = PickOptions {
        max_drop: 1.0,
        temperature: 0.2,
        ..PickOptions::default()
    };
    let picks: Vec<Move> = (0..200)
        .filter_map(|_| book.pick(&game, &mut rng, &wide))
        .collect();
    assert!(picks.contains(&moves[0]) && picks.contains(&moves[1]));
    let a_share = picks.iter().filter(|&&m| m == moves[0]).count() as f32 / 200.0;
    assert!(
        a_share > 0.6,
        "A is better and picked more often: {a_share}"
    );
    let no_ply = PickOptions {
        max_ply: 0,
        ..PickOptions::default()
    };
    assert_eq!(book.pick(&game, &mut rng, &no_ply), None);
    let mut outside = game.clone();
    outside.play(moves[3]).unwrap();
    assert_eq!(book.pick(&outside, &mut rng, &strict), None);
    let many_visits = PickOptions {
        min_visits: 1000,
        ..PickOptions::default()
    };
    assert_eq!(book.pick(&game, &mut rng, &many_visits), None);
}

#[test]
fn balanced_openings_are_close_to_even_spread_and_distinct() {
    let book = grown(80);
    let filter = OpeningFilter {
        count: 10,
        min_ply: 1,
        max_ply: 6,
        max_gap: 0.2,
        max_draw: 1.0,
        max_err: 1.0,
        min_visits: 1,
        min_difference: 2,
    };
    let chosen = balanced_openings(&book, &filter);
    assert!(!chosen.is_empty());
    let mut keys = std::collections::HashSet::new();
    for c in &chosen {
        assert!((c.score - 0.5).abs() <= 0.2);
        assert!((1..=6).contains(&c.ply));
        assert!(keys.insert(book.node(c.node).key));
        // The path replays to the node.
        let mut g = Game::new(Position::initial(book.variant.clone()));
        for m in &c.path {
            let mv = g.position().parse_move(m).unwrap();
            g.play(mv).unwrap();
        }
        assert_eq!(BookKey::of(g.position()), book.node(c.node).key);
    }
    let plies: std::collections::HashSet<u32> = chosen.iter().map(|c| c.ply).collect();
    assert!(plies.len() >= 2, "openings spread over plies: {plies:?}");
}

/// A book without a position (the root) is never written, and a file of one is refused by
/// name rather than crashing its readers (`book info` and `book export` index the root).
#[test]
fn a_book_without_positions_is_never_written_and_is_refused_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.tbk");
    let v = Variant::dai_dai();
    let empty = Book::new(v.clone(), header(&v, 4, 1));
    let err = empty.save(&path).unwrap_err();
    assert!(matches!(err, BookError::Empty { .. }), "{err}");
    assert!(err.to_string().contains("no position"), "{err}");
    assert!(!path.exists(), "an empty book was written");
    // A zero-position file made by an older build is refused with the cause.
    let bytes = tengu_book::file::to_bytes(&empty.header, &empty.graph, &v);
    let err = Book::from_bytes(&bytes, "empty.tbk").unwrap_err();
    assert!(matches!(err, BookError::Empty { .. }), "{err}");
    assert!(
        err.to_string().contains("empty.tbk") && err.to_string().contains("no position"),
        "{err}"
    );
}

/// A build that stops before its first expansion (a position limit of 0, Ctrl-C at once)
/// still saves the start position: the book it leaves is never empty.
#[test]
fn a_build_stopped_before_any_expansion_saves_the_start_position() {
    let v = Variant::dai_dai();
    for (limits, stop) in [
        (
            BuildLimits {
                positions: Some(0),
                ..BuildLimits::default()
            },
            false,
        ),
        (BuildLimits::default(), true),
    ] {
        let mut book = Book::new(v.clone(), header(&v, 4, 1));
        let mut eval = KeyedEvaluator;
        let mut builder = Builder::new(&mut eval, SearchConfig::default());
        let mut saved = Vec::new();
        tengu_book::build(
            &mut builder,
            &mut book,
            &limits,
            &AtomicBool::new(stop),
            &mut |b| {
                saved.push(b.len());
                Ok(())
            },
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(book.len(), 1, "stop {stop}");
        assert_eq!(saved, vec![1], "stop {stop}");
    }
}

/// Numbers no writer produces, which a damaged file could hold, are refused with the node
/// or the field named: NaN and out-of-range values and priors (they would print as scores),
/// a ply that does not follow the path (a ply of 4 billion sizes an allocation when the
/// path is walked), negative costs (the cheapest-path search could loop on a cycle).
#[test]
fn impossible_values_in_a_book_file_are_refused_by_name() {
    let v = Variant::dai_dai();
    type Damage = Box<dyn Fn(&mut Book)>;
    let cases: Vec<(Damage, &str)> = vec![
        (
            Box::new(|b| b.graph.nodes[1].own.as_mut().unwrap().value = f32::NAN),
            "node 1",
        ),
        (
            Box::new(|b| b.graph.nodes[2].own.as_mut().unwrap().draw = 7.0),
            "node 2",
        ),
        (
            Box::new(|b| b.graph.nodes[0].edges[1].prior = -3.0),
            "node 0",
        ),
        (
            Box::new(|b| b.graph.nodes[3].terminal = Some(f32::INFINITY)),
            "node 3",
        ),
        (Box::new(|b| b.graph.nodes[3].ply = u32::MAX), "node 3"),
        (Box::new(|b| b.graph.nodes[0].ply = 5), "node 0"),
        (Box::new(|b| b.header.costs.per_move = -1.0), "per_move"),
    ];
    for (damage, want) in cases {
        let mut book = hand_made(&v);
        damage(&mut book);
        let bytes = tengu_book::file::to_bytes(&book.header, &book.graph, &v);
        let err = Book::from_bytes(&bytes, "odd.tbk").unwrap_err();
        assert!(matches!(err, BookError::Corrupt { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("odd.tbk") && text.contains(want), "{text}");
    }
}

/// Everything the readers of a loaded book do (`book info`, `probe`, `openings`, `export
/// --jsonl/--html`, the engine's picks): none may panic on a book that loaded.
fn use_every_reader(b: &Book) {
    assert!(!b.is_empty());
    let _ = (b.value(0), b.total_visits(), b.line(0, 8));
    let start = Position::initial(b.variant.clone());
    let _ = b.probe(&start);
    let _ = b.pick(
        &Game::new(start),
        &mut <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(1),
        &PickOptions::default(),
    );
    let _ = balanced_openings(b, &OpeningFilter::default());
    let _ = tengu_book::rejections(b, &OpeningFilter::default());
    tengu_book::export::write_jsonl(b, &mut std::io::sink()).unwrap();
    tengu_book::export::write_openings(b, &mut std::io::sink()).unwrap();
    let _ = tengu_book::export::html_nodes(b, 0);
    for id in 0..b.len() as u32 {
        let _ = b.game(id);
    }
}

/// Fuzz-like: every truncation of a book file, and every byte with one bit flipped (with the
/// checksum recomputed, so that the damage reaches the decoder and the integrity checks),
/// is either read or refused with an error; never a panic. Whatever is read can be used by
/// every reader (info, probe, openings, JSON lines, HTML pages) without a panic.
#[test]
fn no_truncated_or_bit_flipped_book_makes_a_reader_panic() {
    let book = grown(8);
    let bytes = book.to_bytes();
    for n in 0..bytes.len() {
        assert!(
            Book::from_bytes(&bytes[..n], "cut.tbk").is_err(),
            "a book cut to {n} bytes was read"
        );
    }
    let body = bytes.len() - 4;
    let (mut read, mut refused) = (0, 0);
    for i in 0..body {
        for bit in [i % 8, (i * 5 + 3) % 8] {
            let mut damaged = bytes[..body].to_vec();
            damaged[i] ^= 1 << bit;
            let crc = crc32fast::hash(&damaged);
            damaged.extend_from_slice(&crc.to_le_bytes());
            match Book::from_bytes(&damaged, "flip.tbk") {
                Ok(b) => {
                    use_every_reader(&b);
                    read += 1;
                }
                Err(e) => {
                    assert!(e.to_string().contains("flip.tbk"), "{e}");
                    refused += 1;
                }
            }
            // Without the checksum fixed, the damage is always caught.
            let mut raw = bytes.clone();
            raw[i] ^= 1 << bit;
            assert!(
                Book::from_bytes(&raw, "raw.tbk").is_err(),
                "byte {i} bit {bit}"
            );
        }
    }
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
}

/// A filter that can choose nothing in any book is refused by the field; when a book has no
/// qualifying position, the rejections say which test turned each position away.
#[test]
fn opening_filters_are_checked_and_rejections_are_counted_per_test() {
    use tengu_book::select::Test;
    use tengu_book::{rejections, FilterError};
    let ok = OpeningFilter::default();
    assert_eq!(ok.validate(), Ok(()));
    let zero = OpeningFilter {
        count: 0,
        ..ok.clone()
    };
    assert_eq!(zero.validate(), Err(FilterError::ZeroCount));
    let backwards = OpeningFilter {
        min_ply: 10,
        max_ply: 2,
        ..ok.clone()
    };
    assert_eq!(
        backwards.validate(),
        Err(FilterError::PlyRange { min: 10, max: 2 })
    );
    let negative = OpeningFilter {
        max_err: -0.5,
        ..ok.clone()
    };
    assert!(matches!(
        negative.validate(),
        Err(FilterError::Negative {
            field: "max_err",
            ..
        })
    ));

    // The hand-made book: 4 positions at plies 0, 1, 1, 2; every error well above 0.001.
    let book = hand_made(&Variant::dai_dai());
    let strict = OpeningFilter {
        min_ply: 1,
        max_ply: 24,
        max_gap: 1.0,
        max_draw: 1.0,
        max_err: 0.001,
        ..ok.clone()
    };
    assert!(balanced_openings(&book, &strict).is_empty());
    let r = rejections(&book, &strict);
    assert_eq!((r.positions, r.qualify), (4, 0));
    assert_eq!(r.rejected(Test::Err), 4);
    assert_eq!(r.only(Test::Err), 3, "the start also fails the ply range");
    assert_eq!(r.rejected(Test::Plies), 1);
    assert_eq!(r.only(Test::Plies), 0);
    assert_eq!(r.loosen_first(), Some(Test::Err));
    let loose = OpeningFilter {
        max_err: 1.0,
        ..strict
    };
    let r = rejections(&book, &loose);
    assert_eq!(r.qualify, 3);
    assert_eq!(balanced_openings(&book, &loose).len(), 3);
}

/// Fuzz-like, on the decoded fields: books whose nodes carry any number a damaged file could
/// hold (NaN, infinities, out-of-range values and plies, a cut node list, even no node at
/// all) are written with valid checksums; reading each is either refused with an error or
/// gives a book every reader can use. Never a panic.
#[test]
fn no_book_with_damaged_fields_makes_a_reader_panic() {
    use rand::{Rng, SeedableRng};
    let v = Variant::dai_dai();
    let books = [hand_made(&v), grown(8)];
    let odd = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -5.0,
        5.0,
        -1.0,
        0.0,
        0.5,
        1.0,
    ];
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let (mut read, mut refused) = (0, 0);
    for round in 0..600 {
        let mut book = books[round % 2].clone();
        for _ in 0..rng.gen_range(1..=3) {
            let n = book.graph.nodes.len();
            if n == 0 {
                break;
            }
            let x = odd[rng.gen_range(0..odd.len())];
            let node = &mut book.graph.nodes[rng.gen_range(0..n)];
            match rng.gen_range(0..9) {
                0 => {
                    if let Some(o) = node.own.as_mut() {
                        o.value = x;
                    }
                }
                1 => {
                    if let Some(o) = node.own.as_mut() {
                        o.draw = x;
                    }
                }
                2 => {
                    if let Some(o) = node.own.as_mut() {
                        o.best_prior = x;
                    }
                }
                3 => {
                    if let Some(e) = node.edges.first_mut() {
                        e.prior = x;
                    }
                }
                4 => node.terminal = Some(x),
                5 => node.ply = rng.gen(),
                6 => {
                    if let Some(o) = node.own.as_mut() {
                        o.visits = rng.gen();
                    }
                }
                7 => book.header.costs.per_ucb_loss = x,
                // A cut node list (edges may then point past its end), or no node at all.
                _ => book.graph.nodes.truncate(rng.gen_range(0..n)),
            }
        }
        let bytes = tengu_book::file::to_bytes(&book.header, &book.graph, &v);
        match Book::from_bytes(&bytes, "fields.tbk") {
            Ok(b) => {
                use_every_reader(&b);
                read += 1;
            }
            Err(e) => {
                assert!(e.to_string().contains("fields.tbk"), "{e}");
                refused += 1;
            }
        }
    }
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
}

/// A book that `tengu book build` wrote before books moved onto `tengu_store::framed` (12
/// Dai Dai positions, 8 visits, from a fresh tiny checkpoint): it still loads, and saving it
/// gives the same bytes, so the format on disk did not change.
#[test]
fn a_book_written_before_the_framed_container_loads_and_saves_byte_for_byte() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/before.tbk");
    let bytes = std::fs::read(&path).unwrap();
    let book = Book::load(&path).unwrap();
    assert_eq!(book.graph.nodes.len(), 12);
    assert_eq!(book.to_bytes(), bytes);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.tbk");
    book.save(&copy).unwrap();
    assert_eq!(std::fs::read(&copy).unwrap(), bytes);
}
