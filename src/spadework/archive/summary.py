"""One light row per archived record: what the memory digest, replay and the report read.

The archive writes a record's summary with the record (and again when its metrics change), in
the same transaction, to the ``summaries`` table. Reading summaries never touches a record's
source, verdict or transcripts, so the loop's per-iteration queries and the report's tables cost
the same on an archive of a hundred environments as on one of a hundred thousand.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from spadework.archive.records import EnvRecord

NOT_DESIGNED = -1
"""The ``iteration`` of a record not designed by the loop (e.g. ``spadework validate --run-dir``)."""


@dataclass(frozen=True)
class EnvSummary:
    """The few facts of one archived record that queries need (all from ``EnvRecord`` and its
    ``design``; a fact the record lacks is None).

    Attributes:
        id: the record's archive id.
        valid: whether the validator passed it.
        final: whether it is its design's last attempt (False for records not designed by the loop).
        iteration: the iteration that designed it; ``NOT_DESIGNED`` (-1) for other records.
        design_id: its design's id ("" when none); ``attempt``: its attempt number.
        class_name: the environment's class; ``reason``: the verdict's reason; ``domain``: its
            document's domain.
        played: whether it holds a play (the final attempt of a valid design).
        description: its first no-hint observation ("" when not played).
        regret, solve_nohint, solve_hint: the play's figures (NaN stored as None).
        regret_low, regret_high, confidence: the regret's interval, when kept.
        scores_nohint: the no-hint scores of every paired play.
        last_played: the last iteration that played it (its design's, until replayed).
    """

    id: int
    valid: bool
    final: bool
    iteration: int
    design_id: str
    attempt: int | None
    class_name: str | None
    reason: str
    domain: str | None
    played: bool
    description: str
    regret: float | None
    solve_nohint: float | None
    solve_hint: float | None
    regret_low: float | None
    regret_high: float | None
    confidence: float | None
    scores_nohint: tuple[float, ...]
    last_played: int | None

    @property
    def designed(self) -> bool:
        """Whether the record is a designed attempt (it has an iteration)."""
        return self.iteration != NOT_DESIGNED

    @property
    def name(self) -> str:
        """The class name, or ``#id`` when the record has none."""
        return self.class_name or f"#{self.id}"

    @classmethod
    def of(cls, record: EnvRecord) -> EnvSummary:
        """The summary of a stored record (``record.id`` set).

        >>> from spadework.archive.results import DesignResult, PlayResult
        >>> from spadework.validate.verdict import CheckResult, Outcome, Verdict
        >>> ok = Verdict((CheckResult("load", Outcome.PASSED),), "none", class_name="SumEnv")
        >>> play = PlayResult("Add.", (0.0, 1.0), (1.0, 1.0), 0.5, 1.0, 0.5)
        >>> design = DesignResult(2, "i2-d0", 1, None, None, True, play=play)
        >>> r = EnvRecord.new("x = 1", ok, "run", design=design)
        >>> s = EnvSummary.of(r)
        >>> s.iteration, s.played, s.regret, s.scores_nohint, s.last_played, s.name
        (2, True, 0.5, (0.0, 1.0), 2, 'SumEnv')
        >>> EnvSummary.of(EnvRecord.new("x = 1", ok, "envs/x.py")).iteration
        -1
        """
        design = record.design
        play = design.play if design is not None else None
        last = None if play is None else (play.last_played if play.last_played is not None
                                          else design.iteration if design is not None else None)
        return cls(
            id=record.id or 0, valid=record.valid, final=bool(design and design.final),
            iteration=design.iteration if design is not None else NOT_DESIGNED,
            design_id=design.design_id if design is not None else "",
            attempt=design.attempt if design is not None else None,
            class_name=record.class_name, reason=record.reason,
            domain=design.domain if design is not None else None, played=play is not None,
            description=play.description if play is not None else "",
            regret=_finite(play.regret) if play else None,
            solve_nohint=_finite(play.solve_rate_nohint) if play else None,
            solve_hint=_finite(play.solve_rate_hint) if play else None,
            regret_low=_finite(play.regret_low) if play else None,
            regret_high=_finite(play.regret_high) if play else None,
            confidence=_finite(play.estimate.confidence) if play and play.estimate else None,
            scores_nohint=play.scores_nohint if play is not None else (), last_played=last,
        )

    def to_row(self) -> tuple[Any, ...]:
        """The table row, in ``COLUMNS`` order."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["scores_nohint"] = json.dumps(list(self.scores_nohint))
        return tuple(int(v) if isinstance(v, bool) else v for v in (values[c] for c in COLUMNS))

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> EnvSummary:
        """The summary of a ``summaries`` table row (its columns in ``COLUMNS`` order)."""
        values = dict(zip(COLUMNS, row, strict=True))
        for flag in ("valid", "final", "played"):
            values[flag] = bool(values[flag])
        values["scores_nohint"] = tuple(json.loads(values["scores_nohint"] or "[]"))
        return cls(**values)


def _finite(value: float | None) -> float | None:
    """A stored figure: None for a missing or non-finite one (SQLite keeps no NaN)."""
    return value if value is not None and math.isfinite(value) else None


COLUMNS = ("id", "valid", "final", "iteration", "design_id", "attempt", "class_name", "reason", "domain",
           "played", "description", "regret", "solve_nohint", "solve_hint", "regret_low", "regret_high",
           "confidence", "scores_nohint", "last_played")
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM summaries"

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS summaries (
        id INTEGER PRIMARY KEY, valid INTEGER NOT NULL, final INTEGER NOT NULL,
        iteration INTEGER NOT NULL, design_id TEXT NOT NULL, attempt INTEGER, class_name TEXT,
        reason TEXT NOT NULL, domain TEXT, played INTEGER NOT NULL, description TEXT NOT NULL,
        regret REAL, solve_nohint REAL, solve_hint REAL, regret_low REAL, regret_high REAL,
        confidence REAL, scores_nohint TEXT NOT NULL, last_played INTEGER
    )
    """,
    "CREATE INDEX IF NOT EXISTS summaries_order ON summaries (valid, iteration, id)",
    # the digest's references: walked from the highest regret down, filtered without reading the rows
    "CREATE INDEX IF NOT EXISTS summaries_regret ON summaries (valid, regret, iteration, id, played, "
    "solve_nohint, solve_hint)",
    # covers the replay candidates' query: read from the index alone, never the rows
    "CREATE INDEX IF NOT EXISTS summaries_replay ON summaries (valid, final, played, iteration, id, "
    "design_id, regret, last_played)",
)
_INSERT = f"INSERT OR REPLACE INTO summaries ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def write_summaries(conn: sqlite3.Connection, records: Iterable[EnvRecord]) -> None:
    """(Re)write the summaries of stored records, inside the caller's transaction."""
    conn.executemany(_INSERT, (EnvSummary.of(r).to_row() for r in records))


def select(conn: sqlite3.Connection, where: str = "", params: tuple[Any, ...] = (),
           order: str = "id", limit: int | None = None) -> Iterator[EnvSummary]:
    """Summaries matching an SQL condition over the columns, in ``order``, lazily."""
    sql = f"{_SELECT} {'WHERE ' + where if where else ''} ORDER BY {order}"
    if limit is not None:
        sql, params = sql + " LIMIT ?", (*params, limit)
    for row in conn.execute(sql, params):
        yield EnvSummary.from_row(row)


def newest_distinct(rows: Iterable[EnvSummary], count: int) -> list[EnvSummary]:
    """Rows (newest first) until ``count`` distinct names are seen: the newest row of each name.

    >>> def row(i, name): return EnvSummary(i, True, True, i, "", 1, name, "", None, True, "", 0.0,
    ...     1.0, 1.0, None, None, None, (), i)
    >>> [r.id for r in newest_distinct([row(9, "A"), row(8, "A"), row(7, "B"), row(6, "C")], 2)]
    [9, 7]
    """
    seen: dict[str, EnvSummary] = {}
    for row in rows:
        if len(seen) >= count:
            break
        seen.setdefault(row.name, row)
    return list(seen.values())


NEWEST = "iteration DESC, id DESC"
"""Newest first: by the designing iteration (records not designed by the loop oldest), then id."""


def digest_rows(conn: sqlite3.Connection, references: int, recent: int,
                band: tuple[float, float]) -> list[EnvSummary]:
    """The valid summaries a memory digest can name, and no others: the best-regret fitting ones,
    the newest ones, and the newest of each too-easy and too-hard name (see ``build_digest``)."""
    low, high = band
    fitting = ("valid = 1 AND played = 1 AND regret > 0 AND solve_nohint BETWEEN ? AND ? "
               "AND (solve_hint IS NULL OR solve_hint > ?)")
    picked = list(select(conn, fitting, (low, high, low), f"regret DESC, {NEWEST}", references))
    picked += select(conn, "valid = 1", (), NEWEST, recent)
    if recent > 0:
        picked += newest_distinct(select(conn, "valid = 1 AND played = 1 AND solve_nohint >= ?", (high,),
                                         NEWEST), recent)
        picked += newest_distinct(select(conn, "valid = 1 AND played = 1 AND solve_hint <= ?", (low,),
                                         NEWEST), recent)
    return sorted({row.id: row for row in picked}.values(), key=lambda r: r.id)


class ReplayRow(NamedTuple):
    """What the replay distribution reads of one candidate (a light tuple: there may be 100,000)."""

    id: int
    design_id: str
    iteration: int
    regret: float | None
    last_played: int | None
    scores_nohint: str
    """The no-hint scores as JSON ("" when not asked for), parsed only when they rank the candidates."""


def replay_rows(conn: sqlite3.Connection, before: int, scores: bool = False) -> list[ReplayRow]:
    """The played final valid designs of iterations before ``before``, in id order; their no-hint
    scores only when ``scores`` (without them the query reads an index alone)."""
    last = "scores_nohint" if scores else "''"
    rows = conn.execute(f"SELECT id, design_id, iteration, regret, last_played, {last} FROM summaries "
                        "WHERE valid = 1 AND final = 1 AND played = 1 AND iteration >= 0 AND iteration < ? "
                        "ORDER BY id", (before,))
    return list(map(ReplayRow._make, rows))
