"""Tool worlds declared as data (``DeclaredWorld``): the designer names collections, the values each
field draws from and the kinds of task; the base class draws the records, the task, the solution
and the hint from the episode's seed.

Standard library only: this module is copied into the sandbox. It is the tool form for models
that write data right and logic wrong (the small embedded models wrote the structure of a tool
world every time and a working task and solution almost never): what they declare is checked
with a message that says what to change, and everything that must agree (the task's words, the
solution's calls, the goal) is written here, once.
"""

from __future__ import annotations

import random
from typing import Any

from spadework.envs.declared_tasks import (
    FIRST_KINDS,
    KINDS,
    LADDER,
    Rung,
    TaskDrawer,
    more_keys,
    possible,
)
from spadework.envs.tools import ToolWorld

__all__ = ["KINDS", "LADDER", "DeclaredWorld", "declaration_problem", "draw_records", "tolerated"]

MAX_STEPS = 3
MAX_SIZE = 12
"""What a designer may declare; the difficulty ladder goes further (``declared_tasks.LADDER``)."""
SCALARS = (str, int, float, bool)
TURNS_PER_STEP = 4

Declared = dict[str, dict[str, Any]]


def steps_ok(steps: Any) -> bool:
    """Whether ``steps`` is a number of tasks an episode can hold.

    >>> steps_ok(2), steps_ok(MAX_STEPS + 1), steps_ok(True), steps_ok("two")
    (True, False, False, False)
    """
    return isinstance(steps, int) and not isinstance(steps, bool) and 1 <= steps <= MAX_STEPS


def declaration_problem(collections: Any, links: Any, kinds: Any, steps: Any, size: Any) -> str | None:
    """What is wrong with a declaration, or None; the message says what to write instead.

    >>> declaration_problem({"books": {"title": ["Dune", "Emma"], "copies": range(3)}}, {}, ("update",), 1, 2)
    >>> declaration_problem({"books": {"title": ["Dune"]}}, {}, ("update",), 1, 2)
    "collections['books']['title'] has 1 value(s) for 2 records; its first field is the records' key: give \
it at least 2 different values"
    >>> declaration_problem({"books": {"title": ["Dune", "Emma"]}}, {}, ("sell",), 1, 2)
    "tasks holds 'sell'; choose from 'update', 'transfer', 'link', 'copy', 'check'"
    """
    if not isinstance(collections, dict) or not collections:
        return ("collections must be a dict of collection name: {field: [values]}, e.g. "
                "{'books': {'title': ['Dune', 'Emma'], 'copies': [1, 2, 3]}}")
    if not isinstance(size, int) or isinstance(size, bool) or not 2 <= size <= MAX_SIZE:
        return f"size (records per collection) must be an int from 2 to {MAX_SIZE}, got {size!r}"
    for name, fields in collections.items():
        problem = _collection_problem(name, fields, size)
        if problem:
            return problem
    problem = _links_problem(collections, links)
    if problem:
        return problem
    if not isinstance(kinds, (list, tuple)) or not kinds:
        return f"tasks must be a tuple of kinds of task, from {', '.join(map(repr, KINDS))}"
    for kind in kinds:
        if kind not in KINDS:
            return f"tasks holds {kind!r}; choose from {', '.join(map(repr, KINDS))}"
    if not steps_ok(steps):
        return f"steps (tasks per episode) must be an int from 1 to {MAX_STEPS}, got {steps!r}"
    if not any(possible(kind, collections, links, size) for kind in kinds):
        return ("none of the tasks can be drawn from these collections: 'update' needs a field besides "
                "the key with two or more values (or a key with more values than records), 'transfer' a "
                "field of whole numbers, 'link' a links entry")
    return None


def tolerated(collections: Any, kinds: Any, size: Any) -> tuple[Any, Any, Any, list[str]]:
    """The declaration with the slips small models make repaired, and each repair in words.

    Measured with the 1.5B: a key with fewer values than ``size`` (9 for 10 records), ``size = 1``,
    points written as tuples, kinds of task that do not exist, an ``id`` field declared. Anything
    else is left for ``declaration_problem`` to name.

    >>> tolerated({"jobs": {"name": ["a", "b", "c"], "at": [(0, 1), (2, 3)]}}, ("update", "sell"), 10)[1:]
    (('update',), 3, ["collections['jobs']['at'] holds values that are not text or numbers; used them as \
text", "tasks holds 'sell', which is no kind of task; left it out", 'size 10 is more than the 3 values \
of a key; used 3'])
    """
    slips: list[str] = []
    if not isinstance(collections, dict):
        return collections, kinds, size, slips
    fixed = {}
    for name, fields in collections.items():
        if isinstance(fields, dict):
            fields = dict(fields)
            if "id" in fields and len(fields) > 1:
                del fields["id"]
                slips.append(f"collections[{name!r}] declared an 'id' field; left it out (records get ids)")
            for field, values in fields.items():
                if isinstance(values, (list, tuple)) and not all(isinstance(v, SCALARS) for v in values):
                    fields[field] = [v if isinstance(v, SCALARS) else str(v) for v in values]
                    where = f"collections[{name!r}][{field!r}]"
                    slips.append(f"{where} holds values that are not text or numbers; used them as text")
        fixed[name] = fields
    if isinstance(kinds, str):
        kinds = (kinds,)
        slips.append(f"tasks is the text {kinds[0]!r}; read it as the tuple ({kinds[0]!r},)")
    if isinstance(kinds, (list, tuple)) and kinds and not any(k in KINDS for k in kinds):
        slips.append(f"tasks holds no kind of task ({', '.join(map(repr, kinds))}); used update, transfer "
                     "and link")
        kinds = FIRST_KINDS
    elif isinstance(kinds, (list, tuple)):
        for kind in (k for k in kinds if k not in KINDS):
            slips.append(f"tasks holds {kind!r}, which is no kind of task; left it out")
        kinds = tuple(k for k in kinds if k in KINDS)
    keys = [len(set(next(iter(f.values())))) for f in fixed.values()
            if isinstance(f, dict) and f and isinstance(next(iter(f.values())), (list, tuple, range))]
    fewest = min(keys, default=0)
    if isinstance(size, int) and not isinstance(size, bool) and fewest >= 2:
        if size > fewest:
            slips.append(f"size {size} is more than the {fewest} values of a key; used {fewest}")
            size = fewest
        elif size < 2:
            slips.append(f"size {size} is too few records to choose between; used {min(4, fewest)}")
            size = min(4, fewest)
    return fixed, kinds, size, slips


def _collection_problem(name: Any, fields: Any, size: int) -> str | None:
    where = f"collections[{name!r}]"
    if not isinstance(name, str) or not name.isidentifier():
        return f"the collection name {name!r} must be a word such as 'books'"
    if not isinstance(fields, dict) or not fields:
        return f"{where} must be a dict of field name: [values], e.g. {{'title': ['Dune', 'Emma']}}"
    for field, values in fields.items():
        if not isinstance(field, str) or not field.isidentifier() or field == "id":
            return f"{where} has the field {field!r}; name fields with words and leave 'id' out (it is given)"
        if not isinstance(values, (list, tuple, range)) or not values:
            return f"{where}[{field!r}] must be a list (or range) of the values the field draws from"
        if not all(isinstance(v, SCALARS) for v in values):
            return f"{where}[{field!r}] holds a value that is not text, a number or a bool; give plain values"
    key, keys = next(iter(fields)), set(next(iter(fields.values())))
    if len(keys) < size:
        return (f"{where}[{key!r}] has {len(keys)} value(s) for {size} records; its first field is the "
                f"records' key: give it at least {size} different values")
    return None


def _links_problem(collections: Declared, links: Any) -> str | None:
    if not isinstance(links, dict):
        return "links must be a dict of link collection: {field: collection it points to}"
    for name, fields in links.items():
        where = f"links[{name!r}]"
        if not isinstance(name, str) or not name.isidentifier() or name in collections:
            return f"{where}: a link collection needs a new name of its own, not one of collections"
        if not isinstance(fields, dict) or len(fields) != 2:
            return (f"{where} must name two fields and the collections they point to, e.g. "
                    "{'book_id': 'books', 'member_id': 'members'}")
        for field, target in fields.items():
            if not isinstance(field, str) or not field.isidentifier() or target not in collections:
                return f"{where}[{field!r}] points to {target!r}; point it to one of {', '.join(collections)}"
    return None


def draw_records(collections: Declared, links: dict, size: int, rng: random.Random) -> dict[str, list]:
    """``size`` records per collection (keys drawn without repeats, ids random and unique) and one
    record per link collection, linking two of them.

    >>> world = draw_records({"books": {"title": ["Dune", "Emma", "Ulysses"], "copies": [1, 2]}}, {}, 2,
    ...                      random.Random(0))
    >>> [sorted(r) for r in world["books"]], len({r["title"] for r in world["books"]})
    ([['copies', 'id', 'title'], ['copies', 'id', 'title']], 2)
    """
    world: dict[str, list] = {}
    for name, fields in collections.items():
        key, *others = fields
        ids = sorted(rng.sample(range(1, 100 * size), size))
        keys = rng.sample(list(dict.fromkeys(fields[key])), size)
        world[name] = [{"id": ids[n], key: keys[n], **{f: rng.choice(list(fields[f])) for f in others}}
                       for n in range(size)]
    for name, fields in links.items():
        world[name] = [{"id": 1, **{f: rng.choice(world[target])["id"] for f, target in fields.items()}}]
    return world


class DeclaredWorld(ToolWorld):
    """A ``ToolWorld`` written as data. A subclass sets:

    - ``collections``: ``{collection: {field: [values]}}``; each record draws each field's value from
      its list, and the first field is the records' key (drawn without repeats), by which tasks
      name records;
    - ``links`` (optional): ``{link collection: {field: collection}}``, two fields each holding the id
      of a record of a collection (a loan holds a book's id and a member's id);
    - ``tasks``: the kinds of task an episode draws from (``KINDS``); ``steps``: tasks per episode
      (1 to 3; each one more set of dependent calls, never two naming the same record); ``size``:
      records per collection; both used when no difficulty is set: a difficulty set by the run
      picks a rung of ``LADDER`` instead (up to 5 chained tasks on 50 records);
    - ``hint()`` (optional): the default tells how records are found and changed, never the calls.

    ``new_episode`` draws everything from ``self.rng``; ``solution()`` is the calls that do the
    drawn tasks (find each record by its key, then change it by id), and the goal is the state they
    leave, as for every ``ToolWorld``.
    """

    collections: Declared = {}
    links: dict[str, dict[str, str]] = {}
    tasks: tuple[str, ...] = FIRST_KINDS
    steps: int = 1
    size: int = 4

    difficulties = len(LADDER)

    def rung(self) -> Rung | None:
        """The ladder's rung when the run set a difficulty (``self.difficulty`` given to this
        instance, by the controller or ``--difficulty``); None: the declared ``steps`` and ``size``."""
        if "difficulty" not in vars(self):
            return None
        level = self.difficulty if isinstance(self.difficulty, int) else 1
        return LADDER[min(max(level, 1), len(LADDER)) - 1]

    @property
    def max_turns(self) -> int:  # type: ignore[override]
        """Room for one call per turn through every step (a transfer is four calls), and two turns
        more; a subclass may set its own. A bad ``steps`` counts as one here and is named at reset."""
        rung = self.rung()
        steps = rung.steps if rung is not None else self.steps if steps_ok(self.steps) else 1
        return TURNS_PER_STEP * steps + 2

    def new_episode(self) -> str:
        """Draw this seed's records and tasks; returns the task (several: numbered, in order)."""
        rung = self.rung()
        collections, kinds, size, self._slips = tolerated(self.collections, self.tasks,
                                                          self.size if rung is None else None)
        steps = self.steps
        if rung is not None:
            steps, size, collections = rung.steps, rung.size, _with_keys(collections, rung.size + 2)
        # a rung goes past what a designer may declare: its declaration is checked within those bounds
        shape = (steps, size) if rung is None else (min(steps, MAX_STEPS), min(size, MAX_SIZE))
        problem = declaration_problem(collections, self.links, kinds, *shape)
        if problem:
            raise ValueError(problem)
        self._collections = collections
        self.records = draw_records(collections, self.links, size, self.rng)
        chained = rung is not None and rung.chained
        drawer = TaskDrawer(collections, self.links, self.records, self.rng, chained)
        self._drawn = drawer.draw(tuple(kinds), steps)
        if len(self._drawn) == 1:
            return self._drawn[0].task
        numbered = (f"{n}. {s.task}" for n, s in enumerate(self._drawn, start=1))
        return "Do these in order:\n" + "\n".join(numbered)

    def solution(self) -> list[str]:
        """The tool calls that do every drawn task, in order: one call an action, or on the ladder each
        task's finds in one action and its changes in the next (``Step.actions``)."""
        if self.rung() is not None:
            return [action for step in self._drawn for action in step.actions()]
        return [c for step in self._drawn for c in step.calls]

    def slips(self) -> list[str]:
        """The declaration's slips the last episode repaired (the loader records them as tolerances)."""
        return list(getattr(self, "_slips", ()))

    def hint(self) -> str:
        """Find records by their fields before changing them by id; what transfers and links change."""
        kinds = {step.kind for step in self._drawn}
        text = "Tools change a record by its id, but the task names records by other fields: find them first."
        if "transfer" in kinds:
            text += " A transfer changes two records: one loses the amount, the other gains it."
        if "link" in kinds:
            text += " A link record holds the ids of the two records it links, not their names."
        if kinds & {"copy", "check"}:
            text += " Read the value a task depends on with find first, as the tasks before it left it."
        return text


def _with_keys(collections: Any, count: int) -> Any:
    """The collections with each key's values made up to ``count`` (``declared_tasks.more_keys``);
    a declaration that is not a dict of dicts is left for ``declaration_problem`` to name."""
    if not isinstance(collections, dict) or not all(isinstance(f, dict) and f for f in collections.values()):
        return collections
    made = {}
    for name, fields in collections.items():
        key, values = next(iter(fields.items()))
        keys = more_keys(values, count) if isinstance(values, (list, tuple, range)) and values else values
        made[name] = {key: keys, **{f: v for f, v in fields.items() if f != key}}
    return made
