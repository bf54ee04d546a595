//! Runs every case of `rules/tests/data/*.perft` (RULES.md Appendix B and C, and the
//! constructed positions of both games) through the fast move generator.

mod common;

use tengu_rules::perft::perft;
use tengu_rules::Position;

#[test]
fn every_perft_case_matches() {
    let cases = common::perft_cases();
    assert!(
        cases.len() >= 100,
        "the data files hold {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let mut pos = Position::parse(&case.position)
            .unwrap_or_else(|e| panic!("{}:{}: invalid position: {e}", case.file, case.line));
        let nodes = perft(&mut pos, case.depth);
        if nodes != case.nodes {
            failures.push(format!(
                "{}:{}: depth {}: expected {}, got {nodes}",
                case.file, case.line, case.depth, case.nodes
            ));
        }
        assert_eq!(
            pos.to_string(),
            case.position,
            "perft must leave the position unchanged"
        );
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn data_files_cover_both_games_with_twenty_constructed_positions_each() {
    let cases = common::perft_cases();
    for (file, size) in [("dai-dai.perft", 17), ("maka-dai-dai.perft", 19)] {
        let positions: std::collections::BTreeSet<&str> = cases
            .iter()
            .filter(|c| c.file == file)
            .map(|c| c.position.as_str())
            .collect();
        assert!(
            positions.len() >= 20,
            "{file} has {} positions",
            positions.len()
        );
        for p in positions {
            assert_eq!(Position::parse(p).unwrap().size(), size, "{file}: {p}");
        }
    }
}
