//! The same network implemented with tch (libtorch), for inference on CUDA GPUs (`cuda`
//! feature): self-play workers' evaluator. Training on GPUs is PyTorch's
//! (`python -m tengu.train`).
//!
//! Weights use the burn names and layouts ([`crate::desc::parameter_shapes`]), so one
//! safetensors checkpoint serves both: `stem`, `blocks.<i>.{conv1,conv2,pool}`,
//! `policy_{q,k,code}`, `value_conv`, `value_fc{1,2}`, each with `.weight` and `.bias`.
//! Convolution weights are `[out, in, k, k]` (as in torch); linear weights are `[in, out]`
//! (burn's layout), so the forward pass computes `x.matmul(w) + b`.

use std::collections::HashMap;
use std::path::Path;

use tch::nn;
use tch::{Device, Kind, Tensor};
use tengu_rules::Variant;

use crate::checkpoint::{CheckpointError, CheckpointMeta};
use crate::desc::{parameter_shapes, HeadId, NetConfig, CODES};
use crate::encoder::{encode_threads, Encoder};
use crate::evaluator::{EncoderRow, EvalError, EvalInput, Evaluation, Evaluator};
use crate::policy::PolicyIndex;

/// The network's parameters in a tch variable store.
pub struct TchNet {
    pub config: NetConfig,
    vs: nn::VarStore,
    params: HashMap<String, Tensor>,
    /// Element type the forward pass computes in: `Float`, or `BFloat16` once
    /// [`TchNet::prepare_for_inference`] cast the weights.
    compute_kind: Kind,
    /// Whether convolutions run on NHWC strides (see [`TchNet::prepare_for_inference`]).
    channels_last: bool,
}

/// Outputs of [`TchNet::forward`], shaped as burn's `NetOutput` ([`crate::net`]).
pub struct TchOutput {
    pub pair: Tensor,
    pub code: Tensor,
    pub wdl: Tensor,
    pub ownership: Tensor,
    pub material: Tensor,
    /// `[B, 1]`, the judge's correction.
    pub residual: Tensor,
}

impl TchNet {
    /// A freshly initialised network on `device`.
    pub fn new(config: &NetConfig, device: Device) -> TchNet {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let mut params = HashMap::new();
        for (name, shape) in parameter_shapes(config) {
            let fan_in: i64 = if name.ends_with(".weight") {
                if shape.len() == 4 {
                    shape[1..].iter().product()
                } else {
                    shape[0]
                }
            } else {
                1
            };
            let bound = 1.0 / (fan_in as f64).sqrt();
            let init = if crate::desc::added_later(&name) {
                // A head that starts at zero (`HeadInit::Zero`).
                nn::Init::Const(0.0)
            } else {
                nn::Init::Uniform {
                    lo: -bound,
                    up: bound,
                }
            };
            params.insert(
                name.clone(),
                root.var(&name.replace('.', "__"), &shape, init),
            );
        }
        TchNet {
            config: config.clone(),
            vs,
            params,
            compute_kind: Kind::Float,
            channels_last: false,
        }
    }

    /// Readies the weights for inference alone (the net can no longer train): cast to
    /// `kind` (bf16 on a GPU runs on tensor cores without autocast's cast of every weight
    /// on every call) and, with `channels_last`, convolution weights on NHWC strides, the
    /// layout of cuDNN's tensor-core kernels (libtorch picks a convolution's layout from the
    /// strides of its input and weight; tch has no memory-format argument).
    pub fn prepare_for_inference(&mut self, kind: Kind, channels_last: bool) {
        tch::no_grad(|| {
            for tensor in self.params.values_mut() {
                let mut t = tensor.detach().to_kind(kind);
                if channels_last && t.dim() == 4 {
                    t = to_channels_last(&t);
                }
                *tensor = t;
            }
        });
        self.compute_kind = kind;
        self.channels_last = channels_last;
    }

    fn p(&self, name: &str) -> &Tensor {
        &self.params[name]
    }

    fn conv(&self, name: &str, x: &Tensor) -> Tensor {
        let w = self.p(&format!("{name}.weight"));
        let k = w.size()[2];
        x.conv2d(
            w,
            Some(self.p(&format!("{name}.bias"))),
            [1, 1],
            [k / 2, k / 2],
            [1, 1],
            1,
        )
    }

    fn linear(&self, name: &str, x: &Tensor) -> Tensor {
        x.matmul(self.p(&format!("{name}.weight"))) + self.p(&format!("{name}.bias"))
    }

    /// Forward pass: `input [B, P, N, N]` -> `pair [B, A, A]`, `code [B, A, CODES]`,
    /// `wdl [B, 3]`, `ownership [B, 6, N, N]`, `material [B, 2]`, as in [`crate::net`].
    pub fn forward(&self, input: &Tensor) -> TchOutput {
        let size = input.size();
        let (b, n) = (size[0], size[2]);
        let a = n * n;
        let kind = self.compute_kind;
        let input = input.to_kind(kind);
        let input = if self.channels_last {
            to_channels_last(&input)
        } else {
            input
        };
        let mut x = self.conv("stem", &input).relu();
        for i in 0..self.config.blocks {
            let h = self.conv(&format!("blocks.{i}.conv1"), &x).relu();
            let c = h.size()[1];
            let pooled = h.mean_dim(&[2i64, 3][..], false, kind);
            let bias = self
                .linear(&format!("blocks.{i}.pool"), &pooled)
                .reshape([b, c, 1, 1]);
            x = (x + self.conv(&format!("blocks.{i}.conv2"), &h) + bias).relu();
        }
        let d = self.config.head_dim as i64;
        let q = self.conv("policy_q", &x).reshape([b, d, a]).transpose(1, 2);
        let k = self.conv("policy_k", &x).reshape([b, d, a]);
        let pair = q.matmul(&k) / (d as f64).sqrt();
        let code = self
            .conv("policy_code", &x)
            .reshape([b, CODES as i64, a])
            .transpose(1, 2);
        let ownership = self.conv(HeadId::Ownership.head().layer, &x);
        let v = self
            .conv("value_conv", &x)
            .relu()
            .mean_dim(&[2i64, 3][..], false, kind);
        let hidden = self.linear("value_fc1", &v).relu();
        let wdl = self.linear(HeadId::Value.head().layer, &hidden);
        let material = self.linear(HeadId::Material.head().layer, &hidden).tanh();
        let residual = self
            .conv(HeadId::Residual.head().layer, &x)
            .sum_dim_intlist(&[2i64, 3][..], false, kind)
            .reshape([b, 1])
            / n as f64;
        TchOutput {
            pair,
            code,
            wdl,
            ownership,
            material,
            residual,
        }
    }

    /// Loads the weights of a checkpoint (written by either backend).
    pub fn load(
        path: &Path,
        game: &str,
        device: Device,
    ) -> Result<(TchNet, CheckpointMeta), CheckpointError> {
        let shown = path.display().to_string();
        let meta = crate::checkpoint::read_meta_for(path, game)?;
        let net = TchNet::new(&meta.config, device);
        let tensors = Tensor::read_safetensors(path).map_err(|e| CheckpointError::Weights {
            path: shown.clone(),
            problem: e.to_string(),
        })?;
        let tensors: HashMap<String, Tensor> = tensors.into_iter().collect();
        for (name, var) in &net.params {
            if !tensors.contains_key(name) && crate::desc::added_later(name) {
                // A head newer than the file: it stays at zero (see `TchNet::new`).
                continue;
            }
            let Some(src) = tensors.get(name) else {
                return Err(CheckpointError::Weights {
                    path: shown,
                    problem: format!("tensor {name} missing"),
                });
            };
            if src.size() != var.size() {
                return Err(CheckpointError::Weights {
                    path: shown,
                    problem: format!(
                        "tensor {name} has shape {:?}, expected {:?}",
                        src.size(),
                        var.size()
                    ),
                });
            }
            tch::no_grad(|| var.shallow_clone().copy_(src));
        }
        Ok((net, meta))
    }

    /// Writes the weights with `meta` as a safetensors checkpoint (atomically).
    pub fn save(&self, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError> {
        let mut tensors: Vec<(String, Vec<i64>, Vec<f32>)> = Vec::new();
        let mut names: Vec<&String> = self.params.keys().collect();
        names.sort();
        for name in names {
            let t = self.params[name]
                .to_device(Device::Cpu)
                .to_kind(Kind::Float)
                .contiguous();
            let data =
                Vec::<f32>::try_from(t.flatten(0, -1)).map_err(|e| CheckpointError::Weights {
                    path: path.display().to_string(),
                    problem: e.to_string(),
                })?;
            tensors.push((name.clone(), t.size(), data));
        }
        crate::checkpoint::write_safetensors(path, meta, &tensors)
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }
}

/// `t [B, C, H, W]` with the same shape and values on NHWC strides.
fn to_channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

/// A `TENGU_TCH_INFERENCE` item that names no feature.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown feature {name:?} (bf16-weights, channels-last, cudnn-benchmark, autocast)")]
pub struct UnknownInferenceFeature {
    pub name: String,
}

/// How a [`TchEvaluator`] runs its network on the device. The default on a GPU is every
/// feature on; `TENGU_TCH_INFERENCE` (a comma list of `bf16-weights`, `channels-last`,
/// `cudnn-benchmark`, or `autocast` for none of them) chooses others, to measure them
/// against each other (docs/gpu.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TchInference {
    /// bf16 evaluators cast the weights once (else autocast casts them on every call).
    pub bf16_weights: bool,
    /// Convolutions on NHWC strides.
    pub channels_last: bool,
    /// cuDNN times its algorithms for each new input shape and keeps the fastest; batches
    /// are then padded to a multiple of [`BENCHMARK_BATCH_STEP`] rows so that a search's
    /// varying batch sizes meet few shapes.
    pub cudnn_benchmark: bool,
}

/// Rows a batch is padded to a multiple of when cuDNN benchmarks its shapes.
pub const BENCHMARK_BATCH_STEP: usize = 32;

impl TchInference {
    /// Every feature on a GPU, none on the CPU; `TENGU_TCH_INFERENCE` overrides.
    pub fn for_device(device: Device) -> TchInference {
        let gpu = device != Device::Cpu;
        let default = TchInference {
            bf16_weights: gpu,
            channels_last: gpu,
            cudnn_benchmark: gpu,
        };
        match std::env::var("TENGU_TCH_INFERENCE") {
            Ok(list) => TchInference::parse(&list).unwrap_or_else(|problem| {
                tracing::warn!("TENGU_TCH_INFERENCE: {problem}; using {default:?}");
                default
            }),
            Err(_) => default,
        }
    }

    /// `list`: comma-separated features, or `autocast` / empty for none.
    pub fn parse(list: &str) -> Result<TchInference, UnknownInferenceFeature> {
        let mut out = TchInference {
            bf16_weights: false,
            channels_last: false,
            cudnn_benchmark: false,
        };
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "autocast" => {}
                "bf16-weights" => out.bf16_weights = true,
                "channels-last" => out.channels_last = true,
                "cudnn-benchmark" => out.cudnn_benchmark = true,
                other => {
                    return Err(UnknownInferenceFeature {
                        name: other.to_string(),
                    })
                }
            }
        }
        Ok(out)
    }
}

/// Positions below which a batch is encoded on the calling thread alone (a thread's start
/// costs about as much as encoding a few positions).
const POSITIONS_PER_ENCODE_THREAD: usize = 8;

/// The rows of one slice of a batch to encode into: `planes` (`encoder.len()` a position)
/// and the policy's `pair`, `code` and `pad` (`m` a position).
struct EncodedRows<'b> {
    planes: &'b mut [f32],
    pair: &'b mut [i64],
    code: &'b mut [i64],
    pad: &'b mut [bool],
}

/// Encodes positions `items` into their rows of `out`.
fn encode_rows(
    encoder: &Encoder,
    index: &PolicyIndex,
    items: &[EncoderRow<'_>],
    m: usize,
    out: EncodedRows<'_>,
) -> Result<(), EvalError> {
    let EncodedRows {
        planes,
        pair,
        code,
        pad,
    } = out;
    let a = (encoder.size() * encoder.size()) as i64;
    for (i, &(pos, moves, reps)) in items.iter().enumerate() {
        encoder.encode(
            pos,
            reps,
            &mut planes[i * encoder.len()..(i + 1) * encoder.len()],
        );
        for (j, &mv) in moves.iter().enumerate() {
            let s = index.slot(pos, mv)?;
            pair[i * m + j] = s.from as i64 * a + s.to as i64;
            code[i * m + j] = s.from as i64 * CODES as i64 + s.code as i64;
            pad[i * m + j] = false;
        }
    }
    Ok(())
}

/// Encodes a batch for tch: planes, pair/code indices and the padding mask, on
/// [`encode_threads`] threads for large batches. `host_planes`: a reusable host buffer
/// (see [`TchEvaluator`]) to encode the planes into; `None` allocates one.
/// `device_rows` (>= the batch) is the row count of the uploaded planes: rows past the
/// batch are zeros (padding to a shape cuDNN has timed); the index tensors have the
/// batch's rows alone.
fn encode_batch(
    encoder: &Encoder,
    index: &PolicyIndex,
    batch: &[EncoderRow<'_>],
    device: Device,
    host_planes: Option<&Tensor>,
    device_rows: usize,
) -> Result<
    (
        Tensor,
        Tensor,
        Tensor,
        Tensor,
        Vec<usize>,
        std::time::Instant,
    ),
    EvalError,
> {
    let n = encoder.size() as i64;
    let b = batch.len() as i64;
    let device_rows = device_rows.max(batch.len());
    let len = encoder.len();
    let m = batch.iter().map(|x| x.1.len()).max().unwrap_or(0).max(1);
    let planes_tensor = match host_planes {
        Some(buffer) => buffer.narrow(0, 0, device_rows as i64),
        None => Tensor::empty([device_rows as i64, len as i64], (Kind::Float, Device::Cpu)),
    };
    // SAFETY: `planes_tensor` is a contiguous f32 CPU tensor of `device_rows * len`
    // elements (a leading slice of a contiguous buffer, or fresh), and nothing else reads or
    // writes it while this slice lives: a reused buffer's previous upload finished before
    // the previous evaluation returned (its results were copied back on the same stream).
    let all_planes: &mut [f32] = unsafe {
        std::slice::from_raw_parts_mut(planes_tensor.data_ptr() as *mut f32, device_rows * len)
    };
    all_planes.fill(0.0);
    let planes = &mut all_planes[..batch.len() * len];
    let mut pair = vec![0i64; batch.len() * m];
    let mut code = vec![0i64; batch.len() * m];
    let mut pad = vec![true; batch.len() * m];
    let threads = encode_threads()
        .min(batch.len() / POSITIONS_PER_ENCODE_THREAD)
        .max(1);
    if threads == 1 {
        let out = EncodedRows {
            planes,
            pair: &mut pair,
            code: &mut code,
            pad: &mut pad,
        };
        encode_rows(encoder, index, batch, m, out)?;
    } else {
        let per = batch.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = batch
                .chunks(per)
                .zip(planes.chunks_mut(per * len))
                .zip(pair.chunks_mut(per * m))
                .zip(code.chunks_mut(per * m))
                .zip(pad.chunks_mut(per * m))
                .map(|((((items, planes), pair), code), pad)| {
                    let out = EncodedRows {
                        planes,
                        pair,
                        code,
                        pad,
                    };
                    scope.spawn(move || encode_rows(encoder, index, items, m, out))
                })
                .collect();
            parts.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })?;
    }
    // The uploads below start here; the evaluator's profile tells the two apart (on a GPU
    // shared by several processes a synchronous copy waits for the others' time slices).
    let encoded_at = std::time::Instant::now();
    // From page-locked memory the upload needs no staging copy and may run asynchronously;
    // the forward pass on the same stream waits for it.
    let pinned = host_planes.is_some() && device != Device::Cpu;
    let input = planes_tensor
        .reshape([device_rows as i64, encoder.planes() as i64, n, n])
        .to_device_(device, Kind::Float, pinned, false);
    let pair = Tensor::from_slice(&pair)
        .reshape([b, m as i64])
        .to_device(device);
    let code = Tensor::from_slice(&code)
        .reshape([b, m as i64])
        .to_device(device);
    let pad = Tensor::from_slice(&pad)
        .reshape([b, m as i64])
        .to_device(device);
    Ok((
        input,
        pair,
        code,
        pad,
        batch.iter().map(|x| x.1.len()).collect(),
        encoded_at,
    ))
}

fn legal_logits(
    pair: &Tensor,
    code: &Tensor,
    pair_idx: &Tensor,
    code_idx: &Tensor,
    pad: &Tensor,
) -> Tensor {
    let b = pair.size()[0];
    let p = pair.reshape([b, -1]).gather(1, pair_idx, false);
    let c = code.reshape([b, -1]).gather(1, code_idx, false);
    (p + c).masked_fill(pad, -1.0e9)
}

/// A tch network as an [`Evaluator`]. `bf16`: run the forward pass in bfloat16 (GPU).
pub struct TchEvaluator {
    game: String,
    net: TchNet,
    encoder: Encoder,
    index: PolicyIndex,
    bf16: bool,
    inference: TchInference,
    label: String,
    /// Host buffer of input planes, `[rows, encoder.len()]` f32, reused by every batch
    /// (grown to the largest): page-locked when the network is on a GPU, so uploads need
    /// no staging copy, and never freshly allocated (a fresh 40 MB buffer a batch costs
    /// page faults the GPU waits on).
    host_planes: Option<Tensor>,
    /// Seconds so far in [encode (CPU, into host tensors), upload (starting the copies to
    /// the device; the index tensors' copies are synchronous), device (forward, legal logits
    /// and the copy back, which waits for the GPU), softmax (CPU)].
    seconds: [f64; 4],
}

impl TchEvaluator {
    /// An evaluator with the inference features of [`TchInference::for_device`].
    pub fn new(
        variant: &Variant,
        net: TchNet,
        bf16: bool,
        label: impl Into<String>,
    ) -> TchEvaluator {
        let inference = TchInference::for_device(net.device());
        TchEvaluator::with_inference(variant, net, bf16, inference, label)
    }

    /// An evaluator with the given inference features (tests use them on the CPU).
    pub fn with_inference(
        variant: &Variant,
        mut net: TchNet,
        bf16: bool,
        inference: TchInference,
        label: impl Into<String>,
    ) -> TchEvaluator {
        let encoder = Encoder::for_network(variant, net.config.planes);
        let cast = bf16 && inference.bf16_weights;
        if cast || inference.channels_last {
            let kind = if cast { Kind::BFloat16 } else { Kind::Float };
            net.prepare_for_inference(kind, inference.channels_last);
        }
        if inference.cudnn_benchmark {
            // Process-wide; the trainer's fixed batch shape gains from it too.
            tch::Cuda::cudnn_set_benchmark(true);
        }
        tracing::debug!(?inference, bf16, "tch evaluator");
        TchEvaluator {
            game: variant.id().into(),
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            net,
            bf16,
            inference,
            label: label.into(),
            seconds: [0.0; 4],
            host_planes: None,
        }
    }

    /// The host buffer of input planes (a shallow clone sharing its storage), with room for
    /// at least `rows` positions.
    fn host_planes(&mut self, rows: usize) -> Tensor {
        match &self.host_planes {
            Some(buffer) if buffer.size()[0] as usize >= rows => buffer.shallow_clone(),
            _ => {
                let device = self.net.device();
                let buffer = Tensor::empty(
                    [rows as i64, self.encoder.len() as i64],
                    (Kind::Float, Device::Cpu),
                );
                let buffer = if device == Device::Cpu {
                    buffer
                } else {
                    buffer.pin_memory(device)
                };
                self.host_planes = Some(buffer.shallow_clone());
                buffer
            }
        }
    }
}

impl Evaluator for TchEvaluator {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        let Some(items) = crate::evaluator::checked_rows(&self.game, batch)? else {
            return Ok(Vec::new());
        };
        let start = std::time::Instant::now();
        let device = self.net.device();
        let device_rows = if self.inference.cudnn_benchmark {
            batch.len().next_multiple_of(BENCHMARK_BATCH_STEP)
        } else {
            batch.len()
        };
        let host = self.host_planes(device_rows);
        let (input, pair_idx, code_idx, pad, counts, encoded) = encode_batch(
            &self.encoder,
            &self.index,
            &items,
            device,
            Some(&host),
            device_rows,
        )?;
        let uploaded = std::time::Instant::now();
        let rows = batch.len() as i64;
        let (logits, wdl, material, residual) = tch::no_grad(|| {
            let out = if self.bf16 && !self.inference.bf16_weights {
                tch::autocast(true, || self.net.forward(&input))
            } else {
                self.net.forward(&input)
            };
            // The padding rows' outputs are dropped before anything reads them.
            let real = |t: &Tensor| t.narrow(0, 0, rows).to_kind(Kind::Float);
            let logits = legal_logits(
                &real(&out.pair),
                &real(&out.code),
                &pair_idx,
                &code_idx,
                &pad,
            );
            (
                logits,
                real(&out.wdl),
                real(&out.material),
                real(&out.residual),
            )
        });
        let m = logits.size()[1] as usize;
        let to_vec = |t: Tensor| {
            Vec::<f32>::try_from(t.to_device(Device::Cpu).flatten(0, -1))
                .map_err(|e| EvalError::Backend(e.to_string()))
        };
        let logits = to_vec(logits)?;
        let wdl = to_vec(wdl)?;
        let material = to_vec(material)?;
        let residual = to_vec(residual)?;
        let on_host = std::time::Instant::now();
        let out = crate::evaluator::evaluations_from_logits(
            &logits, m, &counts, &wdl, &material, &residual,
        );
        self.seconds[0] += (encoded - start).as_secs_f64();
        self.seconds[1] += (uploaded - encoded).as_secs_f64();
        self.seconds[2] += (on_host - uploaded).as_secs_f64();
        self.seconds[3] += on_host.elapsed().as_secs_f64();
        Ok(out)
    }

    fn profile(&self) -> Vec<(&'static str, f64)> {
        ["encode", "upload", "device", "softmax"]
            .into_iter()
            .zip(self.seconds)
            .collect()
    }
}
