"""A run's shards as a PyTorch ``IterableDataset`` (``tengu.ShardReader`` underneath).

>>> from torch.utils.data import DataLoader                      # doctest: +SKIP
>>> from tengu.data import ShardDataset
>>> data = ShardDataset("runs/dai-dai-cpu", batch_size=256, shuffle_seed=0)
>>> for batch in DataLoader(data, batch_size=None, num_workers=4):
...     batch["planes"]                                           # torch.float32 [B, P, N, N]

The dataset yields whole batches (the reader batches in Rust), so the ``DataLoader`` is
made with ``batch_size=None``. Each loader worker reads its own part of the rows
(``torch.utils.data.get_worker_info``) and, under ``torch.distributed``, each rank its own
(``rank`` and ``world_size`` default to the process group's): every row exactly once per
pass across ranks x workers. ``set_epoch(n)`` reshuffles the next pass (as
``DistributedSampler.set_epoch``). Batches are dicts of tensors with the keys and shapes of
``ShardReader``'s.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

import tengu


class ShardDataset(IterableDataset):
    """The rows of a run's shards in batches of ``batch_size``; the keyword arguments are
    ``ShardReader``'s (``planes``, ``split``, ``shuffle_seed``, ``drop_last``, ``threads``).
    """

    def __init__(self, run: str, batch_size: int = 256, *, rank: Optional[int] = None,
                 world_size: Optional[int] = None, planes: Optional[int] = None,
                 split: str = "train", shuffle_seed: Optional[int] = None,
                 drop_last: bool = False, threads: int = 1) -> None:
        super().__init__()
        distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
        self.run = str(run)
        self.rank = rank if rank is not None else (
            torch.distributed.get_rank() if distributed else 0)
        self.world_size = world_size if world_size is not None else (
            torch.distributed.get_world_size() if distributed else 1)
        self.options = dict(batch_size=batch_size, planes=planes, split=split,
                            shuffle_seed=shuffle_seed, drop_last=drop_last, threads=threads)
        self.epoch = 0
        # Opened in the process that iterates (a loader worker), not pickled to it.
        self._reader: Optional[tengu.ShardReader] = None
        self._part = None

    def set_epoch(self, epoch: int) -> None:
        """The pass the next iteration makes (its shuffle)."""
        self.epoch = int(epoch)

    def _open(self) -> "tengu.ShardReader":
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        if self._reader is None or self._part != (worker, workers):
            self._reader = tengu.ShardReader(self.run, rank=self.rank,
                                             world_size=self.world_size, worker=worker,
                                             num_workers=workers, **self.options)
            self._part = (worker, workers)
        return self._reader

    def __iter__(self) -> Iterator[Dict[str, torch.Tensor]]:
        reader = self._open()
        reader.reset(self.epoch)
        while True:
            batch = reader.next_batch()
            if batch is None:
                return
            yield {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in batch.items()}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_reader"], state["_part"] = None, None
        return state
