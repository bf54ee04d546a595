//! The trained networks that ship inside the binary (`networks/` in the repository), so that a
//! new user plays a trained tengu at once: `tengu play` and `tengu xboard` use the one of
//! their game when no `--checkpoint` is given, and search with the settings it was measured
//! with. `networks/manifest.json` says where each came from, which rule set of its game it
//! was trained under and how strong it measured. A network plays every rule set of its game
//! ([`for_variant`] chooses among several).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use tengu_arena::ladder::RungMatch;
use tengu_rules::{RuleSet, Variant};

/// Format version of `networks/manifest.json` this build reads (2: each network names the
/// rule set it was trained under, `rules`; 3: `measured`, several sets of matches, each
/// match with the keys of `ladder.json`'s, in place of one `ladder`).
const MANIFEST_VERSION: u32 = 3;

/// `networks/manifest.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Format version of the manifest ([`MANIFEST_VERSION`]).
    pub version: u32,
    pub networks: Vec<ShippedNetwork>,
}

/// One shipped network: `networks/<name>.safetensors` and its search, `networks/<name>.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShippedNetwork {
    pub name: String,
    /// The game it plays (`dai-dai`, `maka-dai-dai`), under any of its rule sets.
    pub game: String,
    /// The game key of the rule set it was trained under (`dai-dai`; a run under the `tsa`
    /// preset: `dai-dai:GE=TSA,FF=TSA,LD=TSA,NK=SRZ`), as its checkpoint's `tengu.game`.
    pub rules: String,
    /// SHA-256 of the weights file, lowercase hex.
    pub sha256: String,
    /// Training step of the checkpoint.
    pub step: u64,
    pub rows_seen: u64,
    pub games_seen: u64,
    /// CPU-hours of self-play and training (the run's CPU ledger) that made it.
    pub cpu_hours: f64,
    /// The run configuration and run it comes from.
    pub trained_by: String,
    /// How it measured: each set of matches with the conditions they were played under.
    pub measured: Vec<ShippedMeasure>,
    pub value_loss: ValueLoss,
}

/// One set of matches a shipped network played, with the conditions of every game: a rung
/// of `tengu ladder` (`ladder.json`), or matches of `tengu match` played to the end.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShippedMeasure {
    /// Where the matches are kept, relative to the repository (a `ladder.json`, or a
    /// folder of `tengu match --out` matches).
    pub source: String,
    pub games_per_match: u32,
    /// Visits a move of the network's search.
    pub visits: u32,
    /// Safety cap on plies a game.
    pub max_plies: u32,
    /// Material adjudication (`tengu match --material-ratio`); `None`: every game played to
    /// its end or to the cap.
    pub material_ratio: Option<f64>,
    /// Both sides' contempt (`tengu match --contempt`).
    pub contempt: f64,
    /// `random:<plies>:<seed>` or `file:<hash>:<count>`.
    pub openings: String,
    /// Each match from the network's view, as `ladder.json` holds a rung's.
    pub matches: Vec<RungMatch>,
}

/// Value losses (cross-entropy over win/draw/loss, nats) when the checkpoint was published.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueLoss {
    pub training: f64,
    pub held_out: f64,
}

const MANIFEST: &str = include_str!("../networks/manifest.json");

/// The files of every shipped network: name, weights, search settings (TOML).
const FILES: &[(&str, &[u8], &str)] = &[
    (
        "dai-dai",
        include_bytes!("../networks/dai-dai.safetensors"),
        include_str!("../networks/dai-dai.toml"),
    ),
    (
        "maka-dai-dai",
        include_bytes!("../networks/maka-dai-dai.safetensors"),
        include_str!("../networks/maka-dai-dai.toml"),
    ),
];

/// One line on where a shipped network comes from and how it measured, for the log.
impl std::fmt::Display for ShippedNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (trained under {}): step {}, {:.2} CPU-hours, {} games, {} rows ({}); value loss {:.3} training, {:.3} held-out",
            self.name,
            self.rules,
            self.step,
            self.cpu_hours,
            self.games_seen,
            self.rows_seen,
            self.trained_by,
            self.value_loss.training,
            self.value_loss.held_out
        )?;
        for m in &self.measured {
            let adjudication = match m.material_ratio {
                Some(ratio) => format!("{ratio}x material"),
                None => "played to the end".to_string(),
            };
            write!(
                f,
                "; {} ({} games a match, {} visits, contempt {}, {}-ply cap, {adjudication}, openings {}):",
                m.source, m.games_per_match, m.visits, m.contempt, m.max_plies, m.openings
            )?;
            for r in &m.matches {
                let o = &r.outcome;
                let elo = |x: Option<f64>| x.map_or("?".to_string(), |e| format!("{e:+.0}"));
                write!(
                    f,
                    " vs {} {} ({:.3}, Elo {} [{}, {}], material share {:.3})",
                    r.opponent,
                    o.counts_text(),
                    o.score,
                    elo(o.elo),
                    elo(o.elo_low),
                    elo(o.elo_high),
                    o.material_share
                )?;
            }
        }
        Ok(())
    }
}

/// A shipped network with its files.
pub struct Shipped {
    pub info: ShippedNetwork,
    weights: &'static [u8],
    search_toml: &'static str,
}

/// The manifest of the shipped networks.
pub fn manifest() -> Result<Manifest> {
    let manifest: Manifest =
        serde_json::from_str(MANIFEST).context("networks/manifest.json in this build")?;
    if manifest.version != MANIFEST_VERSION {
        bail!(
            "networks/manifest.json: version {} (this build reads {MANIFEST_VERSION})",
            manifest.version
        );
    }
    Ok(manifest)
}

/// The network `variant` is played with, of those in `networks`: one of its game trained
/// under its rule set, else the one whose training rules differ from its rules in the
/// fewest options; the earlier in the manifest among equals.
fn choose<'a>(networks: &'a [ShippedNetwork], variant: &Variant) -> Option<&'a ShippedNetwork> {
    let playing = RuleSet::parse_canonical(variant.id()).ok();
    let distance = |n: &ShippedNetwork| -> usize {
        if n.rules == variant.id() {
            return 0;
        }
        let differences = RuleSet::parse_canonical(&n.rules)
            .ok()
            .zip(playing.as_ref())
            .and_then(|(trained, playing)| trained.differences(playing));
        // A key this build cannot read ranks after every readable one.
        differences.map_or(usize::MAX, |d| d.len().max(1))
    };
    networks
        .iter()
        .filter(|n| n.game == variant.game())
        .min_by_key(|n| distance(n))
}

/// The shipped network `variant` plays with: of its game, under any rule set (see
/// [`choose`]), if there is one.
pub fn for_variant(variant: &Variant) -> Result<Option<Shipped>> {
    let manifest = manifest()?;
    let Some(info) = choose(&manifest.networks, variant).cloned() else {
        return Ok(None);
    };
    let Some(&(_, weights, search_toml)) = FILES.iter().find(|(name, ..)| *name == info.name)
    else {
        bail!(
            "networks/manifest.json names {:?}, but this build carries no networks/{}.safetensors",
            info.name,
            info.name
        );
    };
    Ok(Some(Shipped {
        info,
        weights,
        search_toml,
    }))
}

impl Shipped {
    /// The network as a checkpoint file, since checkpoints load from files:
    /// `<tengu cache>/networks/<name>-<first 16 hex digits of SHA-256>.safetensors`, with its
    /// search settings beside it as `<same name>.toml` (where every checkpoint player looks
    /// for its own, see `cmd::CheckpointSearch::Own`). Both are written when missing or
    /// different (atomically); the weights are checked against the manifest's SHA-256 first.
    pub fn file(&self) -> Result<PathBuf> {
        let found = tengu_store::checkpoint::sha256_hex(self.weights);
        if found != self.info.sha256 {
            bail!(
                "the shipped network {} has SHA-256 {found}, but networks/manifest.json says {}",
                self.info.name,
                self.info.sha256
            );
        }
        let path = tengu_store::checkpoint::cache_root()
            .join("networks")
            .join(format!("{}-{}.safetensors", self.info.name, &found[..16]));
        write_if_different(&path, self.weights)?;
        write_if_different(&path.with_extension("toml"), self.search_toml.as_bytes())?;
        Ok(path)
    }
}

/// Writes `bytes` to `path` (creating its folder) unless the file already holds them.
fn write_if_different(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|current| current == bytes) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir)
        .and_then(|()| tengu_store::atomic::write_atomic(path, bytes))
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every manifest entry has its files in the build, the weights match the manifest's hash,
    /// step and game, and the search settings parse.
    #[test]
    fn every_shipped_network_loads_and_matches_its_manifest() {
        let manifest = manifest().unwrap();
        assert!(!manifest.networks.is_empty());
        assert_eq!(manifest.networks.len(), FILES.len());
        let cache = tempfile::tempdir().unwrap();
        std::env::set_var("TENGU_CACHE", cache.path());
        for info in &manifest.networks {
            // Every rule set of its game finds it: the default, each preset.
            let game = Variant::builtin(&info.game).unwrap();
            let shipped = for_variant(&game).unwrap().unwrap();
            assert_eq!(shipped.info.name, info.name);
            for preset in tengu_rules::ruleset::PRESETS {
                let rules = RuleSet::preset(&info.game, preset.name).unwrap();
                let variant = Variant::by_key(&rules.canonical()).unwrap();
                let found = for_variant(&variant).unwrap().unwrap();
                assert_eq!(found.info.name, info.name, "{}", variant.id());
            }
            let path = shipped.file().unwrap();
            let search = crate::cmd::search_config(Some(&path.with_extension("toml"))).unwrap();
            let line = shipped.info.to_string();
            assert!(line.contains(&format!("step {}", info.step)), "{line}");
            assert!(search.visits > 0);
            assert_eq!(std::fs::read(&path).unwrap(), shipped.weights);
            let variant = tengu_rules::Variant::builtin(&info.game).unwrap();
            let (_, meta) = tengu_model::Backend::Burn
                .load_evaluator(&path, &variant)
                .unwrap();
            assert_eq!(meta.step, info.step, "{}", info.name);
            // The manifest's rule set is the one the checkpoint says it was trained under.
            assert_eq!(meta.game, info.rules, "{}", info.name);
            assert_eq!(tengu_model::checkpoint::game_of(&info.rules), info.game);
            // A damaged cache file is replaced, not used.
            std::fs::write(&path, b"damaged").unwrap();
            assert_eq!(
                std::fs::read(shipped.file().unwrap()).unwrap(),
                shipped.weights
            );
        }
    }

    /// Each measure holds the matches kept at its source: the rung of the network's step in
    /// a `ladder.json` (under the same conditions), or the match of a `tengu match --out`
    /// folder, summarised again from its games.
    #[test]
    fn every_measure_agrees_with_the_matches_it_names() {
        use tengu_arena::{outcome::MatchOutcome, results};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for info in manifest().unwrap().networks {
            assert!(!info.measured.is_empty(), "{}", info.name);
            for m in &info.measured {
                let path = root.join(&m.source);
                let context = format!("{}: {}", info.name, m.source);
                if path.is_dir() {
                    let folder = results::read_folder(&path).unwrap();
                    let summary = results::pool(&[folder], false).unwrap();
                    assert_eq!(m.matches.len(), 1, "{context}");
                    assert_eq!(
                        m.matches[0].outcome,
                        MatchOutcome::new(&summary),
                        "{context}"
                    );
                    assert_eq!(
                        u64::from(m.games_per_match),
                        summary.score.games(),
                        "{context}"
                    );
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let report = tengu_run::records::read_ladder(&m.source, &text).unwrap();
                let rung = report.rungs.iter().find(|r| r.rung.step == info.step);
                let rung =
                    rung.unwrap_or_else(|| panic!("{context}: no rung at step {}", info.step));
                assert_eq!(rung.matches, m.matches, "{context}");
                assert_eq!(
                    u64::from(m.games_per_match),
                    report.games_per_match,
                    "{context}"
                );
                assert_eq!(
                    (m.visits, m.max_plies),
                    (report.visits, report.max_plies),
                    "{context}"
                );
                assert_eq!(m.openings, report.openings, "{context}");
                assert_eq!(
                    m.material_ratio,
                    report.material_ratio.map(f64::from),
                    "{context}"
                );
                assert!(
                    (m.contempt - f64::from(report.contempt)).abs() < 1e-6,
                    "{context}"
                );
            }
        }
    }

    /// Of several networks of a game, the one trained under the playing rule set is chosen,
    /// else the nearest (fewest differing options), else the first; another game's never.
    #[test]
    fn the_network_of_the_playing_rule_set_is_preferred() {
        let manifest = manifest().unwrap();
        let base = manifest.networks[0].clone();
        assert_eq!(base.game, "dai-dai");
        let trained = |name: &str, rules: &str| ShippedNetwork {
            name: name.into(),
            rules: rules.into(),
            ..base.clone()
        };
        let tsa = RuleSet::preset("dai-dai", "tsa").unwrap().canonical();
        let networks = vec![
            trained("default", "dai-dai"),
            trained("tsa", &tsa),
            trained("ld", "dai-dai:LD=TSA"),
        ];
        let pick =
            |key: &str| choose(&networks, &Variant::by_key(key).unwrap()).map(|n| n.name.clone());
        assert_eq!(pick("dai-dai").as_deref(), Some("default"));
        assert_eq!(pick(&tsa).as_deref(), Some("tsa"));
        assert_eq!(pick("dai-dai:LD=TSA").as_deref(), Some("ld"));
        // LD=TSA,FF=TSA: one option from `ld`, two from `tsa` and from the default.
        assert_eq!(pick("dai-dai:FF=TSA,LD=TSA").as_deref(), Some("ld"));
        assert_eq!(pick("dai-dai:LO=EDO").as_deref(), Some("default"));
        assert_eq!(pick("maka-dai-dai"), None);
    }
}
