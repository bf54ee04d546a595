//! The network evaluated by candle's CPU backend (`candle-core`), behind the [`Evaluator`]
//! trait: a third pure-Rust inference path, built only with the `candle` feature, for
//! comparing throughput with tengu's own kernels (`burn`) and burn-flex (`tengu bench nn
//! --backends burn,burn-flex,candle`). Checked against burn-flex in
//! `tests/candle_agrees.rs`.
//!
//! The function is [`crate::net::Net::forward`] followed by [`crate::net::legal_logits`]
//! (the ownership head is left out: search never reads it). Convolutions, pooling and the
//! fully connected layers run in candle; the legal moves' `q(from) . k(to)` pairs (a few
//! hundred of the `A^2`) are dot products in Rust over the head output, as in
//! [`crate::cpu_eval`].
//!
//! Shapes (`B` batch, `P` input planes, `N` board side, `A = N * N`, `C` channels, `D`
//! policy key size, `V` value channels, `W = 2 D + CODES + V`):
//! * input `[B, P, N, N]`, tower activations `[B, C, N, N]` (channel-first, as burn);
//! * convolution weights `[out, in, k, k]`, biases `[1, out, 1, 1]`;
//! * linear weights `[in, out]`, biases `[out]`;
//! * the four 1x1 heads fused into one convolution with output `[B, W, N, N]`: channels
//!   `0..D` policy query, `D..2D` policy key, `2D..2D+CODES` per-origin codes, then the
//!   value features.
//!
//! Threads: candle runs its convolutions on rayon and chooses the matrix kernels'
//! parallelism from `RAYON_NUM_THREADS` (default: the physical cores). This evaluator
//! runs every forward inside its own one-thread rayon pool, so it uses one core whatever
//! the environment; with `RAYON_NUM_THREADS=1` candle also asks its matrix kernels for no
//! parallelism at all (same thread count; the kernels block the product differently).

use std::time::Instant;

use candle_core::{Device, Tensor, D};
use tengu_rules::Variant;

use crate::cpu_net::Profile;
use crate::desc::{HeadId, NetConfig, CODES};
use crate::encoder::Encoder;
use crate::evaluator::{softmax_in_place, EvalError, EvalInput, Evaluation, Evaluator};
use crate::net::{Net, RawLayer};
use crate::policy::PolicyIndex;

/// A candle error as an evaluation error.
fn backend(e: candle_core::Error) -> EvalError {
    EvalError::Backend(format!("candle: {e}"))
}

/// A convolution: weight `[out, in, k, k]`, bias `[1, out, 1, 1]`.
struct Conv {
    weight: Tensor,
    bias: Tensor,
    /// Zero padding on each side: `k / 2` ("same").
    padding: usize,
}

impl Conv {
    fn new(layer: &RawLayer, device: &Device) -> Result<Conv, String> {
        let [out, _, k, k2] = layer.dims[..] else {
            return Err(format!("convolution of rank {}", layer.dims.len()));
        };
        if k != k2 || k % 2 == 0 {
            return Err(format!("{k}x{k2} convolutions are not supported"));
        }
        Ok(Conv {
            weight: Tensor::from_slice(&layer.weight, layer.dims.as_slice(), device)
                .map_err(|e| e.to_string())?,
            bias: Tensor::from_slice(&layer.bias, (1, out, 1, 1), device)
                .map_err(|e| e.to_string())?,
            padding: k / 2,
        })
    }

    /// Several convolutions of the same input side by side (outputs concatenated).
    fn concat(parts: &[Conv]) -> Result<Conv, String> {
        let weights: Vec<&Tensor> = parts.iter().map(|c| &c.weight).collect();
        let biases: Vec<&Tensor> = parts.iter().map(|c| &c.bias).collect();
        Ok(Conv {
            weight: Tensor::cat(&weights, 0).map_err(|e| e.to_string())?,
            bias: Tensor::cat(&biases, 1).map_err(|e| e.to_string())?,
            padding: parts.first().map_or(0, |c| c.padding),
        })
    }

    /// Output channels.
    fn out(&self) -> usize {
        self.weight.dims()[0]
    }

    /// `x [B, in, N, N]` -> `[B, out, N, N]`, bias added.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.conv2d(&self.weight, self.padding, 1, 1, 1)?
            .broadcast_add(&self.bias)
    }
}

/// A fully connected layer: weight `[in, out]` (burn's layout), bias `[out]`.
struct Linear {
    weight: Tensor,
    bias: Tensor,
}

impl Linear {
    fn new(layer: &RawLayer, device: &Device) -> Result<Linear, String> {
        let [_, out] = layer.dims[..] else {
            return Err(format!("linear layer of rank {}", layer.dims.len()));
        };
        Ok(Linear {
            weight: Tensor::from_slice(&layer.weight, layer.dims.as_slice(), device)
                .map_err(|e| e.to_string())?,
            bias: Tensor::from_slice(&layer.bias, out, device).map_err(|e| e.to_string())?,
        })
    }

    /// `x [B, in]` -> `[B, out]`.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.matmul(&self.weight)?.broadcast_add(&self.bias)
    }
}

/// A residual block: conv-relu-conv with a global-pooling bias, plus the skip.
struct Block {
    conv1: Conv,
    conv2: Conv,
    pool: Linear,
}

impl Block {
    /// `x [B, C, N, N]` -> `[B, C, N, N]`.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let h = self.conv1.forward(x)?.relu()?;
        let (b, c, _, _) = h.dims4()?;
        // Mean over the board -> per-channel bias added to the second convolution.
        let pooled = h.flatten_from(2)?.mean(D::Minus1)?;
        let bias = self.pool.forward(&pooled)?.reshape((b, c, 1, 1))?;
        (x + self.conv2.forward(&h)?.broadcast_add(&bias)?)?.relu()
    }
}

/// A network evaluated by candle on the CPU (one thread).
pub struct CandleEvaluator {
    game: String,
    config: NetConfig,
    encoder: Encoder,
    index: PolicyIndex,
    label: String,
    device: Device,
    stem: Conv,
    blocks: Vec<Block>,
    /// Policy query, policy key, codes and value features: one 1x1 convolution.
    heads: Conv,
    value_fc1: Linear,
    value_fc2: Linear,
    material_fc: Linear,
    /// The one-thread pool every forward runs in.
    pool: rayon::ThreadPool,
    profile: Profile,
}

/// Outputs of one forward pass, copied out of candle.
struct Outputs {
    /// The fused head output `[B, W, A]`, row-major.
    heads: Vec<f32>,
    /// WDL logits `[B, 3]`.
    wdl: Vec<f32>,
    /// `tanh(material_fc(hidden))` `[B, H]` (`H` horizons; the first is used).
    material: Vec<f32>,
    /// The judge's correction `[B, 1]`.
    residual: Vec<f32>,
}

impl CandleEvaluator {
    /// The network `net` (architecture `config`) for `variant`.
    pub fn new(
        variant: &Variant,
        net: &Net,
        config: &NetConfig,
        label: impl Into<String>,
    ) -> Result<CandleEvaluator, EvalError> {
        let device = Device::Cpu;
        let raw = net.raw().map_err(|e| EvalError::Backend(e.to_string()))?;
        let layers = || -> Result<_, String> {
            let blocks = raw
                .blocks
                .iter()
                .map(|[c1, c2, pool]| {
                    Ok(Block {
                        conv1: Conv::new(c1, &device)?,
                        conv2: Conv::new(c2, &device)?,
                        pool: Linear::new(pool, &device)?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            let heads = [
                (Conv::new(&raw.policy_q, &device)?, config.head_dim),
                (Conv::new(&raw.policy_k, &device)?, config.head_dim),
                (Conv::new(&raw.policy_code, &device)?, CODES),
                (Conv::new(&raw.value_conv, &device)?, config.value_channels),
                (Conv::new(raw.head(HeadId::Residual), &device)?, 1),
            ];
            if let Some((conv, expected)) = heads.iter().find(|(c, e)| c.out() != *e) {
                return Err(format!(
                    "a head has {} channels, the architecture {config:?} {expected}",
                    conv.out()
                ));
            }
            let heads = Conv::concat(&heads.map(|(conv, _)| conv))?;
            Ok((
                Conv::new(&raw.stem, &device)?,
                blocks,
                heads,
                Linear::new(&raw.value_fc1, &device)?,
                Linear::new(raw.head(HeadId::Value), &device)?,
                Linear::new(raw.head(HeadId::Material), &device)?,
            ))
        };
        let (stem, blocks, heads, value_fc1, value_fc2, material_fc) =
            layers().map_err(EvalError::Architecture)?;
        let stem_dims = stem.weight.dims();
        if stem_dims[0] != config.channels
            || stem_dims[1] != config.planes
            || blocks.len() != config.blocks
            || value_fc2.weight.dims()[1] != 3
            || material_fc.weight.dims()[1] == 0
        {
            return Err(EvalError::Architecture(format!(
                "layers do not match the architecture {config:?} (stem {stem_dims:?}, {} blocks)",
                blocks.len()
            )));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "tengu-candle".into())
            .build()
            .map_err(|e| EvalError::Backend(format!("candle thread pool: {e}")))?;
        let encoder = Encoder::for_network(variant, config.planes);
        Ok(CandleEvaluator {
            game: variant.id().to_string(),
            config: config.clone(),
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            label: label.into(),
            device,
            stem,
            blocks,
            heads,
            value_fc1,
            value_fc2,
            material_fc,
            pool,
            profile: Profile::default(),
        })
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Forward pass of `input [B, P, N, N]` (the encoder's planes).
    fn forward(
        &self,
        input: Vec<f32>,
        b: usize,
        profile: &mut Profile,
    ) -> candle_core::Result<Outputs> {
        let mut clock = Instant::now();
        let (p, n) = (self.encoder.planes(), self.encoder.size());
        let input = Tensor::from_vec(input, (b, p, n, n), &self.device)?;
        let mut x = self.stem.forward(&input)?.relu()?;
        for block in &self.blocks {
            x = block.forward(&x)?;
        }
        profile.lap("tower", &mut clock);
        let heads = self.heads.forward(&x)?;
        profile.lap("heads", &mut clock);
        let vc = self.config.value_channels;
        let value = heads
            .narrow(1, 2 * self.config.head_dim + CODES, vc)?
            .relu()?
            .flatten_from(2)?
            .mean(D::Minus1)?;
        let hidden = self.value_fc1.forward(&value)?.relu()?;
        let wdl = self.value_fc2.forward(&hidden)?;
        let material = self.material_fc.forward(&hidden)?.tanh()?;
        // The judge's channel (after the value features), summed over the squares.
        let residual = heads
            .narrow(1, 2 * self.config.head_dim + CODES + vc, 1)?
            .flatten_from(1)?
            .sum(D::Minus1)?
            .affine(1.0 / n as f64, 0.0)?;
        let out = Outputs {
            heads: heads.flatten_all()?.to_vec1()?,
            wdl: wdl.flatten_all()?.to_vec1()?,
            material: material.flatten_all()?.to_vec1()?,
            residual: residual.flatten_all()?.to_vec1()?,
        };
        profile.lap("value head, copies", &mut clock);
        Ok(out)
    }
}

impl Evaluator for CandleEvaluator {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        let Some(rows) = crate::evaluator::checked_rows(&self.game, batch)? else {
            return Ok(Vec::new());
        };
        let mut clock = Instant::now();
        let len = self.encoder.len();
        let mut input = vec![0.0f32; batch.len() * len];
        for (&(position, _, repetitions), planes) in rows.iter().zip(input.chunks_exact_mut(len)) {
            self.encoder.encode(position, repetitions, planes);
        }
        let mut profile = std::mem::take(&mut self.profile);
        profile.lap("encode", &mut clock);
        let out = self
            .pool
            .install(|| self.forward(input, batch.len(), &mut profile));
        self.profile = profile;
        let out = out.map_err(backend)?;

        let mut clock = Instant::now();
        let a = self.encoder.size() * self.encoder.size();
        let d = self.config.head_dim;
        let horizons = self.material_fc.weight.dims()[1];
        let width = self.heads.out();
        let scale = 1.0 / (d as f32).sqrt();
        let mut evaluations = Vec::with_capacity(batch.len());
        for (i, item) in batch.iter().enumerate() {
            // Channel `j` of square `s` of this position: `heads[j * A + s]`.
            let heads = &out.heads[i * width * a..(i + 1) * width * a];
            let mut policy = Vec::with_capacity(item.moves.len());
            for &m in item.moves {
                let s = self.index.slot(item.position, m)?;
                let (from, to) = (s.from as usize, s.to as usize);
                let dot: f32 = (0..d)
                    .map(|j| heads[j * a + from] * heads[(d + j) * a + to])
                    .sum();
                policy.push(dot * scale + heads[(2 * d + s.code as usize) * a + from]);
            }
            softmax_in_place(&mut policy);
            let mut wdl = [out.wdl[3 * i], out.wdl[3 * i + 1], out.wdl[3 * i + 2]];
            softmax_in_place(&mut wdl);
            evaluations.push(Evaluation {
                policy,
                wdl,
                material: out.material[horizons * i],
                residual: out.residual[i],
            });
        }
        self.profile.lap("legal moves, softmax", &mut clock);
        Ok(evaluations)
    }

    fn profile(&self) -> Vec<(&'static str, f64)> {
        self.profile.seconds()
    }
}
