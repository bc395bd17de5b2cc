"""The scripted fake's tool worlds: the one it designs, and how it calls tools.

The stock world (and, for the ``records`` form, a declared ledger of items and customers) asks
to set an item's count; the update tool takes the item's id and the task
gives its name. With the hint the fake finds the item by name, reads the id from the result
and updates it (solved in two turns); without it, it updates ids in turn from the second,
changing the wrong items' counts (solved only when the first guess is right). A tool world
it does not know gets the first tool the hint names (else the first tool), called with values
read from the task and the results.

Replies alternate between the two call forms a world reads: ``<tool_call>`` JSON and a
Python-style list. Everything here is a pure function of its inputs.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Sequence
from typing import Any

from spadework.policy.base import ToolSchema
from spadework.policy.scripted_families import AgentView, _words_for, class_prefix
from spadework.policy.toolcalls import tool_call_text

STOCK = "stock"
"""The name of the tool world family."""

STOCK_TEMPLATE = string.Template('''"""Restock the $topic store: items change by id, tasks name them."""

from spadework.envs import ToolWorld

ITEMS = $items
TOPIC = "$topic"


class ${prefix}StockEnv(ToolWorld):
    """Set one item's count; the update tool takes the item's id, so it must be looked up first."""

    max_turns = $max_turns

    def new_episode(self):
        names = self.rng.sample(ITEMS, $count)
        self.records = {"items": [{"id": 10 + i, "name": name, "count": self.rng.randint(0, 9)}
                                  for i, name in enumerate(names)]}
        self.item = self.rng.choice(self.records["items"])
        self.target = self.item["count"] + self.rng.randint(1, 20)
        return (f"The {TOPIC} store restocked: set the count of the item named '{self.item['name']}' "
                f"to {self.target}.")

    def solution(self):
        return [f"find(collection='items', field='name', value='{self.item['name']}')",
                f"update(collection='items', id={self.item['id']}, field='count', value='{self.target}')"]

    def hint(self):
        return "Items are changed by their id: find the item by its name first, then update its count."
''')

DECLARED = "declared"
"""The name of the declared tool world family (the ``records`` form)."""

DECLARED_TEMPLATE = string.Template('''"""The $topic store's items and customers, declared as data."""

from spadework.envs import DeclaredWorld


class ${prefix}LedgerEnv(DeclaredWorld):
    """Items of the $topic store with their counts, customers, and the orders that join them."""

    collections = {"items": {"name": $items, "count": range(0, 10)},
                   "customers": {"name": $customers, "city": ["Lisbon", "Porto", "Faro", "Braga"]}}
    links = {"orders": {"item_id": "items", "customer_id": "customers"}}
    tasks = $tasks
    steps = $steps
    size = $size
''')

STOCK_TASK = re.compile(r"set the count of the item named '([^']+)' to (\d+)")
RESULT_ID = re.compile(r'"id": (\d+)')
QUOTED = re.compile(r"'([^']+)'")
NUMBER = re.compile(r"-?\d+")

ToolMove = tuple[str, dict[str, Any]]
"""A short thought and one call: ``{"name": ..., "arguments": {...}}``."""


def design_stock(topic: str, rng: random.Random) -> str:
    """The stock world's module for ``topic``, its item names and sizes drawn from ``rng``."""
    items = _words_for(topic, rng, rng.randint(8, 12), STOCK_TEMPLATE.template)
    return STOCK_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), items=repr(items),
                                     count=rng.randint(3, 5), max_turns=rng.randint(3, 5))


def design_declared(topic: str, rng: random.Random) -> str:
    """A declared world's module for ``topic`` (the ``records`` form), its names and sizes from ``rng``."""
    size = rng.randint(3, 5)
    words = _words_for(topic, rng, 2 * size + 2, DECLARED_TEMPLATE.template)
    tasks = rng.choice([("update",), ("update", "transfer"), ("update", "transfer", "link")])
    items, customers = list(words[:size + 1]), [w.title() for w in words[size + 1:]]
    return DECLARED_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), items=repr(items),
                                        customers=repr(customers), tasks=repr(tasks), steps=rng.randint(1, 2),
                                        size=size)


def call_text(turn: int, name: str, arguments: dict[str, Any]) -> str:
    """One call written in the form of this turn: ``<tool_call>`` JSON on even turns, a Python list
    on odd ones.

    >>> call_text(1, "get", {"collection": "items", "id": 3})
    "[get(collection='items', id=3)]"
    """
    if turn % 2 == 0:
        return tool_call_text(name, arguments)
    return f"[{name}({', '.join(f'{key}={value!r}' for key, value in arguments.items())})]"


def play_stock(view: AgentView) -> ToolMove | None:
    """Find, then update the found id, with the hint; update ids in turn without it.

    >>> task = "set the count of the item named 'kettle' to 12."
    >>> play_stock(AgentView(task, "find it first", (), 0))[1]
    {'name': 'find', 'arguments': {'collection': 'items', 'field': 'name', 'value': 'kettle'}}
    >>> found = 'find(...) -> [{"id": 12, "name": "kettle", "count": 3}]'
    >>> play_stock(AgentView(task, "find it first", (found,), 1))[1]["arguments"]["id"]
    12
    >>> play_stock(AgentView(task, None, (), 1))[1]["arguments"]["id"]
    12
    """
    task = STOCK_TASK.search(view.first)
    if task is None:
        return None
    name, count = task.group(1), task.group(2)
    ids = [int(i) for later in view.later for i in RESULT_ID.findall(later)]
    if view.hint is not None and not ids:
        return "The update needs the item's id, so I look the item up by name.", \
            {"name": "find", "arguments": {"collection": "items", "field": "name", "value": name}}
    item_id = ids[-1] if view.hint is not None else 11 + view.turn
    arguments = {"collection": "items", "id": item_id, "field": "count", "value": count}
    return f"I set the count of item {item_id}.", {"name": "update", "arguments": arguments}


def _value(parameter: str, kind: str, view: AgentView) -> Any:
    """A value for a parameter read from the task and the results: the last id a result gave
    for an ``id`` parameter, else the task's first number (or 1) for a number and its first
    quoted text (or the parameter's name) for anything else."""
    ids = [int(i) for later in view.later for i in RESULT_ID.findall(later)]
    numbers = NUMBER.findall(view.first)
    if kind in ("integer", "number"):
        if parameter.endswith("id") and ids:
            return ids[-1]
        return int(numbers[0]) if numbers else 1
    quoted = QUOTED.findall(view.first)
    return quoted[0] if quoted else parameter


def play_any(view: AgentView, tools: Sequence[ToolSchema]) -> ToolMove:
    """The first tool the hint names (the first tool without one), its required arguments filled
    from the task and the results.

    >>> tool = {"type": "function", "function": {"name": "look", "parameters": {"type": "object",
    ...         "properties": {"room": {"type": "string"}, "id": {"type": "integer"}},
    ...         "required": ["room", "id"]}}}
    >>> play_any(AgentView("Go to the 'hall', room 4.", None, (), 0), [tool])[1]
    {'name': 'look', 'arguments': {'room': 'hall', 'id': 4}}
    """
    functions = [tool.get("function") or {} for tool in tools]
    named = [f for f in functions if view.hint and f.get("name") and f["name"] in view.hint]
    function = (named or functions)[0]
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    arguments = {name: _value(name, str((properties.get(name) or {}).get("type")), view)
                 for name in parameters.get("required") or list(properties)}
    return f"I call {function.get('name')} with what the task gives.", \
        {"name": str(function.get("name")), "arguments": arguments}


def tool_agent_reply(view: AgentView, tools: Sequence[ToolSchema]) -> str:
    r"""A tool world's reply: a short thought and one call (its form alternating by turn).

    >>> reply = tool_agent_reply(AgentView("set the count of the item named 'a' to 3.", None, (), 0), [])
    >>> reply.splitlines()[-2]
    '{"name": "update", "arguments": {"collection": "items", "id": 11, "field": "count", "value": "3"}}'
    """
    move = play_stock(view)
    if move is None and tools:
        move = play_any(view, tools)
    if move is None:
        return "I see no tools to call, so I stop here. \\boxed{done}"
    thought, call = move
    return f"{thought}\n{call_text(view.turn, call['name'], call['arguments'])}"


LISTED = re.compile(r"^([A-Za-z_]\w*)\(([^)]*)\) - ", re.MULTILINE)
"""A tool listed under a task one a line (``ToolPrompt.COMPACT``): ``name(arg: type, ...) - what it does``."""


def listed_tools(text: str) -> list[ToolSchema]:
    r"""The schemas of the tools a first message lists one a line (their names and arguments, every
    argument required), so that the scripted agent plays a world whose tools were not sent.

    >>> [t["function"]["name"] for t in listed_tools("Do it.\n\nTools:\nlook(room: string) - Look.\n")]
    ['look']
    >>> listed_tools("Do it.\n\nTools:\nlook(room: string) - Look.")[0]["function"]["parameters"]["required"]
    ['room']
    """
    tools = []
    for name, arguments in LISTED.findall(text):
        params = [part.split(":")[0].strip() for part in arguments.split(",") if part.strip()]
        kinds = [part.partition(":")[2].strip() or "string" for part in arguments.split(",") if part.strip()]
        tools.append({"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": {p: {"type": k} for p, k in zip(params, kinds, strict=True)},
            "required": params}}})
    return tools


def is_tool_design(texts: Sequence[str]) -> bool:
    """Whether a design conversation (its messages' texts) asks for a tool world.

    >>> is_tool_design(["Write a class that subclasses `ToolWorld`"]), is_tool_design(["AnswerEnv"])
    (True, False)
    """
    return any("ToolWorld" in text for text in texts)


def is_declared_design(texts: Sequence[str]) -> bool:
    """Whether a design conversation asks for a declared world (the ``records`` form).

    >>> is_declared_design(["subclasses `DeclaredWorld`"]), is_declared_design(["ToolWorld"])
    (True, False)
    """
    return any("DeclaredWorld" in text for text in texts)
