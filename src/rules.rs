//! `--rules FILE` and `--option NAME=VALUE`: the rule set (RULES.md §8, docs/rules.md) a
//! command plays, turned into the game key its variant, checkpoints and files carry.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tengu_rules::ruleset::GAMES;
use tengu_rules::{RuleSet, Variant};

use crate::args::RulesArgs;

impl RulesArgs {
    /// Whether neither `--rules` nor `--option` was given.
    pub fn is_empty(&self) -> bool {
        self.rules.is_none() && self.options.is_empty()
    }

    /// The variant a command with `--game` plays: [`RulesArgs::game_key`] compiled. The one
    /// way every such command turns its flags into its game; an unknown game or a refused
    /// rule set is an error that names the flag, before the command touches any file.
    pub fn variant(&self, game: &str) -> Result<Arc<Variant>> {
        let key = self.game_key(game)?;
        match Variant::builtin(&key) {
            Some(v) => Ok(v),
            None if key.contains(':') => {
                // A key given as --game that does not compile: say why.
                let e = Variant::by_key(&key).err().map(|e| e.to_string());
                bail!(
                    "--game {key}: {}",
                    e.unwrap_or_else(|| "not a game key".into())
                )
            }
            None => bail!("unknown game {key:?}; expected dai-dai or maka-dai-dai"),
        }
    }

    /// For a command whose game is chosen later (`tengu xboard`: the GUI's `variant`): the
    /// preset and the single options (`NAME=VALUE`, in order) of the flags, the rules file
    /// first (its `preset`, then its options), then each `--option`; a `preset=` option
    /// starts over from that preset, as [`RuleSet::assign`] does. Refused unless the set
    /// applies to at least one game (the error names each game's refusal).
    pub fn preset_and_options(&self) -> Result<(String, Vec<String>)> {
        let mut preset = "default".to_string();
        let mut options = Vec::new();
        let mut assignments = Vec::new();
        if let Some(path) = &self.rules {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--rules {}: cannot read", path.display()))?;
            // Checked as a rule set of some game first, for the messages' sake.
            check_any_game(|game| {
                RuleSet::from_toml(game, &text)
                    .with_context(|| format!("--rules {}", path.display()))
            })?;
            let table: toml::Table =
                toml::from_str(&text).with_context(|| format!("--rules {}", path.display()))?;
            if let Some(p) = table.get("preset").and_then(|p| p.as_str()) {
                assignments.push(format!("preset={p}"));
            }
            for (key, value) in &table {
                if key != "preset" {
                    let value = value.as_str().unwrap_or_default();
                    assignments.push(format!("{key}={value}"));
                }
            }
        }
        for option in &self.options {
            if !option.contains('=') {
                bail!("--option {option}: expected NAME=VALUE");
            }
            assignments.push(option.trim().to_string());
        }
        for a in assignments {
            match a.split_once('=') {
                Some((name, value)) if name.trim() == "preset" => {
                    preset = value.trim().to_string();
                    options.clear();
                }
                _ => options.push(a),
            }
        }
        check_any_game(|game| {
            let mut rules = RuleSet::preset(game, &preset)?;
            for o in &options {
                rules.assign(o).with_context(|| format!("--option {o}"))?;
            }
            Ok(rules)
        })?;
        Ok((preset, options))
    }
}

/// `Ok` when `make` succeeds for at least one built-in game, else an error naming each
/// game's refusal.
fn check_any_game(make: impl Fn(&str) -> Result<RuleSet>) -> Result<()> {
    let mut refusals = Vec::new();
    for game in GAMES {
        match make(game) {
            Ok(_) => return Ok(()),
            Err(e) => refusals.push(format!("{game}: {e:#}")),
        }
    }
    bail!("the rule set applies to no game ({})", refusals.join("; "))
}

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
        assert!(
            e.contains("--option OK=XYZ") && e.contains("SRZ / WB2"),
            "{e}"
        );
        std::fs::write(&file, "OK = \"SRZ\"\nCOLOUR = \"red\"\n").unwrap();
        let e = format!(
            "{:#}",
            RulesArgs {
                rules: Some(file),
                options: vec![]
            }
            .game_key("dai-dai")
            .unwrap_err()
        );
        assert!(e.contains("COLOUR") && e.contains("valid options"), "{e}");
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn preset_and_options_follow_the_flags_in_order_and_need_a_game() {
        let args = |options: &[&str]| RulesArgs {
            rules: None,
            options: options.iter().map(|s| s.to_string()).collect(),
        };
        let (preset, options) = args(&["LO=EDO", "preset=tsa", "OK=SRZ"])
            .preset_and_options()
            .unwrap();
        // A preset starts over: the options before it are gone.
        assert_eq!(
            (preset.as_str(), options),
            ("tsa", vec!["OK=SRZ".to_string()])
        );
        let (preset, options) = RulesArgs::default().preset_and_options().unwrap();
        assert_eq!((preset.as_str(), options.len()), ("default", 0));
        // A Maka Dai Dai option with a Dai Dai one: no game has both.
        let e = format!(
            "{:#}",
            args(&["LO=EDO", "KIRIN_PHOENIX_MDD=CHU"])
                .preset_and_options()
                .unwrap_err()
        );
        assert!(
            e.contains("applies to no game")
                && e.contains("dai-dai:")
                && e.contains("maka-dai-dai:"),
            "{e}"
        );
    }
}
