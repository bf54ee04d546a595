//! Training on tengu's own CPU kernels: the forward pass, the losses, the backward pass and
//! AdamW of [`crate::net::Net`], written out by hand on the `gemm` crate's matrix kernels
//! (the ones [`crate::cpu_net`] infers with), one thread. The same math as
//! [`crate::burn_eval::BurnTrainer`] (burn-flex with autodiff, the reference it is tested
//! against), the same weights' names and layouts in checkpoints ([`parameter_shapes`]),
//! about 2x burn-flex's samples/s on one core (`tengu bench train`).
//!
//! Shapes (`B` positions, `A = N * N` squares, `P` input planes, `C` channels, `D` policy
//! key size, `V` value channels, `W = 2 D + CODES + V + 6 + 1` the fused 1x1 heads):
//! * input planes `[B, P, A]` (the encoder's layout);
//! * activations channel-last `[B, A, C]` row-major (rows `b * A + square`);
//! * 3x3 convolutions as im2col + one product per [`CHUNK`] positions: the forward
//!   `col(x) [rows, 9 C] . W [9 C, C]` (rows of the weight matrix ordered `(tap, in)`), the
//!   input gradient `col(dy) . W_rot` with the taps mirrored and in/out swapped (a "same"
//!   3x3 convolution's transpose is the convolution with the flipped kernel), the weight
//!   gradient `col(x)^T . dy` summed over chunks;
//! * the 1x1 heads (policy query, key, codes, value features, ownership) as one product
//!   `[B A, C] . [C, W]`.
//!
//! The parameters are kept in burn's layouts (convolution `[out, in, k, k]`, linear
//! `[in, out]`), so AdamW runs elementwise on the checkpoint's own arrays and a checkpoint
//! is written without conversion; the kernels' matrices are derived from them each step
//! (a few hundred kilobytes).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tengu_rules::Variant;

use crate::checkpoint::{self, CheckpointError, CheckpointMeta};
use crate::cpu_net::{im2col3x3, product};
use crate::desc::{parameter_shapes, LossWeights, Losses, NetConfig, TrainExample};
use crate::desc::{Activation, Head, HeadInput, LossKind, CODES, HEADS};
use crate::encoder::Encoder;
use crate::evaluator::EvalError;
use crate::net::Net;
use crate::policy::PolicyIndex;

/// Positions whose im2col buffer (`CHUNK * A * 9 C` floats) one product reads.
pub const CHUNK: usize = 4;

/// AdamW's constants: burn's `AdamWConfig` defaults, which [`crate::burn_eval`] uses.
const BETA_1: f32 = 0.9;
const BETA_2: f32 = 0.999;
const EPSILON: f32 = 1e-5;

/// First bytes of an optimizer state file of this trainer.
const STATE_MAGIC: &[u8; 16] = b"tengu-adamw-v1\0\0";

// ---------------------------------------------------------------------------------------
// Matrix products

/// `out[j] += sum over rows of x[row, j]` (`x [rows, out.len()]`).
fn add_column_sums(x: &[f32], out: &mut [f32]) {
    for row in x.chunks_exact(out.len()) {
        for (o, &v) in out.iter_mut().zip(row) {
            *o += v;
        }
    }
}

/// `y = x . w + b` for a `[rows, in]` input and a `[in, out]` weight (burn's linear layer).
fn linear(x: &[f32], rows: usize, w: &[f32], b: &[f32], y: &mut [f32]) {
    let (k, n) = (w.len() / b.len(), b.len());
    product((rows, n, k), y, n, false, x, (k, 1), w, (n, 1));
    for row in y.chunks_exact_mut(n) {
        for (v, &bias) in row.iter_mut().zip(b) {
            *v += bias;
        }
    }
}

/// Backward of [`linear`]: `dw += x^T dy`, `db += sum dy`, and `dx = dy . w^T` if asked.
fn linear_backward(
    x: &[f32],
    rows: usize,
    w: &[f32],
    dy: &[f32],
    dw: &mut [f32],
    db: &mut [f32],
    dx: Option<&mut [f32]>,
) {
    let (k, n) = (w.len() / db.len(), db.len());
    product((k, n, rows), dw, n, true, x, (1, k), dy, (n, 1));
    add_column_sums(&dy[..rows * n], db);
    if let Some(dx) = dx {
        product((rows, k, n), dx, k, false, dy, (n, 1), w, (1, n));
    }
}

// ---------------------------------------------------------------------------------------
// Convolutions

/// A 3x3 "same" convolution's weight in the kernels' layouts.
struct Conv3 {
    /// `[(tap, in), out]`: the forward product's right side.
    forward: Vec<f32>,
    /// `[(tap, out), in]` with the taps mirrored (`8 - tap`): the input gradient's.
    backward: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Conv3 {
    /// From burn's `[out, in, 3, 3]`.
    fn new(weight: &[f32], outputs: usize, inputs: usize) -> Conv3 {
        let mut forward = vec![0.0; 9 * inputs * outputs];
        let mut backward = vec![0.0; 9 * inputs * outputs];
        for o in 0..outputs {
            for i in 0..inputs {
                for tap in 0..9 {
                    let w = weight[(o * inputs + i) * 9 + tap];
                    forward[(tap * inputs + i) * outputs + o] = w;
                    backward[((8 - tap) * outputs + o) * inputs + i] = w;
                }
            }
        }
        Conv3 {
            forward,
            backward,
            inputs,
            outputs,
        }
    }

    /// `y [B A, out] = (accumulate ? y : 0) + conv(x [B A, in])` (no bias).
    fn apply(
        &self,
        x: &[f32],
        positions: usize,
        n: usize,
        y: &mut [f32],
        accumulate: bool,
        col: &mut Vec<f32>,
    ) {
        conv3x3(
            x,
            positions,
            n,
            self.inputs,
            self.outputs,
            &self.forward,
            y,
            accumulate,
            col,
        );
    }

    /// `dx [B A, in] = (accumulate ? dx : 0) + the input gradient of `dy [B A, out]`.
    fn input_gradient(
        &self,
        dy: &[f32],
        positions: usize,
        n: usize,
        dx: &mut [f32],
        accumulate: bool,
        col: &mut Vec<f32>,
    ) {
        conv3x3(
            dy,
            positions,
            n,
            self.outputs,
            self.inputs,
            &self.backward,
            dx,
            accumulate,
            col,
        );
    }
}

/// `y [B A, cout] (+)= col(x [B A, cin]) . w [9 cin, cout]`, [`CHUNK`] positions a product.
#[allow(clippy::too_many_arguments)]
fn conv3x3(
    x: &[f32],
    positions: usize,
    n: usize,
    cin: usize,
    cout: usize,
    w: &[f32],
    y: &mut [f32],
    accumulate: bool,
    col: &mut Vec<f32>,
) {
    let a = n * n;
    col.resize(CHUNK * a * 9 * cin, 0.0);
    for start in (0..positions).step_by(CHUNK) {
        let count = CHUNK.min(positions - start);
        let rows = count * a;
        im2col3x3(&x[start * a * cin..], count, n, cin, col);
        product(
            (rows, cout, 9 * cin),
            &mut y[start * a * cout..],
            cout,
            accumulate,
            col,
            (9 * cin, 1),
            w,
            (cout, 1),
        );
    }
}

/// `dw [9 cin, cout] += col(x [B A, cin])^T . dy [B A, cout]`, [`CHUNK`] positions a product.
#[allow(clippy::too_many_arguments)]
fn conv3x3_weight_gradient(
    x: &[f32],
    dy: &[f32],
    positions: usize,
    n: usize,
    cin: usize,
    cout: usize,
    dw: &mut [f32],
    col: &mut Vec<f32>,
) {
    let a = n * n;
    col.resize(CHUNK * a * 9 * cin, 0.0);
    for start in (0..positions).step_by(CHUNK) {
        let count = CHUNK.min(positions - start);
        let rows = count * a;
        im2col3x3(&x[start * a * cin..], count, n, cin, col);
        product(
            (9 * cin, cout, rows),
            dw,
            cout,
            true,
            col,
            (1, 9 * cin),
            &dy[start * a * cout..],
            (cout, 1),
        );
    }
}

/// `x = max(0, x + bias[column])` row by row (`bias [columns]`).
fn add_bias_relu(x: &mut [f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(bias.len()) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v = (*v + b).max(0.0);
        }
    }
}

/// `d = 0` where the activation `y` (a ReLU's output) is 0.
fn relu_backward(d: &mut [f32], y: &[f32]) {
    for (g, &v) in d.iter_mut().zip(y) {
        if v <= 0.0 {
            *g = 0.0;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The heads' losses, by their kind in the head table

/// The loss of a head on the value trunk (`out`: `[B, outputs]` after its activation) and,
/// with `dout`, the gradient of `weight` times it before the activation (`[B, outputs]`).
fn row_head_loss(
    head: &Head,
    weight: f32,
    out: &[f32],
    batch: &[TrainExample<'_>],
    mut dout: Option<&mut [f32]>,
) -> f32 {
    let k = head.outputs;
    let bf = batch.len() as f32;
    if head.loss == LossKind::ResidualSquaredError {
        return residual_loss(head, weight, out, batch, dout);
    }
    let mut loss = 0.0f32;
    for (pos, e) in batch.iter().enumerate() {
        let target = e.values(head.target);
        let y = &out[pos * k..(pos + 1) * k];
        match head.loss {
            LossKind::SoftmaxCrossEntropy => {
                let max = y.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let log_sum = y.iter().map(|&v| (v - max).exp()).sum::<f32>().ln() + max;
                let target_sum: f32 = target.iter().sum();
                for j in 0..k {
                    loss -= target[j] * (y[j] - log_sum);
                    if let Some(d) = dout.as_mut() {
                        d[pos * k + j] =
                            ((y[j] - log_sum).exp() * target_sum - target[j]) / bf * weight;
                    }
                }
            }
            LossKind::SquaredError => {
                for j in 0..k {
                    let diff = y[j] - target[j];
                    loss += diff * diff;
                    if let Some(d) = dout.as_mut() {
                        let g = 2.0 * diff / bf * weight;
                        d[pos * k + j] = match head.activation {
                            Activation::Tanh => g * (1.0 - y[j] * y[j]),
                            Activation::Identity => g,
                        };
                    }
                }
            }
            LossKind::SquareClassCrossEntropy { .. } => {
                unreachable!("head {}: a class loss on the value trunk", head.layer)
            }
            LossKind::ResidualSquaredError => unreachable!("handled above"),
        }
    }
    loss / bf
}

/// [`LossKind::ResidualSquaredError`]: `(tanh(base + r) - target)^2` averaged over the rows
/// with a target `[base, target]` (`out`: `r`, `[B, 1]`), and with `dout` the gradient of
/// `weight` times it with respect to `r` (0 on rows without a target).
fn residual_loss(
    head: &Head,
    weight: f32,
    out: &[f32],
    batch: &[TrainExample<'_>],
    mut dout: Option<&mut [f32]>,
) -> f32 {
    debug_assert_eq!(head.outputs, 1, "head {}: one correction a row", head.layer);
    let labelled = batch
        .iter()
        .filter(|e| e.values(head.target).len() == 2)
        .count();
    let norm = labelled.max(1) as f32;
    let mut loss = 0.0f32;
    for (pos, e) in batch.iter().enumerate() {
        let &[base, target] = e.values(head.target) else {
            if let Some(d) = dout.as_mut() {
                d[pos] = 0.0;
            }
            continue;
        };
        let y = (base + out[pos]).tanh();
        let diff = y - target;
        loss += diff * diff;
        if let Some(d) = dout.as_mut() {
            d[pos] = 2.0 * diff * (1.0 - y * y) / norm * weight;
        }
    }
    loss / norm
}

/// The loss of a head on the squares (columns `offset..offset + outputs` of the fused heads
/// `f.heads [B A, width]`, `a` squares) and, with `dheads`, the gradient of `weight` times
/// it in those columns.
fn square_head_loss(
    head: &Head,
    weight: f32,
    f: &Forward,
    (offset, width, a): (usize, usize, usize),
    batch: &[TrainExample<'_>],
    mut dheads: Option<&mut [f32]>,
) -> f32 {
    let LossKind::SquareClassCrossEntropy { classes } = head.loss else {
        unreachable!("head {}: only class losses on the squares", head.layer)
    };
    let groups = head.outputs / classes;
    let with_targets = batch
        .iter()
        .filter(|e| e.classes(head.target).len() == groups * a)
        .count();
    let norm = (with_targets.max(1) * groups * a) as f32;
    let mut loss = 0.0f32;
    for (pos, e) in batch.iter().enumerate() {
        let target = e.classes(head.target);
        if target.len() != groups * a {
            continue;
        }
        for h in 0..groups {
            for sq in 0..a {
                let at = (pos * a + sq) * width + offset + h * classes;
                let l = &f.heads[at..at + classes];
                let max = l.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let log_sum = l.iter().map(|&v| (v - max).exp()).sum::<f32>().ln() + max;
                let class = (target[h * a + sq] as usize).min(classes - 1);
                loss -= l[class] - log_sum;
                if let Some(d) = dheads.as_mut() {
                    for k in 0..classes {
                        let t = if k == class { 1.0 } else { 0.0 };
                        d[at + k] = ((l[k] - log_sum).exp() - t) * weight / norm;
                    }
                }
            }
        }
    }
    loss / norm
}

// ---------------------------------------------------------------------------------------
// Parameters

/// One parameter tensor in burn's layout with its AdamW moments.
struct Param {
    name: String,
    value: Vec<f32>,
    moment_1: Vec<f32>,
    moment_2: Vec<f32>,
}

/// Where each layer's weight and bias sit in the parameter list ([`parameter_shapes`]'s
/// order); a layer is `(weight, bias)`.
struct Layers {
    stem: (usize, usize),
    /// `conv1`, `conv2`, `pool` of each block.
    blocks: Vec<[(usize, usize); 3]>,
    /// Policy query, policy key, codes, value features, then the square heads of [`HEADS`]:
    /// the fused 1x1 heads, in the order of their columns.
    heads: Vec<(usize, usize)>,
    value_fc1: (usize, usize),
    /// Where each row of [`HEADS`] is computed, in the table's order.
    head_slots: Vec<HeadSlot>,
}

/// Where a head of [`HEADS`] is computed.
#[derive(Copy, Clone)]
enum HeadSlot {
    /// Columns `offset..offset + outputs` of the fused 1x1 heads.
    Columns { offset: usize },
    /// Columns `offset..offset + outputs` of the fused 1x1 heads, summed over the squares
    /// into one row of `outputs` values.
    Summed { offset: usize },
    /// Output `index` among the heads on the value trunk ([`Forward::hidden_outputs`]), a
    /// linear layer `(weight, bias)`.
    Hidden { index: usize, layer: (usize, usize) },
}

impl Layers {
    fn new(config: &NetConfig) -> Layers {
        let names: Vec<String> = parameter_shapes(config)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let at = |layer: &str| {
            let find = |suffix: &str| {
                let name = format!("{layer}.{suffix}");
                names
                    .iter()
                    .position(|n| *n == name)
                    .unwrap_or_else(|| panic!("{name} is in parameter_shapes"))
            };
            (find("weight"), find("bias"))
        };
        Layers {
            stem: at("stem"),
            blocks: (0..config.blocks)
                .map(|b| {
                    [
                        at(&format!("blocks.{b}.conv1")),
                        at(&format!("blocks.{b}.conv2")),
                        at(&format!("blocks.{b}.pool")),
                    ]
                })
                .collect(),
            heads: ["policy_q", "policy_k", "policy_code", "value_conv"]
                .into_iter()
                .chain(
                    HEADS
                        .iter()
                        .filter(|h| h.input.is_convolution())
                        .map(|h| h.layer),
                )
                .map(at)
                .collect(),
            value_fc1: at("value_fc1"),
            head_slots: {
                let mut offset = 2 * config.head_dim + CODES + config.value_channels;
                let mut index = 0;
                HEADS
                    .iter()
                    .map(|h| match h.input {
                        HeadInput::Squares => {
                            offset += h.outputs;
                            HeadSlot::Columns {
                                offset: offset - h.outputs,
                            }
                        }
                        HeadInput::SquaresSummed => {
                            offset += h.outputs;
                            HeadSlot::Summed {
                                offset: offset - h.outputs,
                            }
                        }
                        HeadInput::ValueHidden => {
                            index += 1;
                            HeadSlot::Hidden {
                                index: index - 1,
                                layer: at(h.layer),
                            }
                        }
                    })
                    .collect()
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// The trainer

/// Buffers reused from step to step: the im2col scratch and the activation and gradient
/// arrays (tens of megabytes a step, which fresh allocations would fault in again).
#[derive(Default)]
struct Scratch {
    col: Vec<f32>,
    pool: Vec<Vec<f32>>,
}

impl Scratch {
    /// `len` zeros, in the pooled buffer that fits best (the smallest that holds them).
    fn zeros(&mut self, len: usize) -> Vec<f32> {
        let fit = (0..self.pool.len())
            .filter(|&i| self.pool[i].capacity() >= len)
            .min_by_key(|&i| self.pool[i].capacity())
            .or_else(|| (0..self.pool.len()).max_by_key(|&i| self.pool[i].capacity()));
        let mut v = fit.map_or_else(Vec::new, |i| self.pool.swap_remove(i));
        v.clear();
        v.resize(len, 0.0);
        v
    }

    /// Returns a buffer to the pool.
    fn give(&mut self, v: Vec<f32>) {
        self.pool.push(v);
    }
}

/// Activations of one forward pass that the backward pass reads.
struct Forward {
    positions: usize,
    /// Input planes `[B, P, A]`.
    input: Vec<f32>,
    /// Legal-move slots `(from, to, code)` per position.
    slots: Vec<Vec<(u16, u16, u8)>>,
    /// The stem's output, then each block's output: `[B A, C]` each.
    x: Vec<Vec<f32>>,
    /// Each block's first activation `relu(conv1(x))`, `[B A, C]`.
    h: Vec<Vec<f32>>,
    /// Each block's mean of `h` over the board, `[B, C]`.
    pooled: Vec<Vec<f32>>,
    /// The fused heads `[B A, W]`.
    heads: Vec<f32>,
    /// `relu(value features)` averaged over the board, `[B, V]`.
    value_mean: Vec<f32>,
    /// `relu(value_fc1)`, `[B, VALUE_HIDDEN]`.
    hidden: Vec<f32>,
    /// The outputs of the heads on the value trunk, after their activation, in the order of
    /// [`HEADS`]: `[B, outputs]` each (the WDL logits, `tanh(material_fc)`).
    hidden_outputs: Vec<Vec<f32>>,
}

impl Forward {
    /// Gives the large arrays back to `scratch`.
    fn recycle(self, scratch: &mut Scratch) {
        scratch.give(self.input);
        scratch.give(self.heads);
        for v in self.x.into_iter().chain(self.h) {
            scratch.give(v);
        }
    }
}

/// The network trained with AdamW on tengu's CPU kernels (see the module doc).
pub struct CpuTrainer {
    config: NetConfig,
    encoder: Encoder,
    index: PolicyIndex,
    params: Vec<Param>,
    layers: Layers,
    /// AdamW steps taken (burn's `time`).
    time: u32,
    weight_decay: f32,
    pub learning_rate: f64,
    /// Weights of the auxiliary losses.
    pub weights: LossWeights,
    /// Buffers reused between steps.
    scratch: Scratch,
    /// Time per stage of the steps so far.
    /// Time spent per stage of a training step (see `tengu bench train --profile`).
    pub profile: crate::cpu_net::Profile,
}

impl CpuTrainer {
    /// A trainer starting from the weights of `net` (architecture `config`).
    pub fn new(
        variant: &Variant,
        net: &Net,
        config: &NetConfig,
        learning_rate: f64,
        weight_decay: f32,
    ) -> Result<CpuTrainer, EvalError> {
        let raw = net.raw().map_err(|e| EvalError::Backend(e.to_string()))?;
        let named = raw.named();
        let mut params = Vec::new();
        for (name, shape) in parameter_shapes(config) {
            let (layer, part) = name.rsplit_once('.').expect("parameter names have a dot");
            let raw = named
                .iter()
                .find(|(n, _)| n == layer)
                .map(|(_, l)| *l)
                .ok_or_else(|| EvalError::Architecture(format!("no layer {layer}")))?;
            let value = if part == "weight" {
                &raw.weight
            } else {
                &raw.bias
            };
            let want: i64 = shape.iter().product();
            if value.len() as i64 != want {
                return Err(EvalError::Architecture(format!(
                    "{name} has {} values, the architecture {shape:?}",
                    value.len()
                )));
            }
            params.push(Param {
                name,
                value: value.clone(),
                moment_1: vec![0.0; value.len()],
                moment_2: vec![0.0; value.len()],
            });
        }
        let encoder = Encoder::for_network(variant, config.planes);
        if encoder.planes() != config.planes {
            return Err(EvalError::Architecture(format!(
                "{} input planes fit no encoder layout of {}",
                config.planes,
                variant.id()
            )));
        }
        Ok(CpuTrainer {
            config: config.clone(),
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            layers: Layers::new(config),
            params,
            time: 0,
            weight_decay,
            learning_rate,
            weights: LossWeights::default(),
            scratch: Scratch::default(),
            profile: crate::cpu_net::Profile::default(),
        })
    }

    /// A trainer starting from the weights of the checkpoint at `path` (refused, naming
    /// the file, when it is of another game or its weights do not fit its architecture).
    pub fn from_checkpoint(
        variant: &Variant,
        path: &Path,
        learning_rate: f64,
        weight_decay: f32,
    ) -> Result<CpuTrainer, CheckpointError> {
        let device = burn::tensor::Device::default();
        let (net, meta) = checkpoint::load(path, variant.id(), &device)?;
        CpuTrainer::new(variant, &net, &meta.config, learning_rate, weight_decay)
            .map_err(|e| CheckpointError::of_evaluator(path, e))
    }

    fn value(&self, i: usize) -> &[f32] {
        &self.params[i].value
    }

    /// Columns of the fused heads: `2 D + CODES + V` and the outputs of the square heads.
    fn head_width(&self) -> usize {
        let squares: usize = HEADS
            .iter()
            .filter(|h| h.input.is_convolution())
            .map(|h| h.outputs)
            .sum();
        2 * self.config.head_dim + CODES + self.config.value_channels + squares
    }

    /// The fused 1x1 heads' weight `[C, W]` and bias `[W]`.
    fn head_matrix(&self) -> (Vec<f32>, Vec<f32>) {
        let c = self.config.channels;
        let width = self.head_width();
        let mut w = vec![0.0; c * width];
        let mut bias = Vec::with_capacity(width);
        let mut offset = 0;
        for &(wi, bi) in &self.layers.heads {
            let outs = self.value(bi).len();
            let src = self.value(wi);
            for o in 0..outs {
                for i in 0..c {
                    w[i * width + offset + o] = src[o * c + i];
                }
            }
            bias.extend_from_slice(self.value(bi));
            offset += outs;
        }
        (w, bias)
    }

    /// The forward pass of `batch`, keeping what the backward pass needs.
    /// Its arrays come from `scratch` (give them back with [`Forward::recycle`]).
    fn forward(
        &self,
        batch: &[TrainExample<'_>],
        scratch: &mut Scratch,
    ) -> Result<Forward, EvalError> {
        let (n, c, p) = (self.config.size, self.config.channels, self.config.planes);
        let a = n * n;
        let b = batch.len();
        let rows = b * a;
        let len = self.encoder.len();
        let mut input = scratch.zeros(b * len);
        let mut slots = Vec::with_capacity(b);
        for (i, e) in batch.iter().enumerate() {
            if e.position.size() != n {
                return Err(EvalError::WrongGame {
                    expected: format!("a board of {n}x{n}"),
                    found: format!("a board of {0}x{0}", e.position.size()),
                });
            }
            self.encoder.encode(
                e.position,
                e.repetitions,
                &mut input[i * len..(i + 1) * len],
            );
            let mut list = Vec::with_capacity(e.moves.len());
            for &m in e.moves {
                let s = self.index.slot(e.position, m)?;
                list.push((s.from, s.to, s.code));
            }
            slots.push(list);
        }

        // Stem: a 1x1 convolution reading the planes `[P, A]` transposed.
        let (sw, sb) = self.layers.stem;
        let mut stem_w = vec![0.0; p * c];
        for (o, row) in self.value(sw).chunks_exact(p).enumerate() {
            for (i, &w) in row.iter().enumerate() {
                stem_w[i * c + o] = w;
            }
        }
        let mut x0 = scratch.zeros(rows * c);
        for pos in 0..b {
            product(
                (a, c, p),
                &mut x0[pos * a * c..],
                c,
                false,
                &input[pos * p * a..(pos + 1) * p * a],
                (1, a),
                &stem_w,
                (c, 1),
            );
        }
        add_bias_relu(&mut x0, self.value(sb));
        let mut xs = vec![x0];
        let mut hs = Vec::with_capacity(self.config.blocks);
        let mut pooled_all = Vec::with_capacity(self.config.blocks);
        for blk in 0..self.config.blocks {
            let [(w1, b1), (w2, b2), (wp, bp)] = self.layers.blocks[blk];
            let conv1 = Conv3::new(self.value(w1), c, c);
            let conv2 = Conv3::new(self.value(w2), c, c);
            let x = xs.last().expect("the stem's output");
            let mut h = scratch.zeros(rows * c);
            conv1.apply(x, b, n, &mut h, false, &mut scratch.col);
            add_bias_relu(&mut h, self.value(b1));
            let mut pooled = vec![0.0f32; b * c];
            for pos in 0..b {
                add_column_sums(
                    &h[pos * a * c..(pos + 1) * a * c],
                    &mut pooled[pos * c..(pos + 1) * c],
                );
            }
            pooled.iter_mut().for_each(|v| *v /= a as f32);
            let mut pool_bias = vec![0.0f32; b * c];
            linear(&pooled, b, self.value(wp), self.value(bp), &mut pool_bias);
            // The skip: x + conv2(h) + bias + pool bias.
            let mut out = scratch.zeros(rows * c);
            out.copy_from_slice(x);
            conv2.apply(&h, b, n, &mut out, true, &mut scratch.col);
            let conv2_bias = self.value(b2);
            for pos in 0..b {
                let pb = &pool_bias[pos * c..(pos + 1) * c];
                for row in out[pos * a * c..(pos + 1) * a * c].chunks_exact_mut(c) {
                    for ((v, &cb), &pbv) in row.iter_mut().zip(conv2_bias).zip(pb) {
                        *v = (*v + cb + pbv).max(0.0);
                    }
                }
            }
            xs.push(out);
            hs.push(h);
            pooled_all.push(pooled);
        }

        // Heads.
        let x = xs.last().expect("the tower's output");
        let (hw, hb) = self.head_matrix();
        let width = hw.len() / c;
        let mut heads = scratch.zeros(rows * width);
        linear(x, rows, &hw, &hb, &mut heads);
        let d = self.config.head_dim;
        let vc = self.config.value_channels;
        let voff = 2 * d + CODES;
        let mut value_mean = vec![0.0f32; b * vc];
        for pos in 0..b {
            let mean = &mut value_mean[pos * vc..(pos + 1) * vc];
            for sq in 0..a {
                let row = &heads[(pos * a + sq) * width + voff..][..vc];
                for (m, &v) in mean.iter_mut().zip(row) {
                    *m += v.max(0.0);
                }
            }
            mean.iter_mut().for_each(|m| *m /= a as f32);
        }
        let (f1w, f1b) = self.layers.value_fc1;
        let hidden_n = self.value(f1b).len();
        let mut hidden = vec![0.0f32; b * hidden_n];
        linear(
            &value_mean,
            b,
            self.value(f1w),
            self.value(f1b),
            &mut hidden,
        );
        hidden.iter_mut().for_each(|h| *h = h.max(0.0));
        let mut hidden_outputs = Vec::new();
        for (head, slot) in HEADS.iter().zip(&self.layers.head_slots) {
            let HeadSlot::Hidden {
                layer: (w, bias), ..
            } = *slot
            else {
                continue;
            };
            let mut out = vec![0.0f32; b * head.outputs];
            linear(&hidden, b, self.value(w), self.value(bias), &mut out);
            if head.activation == Activation::Tanh {
                out.iter_mut().for_each(|m| *m = m.tanh());
            }
            hidden_outputs.push(out);
        }
        Ok(Forward {
            positions: b,
            input,
            slots,
            x: xs,
            h: hs,
            pooled: pooled_all,
            heads,
            value_mean,
            hidden,
            hidden_outputs,
        })
    }

    /// The losses of `f` on `batch` and, if `grad` is given, the gradient of the weighted
    /// objective with respect to the fused heads (`grad [B A, W]`, overwritten) and to each
    /// head on the value trunk before its activation (`[B, outputs]` each, in the order of
    /// [`HEADS`], overwritten).
    fn losses_of(
        &self,
        f: &Forward,
        batch: &[TrainExample<'_>],
        mut grad: Option<(&mut [f32], &mut [Vec<f32>])>,
    ) -> Losses {
        let n = self.config.size;
        let a = n * n;
        let b = f.positions;
        let bf = b as f32;
        let width = self.head_width();
        let d = self.config.head_dim;
        let scale = 1.0 / (d as f32).sqrt();
        let code_off = 2 * d;
        if let Some((heads, _)) = grad.as_mut() {
            heads.fill(0.0);
        }

        // Policy: cross-entropy over the legal moves.
        let mut policy = 0.0f32;
        let mut logits = Vec::new();
        for (pos, (e, slots)) in batch.iter().zip(&f.slots).enumerate() {
            let row = |sq: usize| &f.heads[(pos * a + sq) * width..(pos * a + sq + 1) * width];
            logits.clear();
            for &(from, to, code) in slots {
                let (qf, kt) = (row(from as usize), row(to as usize));
                let dot: f32 = qf[..d].iter().zip(&kt[d..2 * d]).map(|(x, y)| x * y).sum();
                logits.push(dot * scale + qf[code_off + code as usize]);
            }
            if logits.is_empty() {
                continue;
            }
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = logits.iter().map(|&l| (l - max).exp()).sum();
            let log_sum = sum.ln() + max;
            let target_sum: f32 = e.policy.iter().sum();
            for (&l, &t) in logits.iter().zip(e.policy) {
                policy -= t * (l - log_sum);
            }
            if let Some((heads, _)) = grad.as_mut() {
                for (j, &(from, to, code)) in slots.iter().enumerate() {
                    let prob = (logits[j] - log_sum).exp();
                    let g = (prob * target_sum - e.policy[j]) / bf;
                    if g == 0.0 {
                        continue;
                    }
                    let (from, to) = (from as usize, to as usize);
                    let gs = g * scale;
                    for k in 0..d {
                        let qk = f.heads[(pos * a + from) * width + k];
                        let kk = f.heads[(pos * a + to) * width + d + k];
                        heads[(pos * a + from) * width + k] += gs * kk;
                        heads[(pos * a + to) * width + d + k] += gs * qk;
                    }
                    heads[(pos * a + from) * width + code_off + code as usize] += g;
                }
            }
        }
        policy /= bf;

        let mut losses = Losses {
            policy,
            ..Losses::default()
        };
        for (head, slot) in HEADS.iter().zip(&self.layers.head_slots) {
            let weight = self.weights.of(head);
            let loss = match *slot {
                HeadSlot::Hidden { index, .. } => {
                    let out = &f.hidden_outputs[index];
                    let dout = grad.as_mut().map(|(_, hidden)| &mut hidden[index][..]);
                    row_head_loss(head, weight, out, batch, dout)
                }
                HeadSlot::Columns { offset } => {
                    let dheads = grad.as_mut().map(|(heads, _)| &mut heads[..]);
                    square_head_loss(head, weight, f, (offset, width, a), batch, dheads)
                }
                HeadSlot::Summed { offset } => {
                    // Each row's outputs: its columns summed over the squares; the
                    // gradient of a sum reaches every square alike.
                    let k = head.outputs;
                    let scale = 1.0 / n as f32;
                    let mut out = vec![0.0f32; b * k];
                    for pos in 0..b {
                        for sq in 0..a {
                            let at = (pos * a + sq) * width + offset;
                            for j in 0..k {
                                out[pos * k + j] += f.heads[at + j] * scale;
                            }
                        }
                    }
                    let mut dout = grad.as_ref().map(|_| vec![0.0f32; b * k]);
                    let loss = row_head_loss(head, weight, &out, batch, dout.as_deref_mut());
                    if let (Some((heads, _)), Some(dout)) = (grad.as_mut(), dout) {
                        for pos in 0..b {
                            for sq in 0..a {
                                let at = (pos * a + sq) * width + offset;
                                for j in 0..k {
                                    heads[at + j] = dout[pos * k + j] * scale;
                                }
                            }
                        }
                    }
                    loss
                }
            };
            losses.set_head(head.id, loss);
        }
        losses
    }

    /// The losses of the current weights on `batch`, without a step (held-out data).
    pub fn losses(&self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        let f = self.forward(batch, &mut Scratch::default())?;
        Ok(self.losses_of(&f, batch, None))
    }

    /// One optimizer step on `batch`; returns the losses before the step.
    pub fn step(&mut self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        let (losses, grads) = self.backward(batch)?;
        let mut clock = Instant::now();
        self.adamw(&grads);
        let mut profile = std::mem::take(&mut self.profile);
        profile.lap("optimizer", &mut clock);
        self.profile = profile;
        Ok(losses)
    }

    /// The losses of the current weights on `batch` and the gradient of the objective
    /// (`policy + value + ownership * w.ownership + material * w.material`) with respect to
    /// every parameter, as `(name, values)` in burn's layouts; no step.
    pub fn gradients(
        &mut self,
        batch: &[TrainExample<'_>],
    ) -> Result<(Losses, Vec<(String, Vec<f32>)>), EvalError> {
        let (losses, grads) = self.backward(batch)?;
        let named = self
            .params
            .iter()
            .zip(grads)
            .map(|(p, g)| (p.name.clone(), g))
            .collect();
        Ok((losses, named))
    }

    /// Forward and backward pass: the losses and each parameter's gradient (the order of
    /// `self.params`).
    fn backward(
        &mut self,
        batch: &[TrainExample<'_>],
    ) -> Result<(Losses, Vec<Vec<f32>>), EvalError> {
        let mut clock = Instant::now();
        let mut scratch = std::mem::take(&mut self.scratch);
        let result = self.backward_with(batch, &mut clock, &mut scratch);
        self.scratch = scratch;
        result
    }

    /// [`CpuTrainer::backward`] with the buffers of `scratch`.
    fn backward_with(
        &mut self,
        batch: &[TrainExample<'_>],
        clock: &mut Instant,
        scratch: &mut Scratch,
    ) -> Result<(Losses, Vec<Vec<f32>>), EvalError> {
        let f = self.forward(batch, scratch)?;
        let mut profile = std::mem::take(&mut self.profile);
        profile.lap("forward", clock);
        let (n, c, p) = (self.config.size, self.config.channels, self.config.planes);
        let a = n * n;
        let b = f.positions;
        let rows = b * a;
        let width = self.head_width();
        let mut dheads = scratch.zeros(rows * width);
        let mut dhidden_outputs: Vec<Vec<f32>> = f
            .hidden_outputs
            .iter()
            .map(|o| vec![0.0f32; o.len()])
            .collect();
        let losses = self.losses_of(&f, batch, Some((&mut dheads, &mut dhidden_outputs)));
        profile.lap("losses", clock);
        let mut grads: Vec<Vec<f32>> = self
            .params
            .iter()
            .map(|q| vec![0.0; q.value.len()])
            .collect();
        let grad_of = |i: usize, grads: &mut Vec<Vec<f32>>| std::mem::take(&mut grads[i]);

        // The heads on the value trunk, into the hidden layer's gradient.
        let hidden_n = f.hidden.len() / b;
        let mut dhidden = vec![0.0f32; b * hidden_n];
        let mut dhidden_head = vec![0.0f32; b * hidden_n];
        for slot in &self.layers.head_slots {
            let HeadSlot::Hidden {
                index,
                layer: (w, bias),
            } = *slot
            else {
                continue;
            };
            let (mut gw, mut gb) = (grad_of(w, &mut grads), grad_of(bias, &mut grads));
            // The first head's input gradient is the sum so far; later ones are added.
            let first = index == 0;
            dhidden_head.fill(0.0);
            linear_backward(
                &f.hidden,
                b,
                self.value(w),
                &dhidden_outputs[index],
                &mut gw,
                &mut gb,
                Some(if first {
                    &mut dhidden
                } else {
                    &mut dhidden_head
                }),
            );
            if !first {
                for (g, &m) in dhidden.iter_mut().zip(&dhidden_head) {
                    *g += m;
                }
            }
            grads[w] = gw;
            grads[bias] = gb;
        }
        relu_backward(&mut dhidden, &f.hidden);
        let (f1w, f1b) = self.layers.value_fc1;
        let (mut g1w, mut g1b) = (grad_of(f1w, &mut grads), grad_of(f1b, &mut grads));
        let vc = self.config.value_channels;
        let mut dmean = vec![0.0f32; b * vc];
        linear_backward(
            &f.value_mean,
            b,
            self.value(f1w),
            &dhidden,
            &mut g1w,
            &mut g1b,
            Some(&mut dmean),
        );
        let voff = 2 * self.config.head_dim + CODES;
        for pos in 0..b {
            for sq in 0..a {
                let at = (pos * a + sq) * width + voff;
                for k in 0..vc {
                    if f.heads[at + k] > 0.0 {
                        dheads[at + k] += dmean[pos * vc + k] / a as f32;
                    }
                }
            }
        }
        grads[f1w] = g1w;
        grads[f1b] = g1b;

        // Fused heads.
        let (hw, _) = self.head_matrix();
        let mut ghw = vec![0.0f32; c * width];
        let mut ghb = vec![0.0f32; width];
        let mut dx = scratch.zeros(rows * c);
        let x_top = f.x.last().expect("the tower's output");
        linear_backward(x_top, rows, &hw, &dheads, &mut ghw, &mut ghb, Some(&mut dx));
        let mut offset = 0;
        for &(wi, bi) in &self.layers.heads {
            let outs = self.params[bi].value.len();
            for o in 0..outs {
                for i in 0..c {
                    grads[wi][o * c + i] = ghw[i * width + offset + o];
                }
            }
            grads[bi].copy_from_slice(&ghb[offset..offset + outs]);
            offset += outs;
        }
        profile.lap("heads backward", clock);

        // The tower, last block first.
        let mut dh = scratch.zeros(rows * c);
        let col = &mut scratch.col;
        let mut dconv = vec![0.0f32; 9 * c * c];
        for blk in (0..self.config.blocks).rev() {
            let [(w1, b1), (w2, b2), (wp, bp)] = self.layers.blocks[blk];
            let (x_in, h, out) = (&f.x[blk], &f.h[blk], &f.x[blk + 1]);
            // dz: the gradient at the block's pre-activation (skip + conv2 + biases).
            let mut dz = dx;
            relu_backward(&mut dz, out);
            add_column_sums(&dz, &mut grads[b2]);
            let mut dpool = vec![0.0f32; b * c];
            for pos in 0..b {
                add_column_sums(
                    &dz[pos * a * c..(pos + 1) * a * c],
                    &mut dpool[pos * c..(pos + 1) * c],
                );
            }
            let mut dpooled = vec![0.0f32; b * c];
            let (mut gpw, mut gpb) = (grad_of(wp, &mut grads), grad_of(bp, &mut grads));
            linear_backward(
                &f.pooled[blk],
                b,
                self.value(wp),
                &dpool,
                &mut gpw,
                &mut gpb,
                Some(&mut dpooled),
            );
            grads[wp] = gpw;
            grads[bp] = gpb;
            // conv2: weight and input gradients.
            let conv2 = Conv3::new(self.value(w2), c, c);
            dconv.fill(0.0);
            conv3x3_weight_gradient(h, &dz, b, n, c, c, &mut dconv, col);
            conv3_grad_to_burn(&dconv, c, c, &mut grads[w2]);
            conv2.input_gradient(&dz, b, n, &mut dh, false, col);
            for pos in 0..b {
                let dp = &dpooled[pos * c..(pos + 1) * c];
                for row in dh[pos * a * c..(pos + 1) * a * c].chunks_exact_mut(c) {
                    for (g, &v) in row.iter_mut().zip(dp) {
                        *g += v / a as f32;
                    }
                }
            }
            relu_backward(&mut dh, h);
            add_column_sums(&dh, &mut grads[b1]);
            // conv1: weight gradient, and the input gradient added to the skip's.
            let conv1 = Conv3::new(self.value(w1), c, c);
            dconv.fill(0.0);
            conv3x3_weight_gradient(x_in, &dh, b, n, c, c, &mut dconv, col);
            conv3_grad_to_burn(&dconv, c, c, &mut grads[w1]);
            conv1.input_gradient(&dh, b, n, &mut dz, true, col);
            dx = dz;
        }
        profile.lap("tower backward", clock);

        // Stem.
        relu_backward(&mut dx, &f.x[0]);
        let (sw, sb) = self.layers.stem;
        let mut gs = vec![0.0f32; p * c];
        for pos in 0..b {
            product(
                (p, c, a),
                &mut gs,
                c,
                true,
                &f.input[pos * p * a..(pos + 1) * p * a],
                (a, 1),
                &dx[pos * a * c..],
                (c, 1),
            );
        }
        for o in 0..c {
            for i in 0..p {
                grads[sw][o * p + i] = gs[i * c + o];
            }
        }
        add_column_sums(&dx, &mut grads[sb]);
        profile.lap("stem backward", clock);
        self.profile = profile;
        for v in [dx, dh, dheads] {
            scratch.give(v);
        }
        f.recycle(scratch);
        Ok((losses, grads))
    }

    /// One AdamW update of every parameter with `grads` (burn's `AdamW` with its default
    /// betas and epsilon, operation for operation).
    fn adamw(&mut self, grads: &[Vec<f32>]) {
        self.time += 1;
        let t = self.time as i32;
        let correction_1 = 1.0f32 - BETA_1.powi(t);
        let correction_2 = 1.0f32 - BETA_2.powi(t);
        let decay = (1.0 - self.learning_rate * self.weight_decay as f64) as f32;
        let lr = self.learning_rate as f32;
        for (param, grad) in self.params.iter_mut().zip(grads) {
            for (((v, m1), m2), &g) in param
                .value
                .iter_mut()
                .zip(&mut param.moment_1)
                .zip(&mut param.moment_2)
                .zip(grad)
            {
                *m1 = *m1 * BETA_1 + g * (1.0 - BETA_1);
                *m2 = *m2 * BETA_2 + g * g * (1.0 - BETA_2);
                let delta = (*m1 / correction_1) / ((*m2 / correction_2).sqrt() + EPSILON);
                *v = *v * decay - delta * lr;
            }
        }
    }

    /// The current weights as `(name, shape, values)` in burn's layouts.
    pub fn tensors(&self) -> Vec<(String, Vec<i64>, Vec<f32>)> {
        parameter_shapes(&self.config)
            .into_iter()
            .zip(&self.params)
            .map(|((name, shape), p)| (name, shape, p.value.clone()))
            .collect()
    }

    /// Writes the current weights as a checkpoint (atomically), readable by every backend.
    pub fn save(&self, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError> {
        checkpoint::write_safetensors(path, meta, &self.tensors())
    }

    /// Writes the AdamW state (step count, both moments of every parameter) to `path` in
    /// the format of [`write_adamw_state`].
    pub fn save_optimizer(&self, path: &Path) -> Result<(), OptimizerStateError> {
        let params = self
            .params
            .iter()
            .map(|p| (p.name.as_str(), &p.moment_1[..], &p.moment_2[..]));
        write_adamw_state(path, u64::from(self.time), params)
    }

    /// Restores the state written by [`CpuTrainer::save_optimizer`] (or by the PyTorch
    /// trainer, [`write_adamw_state`]) for the same architecture; on error nothing changes
    /// (the moments stay as they were).
    pub fn load_optimizer(&mut self, path: &Path) -> Result<(), OptimizerStateError> {
        let state = read_adamw_state(path)?;
        let bad = |what: &str| OptimizerStateError::NotThisState {
            path: path.to_path_buf(),
            problem: what.to_string(),
        };
        // A head added after the state was written (`desc::added_later`) is absent from it:
        // its moments start at zero, as the head itself did. Any number of such heads may
        // be missing (a state from before the judge lacks every later head); every other
        // parameter must be there, in order, with its size.
        let time = u32::try_from(state.steps).map_err(|_| bad("step count out of range"))?;
        let counts = format!(
            "the file has {} parameters, the network {}",
            state.params.len(),
            self.params.len()
        );
        let mut saved = state.params.into_iter().peekable();
        let mut moments = Vec::with_capacity(self.params.len());
        for p in &self.params {
            match saved.next_if(|s| s.name == p.name) {
                Some(s)
                    if s.moment_1.len() != p.value.len() || s.moment_2.len() != p.value.len() =>
                {
                    return Err(bad(&format!(
                        "{} has {} values, the network {}",
                        p.name,
                        s.moment_1.len(),
                        p.value.len()
                    )));
                }
                Some(s) => moments.push(Some(s)),
                None if crate::desc::added_later(&p.name) => moments.push(None),
                None => {
                    return Err(bad(&match saved.peek() {
                        Some(s) => {
                            format!("parameter {:?} where {} belongs ({counts})", s.name, p.name)
                        }
                        None => format!("no parameter {} ({counts})", p.name),
                    }));
                }
            }
        }
        if let Some(extra) = saved.next() {
            return Err(bad(&format!(
                "parameter {:?}, which the network does not have ({counts})",
                extra.name
            )));
        }
        // Checked whole before anything changes: a refused state leaves the moments as
        // they were.
        for (p, saved) in self.params.iter_mut().zip(moments) {
            match saved {
                Some(s) => {
                    p.moment_1.copy_from_slice(&s.moment_1);
                    p.moment_2.copy_from_slice(&s.moment_2);
                }
                None => {
                    p.moment_1.fill(0.0);
                    p.moment_2.fill(0.0);
                }
            }
        }
        self.time = time;
        Ok(())
    }
}

/// Why an optimizer state could not be written or read, or does not fit the trainer.
#[derive(Debug, thiserror::Error)]
pub enum OptimizerStateError {
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not an AdamW state of this trainer (`problem`: what is wrong: another
    /// format, truncated, a parameter missing or of another size).
    #[error("{}: not this trainer's optimizer state: {problem}", .path.display())]
    NotThisState { path: PathBuf, problem: String },
    /// A parameter given with moments of two lengths (`first`, `second`: their counts).
    #[error("{name}: {first} first moments and {second} second moments")]
    Moments {
        name: String,
        first: usize,
        second: usize,
    },
}

impl OptimizerStateError {
    /// [`OptimizerStateError::Io`] of `path`.
    pub fn io(path: &Path, source: std::io::Error) -> OptimizerStateError {
        OptimizerStateError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// An AdamW state as [`read_adamw_state`] reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamWState {
    /// AdamW steps taken (the `t` of the bias corrections; torch's `state["step"]`).
    pub steps: u64,
    /// Each parameter's moments, in the order written ([`parameter_shapes`]'s).
    pub params: Vec<AdamWMoments>,
}

/// One parameter's AdamW moments, in the checkpoint's layout of that parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamWMoments {
    /// The parameter's checkpoint name (`blocks.0.conv1.weight`).
    pub name: String,
    /// The moving average of the gradient (torch's `exp_avg`).
    pub moment_1: Vec<f32>,
    /// The moving average of the squared gradient (torch's `exp_avg_sq`).
    pub moment_2: Vec<f32>,
}

/// Writes an AdamW state file: [`STATE_MAGIC`], the step count (u64), the parameter count
/// (u64), then per parameter its name (u64 length + UTF-8), value count (u64) and both
/// moments (f32), all little-endian. The CPU trainer writes its state so, and the PyTorch
/// trainer (through the Python package) writes torch's AdamW state so, since the update
/// rule, constants and gradients are the same (`python/tengu/train`), so that either
/// trainer resumes the other's run with its moments.
pub fn write_adamw_state<'a>(
    path: &Path,
    steps: u64,
    params: impl ExactSizeIterator<Item = (&'a str, &'a [f32], &'a [f32])>,
) -> Result<(), OptimizerStateError> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(STATE_MAGIC);
    bytes.extend_from_slice(&steps.to_le_bytes());
    bytes.extend_from_slice(&(params.len() as u64).to_le_bytes());
    for (name, moment_1, moment_2) in params {
        if moment_1.len() != moment_2.len() {
            return Err(OptimizerStateError::Moments {
                name: name.to_string(),
                first: moment_1.len(),
                second: moment_2.len(),
            });
        }
        bytes.extend_from_slice(&(name.len() as u64).to_le_bytes());
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(&(moment_1.len() as u64).to_le_bytes());
        for x in moment_1.iter().chain(moment_2) {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(path, bytes).map_err(|e| OptimizerStateError::io(path, e))
}

/// Reads a file written by [`write_adamw_state`]; an error names the file and what is wrong
/// (another format, truncated, trailing bytes).
pub fn read_adamw_state(path: &Path) -> Result<AdamWState, OptimizerStateError> {
    let bytes = std::fs::read(path).map_err(|e| OptimizerStateError::io(path, e))?;
    let bad = |what: &str| OptimizerStateError::NotThisState {
        path: path.to_path_buf(),
        problem: what.to_string(),
    };
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
    };
    if r.take(STATE_MAGIC.len()).ok_or_else(|| bad("truncated"))? != STATE_MAGIC {
        return Err(bad("another format (a burn optimizer state?)"));
    }
    let steps = r.u64().ok_or_else(|| bad("truncated"))?;
    let count = r.u64().ok_or_else(|| bad("truncated"))?;
    let mut params = Vec::new();
    for _ in 0..count {
        let len = r.u64().ok_or_else(|| bad("truncated"))? as usize;
        let name = r.take(len).ok_or_else(|| bad("truncated"))?;
        let name = String::from_utf8(name.to_vec()).map_err(|_| bad("a name not in UTF-8"))?;
        let values = r.u64().ok_or_else(|| bad("truncated"))? as usize;
        let mut floats = r
            .take(values.saturating_mul(8))
            .ok_or_else(|| bad("truncated"))?
            .chunks_exact(4)
            .map(|s| f32::from_le_bytes(s.try_into().expect("4 bytes")));
        let moment_1 = floats.by_ref().take(values).collect();
        let moment_2 = floats.collect();
        params.push(AdamWMoments {
            name,
            moment_1,
            moment_2,
        });
    }
    if r.at != bytes.len() {
        return Err(bad("bytes after the last parameter"));
    }
    Ok(AdamWState { steps, params })
}

/// Reads little-endian values from a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next `len` bytes, `None` past the end.
    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(s)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
    }
}

/// A 3x3 weight gradient from the kernels' `[(tap, in), out]` to burn's `[out, in, 3, 3]`.
fn conv3_grad_to_burn(g: &[f32], inputs: usize, outputs: usize, out: &mut [f32]) {
    for o in 0..outputs {
        for i in 0..inputs {
            for tap in 0..9 {
                out[(o * inputs + i) * 9 + tap] = g[(tap * inputs + i) * outputs + o];
            }
        }
    }
}
