"""The tengu network and its losses in PyTorch, and checkpoints in tengu's format.

The network is the one of ``model/src/desc.rs`` and the burn implementation
(``model/src/net.rs``), weight for weight: the names and shapes come from the Rust naming
table (``tengu.parameter_shapes``), convolution weights are ``[out, in, k, k]`` in both,
linear weights are stored ``[in, out]`` (burn's layout) and transposed into PyTorch's
``[out, in]``. The heads besides the policy and their losses are not listed here: each is a
row of the Rust head table (``desc::HEADS``, read through ``HEADS`` below: layer, input,
outputs, activation, loss kind, target, weight key, initialisation), the table the CPU
kernels' trainer (``model/src/cpu_train.rs``) reads too. The losses: policy cross-entropy
over the legal moves, then each head's by its kind.

Shapes: ``B`` batch, ``P`` planes, ``N`` board side, ``A = N * N``, ``C`` channels, ``D``
policy key size, ``M`` legal moves (padded).
"""

from __future__ import annotations

import math
from typing import Dict, List, NamedTuple, Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import tengu

#: Logit of a padding move (as the Rust side's ``mask_fill``).
PADDING_LOGIT = -1.0e9

#: The trained heads besides the policy: the Rust head table (``tengu.heads()``).
HEADS: List[dict] = tengu.heads()


class ResBlock(nn.Module):
    """conv-relu-conv with a global-pooling bias (KataGo), plus the skip."""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.pool = nn.Linear(c, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv1(x))
        bias = self.pool(h.mean(dim=(2, 3)))[:, :, None, None]
        return F.relu(x + self.conv2(h) + bias)


class Output(NamedTuple):
    """Raw outputs: ``q``, ``k`` ``[B, A, D]``; ``code`` ``[B, A, CODES]``; ``heads`` each
    head's output by its loss name (``HEADS``): ``[B, outputs]`` for heads on the value
    trunk, ``[B, outputs, N, N]`` for heads on the squares, after the head's activation
    (``value``: WDL logits ``[B, 3]``; ``ownership``: logits
    ``[B, AUX_HORIZONS * OCCUPANCY_CLASSES, N, N]``; ``material``: ``[B, AUX_HORIZONS]`` in
    (-1, 1))."""
    q: torch.Tensor
    k: torch.Tensor
    code: torch.Tensor
    heads: Dict[str, torch.Tensor]

class TenguNet(nn.Module):
    """The network of an architecture dict (``tengu.net_config`` / a checkpoint's ``net``:
    ``planes``, ``size``, ``blocks``, ``channels``, ``head_dim``, ``value_channels``)."""

    def __init__(self, net: dict) -> None:
        super().__init__()
        self.net = dict(net)
        c, p = net["channels"], net["planes"]
        self.stem = nn.Conv2d(p, c, 1)
        self.blocks = nn.ModuleList(ResBlock(c) for _ in range(net["blocks"]))
        self.policy_q = nn.Conv2d(c, net["head_dim"], 1)
        self.policy_k = nn.Conv2d(c, net["head_dim"], 1)
        self.policy_code = nn.Conv2d(c, tengu.CODES, 1)
        self.value_conv = nn.Conv2d(c, net["value_channels"], 1)
        self.value_fc1 = nn.Linear(net["value_channels"], tengu.VALUE_HIDDEN)
        for head in HEADS:
            if head["input"] in ("squares", "squares_summed"):
                layer = nn.Conv2d(c, head["outputs"], 1)
            else:
                layer = nn.Linear(tengu.VALUE_HIDDEN, head["outputs"])
            if head["init"] == "zero":
                nn.init.zeros_(layer.weight)
                nn.init.zeros_(layer.bias)
            # Registered under the checkpoint's layer name (``value_fc2``, ``ownership``, ...).
            self.add_module(head["layer"], layer)
        self.head_dim = net["head_dim"]
        table = dict(tengu.parameter_shapes(net))
        mine = {k: list(v.shape) for k, v in self.state_dict().items()}
        for name, shape in table.items():
            torch_shape = list(reversed(shape)) if self._is_linear_weight(name) else shape
            if mine.get(name) != torch_shape:
                raise tengu.CheckpointError(
                    f"the PyTorch network's {name} is {mine.get(name)}, the Rust naming table "
                    f"says {shape}")
        if set(mine) != set(table):
            raise tengu.CheckpointError(
                f"parameters differ from the Rust naming table: {sorted(set(mine) ^ set(table))}")

    def _is_linear_weight(self, name: str) -> bool:
        module = self.get_submodule(name.rsplit(".", 1)[0])
        return isinstance(module, nn.Linear) and name.endswith(".weight")

    def forward(self, planes: torch.Tensor) -> Output:
        """``planes``: ``[B, P, N, N]``."""
        b, _, n, _ = planes.shape
        a = n * n
        x = F.relu(self.stem(planes))
        for block in self.blocks:
            x = block(x)
        q = self.policy_q(x).reshape(b, self.head_dim, a).transpose(1, 2)
        k = self.policy_k(x).reshape(b, self.head_dim, a).transpose(1, 2)
        code = self.policy_code(x).reshape(b, tengu.CODES, a).transpose(1, 2)
        v = F.relu(self.value_conv(x)).mean(dim=(2, 3))
        hidden = F.relu(self.value_fc1(v))
        heads = {}
        for head in HEADS:
            layer = getattr(self, head["layer"])
            y = layer(hidden if head["input"] == "value_hidden" else x)
            if head["input"] == "squares_summed":
                y = y.sum(dim=(2, 3)) / y.shape[-1]
            heads[head["loss_name"]] = torch.tanh(y) if head["activation"] == "tanh" else y
        return Output(q, k, code, heads)

    # -- tengu checkpoints -------------------------------------------------------------

    def tengu_tensors(self) -> Dict[str, np.ndarray]:
        """The weights by the Rust names, in the Rust layouts (float32)."""
        out = {}
        for name, t in self.state_dict().items():
            a = t.detach().to("cpu", torch.float32)
            if self._is_linear_weight(name):
                a = a.t()
            out[name] = a.contiguous().numpy()
        return out

    def load_tengu_tensors(self, tensors: Dict[str, np.ndarray]) -> None:
        """Loads weights in the Rust names and layouts."""
        state = {}
        for name, a in tensors.items():
            t = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
            if self._is_linear_weight(name):
                t = t.t().contiguous()
            state[name] = t
        self.load_state_dict(state, strict=True)

    def save_checkpoint(self, path: str, game: str, step: int,
                        parent: Optional[str] = None) -> None:
        """A checkpoint the Rust evaluators load (safetensors with tengu's metadata)."""
        tengu.write_checkpoint(path, game, self.net, step, self.tengu_tensors(), parent)

    @staticmethod
    def from_checkpoint(path: str, game: Optional[str] = None) -> "TenguNet":
        """The network of a tengu checkpoint; ``CheckpointError`` for another game or encoder
        version."""
        meta, tensors = tengu.read_checkpoint(path, game)
        net = TenguNet(meta["net"])
        net.load_tengu_tensors(tensors)
        return net


def save_adamw_state(net: TenguNet, opt: torch.optim.Optimizer, path: str) -> bool:
    """Writes ``opt``'s AdamW state in the CPU trainer's format (``tengu.write_optimizer_state``),
    so that ``tengu train`` resumes with these moments. The two mean the same: torch's AdamW
    and the CPU trainer's (burn's) take ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``w = w (1 - lr wd) - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)`` with the
    same constants (``__main__``: betas 0.9 / 0.999, eps 1e-5) on the same objective (the
    losses are means over the batch as the CPU kernels' are, checked in the tests), and
    ``t`` counts the steps in both. Linear weights' moments are transposed as the weights
    are. ``False`` (nothing written) for an optimizer other than AdamW, or when the
    parameters have taken different numbers of steps (the CPU format has one count)."""
    if not isinstance(opt, torch.optim.AdamW):
        return False
    params = dict(net.named_parameters())
    steps, moments = set(), []
    for name, shape in tengu.parameter_shapes(net.net):
        p = params[name]
        state = opt.state.get(p, {})
        if state:
            steps.add(int(state["step"]))
            m1, m2 = state["exp_avg"], state["exp_avg_sq"]
        else:
            # No step taken yet: what the CPU trainer starts from.
            steps.add(0)
            m1 = m2 = torch.zeros_like(p)
        pair = []
        for m in (m1, m2):
            m = m.detach().to("cpu", torch.float32)
            if net._is_linear_weight(name):
                m = m.t()
            pair.append(m.contiguous().numpy().reshape(-1))
        moments.append((name, pair[0], pair[1]))
    if len(steps) != 1:
        return False
    tengu.write_optimizer_state(path, steps.pop(), moments)
    return True


def load_adamw_state(net: TenguNet, opt: torch.optim.AdamW, path: str) -> int:
    """Restores an AdamW state file of either trainer (``save_adamw_state``, ``tengu
    train``'s) into ``opt``; returns its step count. A parameter the file lacks (a head
    added after it was written) starts from zero moments at the file's step count, as in
    the CPU trainer. ``CheckpointError`` when a moment's size is not its parameter's."""
    steps, saved = tengu.read_optimizer_state(path)
    saved = {name: (m1, m2) for name, m1, m2 in saved}
    params = dict(net.named_parameters())
    for name, shape in tengu.parameter_shapes(net.net):
        p = params[name]
        state = {"step": torch.tensor(float(steps), dtype=torch.float32)}
        m1, m2 = saved.get(name, (np.zeros(p.numel(), np.float32),) * 2)
        for key, m in (("exp_avg", m1), ("exp_avg_sq", m2)):
            if m.size != p.numel():
                raise tengu.CheckpointError(
                    f"{path}: {name} has {m.size} moments, the network {p.numel()} values")
            t = torch.from_numpy(m.copy()).reshape(shape)
            if net._is_linear_weight(name):
                t = t.t()
            state[key] = t.contiguous().to(p.device, p.dtype)
        opt.state[p] = state
    return steps


def legal_logits(out: Output, move_from: torch.Tensor, move_to: torch.Tensor,
                 move_code: torch.Tensor, move_mask: torch.Tensor) -> torch.Tensor:
    """Logits of the legal moves ``[B, M]``: ``q(from) . k(to) / sqrt(D) + code[from, code]``,
    padding ``PADDING_LOGIT``. ``move_*`` are ``[B, M]`` (a ``ShardReader`` batch)."""
    d = out.q.shape[-1]
    qf = torch.gather(out.q, 1, move_from[..., None].expand(-1, -1, d))
    kt = torch.gather(out.k, 1, move_to[..., None].expand(-1, -1, d))
    pair = (qf * kt).sum(-1) / math.sqrt(d)
    b = out.code.shape[0]
    code = torch.gather(out.code.reshape(b, -1), 1, move_from * tengu.CODES + move_code)
    return (pair + code).masked_fill(~move_mask, PADDING_LOGIT)


class Losses(dict):
    """The losses of a batch (means, scalar tensors) by name: ``policy``, then each head's
    loss name in ``HEADS``'s order (``losses.value`` reads ``losses["value"]``)."""

    def __getattr__(self, name: str) -> torch.Tensor:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def total(self, train: dict) -> torch.Tensor:
        """What a step minimises (the CPU trainer's objective): the policy loss plus each
        head's loss times its weight (``train[weight_key]``, the run's ``[train]`` table, or
        the head's ``default_weight`` where it lacks the key; 1 for a head without one)."""
        total = self["policy"]
        for head in HEADS:
            key = head["weight_key"]
            weight = 1.0 if key is None else float(train.get(key, head["default_weight"]))
            total = total + self[head["loss_name"]] * weight
        return total


def _with_targets(batch: Dict[str, torch.Tensor], key: str,
                  counts: Optional[Dict[str, torch.Tensor]]) -> torch.Tensor:
    """The rows of ``batch`` with a target ``key`` (``has_<target>``) that a mean over such
    rows divides by: this batch's own count, or under DDP ``counts[key]``, the count of all
    ranks' batches over the world size, so that averaging the ranks' gradients gives the
    mean over every rank's rows with a target, as one process with the whole batch would
    (the ranks' own counts differ where only some rows have a target)."""
    if counts is not None and key in counts:
        return counts[key]
    return batch[key].sum().clamp(min=1.0)


def target_counts(batch: Dict[str, torch.Tensor], world: int, all_reduce) -> Dict[str, torch.Tensor]:
    """For :func:`losses` under DDP: each head's rows with a target summed over the ranks
    (``all_reduce`` sums a tensor in place across them) and divided by ``world``."""
    keys = sorted({"has_" + h["target"] for h in HEADS if "has_" + h["target"] in batch})
    if not keys:
        return {}
    local = torch.stack([batch[k].float().sum() for k in keys]).to(torch.float64)
    all_reduce(local)
    # At least one row over all ranks, as one process clamps its own count.
    local = local.clamp(min=1.0) / world
    return {k: local[i].to(torch.float32) for i, k in enumerate(keys)}


def _head_loss(head: dict, out: torch.Tensor, batch: Dict[str, torch.Tensor],
               counts: Optional[Dict[str, torch.Tensor]] = None) -> torch.Tensor:
    """One head's loss by its kind (``desc::LossKind``), a mean over the batch's rows (over
    its rows with a target for the kinds that have ``has_<target>``; see
    :func:`_with_targets` for ``counts``)."""
    kind, target = head["loss"], batch[head["target"]]
    b = out.shape[0]
    if kind == "softmax_cross_entropy":
        return -(F.log_softmax(out, 1) * target).sum(1).mean()
    if kind == "squared_error":
        return ((out - target) ** 2).sum(1).mean()
    if kind == "residual_squared_error":
        # target [B, 2]: the leaf's count on the logit scale, then the teacher's target;
        # rows without a label (has_<target> 0) add nothing.
        has = batch["has_" + head["target"]]
        error = (torch.tanh(target[:, 0] + out[:, 0]) - target[:, 1]) ** 2
        return (error * has).sum() / _with_targets(batch, "has_" + head["target"], counts)
    if kind == "square_class_cross_entropy":
        c = head["classes"]
        groups = head["outputs"] // c
        squares = out.shape[-1] * out.shape[-2]
        logits = out.reshape(b, groups, c, squares)
        has = batch["has_" + head["target"]]
        one_hot = F.one_hot(target.long().clamp(max=c - 1), c).permute(0, 1, 3, 2)
        one_hot = one_hot.float() * has[:, None, None, None]
        with_targets = _with_targets(batch, "has_" + head["target"], counts)
        return -(F.log_softmax(logits, 2) * one_hot).sum() / (with_targets * groups * squares)
    raise ValueError(f"head {head['layer']}: unknown loss kind {kind!r}")


def losses(net: nn.Module, batch: Dict[str, torch.Tensor],
           counts: Optional[Dict[str, torch.Tensor]] = None) -> Losses:
    """The losses of a batch (means) as the CPU kernels' trainer computes them (the policy,
    then the heads of ``HEADS``); ``net`` is a ``TenguNet`` or its
    ``DistributedDataParallel`` wrapper; under DDP ``counts`` (:func:`target_counts`) makes
    the means over rows with a target global."""
    out = net(batch["planes"])
    logits = legal_logits(out, batch["move_from"], batch["move_to"], batch["move_code"],
                          batch["move_mask"]).float()
    result = Losses(policy=-(F.log_softmax(logits, 1) * batch["policy"]).sum(1).mean())
    for head in HEADS:
        name = head["loss_name"]
        result[name] = _head_loss(head, out.heads[name].float(), batch, counts)
    return result


def to_torch(batch: Dict[str, np.ndarray], device: torch.device) -> Dict[str, torch.Tensor]:
    """A ``ShardReader`` batch on ``device``."""
    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device, non_blocking=True)
            for k, v in batch.items()}


def concat(batches) -> Dict[str, np.ndarray]:
    """Several ``ShardReader`` batches as one (moves padded to the longest)."""
    m = max(b["move_from"].shape[1] for b in batches)
    out = {}
    for key in batches[0]:
        parts = []
        for b in batches:
            a = b[key]
            if key in ("move_from", "move_to", "move_code", "policy", "move_mask"):
                a = np.pad(a, ((0, 0), (0, m - a.shape[1])))
            parts.append(a)
        out[key] = np.concatenate(parts)
    return out
