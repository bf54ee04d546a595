//! The burn network behind the [`Evaluator`] trait, and a training step on burn's autodiff
//! ([`BurnTrainer`]): the test oracle of the CPU kernels' hand-derived gradients.

use burn::module::{Module, ModuleMapper, Param};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use tengu_rules::{Move, Position, Variant};

use crate::desc::{aux_targets, AUX_HORIZONS, OCCUPANCY_CLASSES};
use crate::desc::{LossWeights, Losses, NetConfig, TrainExample};
use crate::encoder::Encoder;
use crate::evaluator::{EvalError, EvalInput, Evaluation, Evaluator};
use crate::net::{legal_logits, MoveIndex, Net};
use crate::policy::PolicyIndex;

/// Encodes a batch: planes `[B, P, N, N]` and the legal-move index.
fn encode_batch(
    encoder: &Encoder,
    index: &PolicyIndex,
    batch: &[(&Position, &[Move], u32)],
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

impl Evaluator for BurnEvaluator {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        crate::evaluator::check_game(&self.game, batch)?;
        let items: Vec<(&Position, &[Move], u32)> = batch
            .iter()
            .map(|i| (i.position, i.moves, i.repetitions))
            .collect();
        let (input, index) = encode_batch(&self.encoder, &self.index, &items, &self.device)?;
        let out = self.net.forward(input);
        let logits = legal_logits(&out, &index);
        let [_, m] = logits.dims();
        let logits: Vec<f32> = logits
            .into_data()
            .try_to_vec()
            .map_err(|e| EvalError::Backend(format!("{e:?}")))?;
        let wdl: Vec<f32> = out
            .wdl
            .into_data()
            .try_to_vec()
            .map_err(|e| EvalError::Backend(format!("{e:?}")))?;
        let material: Vec<f32> = out
            .material
            .into_data()
            .try_to_vec()
            .map_err(|e| EvalError::Backend(format!("{e:?}")))?;
        let residual: Vec<f32> = out
            .residual
            .into_data()
            .try_to_vec()
            .map_err(|e| EvalError::Backend(format!("{e:?}")))?;
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

impl Losses {
    /// The values of the loss tensors of [`BurnTrainer::loss_tensors`].
    fn of(tensors: [Tensor<1>; 5]) -> Losses {
        let [policy, value, ownership, material, residual] = tensors.map(|t| {
            t.into_data()
                .try_to_vec::<f32>()
                .map(|v| v[0])
                .unwrap_or(f32::NAN)
        });
        Losses {
            policy,
            value,
            ownership,
            material,
            residual,
        }
    }
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

    /// Policy, value, ownership, material and residual losses of `net` on `batch` as scalar
    /// tensors `[1]` (on `device`, autodiff or not).
    fn loss_tensors(
        &self,
        net: &Net,
        batch: &[TrainExample<'_>],
        device: &Device,
    ) -> Result<[Tensor<1>; 5], EvalError> {
        let items: Vec<(&Position, &[Move], u32)> = batch
            .iter()
            .map(|e| (e.position, e.moves, e.repetitions))
            .collect();
        let (input, index) = encode_batch(&self.encoder, &self.index, &items, device)?;
        let m = index.counts.iter().copied().max().unwrap_or(0).max(1);
        let mut policy_target = vec![0.0f32; batch.len() * m];
        let mut wdl_target = vec![0.0f32; batch.len() * 3];
        for (i, e) in batch.iter().enumerate() {
            policy_target[i * m..i * m + e.policy.len()].copy_from_slice(e.policy);
            wdl_target[3 * i..3 * i + 3].copy_from_slice(&e.wdl);
        }
        let b = batch.len();
        let policy_target = Tensor::<2>::from_data(TensorData::new(policy_target, [b, m]), device);
        let wdl_target = Tensor::<2>::from_data(TensorData::new(wdl_target, [b, 3]), device);
        let n = self.encoder.size();
        let squares = n * n;
        let (own, with_targets, material) = aux_targets(batch, squares);
        let (h, c) = (AUX_HORIZONS, OCCUPANCY_CLASSES);
        let own = Tensor::<4>::from_data(TensorData::new(own, [b, h, c, squares]), device);
        let material = Tensor::<2>::from_data(TensorData::new(material, [b, h]), device);
        let out = net.forward(input);
        let logits = legal_logits(&out, &index);
        let policy_loss = -(log_softmax(logits, 1) * policy_target).sum_dim(1).mean();
        let value_loss = -(log_softmax(out.wdl, 1) * wdl_target).sum_dim(1).mean();
        let own_logits = out.ownership.reshape([b, h, c, squares]);
        let ownership_loss =
            -(log_softmax(own_logits, 2) * own).sum() / (with_targets.max(1) * h * squares) as f32;
        let material_loss = (out.material - material).powi_scalar(2).sum_dim(1).mean();
        // The judge: (tanh(base + r) - target)^2 over the rows with teacher labels.
        let (mut base, mut target, mut has) = (vec![0.0f32; b], vec![0.0f32; b], vec![0.0f32; b]);
        for (i, e) in batch.iter().enumerate() {
            if let Some([row_base, row_target]) = e.teacher {
                (base[i], target[i], has[i]) = (row_base, row_target, 1.0);
            }
        }
        let labelled = has.iter().sum::<f32>().max(1.0);
        let column = |v: Vec<f32>| Tensor::<2>::from_data(TensorData::new(v, [b, 1]), device);
        let residual_loss = ((column(base) + out.residual).tanh() - column(target))
            .powi_scalar(2)
            .mul(column(has))
            .sum()
            / labelled;
        Ok([
            policy_loss,
            value_loss,
            ownership_loss.reshape([1]),
            material_loss.reshape([1]),
            residual_loss.reshape([1]),
        ])
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
        let [policy_loss, value_loss, ownership_loss, material_loss, residual_loss] =
            tensors.clone();
        let w = self.weights;
        let loss = policy_loss
            + value_loss
            + ownership_loss * w.ownership
            + material_loss * w.material
            + residual_loss * w.residual;
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        self.net = Some(self.optim.step(self.learning_rate, net, grads));
        Ok(Losses::of(tensors))
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
        let [policy_loss, value_loss, ownership_loss, material_loss, residual_loss] =
            tensors.clone();
        let w = self.weights;
        let loss = policy_loss
            + value_loss
            + ownership_loss * w.ownership
            + material_loss * w.material
            + residual_loss * w.residual;
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        let gradients = net.valid().map(&mut ToGradients(grads));
        Ok((Losses::of(tensors), gradients))
    }

    /// The losses of the current weights on `batch`, without a step (held-out data).
    pub fn losses(&self, batch: &[TrainExample<'_>]) -> Result<Losses, EvalError> {
        let net = self.net();
        let device = self.device.clone().inner();
        Ok(Losses::of(self.loss_tensors(&net, batch, &device)?))
    }

    /// The current weights, without gradient tracking.
    pub fn net(&self) -> Net {
        self.net.as_ref().expect("network present").valid()
    }
}
