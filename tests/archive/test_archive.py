"""Tests for the archive: hashing, records, the SQLite store and the exports."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import spadework
from spadework.archive import (
    ARCHIVE_FILE,
    Archive,
    EnvRecord,
    PlayResult,
    RecordUpdate,
    content_hash,
    export_jsonl,
    export_parquet,
    normalise_source,
)
from spadework.archive.store import SCHEMA_VERSION
from spadework.errors import ArchiveError
from spadework.validate.verdict import CheckResult, Outcome, Verdict

SOURCE = '''"""A tiny environment."""

class Counter:
    """Counts up to a target."""

    def reset(self, seed):
        # start from zero
        self.n = 0
        return self.n, "count to three"

    def step(self, action):
        self.n += 1
        return self.n, 1.0, self.n >= 3
'''

SAME_SOURCE_REFORMATTED = """
class Counter:
    def reset(self,seed):
        self.n=0   # a different comment
        return (self.n, 'count to three')



    def step(self, action):
        '''A docstring that was not there before.'''
        self.n += 1
        return (self.n, 1.0, self.n >= 3)
"""

CHANGED_SOURCE = SOURCE.replace("self.n >= 3", "self.n >= 4")


def valid_verdict(hint: str = "count to three") -> Verdict:
    return Verdict(
        checks=(
            CheckResult("loads", Outcome.PASSED, seconds=0.25),
            CheckResult("steps", Outcome.PASSED, seconds=0.5),
        ),
        isolation="none",
        tolerances=("added a missing import",),
        class_name="Counter",
        hint=hint,
        seconds=0.75,
        extra={"seeds": [0, 1]},
    )


def invalid_verdict() -> Verdict:
    return Verdict(
        checks=(
            CheckResult("loads", Outcome.PASSED),
            CheckResult("steps", Outcome.FAILED, message="step() returned 2 values, expected 3"),
            CheckResult("determinism", Outcome.SKIPPED),
        ),
        isolation="none",
        class_name="Counter",
    )


# --- hashing ---------------------------------------------------------------------------


def test_hash_ignores_comments_formatting_and_docstrings() -> None:
    assert content_hash(SOURCE) == content_hash(SAME_SOURCE_REFORMATTED)
    assert normalise_source(SOURCE) == normalise_source(SAME_SOURCE_REFORMATTED)


def test_hash_changes_with_behaviour() -> None:
    assert content_hash(SOURCE) != content_hash(CHANGED_SOURCE)


def test_hash_of_unparsable_source_ignores_comments_and_blank_lines() -> None:
    broken = "def f(:\n    return 1\n"
    assert content_hash(broken) == content_hash("# note\n\ndef f(:   \n    return 1\n\n")
    assert content_hash(broken) != content_hash("def f(:\n    return 2\n")


# --- records ---------------------------------------------------------------------------


def test_new_record_fills_hash_and_time() -> None:
    record = EnvRecord.new(SOURCE, valid_verdict(), "envs/counter.py", {"regret": 0.5})
    assert record.id is None
    assert record.content_hash == content_hash(SOURCE)
    assert len(record.created_at) == len("2026-11-29T15:40:00Z")
    assert record.created_at.endswith("Z")
    assert record.valid and record.reason == "valid"
    assert record.hint == "count to three"
    assert record.tolerances == ("added a missing import",)
    assert record.class_name == "Counter"


def test_record_json_round_trip() -> None:
    for verdict in (valid_verdict(), invalid_verdict()):
        record = EnvRecord.new(SOURCE, verdict, "run:iter3:design5", {"regret": 0.25})
        data = json.loads(json.dumps(record.to_json()))
        assert EnvRecord.from_json(data) == record
    data = EnvRecord.new(SOURCE, invalid_verdict(), "x").to_json()
    assert data["valid"] is False
    assert data["reason"] == "steps: step() returned 2 values, expected 3"


def test_record_from_json_names_missing_key() -> None:
    data = EnvRecord.new(SOURCE, valid_verdict(), "x").to_json()
    del data["origin"]
    with pytest.raises(ArchiveError, match="lacks the key 'origin'"):
        EnvRecord.from_json(data)


# --- store -----------------------------------------------------------------------------


def fill(archive: Archive) -> list[EnvRecord]:
    return [
        archive.add(EnvRecord.new(SOURCE, valid_verdict(), "a.py", {"regret": 1.0})),
        archive.add(EnvRecord.new(CHANGED_SOURCE, invalid_verdict(), "b.py")),
        archive.add(EnvRecord.new(SAME_SOURCE_REFORMATTED, valid_verdict(), "c.py")),
    ]


def test_add_get_records_count_by_hash(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        added = fill(archive)
        assert [r.id for r in added] == [1, 2, 3]
        assert archive.get(2) == added[1]
        assert list(archive.records()) == added
        assert [r.id for r in archive.records(valid=True)] == [1, 3]
        assert [r.id for r in archive.records(valid=False)] == [2]
        assert [r.id for r in archive.records(limit=2)] == [1, 2]
        assert list(archive.records(limit=0)) == []
        assert len(archive) == 3
        assert archive.count(valid=True) == 2
        assert archive.count(valid=False) == 1
        assert [r.id for r in archive.by_hash(content_hash(SOURCE))] == [1, 3]
        assert archive.by_hash("0" * 64) == []


def test_records_streams_across_pages(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        for i in range(1203):
            archive.add(EnvRecord.new(f"x = {i}", valid_verdict(), f"n{i}"))
        ids = [r.id for r in archive.records()]
        assert ids == list(range(1, 1204))
        assert len(list(archive.records(limit=501))) == 501


def test_same_source_twice_gives_two_rows(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        first = archive.add(EnvRecord.new(SOURCE, valid_verdict(), "a.py"))
        second = archive.add(EnvRecord.new(SOURCE, valid_verdict(), "a.py"))
        assert first.id != second.id
        assert len(archive.by_hash(first.content_hash)) == 2


def test_get_missing_id_names_it(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive, pytest.raises(ArchiveError) as info:
        archive.get(7)
    assert str(info.value) == f"no environment with id 7 in {tmp_path / ARCHIVE_FILE}"


def test_update_metrics_merges(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        rid = fill(archive)[0].id
        assert rid is not None
        updated = archive.update_metrics(rid, {"solved": True, "regret": 0.5})
        assert updated.metrics == {"regret": 0.5, "solved": True}
        assert archive.get(rid).metrics == {"regret": 0.5, "solved": True}
        with pytest.raises(ArchiveError, match="no environment with id 99"):
            archive.update_metrics(99, {"x": 1})
        with pytest.raises(ArchiveError, match="not JSON-serialisable"):
            archive.update_metrics(rid, {"x": object()})
        assert archive.get(rid).metrics == {"regret": 0.5, "solved": True}


def test_commit_iteration_updates_stored_records_in_the_same_transaction(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        first = fill(archive)[0]
        new = EnvRecord.new("y = 2", valid_verdict(), "run:i1:d0")
        paid = RecordUpdate(designer_reward=0.25, designer_advantage=-0.5)
        archive.commit_iteration(1, [new], {"m": 1.0}, {}, {first.id: paid})
        after = {"regret": 1.0, "designer_reward": 0.25, "designer_advantage": -0.5}
        assert archive.get(first.id).metrics == after
        assert len(archive) == 4 and archive.last_iteration() == (1, {})
        with pytest.raises(ArchiveError, match="no environment with id 99"):  # all of it, or none
            archive.commit_iteration(2, [new], {}, {}, {first.id: RecordUpdate(designer_reward=1.0,
                                                                               designer_advantage=0.0),
                                                        99: paid})
        assert archive.get(first.id).metrics == after
        assert len(archive) == 4 and archive.last_iteration() == (1, {})


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:
        added = fill(archive)
        archive.update_metrics(2, {"regret": 3.0})
    with Archive.open(tmp_path, create=False) as archive:
        again = list(archive.records())
    assert [r.id for r in again] == [1, 2, 3]
    assert again[0] == added[0]
    assert again[1].metrics == {"regret": 3.0}
    assert again[2].source == SAME_SOURCE_REFORMATTED


def test_schema_and_pragmas(tmp_path: Path) -> None:
    Archive.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / ARCHIVE_FILE)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = [row[1] for row in conn.execute("PRAGMA table_info(environments)")]
    finally:
        conn.close()
    assert columns == [
        "id",
        "created_at",
        "origin",
        "content_hash",
        "valid",
        "class_name",
        "hint",
        "reason",
        "source",
        "verdict_json",
        "tolerances_json",
        "metrics_json",
    ]


def test_committed_record_survives_sigkill(tmp_path: Path) -> None:
    script = f"""
import os
from pathlib import Path
from spadework.archive import Archive, EnvRecord
from spadework.validate.verdict import CheckResult, Outcome, Verdict
verdict = Verdict(checks=(CheckResult("loads", Outcome.PASSED),), isolation="none")
archive = Archive.open(Path({str(tmp_path)!r}))
for i in range(5):
    archive.add(EnvRecord.new(f"x = {{i}}", verdict, f"killed:{{i}}"))
os.kill(os.getpid(), 9)
"""
    src = str(Path(spadework.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, timeout=60, check=False
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    with Archive.open(tmp_path, create=False) as archive:
        assert archive.count() == 5
        assert [r.origin for r in archive.records()] == [f"killed:{i}" for i in range(5)]


def test_threads_share_one_archive(tmp_path: Path) -> None:
    with Archive.open(tmp_path) as archive:

        def work(k: int) -> None:
            for i in range(20):
                archive.add(EnvRecord.new(f"x = {k * 100 + i}", valid_verdict(), f"t{k}"))
                archive.count()

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(archive) == 80
        assert sorted(r.id for r in archive.records()) == list(range(1, 81))


def test_open_without_create_on_empty_dir(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError) as info:
        Archive.open(tmp_path, create=False)
    assert str(info.value) == f"no archive.sqlite in {tmp_path}; is this a run directory?"
    assert not (tmp_path / ARCHIVE_FILE).exists()


def test_open_creates_missing_run_dir(tmp_path: Path) -> None:
    with Archive.open(tmp_path / "runs" / "one") as archive:
        assert len(archive) == 0
    assert (tmp_path / "runs" / "one" / ARCHIVE_FILE).is_file()


def test_garbage_file_is_an_archive_error(tmp_path: Path) -> None:
    (tmp_path / ARCHIVE_FILE).write_bytes(b"this is not a database, just some bytes\n" * 100)
    with pytest.raises(ArchiveError, match="is not an SQLite database"):
        Archive.open(tmp_path)


def test_run_dir_that_is_a_file(tmp_path: Path) -> None:
    run_file = tmp_path / "run"
    run_file.write_text("x")
    with pytest.raises(ArchiveError, match="is a file, not a run directory"):
        Archive.open(run_file)


def test_newer_schema_asks_for_upgrade(tmp_path: Path) -> None:
    Archive.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / ARCHIVE_FILE)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(ArchiveError, match="upgrade spadework"):
        Archive.open(tmp_path)


def test_closed_archive_says_so(tmp_path: Path) -> None:
    archive = Archive.open(tmp_path)
    archive.close()
    archive.close()
    with pytest.raises(ArchiveError, match="is closed"):
        archive.count()


# --- exports ---------------------------------------------------------------------------


def test_export_jsonl_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "out" / "archive.jsonl"
    out.parent.mkdir()
    with Archive.open(tmp_path / "run") as archive:
        added = fill(archive)
        assert export_jsonl(archive, out) == 3
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert [EnvRecord.from_json(json.loads(line)) for line in lines] == added
    assert os.listdir(out.parent) == ["archive.jsonl"]


def test_export_to_missing_directory_is_an_archive_error(tmp_path: Path) -> None:
    with (
        Archive.open(tmp_path) as archive,
        pytest.raises(ArchiveError, match="exists and is writable"),
    ):
        export_jsonl(archive, tmp_path / "nowhere" / "a.jsonl")


def test_export_parquet_reads_back(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "archive.parquet"
    with Archive.open(tmp_path / "run") as archive:
        added = fill(archive)
        for i in range(2500):
            archive.add(EnvRecord.new(f"y = {i}", invalid_verdict(), "bulk"))
        assert export_parquet(archive, out) == 2503
    table = pq.read_table(out)
    assert table.num_rows == 2503
    assert table.column_names == [
        "id",
        "created_at",
        "origin",
        "content_hash",
        "valid",
        "class_name",
        "hint",
        "reason",
        "tolerances",
        "source",
        "verdict_json",
        "metrics_json",
    ]
    first = table.slice(0, 1).to_pylist()[0]
    assert first["id"] == 1
    assert first["source"] == SOURCE
    assert first["valid"] is True
    assert first["tolerances"] == ["added a missing import"]
    assert json.loads(first["metrics_json"]) == {"regret": 1.0}
    assert Verdict.from_json(json.loads(first["verdict_json"])) == added[0].verdict
    assert table.column("valid").to_pylist().count(True) == 2


def test_commit_iteration_is_all_or_nothing(tmp_path: Path) -> None:
    first = EnvRecord.new(SOURCE, valid_verdict(), "run:iter0:design0")
    with Archive.open(tmp_path) as archive:
        assert archive.last_iteration() is None
        stored = archive.commit_iteration(0, [first, first], {"design/valid_rate": 1.0}, {"draws": 2})
        assert [r.id for r in stored] == [1, 2]
        with pytest.raises(ArchiveError):  # the same iteration twice: nothing of it is stored
            archive.commit_iteration(0, [first], {}, {})
        assert len(archive) == 2
        assert archive.iterations() == [(0, {"design/valid_rate": 1.0})]
        assert archive.last_iteration() == (0, {"draws": 2})


def older_archive(run_dir: Path, version: int, *later_tables: str) -> None:
    """An archive as an older spadework left it: without the tables added since ``version``."""
    Archive.open(run_dir).close()
    conn = sqlite3.connect(run_dir / ARCHIVE_FILE)
    for table in later_tables:
        conn.execute(f"DROP TABLE {table}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def test_version_1_archive_is_upgraded(tmp_path: Path) -> None:
    older_archive(tmp_path, 1, "iterations", "embeddings")
    with Archive.open(tmp_path) as archive:
        archive.commit_iteration(0, [], {}, {"ok": True})
        assert archive.last_iteration() == (0, {"ok": True})


def test_version_2_archive_gains_the_embedding_cache(tmp_path: Path) -> None:
    older_archive(tmp_path, 2, "embeddings")
    with Archive.open(tmp_path) as archive:
        assert archive.cached_vectors("e", ["a"]) == {}
        archive.cache_vectors("e", {"a": b"\x01\x02", "b": b"\x03"})
        archive.cache_vectors("e", {"a": b"\x09"})  # replaced, not duplicated
        archive.cache_vectors("other", {"a": b"\x07"})
    with Archive.open(tmp_path, create=False) as archive:
        assert archive.cached_vectors("e", ["a", "b", "c"]) == {"a": b"\x09", "b": b"\x03"}
        assert archive.cached_vectors("other", ["a", "b"]) == {"a": b"\x07"}
        many = {f"d{i}": bytes([i % 256]) for i in range(1200)}  # more than one page of keys
        archive.cache_vectors("e", many)
        assert archive.cached_vectors("e", list(many)) == many


def played_design(iteration: int, regret: float, name: str = "CountEnv") -> EnvRecord:
    from spadework.archive import DesignResult, PlayResult

    play = PlayResult("Count.", (0.0, 1.0), (1.0, 1.0), 0.5, 1.0, regret)
    verdict = Verdict((CheckResult("parse", Outcome.PASSED),), "none", class_name=name)
    design = DesignResult(iteration, f"i{iteration}-d0", 1, None, "games", True, play=play)
    return EnvRecord.new(f"x = {iteration}", verdict, f"run:i{iteration}", design=design)


def test_every_record_has_a_summary_written_with_it_and_kept_current(tmp_path: Path) -> None:
    from spadework.archive import EnvSummary

    with Archive.open(tmp_path) as archive:
        added = fill(archive)
        first = archive.commit_iteration(0, [played_design(0, 0.5)], {}, {})[0]
        replayed = PlayResult("Count.", (0.0, 0.0, 0.0), (1.0, 1.0, 1.0), 0.0, 1.0, 1.0, seeds=(0, 1, 5),
                              last_played=1, replays=1)
        archive.commit_iteration(1, [played_design(1, 0.25)], {}, {}, {first.id: RecordUpdate(replayed)})
        summaries = archive.summaries()
        assert [s.id for s in summaries] == [r.id for r in archive.records()]
        assert summaries == [EnvSummary.of(r) for r in archive.records()]
        assert archive.summaries(ids=[first.id])[0].regret == 1.0  # the replay's update reached it
        assert archive.summaries(ids=[first.id])[0].last_played == 1
        assert [s.id for s in archive.summaries(newest=2)] == [first.id, first.id + 1]
        assert archive.summary_counts() == {"environments": 5, "valid": 4, "designs": 2, "valid_designs": 2,
                                            "regret_mean": 0.625}
        assert [row[0] for row in archive.listing(valid=True, limit=2, offset=1)] == [added[2].id, first.id]


def test_the_side_rows_go_in_with_the_iteration_or_not_at_all(tmp_path: Path) -> None:
    from spadework.archive import StoredSketch, VectorUpdate

    record = played_design(0, 0.5)
    sketches = ("scheme", [StoredSketch(record.content_hash, b"\x01" * 8, 3)])
    vectors = VectorUpdate("e", ((0, b"\x00" * 8, True),))
    with Archive.open(tmp_path) as archive:
        stored = archive.commit_iteration(0, [record], {}, {}, sketches=sketches, vectors=vectors)
        with pytest.raises(ArchiveError):  # iteration 0 again: nothing of this one is stored
            archive.commit_iteration(0, [played_design(1, 0.5)], {}, {},
                                     sketches=("scheme", [StoredSketch("other", b"\x02" * 8, 1)]),
                                     vectors=VectorUpdate("e", ((0, b"\x01" * 8, False),)))
        rows = archive.sketch_rows("scheme")
        assert [(r.id, r.signature, r.size) for r in rows] == [(stored[0].id, b"\x01" * 8, 3)]
        kept = archive.stored_vectors("e")
        assert kept.ids.tolist() == [stored[0].id] and kept.near.tolist() == [True]
        assert archive.vector_counts("e") == (1, 1, 1) and archive.unvectored("e") == []


def test_version_3_archive_gains_summaries_for_every_record_with_a_note(tmp_path: Path, capsys) -> None:
    with Archive.open(tmp_path) as archive:
        archive.commit_iteration(0, [played_design(0, 0.5), played_design(0, 0.0, "SumEnv")], {}, {})
        fill(archive)
    older_archive(tmp_path, 3, "summaries", "sketches", "vectors")
    capsys.readouterr()
    with Archive.open(tmp_path) as archive:
        assert "summarising 5 archived environments once" in capsys.readouterr().err
        assert [s.id for s in archive.summaries()] == [1, 2, 3, 4, 5]
        assert [s.id for s in archive.digest_rows(2, 5, (0.15, 0.85))] == [1, 2, 3, 5]  # the valid ones
    with Archive.open(tmp_path) as archive:
        assert capsys.readouterr().err == ""  # once


def test_version_4_archive_is_read_and_marked_as_one_that_may_hold_off_checks(tmp_path: Path) -> None:
    """Version 5 added no table: a version-4 archive is read as it is, and marked 5, so that a spadework
    that cannot read an "off" check outcome refuses it with the version message, not a ValueError."""
    with Archive.open(tmp_path) as archive:
        archive.commit_iteration(0, [played_design(0, 0.5)], {}, {})
    older_archive(tmp_path, 4)
    with Archive.open(tmp_path) as archive:
        assert [r.valid for r in archive.records()] == [True]
    conn = sqlite3.connect(tmp_path / ARCHIVE_FILE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
    conn.close()
