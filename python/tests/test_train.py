"""The PyTorch trainer: the network against the Rust naming table and evaluator, DDP parity
under torchrun (gloo, CPU), a failing rank, and publishing into the run.

Test order matters for tests/python.rs: the last test publishes a PyTorch-trained
checkpoint into the fixture run, with which a Rust worker then plays.
"""

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import tengu
from tengu.train import (TenguNet, concat, legal_logits, load_adamw_state, losses,
                         save_adamw_state, to_torch)

TORCHRUN = [sys.executable, "-m", "torch.distributed.run"]

#: Every head's loss weight away from 1 and from each other (ownership 0.7, material 0.3,
#: the judge 1.7, then the heads added later), so a head left out of either objective shows.
WEIGHTS = dict(zip([h["weight_key"] for h in tengu.heads() if h["weight_key"]],
                   [0.7, 0.3, 1.7, 1.2, 0.5, 1.4, 0.8, 1.6]))


def _env():
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"
    return env


@pytest.fixture()
def run_copy(run, tmp_path):
    """A copy of the fixture run (its step-0 checkpoint and shards) to train in."""
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    return dst


def test_the_network_matches_the_naming_table_and_the_checkpoint(run, tmp_path):
    step, path, manifest = tengu.newest_checkpoint(str(run))
    assert step == 0 and manifest["step"] == 0
    net = TenguNet.from_checkpoint(path, "dai-dai")
    assert net.net == tengu.run_config(str(run))["net"]
    mine = {n: list(a.shape) for n, a in net.tengu_tensors().items()}
    assert mine == {n: list(s) for n, s in tengu.parameter_shapes(net.net)}
    with pytest.raises(tengu.CheckpointError, match="maka-dai-dai"):
        TenguNet.from_checkpoint(path, "maka-dai-dai")
    other = tengu.net_config("dai-dai", "b1c8")
    with pytest.raises(tengu.CheckpointError, match="missing|shape"):
        tengu.write_checkpoint(str(tmp_path / "x.safetensors"), "dai-dai", other, 1,
                               net.tengu_tensors())


def _pytorch_policy(net, boards):
    enc = tengu.Encoder(planes=net.net["planes"])
    planes = torch.from_numpy(enc.encode_many(boards))
    slots = [enc.legal_slots(b) for b in boards]
    m = max(len(s) for s in slots)
    frm = torch.zeros(len(boards), m, dtype=torch.int64)
    to, code = frm.clone(), frm.clone()
    mask = torch.zeros(len(boards), m, dtype=torch.bool)
    for i, s in enumerate(slots):
        n = len(s)
        frm[i, :n], to[i, :n], code[i, :n] = (torch.from_numpy(s[:, j]) for j in range(3))
        mask[i, :n] = True
    with torch.no_grad():
        out = net(planes)
        policy = torch.softmax(legal_logits(out, frm, to, code, mask), 1)
        wdl = torch.softmax(out.heads["value"], 1)
    return [(policy[i, :len(s)].numpy(), wdl[i].numpy(), float(out.heads["material"][i, 0]))
            for i, s in enumerate(slots)]


def _positions():
    boards = [tengu.Board()]
    b = tengu.Board()
    for i in range(12):
        b.push(b.legal_moves()[(7 * i) % len(b.legal_moves())])
        if i % 4 == 3:
            boards.append(b.copy())
    return boards


def test_a_checkpoint_trained_in_pytorch_gives_the_rust_evaluator_the_same_outputs(run_copy, tmp_path):
    weights = tmp_path / "trained.pt"
    subprocess.run(TORCHRUN[:1] + ["-m", "tengu.train", "--run-location", str(run_copy), "--max-steps", "3", "--epochs", "1",
                                   "--batch-size", "8", "--no-publish", "--save-weights",
                                   str(weights)], check=True, env=_env(), timeout=600)
    meta_net = tengu.run_config(str(run_copy))["net"]
    net = TenguNet(meta_net)
    net.load_state_dict(torch.load(weights))
    start = TenguNet.from_checkpoint(tengu.newest_checkpoint(str(run_copy))[1])
    assert any(not torch.equal(a, b) for a, b in
               zip(net.state_dict().values(), start.state_dict().values())), "no training happened"
    path = tmp_path / "trained.safetensors"
    net.save_checkpoint(str(path), "dai-dai", 3)
    boards = _positions()
    rust = tengu.evaluate(str(path), boards)
    torch_out = _pytorch_policy(net, boards)
    worst = 0.0
    for (rp, rw, rm), (tp, tw, tm) in zip(rust, torch_out):
        assert rp.shape == tp.shape
        worst = max(worst, float(np.abs(rp - tp).max()), float(np.abs(rw - tw).max()),
                    abs(rm - tm))
    print(f"largest policy / WDL / material difference, Rust evaluator vs PyTorch: {worst:.2e}")
    assert worst <= 1e-4


def test_the_heads_are_the_rust_table(run):
    """The PyTorch network builds its heads from the Rust head table: one layer per row,
    under the row's checkpoint name, with the row's output size."""
    from tengu.train import HEADS
    # The first four rows; heads added later follow them.
    assert [h["loss_name"] for h in HEADS][:4] == ["value", "ownership", "material", "residual"]
    net = TenguNet(tengu.run_config(str(run))["net"])
    for h in HEADS:
        layer = getattr(net, h["layer"])
        assert layer.weight.shape[0] == h["outputs"], h
        assert isinstance(layer, torch.nn.Conv2d) == (h["input"] != "value_hidden"), h


def test_a_pytorch_step_and_a_cpu_kernel_step_agree_on_the_same_batch(run):
    """The PyTorch trainer and the CPU kernels' trainer (``tengu train``'s) on one batch of
    the run's window, from the same checkpoint, with loss weights other than 1: the same
    losses and the same gradient of the objective for every weight (so the same step for
    the same optimizer)."""
    _, path, _ = tengu.newest_checkpoint(str(run))
    net = TenguNet.from_checkpoint(path, "dai-dai")
    window = tengu.RunWindow(str(run), planes=net.net["planes"])
    window.ingest()
    raw = window.sample(0, 16, seed=5)
    assert raw is not None and raw["has_ownership"].sum() > 0 and raw["has_teacher"].sum() > 0
    train = WEIGHTS
    rust = window.cpu_gradients(path, raw["row"], **train)
    parts = losses(net, to_torch(raw, torch.device("cpu")))
    net.zero_grad()
    parts.total(train).backward()
    assert set(rust["losses"]) == set(parts)
    for name, value in rust["losses"].items():
        mine = float(parts[name])
        assert abs(mine - value) <= 1e-5 * max(1.0, abs(value)), (name, mine, value)
    grads = dict(net.named_parameters())
    assert set(rust["gradients"]) == set(grads)
    theirs = rust["gradients"]
    # A thousandth of the largest gradient as the floor (a sum that cancels is float noise
    # in either trainer), as model/tests/cpu_train.rs compares the CPU kernels with burn.
    floor = 1e-3 * max(float(np.abs(g).max()) for g in theirs.values())
    worst = (0.0, "")
    for name, g in theirs.items():
        t = grads[name].grad.detach().numpy()
        if net._is_linear_weight(name):
            t = t.T
        assert t.shape == g.shape, name
        d = float(np.abs(t - g).max()) / (floor + float(np.abs(g).max()))
        worst = max(worst, (d, name))
    print(f"PyTorch vs CPU kernels: losses within 1e-5, worst gradient {worst[0]:.2e} ({worst[1]})")
    assert worst[0] < 1e-3, worst


def test_losses_in_chunks_combine_as_the_rust_trainers_on_one_batch(run):
    """The PyTorch follower's held-out losses (chunks of 64, combined as tengu train's
    ``losses_on_rows``) against the CPU kernels' losses of the same rows as one batch: the
    judge's loss is a mean over the rows with a teacher label in both."""
    from contextlib import nullcontext

    from tengu.train.follow import chunked_losses

    _, path, _ = tengu.newest_checkpoint(str(run))
    net = TenguNet.from_checkpoint(path, "dai-dai")
    window = tengu.RunWindow(str(run), planes=net.net["planes"])
    window.ingest()
    # Chunks of 64 and 26 whose shares of labelled rows differ, so that weighing the
    # judge's loss by rows instead of labelled rows would show (self-play is not
    # reproducible, so the sample is looked for).
    def differ(raw):
        return raw["has_teacher"][:64].mean() != raw["has_teacher"][64:].mean()

    raw = next((r for r in (window.sample(0, 90, seed=s) for s in range(9, 40))
                if r is not None and differ(r)), None)
    assert raw is not None and 0 < raw["has_teacher"].sum() < 90
    mine = chunked_losses(net, raw, torch.device("cpu"), nullcontext())
    rust = window.cpu_gradients(path, raw["row"])["losses"]
    rows_with_policy = float((raw["policy"].sum(1) > 0).sum())
    assert mine["rows"] == 90
    for name, value in rust.items():
        want = value * 90 / rows_with_policy if name == "policy" else value
        assert abs(mine[name] - want) <= 1e-4 * (1 + abs(want)), (name, mine[name], want)


def test_the_adamw_state_pytorch_publishes_goes_on_in_the_cpu_trainer_as_in_torch(run, tmp_path):
    """The AdamW state the PyTorch trainer publishes (the CPU trainer's format) is the state
    torch goes on from: after two torch steps the state is written; the third step, taken
    by torch, by the CPU kernels' trainer (``tengu train``'s) from that state and by torch
    again from the state read back, moves the weights alike. From fresh moments (a resume
    without the state) the CPU step moves them otherwise."""
    _, path, _ = tengu.newest_checkpoint(str(run))
    net = TenguNet.from_checkpoint(path, "dai-dai")
    window = tengu.RunWindow(str(run), planes=net.net["planes"])
    window.ingest()
    train = WEIGHTS
    lr, wd = 2e-3, 0.05
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=wd, eps=1e-5)
    batches = [window.sample(0, 16, seed=s) for s in (11, 12, 13)]

    def torch_step(net, opt, raw):
        loss = losses(net, to_torch(raw, torch.device("cpu"))).total(train)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for raw in batches[:2]:
        torch_step(net, opt, raw)
    two = tmp_path / "two.safetensors"
    net.save_checkpoint(str(two), "dai-dai", 2)
    state = tmp_path / "two.bpk"
    assert save_adamw_state(net, opt, str(state))
    steps, saved = tengu.read_optimizer_state(str(state))
    assert steps == 2
    assert [n for n, _, _ in saved] == [n for n, _ in tengu.parameter_shapes(net.net)]
    before = net.tengu_tensors()
    torch_step(net, opt, batches[2])
    after = net.tengu_tensors()

    rows = batches[2]["row"]
    resumed = window.cpu_step(str(two), rows, lr, wd, str(state), **train)
    fresh = window.cpu_step(str(two), rows, lr, wd, None, **train)
    again = TenguNet.from_checkpoint(str(two), "dai-dai")
    again_opt = torch.optim.AdamW(again.parameters(), lr=lr, weight_decay=wd, eps=1e-5)
    assert load_adamw_state(again, again_opt, str(state)) == 2
    torch_step(again, again_opt, batches[2])
    round_trip = again.tengu_tensors()

    def gap(other):
        """How far ``other``'s step is from torch's, in learning rates (a mean over every
        weight)."""
        total = sum(float(np.abs((other[n] - before[n]) - (after[n] - before[n])).sum())
                    for n in before)
        return total / sum(a.size for a in before.values()) / lr

    print(f"third step vs torch's, in learning rates: CPU trainer from the state "
          f"{gap(resumed):.2e}, from fresh moments {gap(fresh):.2e}, torch from the state "
          f"read back {gap(round_trip):.2e}")
    assert gap(round_trip) < 1e-4
    assert gap(resumed) < 1e-3
    assert gap(fresh) > 10 * gap(resumed) and gap(fresh) > 5e-2


def _reference_sgd(run, steps, batch, lr_at):
    """One process, twice the batch: each step the two ranks' batches together."""
    net = TenguNet.from_checkpoint(tengu.newest_checkpoint(str(run))[1])
    opt = torch.optim.SGD(net.parameters(), lr=1.0)
    readers = [tengu.ShardReader(str(run), rank=r, world_size=2, batch_size=batch,
                                 split="train", drop_last=True) for r in range(2)]
    train = tengu.run_config(str(run))["train"]
    for step in range(steps):
        b = to_torch(concat([r.next_batch() for r in readers]), torch.device("cpu"))
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = losses(net, b).total(train)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net


def test_ddp_on_two_ranks_equals_one_process_at_twice_the_batch(run_copy, tmp_path):
    weights = tmp_path / "ddp.pt"
    steps, batch = 3, 4
    t0 = time.time()
    subprocess.run(TORCHRUN + ["--standalone", "--nproc_per_node=2", "-m", "tengu.train",
                               "--run-location", str(run_copy), "--epochs", "1", "--optimizer", "sgd", "--no-shuffle",
                               "--max-steps", str(steps), "--batch-size", str(batch),
                               "--no-publish", "--device", "cpu", "--save-weights", str(weights)],
                   check=True, env=_env(), timeout=600)
    print(f"torchrun 2 ranks, {steps} steps: {time.time() - t0:.1f} s")
    train = tengu.run_config(str(run_copy))["train"]

    def lr_at(step):
        w = train["warmup_steps"]
        return train["learning_rate"] * (step + 1) / w if step < w else train["learning_rate"]

    # A larger learning rate than the warm-up's would make the comparison sharper, but the
    # trainer's schedule is what is under test.
    ref = _reference_sgd(run_copy, steps, batch, lr_at)
    ddp = torch.load(weights)
    start = TenguNet.from_checkpoint(tengu.newest_checkpoint(str(run_copy))[1]).state_dict()
    # Compare the updates (the warm-up's learning rate is small: the weights alone would
    # agree even if the ranks did not average their gradients).
    scale = max(float((ref.state_dict()[k] - start[k]).abs().max()) for k in start)
    assert scale > 0, "the reference did not train"
    for name, value in ref.state_dict().items():
        want, got = value - start[name], ddp[name] - start[name]
        assert torch.allclose(got, want, rtol=1e-3, atol=1e-3 * scale), \
            f"{name}: DDP update differs by {float((got - want).abs().max()):.3e} (scale {scale:.3e})"


def test_a_failing_rank_ends_the_job_non_zero_in_bounded_time(run_copy):
    t0 = time.time()
    proc = subprocess.run(TORCHRUN + ["--standalone", "--nproc_per_node=2", "-m", "tengu.train",
                                      "--run-location", str(run_copy), "--epochs", "1", "--no-publish", "--device", "cpu",
                                      "--batch-size", "2", "--max-steps", "50",
                                      "--fail-at-step", "1", "--timeout", "30"],
                          env=_env(), timeout=180, capture_output=True, text=True)
    elapsed = time.time() - t0
    assert proc.returncode != 0
    assert "fails at step" in proc.stderr + proc.stdout
    assert elapsed < 150, elapsed


def test_the_trainer_sets_torchs_threads_itself_and_says_so(run_copy):
    from tengu.train import threads

    assert threads.choose(None, {}) == (1, "the default: one per rank; --torch-threads N for more")
    assert threads.choose(None, {"OMP_NUM_THREADS": "3"})[0] == 3
    assert threads.choose(2, {"OMP_NUM_THREADS": "3"}) == (2, "--torch-threads")
    assert threads.usable_cpus() >= 1
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    base = [sys.executable, "-m", "tengu.train", "--run-location", str(run_copy), "--epochs",
            "1", "--max-steps", "1", "--batch-size", "4", "--no-publish", "--device", "cpu"]
    out = subprocess.run(base, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "torch uses 1 CPU thread(s) per rank (the default" in out.stdout, out.stdout
    out = subprocess.run(base + ["--torch-threads", "2"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert "torch uses 2 CPU thread(s) per rank (--torch-threads" in out.stdout, out.stdout
    out = subprocess.run(base + ["--torch-threads", "0"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "at least 1" in out.stderr, out.stderr


def _loss_log(run):
    # Through the loss log's record type (a damaged line would raise, naming it).
    return tengu.read_loss_log(str(run))


def test_rank_zero_publishes_a_checkpoint_rust_workers_load(run):
    """Publishes into the fixture run itself (tests/python.rs then plays with it)."""
    before = tengu.newest_checkpoint(str(run))[0]
    t0 = time.time()
    out = subprocess.run(TORCHRUN + ["--standalone", "--nproc_per_node=2", "-m", "tengu.train",
                                     "--run-location", str(run), "--epochs", "1", "--max-steps", "2", "--batch-size", "4",
                                     "--device", "cpu"],
                         check=True, env=_env(), timeout=600, capture_output=True, text=True)
    print(out.stdout[-2000:], f"({time.time() - t0:.1f} s)")
    step, path, manifest = tengu.newest_checkpoint(str(run))
    assert step == before + 2 and manifest["lease"] >= 1
    # --epochs writes the loss log too, so `tengu run`'s status line and the curves show
    # the newest step.
    assert [l["step"] for l in _loss_log(run)][-2:] == [before + 1, before + 2]
    meta = tengu.read_checkpoint_meta(path, "dai-dai")
    assert meta["step"] == step and meta["encoder_version"] == tengu.ENCODER_VERSION
    # With its AdamW state in the CPU trainer's format (tests/python.rs then resumes the
    # run with tengu train).
    assert tengu.read_optimizer_state(tengu.published_optimizer_state(str(run), step))[0] == step
    # The Rust evaluator loads it.
    (policy, wdl, _), = tengu.evaluate(path, [tengu.Board()])
    assert abs(float(policy.sum()) - 1) < 1e-4 and abs(float(wdl.sum()) - 1) < 1e-4
    # A second trainer cannot publish into the run while one holds the lease: the lease
    # was released at the end, so a new one takes generation + 1.
    lease = tengu.Lease(str(run), 1.0)
    assert lease.generation == manifest["lease"] + 1
    with pytest.raises(tengu.StoreError, match="committed already"):
        lease.publish(step, path)
    lease.release()
