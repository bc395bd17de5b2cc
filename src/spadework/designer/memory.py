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

from spadework.archive import EnvRecord, EnvSummary

DESCRIPTION_CHARS = 160
"""The most characters of a description the digest keeps."""

DEFAULT_BAND = (0.15, 0.85)
"""Too easy: solved without the hint at least this often (high); too hard: with it at most (low)."""

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
        """Whether the digest names no environment at all."""
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
        """The digest as JSON (``from_json`` reads it back)."""
        return {
            "references": [list(r) for r in self.references],
            "recent": [list(r) for r in self.recent],
            "too_easy": list(self.too_easy),
            "too_hard": list(self.too_hard),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MemoryDigest:
        """The digest written by ``to_json``; missing lists are empty."""
        return cls(
            references=tuple((str(n), str(d), float(r)) for n, d, r in data.get("references", ())),
            recent=tuple((str(n), str(d)) for n, d in data.get("recent", ())),
            too_easy=tuple(data.get("too_easy", ())),
            too_hard=tuple(data.get("too_hard", ())),
        )


def _names(names: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def _newest_names(rows: list[EnvSummary], count: int) -> tuple[str, ...]:
    """Up to ``count`` distinct names, of the newest rows, oldest of them first."""
    names = list(dict.fromkeys(r.name for r in reversed(rows)))[:count]
    return tuple(reversed(names))


def _summary(item: EnvRecord | EnvSummary) -> EnvSummary:
    return item if isinstance(item, EnvSummary) else EnvSummary.of(item)


def build_digest(
    records: Iterable[EnvRecord | EnvSummary],
    *,
    references: int = 2,
    recent: int = 5,
    band: tuple[float, float] = DEFAULT_BAND,
) -> MemoryDigest:
    """The digest of archive records (pure: the caller reads the archive).

    Only valid records count. They are taken oldest first: in the order given, stably
    sorted by their design's iteration (records not designed by the loop come first).
    The loop passes only the few summaries the digest can name (``Archive.digest_rows``
    with the same arguments), which gives the same digest as every record would.

    Args:
        records: archive records (the loop's carry their results as ``record.design``) or
            their summaries (``EnvSummary``).
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
    valid = sorted((r for r in map(_summary, records) if r.valid), key=lambda r: r.iteration)
    played = [r for r in valid if r.played]
    easy = [r for r in played if _known(r.solve_nohint, -1.0) >= high]
    hard = [r for r in played if _known(r.solve_hint, 2.0) <= low]
    hard_ids = {id(r) for r in hard}
    fitting = [r for r in played if id(r) not in hard_ids and _known(r.regret, 0.0) > 0.0
               and low <= _known(r.solve_nohint, -1.0) <= high]
    best = sorted(reversed(fitting), key=lambda r: -_known(r.regret, 0.0))[:references]
    return MemoryDigest(
        references=tuple((r.name, shorten(r.description), _known(r.regret, 0.0)) for r in best),
        recent=tuple((r.name, shorten(r.description)) for r in (valid[-recent:] if recent > 0 else [])),
        too_easy=_newest_names(easy, recent),
        too_hard=_newest_names(hard, recent),
    )


def _known(value: float | None, default: float) -> float:
    """A stored figure, or ``default`` when it is missing or not finite.

    >>> _known(0.0, -1.0), _known(None, -1.0), _known(float("nan"), -1.0)
    (0.0, -1.0, -1.0)
    """
    return value if value is not None and math.isfinite(value) else default
