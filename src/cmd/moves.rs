use crate::args::MovesArgs;
use crate::output::outln;
use anyhow::Result;

pub fn run(args: MovesArgs) -> Result<()> {
    let pos = args.position.resolve()?;
    let mut lines: Vec<String> = pos
        .legal_move_list()
        .into_iter()
        .map(|m| {
            if args.hodges {
                format!("{} {}", pos.move_text(m), pos.hodges(m))
            } else {
                pos.move_text(m)
            }
        })
        .collect();
    lines.sort();
    for l in lines {
        outln!("{l}")?;
    }
    Ok(())
}
