"""Training throughput of the PyTorch trainer: ``python -m tengu.train.bench --run LOCATION``.

Samples/s of AdamW steps of a network of ``--preset`` on batches of ``--batch`` rows from
the run's shards (read once by ``tengu.ShardReader``, then reused, so the number is the
network's; the reader's own rate is printed beside it), on one process and ``--threads``
intra-op threads. Compare with ``tengu bench nn --presets P --batches B`` (training
samples/s of the Rust trainer's burn backend) on the same machine.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

import tengu
from tengu.train import TenguNet, losses, to_torch


def main(argv=None) -> None:
    a = argparse.ArgumentParser(prog="python -m tengu.train.bench", description=__doc__.split("\n")[0])
    a.add_argument("--run", required=True)
    a.add_argument("--preset", default="cpu")
    a.add_argument("--batch", type=int, default=64)
    a.add_argument("--steps", type=int, default=10)
    a.add_argument("--threads", type=int, default=torch.get_num_threads())
    a.add_argument("--device", default="cpu")
    args = a.parse_args(argv)
    torch.set_num_threads(args.threads)
    game = tengu.run_config(args.run)["game"]
    net_cfg = tengu.net_config(game, args.preset)
    device = torch.device(args.device)
    t0 = time.time()
    reader = tengu.ShardReader(args.run, batch_size=args.batch, split="all",
                               planes=net_cfg["planes"], threads=args.threads)
    batches = [b for b in reader]
    read_s = time.time() - t0
    rows = sum(b["planes"].shape[0] for b in batches)
    full = [to_torch(b, device) for b in batches if b["planes"].shape[0] == args.batch]
    if not full:
        raise SystemExit(f"the run has fewer than {args.batch} rows")
    net = TenguNet(net_cfg).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4, eps=1e-5)
    autocast = (torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda"
                else torch.autocast("cpu", enabled=False))

    class _Ones(dict):
        def __missing__(self, key):
            return 1.0

    _ONES = _Ones()  # every head's loss at weight 1

    def step(b):
        with autocast:
            loss = losses(net, b).total(_ONES)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    step(full[0])  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.time()
    for i in range(args.steps):
        step(full[i % len(full)])
    if device.type == "cuda":
        torch.cuda.synchronize()
    train_s = time.time() - t0
    print(json.dumps({
        "preset": args.preset, "batch": args.batch, "threads": args.threads,
        "device": args.device, "torch": torch.__version__,
        "train_samples_per_second": round(args.steps * args.batch / train_s, 1),
        "reader_rows_per_second": round(rows / read_s, 1),
    }))


if __name__ == "__main__":
    main()
