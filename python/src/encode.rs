//! `Encoder`: positions to input planes and legal moves to policy slots, by
//! `tengu_model::Encoder` and `tengu_model::PolicyIndex` (version `ENCODER_VERSION`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tengu_model::{PolicyIndex, PolicySlot};
use tengu_rules::Variant;

use crate::board::Board;
use crate::{f32_bytes, variant_of, CheckpointError, MoveError};

/// The encoder of one game and layout.
///
/// `Encoder(game="dai-dai", planes=None, tactical=True, material=False)`: the layout with
/// `planes` input planes (a network's count; another count is a `CheckpointError` naming
/// the game's layouts), else the one the flags choose.
#[pyclass(module = "tengu._tengu")]
pub struct Encoder {
    pub(crate) encoder: tengu_model::Encoder,
    pub(crate) index: PolicyIndex,
    pub(crate) variant: Arc<Variant>,
}

impl Encoder {
    pub(crate) fn build(variant: Arc<Variant>, encoder: tengu_model::Encoder) -> Encoder {
        Encoder {
            index: PolicyIndex::new(encoder.clone()),
            encoder,
            variant,
        }
    }

    fn check_game(&self, board: &Board) -> PyResult<()> {
        let game = board.position().variant().id();
        if game != self.variant.id() {
            return Err(CheckpointError::new_err(format!(
                "a {game} board given to the encoder of {}",
                self.variant.id()
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl Encoder {
    #[new]
    #[pyo3(signature = (game="dai-dai", planes=None, tactical=true, material=false))]
    fn new(game: &str, planes: Option<usize>, tactical: bool, material: bool) -> PyResult<Encoder> {
        let variant = variant_of(game)?;
        let encoder = match planes {
            Some(p) => tengu_model::Encoder::for_planes(&variant, p)
                .map_err(|e| CheckpointError::new_err(e.to_string()))?,
            None => tengu_model::Encoder::with_planes(&variant, tactical, material),
        };
        Ok(Encoder::build(variant, encoder))
    }

    #[getter]
    fn game(&self) -> String {
        self.variant.id().to_string()
    }

    /// Input planes `P`.
    #[getter]
    fn planes(&self) -> usize {
        self.encoder.planes()
    }

    /// Board side `N`.
    #[getter]
    fn size(&self) -> usize {
        self.encoder.size()
    }

    #[getter]
    fn tactical(&self) -> bool {
        self.encoder.tactical()
    }

    #[getter]
    fn material(&self) -> bool {
        self.encoder.material()
    }

    /// Number of flat policy ids, `N^4 * CODES`.
    #[getter]
    fn slots(&self) -> usize {
        self.index.slots()
    }

    /// The planes of `board` as native-endian float32 bytes of shape `[P, N, N]` (the
    /// Python wrapper makes them a numpy array).
    fn encode_bytes<'py>(
        &self,
        py: Python<'py>,
        board: &Board,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        self.check_game(board)?;
        let mut out = vec![0.0f32; self.encoder.len()];
        self.encoder
            .encode(board.position(), board.repetitions(), &mut out);
        Ok(f32_bytes(py, &out))
    }

    /// The planes of several boards, `[B, P, N, N]` float32 bytes, encoded with the GIL
    /// released.
    fn encode_many_bytes<'py>(
        &self,
        py: Python<'py>,
        boards: Vec<PyRef<'py, Board>>,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        for b in &boards {
            self.check_game(b)?;
        }
        let inputs: Vec<(tengu_rules::Position, u32)> = boards
            .iter()
            .map(|b| (b.position().clone(), b.repetitions()))
            .collect();
        let encoder = self.encoder.clone();
        let out = py.allow_threads(move || {
            let len = encoder.len();
            let mut out = vec![0.0f32; inputs.len() * len];
            for ((pos, reps), chunk) in inputs.iter().zip(out.chunks_mut(len.max(1))) {
                encoder.encode(pos, *reps, chunk);
            }
            out
        });
        Ok(f32_bytes(py, &out))
    }

    /// `(from, to, code)` of each legal move of `board`, in `Board.legal_moves()` order:
    /// squares in the mover's frame (`0 .. N * N`), code `0 .. CODES`.
    fn legal_slots(&self, board: &Board) -> PyResult<Vec<(u16, u16, u8)>> {
        self.check_game(board)?;
        let pos = board.position();
        pos.legal_move_list()
            .into_iter()
            .map(|m| {
                self.index
                    .slot(pos, m)
                    .map(|s| (s.from, s.to, s.code))
                    .map_err(|e| MoveError::new_err(e.to_string()))
            })
            .collect()
    }

    /// The flat policy id `(from * N * N + to) * CODES + code` of each legal move of
    /// `board`, in `Board.legal_moves()` order.
    fn policy_ids(&self, board: &Board) -> PyResult<Vec<u32>> {
        Ok(self
            .legal_slots(board)?
            .into_iter()
            .map(|(from, to, code)| self.index.id(PolicySlot { from, to, code }))
            .collect())
    }

    /// The legal move of `board` with flat policy id `id`, as text, or `None`.
    fn move_of_id(&self, board: &Board, id: u32) -> PyResult<Option<String>> {
        self.check_game(board)?;
        if id as usize >= self.index.slots() {
            return Ok(None);
        }
        let pos = board.position();
        Ok(self
            .index
            .move_of(pos, self.index.slot_of_id(id))
            .map(|m| pos.move_text(m)))
    }
}
