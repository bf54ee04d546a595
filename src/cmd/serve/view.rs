//! What `tengu serve` shows of a run, kept by one watcher thread that reads the run
//! incrementally (new shards, records and checkpoints by `list_after`, as the trainer's
//! window does) and publishes a [`Snapshot`] whose JSON documents are built once per change,
//! so a page request never touches the store. Only game records, book pages and checkpoint
//! downloads are read on request ([`Reader`]), and only keys the snapshot lists.
//!
//! Never writes to the run. A location that does not exist (yet), is not a run or cannot be
//! read is a `problem` on the page and a warning in the log; the watcher keeps looking.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengu_arena::ladder::LadderReport;
use tengu_rules::{Color, Piece, Position, Record, Square, Variant};
use tengu_run::records::EloRecord;
use tengu_store::layout::{self, ShardName};
use tengu_store::{Location, RunStore, StoreError};

/// Seconds over which games and rows per hour are measured (the last hour).
const RATE_WINDOW_S: f64 = 3600.0;
/// A worker is "seen lately" when it wrote a shard in the last this many seconds.
const WORKER_RECENT_S: f64 = 900.0;
/// The trainer counts as training while its step moved in the last this many seconds.
const TRAINING_RECENT_S: f64 = 120.0;
/// Newest self-play game files listed.
const GAMES_LISTED: usize = 100;
/// Arena and ladder games listed (a ladder of 6 rungs, 3 opponents and 30 games is 540).
const MATCH_GAMES_LISTED: usize = 2000;
/// Where `tengu ladder` writes its report and its matches inside a run by default; other
/// ladders of the run (`--out RUN/ladder-600`) are the run's folders whose names start so.
const LADDER_DIR: &str = "ladder";
/// Where a run keeps its books: HTML exports (`books/<name>/index.html`) and book files.
const BOOKS_DIR: &str = "books";
/// The name ending of an opening book file (`tengu book build --out RUN/books/NAME.tbk`).
pub const BOOK_FILE_SUFFIX: &str = ".tbk";
/// Seconds between two listings of `arena/` and `books/` (many small files, rarely new).
const SLOW_LOOK_S: f64 = 15.0;
/// Games in progress read per look (the first objects of `live/` by name).
const LIVE_LISTED: usize = 32;
/// A game in progress is stale (its worker gone) when not rewritten for this many of its
/// worker's intervals, and at least [`LIVE_STALE_MIN_S`] seconds.
const LIVE_STALE_INTERVALS: f64 = 4.0;
const LIVE_STALE_MIN_S: f64 = 60.0;

/// Why something the page asked for cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("{0} is not a game, book page or checkpoint of this run")]
    Unknown(String),
    #[error("the run location is not readable now: {0}")]
    NoRun(String),
    #[error("{key}: {problem}")]
    Damaged { key: String, problem: String },
    /// A game index past the end of its file.
    #[error("{key}: game {index} asked for, the file has {count}")]
    NoGameAt {
        key: String,
        index: usize,
        count: usize,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ViewError {
    /// The HTTP status of the error: 404 for what the run does not have, 422 for a damaged
    /// file, 503 for a store that cannot be read now.
    pub fn status(&self) -> u16 {
        match self {
            ViewError::Unknown(_) => 404,
            ViewError::Damaged { .. } | ViewError::NoGameAt { .. } => 422,
            ViewError::NoRun(_) | ViewError::Store(_) => 503,
        }
    }
}

/// The JSON documents of the page's endpoints at one look at the run.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// `/api/now`: what the run is doing.
    pub now: Arc<str>,
    /// `/api/curves`: every scalar series and the step -> (hours, CPU-hours) axes.
    pub curves: Arc<str>,
    /// `/api/checkpoints`: manifests, arena results, commands; newest first.
    pub checkpoints: Arc<str>,
    /// `/api/games`: the newest self-play and arena game files.
    pub games: Arc<str>,
    /// `/api/books`: the run's HTML book exports (`name`, `href`), then its book files
    /// (`name`: the key, `href`: the play page, `file`: true).
    pub books: Arc<str>,
    /// `/api/ladder`: `{"ladder": null}` or the compute ladder's report (`ladder.json`),
    /// the address of its chart and any problem reading it.
    pub ladder: Arc<str>,
    /// `/api/live`: the workers' games in progress (summaries).
    pub live: Arc<str>,
    /// `/api/live/game?key=K`: each game in progress as [`game_json`], by key.
    pub live_games: Arc<HashMap<String, Arc<str>>>,
    /// Keys a request may read: game files, book files, checkpoint files.
    pub readable: Arc<Readable>,
    /// The last look's problem (the run cannot be read, is not a run), as `now` says it.
    pub problem: Option<String>,
    /// The newest training step of the loss log.
    pub step: Option<u64>,
    /// The run's CPU ledger total, CPU-hours.
    pub cpu_hours: f64,
    /// Whether the loss log records CPU-hours (`curves`' axes place steps on them).
    pub cpu_hours_axis: bool,
    /// Each ladder folder's report that can be read, by folder, `ladder` first.
    pub ladder_reports: Arc<Vec<(String, Arc<LadderReport>)>>,
}

/// Keys of the run that requests may read.
#[derive(Debug, Default)]
pub struct Readable {
    pub games: std::collections::HashSet<String>,
    /// Weights and manifest keys of committed checkpoints.
    pub checkpoints: std::collections::HashSet<String>,
    /// Prefixes (`books/<name>/`) of HTML book exports.
    pub books: Vec<String>,
    /// Other files the page shows (the ladder's chart and report).
    pub files: std::collections::HashSet<String>,
    /// The run's game (its configuration's `game`), whose committed checkpoints the play
    /// page offers.
    pub game: Option<String>,
    /// Opening book files (`books/**.tbk`, `tengu book build --out RUN/books/NAME.tbk`)
    /// with their sizes in bytes, by key: the play page offers their lines.
    pub book_files: Vec<(String, u64)>,
}

/// A checkpoint as the page lists it.
#[derive(Clone, Debug)]
struct Checkpoint {
    manifest: tengu_store::checkpoint::Manifest,
}

/// The watcher's memory between looks.
pub struct Watcher {
    location: Location,
    store: Option<RunStore>,
    /// `game` of the run's `config.toml`.
    game: Option<String>,
    shards: Vec<ShardName>,
    /// Shard names tengu did not write (counted, not read).
    unnamed_shards: usize,
    last_shard: Option<String>,
    /// Self-play game files (key, size), oldest first.
    records: Vec<(String, u64)>,
    last_record: Option<String>,
    /// What the list shows of each self-play game file, by key (files are written once).
    record_summaries: HashMap<String, Value>,
    checkpoints: Vec<Checkpoint>,
    /// Damaged manifests by step (reported once each in the log).
    damaged: BTreeMap<u64, String>,
    /// What the curves were built from: the loss log's listing and the sizes of
    /// `elo.jsonl` and `suite.jsonl`.
    curves_from: Option<(Vec<tengu_store::Entry>, usize, usize)>,
    curves: Arc<str>,
    elo: Vec<EloRecord>,
    last_step: Option<u64>,
    step_moved: Option<Instant>,
    trainer_seen: Option<(u64, Option<u64>, Instant)>,
    first_look: Instant,
    /// Arena and ladder game records, newest arena games first, then the ladder's.
    arena_games: Vec<String>,
    /// Each match directory's `results.jsonl` (size when read, its games by index).
    match_results: BTreeMap<String, (u64, BTreeMap<u64, Value>)>,
    /// Each ladder folder's `ladder.json` as the page shows it (size when read, the
    /// document, the report when it can be read), by folder (`ladder`, `ladder-600`, ...).
    ladders: BTreeMap<String, (u64, Value, Option<Arc<LadderReport>>)>,
    /// The run's ladder folders, in natural order (`ladder` first).
    ladder_dirs: Vec<String>,
    /// The loss log's last games and rows seen and its last line's time: the run's counts
    /// where its shards are gone (a kept copy) or the trainer saw more than they say.
    logged: Logged,
    books: Vec<String>,
    /// Opening book files of the run (key, size), as [`Readable::book_files`].
    book_files: Vec<(String, u64)>,
    /// Whether the loss log records CPU-hours.
    cpu_hours_axis: bool,
    slow_look: Option<Instant>,
    trainer_state: Option<tengu_store::lease::Observed>,
    /// The run's CPU ledger total (self-play and training), seconds.
    cpu_seconds: f64,
    /// Bumped whenever checkpoints, games, books or curves change (the page refetches).
    version: u64,
    /// The games in progress by key (`live/<writer>.json`).
    live: BTreeMap<String, Live>,
    /// Bumped whenever a game in progress changes, appears, goes or goes stale.
    live_version: u64,
    last_problem: Option<String>,
}

impl Watcher {
    pub fn new(location: Location) -> Watcher {
        Watcher {
            location,
            store: None,
            game: None,
            shards: Vec::new(),
            unnamed_shards: 0,
            last_shard: None,
            records: Vec::new(),
            last_record: None,
            record_summaries: HashMap::new(),
            checkpoints: Vec::new(),
            damaged: BTreeMap::new(),
            curves_from: None,
            curves: json!({"series": {}, "axes": []}).to_string().into(),
            elo: Vec::new(),
            last_step: None,
            step_moved: None,
            trainer_seen: None,
            first_look: Instant::now(),
            arena_games: Vec::new(),
            match_results: BTreeMap::new(),
            ladders: BTreeMap::new(),
            ladder_dirs: Vec::new(),
            logged: Logged::default(),
            books: Vec::new(),
            book_files: Vec::new(),
            cpu_hours_axis: false,
            slow_look: None,
            trainer_state: None,
            cpu_seconds: 0.0,
            version: 0,
            live: BTreeMap::new(),
            live_version: 0,
            last_problem: None,
        }
    }

    /// Looks at the run once and returns what to show. Never fails: a problem is part of
    /// the snapshot (and logged when it first appears or changes).
    pub fn look(&mut self) -> Snapshot {
        let result = self.look_inner();
        let problem = result.as_ref().err().cloned();
        if problem != self.last_problem {
            match &problem {
                Some(p) => tracing::warn!(location = %self.location.display(), "{p}"),
                None if self.last_problem.is_some() => {
                    tracing::info!(location = %self.location.display(), "the run is readable again")
                }
                None => {}
            }
            self.last_problem = problem.clone();
        }
        self.snapshot(problem)
    }

    /// The store, opened once the location exists (opening a missing local directory would
    /// create it, and serve never writes).
    fn open(&mut self) -> Result<&RunStore, String> {
        if self.store.is_none() {
            if let Location::Local(dir) = &self.location {
                if !dir.exists() {
                    return Err(format!(
                        "{} does not exist: no run there (start one with tengu run --config FILE --run {})",
                        dir.display(),
                        dir.display()
                    ));
                }
                if !dir.is_dir() {
                    return Err(format!(
                        "{} is not a directory, so not a run",
                        dir.display()
                    ));
                }
            }
            let store = RunStore::at(self.location.clone()).map_err(|e| e.to_string())?;
            self.store = Some(store);
        }
        Ok(self.store.as_ref().expect("opened above"))
    }

    fn look_inner(&mut self) -> Result<(), String> {
        let location = self.location.display();
        self.open()?;
        let store = self.store.take().expect("opened");
        let result = self.read(&store);
        self.store = Some(store);
        result.map_err(|e| format!("{location}: {e}"))
    }

    fn read(&mut self, store: &RunStore) -> Result<(), String> {
        let Some(config) = store.get_text(layout::CONFIG).map_err(|e| e.to_string())? else {
            return Err(format!(
                "not a run: it has no {} (start one with tengu run or tengu train --config)",
                layout::CONFIG
            ));
        };
        self.game = toml::from_str::<toml::Table>(&config)
            .ok()
            .and_then(|t| t.get("game").and_then(|g| g.as_str()).map(str::to_string));
        let mut changed = false;

        // New shards and game records: one listing request per 1,000 new keys.
        let new = list_new(store, layout::SHARDS, self.last_shard.as_deref())?;
        for e in new {
            if !layout::is_shard(e.name()) {
                continue;
            }
            match ShardName::parse(e.name()) {
                Some(n) => self.shards.push(n),
                None => self.unnamed_shards += 1,
            }
            self.last_shard = Some(e.name().to_string());
        }
        for e in list_new(store, layout::GAMES, self.last_record.as_deref())? {
            if e.name().ends_with(".records") {
                self.records.push((e.key.clone(), e.size));
                changed = true;
            }
            self.last_record = Some(e.name().to_string());
        }
        // What the list says of the newest files: each read once.
        for (key, _) in self.records.iter().rev().take(GAMES_LISTED) {
            if self.record_summaries.contains_key(key) {
                continue;
            }
            let summary = match store.get(key) {
                Ok(Some(bytes)) => records_summary(key, &String::from_utf8_lossy(&bytes)),
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!("{key}: cannot be read now: {e}");
                    continue;
                }
            };
            self.record_summaries.insert(key.clone(), summary);
            changed = true;
        }

        // New checkpoints: their manifests, read once each.
        let newest = self.checkpoints.last().map(|c| c.manifest.step);
        let steps = match newest {
            Some(s) => tengu_store::checkpoint::committed_after(store, s),
            None => tengu_store::checkpoint::committed(store),
        }
        .map_err(|e| e.to_string())?;
        for step in steps {
            if self.damaged.contains_key(&step) {
                continue;
            }
            match tengu_store::checkpoint::manifest(store, step) {
                Ok(manifest) => {
                    self.checkpoints.push(Checkpoint { manifest });
                    changed = true;
                }
                Err(e) => {
                    tracing::warn!("damaged checkpoint manifest: {e}");
                    self.damaged.insert(step, e.to_string());
                    changed = true;
                }
            }
        }

        // The curves, rebuilt when the loss log, elo.jsonl or suite.jsonl changed.
        let text = |key: &str| store.get_text(key).ok().flatten().unwrap_or_default();
        let elo_text = text(layout::ELO_LOG);
        let train = store.list(layout::TRAIN_LOG).map_err(|e| e.to_string())?;
        let from = (train, elo_text.len(), text(layout::SUITE_LOG).len());
        if self.curves_from.as_ref() != Some(&from) {
            match crate::cmd::tensorboard::run_scalars(store) {
                Ok(scalars) => {
                    let (mut curves, last_step, logged) = curves_json(&scalars);
                    self.logged = logged;
                    if last_step != self.last_step {
                        self.last_step = last_step;
                        self.step_moved = Some(Instant::now());
                    }
                    // run_scalars read the same file through its type: it is readable.
                    self.elo = tengu_trainer::records::read_lines(
                        &store.address_of(layout::ELO_LOG),
                        &elo_text,
                    )
                    .unwrap_or_default();
                    curves["intervals"] = elo_intervals(&self.elo);
                    // The axes' rows are [step, hours, CPU-hours], the first the start; a
                    // loss log without the CPU ledger says 0 CPU-hours throughout.
                    self.cpu_hours_axis = curves["axes"].as_array().is_some_and(|rows| {
                        rows.iter()
                            .skip(1)
                            .any(|r| r[2].as_f64().is_some_and(|c| c > 0.0))
                    });
                    self.curves = curves.to_string().into();
                    self.curves_from = Some(from);
                    changed = true;
                }
                Err(e) => tracing::warn!("the run's curves cannot be read now: {e:#}"),
            }
        }

        if self
            .slow_look
            .is_none_or(|t| t.elapsed().as_secs_f64() >= SLOW_LOOK_S)
        {
            self.slow_look = Some(Instant::now());
            let arena_entries = store.list("arena").map_err(|e| e.to_string())?;
            let dirs = self.find_ladder_dirs();
            let mut ladder_entries = Vec::new();
            for dir in &dirs {
                ladder_entries.push(store.list(dir).map_err(|e| e.to_string())?);
            }
            let records = |entries: &[tengu_store::Entry]| -> Vec<String> {
                entries
                    .iter()
                    .filter(|e| e.name().ends_with(".record"))
                    .map(|e| e.key.clone())
                    .collect()
            };
            let mut arena = records(&arena_entries);
            arena.sort_unstable_by(|a, b| natural_cmp(b, a));
            for entries in &ladder_entries {
                // By step (step-800 before step-1600 before step-12597), not as text.
                let mut ladder = records(entries);
                ladder.sort_unstable_by(|a, b| natural_cmp(a, b));
                arena.extend(ladder);
            }
            arena.truncate(MATCH_GAMES_LISTED);
            changed |= self.read_match_results(
                store,
                arena_entries.iter().chain(ladder_entries.iter().flatten()),
            );
            for (dir, entries) in dirs.iter().zip(&ladder_entries) {
                changed |= self.read_ladder(store, dir, entries);
            }
            let before = self.ladders.len();
            self.ladders.retain(|d, _| dirs.contains(d));
            changed |= self.ladders.len() != before || dirs != self.ladder_dirs;
            self.ladder_dirs = dirs;
            let book_entries = store.list(BOOKS_DIR).map_err(|e| e.to_string())?;
            let books: Vec<String> = book_entries
                .iter()
                .filter_map(|e| {
                    let rest = e.key.strip_prefix("books/")?;
                    let name = rest.strip_suffix("/index.html")?;
                    (!name.contains('/')).then(|| name.to_string())
                })
                .collect();
            let book_files: Vec<(String, u64)> = book_entries
                .iter()
                .filter(|e| e.name().ends_with(BOOK_FILE_SUFFIX))
                .map(|e| (e.key.clone(), e.size))
                .collect();
            if arena != self.arena_games || books != self.books || book_files != self.book_files {
                self.arena_games = arena;
                self.books = books;
                self.book_files = book_files;
                changed = true;
            }
        }

        // The trainer: its newest lease and whether the heartbeat moves.
        match tengu_store::lease::observe(store) {
            Ok(Some(o)) => {
                let key = (o.generation, o.beat);
                match &self.trainer_seen {
                    Some((g, b, _)) if (*g, *b) == key => {}
                    _ => self.trainer_seen = Some((o.generation, o.beat, Instant::now())),
                }
                self.trainer_state = Some(o);
            }
            Ok(None) => self.trainer_state = None,
            Err(e) => tracing::warn!("the trainer lease cannot be read now: {e}"),
        }
        self.cpu_seconds = tengu_store::cpu::total(store);
        self.look_at_live(store)?;
        if changed {
            self.version += 1;
        }
        Ok(())
    }
}

impl Watcher {
    /// Reads the `results.jsonl` of every match directory among `entries` that is new or
    /// grew (a match being played appends to it): each game's players, result, length and
    /// termination for the game lists. True if any changed.
    fn read_match_results<'a>(
        &mut self,
        store: &RunStore,
        entries: impl Iterator<Item = &'a tengu_store::Entry>,
    ) -> bool {
        let mut changed = false;
        for e in entries.filter(|e| e.name() == "results.jsonl") {
            let dir = e.key.trim_end_matches("results.jsonl").to_string();
            if self
                .match_results
                .get(&dir)
                .is_some_and(|(size, _)| *size == e.size)
            {
                continue;
            }
            let text = match store.get_text(&e.key) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(err) => {
                    tracing::warn!("{}: cannot be read now: {err}", e.key);
                    continue;
                }
            };
            let games = text
                .lines()
                .filter_map(|l| serde_json::from_str::<tengu_arena::matches::GameResult>(l).ok())
                .map(|r| (r.index, match_game_json(&r)))
                .collect();
            self.match_results.insert(dir, (e.size, games));
            changed = true;
        }
        changed
    }

    /// The run's ladder folders: `ladder` and, in a local run, every other top-level
    /// folder whose name starts with `ladder` (`ladder-600`, `ladder-to-the-end`), in
    /// natural order. An object store is not listed by folder: only `ladder` is looked at.
    fn find_ladder_dirs(&self) -> Vec<String> {
        let mut dirs = vec![LADDER_DIR.to_string()];
        if let Location::Local(root) = &self.location {
            if let Ok(read) = std::fs::read_dir(root) {
                for e in read.flatten() {
                    let name = e.file_name().to_string_lossy().to_string();
                    if name != LADDER_DIR
                        && name.starts_with(LADDER_DIR)
                        && e.file_type().is_ok_and(|t| t.is_dir())
                    {
                        dirs.push(name);
                    }
                }
            }
        }
        dirs[1..].sort_unstable_by(|a, b| natural_cmp(a, b));
        dirs
    }

    /// Reads `<dir>/ladder.json` (through the ladder's report type) when it is new or
    /// changed; a report of another version or a damaged one is a problem on the page.
    /// True if it changed.
    fn read_ladder(&mut self, store: &RunStore, dir: &str, entries: &[tengu_store::Entry]) -> bool {
        let key = format!("{dir}/ladder.json");
        let Some(entry) = entries.iter().find(|e| e.key == key) else {
            return self.ladders.remove(dir).is_some();
        };
        if self
            .ladders
            .get(dir)
            .is_some_and(|(size, _, _)| *size == entry.size)
        {
            return false;
        }
        let doc = match store.get_text(&key) {
            Ok(Some(text)) => ladder_json(dir, &key, &text),
            Ok(None) => return false,
            Err(e) => {
                tracing::warn!("{key}: cannot be read now: {e}");
                return false;
            }
        };
        if let Some(problem) = doc.0["problem"].as_str() {
            tracing::warn!("{problem}");
        }
        let (doc, report) = doc;
        self.ladders
            .insert(dir.to_string(), (entry.size, doc, report.map(Arc::new)));
        true
    }

    /// Each match of the ladder folder `dir` (`<dir>/<match>/results.jsonl`) with the
    /// named player's (the first of `<a>-vs-<b>`) wins, draws and losses, in natural order.
    fn ladder_matches(&self, dir: &str) -> Vec<Value> {
        let prefix = format!("{dir}/");
        let mut out: Vec<(&String, Value)> = self
            .match_results
            .iter()
            .filter_map(|(d, (_, games))| {
                let name = d.strip_prefix(&prefix)?.trim_end_matches('/');
                (!name.contains('/')).then(|| (d, match_tally(name, games.values())))
            })
            .collect();
        out.sort_by(|a, b| natural_cmp(a.0, b.0));
        out.into_iter().map(|(_, v)| v).collect()
    }
}

/// `name` (`step-800-vs-step-0`) and what its games say of its first player: `a`, `b`
/// (the two sides of `-vs-`), `wins`, `draws`, `losses` of `a`, `games`.
fn match_tally<'a>(name: &str, games: impl Iterator<Item = &'a Value>) -> Value {
    let (a, b) = name.split_once("-vs-").unwrap_or((name, ""));
    let (mut w, mut d, mut l, mut n) = (0u64, 0u64, 0u64, 0u64);
    for g in games {
        n += 1;
        match g["a_result"].as_i64() {
            Some(1) => w += 1,
            Some(-1) => l += 1,
            Some(_) => d += 1,
            None => {}
        }
    }
    json!({"match": name, "a": a, "b": b, "wins": w, "draws": d, "losses": l, "games": n})
}

/// The step of a ladder player's name (`step-800` -> 800).
fn step_of(player: &str) -> Option<u64> {
    player.strip_prefix("step-")?.parse().ok()
}

/// Compares names with their runs of digits as numbers: `step-800` < `step-1600` <
/// `step-12597`, `ladder-600` < `ladder-600-seed2`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let dx = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let dy = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (nx, ny) = (&x[..dx], &y[..dy]);
                // Leading zeros aside, a longer run of digits is a larger number.
                let tx = &nx[nx.iter().take_while(|c| **c == b'0').count()..];
                let ty = &ny[ny.iter().take_while(|c| **c == b'0').count()..];
                let o = tx
                    .len()
                    .cmp(&ty.len())
                    .then_with(|| tx.cmp(ty))
                    .then(dx.cmp(&dy));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[dx..];
                y = &y[dy..];
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

/// What the loss log last said of the run's games and rows and when.
#[derive(Clone, Copy, Debug, Default)]
struct Logged {
    games_seen: Option<f64>,
    rows_seen: Option<f64>,
    unix_time: Option<f64>,
}

/// A ladder's report for the page: `report` (`ladder.json` as written), `svg` (the address
/// of its chart) and `problem` (why the report cannot be shown, else null); with the report
/// itself where it can be read.
fn ladder_json(dir: &str, key: &str, text: &str) -> (Value, Option<LadderReport>) {
    use tengu_arena::ladder::LADDER_REPORT_VERSION;
    let svg = format!("/run/{dir}/ladder.svg");
    match serde_json::from_str::<LadderReport>(text) {
        Ok(r) if r.version == LADDER_REPORT_VERSION => {
            (json!({"report": r, "svg": svg, "problem": null}), Some(r))
        }
        Ok(r) => (
            json!({"report": null, "svg": svg, "problem": format!(
                "{key}: version {} of the ladder report; this tengu reads version {LADDER_REPORT_VERSION}",
                r.version
            )}),
            None,
        ),
        Err(e) => (
            json!({"report": null, "svg": svg, "problem": format!("{key}: not a ladder report: {e}")}),
            None,
        ),
    }
}

/// One arena or ladder game for the lists, from its line of `results.jsonl`.
fn match_game_json(r: &tengu_arena::matches::GameResult) -> Value {
    let (black, white) = if r.a_is_black {
        (&r.a, &r.b)
    } else {
        (&r.b, &r.a)
    };
    let black_result = if r.a_is_black { r.result } else { -r.result };
    let result = match black_result {
        1 => "1-0",
        -1 => "0-1",
        _ => "1/2-1/2",
    };
    json!({
        "black": black,
        "white": white,
        "result": result,
        "plies": r.plies,
        "termination": r.termination,
        // The match's first player (the rung, the checkpoint rated) and its result.
        "a_result": r.result,
        "a_is_black": r.a_is_black,
    })
}

/// What the game list says of one record's text without replaying it: the tags `Black`,
/// `White`, `Result` and `Termination` and the number of moves (plies).
fn record_summary(text: &str) -> Value {
    let mut summary = json!({"black": null, "white": null, "result": null, "termination": null});
    let mut plies = 0u64;
    for line in text.lines().map(str::trim) {
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if let Some((name, value)) = inner.split_once(' ') {
                let value = value.trim_matches('"');
                match name {
                    "Black" | "White" | "Result" | "Termination" => {
                        summary[name.to_ascii_lowercase()] = json!(value)
                    }
                    _ => {}
                }
            }
            continue;
        }
        plies += line
            .split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .count() as u64;
    }
    summary["plies"] = json!(plies);
    summary
}

/// What the game list says of a self-play game file: `games` (the intact ones, each as
/// [`record_summary`] with its `index`) and `damaged` (which lines cannot be read and why).
fn records_summary(key: &str, text: &str) -> Value {
    let (lines, damaged) = records_of(key, text);
    let games: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut s = record_summary(&line.record);
            s["index"] = json!(index);
            s
        })
        .collect();
    json!({"games": games, "damaged": damaged})
}

/// A worker's game in progress as last read.
struct Live {
    bytes: Vec<u8>,
    /// The summary and the game document, or why the object cannot be shown.
    shown: Result<(Value, Arc<str>), String>,
    /// When it was written (the worker's clock) and the worker's interval, seconds.
    unix_s: f64,
    interval_s: f64,
    stale: bool,
}

impl Live {
    fn read(key: &str, bytes: Vec<u8>) -> Live {
        let shown = tengu_selfplay::live::LiveGame::parse(&bytes).map(|(live, record)| {
            let mut doc = game_json(&record, Some(&live.values));
            let summary = json!({
                "key": key,
                "writer": live.writer,
                "game": live.game,
                "unix_ms": live.unix_ms,
                "model": live.model,
                "plies": record.game.len(),
                "last": doc["moves"].as_array().and_then(|m| m.last()).map(|m| m["hodges"].clone()),
                "value": live.values.last().copied().flatten().map(shortest),
            });
            for k in ["key", "writer", "game", "unix_ms", "model"] {
                doc[k] = summary[k].clone();
            }
            (summary, doc.to_string().into())
        });
        let (unix_s, interval_s) = match &shown {
            Ok((s, _)) => (
                s["unix_ms"].as_f64().unwrap_or(0.0) / 1000.0,
                serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|v| v["interval_seconds"].as_f64())
                    .unwrap_or(0.0),
            ),
            Err(_) => (0.0, 0.0),
        };
        if let Err(e) = &shown {
            tracing::warn!("{key}: cannot show this game in progress: {e}");
        }
        Live {
            bytes,
            shown: shown.map_err(|e| format!("{key}: cannot show this game in progress: {e}")),
            unix_s,
            interval_s,
            stale: false,
        }
    }
}

impl Watcher {
    /// Reads the workers' games in progress (`live/`): one listing, then each object (they
    /// are small and replaced in place); a changed, new, gone or newly stale one bumps
    /// `live_version`.
    fn look_at_live(&mut self, store: &RunStore) -> Result<(), String> {
        let listed: Vec<String> = store
            .list(layout::LIVE)
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|e| e.name().ends_with(".json"))
            .take(LIVE_LISTED)
            .map(|e| e.key)
            .collect();
        let mut changed = false;
        let before = self.live.len();
        self.live.retain(|k, _| listed.contains(k));
        changed |= self.live.len() != before;
        for key in listed {
            // Gone between the listing and the read (its worker stopped): left out.
            let bytes = match store.get(&key) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => {
                    changed |= self.live.remove(&key).is_some();
                    continue;
                }
                // Kept as last read; the next look tries again.
                Err(e) => {
                    tracing::warn!("{key}: cannot read this game in progress now: {e}");
                    continue;
                }
            };
            if self.live.get(&key).is_some_and(|l| l.bytes == bytes) {
                continue;
            }
            self.live.insert(key.clone(), Live::read(&key, bytes));
            changed = true;
        }
        let now_s = layout::unix_ms() as f64 / 1000.0;
        for l in self.live.values_mut() {
            let stale = l.shown.is_ok()
                && now_s - l.unix_s > (LIVE_STALE_INTERVALS * l.interval_s).max(LIVE_STALE_MIN_S);
            changed |= stale != l.stale;
            l.stale = stale;
        }
        if changed {
            self.live_version += 1;
        }
        Ok(())
    }

    /// The snapshot of what the watcher knows, with `problem` (the last look's) on top.
    fn snapshot(&self, problem: Option<String>) -> Snapshot {
        let now_s = layout::unix_ms() as f64 / 1000.0;
        let location = self.location.display();
        let newest = self.checkpoints.last().map(|c| {
            json!({
                "step": c.manifest.step,
                "name": layout::weights_name(c.manifest.step),
                "unix_time": c.manifest.unix_time,
                "rows_seen": c.manifest.rows_seen,
            })
        });
        let (games, rows) = self.shards.iter().fold((0u64, 0u64), |(g, r), s| {
            (g + u64::from(s.games), r + s.rows)
        });
        let (games_per_hour, rows_per_hour) = rates(&self.shards, now_s);
        let mut problems: Vec<String> = self
            .damaged
            .values()
            .map(|p| format!("damaged checkpoint manifest: {p}"))
            .collect();
        for l in self.live.values() {
            if let Err(e) = &l.shown {
                problems.push(e.clone());
            }
        }
        if self.unnamed_shards > 0 {
            problems.push(format!(
                "{} file(s) in shards/ without tengu's shard name are not counted",
                self.unnamed_shards
            ));
        }
        let trainer = self.trainer_json();
        let workers = self.workers_json(now_s);
        let activity = self.activity(&trainer, &workers);
        let now = json!({
            "location": location,
            "problem": problem,
            "problems": problems,
            "game": self.game,
            "refreshed_unix": now_s,
            "version": self.version,
            "live_version": self.live_version,
            "newest_checkpoint": newest,
            "checkpoints": self.checkpoints.len(),
            "step": self.last_step,
            "shards": self.shards.len(),
            "games": games,
            "rows": rows,
            "games_per_hour": games_per_hour,
            "rows_per_hour": rows_per_hour,
            "cpu_hours": self.cpu_seconds / 3600.0,
            "trainer": trainer,
            "workers": workers,
            "logged": {
                "step": self.last_step,
                "games_seen": self.logged.games_seen,
                "rows_seen": self.logged.rows_seen,
                "unix_time": self.logged.unix_time,
            },
            "activity": activity,
        });
        let address = |key: &str| match &self.store {
            Some(s) => s.address_of(key),
            None => key.to_string(),
        };
        let local = matches!(self.location, Location::Local(_));
        let mut readable = Readable {
            game: self.game.clone(),
            book_files: self.book_files.clone(),
            ..Readable::default()
        };
        // The ladders, `ladder` first: each folder's report and its matches' tallies.
        let ladders: Vec<Value> = self
            .ladder_dirs
            .iter()
            .map(|dir| {
                let mut doc = match self.ladders.get(dir) {
                    Some((_, doc, _)) => {
                        for name in ["ladder.svg", "ladder.txt", "ladder.json"] {
                            readable.files.insert(format!("{dir}/{name}"));
                        }
                        doc.clone()
                    }
                    None => json!({"report": null, "svg": null, "problem": null}),
                };
                doc["dir"] = json!(dir);
                doc["matches"] = json!(self.ladder_matches(dir));
                doc
            })
            .filter(|d| {
                !d["report"].is_null()
                    || !d["problem"].is_null()
                    || d["matches"].as_array().is_some_and(|m| !m.is_empty())
            })
            .collect();
        // What the ladders say of each checkpoint: its rung's Elo in each report, and each
        // match it played as the named player.
        let mut rated: HashMap<u64, Vec<Value>> = HashMap::new();
        for l in &ladders {
            let dir = &l["dir"];
            let zero = &l["report"]["opponents"][0];
            for rung in l["report"]["rungs"].as_array().into_iter().flatten() {
                if let Some(step) = rung["step"].as_u64() {
                    rated.entry(step).or_default().push(json!({
                        "ladder": dir, "elo": rung["elo"], "elo_low": rung["elo_low"],
                        "elo_high": rung["elo_high"], "cpu_hours": rung["cpu_hours"], "zero": zero,
                    }));
                }
            }
            for m in l["matches"].as_array().into_iter().flatten() {
                if let Some(step) = m["a"].as_str().and_then(step_of) {
                    let mut m = m.clone();
                    m["ladder"] = dir.clone();
                    rated.entry(step).or_default().push(m);
                }
            }
        }
        let checkpoints: Vec<Value> = self
            .checkpoints
            .iter()
            .rev()
            .map(|c| {
                let m = &c.manifest;
                let weights = layout::weights_key(m.step);
                let manifest = layout::manifest_key(m.step);
                readable.checkpoints.insert(weights.clone());
                readable.checkpoints.insert(manifest.clone());
                let arena: Vec<&EloRecord> = self.elo.iter().filter(|l| l.step == m.step).collect();
                let ladder = rated.get(&m.step).cloned().unwrap_or_default();
                let xboard = if local {
                    format!("tengu xboard --checkpoint {}", address(&weights))
                } else {
                    format!(
                        "tengu xboard --checkpoint {} (after downloading it from {})",
                        layout::weights_name(m.step),
                        address(&weights)
                    )
                };
                json!({
                    "step": m.step,
                    "name": layout::weights_name(m.step),
                    "rows_seen": m.rows_seen,
                    "sha256": m.weights.sha256,
                    "size": m.weights.size,
                    "unix_time": m.unix_time,
                    "parent": m.parent,
                    "lease": m.lease,
                    "arena": arena,
                    "ladder": ladder,
                    "xboard": xboard,
                    "download": format!("/download/{weights}"),
                    "manifest": format!("/download/{manifest}"),
                })
            })
            .collect();
        // Game records, newest first; a records file holds the games of one shard.
        let games_of: HashMap<&str, u32> = self
            .shards
            .iter()
            .map(|s| (s.stem.as_str(), s.games))
            .collect();
        // A file's games as read (intact ones only), else the count its shard gives.
        let selfplay: Vec<Value> = self
            .records
            .iter()
            .rev()
            .take(GAMES_LISTED)
            .map(|(key, _)| {
                readable.games.insert(key.clone());
                let stem = key
                    .trim_start_matches("games/")
                    .trim_end_matches(".records");
                let unix_ms: Option<u64> = stem.split('-').next().and_then(|t| t.parse().ok());
                let summary = self.record_summaries.get(key);
                let games = summary
                    .and_then(|s| s["games"].as_array().map(Vec::len))
                    .or_else(|| games_of.get(stem).map(|&g| g as usize));
                json!({
                    "key": key,
                    "stem": stem,
                    "unix_ms": unix_ms,
                    "games": games,
                    "summaries": summary.map(|s| s["games"].clone()),
                    "damaged": summary.map_or(json!([]), |s| s["damaged"].clone()),
                })
            })
            .collect();
        // Arena and ladder games: `<arena|ladder>/<match>/games/game-NNNNN.record`, with
        // their line of the match's results.jsonl where it has one.
        let arena: Vec<Value> = self
            .arena_games
            .iter()
            .map(|key| {
                readable.games.insert(key.clone());
                let parts: Vec<&str> = key.split('/').collect();
                let file = parts.last().copied().unwrap_or_default();
                let dir = key.rsplit_once("games/").map_or("", |(d, _)| d);
                let index: Option<u64> = file
                    .strip_prefix("game-")
                    .and_then(|f| f.strip_suffix(".record"))
                    .and_then(|n| n.parse().ok());
                let mut game = index
                    .and_then(|i| self.match_results.get(dir)?.1.get(&i).cloned())
                    .unwrap_or_else(|| json!({}));
                game["key"] = json!(key);
                game["source"] = json!(parts.first());
                game["match"] = json!(parts.get(1));
                game["file"] = json!(file);
                game["index"] = json!(index);
                game
            })
            .collect();
        // `ladder`: the default folder's report (as before several ladders were shown).
        let ladder = self.ladders.get(LADDER_DIR).map(|(_, doc, _)| doc.clone());
        let ladder_reports: Vec<(String, Arc<LadderReport>)> = self
            .ladder_dirs
            .iter()
            .filter_map(|dir| Some((dir.clone(), self.ladders.get(dir)?.2.clone()?)))
            .collect();
        let mut books: Vec<Value> = self
            .books
            .iter()
            .map(|name| {
                readable.books.push(format!("books/{name}/"));
                json!({"name": name, "href": format!("/run/books/{name}/index.html")})
            })
            .collect();
        // Book files: their lines are the play page's openings.
        books.extend(
            self.book_files
                .iter()
                .map(|(key, _)| json!({"name": key, "href": "/play", "file": true})),
        );
        // Games in progress: the fresh ones first, then by writer.
        let mut live: Vec<(&String, &Live)> = self.live.iter().collect();
        live.sort_by_key(|(k, l)| (l.stale, *k));
        let mut live_games = HashMap::new();
        let live: Vec<Value> = live
            .into_iter()
            .map(|(key, l)| match &l.shown {
                Ok((summary, doc)) => {
                    live_games.insert(key.clone(), doc.clone());
                    let mut s = summary.clone();
                    s["stale"] = json!(l.stale);
                    s["age_s"] = json!((now_s - l.unix_s).max(0.0));
                    s
                }
                Err(problem) => json!({"key": key, "problem": problem, "stale": false}),
            })
            .collect();
        Snapshot {
            live: json!({"games": live}).to_string().into(),
            live_games: Arc::new(live_games),
            now: now.to_string().into(),
            curves: self.curves.clone(),
            checkpoints: Value::from(checkpoints).to_string().into(),
            games: json!({"selfplay": selfplay, "arena": arena})
                .to_string()
                .into(),
            ladder: json!({"ladder": ladder, "ladders": ladders})
                .to_string()
                .into(),
            books: Value::from(books).to_string().into(),
            readable: Arc::new(readable),
            problem,
            step: self.last_step,
            cpu_hours: self.cpu_seconds / 3600.0,
            cpu_hours_axis: self.cpu_hours_axis,
            ladder_reports: Arc::new(ladder_reports),
        }
    }

    /// The self-play workers seen lately: those that wrote shards in the last
    /// [`WORKER_RECENT_S`] seconds ([`workers`]) and those whose game in progress is fresh
    /// (a worker's first shard may be minutes away), with `playing` (the game's number in
    /// the worker) for the latter.
    fn workers_json(&self, now_s: f64) -> Vec<Value> {
        let mut seen = workers(&self.shards, now_s);
        for live in self.live.values().filter(|l| !l.stale) {
            let Ok((summary, _)) = &live.shown else {
                continue;
            };
            let writer = &summary["writer"];
            match seen.iter_mut().find(|w| &w["worker"] == writer) {
                Some(w) => w["playing"] = summary["game"].clone(),
                None => seen.push(json!({
                    "worker": writer,
                    "last_shard_unix": null,
                    "shards": 0,
                    "playing": summary["game"],
                })),
            }
        }
        seen
    }

    /// Whether anything runs: `live` (a trainer alive or being watched, a worker seen
    /// lately, a game in progress), `stopped` (none of these) or `archived` (a kept copy of
    /// a run: a loss log but no trainer lease and no shards), with `last_unix`, the newest
    /// time the run shows (a shard, a loss-log line, a checkpoint, a game in progress).
    fn activity(&self, trainer: &Value, workers: &[Value]) -> Value {
        let alive = matches!(
            trainer["state"].as_str(),
            Some("training" | "waiting for rows" | "unknown")
        );
        let playing = self.live.values().any(|l| !l.stale && l.shown.is_ok());
        let last_unix = [
            self.shards
                .iter()
                .map(|s| s.unix_ms)
                .max()
                .map(|ms| ms as f64 / 1000.0),
            self.logged.unix_time,
            self.checkpoints.last().map(|c| c.manifest.unix_time),
            self.live
                .values()
                .filter(|l| l.shown.is_ok())
                .map(|l| l.unix_s)
                .reduce(f64::max),
        ]
        .into_iter()
        .flatten()
        .reduce(f64::max);
        let state = if alive || playing || !workers.is_empty() {
            "live"
        } else if self.trainer_state.is_none() && self.shards.is_empty() && self.last_step.is_some()
        {
            "archived"
        } else {
            "stopped"
        };
        json!({"state": state, "last_unix": last_unix})
    }

    /// The trainer's state: `not started` (no lease yet), `stopped` (released, or no
    /// heartbeat for its lease time, or a loss log without a lease: a kept copy of a run),
    /// `training` (the step moved lately), `waiting for rows` (alive, the step stands
    /// still), `unknown` (watching the heartbeat).
    fn trainer_json(&self) -> Value {
        let Some(o) = &self.trainer_state else {
            if let Some(step) = self.last_step {
                return json!({"state": "stopped", "detail": format!(
                    "its loss log ends at step {step}; no trainer lease in this run (a kept copy)"
                )});
            }
            return json!({"state": "not started", "detail": "no trainer has taken this run's lease"});
        };
        let who = o.record.as_ref().map_or_else(
            || format!("lease generation {}", o.generation),
            |r| {
                format!(
                    "{} pid {} (lease generation {})",
                    r.host, r.pid, o.generation
                )
            },
        );
        let lease_s = o.record.as_ref().map_or(30.0, |r| r.lease_seconds).max(1.0);
        let since_beat = self
            .trainer_seen
            .as_ref()
            .map_or(f64::INFINITY, |(_, _, t)| t.elapsed().as_secs_f64());
        let watched = self.first_look.elapsed().as_secs_f64();
        let stepped = self
            .step_moved
            .map_or(f64::INFINITY, |t| t.elapsed().as_secs_f64());
        let (state, detail) = if o.released {
            ("stopped", format!("{who} released its lease"))
        } else if since_beat <= lease_s && watched > since_beat {
            if stepped <= TRAINING_RECENT_S {
                (
                    "training",
                    format!("{who}, step {}", self.last_step.unwrap_or(0)),
                )
            } else {
                (
                    "waiting for rows",
                    format!("{who} is alive, {}", step_age(self.last_step, stepped)),
                )
            }
        } else if watched <= lease_s {
            ("unknown", format!("{who}: watching its heartbeat"))
        } else {
            (
                "stopped",
                format!("{who}: no heartbeat for {since_beat:.0} s"),
            )
        };
        json!({"state": state, "detail": detail, "generation": o.generation})
    }
}

/// How long the trainer's step has stood still, in words: `stepped` seconds since it last
/// moved (infinite when this server has not seen it move).
pub fn step_age(last_step: Option<u64>, stepped: f64) -> String {
    match last_step {
        None => "no training step logged yet".into(),
        Some(step) if stepped.is_finite() => {
            format!("no new training step for {stepped:.0} s (step {step})")
        }
        Some(step) => format!("no new training step since this page began watching (step {step})"),
    }
}

/// Objects of `dir` after the name `after` (all of them without one): one listing request
/// per 1,000 new keys.
fn list_new(
    store: &RunStore,
    dir: &str,
    after: Option<&str>,
) -> Result<Vec<tengu_store::Entry>, String> {
    match after {
        Some(after) => store.list_after(dir, after),
        None => store.list(dir),
    }
    .map_err(|e| e.to_string())
}

/// Games and rows per hour over the last hour of shards (by the writers' clocks); `None`
/// when the shards of that hour span under a minute.
fn rates(shards: &[ShardName], now_s: f64) -> (Option<f64>, Option<f64>) {
    let from_ms = ((now_s - RATE_WINDOW_S) * 1000.0).max(0.0) as u64;
    let first = shards.iter().map(|s| s.unix_ms).min();
    let Some(first) = first else {
        return (None, None);
    };
    let span_s = now_s - (first.max(from_ms) as f64 / 1000.0);
    if span_s < 60.0 {
        return (None, None);
    }
    let (g, r) = shards
        .iter()
        .filter(|s| s.unix_ms >= from_ms)
        .fold((0u64, 0u64), |(g, r), s| {
            (g + u64::from(s.games), r + s.rows)
        });
    let per_hour = |n: u64| n as f64 * 3600.0 / span_s;
    (Some(per_hour(g)), Some(per_hour(r)))
}

/// The writers (`<host>-<pid>` of the shard stems) of shards in the last
/// [`WORKER_RECENT_S`] seconds, with their newest shard's time and their shard count then.
fn workers(shards: &[ShardName], now_s: f64) -> Vec<Value> {
    let from_ms = ((now_s - WORKER_RECENT_S) * 1000.0).max(0.0) as u64;
    let mut seen: BTreeMap<String, (u64, usize)> = BTreeMap::new();
    for s in shards.iter().filter(|s| s.unix_ms >= from_ms) {
        // <unix ms>-<host>-<pid>-<sequence>: the writer is what lies between.
        let Some((_, rest)) = s.stem.split_once('-') else {
            continue;
        };
        let Some((writer, _)) = rest.rsplit_once('-') else {
            continue;
        };
        let e = seen.entry(writer.to_string()).or_insert((0, 0));
        e.0 = e.0.max(s.unix_ms);
        e.1 += 1;
    }
    seen.into_iter()
        .map(
            |(w, (ms, n))| json!({"worker": w, "last_shard_unix": ms as f64 / 1000.0, "shards": n}),
        )
        .collect()
}

/// The 95% intervals of the Elo series, from `elo.jsonl`'s records: `elo/vs_<baseline>` ->
/// `[[step, low, high]]` of each match against a baseline, and `elo/chain` -> the interval
/// of the match that placed each checkpoint on the rating chain, moved to its rating
/// (`rating + elo_low - elo` ..). Lines without an interval (the chain's step 0) have none.
fn elo_intervals(lines: &[EloRecord]) -> Value {
    let mut out: BTreeMap<String, Vec<[f64; 3]>> = BTreeMap::new();
    for line in lines {
        let Some(outcome) = &line.outcome else {
            continue;
        };
        let (step, Some(elo), Some(low), Some(high)) = (
            line.step as f64,
            outcome.elo,
            outcome.elo_low,
            outcome.elo_high,
        ) else {
            continue;
        };
        match (line.rating, line.opponent.as_deref()) {
            (Some(rating), _) => out.entry("elo/chain".into()).or_default().push([
                step,
                rating + low - elo,
                rating + high - elo,
            ]),
            (None, Some(opponent)) => out
                .entry(format!("elo/vs_{opponent}"))
                .or_default()
                .push([step, low, high]),
            (None, None) => {}
        }
    }
    json!(out)
}

/// Wall-time pauses longer than this many times the loss log's median step interval (and
/// at least [`SESSION_GAP_MIN_S`]) separate trainer sessions: lines are not drawn across.
const SESSION_GAP_FACTOR: f64 = 20.0;
const SESSION_GAP_MIN_S: f64 = 600.0;

/// The steps that start a new trainer session (the run stopped and resumed): the first
/// step after a pause in the loss log's wall times (see [`SESSION_GAP_FACTOR`]).
fn session_starts(walls: &[(i64, f64)]) -> Vec<i64> {
    let gaps: Vec<f64> = walls.windows(2).map(|w| w[1].1 - w[0].1).collect();
    let mut sorted: Vec<f64> = gaps.iter().copied().filter(|g| *g > 0.0).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    let limit = (median * SESSION_GAP_FACTOR).max(SESSION_GAP_MIN_S);
    walls
        .windows(2)
        .filter(|w| w[1].1 - w[0].1 > limit)
        .map(|w| w[1].0)
        .collect()
}

/// The curves document: `series` (tag -> `[[step, value], ...]`, the tags of
/// `tengu tensorboard`), `axes` (`[[step, hours since the first loss-log line, CPU-hours]]`
/// from the loss log, to place any series on the wall-time and CPU-hours axes; step 0 is the
/// run's start), `sessions` (the steps that start a resumed trainer session: no line is
/// drawn across them), `heads` (the network's heads by loss name, in `desc::HEADS`' order:
/// the page draws a loss chart for each whose tags it has) and the newest training step.
fn curves_json(scalars: &[crate::tensorboard::Scalar]) -> (Value, Option<u64>, Logged) {
    let mut series: BTreeMap<&str, Vec<[f64; 2]>> = BTreeMap::new();
    // step -> (wall time, CPU-hours), from the loss log's tags.
    let mut at: BTreeMap<i64, (Option<f64>, Option<f64>)> = BTreeMap::new();
    let mut last_step = None;
    let mut logged = Logged::default();
    for s in scalars {
        match s.tag.as_str() {
            "run/games_seen" => logged.games_seen = Some(f64::from(s.value)),
            "run/rows_seen" => logged.rows_seen = Some(f64::from(s.value)),
            _ => {}
        }
        if s.wall_time > 0.0 && s.tag.starts_with("loss/") {
            logged.unix_time = Some(logged.unix_time.map_or(s.wall_time, |t| t.max(s.wall_time)));
        }
        series
            .entry(s.tag.as_str())
            .or_default()
            .push([s.step as f64, shortest(s.value)]);
        let log_tag = ["loss/", "heldout/", "train/", "run/"]
            .iter()
            .any(|p| s.tag.starts_with(p));
        if log_tag {
            let e = at.entry(s.step).or_default();
            if s.wall_time > 0.0 {
                e.0 = Some(s.wall_time);
            }
            if s.tag == "run/cpu_hours" {
                e.1 = Some(shortest(s.value));
            }
            if s.tag.starts_with("loss/") {
                last_step = last_step.max(Some(s.step.max(0) as u64));
            }
        }
    }
    let t0 = at
        .values()
        .filter_map(|v| v.0)
        .fold(f64::INFINITY, f64::min);
    let walls: Vec<(i64, f64)> = at.iter().filter_map(|(s, v)| Some((*s, v.0?))).collect();
    let sessions = session_starts(&walls);
    let mut axes: Vec<Value> = vec![json!([0, 0.0, 0.0])];
    for (step, (wall, cpu)) in at.iter().filter(|(s, _)| **s > 0) {
        let hours = wall.filter(|_| t0.is_finite()).map(|w| (w - t0) / 3600.0);
        axes.push(json!([step, hours, cpu]));
    }
    // Non-finite values (a diverged loss) are not JSON numbers: left out.
    let series: BTreeMap<&str, Vec<[f64; 2]>> = series
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().filter(|p| p[1].is_finite()).collect()))
        .collect();
    // The network's heads in their table's order: one loss chart each, after the policy's.
    let heads: Vec<&str> = tengu_model::desc::HEADS
        .iter()
        .map(|h| h.loss_name)
        .collect();
    (
        json!({"series": series, "axes": axes, "sessions": sessions, "heads": heads}),
        last_step,
        logged,
    )
}

/// The f64 whose shortest decimal form is the f32's (0.9f32 -> 0.9, not 0.8999999761581421):
/// the scalars are f32 (TensorBoard's), the logs' numbers were decimals.
fn shortest(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}

/// The board of `pos` in display order (rank `a` first, each rank from file N to 1): ""
/// for an empty square, else `b`/`w` and the piece's token without colour (`+GG`), the
/// strings `tenguBoard` draws.
pub fn board_tokens(pos: &Position) -> Vec<String> {
    let v = pos.variant();
    Square::all(pos.size())
        .map(|s| match pos.piece_at(s) {
            None => String::new(),
            Some(p) => piece_cell(v, p),
        })
        .collect()
}

/// A piece as [`board_tokens`] writes it: `b`/`w` and its token without colour (`bLN`).
pub fn piece_cell(variant: &Variant, p: Piece) -> String {
    let token = tengu_rules::notation::piece_token(
        variant,
        Piece {
            color: Color::Black,
            ty: p.ty,
        },
    );
    format!("{}{token}", if p.color == Color::Black { 'b' } else { 'w' })
}

/// The name of each piece token of `variant` (without colour), for hovering: `+LN` ->
/// `Lion (promoted)`.
pub fn piece_names(variant: &Variant) -> BTreeMap<String, String> {
    (0..variant.piece_types().len())
        .map(|ty| {
            let piece = Piece {
                color: Color::Black,
                ty,
            };
            let name = &variant.kinds()[variant.piece_types()[ty].kind].name;
            let name = if variant.plus_marked(ty) {
                format!("{name} (promoted)")
            } else {
                name.clone()
            };
            (tengu_rules::notation::piece_token(variant, piece), name)
        })
        .collect()
}

/// A game for the page: `game` (the variant's id), `base` (the game its networks play), `size`, `files`, `ranks`, `tags`, the
/// `start` board ([`board_tokens`]) and `position` (its text, as an analysis query reads it) and per move its text (RULES.md §12.3), Hodges notation, the display
/// indices of its `from` and `to` squares and the squares it `changes`
/// (`[[index, token]]`, `""` for emptied), so the page steps forward and back without
/// replaying the rules, and its search `value` (`values`: per ply, from the view of the side
/// that moved; null where unknown); `names` (piece token -> the piece's name); with
/// `result`, `termination` and a `warning` when the result tag disagrees with the moves.
pub fn game_json(record: &Record, values: Option<&[Option<f32>]>) -> Value {
    let start = record.game.start();
    let size = start.size();
    let index = |s: Square| s.row() * size + s.col();
    let mut pos = start.clone();
    let mut board = board_tokens(&pos);
    let mut moves = Vec::with_capacity(record.game.len());
    for (ply, m) in record.game.moves().enumerate() {
        let text = pos.move_text(m);
        let value = values
            .and_then(|v| v.get(ply).copied().flatten())
            .map(shortest);
        let hodges = pos.hodges(m);
        pos.play(m);
        let after = board_tokens(&pos);
        let changes: Vec<Value> = after
            .iter()
            .zip(&board)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, _))| json!([i, a]))
            .collect();
        board = after;
        moves.push(json!({
            "text": text,
            "hodges": hodges,
            "from": index(m.from()),
            "to": index(m.to()),
            "changes": changes,
            "value": value,
        }));
    }
    // The name of each piece token the board may show, for hovering.
    let names = piece_names(start.variant());
    let files: Vec<String> = (1..=size).rev().map(|f| f.to_string()).collect();
    let ranks: Vec<String> = (0..size)
        .map(|r| ((b'a' + r as u8) as char).to_string())
        .collect();
    let stm = |c: Color| if c == Color::Black { "Black" } else { "White" };
    json!({
        "game": start.variant().id(),
        "base": start.variant().game(),
        "size": size,
        "files": files,
        "ranks": ranks,
        "tags": record.tags,
        "names": names,
        "start": board_tokens(start),
        "position": start.to_string(),
        "start_stm": stm(start.side_to_move()),
        "moves": moves,
        "final": pos.to_string(),
        "final_stm": stm(pos.side_to_move()),
        "result": record.tag("Result"),
        "termination": record.tag("Termination"),
        "warning": record.result_mismatch().map(|m| m.to_string()),
    })
}

pub use tengu_selfplay::records::GameLine;

/// The game records of one file: a worker's `games/<stem>.records` (JSON lines, read by
/// [`tengu_selfplay::records::read_records`]) or an arena's `.record` (one record's text). A
/// line that cannot be read (a torn write, a damaged disk) is left out and said in the
/// second list (`line N: why`): the other games of the file are still shown, numbered from 0
/// among the intact ones.
pub fn records_of(key: &str, text: &str) -> (Vec<GameLine>, Vec<String>) {
    if key.ends_with(".record") {
        let game = GameLine {
            line: 1,
            record: text.to_string(),
            values: None,
        };
        return (vec![game], Vec::new());
    }
    let (games, damaged) = tengu_selfplay::records::read_records(text);
    (games, damaged.iter().map(ToString::to_string).collect())
}

/// Reads what a request asks for: game records (parsed games cached: records are written
/// once under unique names), book pages and checkpoint files.
pub struct Reader {
    location: Location,
    store: Mutex<Option<RunStore>>,
    games: Mutex<HashMap<(String, usize), Arc<str>>>,
}

impl Drop for Reader {
    /// The store's I/O runtime must not be dropped on an async thread (where the server's
    /// runtime drops its state when it shuts down): it goes on a thread of its own.
    fn drop(&mut self) {
        let store = self
            .store
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(store) = store {
            let _ = std::thread::Builder::new()
                .name("serve-reader-drop".into())
                .spawn(move || drop(store));
        }
    }
}

/// Parsed games kept in memory.
const GAMES_CACHED: usize = 256;

impl Reader {
    pub fn new(location: Location) -> Reader {
        Reader {
            location,
            store: Mutex::new(None),
            games: Mutex::new(HashMap::new()),
        }
    }

    /// The bytes of `key` (one the snapshot lists).
    pub fn get(&self, key: &str) -> Result<Vec<u8>, ViewError> {
        let mut store = self.store.lock().unwrap_or_else(|e| e.into_inner());
        if store.is_none() {
            if let Location::Local(dir) = &self.location {
                if !dir.is_dir() {
                    return Err(ViewError::NoRun(format!(
                        "{} is not a directory",
                        dir.display()
                    )));
                }
            }
            *store = Some(RunStore::at(self.location.clone())?);
        }
        let store = store.as_ref().expect("opened above");
        store
            .get(key)?
            .ok_or_else(|| ViewError::Unknown(key.to_string()))
    }

    /// Game `index` (from 0) of the file `key`, as [`game_json`] with `key`, `index` and
    /// `count` (games in the file) added.
    pub fn game(&self, key: &str, index: usize) -> Result<Arc<str>, ViewError> {
        let id = (key.to_string(), index);
        if let Some(g) = self
            .games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
        {
            return Ok(g.clone());
        }
        let bytes = self.get(key)?;
        let damaged = |problem: String| ViewError::Damaged {
            key: key.to_string(),
            problem,
        };
        let text = String::from_utf8(bytes).map_err(|_| damaged("not UTF-8 text".into()))?;
        let (records, torn) = records_of(key, &text);
        if !torn.is_empty() {
            tracing::warn!("{key}: damaged lines left out: {}", torn.join("; "));
        }
        if records.is_empty() && !torn.is_empty() {
            return Err(damaged(format!("no intact game: {}", torn.join("; "))));
        }
        let Some(line) = records.get(index) else {
            return Err(ViewError::NoGameAt {
                key: key.to_string(),
                index,
                count: records.len(),
            });
        };
        let record =
            Record::parse(&line.record).map_err(|e| damaged(format!("game {index}: {e}")))?;
        let values = line.values.as_deref();
        let mismatch = values
            .filter(|v| v.len() != record.game.len())
            .map(|v| v.len());
        let mut doc = game_json(&record, values.filter(|_| mismatch.is_none()));
        if let Some(n) = mismatch {
            let note = format!(
                "{n} search values for {} plies: not shown",
                record.game.len()
            );
            tracing::warn!("{key}: game {index}: {note}");
            doc["warning"] = json!(match doc["warning"].as_str() {
                Some(w) => format!("{w}; {note}"),
                None => note,
            });
        }
        if !torn.is_empty() {
            let note = format!(
                "damaged and left out: {}; the file's {} intact games are shown",
                torn.join("; "),
                records.len()
            );
            doc["warning"] = json!(match doc["warning"].as_str() {
                Some(w) => format!("{w}; {note}"),
                None => note,
            });
        }
        doc["damaged"] = json!(torn);
        doc["key"] = json!(key);
        doc["index"] = json!(index);
        doc["count"] = json!(records.len());
        let doc: Arc<str> = doc.to_string().into();
        let mut cache = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= GAMES_CACHED {
            cache.clear();
        }
        cache.insert(id, doc.clone());
        Ok(doc)
    }
}

/// One run the server watches, by the name the compare page gives it.
pub struct ServedRun {
    /// Unique among the runs served: the location's last part (`dai-dai-to-the-end`), or
    /// its whole text where two runs end alike.
    pub name: String,
    pub location: Location,
    pub shared: Arc<Shared>,
}

/// The shared state of the server: the newest snapshot and the reader.
pub struct Shared {
    pub snapshot: RwLock<Snapshot>,
    pub reader: Reader,
}

impl Shared {
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Starts the watcher thread: a look now (before returning, so the first page is complete),
/// then one every `poll` until `stop`.
pub fn watch(
    location: Location,
    poll: Duration,
    stop: Arc<AtomicBool>,
) -> std::io::Result<Arc<Shared>> {
    let mut watcher = Watcher::new(location.clone());
    let first = watcher.look();
    let shared = Arc::new(Shared {
        snapshot: RwLock::new(first),
        reader: Reader::new(location),
    });
    let inner = shared.clone();
    std::thread::Builder::new()
        .name("serve-watcher".into())
        .spawn(move || {
            let mut last = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50).min(poll));
                if last.elapsed() < poll {
                    continue;
                }
                last = Instant::now();
                let snapshot = watcher.look();
                *inner.snapshot.write().unwrap_or_else(|e| e.into_inner()) = snapshot;
            }
        })?;
    Ok(shared)
}
