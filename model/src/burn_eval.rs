//! The burn network behind the [`Evaluator`] trait, and a training step on burn's autodiff
//! ([`BurnTrainer`]): the test oracle of the CPU kernels' hand-derived gradients.

use burn::module::{Module, ModuleMapper, Param};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use tengu_rules::Variant;

use crate::desc::{Head, HeadId, LossKind, LossWeights, Losses, NetConfig, TrainExample, HEADS};
use crate::encoder::Encoder;
use crate::evaluator::{EncoderRow, EvalError, EvalInput, Evaluation, Evaluator};
use crate::net::{legal_logits, MoveIndex, Net};
use crate::policy::PolicyIndex;

/// Encodes a batch: planes `[B, P, N, N]` and the legal-move index.
fn encode_batch(
    encoder: &Encoder,
    index: &PolicyIndex,
    batch: &[EncoderRow<'_>],
    device: &Device,
) -> Result<(Tensor<4>, MoveIndex), EvalError> {
    let n = encoder.size();
    let mut planes = vec![0.0f32; batch.len() * encoder.len()];
    let mut slots = Vec::with_capacity(batch.len());
    for (i, &(pos, moves, reps)) in batch.iter().enumerate() {
        encoder.encode(
            pos,
            reps,
            &mut planes[i * encoder.len()..(i + 1) * encoder.len()],
        );
        let mut list = Vec::with_capacity(moves.len());
        for &m in moves {
            let s = index.slot(pos, m)?;
            list.push((s.from, s.to, s.code));
        }
        slots.push(list);
    }
    let input = Tensor::from_data(
        TensorData::new(planes, [batch.len(), encoder.planes(), n, n]),
        device,
    );
    Ok((input, MoveIndex::new(&slots, n * n, device)))
}

/// A burn network as an evaluator (inference only).
pub struct BurnEvaluator {
    game: String,
    net: Net,
    config: NetConfig,
    encoder: Encoder,
    index: PolicyIndex,
    device: Device,
    label: String,
}

impl BurnEvaluator {
    pub fn new(
        variant: &Variant,
        net: Net,
        config: NetConfig,
        device: Device,
        label: impl Into<String>,
    ) -> BurnEvaluator {
        let encoder = Encoder::for_network(variant, config.planes);
        BurnEvaluator {
            game: variant.id().to_string(),
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            net: net.valid(),
            config,
            device,
            label: label.into(),
        }
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }
}

/// A tensor's values on the host, row-major.
fn host_vec<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, EvalError> {
    tensor
        .into_data()
        .try_to_vec()
        .map_err(|e| EvalError::Backend(format!("{e:?}")))
}

impl Evaluator for BurnEvaluator {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        let Some(items) = crate::evaluator::checked_rows(&self.game, batch)? else {
            return Ok(Vec::new());
        };
        let (input, index) = encode_batch(&self.encoder, &self.index, &items, &self.device)?;
        let out = self.net.forward(input);
        let logits = legal_logits(&out, &index);
        let [_, m] = logits.dims();
        let logits = host_vec(logits)?;
        let wdl = host_vec(out.head(HeadId::Value))?;
        let material = host_vec(out.head(HeadId::Material))?;
        let residual = host_vec(out.head(HeadId::Residual))?;
        Ok(crate::evaluator::evaluations_from_logits(
            &logits,
            m,
            &index.counts,
            &wdl,
            &material,
            &residual,
        ))
    }
}

/// The policy's loss and each head's, as scalar tensors `[1]` (the heads in [`HEADS`]' order).
struct LossTensors {
    policy: Tensor<1>,
    heads: Vec<Tensor<1>>,
}

impl LossTensors {
    /// The step's objective: the policy loss plus each head's loss times its weight.
    fn objective(&self, weights: &LossWeights) -> Tensor<1> {
        let mut loss = self.policy.clone();
        for (head, l) in HEADS.iter().zip(&self.heads) {
            loss = loss + l.clone() * weights.of(head);
        }
        loss
    }

    /// The values of the tensors.
    fn values(self) -> Losses {
        let value = |t: Tensor<1>| {
            t.into_data()
                .try_to_vec::<f32>()
                .map(|v| v[0])
                .unwrap_or(f32::NAN)
        };
        let mut losses = Losses {
            policy: value(self.policy),
            ..Losses::default()
        };
        for (slot, l) in losses.heads.iter_mut().zip(self.heads) {
            *slot = value(l);
        }
        losses
    }
}

/// The loss of `head` (its [`LossKind`]) on its output `out` (`[B, outputs]`, or
/// `[B, outputs * A]` for a head per square) against the rows' targets.
fn head_loss(
    head: &Head,
    out: Tensor<2>,
    batch: &[TrainExample<'_>],
    squares: usize,
    device: &Device,
) -> Tensor<1> {
    let b = batch.len();
    let len = head.target_len(squares);
    // The rows' targets `[B, len]` (zero where a row has none) and whether each has one.
    let mut values = vec![0.0f32; b * len];
    let rows_with: Vec<bool> = batch.iter().map(|e| e.targets.has(head, squares)).collect();
    for (i, e) in batch.iter().enumerate() {
        if !rows_with[i] {
            continue;
        }
        if head.has_class_target() {
            for (v, &c) in values[i * len..(i + 1) * len]
                .iter_mut()
                .zip(e.classes(head.target))
            {
                *v = c as f32;
            }
        } else {
            values[i * len..(i + 1) * len].copy_from_slice(e.values(head.target));
        }
    }
    let with_targets = (rows_with.iter().filter(|&&w| w).count() as f32).max(1.0);
    let has: Vec<f32> = rows_with
        .iter()
        .map(|&w| if w { 1.0 } else { 0.0 })
        .collect();
    let has = Tensor::<2>::from_data(TensorData::new(has, [b, 1]), device);
    match head.loss {
        LossKind::SoftmaxCrossEntropy => {
            let target = Tensor::<2>::from_data(TensorData::new(values, [b, len]), device);
            -(log_softmax(out, 1) * target).sum_dim(1).mean()
        }
        LossKind::SquaredError => {
            let target = Tensor::<2>::from_data(TensorData::new(values, [b, len]), device);
            (out - target).powi_scalar(2).sum_dim(1).mean()
        }
        LossKind::ResidualSquaredError => {
            // (tanh(base + r) - target)^2 over the rows with targets.
            let target = Tensor::<2>::from_data(TensorData::new(values, [b, 2]), device);
            let base = target.clone().narrow(1, 0, 1);
            let goal = target.narrow(1, 1, 1);
            ((base + out).tanh() - goal).powi_scalar(2).mul(has).sum() / with_targets
        }
        LossKind::SquareClassCrossEntropy { classes } => {
            // Class indices `[B, groups, A]` as one-hot `[B, groups, classes, A]` (all zero
            // for a row without targets).
            let groups = head.outputs / classes;
            let mut one_hot = vec![0.0f32; b * head.outputs * squares];
            for (at, &class) in values.iter().enumerate() {
                let (row_group, sq) = (at / squares, at % squares);
                if rows_with[row_group / groups] {
                    let class = (class as usize).min(classes - 1);
                    one_hot[(row_group * classes + class) * squares + sq] = 1.0;
                }
            }
            let one_hot = Tensor::<4>::from_data(
                TensorData::new(one_hot, [b, groups, classes, squares]),
                device,
            );
            let logits = out.reshape([b, groups, classes, squares]);
            -(log_softmax(logits, 2) * one_hot).sum() / (with_targets * (groups * squares) as f32)
        }
    }
    .reshape([1])
}

/// A network trained with AdamW on burn's autodiff: no longer a trainer of the product (the
/// CPU kernels of [`crate::cpu_train`] train on CPUs, PyTorch on GPUs), kept as the test
/// oracle of the CPU kernels' hand-derived gradients (`model/tests/cpu_train.rs`).
pub struct BurnTrainer {
    net: Option<Net>,
    optim: ModuleOptimizer,
    encoder: Encoder,
    index: PolicyIndex,
    device: Device,
    pub learning_rate: f64,
    /// Weights of the auxiliary losses.
    pub weights: LossWeights,
}

impl BurnTrainer {
    /// `device` is the plain device; gradients are tracked on its autodiff form.
    pub fn new(
        variant: &Variant,
        net: Net,
        device: &Device,
        learning_rate: f64,
        weight_decay: f32,
    ) -> BurnTrainer {
        let device = device.clone().autodiff();
        let encoder = Encoder::for_network(variant, net.planes());
        BurnTrainer {
            net: Some(net.to_device(&device).train()),
            optim: AdamWConfig::new().with_weight_decay(weight_decay).init(),
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            device,
            learning_rate,
            weights: LossWeights::default(),
        }
    }

    /// The policy's and every head's losses of `net` on `batch` as scalar tensors `[1]` (on
    /// `device`, autodiff or not).
    fn loss_tensors(
        &self,
        net: &Net,
        batch: &[TrainExample<'_>],
        device: &Device,
    ) -> Result<LossTensors, EvalError> {
        let items: Vec<EncoderRow<'_>> = batch
            .iter()
            .map(|e| (e.position, e.moves, e.repetitions))
            .collect();
        let (input, index) = encode_batch(&self.encoder, &self.index, &items, device)?;
        let m = index.counts.iter().copied().max().unwrap_or(0).max(1);
        let mut policy_target = vec![0.0f32; batch.len() * m];
        for (i, e) in batch.iter().enumerate() {
            policy_target[i * m..i * m + e.policy.len()].copy_from_slice(e.policy);
        }
        let b = batch.len();
        let policy_target = Tensor::<2>::from_data(TensorData::new(policy_target, [b, m]), device);
        let n = self.encoder.size();
        let out = net.forward(input);
        let logits = legal_logits(&out, &index);
        let policy = -(log_softmax(logits, 1) * policy_target).sum_dim(1).mean();
        let heads = HEADS
            .iter()
            .zip(out.heads)
            .map(|(head, out)| head_loss(head, out, batch, n * n, device))
            .collect();
        Ok(LossTensors {
            policy: policy.reshape([1]),
            heads,
        })
    }

    /// One optimizer step on `batch`; returns the losses before the step.
    pub fn step(&mut self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        let net = self.net.take().expect("network present between steps");
        let tensors = match self.loss_tensors(&net, batch, &self.device) {
            Ok(l) => l,
            Err(e) => {
                self.net = Some(net);
                return Err(e);
            }
        };
        let loss = tensors.objective(&self.weights);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        self.net = Some(self.optim.step(self.learning_rate, net, grads));
        Ok(tensors.values())
    }

    /// The losses of the current weights on `batch` and the gradient of the step's
    /// objective, as a network whose every parameter holds its gradient (same names and
    /// shapes; for comparing another trainer's backward pass with burn's). No step.
    pub fn gradients(&self, batch: &[TrainExample<'_>]) -> Result<(Losses, Net), EvalError> {
        struct ToGradients(GradientsParams);
        impl ModuleMapper for ToGradients {
            fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
                let id = param.id;
                let gradient = self
                    .0
                    .remove::<D>(id)
                    .unwrap_or_else(|| param.val().zeros_like());
                Param::initialized(id, gradient)
            }
        }
        let net = self
            .net
            .as_ref()
            .expect("network present between steps")
            .clone();
        let tensors = self.loss_tensors(&net, batch, &self.device)?;
        let loss = tensors.objective(&self.weights);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        let gradients = net.valid().map(&mut ToGradients(grads));
        Ok((tensors.values(), gradients))
    }

    /// The losses of the current weights on `batch`, without a step (held-out data).
    pub fn losses(&self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        let net = self.net();
        let device = self.device.clone().inner();
        Ok(self.loss_tensors(&net, batch, &device)?.values())
    }

    /// The current weights, without gradient tracking.
    pub fn net(&self) -> Net {
        self.net.as_ref().expect("network present").valid()
    }
}
