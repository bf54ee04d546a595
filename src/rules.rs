//! `--rules FILE` and `--option NAME=VALUE`: the rule set (RULES.md §8, docs/rules.md) a
//! command plays, turned into the game key its variant, checkpoints and files carry.

use anyhow::{Context, Result};
use tengu_rules::RuleSet;

use crate::args::RulesArgs;

impl RulesArgs {
    /// The game key for `game` (a game id, or already a key such as `dai-dai:LO=EDO`) with
    /// the rules file applied, then each `--option` in order. Without either, `game` itself.
    pub fn game_key(&self, game: &str) -> Result<String> {
        if self.rules.is_none() && self.options.is_empty() {
            return Ok(game.to_string());
        }
        let mut rules = RuleSet::parse_canonical(game).with_context(|| format!("--game {game}"))?;
        if let Some(path) = &self.rules {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--rules {}: cannot read", path.display()))?;
            let from_file = RuleSet::from_toml(rules.game(), &text)
                .with_context(|| format!("--rules {}", path.display()))?;
            // The file's options go on top of a key given as --game.
            for (option, value) in pairs(&from_file) {
                rules.assign(&format!("{option}={value}"))?;
            }
        }
        for option in &self.options {
            rules
                .assign(option)
                .with_context(|| format!("--option {option}"))?;
        }
        Ok(rules.canonical())
    }
}

/// The `NAME=VALUE` pairs of a rule set's canonical text (its options off the defaults).
fn pairs(rules: &RuleSet) -> Vec<(String, String)> {
    let canonical = rules.canonical();
    canonical
        .split_once(':')
        .map(|(_, rest)| {
            rest.split(',')
                .filter_map(|a| a.split_once('='))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_go_on_top_of_the_file_and_errors_name_the_flag() {
        let dir = std::env::temp_dir().join(format!("tengu-rules-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rules.toml");
        std::fs::write(&file, "preset = \"tsa\"\nOK = \"SRZ\"\n").unwrap();
        let args = RulesArgs {
            rules: Some(file.clone()),
            options: vec!["LEGALITY=PSEUDO_LEGAL".into(), "NK=DEFAULT".into()],
        };
        assert_eq!(
            args.game_key("dai-dai").unwrap(),
            "dai-dai:LEGALITY=PSEUDO_LEGAL,OK=SRZ,GE=TSA,FF=TSA,LD=TSA"
        );
        let none = RulesArgs::default();
        assert_eq!(none.game_key("maka-dai-dai").unwrap(), "maka-dai-dai");
        let bad = RulesArgs {
            rules: None,
            options: vec!["OK=XYZ".into()],
        };
        let e = format!("{:#}", bad.game_key("dai-dai").unwrap_err());
        assert!(e.contains("--option OK=XYZ") && e.contains("SRZ / WB2"), "{e}");
        std::fs::write(&file, "OK = \"SRZ\"\nCOLOUR = \"red\"\n").unwrap();
        let e = format!("{:#}", RulesArgs { rules: Some(file), options: vec![] }.game_key("dai-dai").unwrap_err());
        assert!(e.contains("COLOUR") && e.contains("valid options"), "{e}");
        std::fs::remove_dir_all(dir).ok();
    }
}
