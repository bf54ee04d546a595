//! A worker's game-records file read back: a damaged line leaves the file's other games
//! and is named (issue #55).

use tengu_rules::{Game, Position, Record, Variant};
use tengu_selfplay::records::{line_text, read_records};

fn game(plies: usize) -> Record {
    let mut g = Game::new(Position::initial(Variant::dai_dai()));
    for _ in 0..plies {
        let m = g.position().legal_move_list()[0];
        g.play_unchecked(m);
    }
    Record::new(g, &[])
}

#[test]
fn a_damaged_line_leaves_the_other_games_and_is_named() {
    let first = line_text(0, &game(2), &[Some(0.5), None]);
    let third = line_text(2, &game(3), &[]);
    let torn = &first[..first.len() / 2];
    let text = format!("{first}\n{torn}\n\n{third}\n{{\"values\": [1]}}\n");
    let (games, damaged) = read_records(&text);
    assert_eq!(games.iter().map(|g| g.line).collect::<Vec<_>>(), [1, 4]);
    assert_eq!(games[0].values, Some(vec![Some(0.5), None]));
    assert_eq!(games[0].parse().unwrap().game.len(), 2);
    assert_eq!(games[1].parse().unwrap().game.len(), 3);
    assert_eq!(damaged.len(), 2, "{damaged:?}");
    assert_eq!(damaged[0].line, 2);
    assert!(
        damaged[0]
            .to_string()
            .starts_with("line 2: not a JSON line"),
        "{}",
        damaged[0]
    );
    assert_eq!(damaged[1].to_string(), "line 5: no \"record\" text");
}

#[test]
fn a_line_whose_record_is_damaged_is_named_when_parsed() {
    let text = line_text(0, &game(1), &[]).replace("Result", "Res ult");
    let (games, damaged) = read_records(&text);
    assert!(damaged.is_empty());
    let e = games[0].parse().unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.problem.starts_with("not a game record"), "{e}");
}
