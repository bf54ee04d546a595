"""The torch Dataset over ShardReader: a DataLoader with worker processes yields every row of
the run once a pass, as tensors, and set_epoch reshuffles."""

import torch
from torch.utils.data import DataLoader

import tengu
from tengu.data import ShardDataset


def _rows(loader):
    rows = []
    for batch in loader:
        assert isinstance(batch["planes"], torch.Tensor)
        assert batch["planes"].dtype == torch.float32 and batch["planes"].shape[1:] == (
            tengu.Encoder().planes, 17, 17)
        assert batch["move_mask"].dtype == torch.bool
        rows += batch["row"].tolist()
    return rows


def test_a_dataloader_with_two_workers_reads_every_row_once(run, golden):
    data = ShardDataset(str(run), batch_size=7, split="all", shuffle_seed=1)
    rows = _rows(DataLoader(data, batch_size=None, num_workers=2))
    assert sorted(rows) == sorted(g["row"] for g in golden)
    # Ranks split the rows too (given here; by default the process group's).
    parts = [_rows(DataLoader(ShardDataset(str(run), batch_size=5, split="train", rank=r,
                                           world_size=2), batch_size=None, num_workers=2))
             for r in range(2)]
    assert sorted(parts[0] + parts[1]) == sorted(g["row"] for g in golden if not g["held_out"])
    assert not set(parts[0]) & set(parts[1])


def test_set_epoch_reshuffles(run):
    data = ShardDataset(str(run), batch_size=1000, split="all", shuffle_seed=4)
    first = _rows(DataLoader(data, batch_size=None))
    assert first == _rows(DataLoader(data, batch_size=None))
    data.set_epoch(1)
    second = _rows(DataLoader(data, batch_size=None))
    assert sorted(first) == sorted(second) and first != second
