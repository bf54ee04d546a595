//! Shards round-trip, and every kind of damage is reported as what it is.

use std::path::Path;

use tengu_shard::{Row, ShardError, ShardHeader};
use tengu_store::framed::FrameError;

fn sample() -> (ShardHeader, Vec<Row>) {
    let rows: Vec<Row> = (0..50)
        .map(|i| Row {
            position: format!("position {i}"),
            repetitions: (i % 3) as u8,
            policy: vec![("9m>9l".into(), 0.75), ("1p>1o".into(), 0.25)],
            result: (i % 3) as i8 - 1,
            search_value: i as f32 / 100.0,
            full_search: i % 4 == 0,
            game: i / 10,
            ply: i % 10,
            game_plies: 10,
            material_future: [i as f32, -(i as f32)],
            occupancy_future: vec![(i % 3) as u8; 8],
            teacher: None,
        })
        .collect();
    let header = ShardHeader {
        encoder_version: 1,
        game: "dai-dai".into(),
        model: "model-000000100.safetensors".into(),
        rows: rows.len() as u64,
        games: 5,
        created_unix: 1_800_000_000,
        writer: "test-1".into(),
    };
    (header, rows)
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_shard_round_trips() {
    let d = dir();
    let path = d.path().join("a.shard");
    let (header, rows) = sample();
    tengu_shard::write(&path, &header, &rows).unwrap();
    let (h, r) = tengu_shard::read(&path).unwrap();
    assert_eq!(h, header);
    assert_eq!(r, rows);
    assert_eq!(tengu_shard::read_header(&path).unwrap(), header);
    // Nothing else is left in the directory (the temporary name was renamed).
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    assert_eq!(tengu_shard::list(d.path()).unwrap(), vec![path]);
}

fn write_bytes(d: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn every_truncation_is_rejected() {
    let d = dir();
    let (header, rows) = sample();
    let bytes = tengu_shard::to_bytes(&header, &rows);
    for cut in [
        0,
        4,
        8,
        11,
        15,
        40,
        bytes.len() / 2,
        bytes.len() - 5,
        bytes.len() - 1,
    ] {
        let p = write_bytes(d.path(), "cut.shard", &bytes[..cut]);
        let e = tengu_shard::read(&p).unwrap_err();
        assert!(
            matches!(
                e,
                ShardError::Frame {
                    frame: FrameError::Truncated { .. } | FrameError::BadMagic { .. },
                    ..
                }
            ),
            "cut at {cut}: {e}"
        );
        assert!(e.to_string().contains("cut.shard"), "{e}");
    }
}

#[test]
fn every_flipped_bit_is_rejected() {
    let d = dir();
    let (header, rows) = sample();
    let bytes = tengu_shard::to_bytes(&header, &rows);
    // Every byte after the magic and version, one bit each (a stride keeps it quick).
    for at in (12..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[at] ^= 1 << (at % 8);
        let p = write_bytes(d.path(), "flip.shard", &bad);
        let e = tengu_shard::read(&p).unwrap_err();
        assert!(
            matches!(
                e,
                ShardError::Frame {
                    frame: FrameError::Checksum { .. }
                        | FrameError::Truncated { .. }
                        | FrameError::Decode { .. },
                    ..
                } | ShardError::Corrupt { .. }
            ),
            "flip at {at}: {e}"
        );
    }
}

#[test]
fn wrong_magic_version_and_trailing_bytes_are_named() {
    let d = dir();
    let (header, rows) = sample();
    let bytes = tengu_shard::to_bytes(&header, &rows);
    let p = write_bytes(d.path(), "text.shard", b"hello, this is not a shard at all");
    assert!(matches!(
        tengu_shard::read(&p),
        Err(ShardError::Frame {
            frame: FrameError::BadMagic { kind: "shard" },
            ..
        })
    ));
    // A shard of the previous format (version 1, rows without future targets) is refused
    // by name, never misread.
    let mut v1 = bytes.clone();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let p = write_bytes(d.path(), "v1.shard", &v1);
    let e = tengu_shard::read(&p).unwrap_err();
    assert!(
        matches!(
            e,
            ShardError::Frame {
                frame: FrameError::Version {
                    found: 1,
                    expected: tengu_shard::FORMAT_VERSION,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("version 1"), "{e}");
    let mut long = bytes.clone();
    long.extend_from_slice(b"xx");
    let p = write_bytes(d.path(), "long.shard", &long);
    assert!(matches!(
        tengu_shard::read(&p),
        Err(ShardError::Frame {
            frame: FrameError::Trailing { bytes: 2 },
            ..
        })
    ));
    let missing = d.path().join("missing.shard");
    assert!(matches!(
        tengu_shard::read(&missing),
        Err(ShardError::Io { .. })
    ));
}

#[test]
fn listing_skips_temporaries_and_other_files() {
    let d = dir();
    let (header, rows) = sample();
    tengu_shard::write(&d.path().join("b.shard"), &header, &rows).unwrap();
    tengu_shard::write(&d.path().join("a.shard"), &header, &rows).unwrap();
    std::fs::write(d.path().join(".c.shard.tmp"), b"partial").unwrap();
    std::fs::write(d.path().join("notes.txt"), b"x").unwrap();
    let names: Vec<String> = tengu_shard::list(d.path())
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["a.shard", "b.shard"]);
}

/// A shard that `tengu selfplay` wrote before shards moved onto `tengu_store::framed` (one
/// Dai Dai game of four plies, seed 3), in format 2: it still reads, its rows without a
/// teacher label, and written again (format 3) it reads back the same.
#[test]
fn a_format_2_shard_reads_and_rewrites_as_format_3() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/before.shard");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    let (header, rows) = tengu_shard::read(&path).unwrap();
    assert_eq!(
        (header.game.as_str(), header.rows, rows.len()),
        ("dai-dai", 4, 4)
    );
    assert!(rows.iter().all(|r| r.teacher.is_none()));
    let d = dir();
    let copy = d.path().join("copy.shard");
    tengu_shard::write(&copy, &header, &rows).unwrap();
    let again = std::fs::read(&copy).unwrap();
    assert_eq!(
        u32::from_le_bytes(again[8..12].try_into().unwrap()),
        tengu_shard::FORMAT_VERSION
    );
    assert_eq!(tengu_shard::read(&copy).unwrap(), (header, rows));
}

/// A checksum-sound shard whose rows hold what no writer makes (a NaN or infinite target, a
/// result out of range) is refused naming the row and the field: a trainer must not learn
/// from it. Found by fuzzing (issue #55): `fuzz/corpus/shard/crash-nan-policy-weight`.
#[test]
fn rows_a_trainer_must_not_learn_from_are_refused() {
    let d = dir();
    let damages: [(&str, fn(&mut Row)); 5] = [
        ("policy weight NaN", |r| r.policy[1].1 = f32::NAN),
        ("search_value inf", |r| r.search_value = f32::INFINITY),
        ("material_future NaN", |r| r.material_future[0] = f32::NAN),
        ("result 3", |r| r.result = 3),
        ("teacher score NaN", |r| {
            r.teacher = Some(tengu_shard::TeacherLabel {
                depth: 2,
                base: 0.0,
                score: f32::NAN,
            })
        }),
    ];
    for (named, damage) in damages {
        let (header, mut rows) = sample();
        damage(&mut rows[7]);
        let path = d.path().join("damaged.shard");
        tengu_shard::write(&path, &header, &rows).unwrap();
        let e = tengu_shard::read(&path).unwrap_err();
        assert!(matches!(e, ShardError::Corrupt { .. }), "{named}: {e}");
        let shown = e.to_string();
        assert!(
            shown.contains("damaged.shard") && shown.contains("row 7: ") && shown.contains(named),
            "{named}: {shown}"
        );
    }
    // The undamaged rows still read.
    let (header, rows) = sample();
    let path = d.path().join("sound.shard");
    tengu_shard::write(&path, &header, &rows).unwrap();
    assert_eq!(tengu_shard::read(&path).unwrap().1, rows);
}
