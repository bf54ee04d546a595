"""`tengu run` with the PyTorch trainer (`[train] engine = "python"`), end to end on CPU: a
tiny run where the Python trainer publishes step 0 before the workers start, follows the
run (window, min_rows, passes_per_row, the loss log in the Rust trainer's format and place),
publishes checkpoints that the Rust worker plays with, refuses a second trainer (the
lease), stops cleanly on the supervisor's SIGTERM and resumes where it stopped.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import tengu

BATCH = 8
# Low, so the throttle binds also when a loaded machine slows the trainer (at 0.25 a CI run
# beside matches trained 88 steps without waiting once).
PASSES_PER_ROW = 0.05
WINDOW_ROWS = 90
EVERY = 4

CONFIG = f"""
game = "dai-dai"
[network]
preset = "tiny"
[search]
visits = 8
[selfplay]
workers = 1
games_in_flight = 4
cheap_visits = 2
max_plies = 24
rows_per_shard = 30
checkpoint_poll_seconds = 0.5
[train]
engine = "python"
batch_size = {BATCH}
warmup_steps = 2
window_rows = {WINDOW_ROWS}
min_rows = 40
passes_per_row = {PASSES_PER_ROW}
steps_per_checkpoint = {EVERY}
poll_seconds = 0.2
holdout_every = 3
holdout_eval_rows = 64
lease_seconds = 2.0
[arena]
enabled = false
"""


@pytest.fixture(scope="module")
def env():
    # No OMP_NUM_THREADS: the trainer chooses torch's threads itself (issue #44).
    e = dict(os.environ)
    e.pop("OMP_NUM_THREADS", None)
    e["TENGU_PYTHON"] = sys.executable
    return e


@pytest.fixture(scope="module")
def exe(tengu_exe):
    return tengu_exe


def _log_lines(run):
    # Through the loss log's record type (a damaged line would raise, naming it).
    return tengu.read_loss_log(str(run))


def _models_played(exe, run):
    out = subprocess.run([exe, "shards", "inspect", str(run), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(l)["model"] for l in out.splitlines() if l.strip()]


def _wait_for(what, ok, seconds, proc, run):
    deadline = time.time() + seconds
    while not ok():
        if proc.poll() is not None:
            pytest.fail(f"tengu run exited ({proc.returncode}) before {what}:\n"
                        + (run / "logs" / "trainer.log").read_text()[-3000:])
        if time.time() > deadline:
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
            pytest.fail(f"no {what} within {seconds} s; trainer log:\n"
                        + (run / "logs" / "trainer.log").read_text()[-3000:])
        time.sleep(0.5)


def test_tengu_run_trains_with_the_pytorch_trainer(tmp_path, exe, env):
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    run = tmp_path / "run"
    t0 = time.time()
    proc = subprocess.Popen([exe, "run", "--config", str(config), "--run", str(run), "--quiet",
                             "--max-minutes", "8"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def newest():
        found = tengu.newest_checkpoint(str(run)) if (run / "models").exists() else None
        return -1 if found is None else found[0]

    def trained_checkpoint_played():
        return (run / "shards").exists() and any(
            m != "model-000000000.safetensors" and m.startswith("model-")
            for m in _models_played(exe, run))

    _wait_for("step-0 checkpoint", lambda: newest() >= 0, 120, proc, run)
    print(f"step 0 published after {time.time() - t0:.1f} s")
    _wait_for(f"checkpoint {2 * EVERY}", lambda: newest() >= 2 * EVERY, 300, proc, run)
    _wait_for("shard played with a Python-trained checkpoint", trained_checkpoint_played,
              300, proc, run)
    print(f"checkpoint {newest()} and a shard played with a trained one after "
          f"{time.time() - t0:.1f} s")

    # A second trainer, PyTorch or Rust, cannot join: the lease is held.
    for second in ([sys.executable, "-m", "tengu.train", "--run-location", str(run)],
                   [exe, "train", "--run", str(run), "--quiet"]):
        t1 = time.time()
        out = subprocess.run(second, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode != 0, f"{second[:3]} joined the run:\n{out.stdout}{out.stderr}"
        assert "lease" in (out.stdout + out.stderr).lower() or "held" in out.stderr, out.stderr
        print(f"second trainer {second[0]} refused in {time.time() - t1:.1f} s: "
              f"{out.stderr.strip().splitlines()[-1]}")

    # Ctrl-C: the supervisor sends SIGTERM; the trainer publishes its last step, exits 0.
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    log = (run / "logs" / "trainer.log").read_text()
    assert "tengu.train: stopped at step" in log, log[-3000:]
    # Without OMP_NUM_THREADS the trainer chose torch's threads itself and said so.
    assert "torch uses 1 CPU thread(s) per rank (the default" in log, log[:3000]
    final = newest()
    lines = _log_lines(run)
    steps = [l["step"] for l in lines]
    assert steps == list(range(1, final + 1)), steps
    want = {"step", "policy_loss", "policy_target_rows", "value_loss", "ownership_loss",
            "material_loss", "residual_loss", "learning_rate", "samples_per_second", "window_rows",
            "rows_seen", "games_seen", "unix_time", "cpu_seconds"}
    for l in lines:
        assert want <= set(l), sorted(want - set(l))
        # passes_per_row: the rows drawn never pass the rows written times the passes.
        assert l["step"] * BATCH <= l["rows_seen"] * PASSES_PER_ROW, l
        # min_rows, and the window: at most one shard (30 rows and the games that end
        # with them) beyond window_rows.
        assert 40 <= l["window_rows"] < WINDOW_ROWS + 130 and l["window_rows"] <= l["rows_seen"], l
    # The window slid over the run, and the trainer waited for rows while it trained (the
    # throttle), not only before its first step.
    assert lines[-1]["rows_seen"] > 3 * WINDOW_ROWS, lines[-1]
    assert log.count("waiting for rows") >= 2, log[-3000:]
    # Held-out losses at the checkpoints (every third game is held out).
    held = [l for l in lines if "heldout_value_loss" in l]
    assert held and all(l["step"] % EVERY == 0 for l in held), held
    assert lines[-1]["cpu_seconds"] > 0 or len(lines) < 20
    for s in range(0, final, EVERY):
        assert (run / "trainer" / f"ingest-{s:09}.json").exists(), s
    assert (run / "curves.svg").exists()
    manifest = tengu.newest_checkpoint(str(run))[2]
    # The last checkpoint (published at the stop) counts the rows seen then, as its ingest
    # state does: the rows of the last logged step, and any ingested while the trainer
    # waited for more before the stop came (a loaded machine makes that likely).
    ingest = json.loads((run / "trainer" / f"ingest-{final:09}.json").read_text())
    assert manifest["rows_seen"] == ingest["rows_seen"] >= lines[-1]["rows_seen"], (
        manifest["rows_seen"], ingest["rows_seen"], lines[-1]["rows_seen"])
    print(f"stopped at step {final} after {time.time() - t0:.1f} s; rows seen "
          f"{lines[-1]['rows_seen']}, window {lines[-1]['window_rows']}")

    # Resumed: the window comes back from the ingest state and the log goes on.
    t2 = time.time()
    again = subprocess.run([exe, "run", "--run", str(run), "--quiet", "--max-steps",
                            str(final + 2), "--max-minutes", "4"], env=env,
                           capture_output=True, text=True, timeout=400)
    assert again.returncode == 0, again.stderr
    assert "window restored" in (run / "logs" / "trainer.log").read_text()
    assert newest() == final + 2
    steps = [l["step"] for l in _log_lines(run)]
    assert steps == list(range(1, final + 3)), steps
    print(f"resumed to step {final + 2} in {time.time() - t2:.1f} s")


def test_a_missing_interpreter_fails_the_start_and_changes_nothing(tmp_path, exe, env):
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    run = tmp_path / "run"
    bad = dict(env, TENGU_PYTHON=str(tmp_path / "no-python"))
    out = subprocess.run([exe, "run", "--config", str(config), "--run", str(run), "--quiet"],
                         env=bad, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "no-python" in out.stderr and "TENGU_PYTHON" in out.stderr, out.stderr
    assert not run.exists()
    # An interpreter without the tengu package: this one with neither site-packages nor
    # PYTHONPATH (-S -I), wherever the package was installed.
    bare_python = tmp_path / "python-without-tengu"
    bare_python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    bare_python.chmod(0o755)
    bare = dict(env, TENGU_PYTHON=str(bare_python))
    out = subprocess.run([exe, "run", "--config", str(config), "--run", str(run), "--quiet"],
                         env=bare, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "cannot import the tengu package" in out.stderr, out.stderr
    assert not run.exists()


def test_a_new_run_from_network_init_publishes_those_weights_as_step_0(tmp_path, exe, env, run):
    # The workers wait for step 0; with `network.init` the PyTorch trainer once waited for
    # rows instead, and the run never started (found on the GPU machine's rehearsal).
    init = tengu.newest_checkpoint(str(run))[1]
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.replace('preset = "tiny"\n', f'preset = "tiny"\ninit = "{init}"\n'))
    fresh = tmp_path / "run"
    proc = subprocess.Popen([exe, "run", "--config", str(config), "--run", str(fresh), "--quiet",
                             "--max-minutes", "4"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    has_step_0 = lambda: (fresh / "models").exists() and tengu.newest_checkpoint(str(fresh))
    _wait_for("step-0 checkpoint", has_step_0, 120, proc, fresh)
    _wait_for("a worker", lambda: (fresh / "logs" / "worker-0.log").exists(), 60, proc, fresh)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    assert proc.returncode == 0
    first = json.loads((fresh / "models" / "model-000000000.json").read_text())
    assert first["parent"] == os.path.basename(init), first
    from tengu.train import TenguNet
    start = TenguNet.from_checkpoint(str(fresh / first["weights"]["key"])).state_dict()
    want = TenguNet.from_checkpoint(init).state_dict()
    assert start.keys() == want.keys()
    for k in want:
        assert (start[k] == want[k]).all(), k
