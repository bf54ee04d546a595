//! The network (burn implementation): a residual tower with global pooling, a from x to
//! (bilinear, lc0-style) policy head plus a small code head, and a WDL value head.
//!
//! Shapes (`B` batch, `P` input planes, `N` board side, `A = N * N` squares, `C` channels,
//! `D` policy key size):
//! * input `[B, P, N, N]` (see [`crate::encoder`]);
//! * policy query `q` and key `k`, `[B, A, D]` each: the pair logit of a move is
//!   `q(from) . k(to) / sqrt(D)`, computed for the legal moves only ([`legal_logits`]);
//! * `code` logits `[B, A, CODES]`: per origin square, per capture pattern / promotion code;
//! * one output per row of [`crate::desc::HEADS`], after its activation: `[B, outputs]`
//!   for a head on the value trunk or summed over the squares (divided by `N`),
//!   `[B, outputs * A]` (channel-major) for a head per square. Today: `value` (WDL logits
//!   `[B, 3]`), `ownership` (`[B, 2 * 3 * A]` logits: for the two target horizons, empty /
//!   the mover's piece / the opponent's piece of every square), `material` (`[B, 2]` in
//!   (-1, 1): `tanh(balance / MATERIAL_SCALE)` at the same horizons), `residual` (`[B, 1]`,
//!   the judge's correction to the search leaf's exchange count on its logit scale; its
//!   layer starts at zero).
//!
//! The burn module keeps the heads in two lists (`square_heads`, `row_heads`); a
//! checkpoint names them by [`crate::desc::Head::layer`] ([`Net::checkpoint_names`]).
//!
//! The logit of a legal move in slot `(from, to, code)` is `pair[from, to] + code[from, code]`;
//! softmax runs over the legal moves only.

use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Bool, DataError, Device, Int, Tensor, TensorData};

use crate::desc::{Activation, Head, HeadInit, HeadInput, NetConfig, HEADS};
use crate::desc::{CODES, VALUE_HIDDEN};

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
            // A head that starts at zero (`HeadInit::Zero`) overrides the layer's default.
            square_heads: square_heads()
                .map(|h| match h.init {
                    HeadInit::Default => Conv2dConfig::new([c, h.outputs], [1, 1]),
                    HeadInit::Zero => Conv2dConfig::new([c, h.outputs], [1, 1])
                        .with_initializer(burn::nn::Initializer::Zeros),
                })
                .map(|config| config.init(device))
                .collect(),
            row_heads: row_heads()
                .map(|h| match h.init {
                    HeadInit::Default => LinearConfig::new(VALUE_HIDDEN, h.outputs),
                    HeadInit::Zero => LinearConfig::new(VALUE_HIDDEN, h.outputs)
                        .with_initializer(burn::nn::Initializer::Zeros),
                })
                .map(|config| config.init(device))
                .collect(),
            head_dim: self.head_dim,
        };
        net.with_stable_ids()
    }
}

/// The heads on the squares (1x1 convolutions), in [`HEADS`]' order: `Net::square_heads`.
fn square_heads() -> impl Iterator<Item = &'static Head> {
    HEADS.iter().filter(|h| h.input.is_convolution())
}

/// The heads on the value trunk's hidden layer, in [`HEADS`]' order: `Net::row_heads`.
fn row_heads() -> impl Iterator<Item = &'static Head> {
    HEADS.iter().filter(|h| h.input == HeadInput::ValueHidden)
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

impl Net {
    /// The same network reading another input layout: input plane `j` takes the stem
    /// weights of plane `source[j]`, or zeros for `None` ([`crate::encoder::PlaneMap`]).
    /// The stem is a 1x1 convolution, so the network computes on the new planes exactly what
    /// it computed on the old ones they were taken from. An error names a source plane the
    /// network does not have.
    pub fn with_input_planes(mut self, source: &[Option<usize>]) -> Result<Net, LayerError> {
        let weight = self.stem.weight.val();
        let [out, planes, kh, kw] = weight.dims();
        if let Some(&plane) = source.iter().flatten().find(|&&p| p >= planes) {
            return Err(LayerError::InputPlane { plane, planes });
        }
        let device = weight.device();
        let old = raw_values(weight)?;
        let k = kh * kw;
        let mut new = vec![0.0f32; out * source.len() * k];
        for o in 0..out {
            for (j, from) in source.iter().enumerate() {
                if let Some(i) = from {
                    let at = (o * planes + i) * k;
                    new[(o * source.len() + j) * k..][..k].copy_from_slice(&old[at..at + k]);
                }
            }
        }
        let tensor =
            Tensor::<4>::from_data(TensorData::new(new, [out, source.len(), kh, kw]), &device);
        self.stem.weight = Param::from_tensor(tensor);
        Ok(self)
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
    /// The heads of [`HEADS`] on the squares (`HeadInput::Squares`, `SquaresSummed`).
    square_heads: Vec<Conv2d>,
    /// The heads of [`HEADS`] on the value trunk (`HeadInput::ValueHidden`).
    row_heads: Vec<Linear>,
    head_dim: usize,
}

impl Net {
    /// `(module path prefix, checkpoint layer)` of every head: burn names a head by its
    /// place in a list (`square_heads.1.`), a checkpoint by [`Head::layer`] (`residual.`).
    pub fn checkpoint_names() -> Vec<(String, &'static str)> {
        let square = square_heads()
            .enumerate()
            .map(|(i, h)| (format!("square_heads.{i}."), h.layer));
        let row = row_heads()
            .enumerate()
            .map(|(i, h)| (format!("row_heads.{i}."), h.layer));
        square.chain(row).collect()
    }

    /// A parameter's name in a checkpoint (`square_heads.1.weight` -> `residual.weight`).
    pub fn checkpoint_name(module_path: &str) -> String {
        for (prefix, layer) in Net::checkpoint_names() {
            if let Some(rest) = module_path.strip_prefix(&prefix) {
                return format!("{layer}.{rest}");
            }
        }
        module_path.to_string()
    }
}

/// Raw outputs of one forward pass.
pub struct NetOutput {
    /// Policy query `[B, A, D]`.
    pub q: Tensor<3>,
    /// Policy key `[B, A, D]`.
    pub k: Tensor<3>,
    /// `[B, A, CODES]`
    pub code: Tensor<3>,
    /// One output per row of [`HEADS`] (same order), after its activation: `[B, outputs]`,
    /// or `[B, outputs * A]` channel-major for a head per square.
    pub heads: Vec<Tensor<2>>,
}

impl NetOutput {
    /// The output of `head`.
    pub fn head(&self, head: crate::desc::HeadId) -> Tensor<2> {
        self.heads[head.index()].clone()
    }
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
        let v = relu(self.value_conv.forward(x.clone()));
        let [_, vc, _, _] = v.dims();
        let v = v.mean_dims(&[2, 3]).reshape([b, vc]);
        let hidden = relu(self.value_fc1.forward(v));
        let (mut square, mut row) = (self.square_heads.iter(), self.row_heads.iter());
        let heads = HEADS
            .iter()
            .map(|h| {
                let out = match h.input {
                    HeadInput::Squares => square
                        .next()
                        .expect("a layer per square head")
                        .forward(x.clone())
                        .reshape([b, h.outputs * a]),
                    HeadInput::SquaresSummed => {
                        square
                            .next()
                            .expect("a layer per square head")
                            .forward(x.clone())
                            .sum_dims(&[2, 3])
                            .reshape([b, h.outputs])
                            / n as f32
                    }
                    HeadInput::ValueHidden => row
                        .next()
                        .expect("a layer per row head")
                        .forward(hidden.clone()),
                };
                match h.activation {
                    Activation::Identity => out,
                    Activation::Tanh => out.tanh(),
                }
            })
            .collect();
        NetOutput { q, k, code, heads }
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

/// Every layer of a [`Net`] (inference reads some of the heads, training all).
pub(crate) struct RawNet {
    pub stem: RawLayer,
    /// `[conv1, conv2, pool]` of each residual block.
    pub blocks: Vec<[RawLayer; 3]>,
    pub policy_q: RawLayer,
    pub policy_k: RawLayer,
    pub policy_code: RawLayer,
    pub value_conv: RawLayer,
    pub value_fc1: RawLayer,
    /// One layer per row of [`HEADS`], same order.
    pub heads: Vec<RawLayer>,
}

impl RawNet {
    /// The layer of `head`.
    pub(crate) fn head(&self, head: crate::desc::HeadId) -> &RawLayer {
        &self.heads[head.index()]
    }

    /// Every layer by its name in a checkpoint (the prefix of `<layer>.weight` in
    /// [`crate::desc::parameter_shapes`]).
    pub(crate) fn named(&self) -> Vec<(String, &RawLayer)> {
        let mut named: Vec<(String, &RawLayer)> = vec![
            ("stem".into(), &self.stem),
            ("policy_q".into(), &self.policy_q),
            ("policy_k".into(), &self.policy_k),
            ("policy_code".into(), &self.policy_code),
            ("value_conv".into(), &self.value_conv),
            ("value_fc1".into(), &self.value_fc1),
        ];
        for (h, layer) in HEADS.iter().zip(&self.heads) {
            named.push((h.layer.into(), layer));
        }
        for (b, [c1, c2, pool]) in self.blocks.iter().enumerate() {
            named.push((format!("blocks.{b}.conv1"), c1));
            named.push((format!("blocks.{b}.conv2"), c2));
            named.push((format!("blocks.{b}.pool"), pool));
        }
        named
    }
}

/// Why a network's layers cannot be read as plain arrays, or taken by a backend.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    /// burn could not hand out a tensor's values (its own words, as `Debug` gives them).
    #[error("{0:?}")]
    Data(#[source] DataError),
    /// `kind`: `convolution` or `linear layer`; `rank`: its weight's dimensions.
    #[error("{kind} of rank {rank}")]
    Rank { kind: &'static str, rank: usize },
    /// A convolution kernel a backend does not compute (`height`x`width`).
    #[error("{height}x{width} convolutions are not supported")]
    Kernel { height: usize, width: usize },
    /// Layers whose sizes are not those of the architecture (`config`: its `Debug` text;
    /// `stem`: the stem's inputs and outputs; `heads`: the fused heads' outputs).
    #[error(
        "layers do not match the architecture {config} (stem {}x{}, heads {heads})",
        .stem[0], .stem[1]
    )]
    Architecture {
        config: String,
        stem: [usize; 2],
        heads: usize,
    },
    /// A new input layout naming an input plane the network does not have.
    #[error("input plane {plane} taken from a network of {planes} planes")]
    InputPlane { plane: usize, planes: usize },
}

fn raw_values<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>, LayerError> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .map_err(LayerError::Data)
}

fn raw_conv(c: &Conv2d) -> Result<RawLayer, LayerError> {
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

fn raw_linear(l: &Linear) -> Result<RawLayer, LayerError> {
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
    pub(crate) fn raw(&self) -> Result<RawNet, LayerError> {
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
                .collect::<Result<_, LayerError>>()?,
            policy_q: raw_conv(&self.policy_q)?,
            policy_k: raw_conv(&self.policy_k)?,
            policy_code: raw_conv(&self.policy_code)?,
            value_conv: raw_conv(&self.value_conv)?,
            value_fc1: raw_linear(&self.value_fc1)?,
            heads: {
                let (mut square, mut row) = (self.square_heads.iter(), self.row_heads.iter());
                HEADS
                    .iter()
                    .map(|h| match h.input {
                        HeadInput::ValueHidden => raw_linear(row.next().expect("a row head")),
                        HeadInput::Squares | HeadInput::SquaresSummed => {
                            raw_conv(square.next().expect("a square head"))
                        }
                    })
                    .collect::<Result<_, LayerError>>()?
            },
        })
    }
}
