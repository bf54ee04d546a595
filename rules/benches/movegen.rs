//! Criterion benches: perft from the initial positions and legal move generation on a fixed
//! set of positions (rules/tests/data/bench.positions).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use tengu_rules::perft::perft;
use tengu_rules::{Position, Variant};

const BENCH_POSITIONS: &str = include_str!("../tests/data/bench.positions");

fn positions() -> Vec<(String, Position)> {
    BENCH_POSITIONS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, text) = l.split_once(':').expect("name: position");
            (
                name.trim().to_string(),
                Position::parse(text.trim()).expect("valid bench position"),
            )
        })
        .collect()
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, variant, depth) in [
        ("dai-dai", Variant::dai_dai(), 3),
        ("maka-dai-dai", Variant::maka_dai_dai(), 3),
    ] {
        let mut pos = Position::initial(variant);
        let leaves = perft(&mut pos, depth);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{name}/depth{depth}"), |b| {
            b.iter(|| perft(black_box(&mut pos), depth))
        });
    }
    group.finish();
}

fn bench_legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    let mut list = Vec::with_capacity(4096);
    for (name, pos) in positions() {
        pos.legal_moves(&mut list);
        group.throughput(Throughput::Elements(list.len() as u64));
        group.bench_function(format!("{name} ({} moves)", list.len()), |b| {
            b.iter(|| {
                pos.legal_moves(black_box(&mut list));
                list.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_legal_moves);
criterion_main!(benches);
