//! `tengu`: one binary, many subcommands (KataGo style). Each subcommand is a thin adapter
//! over the library crates; every clap type lives in `args.rs`. The binary (`main.rs`) only
//! calls [`main`]; the crate is a library too so that the fuzz targets of [`fuzz`] reach the
//! doors that live here (`tengu serve`'s router, `tengu analyze`'s queries).
// Standard output goes through `output::outln!`, which returns errors (see output.rs).
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod cmd;
mod config;
mod logging;
mod networks;
mod output;
mod ranges;
mod rules;
mod tensorboard;

pub mod fuzz;

use std::io::Write;

use clap::{CommandFactory, FromArgMatches};

use args::{Cli, Command};

/// The `tengu` command line: parses the arguments, runs the subcommand, exits non-zero with
/// the error on failure.
pub fn main() {
    // `tengu --version` names the rules version too.
    let version: &'static str = Box::leak(
        format!(
            "{} (RULES.md v{})",
            env!("CARGO_PKG_VERSION"),
            tengu_rules::RULES_VERSION
        )
        .into_boxed_str(),
    );
    let cli = Cli::command().version(version).get_matches();
    let cli = Cli::from_arg_matches(&cli).unwrap_or_else(|e| e.exit());
    let filter = cli
        .log
        .clone()
        .unwrap_or_else(|| cli.command.default_log().to_string());
    if let Err(e) = logging::init(&filter) {
        let _ = writeln!(std::io::stderr(), "error: {e}");
        std::process::exit(2);
    }
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
        Command::Results(args) => cmd::arena::run_results(args),
        Command::Tournament(args) => cmd::arena::run_tournament(args),
        Command::Ladder(args) => cmd::ladder::run(args),
        Command::Tensorboard(args) => cmd::tensorboard::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Suite(args) => cmd::suite::run(args),
        Command::Xboard(args) => cmd::xboard::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Analyze(args) => cmd::analyze::run(args),
        Command::Book(args) => cmd::book::run(args),
    };
    if let Err(e) = result {
        // The reader of our output went away (`tengu ... | head`): nothing left to say.
        if output::is_broken_pipe(&e) {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "error: {}", output::error_text(&e));
        std::process::exit(1);
    }
}
