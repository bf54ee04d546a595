//! `tengu`: one binary, many subcommands (KataGo style). Each subcommand is a thin adapter
//! over the library crates.

mod cmd;
mod logging;

use clap::{Parser, Subcommand};

/// Self-play reinforcement learning for Dai Dai Shogi and Maka Dai Dai Shogi.
#[derive(Parser)]
#[command(name = "tengu", version, about)]
struct Cli {
    /// Log level filter (error, warn, info, debug, trace or a tracing directive).
    #[arg(long, global = true, default_value = "info")]
    log: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (move generator test and benchmark).
    Perft(cmd::perft::PerftArgs),
    /// List the legal moves of a position in coordinate notation, sorted.
    Moves(cmd::moves::MovesArgs),
    /// Print a readable board for a position or a game record.
    Show(cmd::show::ShowArgs),
}

fn main() {
    let cli = Cli::parse();
    logging::init(&cli.log);
    let result = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Moves(args) => cmd::moves::run(args),
        Command::Show(args) => cmd::show::run(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
