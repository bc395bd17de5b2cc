"""Drawing an episode again with one drawn value changed: what the admission gate's ``key_from_text``
check needs of the sandbox.

Standard library only (it runs inside the sandbox). While ``drawing`` is active, every
``random.Random`` made (``TextEnv.reset``'s ``self.rng``, or an environment's own
``random.Random(seed)``) and the ``random`` module's own functions (``random.randint`` after
``random.seed``) are a ``random.Random`` subclass that writes down each value drawn: the method,
its arguments, the value, and the environment's line that drew it. Given a plan (the values of an
earlier drawing and one index with a new value) it gives back the earlier values instead, the
changed one at its index, so the episode is drawn again with that one value changed and everything
else as it was. Only plain data leaves: the verdict is reached outside, from the openings and plays.

What can be changed, and what a value is: ``randint``/``randrange`` (the number), ``random``,
``uniform``, ``triangular``, ``gauss``, ``normalvariate`` (the float), ``choice`` (the index
chosen), ``shuffle`` (the order, as indices), ``sample`` and ``choices`` (the indices chosen),
``getrandbits`` (the number). Other methods draw as usual and are not written down.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ENV_FILENAME = "<environment>"
MAX_DRAWS = 2000
"""Draws written down per reset; an episode drawing more is re-drawn on its first ones only."""


class Drawing:
    """The draws of one reset, and the plan they follow (None: draw as usual)."""

    def __init__(self, plan: dict[str, Any] | None):
        self.draws: list[dict[str, Any]] = []
        self.replay: list[list[Any]] = list(plan["replay"]) if plan else []
        self.index: int = plan["index"] if plan else -1
        self.value: Any = plan["value"] if plan else None
        self.applied = False

    def planned(self, method: str) -> tuple[bool, Any]:
        """Whether the next draw follows the plan, and its value there."""
        n = len(self.draws)
        if n >= len(self.replay) or self.replay[n][0] != method:
            return False, None
        return True, self.value if n == self.index else self.replay[n][1]

    def write(self, method: str, args: list[Any], value: Any) -> None:
        """Write one draw down, with the environment's line that made it."""
        if len(self.draws) >= MAX_DRAWS:
            return
        line, code = 0, ""
        frame: Any = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == ENV_FILENAME:
                line = frame.f_lineno
                break
            frame = frame.f_back
        if line:
            import linecache

            code = linecache.getline(ENV_FILENAME, line).strip()[:160]
        self.draws.append({"method": method, "args": args, "value": value, "line": line, "code": code})


def _fits_index(value: Any, size: int) -> bool:
    return type(value) is int and 0 <= value < size


def _fits_indices(value: Any, size: int, count: int, distinct: bool) -> bool:
    return (type(value) is list and len(value) == count and all(_fits_index(v, size) for v in value)
            and (not distinct or len(set(value)) == count))


def recording_class(drawing: Drawing, base: type = random.Random) -> type:
    """A ``random.Random`` subclass that writes every draw into ``drawing`` and follows its plan.

    >>> drawing = Drawing(None)
    >>> rng = recording_class(drawing)(7)
    >>> rng.randint(1, 6) == random.Random(7).randint(1, 6), [d["method"] for d in drawing.draws]
    (True, ['randint'])
    >>> changed = 6 if drawing.draws[0]["value"] != 6 else 1
    >>> again = Drawing({"replay": [["randint", drawing.draws[0]["value"]]], "index": 0, "value": changed})
    >>> recording_class(again)(7).randint(1, 6) == changed, again.applied
    (True, True)
    >>> outside = Drawing({"replay": [["randint", 1]], "index": 0, "value": 9})  # not a value it can give
    >>> recording_class(outside)(7).randint(1, 6) == random.Random(7).randint(1, 6), outside.applied
    (True, False)
    """

    class Random(base):
        depth = 0

        def _draw(self, method: str, args: list[Any], real: Any, fits: Any) -> Any:
            """The value of one top-level draw: planned when it fits, else the real one."""
            if self.depth:
                return real()
            self.depth += 1
            try:
                drawn = real()  # drawn even when planned: later draws (in step() too) stay the same
                follows, value = drawing.planned(method)
                if not (follows and fits(value)):
                    value = drawn
                elif len(drawing.draws) == drawing.index:
                    drawing.applied = True
                drawing.write(method, args, value)
                return value
            finally:
                self.depth -= 1

        def randrange(self, start, stop=None, step=1):
            low, high = (0, start) if stop is None else (start, stop)
            if type(low) is not int or type(high) is not int or type(step) is not int or step <= 0:
                return super().randrange(start, stop, step)

            def fits(v):
                return type(v) is int and low <= v < high and (v - low) % step == 0
            return self._draw("randrange", [low, high - 1, step], lambda: super(Random, self).randrange(
                start, stop, step), fits)

        def randint(self, a, b):
            if type(a) is not int or type(b) is not int:
                return super().randint(a, b)
            return self._draw("randint", [a, b, 1], lambda: super(Random, self).randint(a, b),
                              lambda v: type(v) is int and a <= v <= b)

        def random(self):
            return self._draw("random", [0.0, 1.0], super().random,
                              lambda v: type(v) is float and 0.0 <= v < 1.0)

        def uniform(self, a, b):
            low, high = min(a, b), max(a, b)
            return self._draw("uniform", [low, high], lambda: super(Random, self).uniform(a, b),
                              lambda v: type(v) is float and low <= v <= high)

        def triangular(self, low=0.0, high=1.0, mode=None):
            a, b = min(low, high), max(low, high)
            return self._draw("triangular", [a, b], lambda: super(Random, self).triangular(low, high, mode),
                              lambda v: type(v) is float and a <= v <= b)

        def gauss(self, mu=0.0, sigma=1.0):
            return self._draw("gauss", [mu, sigma], lambda: super(Random, self).gauss(mu, sigma),
                              lambda v: type(v) is float)

        def normalvariate(self, mu=0.0, sigma=1.0):
            return self._draw("normalvariate", [mu, sigma], lambda: super(Random, self).normalvariate(
                mu, sigma), lambda v: type(v) is float)

        def getrandbits(self, k):
            return self._draw("getrandbits", [k], lambda: super(Random, self).getrandbits(k),
                              lambda v: type(v) is int and 0 <= v < (1 << k))

        def choice(self, seq):
            size = len(seq)
            if not size:
                return super().choice(seq)
            index = self._draw("choice", [size], lambda: super(Random, self).randrange(size),
                               lambda v: _fits_index(v, size))
            return seq[index]

        def shuffle(self, x):
            size = len(x)

            def real():
                order = list(range(size))
                super(Random, self).shuffle(order)
                return order
            order = self._draw("shuffle", [size], real, lambda v: _fits_indices(v, size, size, True))
            x[:] = [x[i] for i in order]

        def sample(self, population, k, *, counts=None):
            if counts is not None or isinstance(population, (set, frozenset)):
                return super().sample(population, k, counts=counts)
            items, size = list(population), len(population)
            chosen = self._draw("sample", [size, k], lambda: super(Random, self).sample(range(size), k),
                                lambda v: _fits_indices(v, size, k, True))
            return [items[i] for i in chosen]

        def choices(self, population, weights=None, *, cum_weights=None, k=1):
            items, size = list(population), len(population)
            chosen = self._draw("choices", [size, k], lambda: super(Random, self).choices(
                range(size), weights, cum_weights=cum_weights, k=k),
                lambda v: _fits_indices(v, size, k, False))
            return [items[i] for i in chosen]

    Random.__name__ = Random.__qualname__ = "Random"
    Random.__module__ = "random"
    return Random


MODULE_FUNCTIONS = ("randrange", "randint", "random", "uniform", "triangular", "gauss", "normalvariate",
                    "getrandbits", "choice", "shuffle", "sample", "choices", "seed")
"""The ``random`` module's functions that a drawing replaces while it is active."""


@contextmanager
def drawing(seed: int, plan: dict[str, Any] | None) -> Iterator[Drawing]:
    """Make every ``random.Random`` and the ``random`` module's functions record (and follow
    ``plan``) until the block ends; the module is put back as it was, whatever happens."""
    log = Drawing(plan)
    recorder = recording_class(log)
    saved = {name: getattr(random, name) for name in (*MODULE_FUNCTIONS, "Random")}
    shared = recorder(seed)
    random.Random = recorder  # type: ignore[misc,assignment]
    for name in MODULE_FUNCTIONS:
        setattr(random, name, getattr(shared, name))
    try:
        yield log
    finally:
        for name, value in saved.items():
            setattr(random, name, value)
