//! tengu's own CPU inference of [`crate::net::Net`]: the same network, computed with
//! channel-last activations, 3x3 convolutions as im2col + one matrix product (the `gemm`
//! crate's AVX2/FMA kernels, chosen at run time), and a policy head that scores only the
//! legal moves (`q(from) . k(to)` for a few hundred moves instead of burn's full `[A, A]`
//! product). Inference only (training: [`crate::cpu_train`]); weights come from a burn [`Net`] (so
//! from the same safetensors checkpoints).
//!
//! Shapes (`A = N * N` squares, `C` channels, `K` the inner size of a product):
//! * activations `[positions, A, C]`, row-major (channel-last);
//! * a layer's matrix `[K, out]` row-major, `K = in` (1x1 convolution, linear) or
//!   `K = 9 * in` ordered `(tap, in)` with `tap = 3 * ky + kx` (3x3 convolution);
//! * the fused 1x1 head output `[positions, A, 2 D + CODES + V]`: policy query, policy key,
//!   per-origin codes, value features.

use std::time::{Duration, Instant};

use gemm::{gemm, Parallelism};

use crate::desc::{HeadId, NetConfig, CODES};
use crate::net::{LayerError, Net, RawLayer, RawNet};

/// Positions computed together: enough rows (`CHUNK * A`) for the matrix kernels to run at
/// speed, few enough that the im2col buffer (`CHUNK * A * 9C` floats) stays in cache.
pub const CHUNK: usize = 4;

/// A layer as a `[k, n]` row-major matrix plus a bias `[n]`.
#[derive(Clone, Debug)]
struct Dense {
    k: usize,
    n: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Dense {
    /// A convolution `[out, in, s, s]` (s = 1 or 3) as a `[s*s*in, out]` matrix, rows ordered
    /// `(tap, in)`.
    fn from_conv(layer: &RawLayer) -> Result<Dense, LayerError> {
        let [out, inp, s, s2] = layer.dims[..] else {
            return Err(LayerError::Rank {
                kind: "convolution",
                rank: layer.dims.len(),
            });
        };
        if s != s2 || (s != 1 && s != 3) {
            return Err(LayerError::Kernel {
                height: s,
                width: s2,
            });
        }
        let taps = s * s;
        let mut weight = vec![0.0; taps * inp * out];
        for o in 0..out {
            for i in 0..inp {
                for tap in 0..taps {
                    weight[(tap * inp + i) * out + o] = layer.weight[(o * inp + i) * taps + tap];
                }
            }
        }
        Ok(Dense {
            k: taps * inp,
            n: out,
            weight,
            bias: layer.bias.clone(),
        })
    }

    /// A linear layer (burn stores `[in, out]` already).
    fn from_linear(layer: &RawLayer) -> Result<Dense, LayerError> {
        let [k, n] = layer.dims[..] else {
            return Err(LayerError::Rank {
                kind: "linear layer",
                rank: layer.dims.len(),
            });
        };
        Ok(Dense {
            k,
            n,
            weight: layer.weight.clone(),
            bias: layer.bias.clone(),
        })
    }

    /// Several layers of the same input side by side: one product computes them all.
    fn concat(parts: &[Dense]) -> Dense {
        let k = parts[0].k;
        let n: usize = parts.iter().map(|p| p.n).sum();
        let mut weight = vec![0.0; k * n];
        let mut bias = Vec::with_capacity(n);
        let mut offset = 0;
        for p in parts {
            assert_eq!(p.k, k, "fused layers share their input");
            for row in 0..k {
                weight[row * n + offset..row * n + offset + p.n]
                    .copy_from_slice(&p.weight[row * p.n..(row + 1) * p.n]);
            }
            bias.extend_from_slice(&p.bias);
            offset += p.n;
        }
        Dense { k, n, weight, bias }
    }

    /// `out[j] = bias[j] + sum_i input[i] * weight[i, j]` for one small vector (the value
    /// head's fully connected layers).
    fn apply_vector(&self, input: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        for (i, &x) in input.iter().enumerate() {
            let row = &self.weight[i * self.n..(i + 1) * self.n];
            for (o, &w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
}

/// `dst[m, n] (row stride dst_rs) = (accumulate ? dst : 0) + lhs[m, k] . rhs[k, n]`, with
/// `lhs(i, j)` at `lhs[i * lhs_rs + j * lhs_cs]` and `rhs(j, o)` at
/// `rhs[j * rhs_rs + o * rhs_cs]`; one thread.
#[allow(clippy::too_many_arguments)]
pub(crate) fn product(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    dst_rs: usize,
    accumulate: bool,
    lhs: &[f32],
    (lhs_rs, lhs_cs): (usize, usize),
    rhs: &[f32],
    (rhs_rs, rhs_cs): (usize, usize),
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(
        (m - 1) * dst_rs + n <= dst.len(),
        "product: destination too small"
    );
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                dst[i * dst_rs..i * dst_rs + n].fill(0.0);
            }
        }
        return;
    }
    assert!(
        (m - 1) * lhs_rs + (k - 1) * lhs_cs < lhs.len(),
        "product: lhs too small"
    );
    assert!(
        (k - 1) * rhs_rs + (n - 1) * rhs_cs < rhs.len(),
        "product: rhs too small"
    );
    // SAFETY: every index the kernel touches is within the slices (asserted above), the
    // destination does not alias the inputs (a `&mut` borrow), and no other thread
    // touches them.
    unsafe {
        gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            dst_rs as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_cs as isize,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// `dst[m, n] (row stride dst_rs) = (accumulate ? dst : 0) + lhs[m, k] . rhs[k, n]`, with
/// `lhs(i, j)` at `lhs[i * lhs_rs + j * lhs_cs]` and `rhs` row-major.
#[allow(clippy::too_many_arguments)]
fn matmul(
    dst: &mut [f32],
    dst_rs: usize,
    accumulate: bool,
    lhs: &[f32],
    lhs_rs: usize,
    lhs_cs: usize,
    rhs: &Dense,
    m: usize,
) {
    assert_eq!(rhs.weight.len(), rhs.k * rhs.n);
    product(
        (m, rhs.n, rhs.k),
        dst,
        dst_rs,
        accumulate,
        lhs,
        (lhs_rs, lhs_cs),
        &rhs.weight,
        (rhs.n, 1),
    );
}

/// im2col of a 3x3 "same" convolution: `col[pos, p, (tap, c)]` from `x[pos, p, c]`, zero
/// outside the board. The three taps of a kernel row read neighbouring squares, so each
/// kernel row is one copy of up to `3 c` floats.
pub(crate) fn im2col3x3(x: &[f32], positions: usize, n: usize, c: usize, col: &mut [f32]) {
    let a = n * n;
    let row_len = 9 * c;
    for pos in 0..positions {
        let image = &x[pos * a * c..(pos + 1) * a * c];
        for y in 0..n {
            for xx in 0..n {
                let row = &mut col[(pos * a + y * n + xx) * row_len..][..row_len];
                for ky in 0..3 {
                    let dst = &mut row[3 * ky * c..3 * (ky + 1) * c];
                    let sy = y + ky;
                    if sy == 0 || sy > n {
                        dst.fill(0.0);
                        continue;
                    }
                    let base = (sy - 1) * n;
                    // Source columns xx - 1 ..= xx + 1 that are on the board, and the tap
                    // (kx) of the first of them.
                    let (lo, hi) = (xx.saturating_sub(1), (xx + 1).min(n - 1));
                    let first = lo + 1 - xx;
                    let count = hi - lo + 1;
                    dst[..first * c].fill(0.0);
                    dst[first * c..(first + count) * c]
                        .copy_from_slice(&image[(base + lo) * c..(base + hi + 1) * c]);
                    dst[(first + count) * c..].fill(0.0);
                }
            }
        }
    }
}

/// One residual block: conv-relu-conv with a global-pooling bias, plus the skip.
#[derive(Clone, Debug)]
struct Block {
    conv1: Dense,
    conv2: Dense,
    pool: Dense,
}

/// Time spent per stage of the forward pass (a profile; see `tengu bench nn --profile`).
#[derive(Clone, Debug, Default)]
pub struct Profile {
    stages: Vec<(&'static str, Duration)>,
}

impl Profile {
    /// Adds the time since `*since` to `stage` and restarts the clock.
    pub fn lap(&mut self, stage: &'static str, since: &mut Instant) {
        let now = Instant::now();
        let spent = now - *since;
        *since = now;
        match self.stages.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, total)) => *total += spent,
            None => self.stages.push((stage, spent)),
        }
    }

    /// `(stage, seconds)` in the order the stages first ran.
    pub fn seconds(&self) -> Vec<(&'static str, f64)> {
        self.stages
            .iter()
            .map(|(s, d)| (*s, d.as_secs_f64()))
            .collect()
    }
}

/// Scratch memory of a forward pass, reused between calls (sized for [`CHUNK`] positions).
#[derive(Default)]
pub struct Workspace {
    x: Vec<f32>,
    h: Vec<f32>,
    col: Vec<f32>,
    pooled: Vec<f32>,
    pool_bias: Vec<f32>,
    /// The fused 1x1 heads of the last chunk, `[CHUNK, A, head_width]`.
    pub heads: Vec<f32>,
}

/// The network's inference layers in the layout of this module.
#[derive(Clone, Debug)]
pub struct CpuNet {
    config: NetConfig,
    stem: Dense,
    blocks: Vec<Block>,
    /// Policy query, policy key, codes, value features and the judge's channel: one 1x1 product.
    heads: Dense,
    value_fc1: Dense,
    value_fc2: Dense,
    material_fc: Dense,
}

/// Value-head outputs of one position.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ValueOutput {
    /// WDL logits.
    pub wdl: [f32; 3],
    /// `tanh(balance / MATERIAL_SCALE)` 16 plies later.
    pub material: f32,
    /// The judge's correction to the leaf's exchange count (logit scale).
    pub residual: f32,
}

impl CpuNet {
    /// The layers of `net` (architecture `config`).
    pub fn from_net(net: &Net, config: &NetConfig) -> Result<CpuNet, LayerError> {
        let raw: RawNet = net.raw()?;
        let blocks = raw
            .blocks
            .iter()
            .map(|[c1, c2, pool]| {
                Ok(Block {
                    conv1: Dense::from_conv(c1)?,
                    conv2: Dense::from_conv(c2)?,
                    pool: Dense::from_linear(pool)?,
                })
            })
            .collect::<Result<Vec<_>, LayerError>>()?;
        let heads = Dense::concat(&[
            Dense::from_conv(&raw.policy_q)?,
            Dense::from_conv(&raw.policy_k)?,
            Dense::from_conv(&raw.policy_code)?,
            Dense::from_conv(&raw.value_conv)?,
            Dense::from_conv(raw.head(HeadId::Residual))?,
        ]);
        let net = CpuNet {
            config: config.clone(),
            stem: Dense::from_conv(&raw.stem)?,
            blocks,
            heads,
            value_fc1: Dense::from_linear(&raw.value_fc1)?,
            value_fc2: Dense::from_linear(raw.head(HeadId::Value))?,
            material_fc: Dense::from_linear(raw.head(HeadId::Material))?,
        };
        let c = config.channels;
        // The judge's one channel last.
        let expected_heads = 2 * config.head_dim + CODES + config.value_channels + 1;
        if net.stem.k != config.planes || net.stem.n != c || net.heads.n != expected_heads {
            return Err(LayerError::Architecture {
                config: format!("{config:?}"),
                stem: [net.stem.k, net.stem.n],
                heads: net.heads.n,
            });
        }
        Ok(net)
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Columns of the fused head output: `2 D + CODES + V + 1` (the last: the judge's
    /// per-square term).
    pub fn head_width(&self) -> usize {
        self.heads.n
    }

    /// Forward pass of `positions <= CHUNK` positions: `input [positions, P, N, N]` (the
    /// encoder's planes). Leaves the fused head output in `ws.heads` and returns each
    /// position's value outputs.
    pub fn forward_chunk(
        &self,
        input: &[f32],
        positions: usize,
        ws: &mut Workspace,
        profile: &mut Profile,
    ) -> Vec<ValueOutput> {
        assert!(positions <= CHUNK);
        let (n, c, p) = (self.config.size, self.config.channels, self.config.planes);
        let a = n * n;
        let rows = positions * a;
        let mut clock = Instant::now();
        ws.x.resize(CHUNK * a * c, 0.0);
        ws.h.resize(CHUNK * a * c, 0.0);
        ws.col.resize(CHUNK * a * 9 * c, 0.0);
        ws.heads.resize(CHUNK * a * self.heads.n, 0.0);
        ws.pooled.resize(c, 0.0);
        ws.pool_bias.resize(CHUNK * c, 0.0);

        // Stem: a 1x1 convolution reading the planes `[P, A]` transposed.
        for pos in 0..positions {
            matmul(
                &mut ws.x[pos * a * c..],
                c,
                false,
                &input[pos * p * a..(pos + 1) * p * a],
                1,
                a,
                &self.stem,
                a,
            );
        }
        add_bias_relu(&mut ws.x[..rows * c], &self.stem.bias);
        profile.lap("stem", &mut clock);

        for block in &self.blocks {
            im2col3x3(&ws.x, positions, n, c, &mut ws.col);
            profile.lap("im2col", &mut clock);
            matmul(&mut ws.h, c, false, &ws.col, 9 * c, 1, &block.conv1, rows);
            profile.lap("conv", &mut clock);
            add_bias_relu(&mut ws.h[..rows * c], &block.conv1.bias);
            // Mean over the board -> per-channel bias of the second convolution.
            for pos in 0..positions {
                mean_rows(&ws.h[pos * a * c..(pos + 1) * a * c], c, &mut ws.pooled);
                block
                    .pool
                    .apply_vector(&ws.pooled, &mut ws.pool_bias[pos * c..(pos + 1) * c]);
                for (b, &conv_bias) in ws.pool_bias[pos * c..(pos + 1) * c]
                    .iter_mut()
                    .zip(&block.conv2.bias)
                {
                    *b += conv_bias;
                }
            }
            profile.lap("bias, relu, pooling", &mut clock);
            im2col3x3(&ws.h, positions, n, c, &mut ws.col);
            profile.lap("im2col", &mut clock);
            // The skip: x + conv2(h), accumulated into x.
            matmul(&mut ws.x, c, true, &ws.col, 9 * c, 1, &block.conv2, rows);
            profile.lap("conv", &mut clock);
            for pos in 0..positions {
                add_bias_relu(
                    &mut ws.x[pos * a * c..(pos + 1) * a * c],
                    &ws.pool_bias[pos * c..(pos + 1) * c],
                );
            }
            profile.lap("bias, relu, pooling", &mut clock);
        }

        let width = self.heads.n;
        matmul(&mut ws.heads, width, false, &ws.x, c, 1, &self.heads, rows);
        add_bias(&mut ws.heads[..rows * width], &self.heads.bias);
        profile.lap("heads", &mut clock);

        let d = self.config.head_dim;
        let vc = self.config.value_channels;
        let value_offset = 2 * d + CODES;
        let mut values = Vec::with_capacity(positions);
        let mut features = vec![0.0; vc];
        let mut hidden = vec![0.0; self.value_fc1.n];
        let mut wdl = [0.0; 3];
        let mut material = vec![0.0; self.material_fc.n];
        for pos in 0..positions {
            features.fill(0.0);
            for sq in 0..a {
                let row = &ws.heads[(pos * a + sq) * width + value_offset..][..vc];
                for (f, &v) in features.iter_mut().zip(row) {
                    *f += v.max(0.0);
                }
            }
            features.iter_mut().for_each(|f| *f /= a as f32);
            self.value_fc1.apply_vector(&features, &mut hidden);
            hidden.iter_mut().for_each(|h| *h = h.max(0.0));
            self.value_fc2.apply_vector(&hidden, &mut wdl);
            self.material_fc.apply_vector(&hidden, &mut material);
            // The judge: its per-square terms summed over the board.
            let residual = (0..a)
                .map(|sq| ws.heads[(pos * a + sq) * width + value_offset + vc])
                .sum::<f32>()
                / n as f32;
            values.push(ValueOutput {
                wdl,
                material: material[0].tanh(),
                residual,
            });
        }
        profile.lap("value head", &mut clock);
        values
    }

    /// The logit of a legal move in slot `(from, to, code)` of position `pos` of the last
    /// chunk: `q(from) . k(to) / sqrt(D) + code(from, code)`.
    pub fn move_logit(
        &self,
        heads: &[f32],
        pos: usize,
        from: usize,
        to: usize,
        code: usize,
    ) -> f32 {
        let a = self.config.size * self.config.size;
        let width = self.heads.n;
        let d = self.config.head_dim;
        let q = &heads[(pos * a + from) * width..][..d];
        let k = &heads[(pos * a + to) * width + d..][..d];
        let dot: f32 = q.iter().zip(k).map(|(x, y)| x * y).sum();
        dot / (d as f32).sqrt() + heads[(pos * a + from) * width + 2 * d + code]
    }
}

/// `x[row, j] += bias[j]`.
fn add_bias(x: &mut [f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(bias.len()) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}

/// `x[row, j] = max(0, x[row, j] + bias[j])`.
fn add_bias_relu(x: &mut [f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(bias.len()) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v = (*v + b).max(0.0);
        }
    }
}

/// Column means of `x [rows, c]`.
fn mean_rows(x: &[f32], c: usize, out: &mut [f32]) {
    out.fill(0.0);
    let rows = x.len() / c;
    for row in x.chunks_exact(c) {
        for (o, &v) in out.iter_mut().zip(row) {
            *o += v;
        }
    }
    out.iter_mut().for_each(|o| *o /= rows as f32);
}

/// GFLOP/s of this module's matrix kernel on one thread for a large square product
/// (`size^3` multiply-adds), measured for about `seconds`: the machine's practical peak that
/// `tengu bench nn` compares the forward pass with.
pub fn kernel_peak_gflops(size: usize, seconds: f64) -> f64 {
    let rhs = Dense {
        k: size,
        n: size,
        weight: (0..size * size).map(|i| (i % 7) as f32 * 0.1).collect(),
        bias: vec![0.0; size],
    };
    let lhs: Vec<f32> = (0..size * size).map(|i| (i % 5) as f32 * 0.1).collect();
    let mut dst = vec![0.0f32; size * size];
    matmul(&mut dst, size, false, &lhs, size, 1, &rhs, size);
    let start = Instant::now();
    let mut calls = 0u64;
    while calls == 0 || start.elapsed().as_secs_f64() < seconds {
        matmul(&mut dst, size, false, &lhs, size, 1, &rhs, size);
        calls += 1;
    }
    let flops = 2.0 * (size as f64).powi(3) * calls as f64;
    flops / start.elapsed().as_secs_f64() / 1e9
}
