//! How often a position holds legal moves that another rule set of its game allows and the
//! network's training rules do not, and what the network and its search do with them
//! (issue #56; the numbers are in docs/network.md, "Other rule sets of the game").
//!
//! Positions are sampled from game records played under the default rules (self-play
//! `.records` files, match `.record` files), a few plies apart, and read again under a preset
//! (same board, side to move and pass flag). A move is *unseen* when its policy slot (from,
//! to, capture pattern, declined promotion) is no legal move's slot of the same position under
//! the network's training rules: the slot's logit was never trained. For each position the
//! network (a checkpoint, loaded under the preset as every command loads it) gives its prior,
//! and a search of VISITS visits with the checkpoint's own settings its policy target and
//! move.
//!
//! usage: cargo run --profile test --example other_rules -- CHECKPOINT PRESET POSITIONS
//!        VISITS RECORD_FILE...
//!
//! The table of docs/network.md came from `... networks/dai-dai.safetensors tsa 600 64
//! $(git ls-files 'experiments/cpu-runs/dai-dai-to-the-end/games/*.records')` (and `qboard`), and for
//! Maka Dai Dai Shogi `... networks/maka-dai-dai.safetensors tsa 600 64 $(git ls-files
//! 'experiments/baselines/maka-dai-dai-cpu-2026-11-26/*.record')` (and `qboard`, `japanese-revival`).

use std::path::Path;
use std::sync::Arc;

use tengu_model::{Backend, Encoder, EvalInput, PolicyIndex, PolicySlot};
use tengu_rules::{Game, Position, Record, RuleSet, Variant};
use tengu_search::SearchConfig;

/// The `[search]` table beside a checkpoint (`<name>.toml`), else the defaults.
fn search_config(checkpoint: &Path) -> SearchConfig {
    #[derive(serde::Deserialize)]
    struct File {
        search: SearchConfig,
    }
    std::fs::read_to_string(checkpoint.with_extension("toml"))
        .ok()
        .and_then(|text| toml::from_str::<File>(&text).ok())
        .map_or_else(SearchConfig::default, |f| f.search)
}

/// The records in `paths`: `.records` files hold one JSON object a line with the record's
/// text under `record`; other files are one record each.
fn records(paths: &[String]) -> Vec<Record> {
    let mut out = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("cannot read {path}");
            continue;
        };
        if path.ends_with(".records") {
            for line in text.lines() {
                let json: serde_json::Value = match serde_json::from_str(line) {
                    Ok(v) => v,
                    Err(_) => continue,
                };
                if let Some(r) = json["record"].as_str().and_then(|t| Record::parse(t).ok()) {
                    out.push(r);
                }
            }
        } else if let Ok(r) = Record::parse(&text) {
            out.push(r);
        }
    }
    out
}

fn slots(index: &PolicyIndex, pos: &Position) -> Vec<(PolicySlot, tengu_rules::Move)> {
    pos.legal_move_list()
        .into_iter()
        .filter_map(|m| index.slot(pos, m).ok().map(|s| (s, m)))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: other_rules CHECKPOINT PRESET POSITIONS VISITS RECORD_FILE...");
        std::process::exit(2);
    }
    let checkpoint = Path::new(&args[0]);
    let preset = &args[1];
    let wanted: usize = args[2].parse().expect("POSITIONS");
    let visits: u32 = args[3].parse().expect("VISITS");
    let records = records(&args[4..]);
    let Some(first) = records.first() else {
        eprintln!("no records read");
        std::process::exit(2);
    };
    let trained_key = tengu_model::checkpoint::read_meta(checkpoint)
        .expect("checkpoint")
        .game;
    let trained = Variant::builtin(&trained_key).expect("a built-in game");
    let game = trained.game().to_string();
    let playing: Arc<Variant> =
        Variant::by_key(&RuleSet::preset(&game, preset).expect("preset").canonical())
            .expect("rule set");
    println!("trained under {trained_key}; playing {}", playing.id());
    let index = PolicyIndex::new(Encoder::new(&playing));
    let (mut eval, _) = Backend::Burn
        .load_evaluator(checkpoint, &playing)
        .expect("the checkpoint loads under the preset");
    let config = search_config(checkpoint);
    assert_eq!(
        first.game.start().variant().game(),
        game,
        "records of another game"
    );

    // Positions a few plies apart over all games, every game contributing.
    let total_plies: usize = records.iter().map(|r| r.game.len()).sum();
    let stride = (total_plies / wanted.max(1)).max(1);
    let mut positions: Vec<Position> = Vec::new();
    let mut ply_counter = 0usize;
    for r in &records {
        let mut replay = Game::new(r.game.start().clone());
        for m in r.game.moves() {
            replay.play_unchecked(m);
            ply_counter += 1;
            if ply_counter % stride == 0 && replay.outcome().is_none() {
                positions.push(replay.position().clone());
            }
        }
    }
    positions.truncate(wanted);

    let (mut with_unseen, mut moves_all, mut moves_unseen) = (0usize, 0usize, 0usize);
    let (mut prior_unseen, mut fair_unseen) = (0f64, 0f64);
    let (mut target_unseen, mut best_unseen, mut top_prior_unseen) = (0f64, 0usize, 0usize);
    let mut unreadable = 0usize;
    // Unseen moves in positions whose side to move is in check under one rule set only.
    let (mut check_differs, mut unseen_check_differs) = (0usize, 0usize);
    let mut by_piece: std::collections::BTreeMap<String, usize> = Default::default();
    let mut best_by_piece: std::collections::BTreeMap<String, usize> = Default::default();
    let mut examples: Vec<String> = Vec::new();
    for trained_pos in &positions {
        let text = trained_pos.to_string();
        let pos = match Position::parse_for(playing.clone(), &text) {
            Ok(p) if !p.legal_move_list().is_empty() => p,
            _ => {
                unreadable += 1;
                continue;
            }
        };
        let seen: std::collections::HashSet<PolicySlot> = slots(&index, trained_pos)
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        let moves = pos.legal_move_list();
        let unseen: Vec<bool> = moves
            .iter()
            .map(|&m| index.slot(&pos, m).map_or(true, |s| !seen.contains(&s)))
            .collect();
        let count = unseen.iter().filter(|&&u| u).count();
        moves_all += moves.len();
        moves_unseen += count;
        if count == 0 {
            continue;
        }
        with_unseen += 1;
        if trained_pos.in_check() != pos.in_check() {
            check_differs += 1;
            unseen_check_differs += count;
        }
        for (m, _) in moves.iter().zip(&unseen).filter(|(_, &u)| u) {
            let piece = pos.piece_at(m.from()).expect("a mover");
            let code = playing.kinds()[playing.piece_types()[piece.ty].kind]
                .code
                .clone();
            *by_piece.entry(code).or_default() += 1;
        }
        let input = EvalInput {
            position: &pos,
            moves: &moves,
            repetitions: 0,
        };
        let evaluation = eval.evaluate(&[input]).expect("evaluates").remove(0);
        let mass: f32 = evaluation
            .policy
            .iter()
            .zip(&unseen)
            .filter(|(_, &u)| u)
            .map(|(p, _)| p)
            .sum();
        prior_unseen += mass as f64;
        fair_unseen += count as f64 / moves.len() as f64;
        let top = (0..moves.len())
            .max_by(|&a, &b| evaluation.policy[a].total_cmp(&evaluation.policy[b]))
            .expect("moves");
        top_prior_unseen += unseen[top] as usize;
        let game = Game::new(pos.clone());
        let found =
            tengu_search::search::search_game(&game, eval.as_mut(), &config, visits, 4000, 1)
                .expect("searches")
                .expect("a move");
        let target: f32 = found
            .policy
            .iter()
            .filter(|(m, _)| unseen[moves.iter().position(|x| x == m).expect("legal")])
            .map(|(_, w)| w)
            .sum();
        target_unseen += target as f64;
        let best = moves.iter().position(|&m| m == found.best).expect("legal");
        if unseen[best] {
            best_unseen += 1;
            let piece = pos.piece_at(found.best.from()).expect("a mover");
            let code = playing.kinds()[playing.piece_types()[piece.ty].kind]
                .code
                .clone();
            *best_by_piece.entry(code).or_default() += 1;
            if examples.len() < 8 {
                examples.push(format!("{} in {}", pos.move_text(found.best), text));
            }
        }
    }
    let n = positions.len() - unreadable;
    let share = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{n} positions ({} records, every {stride}th ply; {unreadable} not readable under the preset or without moves)",
        records.len()
    );
    println!(
        "positions with an unseen legal move: {with_unseen} ({:.1}%); unseen moves {moves_unseen} of {moves_all} legal ({:.2}%)",
        share(with_unseen, n),
        share(moves_unseen, moves_all)
    );
    println!("unseen moves by piece: {by_piece:?}");
    println!(
        "of those, in {check_differs} positions ({unseen_check_differs} unseen moves) the side to move is in check under one rule set only"
    );
    let per = |x: f64| x / with_unseen.max(1) as f64;
    println!(
        "in those positions: prior on unseen moves {:.4} (their share of the legal moves {:.4}); the top prior move unseen in {top_prior_unseen}; search ({visits} visits) target on unseen moves {:.4}; its move unseen in {best_unseen} ({:.1}% of those positions, {:.1}% of all) by piece {best_by_piece:?}",
        per(prior_unseen),
        per(fair_unseen),
        per(target_unseen),
        share(best_unseen, with_unseen),
        share(best_unseen, n)
    );
    for e in examples {
        println!("  played: {e}");
    }
}
