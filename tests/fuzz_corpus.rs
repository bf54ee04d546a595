//! Every kept fuzzing input (`fuzz/corpus/<target>/*`) replayed through its target function
//! (`tengu::fuzz`), without the fuzzer: the inputs that once found a crash or a hang stay
//! fixed, and the seeds keep reading. Each target has a corpus folder and each folder is a
//! target. See docs/fuzzing.md.

use std::path::{Path, PathBuf};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus")
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_input_replays_through_its_target() {
    let root = corpus_root();
    let mut replayed = 0;
    for target in tengu::fuzz::TARGETS {
        let dir = root.join(target.name);
        let files = if dir.is_dir() {
            inputs(&dir)
        } else {
            Vec::new()
        };
        // A target whose seeds only the project's writers make (a shard) has them written
        // by scripts/fuzz.sh; until then they are replayed from memory.
        let made = tengu::fuzz::made_seeds()
            .into_iter()
            .filter(|(t, ..)| *t == target.name);
        let made: Vec<(String, Vec<u8>)> = made.map(|(_, n, b)| (n.to_string(), b)).collect();
        assert!(
            !files.is_empty() || !made.is_empty(),
            "{}: no corpus input",
            dir.display()
        );
        let kept = files
            .iter()
            .map(|f| (f.display().to_string(), std::fs::read(f).unwrap()));
        for (name, data) in kept.chain(made) {
            let outcome = std::panic::catch_unwind(|| (target.run)(&data));
            assert!(outcome.is_ok(), "{name}: the target panicked (see above)");
            replayed += 1;
        }
    }
    assert!(replayed >= tengu::fuzz::TARGETS.len(), "{replayed} inputs");
}

#[test]
fn every_corpus_folder_is_a_target() {
    for entry in std::fs::read_dir(corpus_root()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            tengu::fuzz::target(&name).is_some(),
            "fuzz/corpus/{name}: no such target"
        );
    }
}

#[test]
fn the_made_shard_reads() {
    let made = tengu::fuzz::made_seeds();
    let (_, name, bytes) = made
        .iter()
        .find(|(t, ..)| *t == "shard")
        .expect("a made shard");
    let (header, rows) = tengu_shard::from_bytes(bytes, name).unwrap();
    assert_eq!((header.rows, rows.len()), (2, 2));
}

/// Blind mutation of the kept inputs (byte flips, inserts, cuts, repeats, splices), no
/// coverage guidance: a smoke check for a machine without AFL++, not a substitute for
/// `scripts/fuzz.sh`. `FUZZ_SMOKE_ITERATIONS` (default 2000) mutants a target,
/// `FUZZ_SMOKE_TARGET` one target only; a mutant that panics is saved to
/// `fuzz/found/<target>/smoke-*` and fails the test.
/// `cargo test --test fuzz_corpus -- --ignored blind --nocapture`
#[test]
#[ignore]
fn blind_mutations_of_the_corpus() {
    let iterations: u64 = std::env::var("FUZZ_SMOKE_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let only = std::env::var("FUZZ_SMOKE_TARGET").ok();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let root = corpus_root();
    let mut failures = Vec::new();
    for target in tengu::fuzz::TARGETS
        .iter()
        .filter(|t| only.as_deref().is_none_or(|o| o == t.name))
    {
        let dir = root.join(target.name);
        let mut seeds: Vec<Vec<u8>> = if dir.is_dir() {
            inputs(&dir)
                .iter()
                .map(|f| std::fs::read(f).unwrap())
                .collect()
        } else {
            Vec::new()
        };
        seeds.extend(
            tengu::fuzz::made_seeds()
                .into_iter()
                .filter(|(t, ..)| *t == target.name)
                .map(|(_, _, b)| b),
        );
        let started = std::time::Instant::now();
        for i in 0..iterations {
            let mut data = seeds[(next() % seeds.len() as u64) as usize].clone();
            for _ in 0..1 + next() % 4 {
                let at = if data.is_empty() {
                    0
                } else {
                    (next() % data.len() as u64) as usize
                };
                match next() % 6 {
                    0 if !data.is_empty() => data[at] ^= 1 << (next() % 8),
                    1 => data.insert(at, next() as u8),
                    2 => data.truncate(at),
                    3 if !data.is_empty() => {
                        let end = (at + 1 + (next() % 16) as usize).min(data.len());
                        data.drain(at..end);
                    }
                    4 => {
                        let end = (at + (next() % 32) as usize).min(data.len());
                        let copy = data[at..end].to_vec();
                        data.splice(at..at, copy);
                    }
                    _ => {
                        let other = &seeds[(next() % seeds.len() as u64) as usize];
                        let from = if other.is_empty() {
                            0
                        } else {
                            (next() % other.len() as u64) as usize
                        };
                        data.truncate(at);
                        data.extend_from_slice(&other[from..]);
                    }
                }
            }
            if std::panic::catch_unwind(|| (target.run)(&data)).is_err() {
                let found = root.parent().unwrap().join("found").join(target.name);
                std::fs::create_dir_all(&found).unwrap();
                let path = found.join(format!("smoke-{i}"));
                std::fs::write(&path, &data).unwrap();
                failures.push(path.display().to_string());
            }
        }
        eprintln!(
            "{}: {iterations} mutants in {:.1} s",
            target.name,
            started.elapsed().as_secs_f64()
        );
    }
    assert!(failures.is_empty(), "panicking mutants: {failures:?}");
}
