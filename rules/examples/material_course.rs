//! How long a played-out game goes on after one side is stripped: for each game record, its
//! length and end, the first ply where one side held at least 90% of the material, and the
//! first ply where one side had nothing left but its royals (a bare King). Tells how many
//! plies a match or self-play spends mopping up a game already won.
//!
//! `cargo run --release --workspace --example material_course -- RECORD_OR_DIR...`
//! (a directory: its `*.record` files, as `tengu match` writes them under `games/`).

use std::path::{Path, PathBuf};

use tengu_rules::values::{material, piece_values};
use tengu_rules::{Color, Game, Record};

fn main() {
    let mut files: Vec<PathBuf> = Vec::new();
    for arg in std::env::args().skip(1) {
        let path = PathBuf::from(&arg);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&path)
                .unwrap_or_else(|e| fail(&path, e))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "record"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path);
        }
    }
    if files.is_empty() {
        eprintln!("usage: material_course RECORD_OR_DIR...");
        std::process::exit(2);
    }
    println!("record\tplies\tresult\tend\tply_90pct\tply_bare\tbare_side");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&path, e));
        let record = Record::parse(&text).unwrap_or_else(|e| fail(&path, e));
        let mut game = Game::new(record.game.start().clone());
        let values = piece_values(game.position().variant());
        let (mut ahead, mut bare) = (None, None);
        let mut plies = 0usize;
        for (ply, m) in record.game.moves().enumerate() {
            observe(&game, &values, ply, &mut ahead, &mut bare);
            game.play_unchecked(m);
            plies = ply + 1;
        }
        observe(&game, &values, plies, &mut ahead, &mut bare);
        let tag = |name: &str| record.tag(name).unwrap_or("?").to_string();
        let show = |x: Option<usize>| x.map_or("-".to_string(), |p| p.to_string());
        println!(
            "{}\t{plies}\t{}\t{}\t{}\t{}\t{}",
            path.display(),
            tag("Result"),
            tag("Termination"),
            show(ahead),
            show(bare.map(|(p, _)| p)),
            bare.map_or("-".to_string(), |(_, c): (usize, Color)| format!("{c:?}"))
        );
    }
}

/// Notes the first ply where a side holds 90% of the material and where a side is bare.
fn observe(
    game: &Game,
    values: &[f32],
    ply: usize,
    ahead: &mut Option<usize>,
    bare: &mut Option<(usize, Color)>,
) {
    let m = material(game.position(), values);
    let total = m[0] + m[1];
    if ahead.is_none() && total > 0.0 && (m[0] >= 0.9 * total || m[1] >= 0.9 * total) {
        *ahead = Some(ply);
    }
    if bare.is_none() {
        for c in Color::ALL {
            if m[c.index()] == 0.0 {
                *bare = Some((ply, c));
            }
        }
    }
}

fn fail(path: &Path, e: impl std::fmt::Display) -> ! {
    eprintln!("{}: {e}", path.display());
    std::process::exit(2)
}
