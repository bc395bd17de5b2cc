"""The memory digest, built from hand-made archive records."""

from __future__ import annotations

import json

import pytest

from spadework.archive import DesignResult, EnvRecord, PlayResult
from spadework.designer import MemoryDigest, build_digest
from spadework.validate import CheckResult, Outcome, Verdict


def verdict(name: str, valid: bool = True) -> Verdict:
    outcome = Outcome.PASSED if valid else Outcome.FAILED
    return Verdict((CheckResult("parse", Outcome.PASSED), CheckResult("static", outcome, "")),
                   isolation="none", class_name=name)


def record(name: str, valid: bool = True, iteration: int = 0, play: PlayResult | None = None) -> EnvRecord:
    """A design's final attempt, played when ``play`` is given."""
    design = DesignResult(iteration, f"i{iteration}-{name}", 1, None, None, True, play=play)
    return EnvRecord.new(f"class {name}: pass\n", verdict(name, valid), origin="test", design=design)


def played(name: str, iteration: int, nohint: float, hint: float, regret: float, *, valid: bool = True,
           description: str | None = None) -> EnvRecord:
    play = PlayResult(description or f"The {name} game.", (), (), nohint, hint, regret)
    return record(name, valid, iteration, play)


RECORDS = [
    played("MazeEnv", 1, nohint=0.25, hint=0.75, regret=0.5),
    played("SumEnv", 2, nohint=1.0, hint=1.0, regret=0.0),
    played("CipherEnv", 3, nohint=0.5, hint=0.9, regret=0.4),
    played("OrbitEnv", 4, nohint=0.0, hint=0.0, regret=0.0),
    played("RiverEnv", 5, nohint=0.3, hint=1.0, regret=0.7),
    played("FlatEnv", 6, nohint=0.5, hint=0.5, regret=0.0),
    played("BrokenEnv", 7, nohint=0.5, hint=0.5, regret=0.9, valid=False),
]


def test_empty_digest_says_there_is_no_history():
    digest = build_digest([])
    assert digest == MemoryDigest() and digest.empty
    assert digest.render().startswith("There is no history yet")
    assert build_digest([record("BrokenEnv", valid=False)]).empty


def test_references_are_in_band_and_best_by_regret():
    digest = build_digest(RECORDS)
    assert digest.references == (("RiverEnv", "The RiverEnv game.", 0.7),
                                 ("MazeEnv", "The MazeEnv game.", 0.5))
    assert build_digest(RECORDS, references=3).references[2][0] == "CipherEnv"
    assert build_digest(RECORDS, references=0).references == ()


def test_band_decides_too_easy_and_too_hard():
    digest = build_digest(RECORDS)
    assert digest.too_easy == ("SumEnv",)
    assert digest.too_hard == ("OrbitEnv",)
    wide = build_digest(RECORDS, band=(0.0, 1.0))
    assert "OrbitEnv" not in [name for name, _, _ in wide.references]
    assert wide.too_hard == ("OrbitEnv",)
    narrow = build_digest(RECORDS, band=(0.5, 0.6))
    assert [name for name, _, _ in narrow.references] == ["CipherEnv"]
    assert narrow.too_hard == ("OrbitEnv", "FlatEnv")
    assert narrow.too_easy == ("SumEnv",)
    with pytest.raises(ValueError, match="band"):
        build_digest(RECORDS, band=(0.9, 0.1))


def test_recent_are_the_last_valid_ones_by_iteration():
    shuffled = list(reversed(RECORDS))
    digest = build_digest(shuffled, recent=3)
    assert [name for name, _ in digest.recent] == ["OrbitEnv", "RiverEnv", "FlatEnv"]
    assert digest.recent[0] == ("OrbitEnv", "The OrbitEnv game.")
    assert len(build_digest(RECORDS, recent=10).recent) == 6
    assert build_digest(RECORDS, recent=0).recent == ()


def test_unplayed_records_are_recent_only():
    digest = build_digest([record("NewEnv")])
    assert digest.references == () and digest.too_easy == () and digest.too_hard == ()
    assert digest.recent == (("NewEnv", ""),)


def test_files_not_designed_by_the_loop_are_recent_only_and_oldest():
    added = EnvRecord.new("class FileEnv: pass\n", verdict("FileEnv"), origin="envs/file.py")
    digest = build_digest([played("MazeEnv", 1, nohint=0.25, hint=0.75, regret=0.5), added])
    assert digest.recent == (("FileEnv", ""), ("MazeEnv", "The MazeEnv game."))
    assert [name for name, _, _ in digest.references] == ["MazeEnv"]


def test_descriptions_are_shortened():
    digest = build_digest([played("LongEnv", 1, nohint=0.5, hint=1.0, regret=0.5, description="x" * 500)])
    assert len(digest.recent[0][1]) == 160 and digest.references[0][1] == digest.recent[0][1]


def test_name_lists_are_capped_and_distinct():
    easy = [played("SumEnv", i, nohint=1.0, hint=1.0, regret=0.0) for i in range(3)]
    easy += [played(f"Easy{i}Env", 10 + i, nohint=0.9, hint=1.0, regret=0.1) for i in range(6)]
    digest = build_digest(easy, recent=4)
    assert digest.too_easy == ("Easy2Env", "Easy3Env", "Easy4Env", "Easy5Env")
    assert build_digest(easy[:3]).too_easy == ("SumEnv",)


def test_render_names_every_part():
    text = build_digest(RECORDS).render()
    assert "- RiverEnv (regret 0.70): The RiverEnv game." in text
    assert "Recent environments (do not repeat them): SumEnv, CipherEnv, OrbitEnv, RiverEnv, FlatEnv." in text
    assert "make yours harder): SumEnv." in text
    assert "make yours fairer): OrbitEnv." in text
    assert "BrokenEnv" not in text


def test_digest_round_trips_through_json():
    digest = build_digest(RECORDS)
    assert MemoryDigest.from_json(json.loads(json.dumps(digest.to_json()))) == digest


def random_archive(run_dir, seed: int, count: int = 300):
    """An archive of designs with random plays (some easy, some hard, some invalid, some unplayed,
    repeated names, NaN figures), committed over many iterations."""
    import math
    import random

    from spadework.archive import Archive

    rng = random.Random(seed)
    names = [f"Env{k}" for k in range(40)]
    rates = [0.0, 0.1, 0.15, 0.25, 0.5, 0.85, 0.9, 1.0, math.nan]
    with Archive.open(run_dir) as archive:
        for iteration in range(count // 10):
            batch = []
            for _ in range(10):
                play = None if rng.random() < 0.1 else PlayResult(
                    "Play it.", (), (), rng.choice(rates), rng.choice(rates), rng.choice(rates + [0.3, 0.7]))
                batch.append(record(rng.choice(names), rng.random() < 0.85, iteration, play))
            archive.commit_iteration(iteration, batch, {}, {})
        return list(archive.records()), archive


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_digest_of_the_archive_query_is_the_digest_of_every_record(tmp_path, seed):
    from spadework.archive import Archive

    records, _ = random_archive(tmp_path, seed)
    with Archive.open(tmp_path, create=False) as archive:
        for references, recent, band in [(2, 5, (0.15, 0.85)), (4, 3, (0.0, 1.0)), (1, 8, (0.2, 0.6)),
                                         (0, 0, (0.15, 0.85))]:
            rows = archive.digest_rows(references, recent, band)
            assert len(rows) <= references + 3 * recent
            assert build_digest(rows, references=references, recent=recent, band=band) == \
                build_digest(records, references=references, recent=recent, band=band)
