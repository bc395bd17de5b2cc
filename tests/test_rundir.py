"""Atomic writes: a crash (an exception in the block) leaves the old content and no temporary."""

from __future__ import annotations

import json

import pytest

from spadework.rundir import METRICS_FILE, append_metrics, atomic_path, rewrite_metrics, write_atomically


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "config.toml"
    write_atomically(target, "old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_folder_replaces_the_old_folder_whole(tmp_path):
    target = tmp_path / "checkpoint"
    with atomic_path(target) as temporary:
        temporary.mkdir()
        (temporary / "a").write_text("1")
    with atomic_path(target) as temporary:
        temporary.mkdir()
        (temporary / "b").write_text("2")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.mkdir()
        raise RuntimeError("crash")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint"]


def test_metrics_are_appended_and_rewritten(tmp_path):
    append_metrics(tmp_path, {"iteration": 0, "reward/agent_mean": 0.5})
    append_metrics(tmp_path, {"iteration": 1, "reward/agent_mean": 0.25})
    rows = [json.loads(line) for line in (tmp_path / METRICS_FILE).read_text().splitlines()]
    assert [row["iteration"] for row in rows] == [0, 1]
    rewrite_metrics(tmp_path, rows[:1])  # the committed iterations only
    assert (tmp_path / METRICS_FILE).read_text().count("\n") == 1
