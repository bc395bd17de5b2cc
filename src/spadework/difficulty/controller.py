"""The sliding-window difficulty rule, as pure functions on an environment's ``Standing``.

Each environment keeps its level and the no-hint scores of its plays at that level since it last
moved. Once the last ``window`` of them are in: at least ``raise_at`` of them won, up a level; at
most ``lower_at``, down one; else it stays, and the window slides. A move starts the count again,
so a level is judged only on plays at that level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spadework.difficulty.settings import DifficultySettings
from spadework.rewards import solve_rate


@dataclass(frozen=True)
class Standing:
    """Where one environment stands: its ``level`` (1 to ``top``), the scores of its plays at that
    level since it last moved (``recent``, the last ``window`` kept), and every level it played at,
    in order (``path``: one entry a move, the first its start).

    >>> s = Standing.start(3, DifficultySettings(start=5))
    >>> s.level, s.top, Standing.from_json(s.to_json()) == s
    (3, 3, True)
    """

    level: int
    top: int
    recent: tuple[float, ...] = ()
    path: tuple[int, ...] = ()
    plays: int = 0
    """No-hint plays scored so far, at every level."""

    @classmethod
    def start(cls, top: int, settings: DifficultySettings) -> Standing:
        """A new environment's standing: the configured start, within what it declares."""
        top = max(1, top)
        level = min(settings.start, top)
        return cls(level, top, (), (level,))

    def to_json(self) -> dict[str, Any]:
        """As committed with the loop state and the archive."""
        return {"level": self.level, "top": self.top, "recent": list(self.recent), "path": list(self.path),
                "plays": self.plays}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Standing:
        """Read back what ``to_json`` wrote."""
        return cls(int(data["level"]), int(data["top"]), tuple(float(s) for s in data["recent"]),
                   tuple(int(v) for v in data["path"]), int(data.get("plays", 0)))


def moved(standing: Standing, scores: Sequence[float], settings: DifficultySettings) -> Standing:
    """The standing after no-hint plays at its level scored ``scores``.

    >>> rule = DifficultySettings(window=4, raise_at=0.75, lower_at=0.25)
    >>> s = moved(Standing(1, 3), [1.0, 1.0, 1.0, 0.0], rule)
    >>> s.level, s.recent, s.path
    (2, (), (2,))
    >>> s = moved(s, [0.0, 0.0], rule)          # half a window: no judgement yet
    >>> s.level, s.recent
    (2, (0.0, 0.0))
    >>> moved(s, [0.0, 1.0], rule).level        # a quarter won: down
    1
    >>> moved(Standing(3, 3), [1.0] * 4, rule).level  # at the top it stays
    3
    >>> moved(Standing(2, 3), [1.0, 0.0, 1.0, 0.0], rule).recent  # in band: the window slides
    (1.0, 0.0, 1.0, 0.0)
    """
    recent = (*standing.recent, *scores)[-settings.window:]
    plays = standing.plays + len(scores)
    level = _rule(standing.level, standing.top, recent, settings)
    if level == standing.level:
        return replace(standing, recent=recent, plays=plays)
    return Standing(level, standing.top, (), (*standing.path, level), plays)


def _rule(level: int, top: int, recent: Sequence[float], settings: DifficultySettings) -> int:
    """The level the sliding-window rule sets after ``recent`` plays at ``level``."""
    if len(recent) < settings.window:
        return level
    rate = solve_rate(recent)
    if rate >= settings.raise_at and level < top:
        return level + 1
    if rate <= settings.lower_at and level > 1:
        return level - 1
    return level

