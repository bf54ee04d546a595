//! The XBoard notation and the protocol state machine, without processes: move round trips
//! over many random positions, QBoard's start-up transcript, refusals, the other commands.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_engine::notation::{move_lines, move_path, move_text, parse_move};
use tengu_engine::xboard::alphabeta;
use tengu_engine::{Engine, Flow, Settings};
use tengu_rules::{Game, Move, Position, Variant};

/// QBoard's reassembly of the engine's per-leg `move` lines: legs joined by commas.
fn qboard_reads(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.strip_prefix("move ").expect("a move line"))
        .collect::<Vec<_>>()
        .concat()
}

fn check_round_trip(pos: &Position, m: Move, counts: &mut [usize; 5]) {
    let size = pos.size();
    let text = move_text(m, size);
    let back = parse_move(pos, &text);
    if m.is_pass() {
        // `@@@@` names a pass, not the piece that passes (every pass leads to one position).
        assert!(back.is_ok_and(|b| b.is_pass()), "{}", pos.move_text(m));
    } else {
        assert_eq!(back, Ok(m), "{} as {text}", pos.move_text(m));
    }
    let lines = move_lines(m, size);
    assert_eq!(qboard_reads(&lines), text);
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with("move "));
        assert_eq!(l.ends_with(','), i + 1 < lines.len(), "{lines:?}");
    }
    // QBoard never sends a promotion mark on a multi-leg move: still the same move unless
    // it is the promoting half of an optional pair.
    if lines.len() > 1 && !(m.promotes() && m.promotion_optional()) {
        let bare = text.trim_end_matches('+');
        assert_eq!(parse_move(pos, bare), Ok(m), "{bare}");
    }
    if m.is_pass() {
        counts[0] += 1;
    } else if move_path(m).len() > 2 && m.to() == m.from() {
        counts[1] += 1;
    } else if move_path(m).len() > 2 {
        counts[2] += 1;
    }
    if m.promotes() {
        counts[3] += 1;
    }
    if m.promotion_optional() && !m.promotes() {
        counts[4] += 1;
    }
}

const C1: &str =
    "1,k,17/19/19/19/19/19/19/9,p,9/9,p,9/7,P,1,LN,9/19/19/19/19/19/19/19/19/17,K,1 b -";

#[test]
fn every_legal_move_round_trips_through_xboard_text() {
    // [passes, igui, other multi-leg, promoting, declined optional promotions]
    let mut counts = [0usize; 5];
    // The lion-type pieces of RULES.md Appendix C1.
    for x in ["LN", "LD", "FF", "TK", "BS"] {
        let pos = Position::parse(&C1.replace("LN", x)).unwrap();
        for m in pos.legal_move_list() {
            check_round_trip(&pos, m, &mut counts);
        }
    }
    // Random games of both sizes, biased to captures so lions meet enemies.
    let mut rng = SmallRng::seed_from_u64(12);
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        for _ in 0..3 {
            let mut game = Game::new(Position::initial(variant.clone()));
            for ply in 0..160 {
                if game.outcome().is_some() {
                    break;
                }
                let pos = game.position().clone();
                let moves = pos.legal_move_list();
                if ply % 4 == 3 {
                    for &m in &moves {
                        check_round_trip(&pos, m, &mut counts);
                    }
                }
                let captures: Vec<Move> =
                    moves.iter().copied().filter(|m| m.is_capture()).collect();
                let m = if !captures.is_empty() && rng.gen_bool(0.7) {
                    captures[rng.gen_range(0..captures.len())]
                } else {
                    moves[rng.gen_range(0..moves.len())]
                };
                game.play_unchecked(m);
            }
        }
    }
    assert!(counts.iter().all(|&c| c > 0), "kinds seen: {counts:?}");
}

#[test]
fn hachu_spellings_and_bad_moves() {
    let pos = Position::parse(&C1.replace("LN", "LD")).unwrap();
    // MDD 19x19: 10j is j10, 10i j11, 10h j12, 10g j13.
    let find = |t: &str| pos.parse_move(t).unwrap();
    // 2-1: jump to S2 capturing, step back to S1 capturing.
    assert_eq!(
        parse_move(&pos, "j10j12,j12j11="),
        Ok(find("10j>10i{10h,10i}="))
    );
    // 1+1+1 and the 2+1 jump-then-step, same move.
    let triple = find("10j>10g{10h,10i}=");
    assert_eq!(parse_move(&pos, "j10j11,j11j12,j12j13="), Ok(triple));
    assert_eq!(parse_move(&pos, "j10j11,j11j12,j12j13"), Ok(triple));
    assert_eq!(parse_move(&pos, "j10j12,j12j13"), Ok(find("10j>10g{10h}=")));
    // igui and the pass, in both spellings.
    assert_eq!(
        parse_move(&pos, "j10j11,j11j10="),
        Ok(find("10j>10j{10i}="))
    );
    assert_eq!(parse_move(&pos, "@@@@"), Ok(find("10j>10j")));
    assert_eq!(parse_move(&pos, "j10i10,i10j10"), Ok(find("10j>10j")));
    // An optional promotion: `+` promotes, no mark declines.
    assert_eq!(parse_move(&pos, "j10j11+"), Ok(find("10j>10i{10i}+")));
    assert_eq!(parse_move(&pos, "j10j11"), Ok(find("10j>10i{10i}=")));
    for bad in [
        "j10j11,j12j13", // legs do not chain
        "j10j11,j11k12", // a bent lion-dog path (QBoard builds these)
        "j10",           // half a move
        "z1z2",          // off the board
        "j10j10",        // a null leg
        "a1a2",          // no piece
        "j11j10",        // the opponent's piece
        "j10j11,j11j12,j12j13,j13j14",
        "j10j11x",
        "",
    ] {
        let e = parse_move(&pos, bad);
        assert!(e.is_err(), "{bad} accepted as {e:?}");
    }
    // A pass right after a pass is refused with the reason.
    let passed = Position::parse(&C1.replace("LN", "LD").replace(" b -", " b p")).unwrap();
    let e = parse_move(&passed, "@@@@").unwrap_err().to_string();
    assert!(e.contains("pass may not follow a pass"), "{e}");
}

fn engine(time_ms: u64) -> Engine<Vec<u8>> {
    let settings = Settings {
        default_time: Duration::from_millis(time_ms),
        ..Settings::default()
    };
    Engine::new(
        Vec::new(),
        settings,
        Box::new(move |v| Ok(alphabeta(v, Duration::from_millis(time_ms), 7).into())),
    )
}

/// Feeds lines and returns the output they produced.
fn feed(e: &mut Engine<Vec<u8>>, lines: &[&str]) -> String {
    e.output_mut().clear();
    for l in lines {
        assert_eq!(e.handle(l), Flow::Continue, "{l}");
    }
    String::from_utf8(e.output().clone()).unwrap()
}

/// The engine's move in `out`, reassembled as QBoard does.
fn engine_move(out: &str) -> Option<String> {
    let legs: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with("move "))
        .map(String::from)
        .collect();
    (!legs.is_empty()).then(|| qboard_reads(&legs))
}

#[test]
fn qboard_start_up_transcript_both_variants_both_sides() {
    for variant in ["daidai", "maka"] {
        // tengu moves first: QBoard sends `go` right after the burst.
        let mut e = engine(50);
        let out = feed(
            &mut e,
            &[
                "xboard",
                "protover 2",
                "new",
                &format!("variant {variant}"),
                "go",
            ],
        );
        for f in [
            "usermove=1",
            "setboard=1",
            "ping=1",
            "sigint=0",
            "sigterm=0",
            "done=1",
            "variants=\"daidai,maka\"",
            "myname=\"tengu",
        ] {
            assert!(out.contains(f), "{f} missing in {out}");
        }
        let m = engine_move(&out).expect("tengu moved");
        assert_eq!(e.game().len(), 1);
        assert!(!out.contains("Illegal move"));
        // QBoard's regex: a square pair and an optional `+` on each line.
        assert!(
            m.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ',' || c == '+'),
            "{m}"
        );
        // Then a reply of the user, prefixed, and tengu answers.
        let reply = move_text(
            e.game().position().legal_move_list()[0],
            e.game().position().size(),
        );
        let out = feed(&mut e, &[&format!("usermove {reply}")]);
        assert!(engine_move(&out).is_some(), "{out}");
        assert_eq!(e.game().len(), 3);

        // tengu moves second: the user's first move, bare and then prefixed.
        let mut e = engine(50);
        feed(
            &mut e,
            &[
                "xboard",
                "protover 2",
                "new",
                &format!("variant {variant}"),
                "st 10",
            ],
        );
        assert_eq!(
            e.game().position().size(),
            if variant == "maka" { 19 } else { 17 }
        );
        let first = move_text(
            e.game().position().legal_move_list()[3],
            e.game().position().size(),
        );
        let out = feed(&mut e, &[&first]);
        assert!(engine_move(&out).is_some(), "{out}");
        let next = move_text(
            e.game().position().legal_move_list()[0],
            e.game().position().size(),
        );
        let out = feed(&mut e, &[&format!("usermove {next}")]);
        assert!(engine_move(&out).is_some(), "{out}");
        assert_eq!(e.game().len(), 4);
    }
}

#[test]
fn refusals_leave_the_state_unchanged() {
    let mut e = engine(30);
    feed(
        &mut e,
        &["xboard", "protover 2", "new", "variant daidai", "force"],
    );
    let before = e.game().position().to_string();
    for bad in [
        "a1a2",
        "usermove i1i3",
        "i1i1",
        "h8h9,h9h10",
        "usermove q17q16",
        "a1b2,c3d4",
        "i1i2+",
    ] {
        let out = feed(&mut e, &[bad, "ping 7"]);
        let refusals: Vec<&str> = out.lines().filter(|l| l.contains("Illegal move")).collect();
        assert_eq!(refusals.len(), 1, "{bad}: {out}");
        let text = bad.strip_prefix("usermove ").unwrap_or(bad);
        assert!(
            refusals[0].starts_with("Illegal move (")
                && refusals[0].ends_with(&format!("): {text}")),
            "{out}"
        );
        assert!(out.ends_with("pong 7\n"), "{out}");
        assert_eq!(e.game().position().to_string(), before, "{bad}");
        assert!(e.game().is_empty());
    }
    // A legal move still goes through afterwards.
    let m = move_text(e.game().position().legal_move_list()[0], 17);
    let out = feed(&mut e, &[&m]);
    assert!(!out.contains("Illegal"), "{out}");
    assert_eq!(e.game().len(), 1);
    // Bad commands are errors, never "Illegal move", and change nothing.
    for bad in [
        "frobnicate",
        "variant chess",
        "st x",
        "sd -1",
        "level 40 x 0",
        "sd 0",
        "lift zz",
        "option Foo=1",
    ] {
        let out = feed(&mut e, &[bad]);
        assert!(out.starts_with("Error ("), "{bad}: {out}");
        assert!(!out.contains("Illegal move"), "{bad}: {out}");
    }
    assert_eq!(e.game().len(), 1);
}

#[test]
fn undo_setboard_result_and_helpers() {
    let mut e = engine(30);
    feed(&mut e, &["xboard", "protover 2", "new", "force"]);
    let start = e.game().position().to_string();
    let a = move_text(e.game().position().legal_move_list()[0], 17);
    feed(&mut e, &[&a]);
    let b = move_text(e.game().position().legal_move_list()[0], 17);
    feed(&mut e, &[&b]);
    assert_eq!(e.game().len(), 2);
    feed(&mut e, &["undo"]);
    assert_eq!(e.game().len(), 1);
    feed(&mut e, &["undo"]);
    assert_eq!(e.game().position().to_string(), start);
    let out = feed(&mut e, &["remove"]);
    assert!(out.starts_with("Error ("), "{out}");

    // setboard with tengu's text: the C1 Lion position (MDD), then a lion double move.
    feed(&mut e, &[&format!("setboard {C1}")]);
    assert_eq!(e.game().position().size(), 19);
    let out = feed(&mut e, &["usermove j10j11,j11j12="]);
    assert!(!out.contains("Illegal"), "{out}");
    let bad = feed(&mut e, &["setboard 1,2,3 x"]);
    assert!(bad.starts_with("tellusererror Illegal position"), "{bad}");
    assert_eq!(e.game().len(), 1, "a bad setboard changes nothing");

    // lift: the Lion's targets in C1 (23 single destinations, 1 of them a capture...).
    feed(&mut e, &[&format!("setboard {C1}")]);
    let out = feed(&mut e, &["lift j10"]);
    let hl = out
        .trim()
        .strip_prefix("highlight ")
        .expect("a highlight line");
    assert_eq!(hl.split('/').count(), 19);
    assert!(
        (hl.contains('R') || hl.contains('M')) && hl.contains('Y'),
        "{hl}"
    );

    // result ends the game: moves are refused until `new`.
    feed(&mut e, &["result 1/2-1/2 {adjourned}"]);
    let out = feed(&mut e, &["j10j9"]);
    assert!(out.starts_with("Illegal move (game over"), "{out}");
    feed(&mut e, &["new", "force"]);
    let out = feed(&mut e, &[&a]);
    assert!(!out.contains("Illegal"), "{out}");

    // ping, post and thinking output, `?` outside a search, option lines.
    let out = feed(
        &mut e,
        &["ping 3", "?", "option Move time (ms)=40", "post", "go"],
    );
    assert!(out.starts_with("pong 3\n"), "{out}");
    let thinking: Vec<&str> = out
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert!(!thinking.is_empty(), "{out}");
    let fields: Vec<&str> = thinking[0].split_whitespace().collect();
    assert!(fields.len() >= 5, "{thinking:?}");
    assert!(engine_move(&out).is_some());
    assert_eq!(e.handle("quit"), Flow::Quit);
}

#[test]
fn game_end_prints_a_result_and_tells_the_user() {
    // DD: White King on 1a, Black Rooks on 17b and 16c: 16c>16a (XBoard b15b17) mates.
    let mate = format!("16,k/R,16/1,R,15/{}K,16 b -", "17/".repeat(13));
    let mut e = engine(30);
    feed(&mut e, &["new", "force", &format!("setboard {mate}")]);
    assert!(e.game().outcome().is_none());
    let out = feed(&mut e, &["playother", "b15b17"]);
    assert!(out.starts_with("1-0 {"), "{out}");
    assert!(
        out.contains("telluser Game over"),
        "the engine has no move: {out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("move ")), "{out}");
    let out = feed(&mut e, &["a16a15"]);
    assert!(out.starts_with("Illegal move (game over"), "{out}");
}

#[test]
fn no_input_makes_the_engine_panic() {
    let words = [
        "xboard",
        "protover",
        "new",
        "variant",
        "force",
        "go",
        "playother",
        "st",
        "sd",
        "level",
        "time",
        "otim",
        "ping",
        "?",
        "undo",
        "remove",
        "result",
        "post",
        "nopost",
        "setboard",
        "edit",
        ".",
        "analyze",
        "exit",
        "lift",
        "put",
        "hover",
        "option",
        "usermove",
        "draw",
        "hint",
        "bk",
        "memory",
        "cores",
        "name",
        "white",
        "black",
        "accepted",
        "rejected",
    ];
    let args = [
        "",
        "0",
        "-1",
        "99999999999999999999",
        "1e308",
        "nan",
        "0:99999999999999",
        "a1",
        "q17",
        "s19",
        "@@@@",
        "a1b2,b2c3",
        "a1b2,b2a1+",
        "h8h9=",
        "daidai",
        "maka",
        "chess",
        "Visits=5",
        "Move time (ms)=1",
        "1-0 {x}",
        "40 5 0",
        "0 0:1 0.1",
        "\u{1F600}",
        "é+",
        ",,,",
        "a99b1",
        "1,k,17/19/19/19/19/19/19/9,p,9/9,p,9/7,P,1,LN,9/19/19/19/19/19/19/19/19/17,K,1 b -",
    ];
    let mut rng = SmallRng::seed_from_u64(99);
    let mut e = engine(3);
    for _ in 0..3000 {
        let line = match rng.gen_range(0..4) {
            0 => {
                // Raw bytes, lossily decoded.
                let bytes: Vec<u8> = (0..rng.gen_range(0..24)).map(|_| rng.gen()).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
            1 => {
                // A legal or near-legal move.
                let pos = e.game().position();
                let moves = pos.legal_move_list();
                if moves.is_empty() {
                    "new".into()
                } else {
                    let mut t = move_text(moves[rng.gen_range(0..moves.len())], pos.size());
                    if rng.gen_bool(0.3) {
                        t.push(['+', '=', ',', '1'][rng.gen_range(0..4)]);
                    }
                    t
                }
            }
            _ => format!(
                "{} {}",
                words[rng.gen_range(0..words.len())],
                args[rng.gen_range(0..args.len())]
            ),
        };
        // Huge time controls are valid, but the engine would think for days.
        let timed = ["st", "level", "time"].iter().any(|w| line.starts_with(w));
        let arg = line.split_once(' ').map_or("", |(_, a)| a);
        let quick =
            !arg.chars().any(|c| c.is_ascii_digit()) || ["0 0:1 0.1", "-1", "0"].contains(&arg);
        if line.trim() == "quit" || (timed && !quick) {
            continue;
        }
        let _ = e.handle(&line);
        e.output_mut().clear();
    }
}

#[test]
fn mcts_player_under_the_protocol() {
    use tengu_search::players::MctsPlayer;
    use tengu_search::SearchConfig;
    let settings = Settings {
        default_time: Duration::from_millis(200),
        ..Settings::default()
    };
    let mut e = Engine::new(
        Vec::new(),
        settings,
        Box::new(|_| {
            let player: Box<dyn tengu_search::players::Player> = Box::new(MctsPlayer::new(
                "uniform".into(),
                Box::new(tengu_model::UniformEvaluator),
                SearchConfig::default(),
                64,
                1,
            ));
            Ok(player.into())
        }),
    );
    let out = feed(
        &mut e,
        &["xboard", "protover 2", "new", "variant maka", "post", "go"],
    );
    assert!(engine_move(&out).is_some(), "{out}");
    // Thinking lines: depth (PV length), score, centiseconds, visits, PV.
    let last = out
        .lines()
        .rfind(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .expect("thinking output");
    let visits: u64 = last.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(visits > 1, "{last}");
    // Fixed visits through the option, under a per-move time control.
    let out = feed(&mut e, &["option Visits=16", "st 5", "force", "new", "go"]);
    let last = out
        .lines()
        .rfind(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .expect("thinking output");
    assert_eq!(last.split_whitespace().nth(3), Some("16"), "{out}");
}

/// QBoard relays one engine's pass (`move @@@@`) to the other engine as `usermove @@@64`
/// (QBoard 1.2 appends a square number to the drop-style text). These games have no drops,
/// so any move that starts with `@@@` is read as a pass, and an engine-against-engine game
/// goes on instead of stalling on an `Illegal move`.
#[test]
fn a_relayed_pass_with_a_square_number_is_a_pass() {
    // C1: Black's Lion Dog can pass (an empty neighbour, no check).
    let c1 = C1.replace("LN", "LD");
    for text in ["usermove @@@64", "@@@64", "usermove @@@@", "usermove @@@a1"] {
        let mut e = engine(30);
        feed(&mut e, &["xboard", "protover 2", "new", "force"]);
        feed(&mut e, &[&format!("setboard {c1}")]);
        let out = feed(&mut e, &["playother", text]);
        assert!(!out.contains("Illegal move"), "{text}: {out}");
        let passed: Vec<Move> = e.game().moves().collect();
        assert!(passed[0].is_pass(), "{text}: {out}");
        // tengu (White) answers the pass: the game goes on.
        assert!(engine_move(&out).is_some(), "{text}: {out}");
        assert_eq!(e.game().len(), 2, "{text}");
    }
    // A pass that the rules refuse (right after a pass) is still refused with the reason.
    let passed = Position::parse(&c1.replace(" b -", " b p")).unwrap();
    let e = parse_move(&passed, "@@@64").unwrap_err().to_string();
    assert!(e.contains("pass may not follow a pass"), "{e}");
}

/// QBoard relays a promoting multi-leg move without its `+` (issue #44): the receiving
/// engine reads it unpromoted, the GUI and the mover have it promoted. When a move legal
/// only for the promoted piece arrives, the refusal comes at once and names the likely
/// cause: the earlier move, its ply and QBoard's dropped promotion.
#[test]
fn a_move_legal_only_after_a_dropped_promotion_is_refused_with_the_cause() {
    let mut e = engine(30);
    feed(
        &mut e,
        &[
            "xboard",
            "protover 2",
            "new",
            "force",
            &format!("setboard {C1}"),
        ],
    );
    // The Lion's double move with a promotion choice, relayed as QBoard does: no mark.
    let relayed = "j10j11,j11j12";
    let out = feed(&mut e, &[&format!("usermove {relayed}")]);
    assert!(out.is_empty(), "{out}");
    let read = e.game().moves().last().unwrap();
    assert!(
        read.promotion_optional() && !read.promotes(),
        "read as {read:?}"
    );
    // White answers with its first legal move.
    let white = move_text(e.game().position().legal_move_list()[0], 19);
    let out = feed(&mut e, &[&format!("usermove {white}")]);
    assert!(out.is_empty(), "{out}");

    // The mover's view: the Lion promoted (a Furious Fiend, with the lion dog's 3-step moves).
    let mut theirs = Game::new(Position::parse(C1).unwrap());
    theirs
        .play(parse_move(theirs.position(), &format!("{relayed}+")).unwrap())
        .unwrap();
    assert!(theirs.moves().last().unwrap().promotes());
    theirs
        .play(parse_move(theirs.position(), &white).unwrap())
        .unwrap();
    let to = read.to();
    let only_promoted = theirs
        .position()
        .legal_move_list()
        .iter()
        .map(|&m| (m, move_text(m, 19)))
        .find(|(m, t)| m.from() == to && parse_move(e.game().position(), t).is_err())
        .map(|(_, t)| t)
        .expect("a move of the promoted piece that the unpromoted one lacks");

    let before = e.game().len();
    let out = feed(&mut e, &[&format!("usermove {only_promoted}"), "ping 7"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let refusal = lines[0];
    assert!(
        refusal.starts_with("Illegal move (") && refusal.ends_with(&format!("): {only_promoted}")),
        "{refusal}"
    );
    assert!(
        refusal.contains(&format!("the multi-step move {relayed} at ply 1 promoted"))
            && refusal.contains("QBoard passes multi-step moves on without their promotion mark"),
        "{refusal}"
    );
    // One pair of parentheses: the reason's, as CECP writes it.
    assert_eq!(refusal.matches(['(', ')']).count(), 2, "{refusal}");
    assert_eq!(lines[1], "pong 7");
    assert_eq!(e.game().len(), before, "a refused move changes nothing");

    // A move illegal in both views keeps its plain reason.
    let out = feed(&mut e, &["usermove a1a2"]);
    assert!(
        out.starts_with("Illegal move (") && !out.contains("QBoard"),
        "{out}"
    );
    // And with the mark, the promoting double move is read as the GUI shows it: no split.
    feed(
        &mut e,
        &[
            &format!("setboard {C1}"),
            &format!("usermove {relayed}+"),
            &format!("usermove {white}"),
        ],
    );
    let out = feed(&mut e, &[&format!("usermove {only_promoted}")]);
    assert!(!out.contains("Illegal"), "{out}");
}

/// A Maka Dai Dai Shogi game QBoard 1.2 (head 24fbfd1) played between two `tengu xboard
/// --movetime 1000` (issue #44), the moves as the GUI and the engine that made each have
/// them. At ply 10 one engine played `m8n7,n7o6,o6p5+`; QBoard passed it on as
/// `m8n7,n7o6,o6p5`, and the other engine, its piece on p5 unpromoted, played `p5g5` at
/// ply 187, which the first engine refused.
const QBOARD_MAKA_GAME: &str = concat!(
    "j6j7 j16m13 h6h7 k14k13 i5h12 m13m10 g5k9 m10m8 j5j6 m8n7,n7o6,o6p5+ q5p5 j15m12 h12j10 ",
    "i14i13 o5o8 e14e13 j6g9 l15k14 j4j6 f15c12 j6m9 m12q12 m9j12 g15f16 j12h14,h14g15 i15i14 ",
    "g15e15,e15d15 h15d15 n5p7 i14h15 j10g7 h15i12 g9j6 h16h11 k6k7 h11j11 o8o14 p15o14 o4o6 ",
    "g14g13 k9g13 m14m13 p7j13 k14j13 i6i7 k15g13+ o6o4 k16h13 o4o6 h13e10 l6l7 e10h7 h5h7 ",
    "c12h7+ g7g13+ q12q11 m6m7 q11m7 k5k6 m7g13 m5l6 j11j7 j6j7 j13j7 k6h5 i12m10 l5m6 m10h10 ",
    "m6n5 h7h8 j3k5 j7j8 f7f8 j8p8 n6n7 h10f8 h5j7 p8p13 j7m8 p13p12 k5j7 p12p6 q4p6+ o14p13 ",
    "j7h8+ f8d8 h8e8 g13m7 m8k13 m7m11 k13d15 c15d15 e8d8 m11i7 d8g11 i7d12 g11g14 f13f12 ",
    "g14f14 d12d9 f14d15 o15o6+ n5o6 f16f15 d15d14,d14c14 b15b16 c14e13 n15k12 e13f12,f12h10 ",
    "f15d13 h10k13 k12g8 k13m15,m15l14 m13m12 g6g7 g8i10 f5g6 d9e9 l14i11 i10l13 i11k13 ",
    "l13i10 o6o10 i10g12 k13m12 e9f8 m12p12 p13o14 p12r14,r14s15 s16s15+ f6f7 f8g7 l6j4 g7k11 ",
    "o10k10 k11m11 e2d2 m11m8 j4n8 m8j8 n8l10 j8o8 l10n8 o8p8 k10p10 p8l12 n8o9 l12g7 o9j4 ",
    "g7i9 p10o9 i9j8 o9n8 j8m11 n8m7 m11j8 m7l8 j8m11 l8m7 m11k11 g6m12 a15m15 m12o10 m15m7 ",
    "j4m7 i17g15 m4o6 r15r11 g4i6 d13i8 l7l8 k11g7 m7j4 g7j10 j4o9 j10m10 i6k8 m10o12 k8m10 ",
    "o12o13 o6m4 j17i15 l4j6 c16d14 h4g5 o13g5",
);

/// The split seen from the engine that promoted (the GUI's view): the other engine, which
/// read the move unpromoted, plays a move of the unpromoted piece. The refusal names the
/// earlier move and that the other engine's board is the one that differs.
#[test]
fn a_move_legal_only_without_the_promotion_the_mover_made_is_refused_with_the_cause() {
    let mut e = engine(30);
    feed(
        &mut e,
        &["xboard", "protover 2", "new", "variant maka", "force"],
    );
    for m in QBOARD_MAKA_GAME.split(' ') {
        let out = feed(&mut e, &[&format!("usermove {m}")]);
        assert!(out.is_empty(), "{m}: {out}");
    }
    // This engine's own promoting triple move reaches the other engine without its mark.
    let promoted = e.game().moves().nth(9).unwrap();
    assert!(promoted.promotes());
    assert_eq!(
        tengu_engine::relay::as_relayed(promoted, 19),
        "m8n7,n7o6,o6p5"
    );
    let before = e.game().len();
    let out = feed(&mut e, &["usermove p5g5"]);
    assert!(
        out.starts_with("Illegal move (the Gold General on p5 has no such move; ")
            && out.contains("the multi-step move m8n7,n7o6,o6p5+ at ply 10 not promoted")
            && out.contains("QBoard passes multi-step moves on without their promotion mark")
            && out.contains("the other engine read it unpromoted")
            && out.trim_end().ends_with("): p5g5"),
        "{out}"
    );
    assert_eq!(out.matches(['(', ')']).count(), 2, "{out}");
    assert_eq!(e.game().len(), before, "a refused move changes nothing");
}

#[test]
fn rule_set_engine_options_start_a_game_under_the_set_and_refuse_what_does_not_apply() {
    let mut e = engine(50);
    let out = feed(&mut e, &["xboard", "protover 2"]);
    assert!(
        out.contains("feature option=\"Rules -combo *default /// sz /// ssz /// srz /// tsa /// japanese-revival /// qboard\""),
        "{out}"
    );
    assert!(
        out.contains("feature option=\"Rule options -string \""),
        "{out}"
    );
    // A preset, then the other game: the preset applies to it too.
    feed(
        &mut e,
        &["new", "option Rules=japanese-revival", "variant maka"],
    );
    let key = "maka-dai-dai:CONTAGION_MDD=PROMOTED_ONLY,KIRIN_PHOENIX_MDD=CHU,FBR=SRZ,BB=JAPANESE_REVIVAL";
    assert_eq!(e.game().position().variant().id(), key);
    // Single options on top; an option of the other game is refused and changes nothing.
    feed(&mut e, &["option Rule options=LEGALITY=PSEUDO_LEGAL"]);
    assert!(e
        .game()
        .position()
        .variant()
        .id()
        .contains("LEGALITY=PSEUDO_LEGAL"));
    let out = feed(
        &mut e,
        &["option Rule options=PROMOTION_DD=OPTIONAL_UNLESS_PROMOTED_VICTIM"],
    );
    assert!(
        out.contains("tellusererror rule set refused") && out.contains("PROMOTION_DD"),
        "{out}"
    );
    assert!(e
        .game()
        .position()
        .variant()
        .id()
        .contains("LEGALITY=PSEUDO_LEGAL"));
    let out = feed(&mut e, &["option Rules=hachu"]);
    assert!(
        out.contains("tellusererror") && out.contains("japanese-revival"),
        "{out}"
    );
    // Back to the defaults.
    feed(&mut e, &["option Rules=default", "option Rule options="]);
    assert_eq!(e.game().position().variant().id(), "maka-dai-dai");
}

#[test]
fn the_qboard_preset_takes_a_pass_relayed_right_after_a_pass() {
    // Two Lions facing each other from afar: Black passes, then White. QBoard has no ban on
    // two passes in a row (docs/rules.md, `qboard`); tengu's default refuses the second.
    let lions = format!(
        "8,k,8/17/8,ln,8/{}8,LN,8/{}8,K,8 b -",
        "17/".repeat(5),
        "17/".repeat(7)
    );
    for qboard in [false, true] {
        let mut e = engine(50);
        feed(&mut e, &["xboard", "protover 2", "new", "variant daidai"]);
        if qboard {
            feed(&mut e, &["option Rules=qboard"]);
        }
        feed(&mut e, &["force", &format!("setboard {lions}")]);
        let out = feed(&mut e, &["usermove @@@@"]);
        assert!(!out.contains("Illegal"), "{out}");
        let out = feed(&mut e, &["usermove @@@@"]);
        assert_eq!(
            out.contains("Illegal move (a pass may not follow a pass"),
            !qboard,
            "{out}"
        );
        assert_eq!(e.game().len(), if qboard { 2 } else { 1 });
        if qboard {
            assert!(e.game().position().variant().id().contains("PASS=QBOARD"));
        }
    }
}

#[test]
fn strict_repetition_refuses_a_relayed_move_back_to_an_earlier_position() {
    // The two Kings alone; each steps out, Black's steps back: White's step back to 9a would
    // recreate the start position.
    let kings = format!("8,k,8/{}8,K,8 b -", "17/".repeat(15));
    let pos = Position::parse(&kings).unwrap();
    let text = |pos: &Position, m: &str| move_text(pos.parse_move(m).unwrap(), 17);
    let mut lines = Vec::new();
    let mut at = pos.clone();
    for m in ["9q>9p", "9a>9b", "9p>9q", "9b>9a"] {
        lines.push(format!("usermove {}", text(&at, m)));
        at.play(at.parse_move(m).unwrap());
    }
    for strict in [false, true] {
        let mut e = engine(50);
        feed(&mut e, &["xboard", "protover 2", "new", "variant daidai"]);
        if strict {
            feed(&mut e, &["option Rule options=REPETITION=STRICT"]);
        }
        feed(&mut e, &["force", &format!("setboard {kings}")]);
        let out = feed(&mut e, &[&lines[0], &lines[1], &lines[2]]);
        assert!(!out.contains("Illegal"), "{out}");
        let out = feed(&mut e, &[&lines[3]]);
        assert_eq!(
            out.contains("Illegal move (it recreates an earlier position"),
            strict,
            "{out}"
        );
        assert_eq!(e.game().len(), if strict { 3 } else { 4 });
    }
}

#[test]
fn the_starting_rule_set_of_the_settings_is_the_first_games_and_the_options_defaults() {
    let start = |preset: &str, options: &str| {
        let settings = Settings {
            default_time: Duration::from_millis(50),
            rule_preset: preset.into(),
            rule_options: options.into(),
            ..Settings::default()
        };
        Engine::new(
            Vec::new(),
            settings,
            Box::new(|v| Ok(alphabeta(v, Duration::from_millis(50), 7).into())),
        )
    };
    let mut e = start("tsa", "LEGALITY=PSEUDO_LEGAL");
    let key = e.game().position().variant().id().to_string();
    assert!(
        key.starts_with("dai-dai:LEGALITY=PSEUDO_LEGAL") && key.contains("GE=TSA"),
        "{key}"
    );
    feed(&mut e, &["xboard", "protover 2", "new", "variant maka"]);
    let key = e.game().position().variant().id().to_string();
    assert!(
        key.starts_with("maka-dai-dai:LEGALITY=PSEUDO_LEGAL") && key.contains("TK=TSA"),
        "{key}"
    );
    // A set of the other game: Dai Dai under its defaults until that game is chosen.
    let mut e = start("default", "KIRIN_PHOENIX_MDD=CHU");
    assert_eq!(e.game().position().variant().id(), "dai-dai");
    feed(&mut e, &["xboard", "protover 2", "new", "variant maka"]);
    assert_eq!(
        e.game().position().variant().id(),
        "maka-dai-dai:KIRIN_PHOENIX_MDD=CHU"
    );
}

/// What the factory says about a player (a network trained under other rules of the game, a
/// failure that leaves alpha-beta) is told with `telluser` once, when the GUI chooses the
/// game, in a message without a move; a later game of the same player says nothing again.
/// QBoard's `new` before its `variant maka` builds no Dai Dai player and tells nothing.
#[test]
fn notices_about_the_player_are_told_once_when_a_game_is_chosen() {
    use std::sync::{Arc, Mutex};
    let settings = || Settings {
        default_time: Duration::from_millis(50),
        ..Settings::default()
    };
    let built: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = built.clone();
    let mut e = Engine::new(
        Vec::new(),
        settings(),
        Box::new(move |v| {
            log.lock().unwrap().push(v.id().to_string());
            Ok(tengu_engine::EnginePlayer {
                player: alphabeta(v, Duration::from_millis(50), 7),
                notice: Some(format!("a notice for {}", v.id())),
            })
        }),
    );
    let out = feed(&mut e, &["xboard", "protover 2", "new", "variant maka"]);
    let told: Vec<&str> = out.lines().filter(|l| l.starts_with("tell")).collect();
    assert_eq!(told, ["telluser a notice for maka-dai-dai"], "{out}");
    assert_eq!(*built.lock().unwrap(), ["maka-dai-dai"]);
    let out = feed(&mut e, &["new", "variant maka", "go"]);
    assert!(
        !out.contains("telluser") && engine_move(&out).is_some(),
        "{out}"
    );
    let out = feed(&mut e, &["new", "variant daidai"]);
    let told: Vec<&str> = out.lines().filter(|l| l.starts_with("tell")).collect();
    assert_eq!(told, ["telluser a notice for dai-dai"], "{out}");
    let out = feed(&mut e, &["variant maka", "variant daidai", "go"]);
    assert!(
        !out.contains("telluser") && engine_move(&out).is_some(),
        "{out}"
    );

    // A factory that fails: the game is played with alpha-beta, and the user is told why
    // (here, with no game chosen, when the engine first thinks).
    let mut e = Engine::new(
        Vec::new(),
        settings(),
        Box::new(|_| Err("no network fits".into())),
    );
    let out = feed(&mut e, &["xboard", "protover 2", "new", "go"]);
    let told: Vec<&str> = out.lines().filter(|l| l.starts_with("tell")).collect();
    assert_eq!(told.len(), 1, "{out}");
    assert!(
        told[0].starts_with("telluser no network fits; playing")
            && told[0].ends_with("with alpha-beta"),
        "{out}"
    );
    assert!(engine_move(&out).is_some(), "{out}");
}
