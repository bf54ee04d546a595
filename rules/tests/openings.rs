//! Openings files: the writer and the reader agree, comments and `start` are understood, and
//! bad lines are refused with their line number, the move and the reason.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_rules::{
    format_opening, parse_openings, Game, Move, OpeningsError, Position, RuleSet, Variant,
};

/// `plies` random legal moves from the initial position (fewer if the game ends first).
fn random_opening(variant: &Arc<Variant>, seed: u64, plies: usize) -> Vec<Move> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(Position::initial(variant.clone()));
    while game.len() < plies && game.outcome().is_none() {
        let moves = game.position().legal_move_list();
        let m = moves[rng.gen_range(0..moves.len())];
        game.play_unchecked(m);
        if game.outcome().is_some() {
            // An opening must leave a game to play: drop the last move.
            return game.moves().take(game.len() - 1).collect();
        }
    }
    game.moves().collect()
}

/// The text of the first few legal moves of the first legal line from the initial position.
fn first_moves(variant: &Arc<Variant>, plies: usize) -> Vec<String> {
    let mut pos = Position::initial(variant.clone());
    let mut texts = Vec::new();
    for _ in 0..plies {
        let m = pos
            .legal_move_list()
            .into_iter()
            .find(|m| !m.is_pass())
            .unwrap();
        texts.push(pos.move_text(m));
        pos.play(m);
    }
    texts
}

#[test]
fn written_openings_read_back_to_the_same_moves() {
    for variant in [Variant::dai_dai(), Variant::maka_dai_dai()] {
        let openings: Vec<Vec<Move>> = (0..12)
            .map(|seed| random_opening(&variant, seed, (seed as usize * 7) % 40))
            .collect();
        let text: String = openings
            .iter()
            .enumerate()
            .map(|(i, moves)| {
                let comment = (i % 2 == 0).then(|| format!("ply {} E 0.5{i}", moves.len()));
                format_opening(&variant, moves, comment.as_deref()) + "\n"
            })
            .collect();
        let parsed = parse_openings(&variant, &text).unwrap();
        assert_eq!(parsed.len(), openings.len());
        for (i, (opening, moves)) in parsed.iter().zip(&openings).enumerate() {
            assert_eq!(&opening.moves, moves, "line {}", i + 1);
            assert_eq!(opening.line, i + 1);
            let game = opening.game(&variant);
            assert_eq!(game.moves().collect::<Vec<_>>(), *moves);
            assert!(game.outcome().is_none());
            // Writing again gives the same line (the comment aside).
            let again = format_opening(&variant, &opening.moves, None);
            assert_eq!(again, format_opening(&variant, moves, None));
        }
    }
}

#[test]
fn comments_blank_lines_and_start_are_understood() {
    let variant = Variant::dai_dai();
    let moves = first_moves(&variant, 3);
    let text = format!(
        "# a book of two openings\n\n   \nstart # the initial position\n\t{} {}   {} # ply 3 E 0.51 # more\n# the end\n",
        moves[0], moves[1], moves[2]
    );
    let openings = parse_openings(&variant, &text).unwrap();
    assert_eq!(openings.len(), 2);
    assert!(openings[0].moves.is_empty());
    assert_eq!(openings[0].line, 4);
    assert_eq!(
        openings[0].game(&variant).position(),
        &Position::initial(variant.clone())
    );
    assert_eq!(openings[1].line, 5);
    assert_eq!(openings[1].moves.len(), 3);
    assert_eq!(format_opening(&variant, &[], None), "start");
    assert_eq!(
        format_opening(&variant, &openings[1].moves, Some("two\nlines")),
        format!("{} {} {} # two lines", moves[0], moves[1], moves[2])
    );
    // CRLF line ends read the same.
    let crlf = text.replace('\n', "\r\n");
    assert_eq!(parse_openings(&variant, &crlf).unwrap(), openings);
}

#[test]
fn an_unparsable_move_is_refused_with_its_line_number() {
    let variant = Variant::dai_dai();
    let moves = first_moves(&variant, 2);
    let text = format!("start\n# comment\n{} 9z>9q {}\n", moves[0], moves[1]);
    let err = parse_openings(&variant, &text).unwrap_err();
    assert_eq!(err.line(), Some(3));
    let OpeningsError::Line { token, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(token.as_deref(), Some("9z>9q"));
    let message = err.to_string();
    assert!(
        message.starts_with("line 3: ply 2: move \"9z>9q\"") && message.contains("rank"),
        "{message}"
    );
    let err = parse_openings(&variant, "nonsense\n").unwrap_err();
    assert!(err.to_string().contains("expected '<from>><to>'"), "{err}");
}

#[test]
fn an_illegal_move_is_refused_with_its_line_number_and_reason() {
    let variant = Variant::dai_dai();
    let moves = first_moves(&variant, 2);
    // The same move twice: the second is played by the other side, from an empty square.
    let text = format!("{}\n\n{} {}\n", moves[0], moves[0], moves[0]);
    let err = parse_openings(&variant, &text).unwrap_err();
    assert_eq!(err.line(), Some(3));
    let message = err.to_string();
    assert!(
        message.contains(&format!("ply 2: move {:?}", moves[0])),
        "{message}"
    );
    // White's move first: the piece belongs to the side not to move.
    let text = format!("{}\n", moves[1]);
    let err = parse_openings(&variant, &text).unwrap_err();
    assert_eq!(err.line(), Some(1));
    assert!(err.to_string().contains("side not to move"), "{err}");
    // A Maka Dai Dai move is not a Dai Dai move: 19 files.
    let err = parse_openings(&variant, "19s>19r\n").unwrap_err();
    assert!(err.to_string().contains("outside 1..17"), "{err}");
}

#[test]
fn empty_files_and_start_with_moves_are_refused() {
    let variant = Variant::dai_dai();
    for text in ["", "\n\n", "# only a comment\n   # another\n"] {
        let err = parse_openings(&variant, text).unwrap_err();
        assert!(matches!(err, OpeningsError::Empty { .. }), "{err:?}");
        assert!(err.to_string().contains("no openings"), "{err}");
    }
    let moves = first_moves(&variant, 1);
    let err = parse_openings(&variant, &format!("start {}\n", moves[0])).unwrap_err();
    assert_eq!(err.line(), Some(1));
    assert!(err.to_string().contains("stands alone"), "{err}");
}

#[test]
fn the_documented_example_parses() {
    let text = "# Dai Dai Shogi openings (comments start with '#')\n\
                start                                   # the initial position itself\n\
                9l>9k 9f>9g                             # ply 2\n\
                13l>13k 5f>5g 9l>9k # ply 3 E 0.51\n";
    let openings = parse_openings(&Variant::dai_dai(), text).unwrap();
    let plies: Vec<usize> = openings.iter().map(|o| o.moves.len()).collect();
    assert_eq!(plies, [0, 2, 3]);
}

/// A quiet move of the side to move whose straight reverse is legal after a quiet reply.
fn out_and_back(pos: &Position) -> (Move, Move) {
    for m in pos.legal_move_list() {
        if m.is_capture() || m.is_pass() || m.promotes() {
            continue;
        }
        let mut after = pos.clone();
        after.play(m);
        let reply = after
            .legal_move_list()
            .into_iter()
            .find(|r| !r.is_capture() && !r.is_pass());
        after.play(reply.unwrap());
        let back = after
            .legal_move_list()
            .into_iter()
            .find(|b| b.from() == m.to() && b.to() == m.from() && !b.is_capture());
        if let Some(back) = back {
            return (m, back);
        }
    }
    panic!("no piece steps out and back");
}

#[test]
fn under_strict_repetition_a_line_back_to_an_earlier_position_is_refused() {
    // Both sides step out and back: the fourth ply recreates the initial position.
    let mut rules = RuleSet::default_for("dai-dai");
    let default = Variant::with_rules(&rules).unwrap();
    rules.set("REPETITION", "STRICT").unwrap();
    let strict = Variant::with_rules(&rules).unwrap();
    let mut pos = Position::initial(default.clone());
    let (black_out, black_back) = out_and_back(&pos);
    let mut texts = vec![pos.move_text(black_out)];
    pos.play(black_out);
    let (white_out, white_back) = out_and_back(&pos);
    for m in [white_out, black_back, white_back] {
        texts.push(pos.move_text(m));
        pos.play(m);
    }
    let line = format!("{}\n", texts.join(" "));
    assert_eq!(parse_openings(&default, &line).unwrap()[0].moves.len(), 4);
    let err = parse_openings(&strict, &line).unwrap_err().to_string();
    assert!(
        err.contains("ply 4") && err.contains("REPETITION=STRICT forbids"),
        "{err}"
    );
}
