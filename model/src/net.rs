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
//!   same two horizons (the mover's material minus the opponent's, in piece units);
//! * `residual` `[B, 1]`: the judge's correction to the search leaf's exchange count, on
//!   the logit scale of `tanh(count / MATERIAL_SCALE)`: a 1x1 convolution to one channel
//!   summed over the squares and divided by `N` (`desc::HeadInput::SquaresSummed`); its
//!   layer starts at zero.
//!
//! The logit of a legal move in slot `(from, to, code)` is `pair[from, to] + code[from, code]`;
//! softmax runs over the legal moves only.

use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};

use crate::desc::NetConfig;
use crate::desc::{AUX_HORIZONS, CODES, OCCUPANCY_CLASSES, VALUE_HIDDEN};

impl NetConfig {
    /// A freshly initialised network on the CPU (burn's default device), for code that
    /// does not otherwise use burn.
    pub fn init_on_cpu(&self) -> Net {
        self.init(&Device::default())
    }

    /// A freshly initialised burn network of this architecture.
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
            value_fc1: LinearConfig::new(self.value_channels, VALUE_HIDDEN).init(device),
            value_fc2: LinearConfig::new(VALUE_HIDDEN, 3).init(device),
            ownership: conv(c, AUX_HORIZONS * OCCUPANCY_CLASSES, 1),
            material_fc: LinearConfig::new(VALUE_HIDDEN, AUX_HORIZONS).init(device),
            residual: Conv2dConfig::new([c, 1], [1, 1])
                .with_initializer(burn::nn::Initializer::Zeros)
                .init(device),
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
    /// The judge: a 1x1 convolution to one channel, summed over the squares (zero at first).
    residual: Conv2d,
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
    /// `[B, 1]`, the judge's correction (logit scale).
    pub residual: Tensor<2>,
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
        let residual = self.residual.forward(x.clone()).sum_dims(&[2, 3]).reshape([b, 1]) / n as f32;
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
            residual,
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

/// Every layer of a [`Net`]: those inference needs, and the ownership head (which search
/// never reads; training does).
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
    pub residual: RawLayer,
    pub ownership: RawLayer,
}

impl RawNet {
    /// Every layer by its name in a checkpoint (the prefix of `<layer>.weight` in
    /// [`crate::desc::parameter_shapes`]).
    pub(crate) fn named(&self) -> Vec<(String, &RawLayer)> {
        let mut named: Vec<(String, &RawLayer)> = vec![
            ("stem".into(), &self.stem),
            ("policy_q".into(), &self.policy_q),
            ("policy_k".into(), &self.policy_k),
            ("policy_code".into(), &self.policy_code),
            ("value_conv".into(), &self.value_conv),
            ("ownership".into(), &self.ownership),
            ("value_fc1".into(), &self.value_fc1),
            ("value_fc2".into(), &self.value_fc2),
            ("material_fc".into(), &self.material_fc),
            ("residual".into(), &self.residual),
        ];
        for (b, [c1, c2, pool]) in self.blocks.iter().enumerate() {
            named.push((format!("blocks.{b}.conv1"), c1));
            named.push((format!("blocks.{b}.conv2"), c2));
            named.push((format!("blocks.{b}.pool"), pool));
        }
        named
    }
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
    /// Every layer as plain arrays.
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
            residual: raw_conv(&self.residual)?,
            ownership: raw_conv(&self.ownership)?,
        })
    }
}
