//! The network (burn implementation): a residual tower with global pooling, a from x to
//! (bilinear, lc0-style) policy head plus a small code head, and a WDL value head.
//!
//! Shapes (`B` batch, `P` input planes, `N` board side, `A = N * N` squares, `C` channels,
//! `D` policy key size):
//! * input `[B, P, N, N]` (see [`crate::encoder`]);
//! * policy query `q` and key `k`, `[B, A, D]` each: the pair logit of a move is
//!   `q(from) . k(to) / sqrt(D)`, computed for the legal moves only ([`legal_logits`]);
//! * `code` logits `[B, A, CODES]`: per origin square, per capture pattern / promotion code;
//! * `wdl` logits `[B, 3]`;
//! * `ownership` logits `[B, 2 * 3, N, N]`: for the two horizons of the targets (16 plies
//!   later, the game's end) the classes empty / the mover's piece / the opponent's piece of
//!   every square (KataGo's ownership, for a game of captures);
//! * `material` `[B, 2]` in (-1, 1): `tanh(balance / MATERIAL_SCALE)` predicted for the
//!   same two horizons (the mover's material minus the opponent's, in piece units).
//!
//! The logit of a legal move in slot `(from, to, code)` is `pair[from, to] + code[from, code]`;
//! softmax runs over the legal moves only.

use burn::config::Config;
use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};

use crate::policy::CODES;

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

/// Piece units of material balance that the material head maps to `tanh(1)`.
pub const MATERIAL_SCALE: f32 = 10.0;
/// Horizons of the auxiliary heads (16 plies later, the game's end) and occupancy classes.
pub const AUX_HORIZONS: usize = 2;
pub const OCCUPANCY_CLASSES: usize = 3;

/// Architecture hyper-parameters (stored in checkpoints).
#[derive(Config, Debug, PartialEq)]
pub struct NetConfig {
    /// Input planes `P`.
    pub planes: usize,
    /// Board side `N`.
    pub size: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Channels `C` of the tower.
    pub channels: usize,
    /// Query/key size `D` of the policy head.
    #[config(default = 32)]
    pub head_dim: usize,
    /// Channels of the value head before pooling.
    #[config(default = 32)]
    pub value_channels: usize,
}

impl NetConfig {
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

    pub fn init(&self, device: &Device) -> Net {
        let conv = |i: usize, o: usize, k: usize| {
            Conv2dConfig::new([i, o], [k, k])
                .with_padding(PaddingConfig2d::Same)
                .init(device)
        };
        let c = self.channels;
        let net = Net {
            stem: conv(self.planes, c, 1),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    conv1: conv(c, c, 3),
                    conv2: conv(c, c, 3),
                    pool: LinearConfig::new(c, c).init(device),
                })
                .collect(),
            policy_q: conv(c, self.head_dim, 1),
            policy_k: conv(c, self.head_dim, 1),
            policy_code: conv(c, CODES, 1),
            value_conv: conv(c, self.value_channels, 1),
            value_fc1: LinearConfig::new(self.value_channels, 64).init(device),
            value_fc2: LinearConfig::new(64, 3).init(device),
            ownership: conv(c, AUX_HORIZONS * OCCUPANCY_CLASSES, 1),
            material_fc: LinearConfig::new(64, AUX_HORIZONS).init(device),
            head_dim: self.head_dim,
        };
        net.with_stable_ids()
    }
}

/// Renumbers parameters 1, 2, ... in module order (burn draws random ids), so optimizer
/// state saved from one instance of a network applies to another, e.g. after a restart.
struct StableIds(u64);

impl ModuleMapper for StableIds {
    fn map_float<const D: usize>(&mut self, mut param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        self.0 += 1;
        param.id = ParamId::from(self.0);
        param
    }
}

impl Net {
    /// The same network with parameter ids that depend only on the architecture.
    pub fn with_stable_ids(self) -> Net {
        self.map(&mut StableIds(0))
    }
}

/// Residual block: conv-relu-conv with a global-pooling bias (KataGo), plus the skip.
#[derive(Module, Debug)]
pub struct ResBlock {
    conv1: Conv2d,
    conv2: Conv2d,
    pool: Linear,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let h = relu(self.conv1.forward(x.clone()));
        let [b, c, _, _] = h.dims();
        // Mean over the board -> per-channel bias added to the second convolution.
        let pooled = h.clone().mean_dims(&[2, 3]).reshape([b, c]);
        let bias = self.pool.forward(pooled).reshape([b, c, 1, 1]);
        relu(x + self.conv2.forward(h) + bias)
    }
}

/// The network.
#[derive(Module, Debug)]
pub struct Net {
    stem: Conv2d,
    blocks: Vec<ResBlock>,
    policy_q: Conv2d,
    policy_k: Conv2d,
    policy_code: Conv2d,
    value_conv: Conv2d,
    value_fc1: Linear,
    value_fc2: Linear,
    ownership: Conv2d,
    material_fc: Linear,
    head_dim: usize,
}

/// Raw outputs of one forward pass.
pub struct NetOutput {
    /// Policy query `[B, A, D]`.
    pub q: Tensor<3>,
    /// Policy key `[B, A, D]`.
    pub k: Tensor<3>,
    /// `[B, A, CODES]`
    pub code: Tensor<3>,
    /// `[B, 3]`
    pub wdl: Tensor<2>,
    /// `[B, AUX_HORIZONS * OCCUPANCY_CLASSES, N, N]` logits.
    pub ownership: Tensor<4>,
    /// `[B, AUX_HORIZONS]` in (-1, 1).
    pub material: Tensor<2>,
}

impl Net {
    /// Input planes `P` the network takes.
    pub fn planes(&self) -> usize {
        self.stem.weight.dims()[1]
    }

    /// `input`: `[B, P, N, N]`.
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let [b, _, n, _] = input.dims();
        let a = n * n;
        let mut x = relu(self.stem.forward(input));
        for block in &self.blocks {
            x = block.forward(x);
        }
        let d = self.head_dim;
        let q = self
            .policy_q
            .forward(x.clone())
            .reshape([b, d, a])
            .swap_dims(1, 2);
        let k = self
            .policy_k
            .forward(x.clone())
            .reshape([b, d, a])
            .swap_dims(1, 2);
        let code = self
            .policy_code
            .forward(x.clone())
            .reshape([b, CODES, a])
            .swap_dims(1, 2);
        let ownership = self.ownership.forward(x.clone());
        let v = relu(self.value_conv.forward(x));
        let [_, vc, _, _] = v.dims();
        let v = v.mean_dims(&[2, 3]).reshape([b, vc]);
        let hidden = relu(self.value_fc1.forward(v));
        let wdl = self.value_fc2.forward(hidden.clone());
        let material = self.material_fc.forward(hidden).tanh();
        NetOutput {
            q,
            k,
            code,
            wdl,
            ownership,
            material,
        }
    }
}

/// The legal moves of a batch as index tensors (padded to the longest move list).
pub struct MoveIndex {
    /// `[B * M]` rows of the flattened query `[B * A, D]`: `b * A + from`.
    pub from: Tensor<1, Int>,
    /// `[B * M]` rows of the flattened key `[B * A, D]`: `b * A + to`.
    pub to: Tensor<1, Int>,
    /// `[B, M]` indices into the flattened `code` logits (`from * CODES + code`).
    pub code: Tensor<2, Int>,
    /// `[B, M]` true on padding.
    pub padding: Tensor<2, Bool>,
    /// Real move count per position.
    pub counts: Vec<usize>,
}

impl MoveIndex {
    /// Builds the index tensors from per-position slot lists `(from, to, code)`.
    pub fn new(slots: &[Vec<(u16, u16, u8)>], squares: usize, device: &Device) -> MoveIndex {
        let b = slots.len();
        let m = slots.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut from = vec![0i64; b * m];
        let mut to = vec![0i64; b * m];
        let mut code = vec![0i64; b * m];
        let mut padding = vec![true; b * m];
        for (i, list) in slots.iter().enumerate() {
            let base = (i * squares) as i64;
            for (j, &(f, t, c)) in list.iter().enumerate() {
                from[i * m + j] = base + f as i64;
                to[i * m + j] = base + t as i64;
                code[i * m + j] = f as i64 * CODES as i64 + c as i64;
                padding[i * m + j] = false;
            }
        }
        MoveIndex {
            from: Tensor::from_data(TensorData::new(from, [b * m]), device),
            to: Tensor::from_data(TensorData::new(to, [b * m]), device),
            code: Tensor::from_data(TensorData::new(code, [b, m]), device),
            padding: Tensor::from_data(TensorData::new(padding, [b, m]), device),
            counts: slots.iter().map(Vec::len).collect(),
        }
    }
}

/// Logits of the legal moves `[B, M]`; padding gets a large negative value. Only the legal
/// moves' `q(from) . k(to)` pairs are computed (a few hundred of the `A^2`).
pub fn legal_logits(out: &NetOutput, index: &MoveIndex) -> Tensor<2> {
    let [b, a, d] = out.q.dims();
    let [_, m] = index.code.dims();
    let q = out
        .q
        .clone()
        .reshape([b * a, d])
        .select(0, index.from.clone());
    let k = out
        .k
        .clone()
        .reshape([b * a, d])
        .select(0, index.to.clone());
    let pair = (q * k).sum_dim(1).reshape([b, m]) / (d as f32).sqrt();
    let code = out
        .code
        .clone()
        .reshape([b, a * CODES])
        .gather(1, index.code.clone());
    (pair + code).mask_fill(index.padding.clone(), -1.0e9)
}

/// One layer's parameters as plain row-major arrays in burn's layouts (convolution weight
/// `[out, in, k, k]`, linear weight `[in, out]`), for inference engines outside burn.
pub(crate) struct RawLayer {
    pub weight: Vec<f32>,
    pub dims: Vec<usize>,
    /// `[out]`; zeros where the layer has no bias.
    pub bias: Vec<f32>,
}

/// Every layer of a [`Net`] that inference needs (the ownership head is left out: search
/// never reads it).
pub(crate) struct RawNet {
    pub stem: RawLayer,
    /// `[conv1, conv2, pool]` of each residual block.
    pub blocks: Vec<[RawLayer; 3]>,
    pub policy_q: RawLayer,
    pub policy_k: RawLayer,
    pub policy_code: RawLayer,
    pub value_conv: RawLayer,
    pub value_fc1: RawLayer,
    pub value_fc2: RawLayer,
    pub material_fc: RawLayer,
}

fn raw_values<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>, String> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(|e| format!("{e:?}"))
}

fn raw_conv(c: &Conv2d) -> Result<RawLayer, String> {
    let w = c.weight.val();
    let dims = w.dims().to_vec();
    let bias = match &c.bias {
        Some(b) => raw_values(b.val())?,
        None => vec![0.0; dims[0]],
    };
    Ok(RawLayer {
        weight: raw_values(w)?,
        dims,
        bias,
    })
}

fn raw_linear(l: &Linear) -> Result<RawLayer, String> {
    let w = l.weight.val();
    let dims = w.dims().to_vec();
    let bias = match &l.bias {
        Some(b) => raw_values(b.val())?,
        None => vec![0.0; dims[1]],
    };
    Ok(RawLayer {
        weight: raw_values(w)?,
        dims,
        bias,
    })
}

impl Net {
    /// The inference layers as plain arrays.
    pub(crate) fn raw(&self) -> Result<RawNet, String> {
        Ok(RawNet {
            stem: raw_conv(&self.stem)?,
            blocks: self
                .blocks
                .iter()
                .map(|b| {
                    Ok([
                        raw_conv(&b.conv1)?,
                        raw_conv(&b.conv2)?,
                        raw_linear(&b.pool)?,
                    ])
                })
                .collect::<Result<_, String>>()?,
            policy_q: raw_conv(&self.policy_q)?,
            policy_k: raw_conv(&self.policy_k)?,
            policy_code: raw_conv(&self.policy_code)?,
            value_conv: raw_conv(&self.value_conv)?,
            value_fc1: raw_linear(&self.value_fc1)?,
            value_fc2: raw_linear(&self.value_fc2)?,
            material_fc: raw_linear(&self.material_fc)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
