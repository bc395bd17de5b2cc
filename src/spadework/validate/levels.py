"""Every difficulty an environment declares, validated: each level must pass every check, as level 1
did, and be harder than the level below for a player who does not think. The ladder the controller
may climb ends below the first level that fails either (``Verdict.difficulties``).

Harder, as measured here (``Effort``, over the seeds the checks read): a blind guess (one seed's
solution played on the others, ``Verdict.chance``) wins no more often, and there is more to do or
to read: a longer solution (in actions, or in characters: more calls, larger numbers, more values
to send) or a longer opening (more values to combine). A level that only pads its words passes the
second test, never the first alone: it must not be easier to guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from spadework.validate.context import CheckContext
from spadework.validate.verdict import Verdict


@dataclass(frozen=True)
class Effort:
    """What a player who does not think faces at one difficulty, as means over the seeds read.

    Attributes:
        actions: the solution's actions.
        characters: the solution's characters.
        reading: the first observation's characters.
        chance: the share of seeds a blind guess wins (``Verdict.chance``).
    """

    actions: float
    characters: float
    reading: float
    chance: float

    def harder_than(self, lower: Effort) -> bool:
        """Whether this level is harder than ``lower``: no likelier to guess, and more to do or read.

        >>> one = Effort(1.0, 2.0, 80.0, 0.0)
        >>> Effort(1.0, 4.0, 80.0, 0.0).harder_than(one), Effort(1.0, 2.0, 80.0, 0.0).harder_than(one)
        (True, False)
        >>> Effort(3.0, 9.0, 200.0, 0.25).harder_than(one)  # longer, but a blind guess wins more
        False
        """
        more = (self.actions > lower.actions or self.characters > lower.characters
                or self.reading > lower.reading)
        return self.chance <= lower.chance and more

    def describe(self) -> str:
        """The measures in words, for a note on the ladder.

        >>> Effort(2.0, 31.5, 120.0, 0.125).describe()
        'solution 2 actions, 31.5 characters; opening 120 characters; blind guess wins 12%'
        """
        return (f"solution {self.actions:g} actions, {self.characters:g} characters; opening "
                f"{self.reading:g} characters; blind guess wins {self.chance:.0%}")


def effort(ctx: CheckContext) -> Effort:
    """The effort of the level ``ctx`` validated, from the seeds its checks read."""
    episodes = list(ctx.episodes.values())
    count = max(1, len(episodes))
    return Effort(round(sum(len(e.solution) for e in episodes) / count, 3),
                  round(sum(sum(len(a) for a in e.solution) for e in episodes) / count, 3),
                  round(sum(len(e.observation) for e in episodes) / count, 3), ctx.chance or 0.0)


Validation = Callable[[int], tuple[Verdict, CheckContext]]
"""Validates the environment at one difficulty: its verdict, and the context its checks filled."""


def climb(first: Verdict, first_ctx: CheckContext, declared: int, at: Validation) -> Verdict:
    """``first`` (the verdict at difficulty 1) with the levels above it that pass every check and
    are each harder than the one below (``Verdict.difficulties``); ``Verdict.ladder`` says why the
    climb stopped below ``declared``."""
    if not first.valid or declared <= 1:
        return first
    below, level, note, seconds = effort(first_ctx), 1, None, first.seconds
    while level < declared:
        verdict, ctx = at(level + 1)
        seconds += verdict.seconds
        if not verdict.valid:
            note = f"difficulty {level + 1} is invalid: {verdict.reason}"
            break
        above = effort(ctx)
        if not above.harder_than(below):
            note = (f"difficulty {level + 1} is no harder than {level} ({above.describe()}, against "
                    f"{below.describe()}); make each level draw more values, larger numbers or more steps")
            break
        below, level = above, level + 1
    return replace(first, difficulties=level, ladder=note, seconds=seconds)
