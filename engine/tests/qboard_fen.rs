//! QBoard's FEN for `setboard`: the shipped code tables, the start positions as QBoard's
//! source sets them up, round trips of many random positions, and refusals of bad FENs.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_engine::fen::{parse_position, QboardCodes};
use tengu_engine::xboard::alphabeta;
use tengu_engine::{Engine, Flow, Settings};
use tengu_rules::{Game, Position, Variant};

/// The start positions in QBoard's codes, derived from QBoard's board set-up
/// (DaiDaiShogiBoard.h, MakaDaiDaiShogiBoard.h) and its FEN writer, not from tengu.
const DD_START: &str = "ly!d~rh~dp'r~kl~qu'hg~t!j'l/am'n!c~f'x'ogb~gxzi~o!nk'a/1b1e~1a~1sq~s1w!1f~1v1/j~o'g'c'w'ujcp~cjuw'b'h'n'k~/r'mv'a'wn~fo~y'o~fn~wa'v'ml'/ppppppppppppppppp/5m~5m~5/17/17/17/5M~5M~5/PPPPPPPPPPPPPPPPP/L'MV'A'WN~FO~Y'O~FN~WA'V'MR'/K~N'H'B'W'UJCP~CJUW'C'G'O'J~/1V1F~1W!1SQ~S1A~1E~1B1/AK'NO!I~ZXGB~GOX'F'C~N!M'A/LJ'T!G~HU'QL~KR~P'DH~RD~Y!L";
const MDD_START: &str = "le'ut'jcsgg!ka!gscjt'ue'l/a1z1m!1j!ftetfi!1k!1z1a/1o!1a'1l!1wxnow1l!1a'1o!1/u!1y1v'1f't!r!n!p!s!f'1v'1y1u!/rr'mz!vbhdy!qx!dhbvz!ml'r/ppppppppppppppppppp/5i7i5/19/19/19/19/19/5I7I5/PPPPPPPPPPPPPPPPPPP/RL'MZ!VBHDX!QY!DHBVZ!MR'R/U!1Y1V'1F'S!P!N!R!T!F'1V'1Y1U!/1O!1A'1L!1WONXW1L!1A'1O!1/A1Z1K!1I!FTETFJ!1M!1Z1A/LE'UT'JCSGA!KG!GSCJT'UE'L";

fn variants() -> [std::sync::Arc<Variant>; 2] {
    [
        Variant::dai_dai(),
        Variant::builtin("maka-dai-dai").unwrap(),
    ]
}

#[test]
fn the_start_positions_read_and_write_as_qboard_sets_them_up() {
    for (variant, board) in variants().into_iter().zip([DD_START, MDD_START]) {
        let codes = QboardCodes::for_variant(&variant).unwrap();
        let start = Position::initial(variant.clone());
        assert_eq!(
            codes.to_fen(&start),
            format!("{board} w 1"),
            "{}",
            variant.name()
        );
        // As QBoard saves a file (no move number) and as `setboard` receives it.
        assert_eq!(codes.parse_fen(&format!("{board} w")).unwrap(), start);
        assert_eq!(
            parse_position(&format!("{board} w\n\n"), &variant).unwrap(),
            start
        );
        let black_to_move = codes.parse_fen(&format!("{board} b 7")).unwrap();
        assert_eq!(black_to_move.side_to_move(), tengu_rules::Color::White);
    }
}

/// Random games (captures preferred, so promotions and lost pieces occur) of both variants.
fn random_positions(variant: &std::sync::Arc<Variant>, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..6 {
        let mut game = Game::new(Position::initial(variant.clone()));
        for _ in 0..rng.gen_range(50..260) {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_move_list();
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !captures.is_empty() && rng.gen_bool(0.8) {
                *captures[rng.gen_range(0..captures.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            };
            game.play(m).unwrap();
            if !game.position().after_pass() && rng.gen_bool(0.1) {
                out.push(game.position().clone());
            }
        }
    }
    out
}

#[test]
fn random_positions_round_trip() {
    for variant in variants() {
        let codes = QboardCodes::for_variant(&variant).unwrap();
        let positions = random_positions(&variant, 11);
        assert!(positions.len() > 20, "{}", variant.name());
        let mut promoted_seen = 0;
        for pos in &positions {
            let fen = codes.to_fen(pos);
            assert!(!fen.contains(','), "{fen}");
            assert_eq!(&codes.parse_fen(&fen).unwrap(), pos, "{fen}");
            promoted_seen += fen.matches('+').count();
        }
        assert!(
            promoted_seen > 0,
            "{}: no promoted piece met",
            variant.name()
        );
    }
}

#[test]
fn the_code_tables_are_checked() {
    let dd = Variant::dai_dai();
    let good = include_str!("../../configs/qboard/dai-dai.toml");
    // A code that reads back as another piece, a missing piece and an unknown key are refused.
    let swapped = good.replacen("\"K\" = \"K\"", "\"K\" = \"Q\"", 1);
    let e = QboardCodes::parse(&dd, &swapped).unwrap_err().to_string();
    assert!(e.contains("does not read back"), "{e}");
    let missing = good.replacen("\"K\" = \"K\"\n", "", 1);
    let e = QboardCodes::parse(&dd, &missing).unwrap_err().to_string();
    assert!(e.contains("no code to write K"), "{e}");
    let unknown = format!("extra = 1\n{good}");
    assert!(QboardCodes::parse(&dd, &unknown).is_err());
    let bad_code = good.replacen("[read]\n", "[read]\n\"KK\" = \"K\"\n", 1);
    let e = QboardCodes::parse(&dd, &bad_code).unwrap_err().to_string();
    assert!(e.contains("\"KK\" is not a code"), "{e}");
}

#[test]
fn bad_fens_are_refused_by_name_and_never_panic() {
    let dd = Variant::dai_dai();
    let codes = QboardCodes::for_variant(&dd).unwrap();
    let start = format!("{DD_START} w");
    let cases = [
        (start.replacen("/17/", "/16/", 1), "has 16 squares"),
        (
            start.replacen("/17/", "/18/", 1),
            "an empty count of 18 (1 to 17)",
        ),
        (start.replacen("/17/", "/17P/", 1), "more than 17 squares"),
        (start.replacen("/17/", "/5Q~11/", 1), ""),
        (
            start.replacen("/17/", "/8$8/", 1),
            "does not start a piece code",
        ),
        (
            start.replacen("/17/", "/8Y~8/", 1),
            "not a QBoard piece code",
        ),
        (start.replacen(" w", " x", 1), "side to move"),
        (DD_START.to_string(), "no side to move"),
        (start.replacen("/17/", "/", 1), "ranks"),
        (start.replacen("/17/", "/0/17/", 1), "ranks"),
        (start.replacen("/17/", "/0/", 1), "an empty count of 0"),
        (
            start.replacen("/17/", "/18446744073709551615/", 1),
            "an empty count of",
        ),
        (
            start.replacen("/17/", "/99999999999999999999999/", 1),
            "bad empty count",
        ),
    ];
    for (fen, want) in &cases {
        match codes.parse_fen(fen) {
            Ok(_) => assert!(want.is_empty(), "{fen} was accepted"),
            Err(e) => assert!(e.to_string().contains(want), "{fen}: {e}"),
        }
    }
    // Mutations of a real FEN: an error or a position, never a panic.
    let mut rng = SmallRng::seed_from_u64(5);
    let alphabet = b"+/0123456789'!~`KkQqNnAaZz w";
    for _ in 0..3000 {
        let mut bytes = start.clone().into_bytes();
        for _ in 0..rng.gen_range(1..4) {
            let i = rng.gen_range(0..bytes.len());
            match rng.gen_range(0..3) {
                0 => bytes[i] = alphabet[rng.gen_range(0..alphabet.len())],
                1 => {
                    bytes.remove(i);
                }
                _ => bytes.insert(i, alphabet[rng.gen_range(0..alphabet.len())]),
            }
        }
        let text = String::from_utf8(bytes).unwrap();
        let _ = parse_position(&text, &dd);
    }
}

#[test]
fn setboard_takes_a_qboard_fen_and_the_engine_plays_from_it() {
    let mut e = Engine::new(
        Vec::new(),
        Settings::default(),
        Box::new(|v| Ok(alphabeta(v, std::time::Duration::from_millis(20), 3).into())),
    );
    let feed = |e: &mut Engine<Vec<u8>>, line: &str| {
        e.output_mut().clear();
        assert_eq!(e.handle(line), Flow::Continue, "{line}");
        String::from_utf8(e.output().clone()).unwrap()
    };
    feed(&mut e, "xboard");
    feed(&mut e, "protover 2");
    feed(&mut e, "new");
    // A Maka Dai Dai position from random play, sent while the engine is set to Dai Dai:
    // the FEN's 19 ranks pick the game, as with tengu's own text.
    let mdd = Variant::builtin("maka-dai-dai").unwrap();
    let pos = random_positions(&mdd, 3).pop().unwrap();
    let fen = QboardCodes::for_variant(&mdd).unwrap().to_fen(&pos);
    let out = feed(&mut e, &format!("setboard {fen}"));
    assert!(!out.contains("Illegal") && !out.contains("Error"), "{out}");
    assert_eq!(e.game().position(), &pos);
    let out = feed(&mut e, "setboard lj't!g~/17 w");
    assert!(
        out.starts_with("tellusererror Illegal position: QBoard FEN"),
        "{out}"
    );
    assert_eq!(e.game().position(), &pos, "a bad FEN changes nothing");
    let out = feed(&mut e, "go");
    assert!(
        out.contains("move "),
        "the engine plays from the FEN position: {out}"
    );
    assert_eq!(e.game().len(), 1);
}
