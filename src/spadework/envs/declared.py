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
from dataclasses import dataclass
from typing import Any

from spadework.envs.tool_calls import call
from spadework.envs.tools import ToolWorld

KINDS = ("update", "transfer", "link")
"""The kinds of task: set one field of a record found by its key (its key too, to a value no record
holds); move an amount of a number field from one record to another; add a record to a link
collection that holds two records' ids."""
MAX_STEPS = 3
MAX_SIZE = 12
SCALARS = (str, int, float, bool)
DRAWS = 20
"""Tries to draw a step that touches what no earlier step of the episode touched."""
TURNS_PER_STEP = 4

Declared = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One drawn task of an episode.

    Attributes:
        kind: one of ``KINDS``.
        task: its words, as the agent reads them.
        calls: the calls that do it, in order.
        touches: the records it names (collection, id) and a key value it gives, so that no two
            steps of an episode name the same record (a renamed record is no longer found by its
            old key) or give one key value twice.
    """

    kind: str
    task: str
    calls: tuple[str, ...]
    touches: frozenset[tuple[Any, ...]]


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
    "tasks holds 'sell'; choose from 'update', 'transfer', 'link'"
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
    if not any(_possible(kind, collections, links, size) for kind in kinds):
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
        slips.append(f"tasks holds no kind of task ({', '.join(map(repr, kinds))}); used every kind")
        kinds = KINDS
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


def _numeric(values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values) and max(values) >= 1


def _possible(kind: str, collections: Declared, links: dict, size: int) -> bool:
    if kind == "link":
        return bool(links)
    if kind == "transfer":
        return any(_numeric(list(values)) for values in collections_fields(collections))
    return bool(changeable(collections, size))


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
      records per collection;
    - ``hint()`` (optional): the default tells how records are found and changed, never the calls.

    ``new_episode`` draws everything from ``self.rng``; ``solution()`` is the calls that do the
    drawn tasks (find each record by its key, then change it by id), and the goal is the state they
    leave, as for every ``ToolWorld``.
    """

    collections: Declared = {}
    links: dict[str, dict[str, str]] = {}
    tasks: tuple[str, ...] = KINDS
    steps: int = 1
    size: int = 4

    @property
    def max_turns(self) -> int:  # type: ignore[override]
        """Room for one call per turn through every step (a transfer is four calls), and two turns
        more; a subclass may set its own. A bad ``steps`` counts as one here and is named at reset."""
        return TURNS_PER_STEP * (self.steps if steps_ok(self.steps) else 1) + 2

    def new_episode(self) -> str:
        """Draw this seed's records and tasks; returns the task (several: numbered, in order)."""
        collections, kinds, size, self._slips = tolerated(self.collections, self.tasks, self.size)
        problem = declaration_problem(collections, self.links, kinds, self.steps, size)
        if problem:
            raise ValueError(problem)
        self._collections = collections
        self.records = draw_records(collections, self.links, size, self.rng)
        self._size = size
        kinds = [k for k in kinds if _possible(k, collections, self.links, size)]
        drawn: list[Step] = []
        for _ in range(self.steps):
            touched = frozenset().union(*(step.touches for step in drawn))
            tries = (self._draw(self.rng.choice(kinds)) for _ in range(DRAWS))
            step = next((s for s in tries if s is not None and not touched & s.touches), None)
            if step is not None:
                drawn.append(step)
        self._drawn = tuple(drawn)
        if len(drawn) == 1:
            return drawn[0].task
        return "Do these in order:\n" + "\n".join(f"{n}. {s.task}" for n, s in enumerate(drawn, start=1))

    def solution(self) -> list[str]:
        """The tool calls that do every drawn task, in order."""
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
        return text

    def _key(self, name: str) -> str:
        return next(iter(self._collections[name]))

    def _find(self, name: str, item: dict) -> str:
        return call("find", collection=name, field=self._key(name), value=item[self._key(name)])

    def _named(self, name: str, item: dict) -> str:
        return f"the {name} record whose {self._key(name)} is {item[self._key(name)]!r}"

    def _draw(self, kind: str) -> Step | None:
        """One task of ``kind`` on the records (None when the one drawn does not fit)."""
        return {"update": self._update, "transfer": self._transfer, "link": self._link}[kind]()

    def _update(self) -> Step:
        name, field = self.rng.choice(changeable(self._collections, self._size))
        item = self.rng.choice(self._world[name])
        held = {r[field] for r in self._world[name]} if field == self._key(name) else {item[field]}
        value = self.rng.choice([v for v in dict.fromkeys(self._collections[name][field]) if v not in held])
        change = call("update", collection=name, id=item["id"], field=field, value=value)
        return Step("update", f"Set the {field} of {self._named(name, item)} to {value!r}.",
                    (self._find(name, item), change), frozenset({(name, item["id"]), (name, field, value)}))

    def _transfer(self) -> Step | None:
        name, field = self.rng.choice([(c, f) for c, fields in self._collections.items()
                                       for f in list(fields)[1:] if _numeric(fields[f])])
        source, target = self.rng.sample(self._world[name], 2)
        if source[field] < 1:
            source, target = target, source
        if source[field] < 1:
            return None
        amount = self.rng.randint(1, source[field])
        calls = (self._find(name, source), self._find(name, target),
                 call("update", collection=name, id=source["id"], field=field, value=source[field] - amount),
                 call("update", collection=name, id=target["id"], field=field, value=target[field] + amount))
        task = f"Move {amount} of the {field} of {self._named(name, source)} to {self._named(name, target)}."
        touches = frozenset({(name, source["id"]), (name, target["id"])})
        return Step("transfer", task, calls, touches)

    def _link(self) -> Step:
        name = self.rng.choice(list(self.links))
        (first, one), (second, other) = self.links[name].items()
        a, b = self.rng.choice(self._world[one]), self.rng.choice(self._world[other])
        task = (f"Add a record to {name} that links {self._named(one, a)} and {self._named(other, b)}: its "
                f"{first} is the first one's id and its {second} the second one's.")
        calls = (self._find(one, a), self._find(other, b),
                 call("create", collection=name, fields={first: a["id"], second: b["id"]}))
        return Step("link", task, calls, frozenset({(one, a["id"]), (other, b["id"])}))
