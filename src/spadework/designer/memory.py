"""The memory digest: what the designer is told about its past environments.

Without it the designer repeats itself. The digest names a few environments that were
at the right difficulty (high regret), the most recent ones (not to repeat), and those
that were too easy or too hard. It is built from the results the loop archives with each
design (``EnvRecord.design``): its iteration and, when it was played, its regret, solve rates
and description (the first observation, short).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from spadework.archive import EnvRecord, PlayResult

DESCRIPTION_CHARS = 160
"""The most characters of a description the digest keeps."""

NO_HISTORY = ("There is no history yet: this is one of the first environments, so any "
              "well-made design that fits the document is welcome.")


def shorten(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis.

    >>> shorten("Guess  a\\nnumber.", 40)
    'Guess a number.'
    >>> shorten("abcdefghij", 6)
    'abcde…'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class MemoryDigest:
    """A compact summary of past environments for the design prompt.

    Attributes:
        references: ``(class_name, description, regret)`` of high-regret environments of the
            right difficulty, best first.
        recent: ``(class_name, description)`` of the latest valid environments, newest last.
        too_easy: class names of environments solved without the hint.
        too_hard: class names of environments not solved even with the hint.
    """

    references: tuple[tuple[str, str, float], ...] = ()
    recent: tuple[tuple[str, str], ...] = ()
    too_easy: tuple[str, ...] = ()
    too_hard: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.references or self.recent or self.too_easy or self.too_hard)

    def render(self) -> str:
        """The digest as a few short lines of text.

        >>> print(MemoryDigest().render())  # doctest: +ELLIPSIS
        There is no history yet: ...
        >>> print(MemoryDigest(references=(("MazeEnv", "Find the exit.", 0.5),),
        ...                    recent=(("MazeEnv", "Find the exit."), ("SumEnv", "Add.")),
        ...                    too_easy=("SumEnv",)).render())
        Past environments at the right difficulty (learn from them, do not copy them):
        - MazeEnv (regret 0.50): Find the exit.
        Recent environments (do not repeat them): MazeEnv, SumEnv.
        Too easy, solved without the hint (make yours harder): SumEnv.
        """
        if self.empty:
            return NO_HISTORY
        lines = []
        if self.references:
            lines.append("Past environments at the right difficulty (learn from them, do not copy them):")
            lines += [f"- {name} (regret {regret:.2f}): {shorten(text)}"
                      for name, text, regret in self.references]
        if self.recent:
            lines.append(f"Recent environments (do not repeat them): {_names(n for n, _ in self.recent)}.")
        if self.too_easy:
            lines.append(f"Too easy, solved without the hint (make yours harder): {_names(self.too_easy)}.")
        if self.too_hard:
            lines.append("Too hard, not solved even with the hint (make yours fairer): "
                         f"{_names(self.too_hard)}.")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "references": [list(r) for r in self.references],
            "recent": [list(r) for r in self.recent],
            "too_easy": list(self.too_easy),
            "too_hard": list(self.too_hard),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MemoryDigest:
        return cls(
            references=tuple((str(n), str(d), float(r)) for n, d, r in data.get("references", ())),
            recent=tuple((str(n), str(d)) for n, d in data.get("recent", ())),
            too_easy=tuple(data.get("too_easy", ())),
            too_hard=tuple(data.get("too_hard", ())),
        )


def _names(names: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def _finite(value: float, default: float) -> float:
    """``value`` when it is finite, else ``default``.

    >>> _finite(0.0, -1.0), _finite(float("nan"), -1.0)
    (0.0, -1.0)
    """
    return value if math.isfinite(value) else default


def _iteration(record: EnvRecord) -> int:
    """The iteration that designed the record; -1 for records not designed by the loop."""
    design = record.design
    return design.iteration if design is not None else -1


def _play(record: EnvRecord) -> PlayResult | None:
    design = record.design
    return design.play if design is not None else None


def _name(record: EnvRecord) -> str:
    return record.class_name or f"#{record.id}"


def _newest_names(records: list[EnvRecord], count: int) -> tuple[str, ...]:
    """Up to ``count`` distinct names, of the newest records, oldest of them first."""
    names = list(dict.fromkeys(_name(r) for r in reversed(records)))[:count]
    return tuple(reversed(names))


def build_digest(
    records: Iterable[EnvRecord],
    *,
    references: int = 2,
    recent: int = 5,
    band: tuple[float, float] = (0.15, 0.85),
) -> MemoryDigest:
    """The digest of archive records (pure: the caller reads the archive).

    Only valid records count. They are taken oldest first: in the order given, stably
    sorted by their design's iteration (records not designed by the loop come first).

    Args:
        records: archive records; the loop's carry their results as ``record.design``.
        references: how many reference environments to name: those whose no-hint solve
            rate lies within ``band`` (and that are not too hard), highest positive regret first.
        recent: how many of the latest valid environments to name; also the most names
            listed as too easy and as too hard (the newest ones).
        band: ``(low, high)``: too easy means solved without the hint at a rate of at least
            ``high``; too hard means solved with the hint at a rate of at most ``low``.

    Returns:
        The digest; empty when no valid record is given.

    >>> build_digest([]).empty
    True
    """
    low, high = band
    if not 0.0 <= low <= high <= 1.0:
        raise ValueError(f"build_digest band must satisfy 0 <= low <= high <= 1, got {band}")
    valid = sorted((r for r in records if r.valid), key=_iteration)
    played = [(r, play) for r in valid if (play := _play(r)) is not None]
    easy = [r for r, play in played if _finite(play.solve_rate_nohint, -1.0) >= high]
    hard = [r for r, play in played if _finite(play.solve_rate_hint, 2.0) <= low]
    hard_ids = {id(r) for r in hard}
    fitting = [(r, play) for r, play in played if id(r) not in hard_ids and _finite(play.regret, 0.0) > 0.0
               and low <= _finite(play.solve_rate_nohint, -1.0) <= high]
    best = sorted(reversed(fitting), key=lambda p: -_finite(p[1].regret, 0.0))[:references]
    return MemoryDigest(
        references=tuple((_name(r), _description(r), _finite(play.regret, 0.0)) for r, play in best),
        recent=tuple((_name(r), _description(r)) for r in (valid[-recent:] if recent > 0 else [])),
        too_easy=_newest_names(easy, recent),
        too_hard=_newest_names(hard, recent),
    )


def _description(record: EnvRecord) -> str:
    play = _play(record)
    return shorten(play.description if play is not None else "")
