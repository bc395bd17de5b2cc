"""The tasks of a declared world's episode (``DeclaredWorld``), drawn on a working copy of its
records, and the difficulty ladder that sets how many there are and how many records they touch.

Standard library only: this module is copied into the sandbox. Every task is drawn on the world as
the tasks before it leave it (``TaskDrawer`` plays each one's changes on its copy), so on the
chained rungs of the ladder a task may name a record an earlier one changed, by the key it has
then, and read a value an earlier one left: a find whose result feeds an update whose result feeds
a check. The goal is still the state the solution leaves (``ToolEnv`` replays it).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

from spadework.envs import tool_records
from spadework.envs.tool_calls import call, parse_calls

KINDS = ("update", "transfer", "link", "copy", "check")
"""The kinds of task: set one field of a record found by its key (its key too, to a value no record
holds); move an amount of a number field from one record to another; add a record to a link
collection that holds two records' ids; set a field of one record to the value another holds;
set a field to one value or another as a number field of the record stands against a mark."""
FIRST_KINDS = KINDS[:3]
"""The kinds a declaration that names none draws from (those before ``copy`` and ``check`` were)."""
CHAINED = ("copy", "check")
"""The kinds that read a value before they write one: the chained rungs add them to the declared."""
DRAWS = 20
"""Tries to draw a step that fits (on the unchained rungs: that touches nothing an earlier touched)."""
FOCUS = 0.6
"""On a chained rung, how often a task starts from a record the task before it touched."""

Declared = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Rung:
    """One difficulty of a declared world: ``steps`` tasks an episode on ``size`` records a
    collection; ``chained``: tasks may touch what earlier ones changed, and read before they write.

    >>> [f"{r.steps}x{r.size}{'+' if r.chained else ''}" for r in LADDER]
    ['1x4', '2x8', '3x12+', '4x25+', '5x50+']
    """

    steps: int
    size: int
    chained: bool


LADDER = (Rung(1, 4, False), Rung(2, 8, False), Rung(3, 12, True), Rung(4, 25, True), Rung(5, 50, True))
"""A declared world's difficulties, easiest first: its ``difficulty`` (from 1) picks the rung."""


@dataclass(frozen=True)
class Step:
    """One drawn task of an episode.

    Attributes:
        kind: one of ``KINDS``.
        task: its words, as the agent reads them.
        calls: the calls that do it, in order: the finds that read, then the calls that change.
        touches: the records it names (collection, id) and a key value it gives, so that on an
            unchained rung no two steps of an episode name the same record or give one key twice.
        reads: how many of ``calls`` are finds (they come first).
    """

    kind: str
    task: str
    calls: tuple[str, ...]
    touches: frozenset[tuple[Any, ...]]
    reads: int = 1

    def actions(self) -> list[str]:
        """The calls as actions in as few turns as a careful player needs: the finds together, then
        the changes together (a list of calls is one action).

        >>> Step("x", "t", ("find(a=1)", "find(a=2)", "update(b=3)"), frozenset(), 2).actions()
        ['[find(a=1), find(a=2)]', 'update(b=3)']
        """
        groups = (self.calls[:self.reads], self.calls[self.reads:])
        return [group[0] if len(group) == 1 else "[" + ", ".join(group) + "]" for group in groups if group]


def more_keys(values: Any, count: int) -> list[Any]:
    """A key's distinct values, made up to ``count`` when fewer were declared: words numbered
    after the declared ones, numbers after the largest (a ladder's 50 records need 50 keys).

    >>> more_keys(["Dune", "Emma"], 5), more_keys([3, 7, 7], 4), more_keys([0.5, 0.75], 3)
    (['Dune', 'Emma', 'Dune 2', 'Emma 2', 'Dune 3'], [3, 7, 8, 9], [0.5, 0.75, 1.75])
    """
    keys = list(dict.fromkeys(values))
    start, n = len(keys), 2
    while len(keys) < count:
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in keys):
            keys.append(max(keys) + 1)
            continue
        for value in keys[:start]:
            made = f"{value} {n}"
            if len(keys) < count and made not in keys:
                keys.append(made)
        n += 1
    return keys


def numeric(values: Any) -> bool:
    """Whether a field's values are whole numbers, some of them at least 1 (something to move)."""
    values = list(values)
    return bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and \
        max(values) >= 1


def changeable(collections: Declared, size: int) -> list[tuple[str, str]]:
    """The (collection, field) pairs an ``update`` task may set: a field besides the key with two or
    more values, or the key itself when it has more values than records (a record renamed to a
    value no record holds).

    >>> changeable({"items": {"name": ["a", "b", "c"]}, "tags": {"tag": ["x", "y"], "colour": ["r", "g"]}}, 2)
    [('items', 'name'), ('tags', 'colour')]
    """
    pairs = []
    for name, fields in collections.items():
        key, *others = fields
        if len(set(fields[key])) > size:
            pairs.append((name, key))
        pairs += [(name, f) for f in others if len(set(fields[f])) >= 2]
    return pairs


def collections_fields(collections: Declared) -> list[Any]:
    """The value lists of every field but the keys, in declaration order."""
    return [values for fields in collections.values() for values in list(fields.values())[1:]]


def _checkable(collections: Declared) -> list[tuple[str, str, str]]:
    """(collection, number field, field to set) triples a ``check`` task may use."""
    return [(name, number, field) for name, fields in collections.items()
            for number in list(fields)[1:] if numeric(fields[number])
            for field in list(fields)[1:] if field != number and len(set(fields[field])) >= 2]


def possible(kind: str, collections: Declared, links: dict, size: int) -> bool:
    """Whether a task of ``kind`` can be drawn from the declaration."""
    if kind == "link":
        return bool(links)
    if kind == "transfer":
        return any(numeric(values) for values in collections_fields(collections))
    if kind == "copy":
        return any(field != next(iter(collections[name])) for name, field in changeable(collections, size))
    if kind == "check":
        return bool(_checkable(collections))
    return bool(changeable(collections, size))


class TaskDrawer:
    """Draws an episode's tasks on a working copy of its records (the records stay as drawn)."""

    def __init__(self, collections: Declared, links: dict, records: dict[str, list], rng: random.Random,
                 chained: bool):
        self.collections, self.links, self.rng, self.chained = collections, links, rng, chained
        self.records, self.world = records, copy.deepcopy(records)
        self.size = min((len(records[name]) for name in collections), default=0)
        self.focus: tuple[str, int] | None = None

    def draw(self, kinds: tuple[str, ...], count: int) -> tuple[Step, ...]:
        """Up to ``count`` tasks of the possible ``kinds`` (more on a chained rung), each drawn on
        the world the ones before it leave."""
        if self.chained:
            kinds = tuple(dict.fromkeys(kinds + CHAINED))
        kinds = tuple(k for k in kinds if possible(k, self.collections, self.links, self.size))
        drawn: list[Step] = []
        for _ in range(count):
            touched = frozenset() if self.chained else frozenset().union(*(s.touches for s in drawn))
            tries = (self._draw(self.rng.choice(kinds)) for _ in range(DRAWS))
            step = next((s for s in tries
                         if s is not None and not touched & s.touches and self._changes(s)), None)
            if step is None:
                continue
            if self.chained:  # unchained, the tasks touch nothing in common: the records as drawn serve
                named = sorted(t for t in step.touches if len(t) == 2)
                self.focus = self.rng.choice(named) if named else None
            drawn.append(step)
        return tuple(drawn)

    def _changes(self, step: Step) -> bool:
        """On a chained rung, play the step's changes on the working copy, as the world's tools will:
        kept when they succeed and leave the world unlike the records as drawn (a task that undoes the
        ones before would leave nothing to do); else the copy stays as it was."""
        if not self.chained:
            return True
        before = copy.deepcopy(self.world)
        try:
            for line in step.calls[step.reads:]:
                [made] = parse_calls(line)
                args = made.arguments
                if made.name == "create":
                    tool_records.create(self.world, args["collection"], args["fields"])
                else:
                    tool_records.update(self.world, args["collection"], args["id"], args["field"],
                                        args["value"])
        except ValueError:  # a declared value the field cannot hold (a whole-number field given 4.5)
            self.world = before
            return False
        if self.world == self.records:
            self.world = before
            return False
        return True

    def _draw(self, kind: str) -> Step | None:
        return {"update": self._update, "transfer": self._transfer, "link": self._link, "copy": self._copy,
                "check": self._check}[kind]()

    def _pick(self, name: str) -> dict:
        """A record of ``name``: on a chained rung often the one the task before touched."""
        items = self.world[name]
        if self.chained and self.focus is not None and self.focus[0] == name and self.rng.random() < FOCUS:
            return next((r for r in items if r["id"] == self.focus[1]), self.rng.choice(items))
        return self.rng.choice(items)

    def _key(self, name: str) -> str:
        return next(iter(self.collections[name]))

    def _find(self, name: str, item: dict) -> str:
        return call("find", collection=name, field=self._key(name), value=item[self._key(name)])

    def _named(self, name: str, item: dict) -> str:
        return f"the {name} record whose {self._key(name)} is {item[self._key(name)]!r}"

    def _values(self, name: str, field: str) -> list[Any]:
        return list(dict.fromkeys(self.collections[name][field]))

    def _update(self) -> Step:
        name, field = self.rng.choice(changeable(self.collections, self.size))
        item = self._pick(name)
        held = {r[field] for r in self.world[name]} if field == self._key(name) else {item[field]}
        value = self.rng.choice([v for v in self._values(name, field) if v not in held])
        change = call("update", collection=name, id=item["id"], field=field, value=value)
        return Step("update", f"Set the {field} of {self._named(name, item)} to {value!r}.",
                    (self._find(name, item), change), frozenset({(name, item["id"]), (name, field, value)}))

    def _transfer(self) -> Step | None:
        name, field = self.rng.choice([(c, f) for c, fields in self.collections.items()
                                       for f in list(fields)[1:] if numeric(fields[f])])
        if self.chained:
            source = self._pick(name)
            target = self.rng.choice([r for r in self.world[name] if r is not source])
        else:
            source, target = self.rng.sample(self.world[name], 2)
        if source[field] < 1:
            source, target = target, source
        if source[field] < 1:
            return None
        whole = self.chained and self.rng.random() < 0.3  # "all of": the amount is what it holds now
        amount = source[field] if whole else self.rng.randint(1, source[field])
        calls = (self._find(name, source), self._find(name, target),
                 call("update", collection=name, id=source["id"], field=field, value=source[field] - amount),
                 call("update", collection=name, id=target["id"], field=field, value=target[field] + amount))
        what = f"all of the {field}" if whole else f"{amount} of the {field}"
        task = f"Move {what} of {self._named(name, source)} to {self._named(name, target)}."
        return Step("transfer", task, calls, frozenset({(name, source["id"]), (name, target["id"])}), 2)

    def _link(self) -> Step:
        name = self.rng.choice(list(self.links))
        (first, one), (second, other) = self.links[name].items()
        a, b = self._pick(one), self._pick(other)
        task = (f"Add a record to {name} that links {self._named(one, a)} and {self._named(other, b)}: its "
                f"{first} is the first one's id and its {second} the second one's.")
        calls = (self._find(one, a), self._find(other, b),
                 call("create", collection=name, fields={first: a["id"], second: b["id"]}))
        return Step("link", task, calls, frozenset({(one, a["id"]), (other, b["id"])}), 2)

    def _copy(self) -> Step | None:
        name, field = self.rng.choice([(c, f) for c, f in changeable(self.collections, self.size)
                                       if f != self._key(c)])
        target = self._pick(name)
        sources = [r for r in self.world[name] if r[field] != target[field]]
        if not sources:
            return None
        source = self.rng.choice(sources)
        task = (f"Set the {field} of {self._named(name, target)} to the {field} of "
                f"{self._named(name, source)}.")
        calls = (self._find(name, source), self._find(name, target),
                 call("update", collection=name, id=target["id"], field=field, value=source[field]))
        return Step("copy", task, calls, frozenset({(name, source["id"]), (name, target["id"])}), 2)

    def _check(self) -> Step:
        name, number, field = self.rng.choice(_checkable(self.collections))
        item = self._pick(name)
        mark = self.rng.choice(sorted(set(self.collections[name][number])))
        target = self.rng.choice([v for v in self._values(name, field) if v != item[field]])
        other = self.rng.choice([v for v in self._values(name, field) if v != target])
        yes, no = (target, other) if item[number] >= mark else (other, target)
        task = (f"If the {number} of {self._named(name, item)} is at least {mark}, set its {field} to "
                f"{yes!r}; otherwise set it to {no!r}.")
        calls = (self._find(name, item),
                 call("update", collection=name, id=item["id"], field=field, value=target))
        return Step("check", task, calls, frozenset({(name, item["id"])}))
