"""How many intra-op threads torch uses on the CPU, chosen by the trainer, not left to torch.

torch's default is one compute thread per CPU of the machine. Its parallel regions end in a
barrier, so every step waits for the slowest thread: when another process (a self-play
worker, another rank, another user) holds a CPU, each of the thousands of small operations
of a step waits for a thread that is not running. ``python -m tengu.train`` trained 15 times
slower so than with ``OMP_NUM_THREADS=1`` (issue #44), and tengu's own CPU kernels use one
thread per process for the same reason; a machine's cores are used by more processes
(``torchrun --nproc-per-node``, self-play workers), not by more threads per step.
``torchrun`` sets ``OMP_NUM_THREADS=1`` itself; every other path gets the same here.

The rule, first match wins: ``--torch-threads N`` (the trainer's own option);
``OMP_NUM_THREADS`` when set (the user's or torchrun's choice, which torch honours too); 1.
"""

from __future__ import annotations

import math
import os
from typing import Optional, Tuple


def usable_cpus() -> int:
    """CPUs this process may run on: its CPU set (``sched_getaffinity``), capped by the CPU
    quota of its cgroup (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``), at least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        cpus = min(cpus, quota)
    return max(1, cpus)


def _cgroup_quota() -> Optional[int]:
    """The cgroup's CPU quota in whole CPUs (rounded up), or ``None`` without one."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            return max(1, math.ceil(int(quota) / int(period)))
        return None
    except (OSError, ValueError):
        pass
    try:
        with open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as f:
            quota = int(f.read())
        with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as f:
            period = int(f.read())
        if quota > 0 and period > 0:
            return max(1, math.ceil(quota / period))
    except (OSError, ValueError):
        pass
    return None


def choose(requested: Optional[int], environ: Optional[dict] = None) -> Tuple[int, str]:
    """The intra-op thread count per rank and where it came from (for the log line), by
    the module's rule. ``requested``: ``--torch-threads``."""
    env = os.environ if environ is None else environ
    if requested is not None:
        if requested < 1:
            raise ValueError(f"--torch-threads {requested}: give at least 1")
        return requested, "--torch-threads"
    omp = env.get("OMP_NUM_THREADS", "").strip()
    if omp:
        try:
            n = int(omp.split(",")[0])
        except ValueError:
            n = 0
        if n >= 1:
            return n, "OMP_NUM_THREADS"
    return 1, "the default: one per rank; --torch-threads N for more"


def describe(threads: int, why: str) -> str:
    """The log line of the choice, with the CPUs the process may use."""
    cpus = usable_cpus()
    line = f"tengu.train: torch uses {threads} CPU thread(s) per rank ({why}; {cpus} usable CPU(s))"
    if threads > cpus:
        line += f": more threads than CPUs, each step waits for threads that are not running"
    return line
