//! Every command-line type of the `tengu` binary (clap), in one place.

use clap::{Parser, Subcommand};
use tengu_search::players::PlayerSpec;

/// Self-play reinforcement learning for Dai Dai Shogi and Maka Dai Dai Shogi.
#[derive(Parser)]
#[command(name = "tengu", version, about)]
pub struct Cli {
    /// Log filter: a level (off, error, warn, info, debug, trace) or comma-separated
    /// directives `TARGET=LEVEL` with an optional default level (e.g.
    /// `info,tengu_trainer=debug`). `RUST_LOG`, when set, replaces it. Default `info`, and
    /// `warn` for `tengu xboard` (QBoard shows an engine's stderr as errors) and `tengu play`
    /// (the game, not the loading, in the terminal).
    #[arg(long, global = true, value_parser = crate::logging::check_filter)]
    pub log: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Count the leaf nodes of the legal move tree (move generator test and benchmark).
    Perft(PerftArgs),
    /// List the legal moves of a position in coordinate notation, sorted.
    Moves(MovesArgs),
    /// Print a readable board for a position or a game record.
    Show(ShowArgs),
    /// Measure speed: `tengu bench nn` (network throughput), `search` (MCTS), `agree`
    /// (backends on one checkpoint), `book` (opening-book building), `store` (shard ingest).
    Bench(BenchArgs),
    /// Run a self-play worker on a run directory until stopped (Ctrl-C or SIGTERM).
    Selfplay(SelfplayArgs),
    /// Inspect replay shards.
    Shards(ShardsArgs),
    /// Train on a run directory's shards and publish checkpoints (resumes from the newest).
    Train(TrainArgs),
    /// A match between two players: score, Elo with a 95% interval, optional SPRT.
    Match(MatchArgs),
    /// Earlier matches read back: the games of `tengu match --out` folders of the same two
    /// players (one a seed) pooled into one report, optionally scored again at another
    /// material ratio. Plays nothing.
    Results(ResultsArgs),
    /// A round-robin (or gauntlet) tournament with a fitted rating table and a picture.
    Tournament(TournamentArgs),
    /// Rate a run's checkpoints nearest to given CPU-hours against fixed opponents
    /// (greedy, fixed-depth alpha-beta) and the rung before: Elo against compute.
    Ladder(LadderArgs),
    /// The main job: self-play workers and the trainer on one run directory, supervised,
    /// with one progress view. Running it again resumes the run.
    Run(RunArgs),
    /// A run's scalars (losses, held-out losses, Elo, suite, games and rows per hour,
    /// CPU-hours) as a TensorBoard event file, once or following the run.
    Tensorboard(TensorboardArgs),
    /// Watch a run in the browser: what it is doing now, its curves, its newest games
    /// replayable move by move, its checkpoints and books; read-only, any run location.
    Serve(ServeArgs),
    /// Score a checkpoint on the tactics suite (raw-policy top-1 / top-3, value sign), or
    /// build a suite with `tengu suite make`.
    Suite(SuiteArgs),
    /// Be an XBoard/CECP engine on stdin/stdout (`variant daidai`, `variant maka`), for
    /// QBoard or a scripted client. Without --checkpoint it plays with alpha-beta.
    Xboard(XboardArgs),
    /// Play against tengu in the terminal.
    Play(PlayArgs),
    /// An analysis engine on stdin/stdout (KataGo's shape): JSON queries in, the searched
    /// value, candidate moves and lines of each asked ply out, several queries batched on
    /// one network (docs/analyze.md).
    Analyze(AnalyzeArgs),
    /// Opening books built by search: `build`, `probe`, `export` (JSON lines, openings,
    /// HTML), `openings` (balanced arena openings), `info`.
    Book(BookArgs),
}

impl Command {
    /// The log filter without `--log` or `RUST_LOG`: `info`, but `warn` for the engine,
    /// whose stderr a GUI shows as errors (QBoard colours every line of it red), and for
    /// terminal play, where INFO lines would come before the instructions.
    pub fn default_log(&self) -> &'static str {
        match self {
            Command::Xboard(_) | Command::Play(_) => "warn",
            _ => "info",
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SuiteArgs {
    #[command(subcommand)]
    pub make: Option<SuiteCommand>,
    /// The checkpoint to score.
    #[arg(long)]
    pub checkpoint: Option<std::path::PathBuf>,
    /// The suite file (default: `suites/<game>.jsonl`, the checkpoint's game).
    #[arg(long)]
    pub suite: Option<std::path::PathBuf>,
    /// Backend that runs the network.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Score a search of this many root visits per position instead of the raw policy
    /// (how good a teacher self-play's search is); 0: the raw policy. At most 1,000,000.
    #[arg(long, default_value_t = 0, value_parser = crate::ranges::whole::<u32>(0, 1_000_000))]
    pub visits: u32,
    /// With --visits: score only the first N positions (searches take longer); 1 to
    /// 1,000,000.
    #[arg(long, default_value_t = 200, value_parser = crate::ranges::whole::<usize>(1, 1_000_000))]
    pub limit: usize,
    /// With --visits: search with the `[search]` table of this run configuration (e.g.
    /// `runs/X/config.toml`) instead of the defaults; the flags below override it.
    #[arg(long)]
    pub search_config: Option<std::path::PathBuf>,
    /// With --visits: the search's material utility (see `[search] material_utility`), 0
    /// to 1.
    #[arg(long, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub material_utility: Option<f32>,
    /// With --visits: the search's root capture share (see `[search] root_capture_share`),
    /// 0 to 1.
    #[arg(long, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub root_capture_share: Option<f32>,
    /// With --visits: the root selection, puct or gumbel.
    #[arg(long)]
    pub root: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum SuiteCommand {
    /// Build a suite from games of the random and greedy players, labelled by a three-ply
    /// capture search (`scripts/make_suites.sh` makes the shipped ones).
    Make(SuiteMakeArgs),
}

#[derive(clap::Args, Debug)]
pub struct SuiteMakeArgs {
    /// dai-dai or maka-dai-dai (or a game key such as `dai-dai:LO=EDO`); the suite is
    /// labelled and marked with the rule set.
    #[arg(long)]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Positions in the suite (1 to 1,000,000).
    #[arg(long, default_value_t = 2000, value_parser = crate::ranges::whole::<usize>(1, 1_000_000))]
    pub count: usize,
    /// Seed of the random and greedy games the positions come from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the suite (JSON lines).
    #[arg(long)]
    pub out: std::path::PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// Player A: `random`, `greedy`, `alphabeta[:MS[:DEPTH]]` (time per move in ms, 1 to
    /// 600,000, default 200; depth limit 1 to 64, default 4), `checkpoint:PATH[:VISITS]`
    /// (MCTS, 1 to 1,000,000 visits, default 64) or `policy:PATH` (the raw network: its
    /// most probable move, no search).
    pub a: PlayerSpec,
    /// Player B, as A.
    pub b: PlayerSpec,
    #[command(flatten)]
    pub settings: GameSettingsArgs,
    /// Stop early by SPRT: `elo0,elo1,alpha,beta` (e.g. `0,50,0.05,0.05`; elo0 < elo1,
    /// both within +-2000; alpha and beta in (0, 0.5)).
    #[arg(long)]
    pub sprt: Option<String>,
    /// Games played at once (each thread has its own pair of players), 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = crate::ranges::whole::<usize>(1, 256))]
    pub threads: usize,
    /// Print one JSON object at the end instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ResultsArgs {
    /// `tengu match --out` folders (each with its `results.jsonl`) of the same two players
    /// on different openings (seeds); their game pairs pool into one report.
    #[arg(required = true, num_args = 1..)]
    pub folders: Vec<std::path::PathBuf>,
    /// Score the games that reached the ply cap again at this material ratio: won by a side
    /// with at least this many times the other's material (its share at the end), else
    /// drawn; 0: every capped game a draw. Default: as played. At fixed visits a match
    /// replays move for move, so this is what a match at that ratio would have given.
    #[arg(long, value_parser = crate::ranges::material_ratio)]
    pub material_ratio: Option<f32>,
    /// Pool folders of different players too: player A's side of each folder's match as one
    /// player (e.g. a change against its absence, measured at several checkpoints). Folders
    /// of the same two players must still differ in their openings.
    #[arg(long)]
    pub several_pairings: bool,
    /// Compare with a second arm game by game: these folders, one per seed in the same
    /// order as the first arm's, played the same openings (e.g. a change on and off, each
    /// against the same opponent). Prints both arms and A minus B per game and per opening
    /// pair, with 95% intervals.
    #[arg(long, num_args = 1..)]
    pub against: Option<Vec<std::path::PathBuf>>,
    /// Calibrate material adjudication and resignation instead: read the game records of
    /// the folders (`tengu match --out` folders, a run's `games/`: `*.record` and `*.records`
    /// files in each folder and its `games/`), keep the games a rule ended (mate, no legal
    /// move, repetition, ...), and print for each ply of --plies and ratio of --ratios how
    /// often the side ahead by that ratio went on to win, and the smallest safe ratio per
    /// ply; where self-play kept its search values, for each of --resign-thresholds and
    /// --resign-moves how often the side that would have resigned drew or won.
    #[arg(long, conflicts_with_all = ["against", "material_ratio", "several_pairings"])]
    pub calibrate: bool,
    /// Plies of the calibration (plies from the game's start).
    #[arg(long, value_delimiter = ',', default_value = "100,200,300,500,750,1000,1500,2000", value_parser = crate::ranges::whole::<u32>(1, 100_000))]
    pub plies: Vec<u32>,
    /// Material ratios of the calibration (each above 1).
    #[arg(long, value_delimiter = ',', default_value = "1.1,1.2,1.5,2,3", value_parser = crate::ranges::real32(crate::ranges::Real::above(1.0, crate::ranges::MAX_MATERIAL_RATIO)))]
    pub ratios: Vec<f32>,
    /// The share of games the side ahead must win for a ratio to count as safe (and one
    /// minus it the most a resignation threshold may be false).
    #[arg(long, default_value_t = 0.95, value_parser = crate::ranges::real(crate::ranges::Real::closed(0.5, 1.0)))]
    pub safe_share: f64,
    /// Resignation thresholds of the calibration, replayed on the search values self-play
    /// keeps beside its records (`*.records`): a side resigns when its value stays below
    /// -threshold (selfplay.resign_threshold).
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.7,0.8,0.9,0.95,0.99", value_parser = crate::ranges::real32(crate::ranges::Real::closed(0.0, 1.0)))]
    pub resign_thresholds: Vec<f32>,
    /// Moves in a row below the threshold of the calibration (selfplay.resign_consecutive).
    #[arg(long, value_delimiter = ',', default_value = "3,6,12", value_parser = crate::ranges::whole::<u32>(1, 1000))]
    pub resign_moves: Vec<u32>,
    /// Print one JSON object (`tengu match --json`'s report; with `--against`, `{"a", "b",
    /// "paired"}`; with `--calibrate`, `{"games", "cells", "safe"}`) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct TournamentArgs {
    /// Players, as for `tengu match` (at least two). A player given twice is told apart in
    /// the table by its place: `greedy#1`, `greedy#2`.
    #[arg(required = true, num_args = 2..)]
    pub players: Vec<PlayerSpec>,
    /// Only the first player against each other one.
    #[arg(long)]
    pub gauntlet: bool,
    #[command(flatten)]
    pub settings: GameSettingsArgs,
    /// Print the standings as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct LadderArgs {
    /// The run: a directory, `file://`, `s3://`, `gs://` or `az://`.
    #[arg(long)]
    pub run: String,
    /// Rungs: for each of these CPU-hours (self-play + training, the run's CPU ledger), the
    /// checkpoint nearest to it (within a factor --tolerance).
    #[arg(long, value_delimiter = ',', default_value = "0.25,0.5,1,2,4,8")]
    pub cpu_hours: Vec<f64>,
    /// How far (a factor of CPU-hours) a checkpoint may be from a target to serve as its
    /// rung.
    #[arg(long, default_value_t = 1.25)]
    pub tolerance: f64,
    /// The fixed opponents, as players of `tengu match`: the first is the scale's 0. The
    /// alpha-beta players get ten minutes a move so that their depth always completes and
    /// results do not depend on the machine. `none`: no fixed opponent, each rung plays the
    /// rung before it and the first rung is the scale's 0.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "greedy,alphabeta:600000:2,alphabeta:600000:3"
    )]
    pub opponents: Vec<String>,
    /// Do not play each rung against the rung before it.
    #[arg(long)]
    pub no_previous: bool,
    /// Games per match (rounded up to pairs: each opening is played with both colours).
    #[arg(long, default_value_t = 30, value_parser = crate::ranges::whole::<u64>(1, 10_000))]
    pub games: u64,
    /// Visits a move of the checkpoints' search (the run's `[search]` table).
    #[arg(long, default_value_t = 32, value_parser = crate::ranges::whole::<u32>(1, 1_000_000))]
    pub visits: u32,
    /// The safety cap: games are played to their end and a game still going at this many
    /// plies stops, drawn unless --material-ratio gives it to a side.
    #[arg(long, default_value_t = tengu_rules::end::TO_THE_END_PLIES, value_parser = crate::ranges::whole::<u32>(1, 100_000))]
    pub max_plies: u32,
    /// Material ratio that wins at the ply cap (0, the default: every capped game is a
    /// draw).
    #[arg(long, default_value_t = 0.0, value_parser = crate::ranges::material_ratio)]
    pub material_ratio: f32,
    /// Contempt of every player, as `tengu match --contempt`.
    #[arg(long, default_value_t = tengu_rules::end::MATCH_CONTEMPT, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub contempt: f32,
    /// The rungs search with the `[search]` table of this file (e.g. the shipped
    /// `networks/dai-dai.toml`) instead of the run's.
    #[arg(long, value_name = "FILE")]
    pub search_config: Option<std::path::PathBuf>,
    /// Random plies of each opening (without --openings).
    #[arg(long, default_value_t = 4, value_parser = crate::ranges::whole::<u32>(0, 1_000))]
    pub opening_plies: u32,
    /// Balanced openings (`tengu book openings`): pair k starts from opening k mod n.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_plies")]
    pub openings: Option<std::path::PathBuf>,
    /// Games played at once (each thread has its own pair of players).
    #[arg(long, default_value_t = 1, value_parser = crate::ranges::whole::<usize>(1, 256))]
    pub threads: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Network backend (default: the run's).
    #[arg(long)]
    pub backend: Option<String>,
    /// Directory for the matches and the report (default: the run's `ladder/`); a rerun
    /// continues every match where it stopped.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The rule set a command plays (RULES.md §8, docs/rules.md), on top of `--game`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RulesArgs {
    /// A rule set file: a TOML table of an optional `preset` and options by name
    /// (docs/rules.md).
    #[arg(long, value_name = "FILE")]
    pub rules: Option<std::path::PathBuf>,
    /// One rule option, NAME=VALUE, after --rules (repeatable): `--option LEGALITY=PSEUDO_LEGAL`,
    /// `--option preset=tsa`, `--option OK=SRZ`.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

/// How the games of a match or tournament are played.
#[derive(clap::Args, Debug)]
pub struct GameSettingsArgs {
    /// Game: dai-dai or maka-dai-dai (or a game key such as `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Games per match (rounded up to pairs: each opening is played with both colours), 1 to
    /// 1,000,000.
    #[arg(long, default_value_t = 10, value_parser = crate::ranges::whole::<u64>(1, 1_000_000))]
    pub games: u64,
    /// Random plies of each opening, 0 to 1,000 (fewer than --max-plies).
    #[arg(long, default_value_t = 4, value_parser = crate::ranges::whole::<u32>(0, 1_000))]
    pub opening_plies: u32,
    /// Openings file: one opening a line, moves in coordinate notation from the initial
    /// position (`#` starts a comment, `start` is the initial position). Pair k (games 2k
    /// and 2k+1, colours swapped) starts from opening k mod n, in file order. Excludes
    /// --opening-plies.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_plies")]
    pub openings: Option<std::path::PathBuf>,
    /// The safety cap: games are played to their end (mate, the rules' other ends) and a
    /// game still going at this many plies stops, drawn unless --material-ratio gives it
    /// to a side. 1 to 100,000, and more than the openings' plies.
    #[arg(long, default_value_t = tengu_rules::end::TO_THE_END_PLIES, value_parser = crate::ranges::whole::<u32>(1, 100_000))]
    pub max_plies: u32,
    /// Material ratio that wins at the ply cap: 0 (the default: every capped game is a
    /// draw) or above 1 and at most 100.
    #[arg(long, default_value_t = 0.0, value_parser = crate::ranges::material_ratio)]
    pub material_ratio: f32,
    /// Contempt of every tengu player (MCTS and alpha-beta), 0 to 1 in value units: a draw
    /// is worth -C to the player, so a side that is not behind does not steer into a
    /// repetition (`search.contempt`; alpha-beta: MATERIAL_SCALE * atanh(C) piece units). 0:
    /// a draw is worth 0. Overrides the checkpoints' own search settings.
    #[arg(long, default_value_t = tengu_rules::end::MATCH_CONTEMPT, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub contempt: f32,
    /// Directory for results, game records (and standings); a rerun continues.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Network backend for checkpoint players.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// Seed of the random openings and of the players' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Checkpoint players add this times their material head's prediction to the values
    /// their search backs up (`search.material_utility` of the run that trained them;
    /// default: that of their search settings), 0 to 1.
    #[arg(long, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub material_utility: Option<f32>,
    /// Checkpoint players search with the `[search]` table of this run configuration
    /// (e.g. `runs/X/config.toml`). Default: each checkpoint its own (`<name>.toml` beside
    /// it, else the `config.toml` of the run whose `models/` holds it, else the defaults),
    /// so it searches as the run that trained it did; `--material-utility` overrides.
    #[arg(long)]
    pub search_config: Option<std::path::PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Run configuration (TOML, see configs/run/). Default: the run directory's saved
    /// `config.toml` when resuming. Search, self-play and training keys may change on a
    /// resumed run (the changes are logged); another game or network is refused.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Run directory. Default: `runs/<config file name without .toml>`.
    #[arg(long)]
    pub run: Option<std::path::PathBuf>,
    /// Override the config's network backend.
    #[arg(long)]
    pub backend: Option<String>,
    /// Stop after this many minutes.
    #[arg(long)]
    pub max_minutes: Option<f64>,
    /// Stop once the trainer reaches this step.
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Stop once the run's CPU ledger (`RUN/cpu/`: every worker and trainer process of
    /// every session, teacher labels included) holds this many CPU-hours: A/B arms stop at
    /// equal compute. A run already past it starts nothing.
    #[arg(long, value_parser = positive_hours)]
    pub max_cpu_hours: Option<f64>,
    /// No progress bar (on a terminal) and no status lines (printed to standard output
    /// every 30 s and at each new checkpoint when it is not a terminal).
    #[arg(long)]
    pub quiet: bool,
}

/// A positive, finite number of CPU-hours.
fn positive_hours(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(h),
        _ => Err(format!("{text:?} is not a positive number of CPU-hours")),
    }
}

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// The run: a directory, `file:///shared/dir`, or an object store (`s3://bucket/prefix`,
    /// `gs://`, `az://`; credentials and endpoint from the usual environment variables).
    /// Shards are read from `shards/`, checkpoints published to `models/`, losses to `train/`.
    /// A run has exactly one trainer: a second one exits with a message.
    #[arg(long)]
    pub run: String,
    /// Run configuration (TOML); default: the run's `config.toml` (a run without one needs
    /// `--config`). On a run with checkpoints, a config with another network is refused.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Override the config's network backend.
    #[arg(long)]
    pub backend: Option<String>,
    /// Stop after this training step (default: run until stopped).
    #[arg(long)]
    pub max_steps: Option<u64>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Check `--config` and publish it into the run as `config.toml` (holding the trainer
    /// lease for that moment), then exit without training: how a run that the PyTorch
    /// trainer trains (`train.engine = "python"`, e.g. configs/run/dai-dai-gpu.toml) gets
    /// its config before `python -m tengu.train --run-location URL` starts.
    #[arg(long, requires = "config")]
    pub config_only: bool,
}

#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// The run: a directory (created if missing), `file:///shared/dir`, or an object store
    /// (`s3://bucket/prefix`, `gs://`, `az://`). Checkpoints are read from `models/`, shards
    /// written to `shards/`, game records to `games/`; any number of workers on any machines.
    #[arg(long)]
    pub run: String,
    /// Run configuration (TOML). Default: the run directory's `config.toml` if present,
    /// else the built-in defaults.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Override the config's network backend (burn, tch-cpu, tch-cuda, tch-cuda-bf16).
    #[arg(long)]
    pub backend: Option<String>,
    /// Stop after this many games (default: run until stopped).
    #[arg(long)]
    pub games: Option<u64>,
    /// Random seed (default: from the clock and process id).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar (for logs and scripts).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(clap::Args, Debug)]
pub struct ShardsArgs {
    #[command(subcommand)]
    pub what: ShardsWhat,
}

#[derive(Subcommand, Debug)]
pub enum ShardsWhat {
    /// Print each shard's header, row count and validity (a shard file, a directory of
    /// shards, or a run directory, whose `shards/` is read).
    Inspect(ShardsInspectArgs),
    /// The training losses of checkpoints on the rows of shards: held-out data, e.g. the
    /// games of another run, to compare checkpoints of different runs on the same rows.
    Losses(ShardsLossesArgs),
}

#[derive(clap::Args, Debug)]
pub struct ShardsLossesArgs {
    /// A shard file, a directory of shards, a run directory or a run URL (`s3://...`).
    pub path: String,
    /// Checkpoint to measure (a file, or its URL in a run on an object store); repeat to
    /// compare several on the same rows.
    #[arg(long, required = true)]
    pub checkpoint: Vec<std::path::PathBuf>,
    /// Rows measured, spread evenly over all rows of the shards in name order (all of them
    /// when there are fewer), 1 to 1,000,000.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub rows: u64,
    /// Backend that runs the network.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// One JSON object per checkpoint, one per line.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ShardsInspectArgs {
    /// A shard file, a directory of shards, a run directory or a run URL (`s3://...`).
    pub path: String,
    /// One JSON object per shard, one per line (with `run` set when a run directory was
    /// given).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
}

#[derive(Subcommand, Debug)]
pub enum BenchWhat {
    /// Batched forward (positions/s at several batch sizes), training samples/s and GFLOP/s
    /// for network size presets and backends.
    Nn(BenchNnArgs),
    /// Training throughput: samples/s, milliseconds a step and GFLOP/s (forward + backward,
    /// counted from the network description) of the trainer's step on rows decoded as the
    /// trainer decodes them, backends measured in turn, against the matrix kernel's peak.
    Train(BenchTrainArgs),
    /// MCTS simulations per second with the uniform evaluator (search overhead) and with a
    /// network, the share of time outside the network, and self-play positions per hour.
    Search(BenchSearchArgs),
    /// Backend agreement: one checkpoint on the same positions through several backends;
    /// the largest |difference| of move probabilities, WDL and material against the first.
    Agree(BenchAgreeArgs),
    /// Opening-book building: new positions per minute at given visits with a checkpoint,
    /// bytes per position, load time and probe latency.
    Book(BenchBookArgs),
    /// Store ingest: rows/s one trainer reads from a run location (listing, download,
    /// checksum, decode), the cost of an incremental poll, and the self-play machines per
    /// training GPU that implies.
    Store(BenchStoreArgs),
    /// `tengu serve`'s endpoints on a synthetic run (shards, checkpoints, loss log, games):
    /// latency of each, and the server's CPU time under many polling viewers.
    Serve(BenchServeArgs),
    /// `tengu serve`'s play page under load on localhost: games in play against a shipped
    /// network and concurrent analysis queries; the median and worst response times, the
    /// refusals over the caps, the process's peak memory.
    Play(BenchPlayArgs),
    /// The judge's teacher (alpha-beta with the exchange count at its horizon): labels per
    /// second and per CPU-hour at each depth, nodes a label, and how far its score moves
    /// from one leaf's count, on positions of random games.
    Teacher(BenchTeacherArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchTeacherArgs {
    /// Game: dai-dai or maka-dai-dai (or a game key such as `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Teacher depths to measure, in plies (each 1 to 4).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3", value_parser = crate::ranges::whole::<u32>(1, 4))]
    pub depths: Vec<u32>,
    /// Positions labelled at each depth, 1 to 100,000.
    #[arg(long, default_value_t = 40, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub positions: usize,
    /// Plies of the exchange search at the teacher's horizon (the search's `exchange_depth`), 1 to 8.
    #[arg(long, default_value_t = 4, value_parser = crate::ranges::whole::<u32>(1, 8))]
    pub exchange_depth: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchServeArgs {
    /// Shards (each with a game record file) in the synthetic run, 1 to 100,000.
    #[arg(long, default_value_t = 1000, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub shards: usize,
    /// Committed checkpoints in the synthetic run, 1 to 10,000.
    #[arg(long, default_value_t = 100, value_parser = crate::ranges::whole::<usize>(1, 10_000))]
    pub checkpoints: usize,
    /// Requests timed per endpoint, 1 to 100,000.
    #[arg(long, default_value_t = 200, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub requests: usize,
    /// Viewers polling /api/now every two seconds during the load phase, 0 to 1,000.
    #[arg(long, default_value_t = 50, value_parser = crate::ranges::whole::<usize>(0, 1000))]
    pub viewers: usize,
    /// Seconds of the load phase, 1 to 3,600.
    #[arg(long, default_value_t = 10.0, value_parser = crate::ranges::real(crate::ranges::Real::closed(1.0, 3600.0)))]
    pub seconds: f64,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchPlayArgs {
    /// Games played at once against the shipped network, 1 to 1,000.
    #[arg(long, default_value_t = 10, value_parser = crate::ranges::whole::<usize>(1, 1000))]
    pub games: usize,
    /// Your moves in each game (each followed by the opponent's), 1 to 1,000.
    #[arg(long, default_value_t = 5, value_parser = crate::ranges::whole::<usize>(1, 1000))]
    pub moves: usize,
    /// The opponent's visits a move, 1 to 100,000.
    #[arg(long, default_value_t = 8, value_parser = crate::ranges::whole::<u32>(1, 100_000))]
    pub opponent_visits: u32,
    /// Analysis queries sent at once while the games go on, 1 to 10,000.
    #[arg(long, default_value_t = 50, value_parser = crate::ranges::whole::<usize>(1, 10_000))]
    pub queries: usize,
    /// Visits of each analysis query, 1 to 100,000.
    #[arg(long, default_value_t = 16, value_parser = crate::ranges::whole::<u32>(1, 100_000))]
    pub visits: u32,
    /// Game: dai-dai or maka-dai-dai.
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The run: a directory, file://, s3://, gs:// or az:// location. Only read; one that
    /// does not exist yet is watched until it does. Several runs (or a directory of runs,
    /// such as `experiments/cpu-runs/`) are compared side by side on `/compare`; the first is the one
    /// the run page and the play page show.
    #[arg(required = true, num_args = 1.., value_name = "RUN")]
    pub runs: Vec<String>,
    /// Address to listen on. The default answers this machine only; 0.0.0.0:8080 exposes
    /// the run to anyone who can reach the machine.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: std::net::SocketAddr,
    /// Seconds between two looks at the run, 0.2 to 3,600 (default 2 for a directory, 15
    /// for an object store, where every look costs a few requests).
    #[arg(long, value_parser = crate::ranges::real(crate::ranges::Real::closed(0.2, 3600.0)))]
    pub poll: Option<f64>,
    #[command(flatten)]
    pub play: PlayServeArgs,
}

/// The play page of `tengu serve` (`/play`): what it offers and what it may spend.
#[derive(clap::Args, Debug, Clone)]
pub struct PlayServeArgs {
    /// Directory the play page saves its games to, one record file a game (created on the
    /// first move; `tengu show --record` reads them).
    #[arg(long, default_value = "tengu-play", value_name = "DIR")]
    pub play_dir: std::path::PathBuf,
    /// A checkpoint the play page offers as an opponent and for analysis besides the run's
    /// checkpoints and the shipped networks (any game; repeat for more).
    #[arg(long = "checkpoint", value_name = "PATH")]
    pub checkpoints: Vec<std::path::PathBuf>,
    /// An opening book (`tengu book build`) whose lines the play page offers as starting
    /// positions (repeat for more; one that cannot be read stops the server from starting).
    #[arg(long = "book", value_name = "FILE")]
    pub books: Vec<std::path::PathBuf>,
    /// Games in play at once, 1 to 1,000 (a new game past it is refused with 429 until one
    /// ends).
    #[arg(long, default_value_t = 16, value_parser = crate::ranges::whole::<usize>(1, 1000))]
    pub max_games: usize,
    /// Analysis queries in flight at once, 1 to 10,000 (one more is refused with 429).
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 10_000))]
    pub max_queries: usize,
    /// Most visits one request may ask for (an opponent's visits per move, an analysis), 1
    /// to 1,000,000.
    #[arg(long, default_value_t = 4000, value_parser = crate::ranges::whole::<u32>(1, 1_000_000))]
    pub max_visits: u32,
    /// Most milliseconds one analysis or one opponent's move may ask for (`max_ms`), and
    /// alpha-beta's time a move when a game names none, 1 to 600,000.
    #[arg(long, default_value_t = 20_000, value_parser = crate::ranges::whole::<u64>(1, 600_000))]
    pub max_ms: u64,
    /// Deepest alpha-beta opponent, 1 to 64 plies.
    #[arg(long, default_value_t = 4, value_parser = crate::ranges::whole::<u32>(1, 64))]
    pub max_depth: u32,
    /// Network backend of the opponents and the analysis.
    #[arg(long, default_value = "burn")]
    pub backend: String,
}

#[derive(clap::Args, Debug)]
pub struct TensorboardArgs {
    /// The run: a directory, file://, s3://, gs:// or az:// location. Only read.
    #[arg(long)]
    pub run: String,
    /// Directory of the event file (default: RUN/tensorboard for a run directory; needed
    /// for a run on an object store). `tensorboard --logdir` its parent to compare runs.
    #[arg(long)]
    pub logdir: Option<std::path::PathBuf>,
    /// Keep following the run, appending new scalars every this many seconds (1 to
    /// 86,400) until Ctrl-C.
    #[arg(long, value_parser = crate::ranges::real(crate::ranges::Real::closed(1.0, 86_400.0)))]
    pub follow: Option<f64>,
}

#[derive(clap::Args, Debug)]
pub struct BenchStoreArgs {
    /// Run location to write the test shards to (a directory, s3://...); default a
    /// temporary directory. Use an empty prefix: the bench deletes what it wrote.
    #[arg(long)]
    pub run: Option<String>,
    /// Shards written and ingested, 1 to 100,000.
    #[arg(long, default_value_t = 60, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub shards: usize,
    /// Rows per shard (the shipped configs write 2,000), 1 to 1,000,000.
    #[arg(long, default_value_t = 500, value_parser = crate::ranges::whole::<usize>(1, 1_000_000))]
    pub rows_per_shard: usize,
    /// Game whose positions fill the shards' rows: dai-dai or maka-dai-dai (or a game key
    /// such as `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Rows one self-play machine makes per hour (default: configs/run/dai-dai-gpu.toml
    /// measured on one H200, docs/gpu.md); above 0, at most 10^12.
    #[arg(long, default_value_t = 3_400_000.0, value_parser = crate::ranges::real(crate::ranges::Real::above(0.0, 1e12)))]
    pub machine_rows_per_hour: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchBookArgs {
    /// The checkpoint whose searches build the book (its game is used).
    #[arg(long)]
    pub checkpoint: std::path::PathBuf,
    /// Root visits per search (two searches per new position), 1 to 1,000,000.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<u32>(1, 1_000_000))]
    pub visits: u32,
    /// Positions to build, 2 to 1,000,000.
    #[arg(long, default_value_t = 200, value_parser = crate::ranges::whole::<usize>(2, 1_000_000))]
    pub positions: usize,
    /// Backend that runs the network.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchAgreeArgs {
    /// The checkpoint every backend loads (its game's positions are evaluated).
    #[arg(long)]
    pub checkpoint: std::path::PathBuf,
    /// Backends (comma separated); each after the first is compared with the first.
    #[arg(long, default_value = "burn,burn-flex", value_delimiter = ',')]
    pub backends: Vec<String>,
    /// Positions evaluated (a deterministic walk through the game, as in `bench nn`), 1 to
    /// 100,000.
    #[arg(long, default_value_t = 256, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub positions: usize,
    /// Positions per evaluator call, 1 to 4,096.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub batch: usize,
    /// Fail (exit status 1, after the report) when a difference exceeds this (0 to 2: the
    /// differences are of probabilities and of material in (-1, 1)).
    #[arg(long, value_parser = crate::ranges::real(crate::ranges::Real::closed(0.0, 2.0)))]
    pub tolerance: Option<f64>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchSearchArgs {
    /// Game: dai-dai or maka-dai-dai (or a game key such as `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Network preset for the network measurement.
    #[arg(long, default_value = "cpu")]
    pub preset: String,
    /// Backend of the network measurement.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// Games in flight (the evaluator's batch size), 1 to 4,096.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub games: usize,
    /// Visits per move (full searches), 1 to 1,000,000.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<u32>(1, 1_000_000))]
    pub visits: u32,
    /// Seconds per measurement (above 0, at most 3,600).
    #[arg(long, default_value_t = 10.0, value_parser = crate::ranges::real(crate::ranges::SECONDS))]
    pub seconds: f64,
    /// Search with the `[search]` table of this run configuration (e.g.
    /// `configs/run/dai-dai-cpu.toml`) instead of the defaults; --visits overrides its visits.
    #[arg(long)]
    pub search_config: Option<std::path::PathBuf>,
    /// Skip the uniform evaluator's measurement (tree work alone) and measure the network
    /// only (several processes sharing one GPU measure the network alone).
    #[arg(long)]
    pub network_only: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchNnArgs {
    /// Game whose positions are evaluated: dai-dai or maka-dai-dai (or a game key such as
    /// `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Size presets to measure (comma separated, `b<blocks>c<channels>`).
    #[arg(long, default_value = "b4c32,b6c64", value_delimiter = ',')]
    pub presets: Vec<String>,
    /// Batch sizes for the forward pass (comma separated), each 1 to 4,096.
    #[arg(long, default_value = "1,16,64,256", value_delimiter = ',', value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub batches: Vec<usize>,
    /// Batch size of the training measurement, 1 to 4,096.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub train_batch: usize,
    /// Seconds to spend on each measurement (at least one call is always made; above 0, at
    /// most 3,600).
    #[arg(long, default_value_t = 2.0, value_parser = crate::ranges::real(crate::ranges::SECONDS))]
    pub seconds: f64,
    /// Backends to measure (comma separated): `burn` (tengu's CPU kernels, evaluation and
    /// training), `burn-flex` (evaluation through burn-flex), `candle` (candle's CPU
    /// backend; needs a build with `--features candle`), `tch-cpu`, `tch-cuda`,
    /// `tch-cuda-bf16` (the tch ones need a build with `--features cuda`). Training is
    /// measured for `burn` alone: the other CPU backends train on the same kernels, and
    /// GPUs train with PyTorch (`python -m tengu.train.bench`).
    #[arg(long, default_value = "burn,burn-flex", value_delimiter = ',')]
    pub backends: Vec<String>,
    /// Also print where each forward's time goes, stage by stage (backends that measure it).
    #[arg(long)]
    pub profile: bool,
    /// Skip the training measurement.
    #[arg(long)]
    pub no_train: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchTrainArgs {
    /// Game of the rows: dai-dai or maka-dai-dai (or a game key such as `dai-dai:LO=EDO`).
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Network size preset (an alias or `b<blocks>c<channels>`; the shipped CPU runs: cpu).
    #[arg(long, default_value = "cpu")]
    pub preset: String,
    /// Rows per step (the shipped CPU run's `[train] batch_size`), 1 to 4,096.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub batch: usize,
    /// Backends whose trainers are measured (comma separated): `burn` (tengu's CPU
    /// kernels, the one Rust trainer, which `burn-flex` and `candle` train with too; the tch
    /// backends have none: GPUs train with PyTorch, `python -m tengu.train.bench`).
    #[arg(long, default_value = "burn", value_delimiter = ',')]
    pub backends: Vec<String>,
    /// Seconds each backend trains per round (above 0, at most 3,600).
    #[arg(long, default_value_t = 10.0, value_parser = crate::ranges::real(crate::ranges::SECONDS))]
    pub seconds: f64,
    /// Rounds: every backend is measured once a round, in turn (A B A B ...), so that load
    /// from other processes falls on all alike; the median round is reported. 1 to 100.
    #[arg(long, default_value_t = 3, value_parser = crate::ranges::whole::<usize>(1, 100))]
    pub rounds: usize,
    /// Also print where a step's time goes, stage by stage (backends that measure it).
    #[arg(long)]
    pub profile: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct PositionArgs {
    /// Game: dai-dai or maka-dai-dai. Without --position its initial position is used
    /// (default dai-dai); with --position it is optional and must match the position's board.
    #[arg(long)]
    pub game: Option<String>,
    /// A position in RULES.md §12.2 notation or a QBoard FEN (its board size decides the game).
    #[arg(long)]
    pub position: Option<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
}

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Depth in plies.
    #[arg(long)]
    pub depth: u32,
    /// Print the leaf count under each legal move.
    #[arg(long)]
    pub divide: bool,
    /// Print one JSON object: nodes, depth, seconds, nodes_per_second.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// Also print the Hodges notation of each move.
    #[arg(long)]
    pub hodges: bool,
}

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Game whose initial position is shown: dai-dai or maka-dai-dai (with --position or
    /// --record it must be that position's or record's game).
    #[arg(long)]
    pub game: Option<String>,
    /// A position in RULES.md §12.2 notation or a QBoard FEN.
    #[arg(long)]
    pub position: Option<String>,
    /// A game record file (RULES.md §12.4); shows the final position and the moves.
    #[arg(long)]
    pub record: Option<std::path::PathBuf>,
    /// Also print the position as an XBoard FEN with QBoard's piece codes (for QBoard's
    /// "File > Open").
    #[arg(long)]
    pub qboard_fen: bool,
}

/// The engine behind `tengu xboard` and `tengu play`.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// A checkpoint to play with (MCTS), under any rule set of its game (a warning names the
    /// options that differ from its training rules). Default: the trained network shipped
    /// for the game (`networks/`, with the search it was measured with), else alpha-beta.
    #[arg(long, conflicts_with = "alphabeta")]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Play with alpha-beta (material and mobility, --movetime a move) instead of a network.
    #[arg(long)]
    pub alphabeta: bool,
    /// Network backend for the checkpoint or shipped network.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// MCTS visits per move (with a network); a GUI's time control still caps them.
    #[arg(long, conflicts_with = "movetime")]
    pub visits: Option<u32>,
    /// Thinking time per move in milliseconds when the GUI sets no time control.
    #[arg(long, default_value_t = 2000)]
    pub movetime: u64,
    /// Search with the `[search]` table of this run configuration (e.g. `runs/X/config.toml`
    /// or a shipped `networks/<name>.toml`). Default: the network's own, that is for a
    /// shipped network its `networks/<name>.toml`, for a checkpoint `<checkpoint name>.toml`
    /// beside it, else the `config.toml` of the run it was published in, else the built-in
    /// defaults (the engine logs which).
    #[arg(long, value_name = "TOML")]
    pub search_config: Option<std::path::PathBuf>,
    /// Add this times the material head's prediction to MCTS values (overrides the search
    /// configuration's `material_utility`).
    #[arg(long)]
    pub material_utility: Option<f32>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct XboardArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// The rule set the engine starts with (the engine options `Rules` and `Rule options`
    /// start at its preset and options, and apply to whichever game the GUI chooses): it
    /// must apply to at least one game.
    #[command(flatten)]
    pub rules: RulesArgs,
}

// `tengu play` is a game in the terminal: no GUI and no time control but --movetime.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("visits", |a| a.help("MCTS visits per move (with a network) instead of thinking for --movetime")),
    mut_arg("movetime", |a| a.help("Thinking time per move in milliseconds")),
)]
pub struct PlayArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Your side: black (moves first) or white.
    #[arg(long, default_value = "black")]
    pub color: String,
    /// Game: dai-dai or maka-dai-dai.
    #[arg(long, default_value = "dai-dai")]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Start from this position (RULES.md §12.2) instead of the initial one.
    #[arg(long)]
    pub position: Option<String>,
}

/// `tengu analyze`: the networks, their search and the caps on what one query may ask.
#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// A checkpoint to analyse its game with, under any of its rule sets (repeatable: one a
    /// rule set, read from it; a query takes the one trained under its rules, else the first
    /// of its game). Queries of a game without one use the network shipped for it
    /// (`networks/`).
    #[arg(long, value_name = "PATH")]
    pub checkpoint: Vec<std::path::PathBuf>,
    /// Network backend.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// Search with the `[search]` table of this run configuration. Default: each network's
    /// own (a shipped network's `networks/<name>.toml`, a checkpoint's `<name>.toml` beside
    /// it, else its run's `config.toml`, else the defaults), as `tengu xboard`.
    #[arg(long, value_name = "TOML")]
    pub search_config: Option<std::path::PathBuf>,
    /// Add this times the material head's prediction to the search's values (overrides the
    /// search settings' `material_utility`), 0 to 1.
    #[arg(long, value_parser = crate::ranges::real32(crate::ranges::FRACTION))]
    pub material_utility: Option<f32>,
    /// Searches run at once, each one analysed ply (the network's largest batch); the plies
    /// of further queries wait their turn. 1 to 4,096.
    #[arg(long, default_value_t = 64, value_parser = crate::ranges::whole::<usize>(1, 4096))]
    pub max_searches: usize,
    /// Most root visits a query may ask for a ply (`visits`); more is refused. 1 to
    /// 100,000,000.
    #[arg(long, default_value_t = 1_000_000, value_parser = crate::ranges::whole::<u32>(1, 100_000_000))]
    pub max_visits: u32,
    /// Most milliseconds a query may ask for a ply (`max_ms`); more is refused. 1 to
    /// 86,400,000.
    #[arg(long, default_value_t = 600_000, value_parser = crate::ranges::whole::<u64>(1, 86_400_000))]
    pub max_time_ms: u64,
    /// Most plies one query may analyse (`analyze_plies`). 1 to 100,000.
    #[arg(long, default_value_t = 10_000, value_parser = crate::ranges::whole::<usize>(1, 100_000))]
    pub max_plies: usize,
    /// Seed of the searches' random choices, for queries without their own `seed`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    pub command: BookCommand,
}

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Grow a book by search from a checkpoint (continues an existing book file).
    Build(BookBuildArgs),
    /// The book moves of a position (the start by default) with visits, W/D/L, prior and
    /// the line.
    Probe(BookProbeArgs),
    /// Write the book as JSON lines, an openings file and/or a static HTML book.
    Export(BookExportArgs),
    /// Choose balanced arena openings (expected score near 0.5, few draws, spread over
    /// plies) and write them as an openings file for `tengu match --openings`.
    Openings(BookOpeningsArgs),
    /// What a book file says about itself: game, checkpoint, search, size.
    Info(BookInfoArgs),
}

#[derive(clap::Args, Debug)]
pub struct BookBuildArgs {
    /// The checkpoint whose searches build the book.
    #[arg(long)]
    pub checkpoint: std::path::PathBuf,
    /// dai-dai or maka-dai-dai, or a game key such as `dai-dai:LO=EDO` (with --rules and
    /// --option: the checkpoint's game and rule set, which the book is marked with).
    #[arg(long)]
    pub game: String,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The book file (created, or continued when it exists).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Stop when the book holds this many positions.
    #[arg(long)]
    pub positions: Option<usize>,
    /// Stop after this many minutes of building.
    #[arg(long)]
    pub minutes: Option<f64>,
    /// Root visits of every search (two searches per new position).
    #[arg(long, default_value_t = 64)]
    pub visits: u32,
    /// Seed of the searches (a continued book keeps its own).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Save after this many expansions (and always at the end or on Ctrl-C).
    #[arg(long, default_value_t = 20)]
    pub save_every: u64,
    /// Search with the `[search]` table of this run configuration instead of the defaults
    /// (root noise is always off in book searches).
    #[arg(long)]
    pub search_config: Option<std::path::PathBuf>,
    /// Ply cap of searched games (a line reaching it is a draw).
    #[arg(long, default_value_t = 600)]
    pub max_plies: u32,
    /// Backend that runs the network.
    #[arg(long, default_value = "burn")]
    pub backend: String,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(clap::Args, Debug)]
pub struct BookProbeArgs {
    /// The book file.
    pub book: std::path::PathBuf,
    /// The position to probe (tengu text or QBoard FEN); default: the start.
    #[arg(long, conflicts_with = "moves")]
    pub position: Option<String>,
    /// Moves from the start (tengu notation) leading to the position to probe.
    #[arg(long, num_args = 1..)]
    pub moves: Vec<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BookExportArgs {
    /// The book file.
    pub book: std::path::PathBuf,
    /// Write one JSON object per position to this file.
    #[arg(long)]
    pub jsonl: Option<std::path::PathBuf>,
    /// Write every position's move list from the start to this openings file.
    #[arg(long)]
    pub openings: Option<std::path::PathBuf>,
    /// Write the static HTML book into this directory (open `index.html`).
    #[arg(long)]
    pub html: Option<std::path::PathBuf>,
    /// HTML: only positions searched with at least this many visits get a page.
    #[arg(long, default_value_t = 0)]
    pub min_visits: u32,
}

#[derive(clap::Args, Debug)]
pub struct BookOpeningsArgs {
    /// The book file.
    pub book: std::path::PathBuf,
    /// Openings wanted (fewer when not enough positions qualify).
    #[arg(long, default_value_t = 50)]
    pub count: usize,
    /// Where to write them (default: standard output).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Shortest opening line, in plies.
    #[arg(long, default_value_t = 2)]
    pub min_ply: u32,
    /// Longest opening line, in plies.
    #[arg(long, default_value_t = 24)]
    pub max_ply: u32,
    /// Largest distance of the backed-up expected score from 0.5.
    #[arg(long, default_value_t = 0.05)]
    pub max_gap: f32,
    /// Largest draw probability.
    #[arg(long, default_value_t = 0.5)]
    pub max_draw: f32,
    /// Largest standard error of the expected score.
    #[arg(long, default_value_t = 0.1)]
    pub max_err: f32,
    /// Two openings must differ on at least this many squares.
    #[arg(long, default_value_t = 2)]
    pub min_difference: usize,
}

#[derive(clap::Args, Debug)]
pub struct BookInfoArgs {
    /// The book file.
    pub book: std::path::PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengu_arena::report::MatchCommand;

    /// `tengu run` starts its matches from a typed [`MatchCommand`]: the arguments it spells
    /// must parse into the same match here.
    #[test]
    fn a_match_command_parses_into_the_match_it_describes() {
        let command = MatchCommand {
            a: "checkpoint:/runs/x/models/model-000000200.safetensors:32"
                .parse()
                .unwrap(),
            b: "alphabeta".parse().unwrap(),
            game: "maka-dai-dai".into(),
            games: 12,
            max_plies: 250,
            material_ratio: 1.5,
            contempt: 0.0,
            log: "warn".into(),
            out: Some("/runs/x/arena/model-000000200-vs-alphabeta".into()),
            search_config: Some("/runs/x/config.toml".into()),
            openings: Some("/books/balanced.txt".into()),
            backend: Some("tch-cpu".into()),
        };
        let cli =
            Cli::try_parse_from(std::iter::once("tengu".into()).chain(command.args())).unwrap();
        assert_eq!(cli.log.as_deref(), Some("warn"));
        let Command::Match(m) = cli.command else {
            panic!("not a match")
        };
        assert_eq!((m.a, m.b), (command.a.clone(), command.b.clone()));
        assert!(m.json && m.sprt.is_none());
        let s = &m.settings;
        assert_eq!(
            (s.game.as_str(), s.games, s.max_plies, s.backend.as_str()),
            ("maka-dai-dai", 12, 250, "tch-cpu")
        );
        assert_eq!((s.material_ratio, s.contempt), (1.5, 0.0));
        assert_eq!(s.out, command.out);
        assert_eq!(s.search_config, command.search_config);
        assert_eq!(s.openings, command.openings);
        // Without the optional flags, the match's own defaults.
        let bare = MatchCommand {
            out: None,
            search_config: None,
            openings: None,
            backend: None,
            ..command
        };
        let cli = Cli::try_parse_from(std::iter::once("tengu".into()).chain(bare.args())).unwrap();
        let Command::Match(m) = cli.command else {
            panic!("not a match")
        };
        assert_eq!(m.settings.backend, "burn");
        assert!(m.settings.out.is_none() && m.settings.openings.is_none());
    }
}
