"""The PyTorch trainer of a tengu run: ``torchrun [...] -m tengu.train --run-location LOCATION``.

One process per device under ``torchrun`` (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` from
its environment; one process without it): DistributedDataParallel over gloo on CPUs, NCCL
on GPUs (bf16 autocast there). It reads the run's ``config.toml`` (game, network, the
``[train]`` table), takes the run's trainer lease on rank 0 (exactly one trainer, Rust or
Python, publishes into a run), starts from the run's newest committed checkpoint
(resumable: run it again) or publishes step 0 of a new run, and rank 0 publishes a
checkpoint every ``steps_per_checkpoint`` steps and when it stops (weights, manifest and
hash, through the Rust publish path), which the Rust workers pick up.

By default it follows the run as ``tengu train`` does (``tengu.train.follow``): the sliding
window of the newest ``window_rows`` rows, ``min_rows``, ``passes_per_row`` (it waits for
new rows when ahead, looking every ``poll_seconds``), the loss log ``train/<step>.jsonl``
with held-out losses at each checkpoint, ``curves.svg``, the CPU ledger; it runs until
SIGTERM / SIGINT (then it publishes a last checkpoint and exits 0) or ``--max-steps``.
``tengu run`` starts it so when the run's config says ``[train] engine = "python"``.
``--epochs N`` instead trains N passes over the shards present at its start
(``tengu.ShardReader``, each rank its part), with neither waiting nor loss log.

``--batch-size`` is rows per rank and step (default: ``[train] batch_size`` divided by the
world size, so a step sees the configured batch). Collective operations time out after
``--timeout`` seconds, so a rank that dies makes the others fail instead of hanging, and
torchrun then ends the job with a non-zero status. The AdamW state (step count and
moments) is published with each checkpoint in the CPU trainer's format
(``tengu.train.save_adamw_state``), so that a restart, of this trainer or of ``tengu
train``, anywhere the run is, goes on with the moments; ``--optimizer sgd`` publishes none.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import sys
import tempfile
import threading
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import tengu
from tengu.train import (HEADS, TenguNet, load_adamw_state, losses, save_adamw_state,
                         target_counts, threads, to_torch)


def _at_least_one(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: give at least 1")
    return n


def parse_args(argv=None) -> argparse.Namespace:
    a = argparse.ArgumentParser(prog="python -m tengu.train", description=__doc__.split("\n")[0])
    a.add_argument("--run-location", dest="run", required=True,
                   help="the run location (directory, file://, s3://); not --run, which torchrun's "
                   "own --run-path would take for an abbreviation")
    a.add_argument("--max-steps", type=int, default=None,
                   help="following the run: stop at this step (as tengu train --max-steps); "
                   "with --epochs: after this many steps")
    a.add_argument("--epochs", type=int, default=None,
                   help="train this many passes over the shards present at the start instead "
                   "of following the run")
    a.add_argument("--batch-size", type=int, default=None, help="rows per rank and step")
    a.add_argument("--device", default=None, help="cpu or cuda (default: cuda when there is one)")
    a.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    a.add_argument("--no-shuffle", action="store_true", help="rows in shard order (tests)")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--timeout", type=float, default=120.0,
                   help="seconds before a collective operation that a rank never joins fails")
    a.add_argument("--no-publish", action="store_true", help="train without publishing")
    a.add_argument("--save-weights", default=None,
                   help="also write the final weights (torch state dict) here (tests)")
    a.add_argument("--threads", type=int, default=0, help="decoding threads per rank")
    a.add_argument("--torch-threads", type=_at_least_one, default=None,
                   help="torch's CPU threads per rank (default: OMP_NUM_THREADS when set, "
                   "else 1; tengu/train/threads.py says why)")
    a.add_argument("--fail-at-step", type=int, default=None,
                   help="rank 1 raises at this step (the failing-rank test)")
    return a.parse_args(argv)


def main(argv=None) -> int:
    """Runs the trainer; a tengu error (a bad config, a run another trainer holds, a shard
    of another version) is one ``error: ...`` line on stderr and exit status 1, which
    ``tengu run`` quotes."""
    try:
        return _main(argv)
    except tengu.TenguError as e:
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return 1


def _main(argv=None) -> int:
    args = parse_args(argv)
    torch_threads, why = threads.choose(args.torch_threads)
    torch.set_num_threads(torch_threads)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # The loop ends at the next step; a last checkpoint is published.
        signal.signal(sig, lambda *_: stop.set())
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device_name = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(f"cuda:{local_rank}" if device_name == "cuda" else "cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    distributed = world > 1
    if distributed:
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo",
                                timeout=datetime.timedelta(seconds=args.timeout))
    torch.manual_seed(args.seed)
    if rank == 0:
        print(threads.describe(torch_threads, why), flush=True)

    config = tengu.run_config(args.run)
    train = config["train"]
    game = config["game"]
    lease = tengu.Lease(args.run, train["lease_seconds"]) if rank == 0 and not args.no_publish else None

    newest = tengu.newest_checkpoint(args.run)
    if newest is not None:
        step, path, _ = newest
        net = TenguNet.from_checkpoint(path, game)
        parent = f"model-{step:09}.safetensors"
    elif config["network"].get("init"):
        # network.init: a new run starts from these weights (as tengu train does).
        init = config["network"]["init"]
        step, parent = 0, os.path.basename(init)
        net = TenguNet.from_checkpoint(init, game)
    else:
        step, parent = 0, None
        net = TenguNet(config["net"])
    net.to(device)
    model = DDP(net) if distributed else net
    lr, wd = train["learning_rate"], train["weight_decay"]
    if args.optimizer == "adamw":
        # burn's AdamW defaults (betas 0.9 / 0.999, epsilon 1e-5), as the Rust trainer.
        opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=wd, eps=1e-5)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=lr)
    if newest is not None:
        # Every rank: DDP's ranks step their own optimizers, which must agree.
        resumed = _resume_optimizer(args.run, step, net, opt)
        if rank == 0:
            print(resumed, flush=True)

    batch = args.batch_size or max(1, train["batch_size"] // world)
    autocast = (torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda"
                else torch.autocast("cpu", enabled=False))
    if args.epochs is None:
        from tengu.train.follow import Follow

        publish = None
        if lease:
            def publish(at, parent_name, rows_seen):
                return _publish(args.run, lease, net, opt, game, at, parent_name, rows_seen)
        follow = Follow(run=args.run, train=train, net=net, model=model, opt=opt,
                        device=device, autocast=autocast, rank=rank, world=world, batch=batch,
                        seed=args.seed, threads=args.threads, max_steps=args.max_steps,
                        stop=stop, publish=publish)
        started, start_step = time.time(), step
        parent = follow.start(step, parent, resumed=newest is not None)
        step = follow.loop(step, parent)
        if rank == 0:
            elapsed = time.time() - started
            print(f"tengu.train: stopped at step {step} ({step - start_step} steps in "
                  f"{elapsed:.1f} s, {world} rank(s), {device.type})", flush=True)
    else:
        step = _train_epochs(args, train, net, model, opt, device, autocast, rank, world,
                             batch, step, parent, lease, game)
    if rank == 0 and args.save_weights:
        torch.save(net.state_dict(), args.save_weights)
    if lease:
        lease.release()
    if distributed:
        dist.barrier()
        dist.destroy_process_group()
    return 0


def _train_epochs(args, train, net, model, opt, device, autocast, rank, world, batch, step,
                  parent, lease, game) -> int:
    """``--epochs``: passes over the shards present now, each rank its part."""
    distributed = world > 1
    reader = tengu.ShardReader(args.run, rank=rank, world_size=world, batch_size=batch,
                               planes=net.net["planes"], split="train", drop_last=True,
                               shuffle_seed=None if args.no_shuffle else args.seed,
                               threads=args.threads)
    steps_per_pass = torch.tensor([reader.batches()], dtype=torch.int64, device=device)
    if distributed:
        # Every rank takes as many steps as the smallest part allows (DDP needs all ranks
        # in every step).
        dist.all_reduce(steps_per_pass, op=dist.ReduceOp.MIN)
    steps_per_pass = int(steps_per_pass.item())
    if steps_per_pass == 0:
        raise tengu.ShardError(f"rank {rank}: no full batch of {batch} rows in the run's shards")

    start_step, started = step, time.time()
    rows = 0
    done = False
    # The loss log, as when following the run: `tengu run`'s status line, curves.svg and
    # `tengu serve` read the step and losses from it.
    log = tengu.TrainLog(args.run, step) if lease else None
    # The run's CPU ledger, whose total the loss log's lines carry (the Rust trainer's way).
    cpu = tengu.CpuLedger(args.run, "trainer") if lease else None
    cpu_seconds = 0.0
    for epoch in range(args.epochs):
        reader.reset(epoch)
        for _ in range(steps_per_pass):
            if args.max_steps is not None and step - start_step >= args.max_steps:
                done = True
                break
            if args.fail_at_step is not None and rank == 1 and step - start_step == args.fail_at_step:
                raise RuntimeError(f"rank {rank} fails at step {step} (--fail-at-step)")
            b = to_torch(reader.next_batch(), device)
            for g in opt.param_groups:
                g["lr"] = _learning_rate(train, step)
            # Under DDP the means over rows with a target divide by every rank's count.
            counts = target_counts(b, world, dist.all_reduce) if world > 1 else None
            with autocast:
                parts = losses(model, b, counts)
                loss = parts.total(train)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            rows += b["planes"].shape[0] * world
            if log is not None:
                if cpu.record():
                    cpu_seconds = cpu.total()
                # Every key of the loss log's record (tengu's TrainLog refuses a line without).
                log.push(json.dumps({
                    "step": step,
                    "policy_loss": parts.policy.item(),
                    "policy_target_rows": int((b["policy"].sum(1) > 0).sum().item()),
                    # Each head's loss, null where no row of the batch had its target
                    # (as the Rust trainer logs it).
                    **{f"{h['loss_name']}_loss": (parts[h["loss_name"]].item()
                                                  if b["has_" + h["target"]].sum().item() > 0
                                                  else None)
                       for h in HEADS},
                    "learning_rate": _learning_rate(train, step - 1),
                    "samples_per_second": rows / max(time.time() - started, 1e-9),
                    "window_rows": reader.total_rows,
                    "rows_seen": reader.total_rows,
                    "games_seen": 0,
                    "unix_time": time.time(),
                    "cpu_seconds": cpu_seconds,
                }))
            if rank == 0 and step % 10 == 0:
                print(f"step {step} loss {loss.item():.4f} policy {parts.policy.item():.4f} "
                      f"value {parts.value.item():.4f} "
                      f"{rows / (time.time() - started):.1f} samples/s", flush=True)
            if lease and step % train["steps_per_checkpoint"] == 0:
                log.next_segment(step)
                parent = _publish(args.run, lease, net, opt, game, step, parent, rows)
        if done:
            break
    elapsed = time.time() - started
    if rank == 0:
        print(f"tengu.train: {step - start_step} steps, {rows} samples in {elapsed:.1f} s: "
              f"{rows / max(elapsed, 1e-9):.1f} samples/s ({world} rank(s), {device.type})",
              flush=True)
        if lease and step > start_step and step % train["steps_per_checkpoint"] != 0:
            log.next_segment(step)
            _publish(args.run, lease, net, opt, game, step, parent, rows)
        if log is not None:
            log.flush()
    return step


def _learning_rate(train: dict, step: int) -> float:
    """``TrainConfig::learning_rate_at``: linear warm-up, then constant."""
    if step < train["warmup_steps"]:
        return train["learning_rate"] * (step + 1) / train["warmup_steps"]
    return train["learning_rate"]


def _resume_optimizer(run: str, step: int, net, opt) -> str:
    """Restores the AdamW state published with checkpoint ``step`` (by this trainer or
    ``tengu train``) into ``opt``; says what it did."""
    if not isinstance(opt, torch.optim.AdamW):
        return f"tengu.train: resuming step {step} with {type(opt).__name__} (no state)"
    path = tengu.published_optimizer_state(run, step)
    if path is None:
        return (f"tengu.train: checkpoint {step} was published without optimizer state: "
                "the AdamW moments start from zero")
    steps = load_adamw_state(net, opt, path)
    return f"tengu.train: resuming step {step} with its AdamW state ({steps} steps of moments)"


def _publish(run, lease, net, opt, game, step, parent, rows) -> str:
    """Writes and publishes checkpoint ``step`` with the AdamW state (the CPU trainer's
    format, so that either trainer resumes with it); returns its weights name."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "weights.safetensors")
        net.save_checkpoint(path, game, step, parent)
        state = os.path.join(tmp, "optimizer.bpk")
        if not save_adamw_state(net, opt, state):
            if isinstance(opt, torch.optim.AdamW):
                print(f"tengu.train: checkpoint {step} published without its AdamW state (its "
                      "parameters took different numbers of steps): a resume starts the "
                      "moments from zero", flush=True)
            state = None
        manifest = lease.publish(step, path, optimizer=state, rows_seen=rows, parent=parent)
    print(f"published checkpoint step {step}: {manifest[:80]}...", flush=True)
    return f"model-{step:09}.safetensors"


if __name__ == "__main__":
    sys.exit(main())
