//! The [`CpuNet`] behind the [`Evaluator`] trait: the default evaluator of the pure-Rust
//! build (self-play, arena, suite, engine). Checked against burn in `tests/backends_agree.rs`.

use std::time::Instant;

use tengu_rules::Variant;

use crate::cpu_net::{CpuNet, Profile, Workspace, CHUNK};
use crate::desc::NetConfig;
use crate::encoder::Encoder;
use crate::evaluator::{softmax_in_place, EvalError, EvalInput, Evaluation, Evaluator};
use crate::net::Net;
use crate::policy::PolicyIndex;

/// A network evaluated by tengu's own CPU kernels (one thread).
pub struct CpuEvaluator {
    game: String,
    net: CpuNet,
    encoder: Encoder,
    index: PolicyIndex,
    label: String,
    /// Encoder planes of one chunk, `[CHUNK, P, N, N]`.
    input: Vec<f32>,
    workspace: Workspace,
    profile: Profile,
}

impl CpuEvaluator {
    /// The network `net` (architecture `config`) for `variant`.
    pub fn new(
        variant: &Variant,
        net: &Net,
        config: &NetConfig,
        label: impl Into<String>,
    ) -> Result<CpuEvaluator, EvalError> {
        let net =
            CpuNet::from_net(net, config).map_err(|e| EvalError::Architecture(e.to_string()))?;
        let encoder = Encoder::for_network(variant, config.planes);
        Ok(CpuEvaluator {
            game: variant.id().to_string(),
            index: PolicyIndex::new(encoder.clone()),
            input: vec![0.0; CHUNK * encoder.len()],
            encoder,
            net,
            label: label.into(),
            workspace: Workspace::default(),
            profile: Profile::default(),
        })
    }

    pub fn config(&self) -> &NetConfig {
        self.net.config()
    }
}

impl Evaluator for CpuEvaluator {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn evaluate(&mut self, batch: &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError> {
        crate::evaluator::check_game(&self.game, batch)?;
        let len = self.encoder.len();
        let mut out = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(CHUNK) {
            let mut clock = Instant::now();
            for (i, item) in chunk.iter().enumerate() {
                self.encoder.encode(
                    item.position,
                    item.repetitions,
                    &mut self.input[i * len..(i + 1) * len],
                );
            }
            self.profile.lap("encode", &mut clock);
            let values = self.net.forward_chunk(
                &self.input,
                chunk.len(),
                &mut self.workspace,
                &mut self.profile,
            );
            let mut clock = Instant::now();
            for (i, (item, value)) in chunk.iter().zip(values).enumerate() {
                let mut policy = Vec::with_capacity(item.moves.len());
                for &m in item.moves {
                    let s = self.index.slot(item.position, m)?;
                    policy.push(self.net.move_logit(
                        &self.workspace.heads,
                        i,
                        s.from as usize,
                        s.to as usize,
                        s.code as usize,
                    ));
                }
                softmax_in_place(&mut policy);
                let mut wdl = value.wdl;
                softmax_in_place(&mut wdl);
                out.push(Evaluation {
                    policy,
                    wdl,
                    material: value.material,
                    residual: value.residual,
                });
            }
            self.profile.lap("legal moves, softmax", &mut clock);
        }
        Ok(out)
    }

    fn profile(&self) -> Vec<(&'static str, f64)> {
        self.profile.seconds()
    }
}
