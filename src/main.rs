//! `tengu`: one binary, many subcommands (KataGo style). Each subcommand is a thin adapter
//! over the library crates; every clap type lives in `args.rs`.

mod args;
mod cmd;
mod logging;

use clap::Parser;

use args::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    logging::init(&cli.log);
    let result = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Moves(args) => cmd::moves::run(args),
        Command::Show(args) => cmd::show::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Shards(args) => cmd::shards::run(args),
        Command::Train(args) => cmd::train::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Match(args) => cmd::arena::run_match(args),
        Command::Tournament(args) => cmd::arena::run_tournament(args),
        Command::Suite(args) => cmd::suite::run(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
