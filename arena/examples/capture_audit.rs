//! Where a match's material went: for each player of a `tengu match --out DIR` directory,
//! the captures it kept, the captures taken back at once (and their net), and how often it
//! had a capture nobody could take back and played one. With `--calibration CHECKPOINT`,
//! also how well the checkpoint's material head tracks the material balance on the
//! positions of those games (every 10th ply).
//!
//! A diagnostic for learning runs (docs/training.md, "Measuring learning"), not a test.
//! Usage: `cargo run --release -p tengu-arena --example capture_audit -- DIR
//! [--calibration CHECKPOINT]`
use std::path::Path;
use std::{fs, process};

use tengu_model::{Backend, EvalInput};
use tengu_rules::values::{material, piece_values};
use tengu_rules::{Game, Move, Position, Record};

/// One player's captures over the match.
#[derive(Default)]
struct Tally {
    moves: u32,
    kept: u32,
    kept_gain: f32,
    taken_back: u32,
    taken_back_net: f32,
    losing_exchanges: u32,
    free_available: u32,
    free_taken: u32,
}

/// Running sums for a correlation and a slope.
#[derive(Default)]
struct Fit {
    n: f64,
    x: f64,
    y: f64,
    xx: f64,
    yy: f64,
    xy: f64,
}

impl Fit {
    fn add(&mut self, x: f64, y: f64) {
        self.n += 1.0;
        self.x += x;
        self.y += y;
        self.xx += x * x;
        self.yy += y * y;
        self.xy += x * y;
    }

    /// (correlation, slope of y on x, sd of x, sd of y).
    fn finish(&self) -> (f64, f64, f64, f64) {
        let n = self.n.max(1.0);
        let cov = self.xy / n - self.x / n * self.y / n;
        let sx = (self.xx / n - (self.x / n).powi(2)).max(0.0).sqrt();
        let sy = (self.yy / n - (self.y / n).powi(2)).max(0.0).sqrt();
        (
            cov / (sx * sy).max(1e-12),
            cov / (sx * sx).max(1e-12),
            sx,
            sy,
        )
    }
}

fn fail(msg: String) -> ! {
    eprintln!("capture_audit: {msg}");
    process::exit(2)
}

/// Whether the opponent has no reply capturing on the square `capture` lands on.
fn is_free(pos: &Position, capture: Move) -> bool {
    let mut after = pos.clone();
    after.play(capture);
    !after
        .legal_move_list()
        .iter()
        .any(|r| r.captures().any(|s| s == capture.to()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        fail("usage: capture_audit DIR [--calibration CHECKPOINT]".into())
    };
    let checkpoint = match args.get(1).map(String::as_str) {
        Some("--calibration") => Some(
            args.get(2)
                .unwrap_or_else(|| fail("--calibration needs a checkpoint".into())),
        ),
        Some(other) => fail(format!("unknown argument {other:?}")),
        None => None,
    };
    let results = fs::read_to_string(format!("{dir}/results.jsonl"))
        .unwrap_or_else(|e| fail(format!("{dir}/results.jsonl: {e}")));
    let mut tally = [Tally::default(), Tally::default()];
    let mut evaluator = None;
    let mut fit = Fit::default();
    for line in results.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| fail(format!("results.jsonl: {e}")));
        let (Some(index), Some(a_black)) = (v["index"].as_u64(), v["a_is_black"].as_bool()) else {
            fail(format!("results.jsonl: no index / a_is_black in {line}"))
        };
        let path = format!("{dir}/games/game-{index:05}.record");
        let text = fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
        let record = Record::parse(&text).unwrap_or_else(|e| fail(format!("{path}: {e}")));
        let variant = record.game.start().variant().clone();
        let values = piece_values(&variant);
        if let (Some(ckpt), None) = (checkpoint, &evaluator) {
            let (eval, _) = Backend::Burn
                .load_evaluator(Path::new(ckpt), &variant)
                .unwrap_or_else(|e| fail(format!("{ckpt}: {e}")));
            evaluator = Some(eval);
        }
        let mut game = Game::new(record.game.start().clone());
        let moves: Vec<Move> = record.game.moves().collect();
        for (i, &m) in moves.iter().enumerate() {
            let pos = game.position().clone();
            let t = &mut tally[usize::from((i % 2 == 0) != a_black)];
            t.moves += 1;
            let free: Vec<Move> = pos
                .legal_move_list()
                .into_iter()
                .filter(|&c| c.is_capture() && is_free(&pos, c))
                .collect();
            if !free.is_empty() {
                t.free_available += 1;
                t.free_taken += u32::from(free.contains(&m));
            }
            if m.is_capture() {
                let won: f32 = m
                    .captures()
                    .filter_map(|s| pos.piece_at(s))
                    .map(|p| values[p.ty])
                    .sum();
                let mover = pos.piece_at(m.from()).map_or(0.0, |p| values[p.ty]);
                let igui = m.to() == m.from();
                let back = moves
                    .get(i + 1)
                    .is_some_and(|n| n.captures().any(|s| s == m.to()));
                if back && !igui {
                    t.taken_back += 1;
                    t.taken_back_net += won - mover;
                    t.losing_exchanges += u32::from(won < mover);
                } else {
                    t.kept += 1;
                    t.kept_gain += won;
                }
            }
            if let Some(eval) = evaluator.as_mut().filter(|_| i % 10 == 9) {
                let legal = pos.legal_move_list();
                let input = EvalInput {
                    position: &pos,
                    moves: &legal,
                    repetitions: 0,
                };
                let out = eval
                    .evaluate(&[input])
                    .unwrap_or_else(|e| fail(e.to_string()));
                let m = material(&pos, &values);
                let me = pos.side_to_move().index();
                let predicted = (out[0].material.clamp(-0.999, 0.999) as f64).atanh()
                    * tengu_model::desc::MATERIAL_SCALE as f64;
                fit.add((m[me] - m[1 - me]) as f64, predicted);
            }
            game.play_unchecked(m);
        }
    }
    for (t, name) in tally.iter().zip(["A", "B"]) {
        println!(
            "{name}: {} moves; kept captures {} (+{:.1} piece units); taken back at once {} \
             (net {:+.1}, {} losing); a capture nobody could take back in {} positions, played in {}",
            t.moves, t.kept, t.kept_gain, t.taken_back, t.taken_back_net, t.losing_exchanges,
            t.free_available, t.free_taken
        );
    }
    if evaluator.is_some() {
        let (r, slope, sx, sy) = fit.finish();
        println!(
            "material head on {} positions: correlation with the current balance {r:.3}, slope \
             {slope:.3} (1: tracks it), sd of the balance {sx:.1}, of the prediction {sy:.1}",
            fit.n
        );
    }
}
