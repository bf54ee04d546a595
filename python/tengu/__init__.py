"""tengu for Python: Dai Dai and Maka Dai Dai Shogi over tengu's Rust crates.

Everything is the Rust implementation (``tengu._tengu``, built by maturin): the rules
(``Board``), the encoder and policy index (``Encoder``), the replay shards of a run
(``ShardReader``), checkpoints, the trainer lease and checkpoint publication. This module
adds numpy views and Python conveniences only.

>>> import tengu
>>> b = tengu.Board()
>>> len(b.legal_moves()) > 0
True
"""

from __future__ import annotations

import json
import warnings
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

try:
    from . import _tengu
except ImportError as _missing:  # the sources of python/tengu, without the built module
    import os as _os

    _here = _os.path.dirname(_os.path.abspath(__file__))
    raise ImportError(
        f"tengu's native module (tengu._tengu) is not in {_here}: this is the source folder "
        "of the package, which Python found first (the current directory, or PYTHONPATH). "
        "Import tengu from another directory after installing the wheel (pip install "
        "dist/tengu-*.whl), or build the module into these sources with `maturin develop "
        "-m python/Cargo.toml` (docs/python.md)") from _missing
from ._tengu import (  # noqa: F401  (the public API)
    AUX_HORIZONS,
    CODES,
    ENCODER_VERSION,
    MATERIAL_SCALE,
    OCCUPANCY_CLASSES,
    RULES_VERSION,
    SHARD_FORMAT_VERSION,
    VALUE_HIDDEN,
    Board,
    CheckpointError,
    Lease,
    MoveError,
    PositionError,
    RecordError,
    RunConfigError,
    ShardError,
    ShardVersionError,
    StoreError,
    TenguError,
    TrainLog,
    CpuLedger,
    write_curves,
)
from ._tengu import read_records as _read_records
from ._tengu import read_loss_log as _read_loss_log

__all__ = [
    "AUX_HORIZONS", "CODES", "ENCODER_VERSION", "MATERIAL_SCALE", "OCCUPANCY_CLASSES",
    "RULES_VERSION", "SHARD_FORMAT_VERSION", "VALUE_HIDDEN",
    "Board", "Encoder", "ShardReader", "RunWindow", "Lease", "TrainLog", "CpuLedger",
    "TenguError", "PositionError", "MoveError", "RecordError", "ShardError",
    "ShardVersionError", "RunConfigError", "CheckpointError", "StoreError",
    "read_records", "RecordWarning", "run_config", "net_config", "parameter_shapes", "write_checkpoint",
    "read_checkpoint_meta", "read_checkpoint", "evaluate", "newest_checkpoint",
    "write_optimizer_state", "read_optimizer_state", "published_optimizer_state",
    "write_curves", "read_game_file", "Engine", "EngineError", "read_loss_log", "heads",
]


def heads() -> List[dict]:
    """The trained heads besides the policy: the Rust head table
    (``tengu_model::desc::HEADS``), one dict per head (``layer``, ``loss_name``, ``input``,
    ``outputs``, ``activation``, ``loss``, ``classes``, ``target`` (the batch key of its
    target; ``has_<target>`` marks the rows that have it), ``weight_key`` (a ``[train]``
    key, or None for weight 1), ``default_weight``, ``averages_over_rows_with_target``
    (its loss is a mean over the rows with its target, else over every row), ``init``), in
    the table's order."""
    return json.loads(_tengu.heads())


def read_loss_log(run: str) -> List[dict]:
    """The run's loss log (``RUN/train/*.jsonl``), oldest step first: one dict per training
    step with the keys of the Rust trainer's ``LossRecord`` (``step``, ``policy_loss``,
    ``value_loss``, ..., ``heldout_*`` at checkpoints only), read through that type, so a
    damaged line or one of another version raises ``StoreError`` naming its file and line."""
    return json.loads(_read_loss_log(str(run)))


def _batch(raw: dict) -> Dict[str, np.ndarray]:
    """A native batch as numpy arrays, with ``move_mask`` bool ``[B, M]`` added."""
    batch = {k: _array(v) for k, v in raw.items()}
    m = batch["move_from"].shape[1]
    batch["move_mask"] = np.arange(m)[None, :] < batch["move_count"][:, None]
    return batch


def _array(spec: Tuple[bytearray, str, List[int]]) -> np.ndarray:
    """A numpy view of ``(bytes, dtype, shape)`` from the native module (no copy)."""
    data, dtype, shape = spec
    return np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)


class Encoder:
    """Positions to input planes and legal moves to policy ids (``tengu_model``'s encoder,
    version ``ENCODER_VERSION``).

    ``Encoder(game="dai-dai", planes=None, tactical=True, material=False)``: the layout with
    ``planes`` input planes (a network's count), else the one the flags choose.
    """

    def __init__(self, game: str = "dai-dai", planes: Optional[int] = None,
                 tactical: bool = True, material: bool = False) -> None:
        self._native = _tengu.Encoder(game, planes, tactical, material)

    @classmethod
    def for_checkpoint(cls, path: str) -> "Encoder":
        """The encoder a checkpoint's network reads: its game and plane count (a network
        trained with material planes needs more than the default ``Encoder()``'s).
        ``CheckpointError`` for a file that is not a checkpoint of this encoder version."""
        meta = read_checkpoint_meta(path)
        return cls(meta["game"], planes=meta["net"]["planes"])

    game = property(lambda self: self._native.game)
    planes = property(lambda self: self._native.planes, doc="input planes P")
    size = property(lambda self: self._native.size, doc="board side N")
    tactical = property(lambda self: self._native.tactical)
    material = property(lambda self: self._native.material)
    slots = property(lambda self: self._native.slots, doc="flat policy ids, N^4 * CODES")

    def encode(self, board: Board) -> np.ndarray:
        """The planes of ``board``: float32 ``[P, N, N]`` in the mover's frame."""
        n = self.size
        return np.frombuffer(self._native.encode_bytes(board), dtype=np.float32).reshape(
            self.planes, n, n)

    def encode_many(self, boards: List[Board]) -> np.ndarray:
        """The planes of several boards: float32 ``[B, P, N, N]`` (GIL released)."""
        n = self.size
        return np.frombuffer(self._native.encode_many_bytes(list(boards)),
                             dtype=np.float32).reshape(len(boards), self.planes, n, n)

    def legal_slots(self, board: Board) -> np.ndarray:
        """``(from, to, code)`` of each legal move, int64 ``[M, 3]``, in
        ``board.legal_moves()`` order."""
        return np.asarray(self._native.legal_slots(board), dtype=np.int64).reshape(-1, 3)

    def policy_ids(self, board: Board) -> np.ndarray:
        """The flat policy id ``(from * N * N + to) * CODES + code`` of each legal move,
        int64 ``[M]``, in ``board.legal_moves()`` order."""
        return np.asarray(self._native.policy_ids(board), dtype=np.int64)

    def move_of_id(self, board: Board, policy_id: int) -> Optional[str]:
        """The legal move of ``board`` with that flat policy id, or ``None``."""
        return self._native.move_of_id(board, int(policy_id))


class ShardReader:
    """The rows of a run's shards as numpy batches; every row exactly once across
    ``world_size`` ranks x ``num_workers`` loader workers (``rank`` and ``worker`` pick the
    part). Decoding and encoding run in Rust threads with the GIL released.

    ``ShardReader(run, rank=0, world_size=1, worker=0, num_workers=1, batch_size=256,
    planes=None, split="train", shuffle_seed=None, drop_last=False, threads=0)``.
    Iterating gives one pass (an epoch); each batch is a dict of arrays (``B`` rows, ``M``
    the most legal moves of a row in the batch):

    * ``planes`` float32 ``[B, P, N, N]``;
    * ``move_from``, ``move_to``, ``move_code`` int64 ``[B, M]`` (mover's frame squares,
      policy code), ``move_count`` int64 ``[B]``, ``move_mask`` bool ``[B, M]``;
    * ``policy`` float32 ``[B, M]`` (target probabilities; zero for rows that are not full
      searches), ``policy_weight`` float32 ``[B]``;
    * ``wdl`` float32 ``[B, 3]``; ``material`` float32 ``[B, 2]`` (tanh scale);
    * ``ownership`` uint8 ``[B, 2, N * N]`` (0 empty, 1 mover's, 2 opponent's),
      ``has_ownership`` float32 ``[B]``;
    * ``teacher`` float32 ``[B, 2]``: the judge's target, the search leaf's exchange count
      / 10 (the correction's logit scale) and the teacher's ``tanh(score / 10)``;
      ``has_teacher`` float32 ``[B]`` (0: the row has no teacher label);
    * ``row`` int64 ``[B]``: the row's index among all the run's rows.

    Errors: ``RunConfigError`` (no or a bad ``config.toml``), ``ShardVersionError`` (a shard
    of another format version, named), ``ShardError`` (corrupt, another game),
    ``StoreError``.
    """

    def __init__(self, run: str, rank: int = 0, world_size: int = 1, worker: int = 0,
                 num_workers: int = 1, batch_size: int = 256, planes: Optional[int] = None,
                 split: str = "train", shuffle_seed: Optional[int] = None,
                 drop_last: bool = False, threads: int = 0) -> None:
        self._native = _tengu.ShardReader(str(run), rank, world_size, worker, num_workers,
                                          batch_size, planes, split, shuffle_seed,
                                          drop_last, threads)
        self._fresh = True

    def __len__(self) -> int:
        """Rows of this part."""
        return len(self._native)

    def batches(self) -> int:
        """Batches one pass yields."""
        return self._native.batches()

    row_range = property(lambda self: self._native.row_range)
    total_rows = property(lambda self: self._native.total_rows)
    shards_read = property(lambda self: self._native.shards_read)
    planes = property(lambda self: self._native.planes)
    size = property(lambda self: self._native.size)
    game = property(lambda self: self._native.game)

    def reset(self, epoch: Optional[int] = None) -> None:
        """Starts a pass again (reshuffled by ``shuffle_seed`` and the pass number)."""
        self._native.reset(epoch)
        self._fresh = True

    def next_batch(self) -> Optional[Dict[str, np.ndarray]]:
        """The next batch of this pass, or ``None`` after its last."""
        raw = self._native.next_batch()
        return None if raw is None else _batch(raw)

    def __iter__(self) -> Iterator[Dict[str, np.ndarray]]:
        if not self._fresh:
            self.reset()
        self._fresh = False
        while True:
            batch = self.next_batch()
            if batch is None:
                return
            yield batch


class RunWindow:
    """A run followed as the Rust trainer follows it: the sliding window of its newest rows
    (``[train] window_rows``; held-out games kept apart), read incrementally by
    ``ingest()``, with the ingest state saved beside each checkpoint (``save_state`` /
    ``resume``) so that a restarted trainer neither reads a shard twice nor misses one.

    ``RunWindow(run, planes=None, threads=0)``. ``sample(step, batch_size, seed=0, rank=0,
    world_size=1)`` draws the batch of a step as ``tengu train`` does (the same generator
    and seed rule; ranks take consecutive parts of one draw), ``held_out(max_rows)`` the
    held-out rows the Rust trainer measures (value target: the result alone); both are
    dicts of arrays as ``ShardReader`` gives (``row``: the index in the window or among the
    held-out rows), or ``None`` when there are no such rows.
    """

    def __init__(self, run: str, planes: Optional[int] = None, threads: int = 0) -> None:
        self._native = _tengu.RunWindow(str(run), planes, threads)

    def __len__(self) -> int:
        """Rows in the window (held-out rows excluded)."""
        return len(self._native)

    rows_seen = property(lambda self: self._native.rows_seen,
                         doc="rows of every shard seen since the run began")
    games_seen = property(lambda self: self._native.games_seen)
    held_out_rows = property(lambda self: self._native.held_out_rows)

    def ingest(self) -> int:
        """Reads shards not seen before; returns the rows added to the window."""
        return self._native.ingest()

    def resume(self, step: int) -> bool:
        """Restores the ingest state of checkpoint ``step``; ``False`` when it has none."""
        return self._native.resume(int(step))

    def save_state(self, step: int) -> None:
        """Writes the ingest state of checkpoint ``step`` (before publishing it)."""
        self._native.save_state(int(step))

    def sample(self, step: int, batch_size: int, seed: int = 0, rank: int = 0,
               world_size: int = 1) -> Optional[Dict[str, np.ndarray]]:
        raw = self._native.sample(int(step), int(batch_size), int(seed), int(rank),
                                  int(world_size))
        return None if raw is None else _batch(raw)

    def held_out(self, max_rows: int) -> Optional[Dict[str, np.ndarray]]:
        raw = self._native.held_out(int(max_rows))
        return None if raw is None else _batch(raw)

    def wait_before(self, step: int, global_batch: int) -> Optional[str]:
        """Why the step after ``step`` must wait (``"min_rows"``, ``"passes_per_row"``) or
        ``None``: ``tengu train``'s rule, with ``global_batch`` rows a step."""
        return self._native.wait_before(int(step), int(global_batch))

    def learning_rate(self, step: int) -> float:
        """The learning rate of step ``step`` (0-based): ``tengu train``'s schedule."""
        return self._native.learning_rate(int(step))

    def cpu_gradients(self, checkpoint: str, rows, **weights: float) -> dict:
        """The CPU kernels' trainer on the window's rows ``rows`` from ``checkpoint``:
        ``{"losses": {name: float}, "gradients": {name: array}}`` (checkpoint layouts), no
        step; for comparing a PyTorch step with ``tengu train``'s. ``weights``: the heads'
        loss weights by ``[train]`` key (``material_weight=0.3``; ``heads()``'
        ``weight_key``), the heads' defaults for the rest; another key is a ``ValueError``."""
        raw = self._native.cpu_gradients(str(checkpoint), [int(r) for r in rows],
                                         {k: float(w) for k, w in weights.items()})
        grads = {name: np.frombuffer(bytes(buf), dtype=dtype).reshape(shape)
                 for name, (buf, dtype, shape) in raw["gradients"].items()}
        return {"losses": dict(raw["losses"]), "gradients": grads}

    def cpu_step(self, checkpoint: str, rows, learning_rate: float, weight_decay: float,
                 optimizer_state: Optional[str] = None, **weights: float
                 ) -> Dict[str, np.ndarray]:
        """One AdamW step of the CPU kernels' trainer on the window's rows ``rows`` from
        ``checkpoint`` and the optimizer state file ``optimizer_state`` (else fresh
        moments): the weights after it by name (checkpoint layouts); for checking that a
        PyTorch trainer's state resumes in ``tengu train`` as it would in torch.
        ``weights`` as for ``cpu_gradients``."""
        raw = self._native.cpu_step(str(checkpoint), [int(r) for r in rows],
                                    float(learning_rate), float(weight_decay),
                                    None if optimizer_state is None else str(optimizer_state),
                                    {k: float(w) for k, w in weights.items()})
        return {name: _array(spec) for name, spec in raw.items()}


def run_config(run: str) -> dict:
    """A run's ``config.toml`` as the trainer reads it: ``game``, ``network``, ``net`` (the
    architecture of the run's preset) and ``train`` (every ``[train]`` key, validated by the
    Rust trainer's rules). ``RunConfigError`` for a run without a config."""
    return json.loads(_tengu.run_config(str(run)))


def net_config(game: str, preset: str, tactical: bool = True, material: bool = False) -> dict:
    """The architecture of a size preset (``tiny``, ``cpu``, ``gpu``, ``b<B>c<C>``)."""
    return json.loads(_tengu.net_config(game, preset, tactical, material))


def parameter_shapes(net: dict) -> List[Tuple[str, List[int]]]:
    """The one naming table of the weights (``tengu_model::desc::parameter_shapes``):
    convolution weights ``[out, in, k, k]``, linear weights ``[in, out]``."""
    return _tengu.parameter_shapes(net["planes"], net["size"], net["blocks"],
                                   net["channels"], net["head_dim"], net["value_channels"])


def write_checkpoint(path: str, game: str, net: dict, step: int,
                     tensors: Dict[str, np.ndarray], parent: Optional[str] = None) -> None:
    """Writes a checkpoint the Rust evaluators load; ``tensors`` maps every name of
    ``parameter_shapes(net)`` to a float32 array of its shape."""
    items = []
    shapes = dict(parameter_shapes(net))
    for name, array in tensors.items():
        a = np.ascontiguousarray(array, dtype=np.float32)
        if name in shapes and list(a.shape) != list(shapes[name]):
            raise CheckpointError(f"{path}: tensor {name!r} has shape {list(a.shape)}, "
                                  f"the naming table says {shapes[name]}")
        items.append((name, a.tobytes()))
    _tengu.write_checkpoint(str(path), game, json.dumps(net), int(step), items, parent)


def read_checkpoint_meta(path: str, game: Optional[str] = None) -> dict:
    """A checkpoint's metadata (``encoder_version``, ``game``, ``step``, ``parent``,
    ``net``); ``CheckpointError`` for another game (when given) or encoder version."""
    return json.loads(_tengu.read_checkpoint_meta(str(path), game))


def read_checkpoint(path: str, game: Optional[str] = None) -> Tuple[dict, Dict[str, np.ndarray]]:
    """A checkpoint's metadata and weights (float32 arrays by name, shapes as the naming
    table's). Reads the safetensors layout the Rust side writes (little-endian F32)."""
    meta = read_checkpoint_meta(path, game)
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    # Heads added after a checkpoint was written start at zero (``init: "zero"`` in the
    # Rust head table), as the Rust loader fills them: an old checkpoint plays as before.
    added_later = {h["layer"] for h in heads() if h["init"] == "zero"}
    for name, shape in parameter_shapes(meta["net"]):
        entry = header.get(name)
        if entry is None and name.rsplit(".", 1)[0] in added_later:
            out[name] = np.zeros(shape, dtype=np.float32)
            continue
        if entry is None or entry.get("dtype") != "F32":
            raise CheckpointError(f"{path}: no float32 tensor {name!r}")
        start, end = entry["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(shape).copy()
    return meta, out


def evaluate(path: str, boards: List[Board], backend: str = "burn"
             ) -> List[Tuple[np.ndarray, np.ndarray, float]]:
    """The Rust evaluator's policy (over ``board.legal_moves()``), WDL and material for
    each board, from checkpoint ``path``."""
    return [(np.asarray(p, dtype=np.float32), np.asarray(w, dtype=np.float32), m)
            for p, w, m in _tengu.evaluate(str(path), list(boards), backend)]


def newest_checkpoint(run: str) -> Optional[Tuple[int, str, dict]]:
    """The run's newest committed checkpoint: ``(step, local path, manifest)``, or
    ``None``."""
    found = _tengu.newest_checkpoint(str(run))
    if found is None:
        return None
    step, path, manifest = found
    return step, path, json.loads(manifest)


def write_optimizer_state(path: str, steps: int,
                          moments: List[Tuple[str, np.ndarray, np.ndarray]]) -> None:
    """Writes an AdamW state in the CPU trainer's format (``tengu train`` resumes with it):
    ``steps`` the AdamW steps taken, ``moments`` ``(name, exp_avg, exp_avg_sq)`` per
    parameter in ``parameter_shapes``'s order and layouts (linear weights ``[in, out]``)."""
    items = [(name, np.ascontiguousarray(m1, dtype=np.float32).tobytes(),
              np.ascontiguousarray(m2, dtype=np.float32).tobytes()) for name, m1, m2 in moments]
    _tengu.write_optimizer_state(str(path), int(steps), items)


def read_optimizer_state(path: str) -> Tuple[int, List[Tuple[str, np.ndarray, np.ndarray]]]:
    """An AdamW state file of either trainer: ``(steps, [(name, exp_avg, exp_avg_sq)])``,
    the moments flat float32 arrays in the checkpoint layout of each parameter."""
    steps, params = _tengu.read_optimizer_state(str(path))
    return steps, [(name, np.frombuffer(bytes(m1), dtype=np.float32),
                    np.frombuffer(bytes(m2), dtype=np.float32)) for name, m1, m2 in params]


def published_optimizer_state(run: str, step: int) -> Optional[str]:
    """The local path of the optimizer state published with checkpoint ``step`` (fetched
    and verified), or ``None`` when it was published without one."""
    return _tengu.published_optimizer_state(str(run), int(step))


class RecordWarning(UserWarning):
    """A damaged record or line of a game file, skipped: the other games are still read.
    ``warnings.simplefilter("error", tengu.RecordWarning)`` makes it an error instead."""


def read_records(text: str, source: str = "") -> List[Board]:
    """The games of one text as boards: records (RULES.md §12.4) one after another, or a
    run's game file (``games/*.records``, JSON lines whose ``values`` become the boards').
    A damaged record or line does not hide the others: the intact games come back in order
    and a ``RecordWarning`` names each damaged one (``line 2: ...``, after ``source``)."""
    boards, damaged = _read_records(text)
    prefix = f"{source}: " if source else ""
    for where, why in damaged:
        warnings.warn(RecordWarning(f"{prefix}{where}: {why}"), stacklevel=2)
    return boards


def read_game_file(path: str) -> List[Board]:
    """The games of a file as boards: a run's ``games/*.records`` (JSON lines; each board's
    ``values`` are the search's values per ply), an arena's ``.record``, or records one
    after another (``read_records``). Each damaged record or line is skipped with a
    ``RecordWarning`` naming the file and the line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return read_records(text, source=str(path))


from .engine import Engine, EngineError  # noqa: E402  (needs Board above)
