//! Checkpoints: network weights in safetensors with the metadata needed to use them safely
//! (encoder version, game, architecture, training step, parent checkpoint).
//!
//! The metadata lives in the safetensors header (`__metadata__`), so one file is the whole
//! checkpoint and any safetensors reader (the tch backend included) can read it.

use std::collections::HashMap;
use std::path::Path;

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;

use crate::desc::NetConfig;
use crate::encoder::{PlanesError, ENCODER_VERSION};
use crate::evaluator::{BackendError, EvalError};
use crate::net::Net;

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointMeta {
    pub encoder_version: u32,
    /// Game key: the game id (`dai-dai`, `maka-dai-dai`) under RULES.md's defaults, else its
    /// rule set's canonical text (`dai-dai:LO=EDO`, [`tengu_rules::Variant::id`]).
    pub game: String,
    pub config: NetConfig,
    /// Optimizer steps the weights have been trained for.
    pub step: u64,
    /// File name of the checkpoint this one was trained from, if any.
    pub parent: Option<String>,
}

/// A checkpoint that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a tengu checkpoint: {problem}")]
    Format { path: String, problem: String },
    #[error("{path}: written by encoder version {found}, this build uses {expected}")]
    EncoderVersion {
        path: String,
        found: u32,
        expected: u32,
    },
    /// A checkpoint of another game (another rule set of the same game loads, see
    /// [`OtherRules`]). `found` and `expected` are game keys.
    #[error("{path}: a checkpoint of {found_game} ({found}), but the game is {expected_game} ({expected}): a network plays only the game it was trained for")]
    WrongGame {
        path: String,
        found: String,
        expected: String,
        found_game: String,
        expected_game: String,
    },
    /// The file is shorter than its own header says: an interrupted write, copy or download.
    #[error("{path}: truncated: {found} bytes, but its header describes {expected} (an interrupted copy or download?)")]
    Truncated {
        path: String,
        expected: u64,
        found: u64,
    },
    #[error("{path}: weights do not fit the architecture: {problem}")]
    Weights { path: String, problem: String },
    /// An architecture whose input planes fit no encoder layout of the game.
    #[error("{path}: {source}")]
    Planes { path: String, source: PlanesError },
    /// The backend asked to load it cannot run in this build or on this machine.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The weights were read, but the evaluator over them could not be built (a tensor
    /// library's failure, not the file's).
    #[error("{path}: {source}")]
    Evaluator { path: String, source: EvalError },
}

impl CheckpointError {
    /// The error of building an evaluator over the weights of `path`: layers that do not
    /// match the architecture are the file's fault ([`CheckpointError::Weights`]), a
    /// backend this build or machine lacks is [`CheckpointError::Backend`], anything else
    /// the evaluator's.
    pub fn of_evaluator(path: &Path, error: EvalError) -> CheckpointError {
        match error {
            EvalError::Architecture(problem) => CheckpointError::Weights {
                path: path.display().to_string(),
                problem,
            },
            EvalError::Unavailable(e) => CheckpointError::Backend(e),
            source => CheckpointError::Evaluator {
                path: path.display().to_string(),
                source,
            },
        }
    }
}

impl CheckpointMeta {
    fn to_map(&self) -> Vec<(String, String)> {
        let c = &self.config;
        let mut v = vec![
            (
                "tengu.encoder_version".into(),
                self.encoder_version.to_string(),
            ),
            ("tengu.game".into(), self.game.clone()),
            // The rule set's stable hash beside its text (RULES.md §8, docs/rules.md).
            ("tengu.rules_hash".into(), rules_hash(&self.game)),
            ("tengu.step".into(), self.step.to_string()),
            ("tengu.net.planes".into(), c.planes.to_string()),
            ("tengu.net.size".into(), c.size.to_string()),
            ("tengu.net.blocks".into(), c.blocks.to_string()),
            ("tengu.net.channels".into(), c.channels.to_string()),
            ("tengu.net.head_dim".into(), c.head_dim.to_string()),
            (
                "tengu.net.value_channels".into(),
                c.value_channels.to_string(),
            ),
        ];
        if let Some(p) = &self.parent {
            v.push(("tengu.parent".into(), p.clone()));
        }
        v
    }

    fn from_map(
        path: &str,
        map: &HashMap<String, String>,
    ) -> Result<CheckpointMeta, CheckpointError> {
        let get = |k: &str| {
            map.get(k).ok_or_else(|| CheckpointError::Format {
                path: path.into(),
                problem: format!("metadata key {k} missing"),
            })
        };
        let num = |k: &str| -> Result<u64, CheckpointError> {
            get(k)?.parse().map_err(|_| CheckpointError::Format {
                path: path.into(),
                problem: format!("metadata {k} is not a number"),
            })
        };
        if let Some(hash) = map.get("tengu.rules_hash") {
            let game = get("tengu.game")?;
            if *hash != rules_hash(game) {
                return Err(CheckpointError::Format {
                    path: path.into(),
                    problem: format!(
                        "metadata tengu.rules_hash {hash} is not the hash of the rule set {game} ({})",
                        rules_hash(game)
                    ),
                });
            }
        }
        Ok(CheckpointMeta {
            encoder_version: num("tengu.encoder_version")? as u32,
            game: get("tengu.game")?.clone(),
            step: num("tengu.step")?,
            parent: map.get("tengu.parent").cloned(),
            config: NetConfig::new(
                num("tengu.net.planes")? as usize,
                num("tengu.net.size")? as usize,
                num("tengu.net.blocks")? as usize,
                num("tengu.net.channels")? as usize,
            )
            .with_head_dim(num("tengu.net.head_dim")? as usize)
            .with_value_channels(num("tengu.net.value_channels")? as usize),
        })
    }
}

/// [`tengu_rules::RuleSet::hash_hex`] of a game key (a key that names no rule set hashes as
/// its text: the hash is of the canonical text either way).
fn rules_hash(game: &str) -> String {
    tengu_rules::RuleSet::parse_canonical(game)
        .map(|r| r.hash_hex())
        .unwrap_or_else(|_| tengu_rules::RuleSet::default_for(game).hash_hex())
}

/// `text` with the regex metacharacters of a layer name escaped (its dots).
fn regex_text(text: &str) -> String {
    text.replace('.', "\\.")
}

/// Writes `net` with `meta` to `path` (atomically: `tengu_store::atomic`, a hidden
/// temporary name beside it, synced, then renamed).
pub fn save(net: &Net, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError> {
    let shown = path.display().to_string();
    let io = |source| CheckpointError::Io {
        path: shown.clone(),
        source,
    };
    tengu_store::atomic::write_atomic_with(
        path,
        |tmp| {
            let mut store = SafetensorsStore::from_file(tmp).overwrite(true);
            // The heads by their layer names (`residual.weight`), not their list places.
            for (module, layer) in Net::checkpoint_names() {
                store = store
                    .with_key_remapping(format!("^{}", regex_text(&module)), format!("{layer}."));
            }
            for (k, v) in meta.to_map() {
                store = store.metadata(k, v);
            }
            net.save_into(&mut store)
                .map_err(|e| CheckpointError::Weights {
                    path: shown.clone(),
                    problem: e.to_string(),
                })
        },
        io,
    )
}

/// Writes a safetensors file by hand (8-byte header length, JSON header with `__metadata__`,
/// little-endian f32 data), atomically through a temporary name. Used by backends without
/// a safetensors writer that keeps metadata.
pub fn write_safetensors(
    path: &Path,
    meta: &CheckpointMeta,
    tensors: &[(String, Vec<i64>, Vec<f32>)],
) -> Result<(), CheckpointError> {
    let shown = path.display().to_string();
    let mut header = serde_json::Map::new();
    let mut metadata = serde_json::Map::new();
    for (k, v) in meta.to_map() {
        metadata.insert(k, serde_json::Value::String(v));
    }
    header.insert("__metadata__".into(), serde_json::Value::Object(metadata));
    let mut offset = 0usize;
    for (name, shape, data) in tensors {
        let end = offset + 4 * data.len();
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [offset, end]}),
        );
        offset = end;
    }
    let mut json = serde_json::to_vec(&serde_json::Value::Object(header))
        .expect("JSON of strings and numbers");
    while !json.len().is_multiple_of(8) {
        json.push(b' ');
    }
    let mut bytes = Vec::with_capacity(8 + json.len() + offset);
    bytes.extend_from_slice(&(json.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&json);
    for (_, _, data) in tensors {
        for x in data {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    tengu_store::atomic::write_atomic(path, &bytes).map_err(|source| CheckpointError::Io {
        path: shown,
        source,
    })
}

/// Reads only the metadata of a checkpoint (the safetensors header).
pub fn read_meta(path: &Path) -> Result<CheckpointMeta, CheckpointError> {
    use std::io::Read;
    let shown = path.display().to_string();
    let io = |source| CheckpointError::Io {
        path: shown.clone(),
        source,
    };
    let format = |problem: String| CheckpointError::Format {
        path: shown.clone(),
        problem,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    let truncated = |expected: u64| CheckpointError::Truncated {
        path: shown.clone(),
        expected,
        found: file_len,
    };
    let mut len = [0u8; 8];
    file.read_exact(&mut len)
        .map_err(|_| format("shorter than a safetensors header".into()))?;
    let len = u64::from_le_bytes(len);
    if len > 100 << 20 {
        return Err(format(format!("header of {len} bytes")));
    }
    if file_len < 8 + len {
        return Err(truncated(8 + len));
    }
    let mut header = vec![0u8; len as usize];
    file.read_exact(&mut header).map_err(io)?;
    let json: serde_json::Value =
        serde_json::from_slice(&header).map_err(|e| format(format!("header is not JSON: {e}")))?;
    // Every tensor's bytes must be there: a cut-off file otherwise fails later, deep in a
    // backend's loader, with a message about shapes.
    let data_end = json
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, t)| t.get("data_offsets")?.get(1)?.as_u64())
        .max()
        .unwrap_or(0);
    if file_len < 8 + len + data_end {
        return Err(truncated(8 + len + data_end));
    }
    let meta = json
        .get("__metadata__")
        .and_then(|m| m.as_object())
        .ok_or_else(|| format("no __metadata__ in the header".into()))?;
    let map: HashMap<String, String> = meta
        .iter()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
        .collect();
    CheckpointMeta::from_map(&shown, &map)
}

/// The game of a game key: `dai-dai` of `dai-dai:LD=TSA` ([`tengu_rules::RuleSet::game`];
/// a key that names no rule set of this build is read up to its `:`).
pub fn game_of(key: &str) -> String {
    tengu_rules::RuleSet::parse_canonical(key)
        .map(|r| r.game().to_string())
        .unwrap_or_else(|_| key.split(':').next().unwrap_or(key).to_string())
}

/// Reads the metadata of a checkpoint that must be of this encoder version and of `game`'s
/// game, under any of its rule sets (`game` is a game key; [`OtherRules`] says how the
/// checkpoint's training rules differ). The metadata is as stored.
pub fn read_meta_for(path: &Path, game: &str) -> Result<CheckpointMeta, CheckpointError> {
    let shown = path.display().to_string();
    let meta = read_meta(path)?;
    if meta.encoder_version != ENCODER_VERSION {
        return Err(CheckpointError::EncoderVersion {
            path: shown,
            found: meta.encoder_version,
            expected: ENCODER_VERSION,
        });
    }
    let (found_game, expected_game) = (game_of(&meta.game), game_of(game));
    if found_game != expected_game {
        return Err(CheckpointError::WrongGame {
            path: shown,
            found: meta.game,
            expected: game.into(),
            found_game,
            expected_game,
        });
    }
    Ok(meta)
}

/// A checkpoint loaded under another rule set of its game than the one it was trained
/// under: the options in which they differ, and the map of its input planes when the piece
/// types differ too. Its [`Display`](std::fmt::Display) is the warning every loader gives
/// ([`OtherRules::warn_once`]).
///
/// The policy scores every move of every rule set: a move's slot is its from-square,
/// to-square and capture pattern ([`crate::policy`]), whatever piece makes it, so a move
/// only the playing rules allow (a Great Elephant's third forward diagonal square under
/// `GE=TSA`) gets the network's own logit for that slot, a prior the network never trained
/// (docs/network.md, "Other rule sets of the game").
#[derive(Clone, Debug, PartialEq)]
pub struct OtherRules {
    /// The checkpoint, as given.
    pub path: String,
    /// Game key of the rules it was trained under (its `tengu.game`).
    pub trained: String,
    /// Game key of the rules it plays under.
    pub playing: String,
    /// The options that differ, playing value against trained value.
    pub differences: Vec<tengu_rules::RuleDifference>,
    /// How its input planes are read under the playing rules, when their piece types
    /// differ from the training rules'.
    pub planes: Option<crate::encoder::PlaneMap>,
}

impl OtherRules {
    /// How the checkpoint at `path` with metadata `meta` as stored (of `game`'s game: see
    /// [`read_meta_for`]) relates to the rule set of game key `game`; `None` when it was
    /// trained under that rule set. An error when its planes fit no layout of its own rules.
    pub fn of(
        path: &Path,
        meta: &CheckpointMeta,
        game: &str,
    ) -> Result<Option<OtherRules>, CheckpointError> {
        if meta.game == game {
            return Ok(None);
        }
        let shown = path.display().to_string();
        let rules = |key: &str| tengu_rules::RuleSet::parse_canonical(key).ok();
        let differences = match (rules(&meta.game), rules(game)) {
            (Some(a), Some(b)) => a.differences(&b).unwrap_or_default(),
            _ => Vec::new(),
        };
        // Piece types: only built-in games have rule sets to compare.
        let planes = match (
            tengu_rules::Variant::builtin(&meta.game),
            tengu_rules::Variant::builtin(game),
        ) {
            (Some(trained), Some(playing)) => {
                crate::encoder::PlaneMap::between(&trained, &playing, meta.config.planes).map_err(
                    |source| CheckpointError::Planes {
                        path: shown.clone(),
                        source,
                    },
                )?
            }
            _ => None,
        };
        Ok(Some(OtherRules {
            path: shown,
            trained: meta.game.clone(),
            playing: game.to_string(),
            differences,
            planes,
        }))
    }

    /// [`OtherRules::of`] the checkpoint at `path`, its metadata read for the game key `game`.
    pub fn of_file(path: &Path, game: &str) -> Result<Option<OtherRules>, CheckpointError> {
        let meta = read_meta_for(path, game)?;
        OtherRules::of(path, &meta, game)
    }

    /// The input planes the network takes under the playing rules.
    pub fn planes_under(&self, trained_planes: usize) -> usize {
        self.planes
            .as_ref()
            .map_or(trained_planes, |m| m.source.len())
    }

    /// Logs [`OtherRules`]'s text as a warning, once per process for each checkpoint and
    /// playing rule set (a tournament loads a player for every game).
    pub fn warn_once(&self) {
        use std::sync::{Mutex, OnceLock};
        static WARNED: OnceLock<Mutex<std::collections::HashSet<(String, String)>>> =
            OnceLock::new();
        let first = WARNED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((self.path.clone(), self.playing.clone()));
        if first {
            tracing::warn!("{self}");
        }
    }
}

impl std::fmt::Display for OtherRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = std::path::Path::new(&self.path)
            .file_name()
            .map_or(self.path.clone(), |n| n.to_string_lossy().into_owned());
        write!(
            f,
            "{name} was trained under the rules {} and plays under {}",
            self.trained, self.playing
        )?;
        if !self.differences.is_empty() {
            let list: Vec<String> = self.differences.iter().map(|d| d.to_string()).collect();
            write!(f, "; they differ in {}", list.join(", "))?;
        }
        write!(
            f,
            ". A move its training rules do not allow gets the policy's own prior for its slot, \
             never trained (docs/network.md, \"Other rule sets of the game\")"
        )?;
        if self.differences.iter().any(|d| d.to == "TWO_CAPTURES") {
            write!(
                f,
                "; a hook's capture on its turn has no slot of its own: such a move is scored \
                 as the same path without that capture"
            )?;
        }
        if let Some(map) = &self.planes {
            if !map.borrowed.is_empty() {
                let list: Vec<String> = map
                    .borrowed
                    .iter()
                    .map(|(t, as_)| format!("{t} as {as_}"))
                    .collect();
                write!(f, "; it reads {}", list.join(", "))?;
            }
            if !map.unseen.is_empty() {
                write!(
                    f,
                    "; it does not see {} (no input plane)",
                    map.unseen.join(", ")
                )?;
            }
        }
        Ok(())
    }
}

/// Loads a checkpoint for the game key `game`, refusing another game or encoder version.
/// Under another rule set of its game it loads with [`OtherRules`]'s warning (once), its
/// input planes mapped to the playing rules' layout where their piece types differ; the
/// metadata returned is as stored but for `config.planes`, which is the layout it now
/// reads.
pub fn load(
    path: &Path,
    game: &str,
    device: &Device,
) -> Result<(Net, CheckpointMeta), CheckpointError> {
    let shown = path.display().to_string();
    let mut meta = read_meta_for(path, game)?;
    let other = OtherRules::of(path, &meta, game)?;
    let mut net = meta.config.init(device);
    // Partial: the missing tensors come back in the result, checked below.
    let mut store = SafetensorsStore::from_file(path).allow_partial(true);
    for (module, layer) in Net::checkpoint_names() {
        store = store.with_key_remapping(format!("^{}\\.", regex_text(layer)), module);
    }
    let result = net
        .load_from(&mut store)
        .map_err(|e| CheckpointError::Weights {
            path: shown.clone(),
            problem: e.to_string(),
        })?;
    // A head added after the file was written starts at zero (its new-network value), so
    // the checkpoint plays exactly as before.
    // Named as in the file (`value_fc2.weight`), not by the module's list places.
    let missing: Vec<String> = result
        .missing
        .iter()
        .map(|(name, _)| Net::checkpoint_name(name))
        .filter(|name| !crate::desc::added_later(name))
        .collect();
    if !result.errors.is_empty() || !missing.is_empty() {
        return Err(CheckpointError::Weights {
            path: shown,
            problem: format!("errors {:?}, missing {:?}", result.errors, missing),
        });
    }
    if let Some(other) = &other {
        other.warn_once();
        if let Some(map) = &other.planes {
            net = net
                .with_input_planes(&map.source)
                .map_err(|e| CheckpointError::Weights {
                    path: shown.clone(),
                    problem: e.to_string(),
                })?;
            meta.config.planes = map.source.len();
        }
    }
    Ok((net.with_stable_ids(), meta))
}
