//! Search control in self-play: games restarted from positions of earlier games (Go-Exploit),
//! games with a careless side that plays its raw policy without a search, waiting moves left
//! out of self-play roots.

use tengu_rules::{Color, Game, Move, Position, Variant};
use tengu_search::SearchConfig;
use tengu_selfplay::play::{is_waiting, FinishedGame};
use tengu_selfplay::{SelfPlay, SelfplayConfig};

mod common;

const MAX_PLIES: u32 = 40;

fn config() -> SelfplayConfig {
    SelfplayConfig {
        games_in_flight: 2,
        cheap_visits: 2,
        max_plies: MAX_PLIES,
        full_search_share: 0.5,
        restart_min_plies: 10,
        resign_threshold: 2.0, // never: uniform values are 0 anyway
        ..SelfplayConfig::default()
    }
}

fn play_games(config: SelfplayConfig, games: u64) -> Vec<FinishedGame> {
    let search = SearchConfig {
        visits: 4,
        ..SearchConfig::default()
    };
    let mut play = SelfPlay::new(Variant::dai_dai(), search, config, 11);
    common::finish_games(&mut play, games)
}

fn moves_of(g: &FinishedGame) -> Vec<Move> {
    g.record.game.moves().collect()
}

#[test]
fn restarted_games_continue_an_earlier_game_and_row_only_their_own_plies() {
    let config = SelfplayConfig {
        restart_share: 1.0,
        restart_archive_games: 3,
        ..config()
    };
    let games = play_games(config, 12);
    // The first games start from the initial position: the archive is empty.
    assert!(games[0].restart.is_none() && games[0].rows[0].ply == 0);
    let restarted: Vec<&FinishedGame> = games.iter().filter(|g| g.restart.is_some()).collect();
    assert!(restarted.len() >= 8, "{} restarted", restarted.len());
    let mut plies_seen = std::collections::BTreeSet::new();
    for g in restarted {
        let ply = g.restart.unwrap();
        plies_seen.insert(ply);
        assert_eq!(g.record.tag("Restart"), Some(ply.to_string().as_str()));
        // At least restart_min_plies are left to play, and at least one ply was skipped.
        assert!((1..=MAX_PLIES - 10).contains(&ply), "restart at {ply}");
        // The skipped plies are an earlier finished game's first moves.
        let moves = moves_of(g);
        let prefix = &moves[..ply as usize];
        let earlier = games
            .iter()
            .take_while(|e| !std::ptr::eq(*e, g))
            .any(|e| moves_of(e).len() > prefix.len() && moves_of(e)[..prefix.len()] == *prefix);
        assert!(
            earlier,
            "the restart prefix of {ply} plies is no earlier game's"
        );
        // Rows begin at the restart ply, each at its own position.
        let mut replay = Game::new(g.record.game.start().clone());
        for &m in prefix {
            replay.play_unchecked(m);
        }
        for (k, row) in g.rows.iter().enumerate() {
            assert_eq!(row.ply, ply + k as u32);
            assert_eq!(row.position, replay.position().to_string());
            if (ply as usize + k) < moves.len() {
                replay.play_unchecked(moves[ply as usize + k]);
            }
        }
    }
    // The restart ply is drawn, not fixed.
    assert!(plies_seen.len() >= 3, "{plies_seen:?}");
}

#[test]
fn without_a_share_no_game_restarts_and_no_side_is_careless() {
    for g in play_games(config(), 3) {
        assert_eq!((g.restart, g.careless), (None, None));
        assert_eq!(g.record.tag("Restart"), None);
        assert_eq!(g.record.tag("Careless"), None);
        assert_eq!(g.rows[0].ply, 0);
    }
}

#[test]
fn a_careless_side_never_makes_policy_targets() {
    let config = SelfplayConfig {
        careless_share: 1.0,
        full_search_share: 1.0,
        ..config()
    };
    let games = play_games(config, 6);
    let mut sides = std::collections::BTreeSet::new();
    for g in &games {
        let careless = g.careless.expect("every game has a careless side");
        sides.insert(careless.index());
        assert_eq!(
            g.record.tag("Careless"),
            Some(careless.to_string().as_str())
        );
        for row in &g.rows {
            // Black moves at even plies from the initial position.
            let mover = if row.ply % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            // Every search of the careful side is full here; the careless side searches none.
            assert_eq!(row.full_search, mover != careless, "ply {}", row.ply);
        }
    }
    assert_eq!(
        sides.len(),
        2,
        "both colours are drawn as the careless side"
    );
}

#[test]
fn the_settings_are_checked() {
    for (config, key) in [
        (
            SelfplayConfig {
                restart_share: 1.5,
                ..config()
            },
            "selfplay.restart_share",
        ),
        (
            SelfplayConfig {
                restart_share: 0.5,
                restart_archive_games: 0,
                ..config()
            },
            "selfplay.restart_archive_games",
        ),
        (
            SelfplayConfig {
                careless_share: -0.1,
                ..config()
            },
            "selfplay.careless_share",
        ),
    ] {
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains(key), "{err}");
    }
    let parsed: SelfplayConfig = toml::from_str(
        "restart_share = 0.5\nrestart_archive_games = 50\nrestart_min_plies = 30\ncareless_share = 0.25\n",
    )
    .unwrap();
    assert_eq!(
        (
            parsed.restart_share,
            parsed.restart_archive_games,
            parsed.restart_min_plies,
            parsed.careless_share
        ),
        (0.5, 50, 30, 0.25)
    );
    assert!(toml::from_str::<SelfplayConfig>("restart_shares = 0.5\n").is_err());
}

/// Waiting moves of a finished game: (moves that waited, plies with a non-waiting choice).
fn waiting_moves(g: &FinishedGame) -> usize {
    let mut game = Game::new(g.record.game.start().clone());
    let mut waited = 0;
    for m in g.record.game.moves() {
        let legal = game.position().legal_move_list();
        let all_wait = legal.iter().all(|&l| is_waiting(&game, l));
        if is_waiting(&game, m) && !all_wait {
            waited += 1;
        }
        game.play_unchecked(m);
    }
    waited
}

#[test]
fn passes_and_step_backs_are_waiting_moves() {
    let mut game = Game::new(Position::initial(Variant::dai_dai()));
    let legal = game.position().legal_move_list();
    // Dai Dai's Lions may pass from the start; no move has been made to step back from.
    assert!(legal.iter().any(|m| m.is_pass()));
    for &m in &legal {
        assert_eq!(
            is_waiting(&game, m),
            m.is_pass(),
            "{}",
            game.position().move_text(m)
        );
    }
    let out = legal
        .iter()
        .copied()
        .find(|m| !m.is_pass() && !m.is_capture())
        .unwrap();
    game.play(out).unwrap();
    let reply = game
        .position()
        .legal_move_list()
        .into_iter()
        .find(|m| !m.is_pass() && !m.is_capture())
        .unwrap();
    game.play(reply).unwrap();
    for m in game.position().legal_move_list() {
        let back = m.from() == out.to() && m.to() == out.from() && !m.is_capture();
        assert_eq!(is_waiting(&game, m), back || m.is_pass());
    }
    assert!(game
        .position()
        .legal_move_list()
        .iter()
        .any(|&m| m.from() == out.to() && m.to() == out.from()));
}

#[test]
fn self_play_that_avoids_waiting_never_waits_while_it_has_another_move() {
    let random = play_games(config(), 4);
    assert!(
        random.iter().map(waiting_moves).sum::<usize>() > 0,
        "near-uniform play waits now and then"
    );
    let config = SelfplayConfig {
        avoid_waiting: true,
        ..config()
    };
    for g in play_games(config, 4) {
        assert_eq!(waiting_moves(&g), 0);
    }
}
