"""Following a run as ``tengu train`` does (``trainer/src/train.rs``), for the PyTorch trainer.

Each step samples the run's sliding window (``tengu.RunWindow``: the newest
``[train] window_rows`` rows, held-out games apart), as the Rust trainer samples it; the
trainer waits, looking for new shards every ``poll_seconds`` (at once on a local run), while
the window has fewer than ``min_rows`` rows or while the rows drawn would pass
``passes_per_row`` times the rows the workers have written. Every ``steps_per_checkpoint``
steps rank 0 measures the held-out losses, writes the loss log segment
(``train/<step>.jsonl``, the Rust trainer's lines), the ingest state and the checkpoint
(under the run's trainer lease) and redraws ``curves.svg``; a stop (SIGTERM, SIGINT or the
step limit) publishes a last checkpoint. Under ``torchrun`` every rank holds the same
window (all ranks look for shards together until their windows agree) and takes its part
of each step's draw; rank 0 decides when to wait and publishes.
"""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Callable, Dict, List, Optional

import torch
import torch.distributed as dist

import tengu
from tengu.train import HEADS, losses, target_counts, to_torch

#: How many times ranks look again when their windows differ after a look (a shard that
#: landed between two ranks' listings).
_AGREE_TRIES = 20


class Follow:
    """What the loop needs besides the network: ``publish(step, parent, rows_seen)``
    writes and publishes checkpoint ``step`` (rank 0 with the lease; returns its name)."""

    def __init__(self, *, run: str, train: dict, net, model, opt, device: torch.device,
                 autocast, rank: int, world: int, batch: int, seed: int, threads: int,
                 max_steps: Optional[int], stop: threading.Event,
                 publish: Optional[Callable[[int, Optional[str], int], str]]) -> None:
        self.run, self.train, self.net, self.model, self.opt = run, train, net, model, opt
        self.device, self.autocast, self.rank, self.world = device, autocast, rank, world
        self.batch, self.seed, self.max_steps, self.stop = batch, seed, max_steps, stop
        self.publish = publish
        self.distributed = world > 1
        self.window = tengu.RunWindow(run, planes=net.net["planes"], threads=threads)
        # tengu train's schedule (TrainConfig::learning_rate_at), not a copy of it.
        self.learning_rate = self.window.learning_rate
        self.log = None

    # -- collectives (no-ops on one process) ------------------------------------------

    def _reduce(self, values: List[float], op) -> List[float]:
        if not self.distributed:
            return values
        t = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(t, op=op)
        return t.tolist()

    def _max(self, values: List[float]) -> List[float]:
        return self._reduce(values, dist.ReduceOp.MAX)

    def _sum(self, values: List[float]) -> List[float]:
        return self._reduce(values, dist.ReduceOp.SUM)

    def _ingest(self) -> None:
        """Every rank looks for new shards; under DDP again until all windows agree."""
        for _ in range(_AGREE_TRIES):
            self.window.ingest()
            n, seen = len(self.window), self.window.rows_seen
            hi = self._max([n, seen, -n, -seen])
            if hi[0] == -hi[2] and hi[1] == -hi[3]:
                return
            time.sleep(0.2)
        if self.rank == 0:
            print("tengu.train: the ranks' windows still differ after "
                  f"{_AGREE_TRIES} looks; training on", flush=True)

    # -- the loop -------------------------------------------------------------------------

    def start(self, step: int, parent: Optional[str], resumed: bool) -> Optional[str]:
        """Restores the window of checkpoint ``step`` (a resumed run: ``resumed``) and opens
        the loss log; a new run (no checkpoint yet; ``parent`` None, or the ``network.init``
        weights it starts from) publishes step 0 first: the workers wait for it. Returns the
        newest checkpoint's name."""
        if resumed:
            restored = self.window.resume(step)
            if self.rank == 0:
                print(f"tengu.train: resuming at step {step}; window "
                      f"{'restored' if restored else 'not saved: listing every shard'} "
                      f"({len(self.window)} rows, {self.window.rows_seen} rows seen)", flush=True)
        if self.publish is not None:
            self.log = tengu.TrainLog(self.run, step)
            if self.log.dropped:
                print(f"tengu.train: dropped {self.log.dropped} loss log segment(s) written "
                      f"after checkpoint {step}", flush=True)
            if not resumed:
                parent = self._checkpoint(step, parent)
        return parent

    def _checkpoint(self, step: int, parent: Optional[str]) -> str:
        """The Rust trainer's order: the loss log segment, the ingest state, then the
        checkpoint (whose manifest commits it)."""
        self.log.next_segment(step)
        self.window.save_state(step)
        return self.publish(step, parent, self.window.rows_seen)

    def loop(self, step: int, parent: Optional[str]) -> int:
        """Trains until the stop or the step limit; returns the last step."""
        t = self.train
        last = parent
        last_step = step
        poll = max(float(t["poll_seconds"]), 0.05)
        local = "://" not in self.run or self.run.startswith("file://")
        wait_poll = 0.2 if local else poll
        global_batch = self.batch * self.world
        cpu = tengu.CpuLedger(self.run, "trainer")
        cpu_seconds = 0.0
        last_poll = None
        was_waiting = False
        rate_start = (time.time(), step)
        while True:
            limit = self.max_steps is not None and step >= self.max_steps
            due = last_poll is None or time.time() - last_poll >= poll
            stop, due = self._max([float(self.stop.is_set() or limit), float(due)])
            if stop:
                break
            if cpu.record():
                cpu_seconds = cpu.total()
            if due:
                self._ingest()
                last_poll = time.time()
            # tengu train's rule (min_rows, passes_per_row), decided by rank 0.
            wait = self.window.wait_before(step, global_batch) is not None
            wait, = self._max([float(wait) if self.rank == 0 else 0.0])
            if wait:
                if self.rank == 0 and not was_waiting:
                    print(f"tengu.train: step {step}: waiting for rows (window "
                          f"{len(self.window)}, min_rows {t['min_rows']}, rows seen "
                          f"{self.window.rows_seen}, passes_per_row {t['passes_per_row']})",
                          flush=True)
                was_waiting = True
                waited = time.time()
                while time.time() - waited < wait_poll and not self.stop.is_set():
                    time.sleep(min(0.05, wait_poll))
                last_poll = None
                continue
            was_waiting = False
            raw = self.window.sample(step, self.batch, self.seed, self.rank, self.world)
            b = to_torch(raw, self.device)
            for g in self.opt.param_groups:
                g["lr"] = self.learning_rate(step)
            # Under DDP the means over rows with a target divide by every rank's count.
            counts = target_counts(b, self.world, dist.all_reduce) if self.distributed else None
            with self.autocast:
                parts = losses(self.model, b, counts)
                loss = parts.total(t)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            n = b["planes"].shape[0]
            targets = float((b["policy"].sum(1) > 0).sum())
            names = list(parts)
            # Rows with each head's target over the ranks: a head none of whose rows had
            # one logs null, as tengu train does.
            with_target = [float(b["has_" + h["target"]].sum()) for h in HEADS]
            totals = self._sum([parts[k].item() * n for k in names] + with_target
                               + [targets, float(n)])
            sums = dict(zip(names, totals))
            heads_with = {h["loss_name"]: totals[len(names) + i] for i, h in enumerate(HEADS)}
            targets_all, rows = totals[-2], max(totals[-1], 1.0)
            step += 1
            elapsed = time.time() - rate_start[0]
            samples_per_second = (step - rate_start[1]) * global_batch / max(elapsed, 1e-9)
            if elapsed > 30.0:
                rate_start = (time.time(), step)
            if self.rank != 0 or self.log is None:
                continue
            checkpoint_due = step % int(t["steps_per_checkpoint"]) == 0
            line = {
                # The objective averages the policy term over the batch; the log gives it
                # per row with a target, as the Rust trainer does (null: none had one).
                "step": step,
                "policy_loss": sums["policy"] / targets_all if targets_all > 0 else None,
                "policy_target_rows": int(targets_all),
                **{f"{k}_loss": sums[k] / rows if heads_with[k] > 0 else None
                   for k in names if k != "policy"},
                "learning_rate": self.learning_rate(step - 1),
                "samples_per_second": samples_per_second,
                "window_rows": len(self.window),
                "rows_seen": self.window.rows_seen,
                "games_seen": self.window.games_seen,
                "unix_time": time.time(),
                "cpu_seconds": cpu_seconds,
            }
            if checkpoint_due:
                held = held_out_losses(self.net, self.window, int(t["holdout_eval_rows"]),
                                       self.device, self.autocast)
                if held is not None:
                    line.update({f"heldout_{k}_loss": held[k] for k in names})
                    line["heldout_rows"] = held["rows"]
            self.log.push(json.dumps(_finite(line)))
            if step % 10 == 0 or checkpoint_due:
                print(f"step {step} loss {loss.item():.4f} policy {parts.policy.item():.4f} "
                      f"value {parts.value.item():.4f} {samples_per_second:.1f} samples/s "
                      f"window {len(self.window)}", flush=True)
            if checkpoint_due:
                last = self._checkpoint(step, last)
                last_step = step
                _curves(self.run)
        cpu.record(True)
        if self.rank == 0 and self.log is not None:
            if step != last_step:
                self._checkpoint(step, last)
                _curves(self.run)
            self.log.flush()
        return step


def held_out_losses(net, window: "tengu.RunWindow", max_rows: int, device: torch.device,
                    autocast) -> Optional[Dict[str, float]]:
    """The Rust trainer's held-out losses (``train::losses_on_rows``): up to ``max_rows``
    of the newest held-out rows, in chunks of 64; policy per row with a target (NaN when
    none had one), each head per row, or per row with its target for a head whose loss is a
    mean over those (NaN when none had one); ``None`` without held-out rows."""
    raw = window.held_out(max_rows)
    if raw is None:
        return None
    return chunked_losses(net, raw, device, autocast)


def chunked_losses(net, raw: Dict[str, "np.ndarray"], device: torch.device,
                   autocast) -> Dict[str, float]:
    """The losses of a batch's rows computed in chunks of 64 and combined as one batch's
    (the Rust trainer's ``losses_on_rows``): policy per row with a target (NaN when none
    had one), each head per row, or per row with its target for a head whose loss is a mean
    over those (NaN when none had one); ``rows``: the rows measured."""
    n = raw["planes"].shape[0]
    sums: Dict[str, float] = {}
    measured: Dict[str, float] = {}
    targets = 0
    with torch.no_grad(), autocast:
        for lo in range(0, n, 64):
            chunk = {k: v[lo:lo + 64] for k, v in raw.items()}
            m = len(chunk["planes"])
            parts = losses(net, to_torch(chunk, device))
            targets += int((chunk["policy"].sum(1) > 0).sum())
            weights = {"policy": m}
            for h in HEADS:
                with_target = int(chunk["has_" + h["target"]].sum())
                weights[h["loss_name"]] = (with_target if h["averages_over_rows_with_target"]
                                           else m)
            for k, v in parts.items():
                sums[k] = sums.get(k, 0.0) + float(v) * weights[k]
                measured[k] = measured.get(k, 0) + weights[k]
    held = {k: v / measured[k] if measured[k] else math.nan for k, v in sums.items()}
    held["policy"] = sums["policy"] / targets if targets else math.nan
    held["rows"] = n
    return held


def _finite(line: dict) -> dict:
    """NaN and infinities as null (JSON has none; serde_json writes them so)."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in line.items()}


def _curves(run: str) -> None:
    try:
        tengu.write_curves(run)
    except tengu.TenguError as e:
        print(f"tengu.train: cannot draw curves.svg: {e}", flush=True)
