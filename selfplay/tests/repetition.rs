//! Self-play under `REPETITION=STRICT` (RULES.md §8.1): a move back to an earlier position
//! is illegal, so no self-play search offers it (not even with `avoid_repetition` off), no
//! policy target weighs it, and every finished game replays move by move under the rule.
//! Under the default rule set the same move is searched.

use std::sync::Arc;

use tengu_model::UniformEvaluator;
use tengu_rules::{Game, Move, Opening, Position, RuleSet, Variant};
use tengu_search::{RootSelection, SearchConfig};
use tengu_selfplay::play::FinishedGame;
use tengu_selfplay::{SelfPlay, SelfplayConfig};

fn variant(strict: bool) -> Arc<Variant> {
    let mut rules = RuleSet::default_for("dai-dai");
    if strict {
        rules.set("REPETITION", "STRICT").unwrap();
    }
    Variant::with_rules(&rules).unwrap()
}

/// A quiet move of the side to move of `game` whose reverse is legal after any quiet reply
/// (a piece that steps out and can step straight back).
fn out_and_back(game: &Game) -> (Move, Move) {
    let pos = game.position();
    for m in pos.legal_move_list() {
        if m.is_capture() || m.is_pass() || m.promotes() {
            continue;
        }
        let mut after = pos.clone();
        after.play(m);
        let reply = after
            .legal_move_list()
            .into_iter()
            .find(|r| !r.is_capture() && !r.is_pass())
            .unwrap();
        after.play(reply);
        if let Some(back) = after
            .legal_move_list()
            .into_iter()
            .find(|b| b.from() == m.to() && b.to() == m.from() && !b.is_capture())
        {
            return (m, back);
        }
    }
    panic!("no piece steps out and back");
}

/// An opening where Black steps out, White steps out, Black steps back: White to move, and
/// White's step back (returned) would recreate the initial position.
fn opening(variant: &Arc<Variant>) -> (Opening, Move) {
    let mut game = Game::new(Position::initial(variant.clone()));
    let (black_out, black_back) = out_and_back(&game);
    game.play(black_out).unwrap();
    let (white_out, white_back) = out_and_back(&game);
    game.play(white_out).unwrap();
    game.play(black_back).unwrap();
    let opening = Opening {
        moves: vec![black_out, white_out, black_back],
        line: 1,
    };
    (opening, white_back)
}

fn play_games(variant: Arc<Variant>, opening: Opening, games: usize) -> Vec<FinishedGame> {
    // PUCT with 200 visits and uniform priors visits each of the ~60 root moves.
    let search = SearchConfig {
        root: RootSelection::Puct,
        visits: 200,
        ..SearchConfig::default()
    };
    let config = SelfplayConfig {
        games_in_flight: 2,
        full_search_share: 1.0,
        cheap_visits: 4,
        max_plies: 12,
        opening_share: 1.0,
        avoid_repetition: false,
        ..SelfplayConfig::default()
    };
    let mut play = SelfPlay::new(variant, search, config, 3);
    play.set_openings(vec![opening]).unwrap();
    play.game_limit = Some(games as u64);
    let mut out = Vec::new();
    while out.len() < games {
        play.step(&mut UniformEvaluator).unwrap();
        out.extend(play.take_finished());
    }
    out
}

#[test]
fn strict_self_play_never_searches_or_plays_a_move_back_to_an_earlier_position() {
    for strict in [false, true] {
        let v = variant(strict);
        let (opening, white_back) = opening(&v);
        let back_text = {
            let mut g = Game::new(Position::initial(v.clone()));
            for &m in &opening.moves {
                g.play_unchecked(m);
            }
            g.position().move_text(white_back)
        };
        for game in play_games(v.clone(), opening.clone(), 2) {
            // The first row is White's search right after the opening.
            let first = &game.rows[0];
            let weighed = first
                .policy
                .iter()
                .any(|(m, w)| *m == back_text && *w > 0.0);
            assert_eq!(
                weighed, !strict,
                "strict {strict}: {back_text} in {:?}",
                first.policy
            );
            // Every move of the record is legal in its game (Game::play judges repeats),
            // and no policy target weighs a move the game forbids.
            let record = tengu_rules::Record::parse(&game.record.to_string()).unwrap();
            let mut replay = Game::new(record.game.start().clone());
            let moves: Vec<Move> = record.game.moves().collect();
            for (ply, &m) in moves.iter().enumerate() {
                if let Some(row) = game.rows.iter().find(|r| r.ply as usize == ply) {
                    let legal: Vec<String> = replay
                        .legal_move_list()
                        .into_iter()
                        .map(|m| replay.position().move_text(m))
                        .collect();
                    for (text, _) in &row.policy {
                        assert!(legal.contains(text), "ply {ply}: {text} is not legal here");
                    }
                }
                replay.play(m).unwrap();
            }
        }
    }
}
