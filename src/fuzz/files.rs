//! The file doors: a run's config, replay shards, books, checkpoints and their manifests,
//! and the records a run keeps (loss log, Elo and suite records, the ladder report, match
//! results, a worker's live game). Readers that take a path or a run get the bytes written
//! to a scratch folder of this process first, as a user's file would be.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tengu_model::Backend;
use tengu_rules::Variant;
use tengu_store::{Location, RunStore};
use tengu_trainer::records::{read_lines, to_line, LossRecord, Record};

use super::input::{choice, text};
use crate::config::RunConfig;

/// This process's scratch folder (removed by nobody: a fuzzing session's temporary files
/// are the operating system's to clear), created on first use.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tengu-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder in the temporary directory");
        dir
    })
}

/// `bytes` written to `name` in the scratch folder; its path.
fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("scratch folders");
    }
    std::fs::write(&path, bytes).expect("writing a scratch file");
    path
}

/// A run's `config.toml`: one that reads is written back (as `tengu run` writes a run's
/// effective config) to text that reads to the same configuration.
pub fn run_config(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(config) = RunConfig::parse(text, "config.toml") else {
        return;
    };
    let written = config.to_run_text();
    let again = RunConfig::parse(&written, "written")
        .unwrap_or_else(|e| panic!("the written config is refused: {e}\n{written}"));
    assert_eq!(again, config, "run config round trip:\n{written}");
    let _ = config.game_key();
}

/// The bytes as they are, then with their last 4 bytes replaced by the CRC-32 of the rest,
/// as a framed file (shards, books) ends: a mutation anywhere else then reaches the decoder
/// instead of stopping at the checksum.
fn framed_readings(data: &[u8]) -> [Vec<u8>; 2] {
    let mut mended = data.to_vec();
    if mended.len() >= 4 {
        let body = mended.len() - 4;
        let crc = crc32fast::hash(&mended[..body]);
        mended[body..].copy_from_slice(&crc.to_le_bytes());
    }
    [data.to_vec(), mended]
}

/// A replay shard: one that reads is written back to bytes that read to the same shard.
pub fn shard(data: &[u8]) {
    for bytes in framed_readings(data) {
        shard_round_trip(&bytes);
    }
}

fn shard_round_trip(data: &[u8]) {
    let Ok((header, rows)) = tengu_shard::from_bytes(data, "fuzz.shard") else {
        return;
    };
    let written = tengu_shard::to_bytes(&header, &rows);
    let (header_again, rows_again) = tengu_shard::from_bytes(&written, "written")
        .unwrap_or_else(|e| panic!("a written shard is refused: {e}"));
    assert_eq!(header_again, header, "shard header round trip");
    assert_eq!(rows_again, rows, "shard rows round trip");
}

/// An opening book: one that reads is written back to the same bytes.
pub fn book(data: &[u8]) {
    for bytes in framed_readings(data) {
        book_round_trip(&bytes);
    }
}

fn book_round_trip(data: &[u8]) {
    let Ok(book) = tengu_book::Book::from_bytes(data, "fuzz.book") else {
        return;
    };
    let written = book.to_bytes();
    let again = tengu_book::Book::from_bytes(&written, "written")
        .unwrap_or_else(|e| panic!("a written book is refused: {e}"));
    assert_eq!(again.to_bytes(), written, "book round trip");
}

/// A checkpoint file for the game the first byte picks, loaded as `--checkpoint` loads it
/// (metadata, planes, weights) into the CPU evaluator.
pub fn checkpoint(data: &[u8]) {
    let Some((pick, bytes)) = choice(data) else {
        return;
    };
    let variant = if pick & 1 == 0 {
        Variant::dai_dai()
    } else {
        Variant::maka_dai_dai()
    };
    let path = scratch_file("model-1.safetensors", bytes);
    let _ = Backend::Burn.load_evaluator(&path, &variant);
}

/// A checkpoint's manifest, read from a run as a worker reads a committed one: one that
/// reads is written back to JSON that reads to the same manifest.
pub fn manifest(data: &[u8]) {
    let run = scratch().join("run");
    let store = RunStore::at(Location::Local(run)).expect("a local run");
    // Stored under the step it names, as a trainer publishes it (a manifest under another
    // step's name is refused for that alone).
    let step = serde_json::from_slice::<serde_json::Value>(data)
        .ok()
        .and_then(|v| v.get("step").and_then(|s| s.as_u64()))
        .unwrap_or(7);
    store
        .put(&tengu_store::layout::manifest_key(step), data.to_vec())
        .expect("writing the manifest");
    let Ok(manifest) = tengu_store::checkpoint::manifest(&store, step) else {
        return;
    };
    let written = serde_json::to_string(&manifest).expect("a manifest serialises");
    let again: tengu_store::checkpoint::Manifest =
        serde_json::from_str(&written).unwrap_or_else(|e| panic!("{written}: {e}"));
    assert_eq!(again, manifest, "manifest round trip");
}

/// A run's records, by the first byte: the loss log, the Elo and suite records (JSON lines
/// read by one reader, each record written back reads the same), the ladder report, a
/// match's `results.jsonl`, a tactics suite file, or a worker's live game object.
pub fn run_records(data: &[u8]) {
    let Some((pick, bytes)) = choice(data) else {
        return;
    };
    match pick % 7 {
        3 => {
            let folder = scratch().join("match");
            scratch_file("match/results.jsonl", bytes);
            let _ = tengu_arena::results::read_folder(&folder);
            return;
        }
        6 => {
            let _ = tengu_selfplay::live::LiveGame::parse(bytes);
            return;
        }
        _ => {}
    }
    let Some(text) = text(bytes) else { return };
    match pick % 7 {
        0 => lines_round_trip::<LossRecord>(text),
        1 => lines_round_trip::<tengu_run::records::EloRecord>(text),
        2 => lines_round_trip::<tengu_run::records::SuiteRecord>(text),
        4 => {
            if let Ok(report) = tengu_run::records::read_ladder("ladder.json", text) {
                let written = serde_json::to_string(&report).expect("a report serialises");
                let again = tengu_run::records::read_ladder("written", &written)
                    .unwrap_or_else(|e| panic!("{written}: {e}"));
                assert_eq!(again, report, "ladder report round trip");
                let _ = (report.to_text(), report.to_svg());
            }
        }
        _ => {
            if let Ok(suite) = tengu_arena::suite::Suite::parse(text, "fuzz.suite") {
                let written = suite.to_text();
                let again = tengu_arena::suite::Suite::parse(&written, "written")
                    .unwrap_or_else(|e| panic!("a written suite is refused: {e}"));
                assert_eq!(again.to_text(), written, "suite round trip");
            }
        }
    }
}

/// JSON-lines records: each record read is written back to a line that reads to the same.
fn lines_round_trip<T: Record + PartialEq + std::fmt::Debug>(text: &str) {
    let Ok(records) = read_lines::<T>("records.jsonl", text) else {
        return;
    };
    for record in records {
        let line = to_line(&record);
        let again = read_lines::<T>("written", &line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(again, [record], "{} round trip: {line}", T::KIND);
    }
}
