"""The shard reader against the Rust reader: identical planes and targets (hashes written
by tests/python.rs), every row exactly once across 2 ranks x 2 workers, and the errors."""

import hashlib
import shutil

import numpy as np
import pytest

import tengu


def row_hash(batch, i):
    """The hash tests/python.rs computes from the Rust trainer's example of a row."""
    n = int(batch["move_count"][i])
    moves = np.stack([batch["move_from"][i, :n], batch["move_to"][i, :n],
                      batch["move_code"][i, :n]], axis=1).astype("<i8")
    parts = [batch["planes"][i].astype("<f4").tobytes(), moves.tobytes(),
             batch["policy"][i, :n].astype("<f4").tobytes()]
    # Each head's target the row has, in the table's order (tests/python.rs's too).
    for head in tengu.heads():
        target = head["target"]
        if batch["has_" + target][i]:
            values = batch[target][i]
            parts.append(values.tobytes() if values.dtype == np.uint8
                         else values.astype("<f4").tobytes())
    return hashlib.sha256(b"".join(parts)).hexdigest()


def test_rows_equal_the_rust_readers(run, golden):
    reader = tengu.ShardReader(run, split="all", batch_size=7, threads=2)
    assert len(reader) == len(golden) == reader.total_rows
    assert reader.planes == tengu.Encoder().planes
    seen = {}
    for batch in reader:
        assert batch["planes"].shape[1:] == (reader.planes, 17, 17)
        assert batch["policy"].shape == batch["move_mask"].shape
        assert np.all(batch["policy"][~batch["move_mask"]] == 0)
        for i, row in enumerate(batch["row"].tolist()):
            seen[row] = row_hash(batch, i)
    assert seen == {g["row"]: g["sha256"] for g in golden}


@pytest.mark.parametrize("split", ["all", "train", "held_out"])
def test_every_row_once_across_two_ranks_and_two_workers(run, golden, split):
    rows = []
    for rank in range(2):
        for worker in range(2):
            r = tengu.ShardReader(run, rank=rank, world_size=2, worker=worker, num_workers=2,
                                  batch_size=5, split=split, shuffle_seed=3)
            part = [x for b in r for x in b["row"].tolist()]
            assert len(part) == len(r)
            first, end = r.row_range
            assert all(first <= x < end for x in part)
            rows += part
    want = [g["row"] for g in golden
            if split == "all" or g["held_out"] == (split == "held_out")]
    assert sorted(rows) == sorted(want)
    assert len(rows) == len(set(rows))


def test_shuffling_is_deterministic_and_changes_by_epoch(run):
    a = tengu.ShardReader(run, split="all", batch_size=1000, shuffle_seed=5)
    b = tengu.ShardReader(run, split="all", batch_size=1000, shuffle_seed=5)
    first = next(iter(a))["row"].tolist()
    assert first == next(iter(b))["row"].tolist()
    second = next(iter(a))["row"].tolist()
    assert sorted(first) == sorted(second) and first != second


def test_a_shard_of_another_version_is_refused_by_name(fixtures):
    old = fixtures / "old-run"
    name = next((old / "shards").iterdir()).name
    with pytest.raises(tengu.ShardVersionError, match=name) as e:
        tengu.ShardReader(old)
    assert "version 1" in str(e.value)


def test_a_run_without_a_config_is_refused(run, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(run / "shards", bare / "shards")
    with pytest.raises(tengu.RunConfigError, match="config.toml"):
        tengu.ShardReader(bare)
    with pytest.raises(tengu.RunConfigError, match="config.toml"):
        tengu.run_config(bare)
    (bare / "config.toml").write_text("game = \"dai-dai\"\n[train]\nbatch_size = 0\n")
    with pytest.raises(tengu.RunConfigError, match="batch_size"):
        tengu.ShardReader(bare)
    (bare / "config.toml").write_text("[train]\nno_such_key = 1\n")
    with pytest.raises(tengu.RunConfigError, match="no_such_key"):
        tengu.run_config(bare)


def test_bad_arguments_are_value_errors(run):
    with pytest.raises(ValueError, match="rank"):
        tengu.ShardReader(run, rank=2, world_size=2)
    with pytest.raises(ValueError, match="split"):
        tengu.ShardReader(run, split="test")
