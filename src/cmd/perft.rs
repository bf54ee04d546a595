use std::io::Write as _;
use std::time::Instant;

use crate::args::PerftArgs;
use crate::output::outln;
use anyhow::{bail, Result};
use tengu_rules::perft::{divide, perft};

pub fn run(args: PerftArgs) -> Result<()> {
    if args.depth > 12 {
        bail!(
            "--depth {} is beyond any useful perft of these games (at most 12)",
            args.depth
        );
    }
    let mut pos = args.position.resolve()?;
    let started = Instant::now();
    let nodes = if args.divide {
        let mut rows: Vec<(String, u64)> = divide(&mut pos, args.depth)
            .into_iter()
            .map(|(m, n)| (pos.move_text(m), n))
            .collect();
        rows.sort();
        if !args.json {
            for (m, n) in &rows {
                outln!("{m}: {n}")?;
            }
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft(&mut pos, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    };
    if args.json {
        let obj = serde_json::json!({
            "game": pos.variant().id(),
            "depth": args.depth,
            "nodes": nodes,
            "seconds": seconds,
            "nodes_per_second": nps,
        });
        outln!("{obj}")?;
    } else {
        outln!("nodes {nodes}")?;
        // Timing is a side note on stderr; a closed stderr must not fail the command.
        let _ = writeln!(
            std::io::stderr(),
            "depth {} in {seconds:.3} s, {:.0} nodes/s",
            args.depth,
            nps
        );
    }
    Ok(())
}
