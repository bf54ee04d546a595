//! The network description every implementation reads (KataGo's `desc.h`): burn
//! ([`crate::net`], [`crate::burn_eval`]), tch (`tch_net`, `cuda` feature), candle
//! (`candle_eval`, `candle` feature) and tengu's CPU kernels ([`crate::cpu_net`],
//! [`crate::cpu_eval`]). No tensor library appears here.
//!
//! * the architecture: [`NetConfig`] and its size presets ([`preset_shape`]);
//! * the counts the encoder and the policy index share with the networks: input planes of
//!   each layout ([`plane_count`]), policy codes ([`CODES`]);
//! * the heads' sizes: [`AUX_HORIZONS`], [`OCCUPANCY_CLASSES`], [`VALUE_HIDDEN`], and the
//!   scale of the material head and planes ([`MATERIAL_SCALE`]);
//! * the names and shapes of the weights in a safetensors checkpoint
//!   ([`parameter_shapes`]: burn's module names, which every backend reads and writes);
//! * the trained heads as data ([`HEADS`]: layer, output size, loss kind, target, weight);
//! * training: [`TrainExample`] and its [`RowTargets`], [`LossWeights`], [`Losses`].
//!
//! Dependencies inside the crate run one way: this module imports none of the others; the
//! encoder and the policy index import this one; the networks, evaluators and checkpoints
//! import those.
//!
//! The description of the `tiny` preset for Dai Dai Shogi, and the shapes of its heads'
//! weights in a checkpoint:
//!
//! ```
//! use tengu_model::desc::{parameter_shapes, HeadInput, NetConfig, HEADS, VALUE_HIDDEN};
//! use tengu_model::Encoder;
//! use tengu_rules::Variant;
//!
//! let variant = Variant::dai_dai();
//! let planes = Encoder::new(&variant).planes();
//! let config = NetConfig::from_preset("tiny", planes, variant.size()).unwrap();
//! assert_eq!((config.blocks, config.channels, config.size), (2, 16, 17));
//!
//! let shapes = parameter_shapes(&config);
//! let shape = |name: &str| shapes.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone());
//! // The stem: a 1x1 convolution from the input planes to the tower's channels.
//! assert_eq!(shape("stem.weight"), Some(vec![16, planes as i64, 1, 1]));
//! for head in HEADS {
//!     let outputs = head.outputs as i64;
//!     let weight = match head.input {
//!         // A 1x1 convolution on the tower: `[outputs, C, 1, 1]`.
//!         HeadInput::Squares | HeadInput::SquaresSummed => vec![outputs, 16, 1, 1],
//!         // A linear layer on the value trunk's hidden layer: `[VALUE_HIDDEN, outputs]`.
//!         HeadInput::ValueHidden => vec![VALUE_HIDDEN as i64, outputs],
//!     };
//!     assert_eq!(shape(&format!("{}.weight", head.layer)), Some(weight), "{}", head.layer);
//!     assert_eq!(shape(&format!("{}.bias", head.layer)), Some(vec![outputs]));
//! }
//! // A preset outside the size limits is refused, saying why.
//! assert!(NetConfig::from_preset("b99c16", planes, 17).is_err());
//! ```

use tengu_rules::{Move, Position};

// ---------------------------------------------------------------------------------------
// Size presets

/// Named presets: `tiny` for tests, `cpu` the embedded CPU default (at least 500 Dai Dai
/// positions/s at batch 64 with burn-flex on 2 cores; see `tengu bench nn`), `gpu` the
/// default for CUDA machines.
pub const PRESET_ALIASES: [(&str, &str); 3] =
    [("tiny", "b2c16"), ("cpu", "b4c32"), ("gpu", "b10c128")];

/// Residual blocks and channels a size preset may have.
pub const PRESET_BLOCKS: std::ops::RangeInclusive<usize> = 1..=40;
pub const PRESET_CHANNELS: std::ops::RangeInclusive<usize> = 8..=512;

/// A network size preset that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PresetError {
    #[error(
        "unknown preset {name:?}: expected {}, or b<blocks>c<channels> (e.g. b4c32)",
        known_presets()
    )]
    Unknown { name: String },
    #[error(
        "preset {name:?} is outside the size limit: blocks {}..={} (it has {blocks}), channels {}..={} (it has {channels})",
        PRESET_BLOCKS.start(), PRESET_BLOCKS.end(), PRESET_CHANNELS.start(), PRESET_CHANNELS.end()
    )]
    OutOfRange {
        name: String,
        blocks: u64,
        channels: u64,
    },
}

/// The aliases as a user reads them: `tiny (b2c16), cpu (b4c32), gpu (b10c128)`.
fn known_presets() -> String {
    let names: Vec<String> = PRESET_ALIASES
        .iter()
        .map(|(alias, real)| format!("{alias} ({real})"))
        .collect();
    names.join(", ")
}

/// (blocks, channels) of a size preset name (an alias or `b<blocks>c<channels>`), checked
/// against [`PRESET_BLOCKS`] and [`PRESET_CHANNELS`].
pub fn preset_shape(name: &str) -> Result<(usize, usize), PresetError> {
    let real = PRESET_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, real)| *real);
    let unknown = || PresetError::Unknown { name: name.into() };
    let (b, c) = real
        .strip_prefix('b')
        .and_then(|rest| rest.split_once('c'))
        .ok_or_else(unknown)?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(b) || !digits(c) {
        return Err(unknown());
    }
    // Digits that overflow are far over the limit.
    let (blocks, channels) = (b.parse().unwrap_or(u64::MAX), c.parse().unwrap_or(u64::MAX));
    let fits = |v: u64, range: &std::ops::RangeInclusive<usize>| {
        usize::try_from(v).is_ok_and(|v| range.contains(&v))
    };
    if !fits(blocks, &PRESET_BLOCKS) || !fits(channels, &PRESET_CHANNELS) {
        return Err(PresetError::OutOfRange {
            name: name.into(),
            blocks,
            channels,
        });
    }
    Ok((blocks as usize, channels as usize))
}

// ---------------------------------------------------------------------------------------
// Counts shared by the encoder, the policy index and the networks

/// Planes after the piece planes (pass, repetitions, check, board, colour).
pub const EXTRA_PLANES: usize = 5;
/// Attack planes of the tactical layout.
pub const TACTICAL_PLANES: usize = 4;
/// Material planes: each piece's value, and the material balance.
pub const MATERIAL_PLANES: usize = 2;

/// Input planes of an encoder layout for a game of `types` piece types (see
/// [`crate::encoder`] for what each plane holds).
pub fn plane_count(types: usize, tactical: bool, material: bool) -> usize {
    2 * types
        + EXTRA_PLANES
        + if tactical { TACTICAL_PLANES } else { 0 }
        + if material { MATERIAL_PLANES } else { 0 }
}

/// Capture patterns of a policy slot: none, 24 single offsets, 8 two-square rays (see
/// [`crate::policy`]).
pub const PATTERNS: usize = 33;
/// Codes per (from, to): pattern x declined.
pub const CODES: usize = 2 * PATTERNS;

/// Piece units of material balance that the material head maps to `tanh(1)` (and that the
/// encoder's material planes map to 1.0).
pub const MATERIAL_SCALE: f32 = 10.0;
/// Horizons of the auxiliary heads (16 plies later, the game's end) and occupancy classes.
pub const AUX_HORIZONS: usize = 2;
pub const OCCUPANCY_CLASSES: usize = 3;
/// Width of the value head's hidden layer (after pooling), which the WDL and material
/// outputs read.
pub const VALUE_HIDDEN: usize = 64;

// ---------------------------------------------------------------------------------------
// The architecture

/// Architecture hyper-parameters (stored in checkpoints).
#[derive(Clone, Debug, PartialEq)]
pub struct NetConfig {
    /// Input planes `P`.
    pub planes: usize,
    /// Board side `N`.
    pub size: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Channels `C` of the tower.
    pub channels: usize,
    /// Query/key size `D` of the policy head (default 32).
    pub head_dim: usize,
    /// Channels of the value head before pooling (default 32).
    pub value_channels: usize,
}

impl NetConfig {
    /// An architecture with the default head sizes (32 and 32).
    pub fn new(planes: usize, size: usize, blocks: usize, channels: usize) -> NetConfig {
        NetConfig {
            planes,
            size,
            blocks,
            channels,
            head_dim: 32,
            value_channels: 32,
        }
    }

    /// The same with query/key size `head_dim`.
    pub fn with_head_dim(mut self, head_dim: usize) -> NetConfig {
        self.head_dim = head_dim;
        self
    }

    /// The same with `value_channels` value head channels.
    pub fn with_value_channels(mut self, value_channels: usize) -> NetConfig {
        self.value_channels = value_channels;
        self
    }

    /// A named size preset for a game with `planes` input planes on an `size` board:
    /// `b<blocks>c<channels>` (e.g. `b4c32`) or one of the aliases in [`PRESET_ALIASES`];
    /// `None` for a name [`NetConfig::from_preset`] refuses.
    pub fn preset(name: &str, planes: usize, size: usize) -> Option<NetConfig> {
        NetConfig::from_preset(name, planes, size).ok()
    }

    /// [`NetConfig::preset`] with the reason a name is refused.
    pub fn from_preset(name: &str, planes: usize, size: usize) -> Result<NetConfig, PresetError> {
        let (blocks, channels) = preset_shape(name)?;
        let head = (channels / 2).clamp(16, 64);
        Ok(NetConfig::new(planes, size, blocks, channels)
            .with_head_dim(head)
            .with_value_channels(head))
    }

    /// Multiply-adds x 2 per position of one training forward pass (every head; the legal
    /// moves' pair products are negligible), for GFLOP/s reports.
    pub fn flops(&self) -> f64 {
        let a = (self.size * self.size) as f64;
        let aux = AUX_HORIZONS * OCCUPANCY_CLASSES;
        self.inference_flops() + 2.0 * a * self.channels as f64 * aux as f64
    }

    /// Multiply-adds x 2 per position of one training step: the forward pass
    /// ([`NetConfig::flops`]), and a backward pass that computes each layer's weight
    /// gradient and input gradient (each as many multiply-adds as the layer's forward) except
    /// the stem's input gradient (the planes need none). The optimizer's elementwise work
    /// is not counted.
    pub fn train_flops(&self) -> f64 {
        let a = (self.size * self.size) as f64;
        let stem = 2.0 * a * self.planes as f64 * self.channels as f64;
        3.0 * self.flops() - stem
    }

    /// Multiply-adds x 2 per position that inference needs: the tower and the 1x1 heads
    /// search reads (policy query, key and codes, value), without the `[A, A]` pair product
    /// (only the legal moves' pairs are needed) and the ownership head.
    pub fn inference_flops(&self) -> f64 {
        let a = (self.size * self.size) as f64;
        let c = self.channels as f64;
        let stem = 2.0 * a * self.planes as f64 * c;
        let tower = self.blocks as f64 * 2.0 * (2.0 * a * c * c * 9.0);
        let heads = 2.0 * a * c * (2 * self.head_dim + CODES + self.value_channels) as f64;
        stem + tower + heads
    }
}

// ---------------------------------------------------------------------------------------
// The heads

/// What a head reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HeadInput {
    /// The value trunk's hidden layer `[B, VALUE_HIDDEN]` (the value features, pooled over
    /// the board, through `value_fc1` and a ReLU): a linear layer, weight
    /// `[VALUE_HIDDEN, outputs]` (burn's layout), bias `[outputs]`.
    ValueHidden,
    /// The tower's output per square `[B, C, N, N]`: a 1x1 convolution, weight
    /// `[outputs, C, 1, 1]`, bias `[outputs]`; its output is `[B, outputs, N, N]`.
    Squares,
    /// The same 1x1 convolution, its output summed over the squares and divided by the
    /// board's side `N` (`1 / sqrt(A)`): `[B, outputs]`. Each square adds its share, as a
    /// hand-made evaluation adds a term per piece (a hanging piece, a threat); the scale
    /// keeps an optimizer step's change of the sum near a linear head's (a plain sum of 289
    /// squares overshot: its training loss rose above the untrained head's).
    SquaresSummed,
}

impl HeadInput {
    /// Whether the head is a 1x1 convolution on the squares (one of the fused 1x1 heads).
    pub fn is_convolution(self) -> bool {
        matches!(self, HeadInput::Squares | HeadInput::SquaresSummed)
    }
}

/// What a head's outputs pass through (in the network: inference reads the same values).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Raw values (logits, or a correction in logit space).
    Identity,
    /// `tanh`, into (-1, 1).
    Tanh,
}

/// How a head is trained (each loss is a mean over the batch's rows).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Cross-entropy (nats) of a softmax over the `outputs` against a distribution target
    /// `[B, outputs]`.
    SoftmaxCrossEntropy,
    /// Per square: the `outputs` channels are `outputs / classes` groups of `classes`
    /// logits; cross-entropy (nats) per square and group against a class index target
    /// `[B, groups, A]`, averaged over the squares and groups of the rows that have targets
    /// (a row without them adds nothing).
    SquareClassCrossEntropy { classes: usize },
    /// Squared error summed over the `outputs`, against a target `[B, outputs]`.
    SquaredError,
    /// The judge's residual (one output `r`, a correction on a logit scale): per row with a
    /// target `[base, target]` (`base` the search leaf's count on the logit scale,
    /// `target` in (-1, 1)), `(tanh(base + r) - target)^2`, averaged over the rows that
    /// have targets (a row without one adds nothing).
    ResidualSquaredError,
}

/// The field of a training row's targets ([`RowTargets`]) that holds a head's target, by
/// the name the Python trainer's batches use too (`batch["wdl"]`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HeadTarget {
    /// [`RowTargets::wdl`].
    Wdl,
    /// [`RowTargets::ownership`] (rows may have none).
    Ownership,
    /// [`RowTargets::material`].
    Material,
    /// [`RowTargets::teacher`] (rows may have none).
    Teacher,
    /// [`RowTargets::root_value`].
    RootValue,
}

impl HeadTarget {
    /// The field's name: a batch's key in the Python trainer (`has_<name>` marks the rows
    /// that have the target).
    pub fn name(self) -> &'static str {
        match self {
            HeadTarget::Wdl => "wdl",
            HeadTarget::Ownership => "ownership",
            HeadTarget::Material => "material",
            HeadTarget::Teacher => "teacher",
            HeadTarget::RootValue => "root_value",
        }
    }
}

/// How a new network's head starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HeadInit {
    /// The layer's default (burn's and PyTorch's uniform fan-in initialisation).
    Default,
    /// Zero weights and bias: an untrained head outputs exactly 0 (a correction that
    /// changes nothing until it has learnt something).
    Zero,
}

/// One trained head besides the policy (whose attention over the legal moves is the
/// network's own): a row of [`HEADS`], which the weights' names ([`parameter_shapes`]),
/// the burn network's layers, the CPU kernels' trainer, the loss weights and the loss log
/// read, and the PyTorch trainer too (`tengu.heads()`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Head {
    /// Its name in code: the row's index in [`HEADS`].
    pub id: HeadId,
    /// The layer's name in a checkpoint (`<layer>.weight`, `<layer>.bias`).
    pub layer: &'static str,
    /// The loss's name: the loss log's `<loss>_loss` and `heldout_<loss>_loss`, and the
    /// head's output in the Python network.
    pub loss_name: &'static str,
    pub input: HeadInput,
    /// Output values per row (`HeadInput::ValueHidden`, `HeadInput::SquaresSummed`) or
    /// channels per square (`HeadInput::Squares`).
    pub outputs: usize,
    pub activation: Activation,
    pub loss: LossKind,
    pub target: HeadTarget,
    /// The `[train]` key of the loss's weight in the objective; `None`: always weight 1.
    pub weight_key: Option<&'static str>,
    /// The weight when the run's `[train]` does not set `weight_key`.
    pub default_weight: f32,
    pub init: HeadInit,
}

impl Head {
    /// Target values (or class indices, for a class loss) of one row, for a board of
    /// `squares` squares: `[outputs]` for a distribution or regression target, `[2]`
    /// (`[base, target]`) for the judge's residual, `[groups, A]` for a class target.
    pub fn target_len(&self, squares: usize) -> usize {
        match self.loss {
            LossKind::SoftmaxCrossEntropy | LossKind::SquaredError => self.outputs,
            LossKind::ResidualSquaredError => 2,
            LossKind::SquareClassCrossEntropy { classes } => self.outputs / classes * squares,
        }
    }

    /// Whether the loss is a mean over the rows that have the target (else over every row
    /// of the batch, each of which has one).
    pub fn averages_over_rows_with_target(&self) -> bool {
        matches!(
            self.loss,
            LossKind::SquareClassCrossEntropy { .. } | LossKind::ResidualSquaredError
        )
    }

    /// Whether the target is class indices (bytes) rather than values.
    pub fn has_class_target(&self) -> bool {
        matches!(self.loss, LossKind::SquareClassCrossEntropy { .. })
    }
}

/// A trained head besides the policy, by name: code that reads or trains a particular head
/// names it with this id (a misspelt head does not compile); files and the Python trainer
/// name it by its [`Head::loss_name`] ([`HeadId::from_loss_name`]). Its value is the head's
/// row in [`HEADS`] (checked when the crate compiles).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HeadId {
    /// The win/draw/loss value.
    Value,
    /// Who occupies each square some plies on.
    Ownership,
    /// The material balance some plies on.
    Material,
    /// The judge: a correction to the search leaf's exchange count.
    Residual,
    /// The search's own value of the row.
    RootValue,
}

impl HeadId {
    /// Every head, in [`HEADS`]' order.
    pub const ALL: [HeadId; HEAD_COUNT] = [
        HeadId::Value,
        HeadId::Ownership,
        HeadId::Material,
        HeadId::Residual,
        HeadId::RootValue,
    ];

    /// Its row's position in [`HEADS`] (and in every per-head array: [`Losses::heads`]).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its row of [`HEADS`].
    pub fn head(self) -> &'static Head {
        &HEADS[self.index()]
    }

    /// The head whose loss is named `loss_name` in a file (`None`: no head has it).
    pub fn from_loss_name(loss_name: &str) -> Option<HeadId> {
        HEADS
            .iter()
            .find(|h| h.loss_name == loss_name)
            .map(|h| h.id)
    }
}

// Each row of HEADS sits at its id's index, and HeadId::ALL lists them in that order.
const _: () = {
    let mut i = 0;
    while i < HEAD_COUNT {
        assert!(HEADS[i].id.index() == i && HeadId::ALL[i].index() == i);
        i += 1;
    }
};

/// The trained heads besides the policy, in the order of their weights in a checkpoint
/// (within each input kind) and of their losses. A step minimises the policy loss plus each
/// head's loss times its weight ([`LossWeights`]).
pub const HEADS: &[Head] = &[
    Head {
        id: HeadId::Value,
        layer: "value_fc2",
        loss_name: "value",
        input: HeadInput::ValueHidden,
        outputs: 3,
        activation: Activation::Identity,
        loss: LossKind::SoftmaxCrossEntropy,
        target: HeadTarget::Wdl,
        weight_key: None,
        default_weight: 1.0,
        init: HeadInit::Default,
    },
    Head {
        id: HeadId::Ownership,
        layer: "ownership",
        loss_name: "ownership",
        input: HeadInput::Squares,
        outputs: AUX_HORIZONS * OCCUPANCY_CLASSES,
        activation: Activation::Identity,
        loss: LossKind::SquareClassCrossEntropy {
            classes: OCCUPANCY_CLASSES,
        },
        target: HeadTarget::Ownership,
        weight_key: Some("ownership_weight"),
        default_weight: 1.0,
        init: HeadInit::Default,
    },
    Head {
        id: HeadId::Material,
        layer: "material_fc",
        loss_name: "material",
        input: HeadInput::ValueHidden,
        outputs: AUX_HORIZONS,
        activation: Activation::Tanh,
        loss: LossKind::SquaredError,
        target: HeadTarget::Material,
        weight_key: Some("material_weight"),
        default_weight: 1.0,
        init: HeadInit::Default,
    },
    // The judge: a correction to the search leaf's exchange count, taught by a deeper
    // search (`tengu_search::teacher`), a sum of per-square terms (on the value trunk's
    // pooled features it learned nothing: docs/experiments/2026-11-27-b-the-judge-learns.md).
    // Zero at first, so an untrained network's search counts material exactly as the
    // exchange count does.
    Head {
        id: HeadId::Residual,
        layer: "residual",
        loss_name: "residual",
        input: HeadInput::SquaresSummed,
        outputs: 1,
        activation: Activation::Identity,
        loss: LossKind::ResidualSquaredError,
        target: HeadTarget::Teacher,
        weight_key: Some("residual_weight"),
        default_weight: 1.0,
        init: HeadInit::Zero,
    },
    // The search's own value of the row (its root value): a target every row has, nearer
    // in time than the game's result (KataGo's short-term value heads). The search does not
    // read it; off until a run weighs it in (`train.root_value_weight`), for an A/B.
    Head {
        id: HeadId::RootValue,
        layer: "root_value_fc",
        loss_name: "root_value",
        input: HeadInput::ValueHidden,
        outputs: 1,
        activation: Activation::Tanh,
        loss: LossKind::SquaredError,
        target: HeadTarget::RootValue,
        weight_key: Some("root_value_weight"),
        default_weight: 0.0,
        init: HeadInit::Zero,
    },
];

/// The number of rows of [`HEADS`].
pub const HEAD_COUNT: usize = HEADS.len();

/// Whether `parameter` (`<layer>.weight` or `<layer>.bias`) is of a layer a checkpoint may
/// lack because it came after the file was written: it loads as zeros (every such layer
/// starts at zero in a new network, [`HeadInit::Zero`], so an old checkpoint plays exactly
/// as it did).
pub fn added_later(parameter: &str) -> bool {
    let layer = parameter
        .rsplit_once('.')
        .map_or(parameter, |(layer, _)| layer);
    HEADS
        .iter()
        .any(|h| h.layer == layer && h.init == HeadInit::Zero)
}

// ---------------------------------------------------------------------------------------
// The weights' names

/// Parameter names and shapes of an architecture: the naming table of a safetensors
/// checkpoint, which burn writes from its module names and tch reads and writes by hand.
/// Convolution weights are `[out, in, k, k]`, linear weights `[in, out]` (burn's layout).
pub fn parameter_shapes(c: &NetConfig) -> Vec<(String, Vec<i64>)> {
    let ch = c.channels as i64;
    let mut v: Vec<(String, Vec<i64>)> = Vec::new();
    let mut conv = |name: &str, i: i64, o: i64, k: i64| {
        v.push((format!("{name}.weight"), vec![o, i, k, k]));
        v.push((format!("{name}.bias"), vec![o]));
    };
    conv("stem", c.planes as i64, ch, 1);
    for b in 0..c.blocks {
        conv(&format!("blocks.{b}.conv1"), ch, ch, 3);
        conv(&format!("blocks.{b}.conv2"), ch, ch, 3);
    }
    conv("policy_q", ch, c.head_dim as i64, 1);
    conv("policy_k", ch, c.head_dim as i64, 1);
    conv("policy_code", ch, CODES as i64, 1);
    conv("value_conv", ch, c.value_channels as i64, 1);
    for head in HEADS.iter().filter(|h| h.input.is_convolution()) {
        conv(head.layer, ch, head.outputs as i64, 1);
    }
    for b in 0..c.blocks {
        v.push((format!("blocks.{b}.pool.weight"), vec![ch, ch]));
        v.push((format!("blocks.{b}.pool.bias"), vec![ch]));
    }
    let hidden = VALUE_HIDDEN as i64;
    v.push((
        "value_fc1.weight".into(),
        vec![c.value_channels as i64, hidden],
    ));
    v.push(("value_fc1.bias".into(), vec![hidden]));
    for head in HEADS.iter().filter(|h| h.input == HeadInput::ValueHidden) {
        let outputs = head.outputs as i64;
        v.push((format!("{}.weight", head.layer), vec![hidden, outputs]));
        v.push((format!("{}.bias", head.layer), vec![outputs]));
    }
    v
}

// ---------------------------------------------------------------------------------------
// Training

/// The targets of one training row: one field per [`HeadTarget`] (a new target is a field
/// here and an arm in [`RowTargets::values`] or [`RowTargets::classes`]). `Default` is a row
/// with none of the optional targets (all-zero values otherwise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowTargets {
    /// Win / draw / loss from the side to move's view.
    pub wdl: [f32; 3],
    /// Occupancy classes (0 empty, 1 mover's, 2 opponent's) of the two target horizons,
    /// `AUX_HORIZONS * N * N` squares in the mover's frame (the encoder's square order);
    /// empty when the row has none (no ownership loss then).
    pub ownership: Vec<u8>,
    /// `tanh(balance / MATERIAL_SCALE)` at the two horizons, mover's view.
    pub material: [f32; 2],
    /// The judge's target, when the row has a teacher label: `[base, target]` with `base`
    /// the search leaf's count `(balance + exchange gain) / MATERIAL_SCALE` (the residual's
    /// logit scale) and `target` in (-1, 1), `tanh(teacher score / MATERIAL_SCALE)` (blended
    /// with the result by `[train] teacher_result_weight`), mover's view.
    pub teacher: Option<[f32; 2]>,
    /// The root value of the row's search in [-1, 1], mover's view.
    pub root_value: [f32; 1],
}

impl RowTargets {
    /// A distribution or regression target of `target` (`[outputs]` of its head, `[base,
    /// target]` for the residual); empty for a class target and when the row has none.
    pub fn values(&self, target: HeadTarget) -> &[f32] {
        match target {
            HeadTarget::Wdl => &self.wdl,
            HeadTarget::Material => &self.material,
            HeadTarget::Teacher => self.teacher.as_ref().map_or(&[], |t| &t[..]),
            HeadTarget::RootValue => &self.root_value,
            HeadTarget::Ownership => &[],
        }
    }

    /// A class target of `target` (`[groups, A]`, class indices), empty when the row has
    /// none or the target is values.
    pub fn classes(&self, target: HeadTarget) -> &[u8] {
        match target {
            HeadTarget::Ownership => &self.ownership,
            HeadTarget::Wdl | HeadTarget::Material | HeadTarget::Teacher => &[],
            HeadTarget::RootValue => &[],
        }
    }

    /// Sets a distribution or regression target of `target` ([`RowTargets::values`]'s
    /// slice).
    ///
    /// # Panics
    /// On a class target, or `values` of another length than the target's (programming
    /// errors).
    pub fn set_values(&mut self, target: HeadTarget, values: &[f32]) {
        match target {
            HeadTarget::Wdl => self.wdl.copy_from_slice(values),
            HeadTarget::Material => self.material.copy_from_slice(values),
            HeadTarget::Teacher => {
                self.teacher = Some(
                    values
                        .try_into()
                        .expect("a teacher target is [base, target]"),
                )
            }
            HeadTarget::RootValue => self.root_value.copy_from_slice(values),
            HeadTarget::Ownership => panic!("ownership is a class target"),
        }
    }

    /// Whether the row has `head`'s target (of the size `head.target_len(squares)`).
    pub fn has(&self, head: &Head, squares: usize) -> bool {
        let len = if head.has_class_target() {
            self.classes(head.target).len()
        } else {
            self.values(head.target).len()
        };
        len == head.target_len(squares)
    }
}

/// One training example: a position, its legal moves with target probabilities (same
/// order, summing to 1), and the heads' targets.
pub struct TrainExample<'a> {
    pub position: &'a Position,
    pub repetitions: u32,
    pub moves: &'a [Move],
    pub policy: &'a [f32],
    pub targets: &'a RowTargets,
}

impl TrainExample<'_> {
    /// A distribution or regression target of `target` ([`RowTargets::values`]).
    pub fn values(&self, target: HeadTarget) -> &[f32] {
        self.targets.values(target)
    }

    /// A class target of `target` ([`RowTargets::classes`]).
    pub fn classes(&self, target: HeadTarget) -> &[u8] {
        self.targets.classes(target)
    }
}

/// The loss weight of a head that is not among [`HEADS`]' weight keys.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown loss weight {key:?}: the heads' weights are {}", weight_keys().join(", "))]
pub struct UnknownWeight {
    pub key: String,
}

/// The `[train]` keys of the heads' loss weights ([`Head::weight_key`]), in [`HEADS`]' order.
pub fn weight_keys() -> Vec<&'static str> {
    HEADS.iter().filter_map(|h| h.weight_key).collect()
}

/// Weights of the heads' losses in the objective, one per row of [`HEADS`] (0 switches a
/// head's training off).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LossWeights {
    by_head: [f32; HEAD_COUNT],
}

impl Default for LossWeights {
    /// Every head at its [`Head::default_weight`].
    fn default() -> Self {
        let mut by_head = [1.0; HEAD_COUNT];
        for (w, h) in by_head.iter_mut().zip(HEADS) {
            *w = h.default_weight;
        }
        LossWeights { by_head }
    }
}

impl LossWeights {
    /// The weight of `head`'s loss in the objective.
    pub fn of(&self, head: &Head) -> f32 {
        self.by_head[head.id.index()]
    }

    /// Sets the weight whose `[train]` key is `key` (a [`Head::weight_key`]).
    pub fn set(&mut self, key: &str, weight: f32) -> Result<(), UnknownWeight> {
        let i = HEADS
            .iter()
            .position(|h| h.weight_key == Some(key))
            .ok_or_else(|| UnknownWeight { key: key.into() })?;
        self.by_head[i] = weight;
        Ok(())
    }

    /// The defaults with the weights of `keys` (`[train]` key, weight) set.
    pub fn with<'k>(
        keys: impl IntoIterator<Item = (&'k str, f32)>,
    ) -> Result<LossWeights, UnknownWeight> {
        let mut w = LossWeights::default();
        for (key, weight) in keys {
            w.set(key, weight)?;
        }
        Ok(w)
    }
}

/// Losses of one step (means over the batch): the policy's cross-entropy over the legal
/// moves, and one loss per row of [`HEADS`] (see its [`LossKind`]); the step minimises
/// `policy + sum of loss * weight` ([`LossWeights`]).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Losses {
    pub policy: f32,
    /// In [`HEADS`]' order.
    pub heads: [f32; HEAD_COUNT],
}

impl Losses {
    /// The loss of `head`.
    pub fn of_head(&self, head: HeadId) -> f32 {
        self.heads[head.index()]
    }

    /// Sets the loss of `head`.
    pub fn set_head(&mut self, head: HeadId, loss: f32) {
        self.heads[head.index()] = loss;
    }

    /// Each head with its loss, in [`HEADS`]' order.
    pub fn by_head(&self) -> impl Iterator<Item = (&'static Head, f32)> + '_ {
        HEADS.iter().zip(self.heads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heads_table_names_each_weight_once_and_keeps_the_checkpoint_names() {
        let config = NetConfig::new(30, 17, 2, 16);
        let shapes = parameter_shapes(&config);
        let mut names: Vec<&str> = shapes.iter().map(|(n, _)| n.as_str()).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a weight named twice");
        // The names and shapes of checkpoints written before the table existed.
        let shape = |name: &str| {
            shapes
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| s.clone())
        };
        assert_eq!(shape("value_fc2.weight"), Some(vec![64, 3]));
        assert_eq!(shape("material_fc.weight"), Some(vec![64, 2]));
        assert_eq!(shape("ownership.weight"), Some(vec![6, 16, 1, 1]));
        assert_eq!(shape("residual.weight"), Some(vec![1, 16, 1, 1]));
        // A weight and a bias each: the stem, two convolutions of each of the two blocks,
        // the policy and value convolutions, the heads on the squares; the blocks' pooling,
        // the value trunk's hidden layer, the heads on it.
        let square_heads = HEADS.iter().filter(|h| h.input.is_convolution()).count();
        let row_heads = HEADS.len() - square_heads;
        assert_eq!(square_heads, 2, "ownership and the judge");
        assert_eq!(
            count,
            2 * (1 + 2 * 2 + 4 + square_heads) + 2 * 2 + 2 + 2 * row_heads
        );
        assert!(added_later("residual.weight") && added_later("residual.bias"));
        assert!(!added_later("material_fc.weight") && !added_later("residual_fc.weight"));
        for h in HEADS {
            assert_eq!(HeadId::from_loss_name(h.loss_name), Some(h.id));
            assert_eq!(h.id.head(), h);
            let want = match h.id {
                HeadId::Ownership => 0.5,
                HeadId::Material => 0.25,
                HeadId::Residual => 0.125,
                _ => h.default_weight,
            };
            let w = LossWeights::with([
                ("ownership_weight", 0.5),
                ("material_weight", 0.25),
                ("residual_weight", 0.125),
            ])
            .unwrap();
            assert_eq!(w.of(h), want, "{}", h.loss_name);
            assert_eq!(LossWeights::default().of(h), h.default_weight);
            let mut losses = Losses::default();
            losses.set_head(h.id, 2.5);
            assert_eq!(losses.of_head(h.id), 2.5, "{}", h.loss_name);
            if let LossKind::SquareClassCrossEntropy { classes } = h.loss {
                assert_eq!(h.outputs % classes, 0, "{}", h.loss_name);
            }
        }
        let e = LossWeights::with([("materail_weight", 1.0)]).unwrap_err();
        assert!(
            e.to_string().contains("materail_weight") && e.to_string().contains("material_weight"),
            "{e}"
        );
        assert_eq!(HeadId::from_loss_name("no such head"), None);
    }

    #[test]
    fn a_row_has_a_target_of_its_heads_size_or_none() {
        let squares = 17 * 17;
        let mut row = RowTargets::default();
        let has = |row: &RowTargets, head: HeadId| row.has(head.head(), squares);
        assert!(has(&row, HeadId::Value) && has(&row, HeadId::Material));
        assert!(!has(&row, HeadId::Ownership) && !has(&row, HeadId::Residual));
        row.ownership = vec![0; AUX_HORIZONS * squares];
        row.teacher = Some([0.1, -0.2]);
        assert!(has(&row, HeadId::Ownership) && has(&row, HeadId::Residual));
        row.ownership.pop();
        assert!(
            !has(&row, HeadId::Ownership),
            "a target of the wrong size is none"
        );
        for head in HEADS.iter().filter(|h| !h.has_class_target()) {
            let len = head.target_len(squares);
            let values: Vec<f32> = (0..len).map(|j| 0.25 - j as f32).collect();
            row.set_values(head.target, &values);
            assert_eq!(row.values(head.target), &values[..], "{}", head.loss_name);
        }
    }

    #[test]
    fn refused_presets_say_why() {
        let e = preset_shape("huge").unwrap_err();
        assert!(matches!(e, PresetError::Unknown { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("\"huge\"") && text.contains("tiny (b2c16)") && text.contains("gpu"),
            "{text}"
        );
        for big in ["b1000c4096", "b4c4", "b0c32", "b99999999999999999999999c32"] {
            let e = preset_shape(big).unwrap_err();
            assert!(matches!(e, PresetError::OutOfRange { .. }), "{big}: {e}");
            assert!(e.to_string().contains("1..=40") && e.to_string().contains("8..=512"));
        }
        assert_eq!(preset_shape("cpu"), Ok((4, 32)));
        assert_eq!(preset_shape("b40c512"), Ok((40, 512)));
    }
}
