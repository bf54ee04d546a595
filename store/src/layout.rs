//! The layout of a run (keys relative to its location):
//!
//! ```text
//! config.toml                                   effective configuration (tengu run / the trainer)
//! models/model-<step:09>.safetensors            weights of a checkpoint (the trainer)
//! models/optimizer-<step:09>.bpk                its optimizer state
//! models/model-<step:09>.json                   its manifest: the commit record (checkpoint.rs)
//! shards/<stem>-g<games:03>-r<rows:06>.shard    replay shards (any number of workers)
//! games/<stem>.records                          the game records of one shard (JSON lines)
//! trainer/lease-<generation:06>.json            trainer leases, created once each (lease.rs)
//! trainer/heartbeat-<generation:06>.json        the lease holder's heartbeat
//! trainer/ingest-<step:09>.json                 what the trainer had read at a checkpoint
//! train/<step:09>.jsonl                         loss log lines after checkpoint <step>
//! cpu/<role>-<host>-<pid>.txt                   CPU seconds of each process
//! live/<host>-<pid>.json                        a worker's game in progress (replaced in place)
//! curves.svg, elo.jsonl, suite.jsonl, arena/    derived files and evaluations
//! ladder/ladder.json, .txt, .svg, <matches>/    the compute ladder (`tengu ladder`)
//! books/<name>/index.html, ...                  HTML book exports (`tengu serve` links them)
//! ```
//! `<stem>` = `<unix ms:013>-<host>-<pid>-<sequence:05>`: unique across workers and
//! machines, and ordered by time so a listing with `start-after` finds new shards.

pub const CONFIG: &str = "config.toml";
pub const MODELS: &str = "models";
pub const SHARDS: &str = "shards";
pub const GAMES: &str = "games";
pub const TRAINER: &str = "trainer";
pub const TRAIN_LOG: &str = "train";
pub const CPU: &str = "cpu";
/// Games in progress, one object per self-play worker (`tengu_selfplay::live`).
pub const LIVE: &str = "live";
/// The compute ladder's report (`tengu ladder`), drawn into `curves.svg`.
pub const LADDER_REPORT: &str = "ladder/ladder.json";
/// The ratings of the run's checkpoints, one line per evaluation match (`tengu run`;
/// `tengu_run::records::EloRecord`).
pub const ELO_LOG: &str = "elo.jsonl";
/// The run's checkpoints' tactics suite scores, one line each (`tengu run`;
/// `tengu_run::records::SuiteRecord`).
pub const SUITE_LOG: &str = "suite.jsonl";
/// The run's curves (`tengu_run::curves`), drawn from the loss log and the records.
pub const CURVES: &str = "curves.svg";
/// Extension of shards.
pub const SHARD_EXTENSION: &str = "shard";

/// Weights of the checkpoint after `step` training steps.
pub fn weights_key(step: u64) -> String {
    format!("{MODELS}/{}", weights_name(step))
}

/// File name of those weights (`model-000000100.safetensors`).
pub fn weights_name(step: u64) -> String {
    format!("model-{step:09}.safetensors")
}

/// The step in a weights or manifest name (`model-000000100.safetensors` / `.json`).
pub fn checkpoint_step(name: &str) -> Option<u64> {
    let rest = name.rsplit('/').next()?.strip_prefix("model-")?;
    let digits = rest
        .strip_suffix(".safetensors")
        .or_else(|| rest.strip_suffix(".json"))?;
    (digits.len() == 9 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

pub fn manifest_key(step: u64) -> String {
    format!("{MODELS}/model-{step:09}.json")
}

pub fn optimizer_key(step: u64) -> String {
    format!("{MODELS}/optimizer-{step:09}.bpk")
}

/// The loss-log segment holding the steps after checkpoint `step`.
pub fn train_log_key(step: u64) -> String {
    format!("{TRAIN_LOG}/{step:09}.jsonl")
}

pub fn ingest_key(step: u64) -> String {
    format!("{TRAINER}/ingest-{step:09}.json")
}

/// What a shard's name says: its stem, games and rows (so a trainer sizes its window from
/// a listing, without reading the shards).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardName {
    pub stem: String,
    pub games: u32,
    pub rows: u64,
    /// Milliseconds since the epoch when the writer named it (its clock).
    pub unix_ms: u64,
}

impl ShardName {
    pub fn file_name(&self) -> String {
        format!(
            "{}-g{:03}-r{:06}.{SHARD_EXTENSION}",
            self.stem, self.games, self.rows
        )
    }

    pub fn key(&self) -> String {
        format!("{SHARDS}/{}", self.file_name())
    }

    /// Key of the game records of this shard.
    pub fn records_key(&self) -> String {
        format!("{GAMES}/{}.records", self.stem)
    }

    /// Parses `<stem>-g<games>-r<rows>.shard`; `None` for other names (shards of older
    /// tengu versions are read to learn their counts).
    pub fn parse(name: &str) -> Option<ShardName> {
        let name = name.rsplit('/').next()?;
        let base = name.strip_suffix(&format!(".{SHARD_EXTENSION}"))?;
        let (rest, rows) = base.rsplit_once("-r")?;
        let (stem, games) = rest.rsplit_once("-g")?;
        let unix_ms = stem.split('-').next()?.parse().ok()?;
        Some(ShardName {
            stem: stem.into(),
            games: games.parse().ok()?,
            rows: rows.parse().ok()?,
            unix_ms,
        })
    }
}

/// Whether `name` (the last component of a key) is a shard.
pub fn is_shard(name: &str) -> bool {
    name.ends_with(&format!(".{SHARD_EXTENSION}")) && !name.starts_with('.')
}

/// A name stem unique across workers and machines: milliseconds since the epoch, host,
/// process id and a per-process sequence number.
pub fn unique_stem(sequence: u64) -> String {
    format!(
        "{:013}-{}-{}-{sequence:05}",
        unix_ms(),
        host_name(),
        std::process::id()
    )
}

/// The name of this process as a writer of the run: `<host>-<pid>` (shard headers, the
/// live game's key).
pub fn writer_name() -> String {
    format!("{}-{}", host_name(), std::process::id())
}

/// Key of the game in progress that the worker `writer` ([`writer_name`]) shows.
pub fn live_key(writer: &str) -> String {
    format!("{LIVE}/{writer}.json")
}

/// Milliseconds since the Unix epoch by this machine's clock.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// This machine's name (letters, digits and dashes only), or `host`.
pub fn host_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_default();
    let clean: String = raw
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if clean.is_empty() {
        "host".into()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_round_trip_and_carry_counts() {
        let n = ShardName {
            stem: "1764000000000-gpu-node-7-123-00004".into(),
            games: 12,
            rows: 3456,
            unix_ms: 1764000000000,
        };
        assert_eq!(
            n.file_name(),
            "1764000000000-gpu-node-7-123-00004-g012-r003456.shard"
        );
        assert_eq!(ShardName::parse(&n.key()), Some(n.clone()));
        assert_eq!(
            n.records_key(),
            "games/1764000000000-gpu-node-7-123-00004.records"
        );
        assert_eq!(ShardName::parse("1764000000000-h-1-00001.shard"), None);
        assert_eq!(ShardName::parse("x-g1-r2.shard"), None);
        assert_eq!(checkpoint_step("models/model-000000100.json"), Some(100));
        assert_eq!(checkpoint_step("model-000000100.safetensors"), Some(100));
        assert_eq!(checkpoint_step("model-100.json"), None);
        assert_eq!(checkpoint_step("optimizer-000000100.bpk"), None);
    }
}
